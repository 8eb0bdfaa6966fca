//! Whether a file of the output directory already holds what a run would write, found without
//! reading it whole: a re-run compares every file, and a copy of each (bootstrap.ign alone some
//! 80 pages) is memory a new process touches for the first time, which costs more than the
//! comparison. A re-run's boot config is compared as it is serialized, so its bytes are not
//! made at all when the directory holds them ([`into_output_files_in`]).

use super::{files_with, interrupted, into_output_files, OutputFile};
use crate::generate::Generated;
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::path::Path;

/// How much of a file is compared at a time.
const CHUNK: usize = 16 * 1024;

/// A buffer for [`holds_exactly`], reused for every file of a run.
pub(super) fn buffer() -> Vec<u8> {
    vec![0; CHUNK]
}

/// A file that [`into_output_files_in`] left out: the directory already holds exactly its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptFile {
    /// Path relative to the output directory.
    pub relative: String,
    /// Its bytes' length and CRC-32.
    pub measured: Measured,
}

/// [`into_output_files`] for a run into `dir`: when `dir` already holds exactly the bootstrap
/// config (compared a chunk at a time as it is serialized), its bytes are never made and it is
/// left out of the files, returned as a [`KeptFile`] instead. A re-run writes the same config,
/// and its bytes (330 KiB of the example's) were memory a new process touches for the first time.
/// Nothing may write `dir` between this and the write of the files (hold its lock).
pub fn into_output_files_in(
    mut generated: Generated,
    dir: &Path,
) -> (Vec<OutputFile>, Option<KeptFile>) {
    let relative = generated.bootstrap_name();
    // Finishing a write interrupted after its commit point replaces files: compare only with a
    // directory as it stands.
    let measured = (!interrupted(dir))
        .then(|| holds_json(&dir.join(relative), &generated.bootstrap.value))
        .flatten();
    let Some(measured) = measured else {
        return (into_output_files(generated), None);
    };
    generated.bootstrap.value = serde_json::Value::Null;
    let kept = KeptFile {
        relative: relative.to_string(),
        measured,
    };
    (files_with(&generated, None), Some(kept))
}

/// Whether the regular file at `path` holds exactly `contents`, read a chunk at a time into
/// `buffer`: its permission bits when it does (read on the way, for the caller's mode checks),
/// `None` when it does not. An error when it cannot be read, or is no regular file (a
/// directory, a pipe), as reading it whole would be.
pub(super) fn holds_exactly(
    path: &Path,
    contents: &[u8],
    buffer: &mut [u8],
) -> std::io::Result<Option<u32>> {
    use std::os::unix::fs::PermissionsExt as _;
    // Not a FIFO's reader, which would wait for a writer forever.
    let (mut file, meta) = super::host_configs::open_regular(path)?
        .ok_or_else(|| std::io::Error::from(ErrorKind::NotFound))?;
    if meta.len() != contents.len() as u64 {
        return Ok(None);
    }
    let mut rest = contents;
    loop {
        let read = match file.read(buffer) {
            Ok(read) => read,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if read == 0 {
            return Ok(rest.is_empty().then(|| meta.permissions().mode() & 0o7777));
        }
        // A file that grew since its length was read is not the same either.
        match rest.split_at_checked(read) {
            Some((expected, after)) if buffer[..read] == *expected => rest = after,
            _ => return Ok(None),
        }
    }
}

/// A config's single-line JSON that a file already holds, measured as it was compared: its
/// length and CRC-32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measured {
    /// Its length in bytes.
    pub len: u64,
    /// Its CRC-32 (as gzip's).
    pub crc32: u32,
}

/// Whether the regular file at `path` (opened without following a link) holds exactly `value`
/// as `serde_json::to_writer` writes it, found by comparing the bytes a chunk at a time as they
/// are serialized, so they are never all in memory; measured when it does. The serialization
/// stops at the first difference.
pub(super) fn holds_json(path: &Path, value: &serde_json::Value) -> Option<Measured> {
    let (file, _) = super::host_configs::open_regular(path).ok().flatten()?;
    let mut sink = Comparing {
        file,
        pending: Vec::with_capacity(CHUNK),
        disk: buffer(),
        len: 0,
        crc: flate2::Crc::new(),
    };
    serde_json::to_writer(&mut sink, value).ok()?;
    sink.compare_pending().ok()?;
    // A file longer than the bytes is not the same either.
    (sink.fill(1)? == 0).then(|| Measured {
        len: sink.len,
        crc32: sink.crc.sum(),
    })
}

/// The writer behind [`holds_json`]: serde_json writes a few bytes at a time, which are
/// gathered into chunks, each hashed and compared with the file's next bytes.
struct Comparing {
    file: File,
    pending: Vec<u8>,
    disk: Vec<u8>,
    len: u64,
    crc: flate2::Crc,
}

impl Comparing {
    /// Compares the gathered bytes with the file's next ones; an error (which stops the
    /// serialization) when they differ.
    fn compare_pending(&mut self) -> std::io::Result<()> {
        let wanted = self.pending.len();
        if self.fill(wanted) != Some(wanted) || self.disk[..wanted] != self.pending {
            return Err(std::io::Error::other("the file holds other bytes"));
        }
        self.len += wanted as u64;
        self.crc.update(&self.pending);
        self.pending.clear();
        Ok(())
    }

