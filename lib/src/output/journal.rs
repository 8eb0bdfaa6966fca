//! Replacing many files of a directory as one change, wherever the directory is.
//!
//! The new files are written into a staging directory *inside* the output directory
//! (`.bootgen-staging/`), so they are on the same filesystem whatever the output directory is:
//! a mount point (a container's `-v $PWD/out:/out`, NFS, tmpfs), a symlink to elsewhere, or a
//! plain directory. Once every staged byte is on disk, a commit record (`.bootgen-commit`) is
//! written atomically: that is the moment the change happens. Then each staged file is renamed
//! over its target and the record is removed.
//!
//! A run killed before the record exists leaves the previous files untouched (the next run
//! removes the staging directory); a run killed after it leaves a record that every later run,
//! and every reader, sees: the next write finishes the renames first (roll forward), and readers
//! refuse the directory until then. So there is never a silent mix of old and new files.

use crate::error::{Error, Result};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The staging directory, inside the output directory.
pub const STAGING_DIR: &str = ".bootgen-staging";
/// The commit record: present from the commit point until every staged file is in place.
pub const COMMIT_RECORD: &str = ".bootgen-commit";

/// One step of a write, reported to an observer before it happens (tests use this to stop a
/// run at every point of the write).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteStep {
    /// A file is about to be written into the staging directory.
    Stage(String),
    /// The staged files are about to be flushed to disk.
    Flush,
    /// The commit record is about to be written.
    Commit,
    /// A staged file is about to be moved into place.
    Place(String),
    /// The commit record and the staging directory are about to be removed.
    Finish,
}

/// What [`recover`] found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recovery {
    /// Nothing was interrupted.
    Clean,
    /// A write was interrupted before its commit point: its staged files were removed and the
    /// directory is as it was before that write.
    RolledBack,
    /// A write was interrupted after its commit point: its remaining files were moved into
    /// place, so the directory is as that write meant it to be.
    RolledForward(Vec<String>),
}

/// True when a write into `dir` was interrupted after its commit point and not finished yet:
/// the directory then holds a mix of old and new files until the next write finishes it.
pub fn interrupted(dir: &Path) -> bool {
    dir.join(COMMIT_RECORD).exists()
}

/// Finishes or undoes a write into `dir` that was interrupted (killed, power lost).
pub fn recover(dir: &Path) -> Result<Recovery> {
    let staging = dir.join(STAGING_DIR);
    let record = dir.join(COMMIT_RECORD);
    if record.exists() {
        let mut placed = Vec::new();
        place_tree(&staging, dir, "", &mut placed, &mut |_| {})?;
        sync_dir(dir)?;
        remove_if_present(&record)?;
        remove_tree_if_present(&staging)?;
        placed.sort();
        return Ok(Recovery::RolledForward(placed));
    }
    if staging.exists() {
        remove_tree_if_present(&staging)?;
        return Ok(Recovery::RolledBack);
    }
    Ok(Recovery::Clean)
}

/// A file to put into the directory.
pub struct Pending<'a> {
    /// Path relative to the directory.
    pub relative: &'a str,
    /// The bytes.
    pub contents: &'a [u8],
    /// Unix mode.
    pub mode: u32,
}

