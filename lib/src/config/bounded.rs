//! Reading an input file whole, but never more than a limit: a path may name a device that
//! never ends (`/dev/zero`), a pipe, or a file far larger than any input of its kind, and
//! reading it whole would take all the memory there is.

use crate::error::{Error, Result};
use std::io::Read;
use std::path::Path;

/// The most an install-config may hold. The largest real ones (many hosts, a long trust bundle)
/// are some hundreds of KiB.
pub const INSTALL_CONFIG_LIMIT: u64 = 16 * 1024 * 1024;

/// The most one user manifest file may hold: far above what the API server stores (an object
/// is at most 1.5 MiB in etcd), even for a file of many documents.
pub const MANIFEST_LIMIT: u64 = 64 * 1024 * 1024;

/// The most a NetworkManager keyfile may hold: a profile is some hundred bytes, a few KiB with
/// an 802.1X certificate inline.
pub const KEYFILE_LIMIT: u64 = 1024 * 1024;

/// The most an Ignition config may hold, read whole by every command that takes one. The
/// largest bootstrap configs (thousands of manifests) are some tens of MiB.
pub const IGNITION_CONFIG_LIMIT: u64 = 1024 * 1024 * 1024;

/// The bytes of a stream (standard input), named `name` in the error when it holds more than
/// `limit` bytes.
pub fn read_stream_at_most(reader: impl Read, limit: u64, name: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("cannot read", Path::new(name), e))?;
    if bytes.len() as u64 > limit {
        return Err(Error::Parse {
            file: name.to_string(),
            line: None,
            message: format!(
                "holds more than the {} MiB bootgen reads of an input like it",
                limit / (1024 * 1024)
            ),
        });
    }
    Ok(bytes)
}

/// The bytes of `path` (followed when a link, as any input named by the user), refused with an
/// error naming it when it holds more than `limit` bytes. A pipe or device is read up to the
/// limit and no further.
pub fn read_at_most(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io("cannot read", path, e))?;
    let too_large = |size: String| Error::Parse {
        file: path.display().to_string(),
        line: None,
        message: format!(
            "{size} more than the {} MiB bootgen reads of an input like it",
            limit / (1024 * 1024)
        ),
    };
    let meta = file
        .metadata()
        .map_err(|e| Error::io("cannot read", path, e))?;
    if meta.is_file() && meta.len() > limit {
        return Err(too_large(format!("is {} bytes,", meta.len())));
    }
    // Sized from the file's length, as fs::read does: read through `take`, a vector that grows
    // by doubling would hold up to twice each file (10,000 manifests: 60 MiB more at the peak).
    let expected = if meta.is_file() { meta.len() } else { 0 };
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("cannot read", path, e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large("holds".into()));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_or_oversized_input_is_refused_naming_it() {
        let err = read_at_most(Path::new("/dev/zero"), 1024).unwrap_err();
        assert!(err.to_string().contains("/dev/zero"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.yaml");
        std::fs::write(&path, vec![b'a'; 2048]).unwrap();
        let err = read_at_most(&path, 1024).unwrap_err().to_string();
        assert!(
            err.contains("big.yaml") && err.contains("2048 bytes"),
            "{err}"
        );
        assert_eq!(read_at_most(&path, 2048).unwrap().len(), 2048);
    }
}
