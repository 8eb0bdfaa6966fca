//! Whether a file of the output directory already holds what a run would write, found without
//! reading it whole: a re-run compares every file, and a copy of each (bootstrap.ign alone some
//! 80 pages) is memory a new process touches for the first time, which costs more than the
//! comparison.

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;

/// How much of a file is compared at a time.
const CHUNK: usize = 16 * 1024;

/// A buffer for [`holds_exactly`], reused for every file of a run.
pub(super) fn buffer() -> Vec<u8> {
    vec![0; CHUNK]
}

/// Whether the regular file at `path` holds exactly `contents`, read a chunk at a time into
/// `buffer`. An error when it cannot be read, or is no regular file (a directory, a pipe), as
/// reading it whole would be.
pub(super) fn holds_exactly(
    path: &Path,
    contents: &[u8],
    buffer: &mut [u8],
) -> std::io::Result<bool> {
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    if meta.len() != contents.len() as u64 {
        return Ok(false);
    }
    let mut rest = contents;
    loop {
        let read = match file.read(buffer) {
            Ok(read) => read,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if read == 0 {
            return Ok(rest.is_empty());
        }
        // A file that grew since its length was read is not the same either.
        match rest.split_at_checked(read) {
            Some((expected, after)) if buffer[..read] == *expected => rest = after,
            _ => return Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_bytes_are_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        // Longer than a chunk, so the comparison crosses chunks.
        let contents: Vec<u8> = (0..CHUNK * 2 + 7).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &contents).unwrap();
        let mut buffer = buffer();
        assert!(holds_exactly(&path, &contents, &mut buffer).unwrap());
        // The same length, one byte different in the second chunk.
        let mut other = contents.clone();
        other[CHUNK + 3] ^= 1;
        assert!(!holds_exactly(&path, &other, &mut buffer).unwrap());
        // Shorter and longer.
        assert!(!holds_exactly(&path, &contents[1..], &mut buffer).unwrap());
        assert!(!holds_exactly(&path, &[contents.as_slice(), b"x"].concat(), &mut buffer).unwrap());
        std::fs::write(&path, b"").unwrap();
        assert!(holds_exactly(&path, b"", &mut buffer).unwrap());
        // Missing, or a directory: not readable as a file.
        assert!(holds_exactly(&dir.path().join("none"), b"", &mut buffer).is_err());
        assert!(holds_exactly(dir.path(), b"", &mut buffer).is_err());
    }
}
