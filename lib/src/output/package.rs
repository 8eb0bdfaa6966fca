//! `bootgen package`: a reproducible `.tar.gz` of an output directory. Entries are sorted,
//! owned by root (uid and gid 0), dated at one given time (`SOURCE_DATE_EPOCH`, else 0), and
//! keep their modes (keys stay 0600); the gzip header carries no name and time 0. A
//! `SHA256SUMS` file (the `sha256sum` format) lists every file, so `sha256sum -c SHA256SUMS`
//! checks an unpacked copy. Symlinks are refused: the tarball holds only what is really there.

use crate::error::{Error, OptionField, Result};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::io::Write as _;
use std::os::unix::fs::MetadataExt as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

/// The checksum file's name inside the tarball.
pub const CHECKSUMS: &str = "SHA256SUMS";

/// One entry of the tarball.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageEntry {
    /// Path relative to the directory, `/`-separated.
    pub path: String,
    /// Unix mode (permission bits).
    pub mode: u32,
    /// File bytes; None for a directory.
    pub contents: Option<Vec<u8>>,
}

/// What was packaged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageReport {
    /// Files (not directories), the checksum file included.
    pub files: usize,
    /// Size of the `.tar.gz`.
    pub bytes: usize,
}

/// bootgen's own files beside the output: its lock, staging directory, commit record and
/// estimate (`.bootgen-*`), and the temporary files of atomic writes, whose names held
/// `.bootgen-` before they ended in `.bootgen-tmp`.
fn is_scratch(name: &str) -> bool {
    name.starts_with('.') && name.contains(".bootgen-")
}

/// Reads the directory into sorted entries (directories before their contents), leaving out
/// `exclude` (the tarball itself when it is written inside the directory). Only what a
/// generation writes is packed: anything else there (a file dropped in, a hard link to a file
/// elsewhere) is refused by name rather than shipped to wherever the tarball goes.
pub fn collect(dir: &Path, exclude: Option<&Path>) -> Result<Vec<PackageEntry>> {
    walk(dir, exclude, true)
}

/// What [`write_package`] of `dir` into `out` would refuse, found before anything is written
/// (`bootgen ignition --package` asks before it writes the output directory): a destination
/// whose directory is missing, or that is a directory; in `dir` (when it exists), a file
/// bootgen does not write, a link or a special file. No file is read.
pub fn check_package(dir: &Path, out: &Path) -> Result<()> {
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(Error::io(
            "cannot write",
            out,
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("the directory {} does not exist", parent.display()),
            ),
        ));
    }
    if out.is_dir() {
        return Err(Error::io(
            "cannot write",
            out,
            std::io::Error::new(std::io::ErrorKind::IsADirectory, "it is a directory"),
        ));
    }
    if dir.is_dir() {
        walk(dir, Some(out), false)?;
    }
    Ok(())
}

/// The entries of `dir` (their contents read when `read`), or the error [`collect`] gives.
fn walk(dir: &Path, exclude: Option<&Path>, read: bool) -> Result<Vec<PackageEntry>> {
    let exclude = exclude.and_then(|p| absolute(p).ok());
    let mut entries = Vec::new();
    let mut foreign = Vec::new();
    let walker = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let media = e.depth() == 1 && e.file_name() == super::MEDIA_DIR;
            !(media || is_scratch(&e.file_name().to_string_lossy()))
        });
    for entry in walker {
        let entry = entry.map_err(|e| {
            let path = e
                .path()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| dir.to_path_buf());
            Error::io("cannot read", path, e.into())
        })?;
        let relative = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        let path = relative
            .to_str()
            .ok_or_else(|| Error::UnsafePath {
                path: relative.display().to_string(),
                reason: "the name is not UTF-8".into(),
            })?
            .to_string();
        if path == CHECKSUMS {
            continue;
        }
        if exclude
            .as_ref()
            .is_some_and(|x| absolute(entry.path()).ok().as_ref() == Some(x))
        {
            continue;
        }
        if !super::is_output_path(&path) {
            foreign.push(path);
            continue;
        }
        let meta = entry
            .path()
            .symlink_metadata()
            .map_err(|e| Error::io("cannot read", entry.path(), e))?;
        let mode = meta.permissions().mode() & 0o7777;
        let file_type = meta.file_type();
        if file_type.is_dir() {
            entries.push(PackageEntry {
                path,
                mode,
                contents: None,
            });
        } else if file_type.is_file() && meta.nlink() > 1 {
            // Under a name bootgen writes, a hard link is still a file that is also elsewhere.
            return Err(Error::UnsafePath {
                path: entry.path().display().to_string(),
                reason: format!(
                    "has {} hard links, so it is also a file elsewhere; bootgen writes each file once (copy it, or generate again)",
                    meta.nlink()
                ),
            });
        } else if file_type.is_file() {
            let bytes = if read {
                std::fs::read(entry.path())
                    .map_err(|e| Error::io("cannot read", entry.path(), e))?
            } else {
                Vec::new()
            };
            entries.push(PackageEntry {
                path,
                mode,
                contents: Some(bytes),
            });
        } else {
            return Err(Error::UnsafePath {
                path: entry.path().display().to_string(),
                reason:
                    "is a symlink or special file; only regular files and directories are packaged"
                        .into(),
            });
        }
    }
    if !foreign.is_empty() {
        return Err(Error::ForeignFiles {
            dir: dir.to_path_buf(),
            files: foreign,
        });
    }
    Ok(entries)
}