    /// Reads up to `wanted` bytes of the file into `disk`: how many, `None` on an error.
    fn fill(&mut self, wanted: usize) -> Option<usize> {
        let mut got = 0;
        while got < wanted {
            match self.file.read(&mut self.disk[got..wanted]) {
                Ok(0) => break,
                Ok(read) => got += read,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
        Some(got)
    }
}

impl Write for Comparing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        while !rest.is_empty() {
            let room = CHUNK - self.pending.len();
            let (now, later) = rest.split_at(room.min(rest.len()));
            self.pending.extend_from_slice(now);
            if self.pending.len() == CHUNK {
                self.compare_pending()?;
            }
            rest = later;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
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
        assert!(holds_exactly(&path, &contents, &mut buffer)
            .unwrap()
            .is_some());
        // The same length, one byte different in the second chunk.
        let mut other = contents.clone();
        other[CHUNK + 3] ^= 1;
        assert!(holds_exactly(&path, &other, &mut buffer).unwrap().is_none());
        // Shorter and longer.
        assert!(holds_exactly(&path, &contents[1..], &mut buffer)
            .unwrap()
            .is_none());
        assert!(
            holds_exactly(&path, &[contents.as_slice(), b"x"].concat(), &mut buffer)
                .unwrap()
                .is_none()
        );
        std::fs::write(&path, b"").unwrap();
        assert!(holds_exactly(&path, b"", &mut buffer).unwrap().is_some());
        // Missing, or a directory: not readable as a file.
        assert!(holds_exactly(&dir.path().join("none"), b"", &mut buffer).is_err());
        assert!(holds_exactly(dir.path(), b"", &mut buffer).is_err());
    }

    /// Held only as serde_json's exact bytes, and measured as those bytes.
    #[test]
    fn a_file_holds_a_json_value_only_as_its_exact_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.ign");
        // Strings longer than a chunk, so chunks fill in the middle of a write.
        let big: String = (0..CHUNK * 2 + 5)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let value = serde_json::json!({"a": [big, "x\"y", 1.5, null], "b": {"c": true}});
        let bytes = serde_json::to_vec(&value).unwrap();
        let mut crc = flate2::Crc::new();
        crc.update(&bytes);
        let measured = Measured {
            len: bytes.len() as u64,
            crc32: crc.sum(),
        };
        assert_eq!(holds_json(&path, &value), None);
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(holds_json(&path, &value), Some(measured));
        let mut other = bytes.clone();
        other[CHUNK + 9] ^= 1;
        for changed in [
            other,
            bytes[..bytes.len() - 1].to_vec(),
            [bytes.as_slice(), b" "].concat(),
            Vec::new(),
        ] {
            std::fs::write(&path, &changed).unwrap();
            assert_eq!(holds_json(&path, &value), None);
        }
        // A link to the same bytes is not the file holding them, nor is a directory.
        let target = dir.path().join("target");
        std::fs::write(&target, &bytes).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        assert_eq!(holds_json(&path, &value), None);
        assert_eq!(holds_json(dir.path(), &value), None);
        assert_eq!(holds_json(&target, &value), Some(measured));
    }

    /// A re-run's boot config is kept (its bytes not made) only where the directory holds
    /// exactly its bytes and no unfinished write could replace them.
    #[test]
    fn a_config_the_directory_holds_is_kept_and_counted_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let now = time::OffsetDateTime::UNIX_EPOCH + time::Duration::days(20_000);
        let generate = |tls: Option<&Path>| {
            let loaded = crate::config::load_default().unwrap();
            let mut options = crate::generate::Options::new(now);
            options.key_algorithm = crate::pki::KeyAlgorithm::EcdsaP256;
            options.tls_dir = tls.map(Path::to_path_buf);
            crate::generate::generate(&loaded, &options).unwrap()
        };
        let (files, kept) = into_output_files_in(generate(None), dir.path());
        assert_eq!(kept, None);
        assert!(files.iter().any(|f| f.relative == "bootstrap.ign"));
        super::super::write_dir(dir.path(), &files, super::super::ExistingConfigs::Refuse).unwrap();
        let bytes = std::fs::read(dir.path().join("bootstrap.ign")).unwrap();
        let tls = dir.path().join("tls");
        let (files, kept) = into_output_files_in(generate(Some(&tls)), dir.path());
        let kept = kept.unwrap();
        assert_eq!(kept.relative, "bootstrap.ign");
        assert_eq!(kept.measured.len, bytes.len() as u64);
        assert!(!files.iter().any(|f| f.relative == "bootstrap.ign"));
        let report =
            super::super::write_dir(dir.path(), &files, super::super::ExistingConfigs::Replace)
                .unwrap();
        assert!(report.written.is_empty(), "{:?}", report.written);
        // An unfinished write: the config is made and compared as ever.
        std::fs::write(dir.path().join(super::super::COMMIT_RECORD), "").unwrap();
        let (files, kept) = into_output_files_in(generate(Some(&tls)), dir.path());
        assert_eq!(kept, None);
        let made = files
            .iter()
            .find(|f| f.relative == "bootstrap.ign")
            .unwrap();
        assert_eq!(made.contents, bytes);
    }
}
