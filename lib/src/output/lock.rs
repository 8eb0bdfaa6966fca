//! One bootgen run at a time per output directory.
//!
//! Two runs writing one directory would share its staging directory and could leave keys that
//! do not match their certificates. A writer holds an exclusive `flock` on [`LOCK_FILE`]
//! inside the directory for its whole run; a reader (packaging, reusing its `tls/`) holds a
//! shared one, so it never reads a directory half way through a write. The lock is the
//! kernel's: a killed run releases it, and no stale lock file ever needs removing by hand.

use crate::error::{Error, Result};
use rustix::fs::{FlockOperation, OFlags};
use std::fs;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The lock file inside an output directory. It stays after a run: removing it would let a run
/// that opened it just before lock a file nobody else sees.
pub const LOCK_FILE: &str = ".bootgen-lock";

/// What a run does when another run holds the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenBusy {
    /// Fail at once with [`Error::OutputBusy`].
    Refuse,
    /// Wait until the other run is done.
    Wait,
}

/// Whether the run writes the directory or only reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Writes: no other run may read or write at the same time.
    Write,
    /// Reads: other readers may too, writers wait.
    Read,
}

/// A lock held on an output directory until dropped.
#[derive(Debug)]
pub struct DirLock {
    file: Option<fs::File>,
    dir: PathBuf,
    /// The directories this lock made (the locked one and the missing ones above it), the
    /// deepest first: none when the directory existed.
    made_dirs: Vec<PathBuf>,
}

impl DirLock {
    /// Locks `dir`. A writer creates the directory (mode 0755) and the lock file when missing;
    /// a reader of a directory without a lock file, which no bootgen run is writing, gets a lock
    /// that holds nothing. A link at the lock file's place is refused.
    pub fn acquire(dir: &Path, access: Access, when_busy: WhenBusy) -> Result<DirLock> {
        let mut made_dirs = Vec::new();
        let path = dir.join(LOCK_FILE);
        loop {
            if access == Access::Write && fs::symlink_metadata(dir).is_err() {
                let missing: Vec<PathBuf> = dir
                    .ancestors()
                    .filter(|a| !a.as_os_str().is_empty())
                    .take_while(|a| fs::symlink_metadata(a).is_err())
                    .map(Path::to_path_buf)
                    .collect();
                fs::create_dir_all(dir).map_err(|e| Error::io("cannot create", dir, e))?;
                fs::set_permissions(dir, fs::Permissions::from_mode(0o755))
                    .map_err(|e| Error::io("cannot set permissions on", dir, e))?;
                made_dirs.extend(missing);
            }
            let Some(file) = open(&path, access)? else {
                return Ok(DirLock {
                    file: None,
                    dir: dir.to_path_buf(),
                    made_dirs,
                });
            };
            let operation = match (access, when_busy) {
                (Access::Write, WhenBusy::Refuse) => FlockOperation::NonBlockingLockExclusive,
                (Access::Write, WhenBusy::Wait) => FlockOperation::LockExclusive,
                (Access::Read, WhenBusy::Refuse) => FlockOperation::NonBlockingLockShared,
                (Access::Read, WhenBusy::Wait) => FlockOperation::LockShared,
            };
            match rustix::fs::flock(&file, operation) {
                Ok(()) => {}
                Err(rustix::io::Errno::WOULDBLOCK) => {
                    return Err(Error::OutputBusy {
                        dir: dir.to_path_buf(),
                    })
                }
                Err(e) => return Err(Error::io("cannot lock", &path, e.into())),
            }
            // The run that held the lock may have removed the file (and its directory) before
            // letting go: then this lock is on a file no other run can find, so try again.
            if still_named(&file, &path) {
                return Ok(DirLock {
                    file: Some(file),
                    dir: dir.to_path_buf(),
                    made_dirs,
                });
            }
        }
    }

    /// The directory locked.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for DirLock {
    /// A directory this lock made, that nothing was written into (the run failed first), is
    /// removed again, and so are the directories above it that it made and that hold nothing
    /// else: a failed run leaves no trace.
    fn drop(&mut self) {
        if self.made_dirs.is_empty() || self.file.is_none() {
            return;
        }
        let only_the_lock = fs::read_dir(&self.dir).is_ok_and(|entries| {
            entries
                .filter_map(|entry| entry.ok())
                .all(|entry| entry.file_name() == LOCK_FILE)
        });
        if only_the_lock {
            let _ = fs::remove_file(self.dir.join(LOCK_FILE));
            // Deepest first; one that is not empty (another run wrote there) stays, and so do
            // those above it.
            for made in &self.made_dirs {
                if fs::remove_dir(made).is_err() {
                    break;
                }
            }
        }
    }
}