fn absolute(path: &Path) -> std::io::Result<PathBuf> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Ok(parent
        .canonicalize()?
        .join(path.file_name().unwrap_or_default()))
}

/// `sha256sum` output for the files among `entries`.
pub fn checksums(entries: &[PackageEntry]) -> String {
    let mut out = String::new();
    for entry in entries {
        if let Some(bytes) = &entry.contents {
            let sum = base16ct::lower::encode_string(&Sha256::digest(bytes));
            let _ = writeln!(out, "{sum}  {}", entry.path);
        }
    }
    out
}

fn io_error(e: std::io::Error) -> Error {
    Error::io("cannot build the tarball", "<memory>", e)
}

/// The `.tar.gz` bytes of `entries` plus the checksum file, every entry dated `mtime`.
pub fn tarball(entries: &[PackageEntry], mtime: u64) -> Result<Vec<u8>> {
    let mut all = entries.to_vec();
    all.push(PackageEntry {
        path: CHECKSUMS.to_string(),
        mode: 0o644,
        contents: Some(checksums(entries).into_bytes()),
    });
    // Component-wise order: a directory comes right before what it holds.
    all.sort_by(|a, b| a.path.split('/').cmp(b.path.split('/')));
    let mut builder = tar::Builder::new(Vec::new());
    builder.mode(tar::HeaderMode::Deterministic);
    for entry in &all {
        let mut header = tar::Header::new_gnu();
        let (kind, bytes, path) = match &entry.contents {
            Some(bytes) => (
                tar::EntryType::Regular,
                bytes.as_slice(),
                entry.path.clone(),
            ),
            None => (
                tar::EntryType::Directory,
                &[][..],
                format!("{}/", entry.path),
            ),
        };
        header.set_entry_type(kind);
        header.set_size(bytes.len() as u64);
        header.set_mode(entry.mode);
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(mtime);
        header.set_username("root").map_err(io_error)?;
        header.set_groupname("root").map_err(io_error)?;
        builder
            .append_data(&mut header, &path, bytes)
            .map_err(io_error)?;
    }
    let tar_bytes = builder.into_inner().map_err(io_error)?;
    let mut gz = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    gz.write_all(&tar_bytes).map_err(io_error)?;
    gz.finish().map_err(io_error)
}

/// Packages `dir` into `out` (written atomically, mode 0600: it holds keys).
pub fn write_package(dir: &Path, out: &Path, mtime: u64) -> Result<PackageReport> {
    let (bytes, report) = package_leaving_out(dir, Some(out), mtime)?;
    super::write_atomic(out, &bytes, 0o600)?;
    Ok(report)
}

/// The tarball [`write_package`] writes, for a caller that sends it elsewhere (standard output).
pub fn package_bytes(dir: &Path, mtime: u64) -> Result<(Vec<u8>, PackageReport)> {
    package_leaving_out(dir, None, mtime)
}

