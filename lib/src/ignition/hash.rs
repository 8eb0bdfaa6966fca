//! The digests of Ignition's `verification.hash` (`sha512-HEX`, or `sha256-HEX` from spec 3.1),
//! computed over the bytes the files stage writes (after decompression, as Ignition hashes
//! them), and the short digests the views show in place of long contents.

use sha2::Digest as _;

/// A running SHA-256 or SHA-512.
pub(crate) enum Hashing {
    Sha256(sha2::Sha256),
    Sha512(sha2::Sha512),
}

impl Hashing {
    /// For a well-formed `sha256-...` or `sha512-...` hash.
    pub(crate) fn of(hash: &str) -> Hashing {
        if hash.starts_with("sha256-") {
            Hashing::Sha256(sha2::Sha256::new())
        } else {
            Hashing::Sha512(sha2::Sha512::new())
        }
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        match self {
            Hashing::Sha256(h) => h.update(bytes),
            Hashing::Sha512(h) => h.update(bytes),
        }
    }

    /// The hash as the config writes it: `sha512-HEX`.
    pub(crate) fn hash(self) -> String {
        let (function, sum) = match self {
            Hashing::Sha256(h) => ("sha256", h.finalize().to_vec()),
            Hashing::Sha512(h) => ("sha512", h.finalize().to_vec()),
        };
        format!("{function}-{}", base16ct::lower::encode_string(&sum))
    }
}

impl std::io::Write for Hashing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `sha512-<hex>` of `bytes`, as Ignition's `verification.hash` wants it.
pub(crate) fn sha512_hash(bytes: &[u8]) -> String {
    let mut hashing = Hashing::Sha512(sha2::Sha512::new());
    hashing.update(bytes);
    hashing.hash()
}

/// The first 8 bytes of `bytes`' SHA-256 in hex: long enough that two contents shown in a view
/// differ there when they differ at all.
pub(crate) fn short_sha256(bytes: &[u8]) -> String {
    base16ct::lower::encode_string(&sha2::Sha256::digest(bytes)[..8])
}