/// Opens the lock file, never through a link; `None` for a reader when there is none.
fn open(path: &Path, access: Access) -> Result<Option<fs::File>> {
    let mut options = fs::OpenOptions::new();
    options
        .read(true)
        .custom_flags((OFlags::NOFOLLOW | OFlags::CLOEXEC).bits() as i32);
    if access == Access::Write {
        options.write(true).create(true).mode(0o600);
    }
    match options.open(path) {
        Ok(file) => Ok(Some(file)),
        Err(e) if access == Access::Read && e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("cannot open the lock file", path, e)),
    }
}

/// Takes an exclusive `flock` on the regular file at `path`, waiting for another holder, before
/// the caller reads it to replace it (a patch in place): two such writers follow each other,
/// the second reading the first's result. When the holder before replaced the file (a rename
/// over it), the new one is locked. `None` when nothing lockable is there: no file, a link (as
/// `/dev/stdout` is) or anything but a regular file. Held until the returned file is dropped.
pub fn lock_file(path: &Path) -> Result<Option<fs::File>> {
    loop {
        let flags = OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let file = match fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags.bits() as i32)
            .open(path)
        {
            Ok(file) if file.metadata().is_ok_and(|m| m.is_file()) => file,
            _ => return Ok(None),
        };
        rustix::fs::flock(&file, FlockOperation::LockExclusive)
            .map_err(|e| Error::io("cannot lock", path, e.into()))?;
        if still_named(&file, path) {
            return Ok(Some(file));
        }
    }
}

/// True when `path` still names the open `file`.
fn still_named(file: &fs::File, path: &Path) -> bool {
    match (file.metadata(), fs::symlink_metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_until_the_first_is_done() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("out");
        let first = DirLock::acquire(&dir, Access::Write, WhenBusy::Refuse).unwrap();
        let second = DirLock::acquire(&dir, Access::Write, WhenBusy::Refuse);
        assert!(
            matches!(second, Err(Error::OutputBusy { .. })),
            "{second:?}"
        );
        let reader = DirLock::acquire(&dir, Access::Read, WhenBusy::Refuse);
        assert!(
            matches!(reader, Err(Error::OutputBusy { .. })),
            "{reader:?}"
        );
        drop(first);
        DirLock::acquire(&dir, Access::Write, WhenBusy::Refuse).unwrap();
    }

    #[test]
    fn readers_share_and_a_directory_without_a_lock_file_is_left_alone() {
        let top = tempfile::tempdir().unwrap();
        let unlocked = DirLock::acquire(top.path(), Access::Read, WhenBusy::Refuse).unwrap();
        assert!(!top.path().join(LOCK_FILE).exists());
        drop(unlocked);
        let writer = DirLock::acquire(top.path(), Access::Write, WhenBusy::Refuse).unwrap();
        drop(writer);
        let a = DirLock::acquire(top.path(), Access::Read, WhenBusy::Refuse).unwrap();
        let b = DirLock::acquire(top.path(), Access::Read, WhenBusy::Refuse).unwrap();
        let writer = DirLock::acquire(top.path(), Access::Write, WhenBusy::Refuse);
        assert!(matches!(writer, Err(Error::OutputBusy { .. })));
        drop((a, b));
    }

    #[test]
    fn a_directory_made_for_a_run_that_wrote_nothing_is_removed() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("out");
        drop(DirLock::acquire(&dir, Access::Write, WhenBusy::Refuse).unwrap());
        assert!(!dir.exists());
        let lock = DirLock::acquire(&dir, Access::Write, WhenBusy::Refuse).unwrap();
        fs::write(dir.join("bootstrap.ign"), "{}").unwrap();
        drop(lock);
        assert!(dir.join(LOCK_FILE).exists());
    }

    #[test]
    fn the_directories_made_above_it_go_too_but_none_that_holds_something() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("deep/er/out");
        drop(DirLock::acquire(&dir, Access::Write, WhenBusy::Refuse).unwrap());
        assert!(!top.path().join("deep").exists());
        // Another file beside: that directory and those above it stay.
        let lock = DirLock::acquire(&dir, Access::Write, WhenBusy::Refuse).unwrap();
        fs::write(top.path().join("deep/notes"), "mine").unwrap();
        drop(lock);
        assert!(!top.path().join("deep/er").exists());
        assert!(top.path().join("deep/notes").exists());
    }

    #[test]
    fn a_link_at_the_lock_file_is_refused() {
        let top = tempfile::tempdir().unwrap();
        let victim = top.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, top.path().join(LOCK_FILE)).unwrap();
        let err = DirLock::acquire(top.path(), Access::Write, WhenBusy::Refuse).unwrap_err();
        assert!(err.to_string().contains(LOCK_FILE), "{err}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
    }
}
