//! Reading a tls directory written by [`super::Pki::store_files`]: `<name>.key` and
//! `<name>.crt` for certificates, `<name>.key` (plus a derived `.pub`) for bare key pairs.
//! A key file the directory's record vouches for is read without importing it (see
//! `record.rs`); any other is imported with every check as it is read.

use std::path::Path;

use super::cert::CertInfo;
use super::keys::PrivateKey;
use super::record::KeyRecord;
use super::PkiError;

/// What a tls directory holds for one name.
#[derive(Debug, Default)]
pub(crate) struct Stored {
    pub key: Option<PrivateKey>,
    pub cert: Option<CertInfo>,
}

/// The path of `<name>.key` in `dir`.
pub(crate) fn key_path(dir: &Path, name: &str) -> std::path::PathBuf {
    dir.join(format!("{name}.key"))
}

/// Loads `<name>.key` and `<name>.crt`. A certificate without its key, or a key that is not the
/// certificate's, is an error naming the files.
pub(crate) fn load_certified(
    dir: Option<&Path>,
    name: &str,
    record: &KeyRecord,
) -> Result<Stored, PkiError> {
    let Some(dir) = dir else {
        return Ok(Stored::default());
    };
    let key_path = key_path(dir, name);
    let cert_path = dir.join(format!("{name}.crt"));
    let key = read_key(&key_path, record)?;
    let cert = read_cert(&cert_path)?;
    match (&key, &cert) {
        (None, Some(_)) => {
            return Err(PkiError::MissingKey {
                key_file: key_path,
                because: cert_path,
            })
        }
        (Some(key), Some(cert)) if key.public_key_bytes() != cert.public_key => {
            return Err(PkiError::KeyMismatch {
                key_file: key_path,
                cert_file: cert_path,
            })
        }
        _ => {}
    }
    Ok(Stored { key, cert })
}

/// Loads `<name>.key` of a bare key pair. Its public half (`public_file`) without the private
/// key is an error: something may already trust that public key.
pub(crate) fn load_key_pair(
    dir: Option<&Path>,
    name: &str,
    public_file: &str,
    record: &KeyRecord,
) -> Result<Option<PrivateKey>, PkiError> {
    let Some(dir) = dir else {
        return Ok(None);
    };
    let key_path = key_path(dir, name);
    let key = read_key(&key_path, record)?;
    let public_path = dir.join(public_file);
    if key.is_none() && read_optional(&public_path)?.is_some() {
        return Err(PkiError::MissingKey {
            key_file: key_path,
            because: public_path,
        });
    }
    Ok(key)
}

/// The most a file of a tls directory may hold: a certificate with its chain, or a key, is a
/// few KiB; a larger file is no file bootgen wrote.
const MAX_TLS_FILE: u64 = 4 << 20;

/// A file of the tls directory, read through no link and refused when another user controls
/// it (see `crate::ownership`); `None` when absent.
pub(crate) fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, PkiError> {
    use crate::ownership::OwnFileError;
    crate::ownership::read_own_file(path, MAX_TLS_FILE).map_err(|e| match e {
        OwnFileError::Foreign(foreign) => PkiError::Foreign { foreign },
        OwnFileError::NotAFile => invalid(
            path,
            "it is a link or no regular file; bootgen reads keys and certificates only from regular files",
        ),
        OwnFileError::TooLarge(limit) => invalid(
            path,
            format!("it is larger than {limit} bytes, more than any key or certificate file"),
        ),
        OwnFileError::Io(source) => PkiError::ReadFile {
            path: path.to_path_buf(),
            source,
        },
    })
}

/// Refuses a tls directory another user controls, before anything is read from it. A link
/// named as the directory is followed: the directory it names is the one checked.
pub(crate) fn refuse_foreign_dir(dir: &Path) -> Result<(), PkiError> {
    match std::fs::metadata(dir) {
        Ok(meta) => crate::ownership::refuse_foreign(dir, &meta)
            .map_err(|foreign| PkiError::Foreign { foreign }),
        Err(_) => Ok(()),
    }
}

/// The error for a file that is not a certificate or key we can use.
pub(crate) fn invalid(path: &Path, reason: impl Into<String>) -> PkiError {
    PkiError::InvalidFile {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// The PEM blocks of a file, or an error if there are none.
fn read_pem(path: &Path) -> Result<Option<Vec<pem::Pem>>, PkiError> {
    read_optional(path)?
        .map(|bytes| parse_pem(path, &bytes))
        .transpose()
}

fn parse_pem(path: &Path, bytes: &[u8]) -> Result<Vec<pem::Pem>, PkiError> {
    // The pem crate's messages quote no file content, so they are safe to show for key files.
    let blocks = pem::parse_many(bytes).map_err(|e| invalid(path, format!("not PEM ({e})")))?;
    if blocks.is_empty() {
        return Err(invalid(path, "no PEM block found"));
    }
    Ok(blocks)
}

fn read_key(path: &Path, record: &KeyRecord) -> Result<Option<PrivateKey>, PkiError> {
    let Some(bytes) = read_optional(path)? else {
        return Ok(None);
    };
    let blocks = parse_pem(path, &bytes)?;
    if blocks.len() != 1 {
        return Err(invalid(
            path,
            format!(
                "expected one private key, found {} PEM blocks",
                blocks.len()
            ),
        ));
    }
    let Some(block) = blocks.first() else {
        return Ok(None);
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let vouched = record
        .vouched_digest(&name, &bytes)
        .and_then(|digest| PrivateKey::from_pem_unchecked(block, digest));
    match vouched {
        Some(key) => Ok(Some(key)),
        None => PrivateKey::from_pem(block)
            .map(Some)
            .map_err(|reason| invalid(path, reason)),
    }
}

/// The first certificate of a `.crt` file (serving certificates have their CA appended).
fn read_cert(path: &Path) -> Result<Option<CertInfo>, PkiError> {
    let Some(blocks) = read_pem(path)? else {
        return Ok(None);
    };
    let first = blocks
        .first()
        .filter(|b| b.tag() == "CERTIFICATE")
        .ok_or_else(|| invalid(path, "the first PEM block is not a CERTIFICATE"))?;
    CertInfo::from_der(first.contents())
        .map(Some)
        .map_err(|reason| invalid(path, reason))
}