/// Writes `files` into `dir` (created when missing) as one change; see the module docs.
/// `observe` is told of each step before it happens.
pub fn commit(
    dir: &Path,
    files: &[Pending<'_>],
    private_dirs: &dyn Fn(&str) -> bool,
    observe: &mut dyn FnMut(&WriteStep),
) -> Result<()> {
    let staging = dir.join(STAGING_DIR);
    remove_tree_if_present(&staging)?;
    // Until the commit record exists a failure (a full disk) leaves the directory as it was.
    if let Err(error) = stage(dir, &staging, files, observe) {
        let _ = fs::remove_file(dir.join(COMMIT_RECORD));
        let _ = fs::remove_dir_all(&staging);
        return Err(error);
    }

    let mut placed = Vec::new();
    place_tree(&staging, dir, "", &mut placed, &mut |relative| {
        observe(&WriteStep::Place(relative.to_string()))
    })?;
    for file in files {
        if let Some(parent) = Path::new(file.relative)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
        {
            if private_dirs(file.relative) {
                set_mode(&dir.join(parent), 0o700)?;
            }
        }
    }
    sync_dir(dir)?;
    observe(&WriteStep::Finish);
    remove_if_present(&dir.join(COMMIT_RECORD))?;
    remove_tree_if_present(&staging)
}

/// Writes the files into the staging directory, flushes them, and writes the commit record.
fn stage(
    dir: &Path,
    staging: &Path,
    files: &[Pending<'_>],
    observe: &mut dyn FnMut(&WriteStep),
) -> Result<()> {
    create_dir(staging, 0o700)?;
    for file in files {
        observe(&WriteStep::Stage(file.relative.to_string()));
        super::write_file_with(
            &staging.join(file.relative),
            file.contents,
            file.mode,
            false,
        )?;
    }
    // One syncfs for the whole staging tree instead of an fsync per file.
    observe(&WriteStep::Flush);
    sync_dir(staging)?;
    observe(&WriteStep::Commit);
    let listing: String = files.iter().map(|f| format!("{}\n", f.relative)).collect();
    super::write_atomic(&dir.join(COMMIT_RECORD), listing.as_bytes(), 0o600)?;
    sync_dir(dir)
}

/// Moves every file below `from` to the same relative path below `to`, creating directories.
/// Files already moved (by an earlier, interrupted pass) are simply no longer in `from`.
fn place_tree(
    from: &Path,
    to: &Path,
    prefix: &str,
    placed: &mut Vec<String>,
    observe: &mut dyn FnMut(&str),
) -> Result<()> {
    let entries = match fs::read_dir(from) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io("cannot read", from, e)),
    };
    let mut names: Vec<_> = entries
        .map(|entry| entry.map_err(|e| Error::io("cannot read", from, e)))
        .collect::<Result<_>>()?;
    names.sort_by_key(|entry| entry.file_name());
    for entry in names {
        let name = entry.file_name().to_string_lossy().into_owned();
        let relative = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let source = entry.path();
        let target = to.join(&name);
        let kind = entry
            .file_type()
            .map_err(|e| Error::io("cannot read", &source, e))?;
        if kind.is_dir() {
            if !target.is_dir() {
                create_dir(&target, 0o755)?;
            }
            place_tree(&source, &target, &relative, placed, observe)?;
        } else {
            observe(&relative);
            fs::rename(&source, &target)
                .map_err(|e| Error::io("cannot move into place", &target, e))?;
            placed.push(relative);
        }
    }
    Ok(())
}

fn create_dir(path: &Path, mode: u32) -> Result<()> {
    fs::create_dir_all(path).map_err(|e| Error::io("cannot create", path, e))?;
    set_mode(path, mode)
}

fn set_mode(path: &Path, mode: u32) -> Result<()> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|e| Error::io("cannot set permissions on", path, e))
}

fn sync_dir(path: &Path) -> Result<()> {
    let handle = fs::File::open(path).map_err(|e| Error::io("cannot open", path, e))?;
    rustix::fs::syncfs(&handle)
        .map_err(|e| Error::io("cannot flush", path, std::io::Error::from(e)))
}

fn remove_if_present(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(Error::io("cannot remove", path, e))
        }
        _ => Ok(()),
    }
}

fn remove_tree_if_present(path: &PathBuf) -> Result<()> {
    match fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(Error::io("cannot remove", path, e))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending<'a>(files: &'a [(&'a str, &'a [u8])]) -> Vec<Pending<'a>> {
        files
            .iter()
            .map(|(relative, contents)| Pending {
                relative,
                contents,
                mode: 0o600,
            })
            .collect()
    }

    fn commit_until(dir: &Path, files: &[Pending<'_>], stop: usize) -> bool {
        let mut seen = 0;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            commit(dir, files, &|_| false, &mut |_| {
                seen += 1;
                if seen == stop {
                    // Stand-in for a kill: nothing after this point runs.
                    std::panic::resume_unwind(Box::new("stopped"));
                }
            })
        }))
        .is_ok()
    }

    #[test]
    fn every_interruption_is_rolled_back_or_forward_completely() {
        let new: &[(&str, &[u8])] = &[("a", b"new-a"), ("sub/b", b"new-b"), ("c", b"new-c")];
        for stop in 1.. {
            let top = tempfile::tempdir().unwrap();
            let dir = top.path();
            fs::write(dir.join("a"), "old-a").unwrap();
            fs::write(dir.join("c"), "old-c").unwrap();
            fs::write(dir.join("mine"), "kept").unwrap();
            let finished = commit_until(dir, &pending(new), stop);
            let record = interrupted(dir);
            let recovery = recover(dir).unwrap();
            let read = |p: &str| fs::read_to_string(dir.join(p)).ok();
            let is_new = read("a").as_deref() == Some("new-a")
                && read("sub/b").as_deref() == Some("new-b")
                && read("c").as_deref() == Some("new-c");
            let is_old = read("a").as_deref() == Some("old-a")
                && read("sub/b").is_none()
                && read("c").as_deref() == Some("old-c");
            assert_eq!(read("mine").as_deref(), Some("kept"));
            assert!(is_new || is_old, "stop {stop}: a mix after {recovery:?}");
            assert_eq!(record, matches!(recovery, Recovery::RolledForward(_)));
            assert!(!dir.join(STAGING_DIR).exists() && !dir.join(COMMIT_RECORD).exists());
            if finished {
                assert!(is_new);
                // Stops 1-5 are before the commit record: those must roll back.
                assert!(stop > 5);
                break;
            }
            assert_eq!(is_old, stop <= 5, "stop {stop}");
        }
    }
}