/// The tarball of `dir` without `exclude` (the tarball's own path, when it is inside).
fn package_leaving_out(
    dir: &Path,
    exclude: Option<&Path>,
    mtime: u64,
) -> Result<(Vec<u8>, PackageReport)> {
    if !dir.is_dir() {
        return Err(Error::InvalidOption {
            option: OptionField::PackageDir,
            message: format!("{} is not a directory", dir.display()),
        });
    }
    let entries = collect(dir, exclude)?;
    let bytes = tarball(&entries, mtime)?;
    let report = PackageReport {
        files: entries.iter().filter(|e| e.contents.is_some()).count() + 1,
        bytes: bytes.len(),
    };
    Ok((bytes, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    fn unpack(bytes: &[u8]) -> Vec<(String, u32, u64, u64, Vec<u8>)> {
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
        let mut out = Vec::new();
        for entry in archive.entries().unwrap() {
            let mut entry = entry.unwrap();
            let h = entry.header().clone();
            let mut data = Vec::new();
            entry.read_to_end(&mut data).unwrap();
            let path = entry.path().unwrap().display().to_string();
            out.push((
                path,
                h.mode().unwrap(),
                h.mtime().unwrap(),
                h.uid().unwrap(),
                data,
            ));
        }
        out
    }

    #[test]
    fn reproducible_sorted_with_modes_and_checksums() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tls")).unwrap();
        crate::output::write_file(&dir.path().join("tls/root-ca.key"), b"k", 0o600).unwrap();
        crate::output::write_file(&dir.path().join("bootstrap.ign"), b"{}", 0o600).unwrap();
        crate::output::write_file(&dir.path().join("master.ign"), b"{}", 0o644).unwrap();
        std::fs::create_dir(dir.path().join(".bootgen-staging-1")).unwrap();
        let out = dir.path().join("out.tar.gz");
        write_package(dir.path(), &out, 1_700_000_000).unwrap();
        let first = std::fs::read(&out).unwrap();
        write_package(dir.path(), &out, 1_700_000_000).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), first);
        let entries = unpack(&first);
        let names: Vec<&str> = entries.iter().map(|e| e.0.as_str()).collect();
        assert_eq!(
            names,
            [
                "SHA256SUMS",
                "bootstrap.ign",
                "master.ign",
                "tls/",
                "tls/root-ca.key"
            ]
        );
        assert_eq!(entries[4].1, 0o600);
        assert_eq!(entries[2].1, 0o644);
        assert!(entries.iter().all(|e| e.2 == 1_700_000_000 && e.3 == 0));
        let sums = String::from_utf8(entries[0].4.clone()).unwrap();
        assert!(
            sums.contains("  tls/root-ca.key\n") && !sums.contains("out.tar.gz"),
            "{sums}"
        );
    }

    #[test]
    fn refuses_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("metadata.json")).unwrap();
        assert!(write_package(dir.path(), &dir.path().join("o.tgz"), 0).is_err());
    }

    #[test]
    fn refuses_what_bootgen_did_not_write_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        crate::output::write_file(&dir.path().join("bootstrap.ign"), b"{}", 0o600).unwrap();
        std::fs::create_dir(dir.path().join("tls")).unwrap();
        // A hard link to a file elsewhere, under a name bootgen never writes.
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("shadow"), "root:x").unwrap();
        std::fs::hard_link(
            elsewhere.path().join("shadow"),
            dir.path().join("tls/shadow"),
        )
        .unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let out = dir.path().join("o.tgz");
        let err = write_package(dir.path(), &out, 0).unwrap_err().to_string();
        assert!(err.contains("notes.txt, tls/shadow"), "{err}");
        assert!(!out.exists());
    }

    #[test]
    fn refuses_a_hard_link_under_a_name_bootgen_writes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("auth")).unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("notes"), "not bootgen's").unwrap();
        let linked = dir.path().join("auth/kubeadmin-password");
        std::fs::hard_link(elsewhere.path().join("notes"), &linked).unwrap();
        let out = dir.path().join("o.tgz");
        let err = write_package(dir.path(), &out, 0).unwrap_err().to_string();
        assert!(
            err.contains("kubeadmin-password") && err.contains("hard links"),
            "{err}"
        );
        assert!(!out.exists());
    }
}
