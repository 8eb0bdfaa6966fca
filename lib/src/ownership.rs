//! Who controls a file or directory bootgen reads keys from or writes keys into. A PKI, an
//! output directory or a key file that another user owns, or that others may write, is
//! refused before anything is read from it or written into it: that user could have planted
//! keys they know (and so sign the cluster with their CAs), or could read whatever bootgen
//! writes there. Changing the mode would not help: the owner can change it back.
//!
//! Checked on metadata the caller already has (of an open descriptor where there is one, so
//! the file checked is the file read), never through a path that may have changed since.

use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Why a file or directory is another user's to control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Another user owns it.
    OtherOwner,
    /// Every user may write it (mode `o+w`).
    OthersWrite,
    /// Its group may write it, and that is not the running user's group.
    GroupWrites,
}

/// A file or directory another user controls: the path, its owner and mode, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Foreign {
    /// The file or directory.
    pub path: PathBuf,
    /// Its owner's user ID.
    pub owner: u32,
    /// Its group ID.
    pub group: u32,
    /// Its permission bits.
    pub mode: u32,
    /// The running user's (effective) user ID.
    pub running_as: u32,
    /// Why it is refused.
    pub control: Control,
}

impl std::fmt::Display for Foreign {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (path, mode) = (self.path.display(), self.mode & 0o7777);
        match self.control {
            Control::OtherOwner => write!(
                f,
                "{path} belongs to user {} (mode {mode:04o}), not to the user running bootgen (uid {})",
                self.owner, self.running_as
            ),
            Control::OthersWrite => write!(
                f,
                "{path} may be written by every user (owner uid {}, mode {mode:04o})",
                self.owner
            ),
            Control::GroupWrites => write!(
                f,
                "{path} may be written by group {} (owner uid {}, mode {mode:04o}), which is not the running user's group",
                self.group, self.owner
            ),
        }
    }
}

/// The running user's effective user and group IDs.
fn running_ids() -> (u32, u32) {
    (
        rustix::process::geteuid().as_raw(),
        rustix::process::getegid().as_raw(),
    )
}

/// `Err` when `meta` (of `path`) is another user's to control: not owned by the running user,
/// writable by every user, or writable by a group that is not the running user's.
pub fn refuse_foreign(path: &Path, meta: &Metadata) -> Result<(), Foreign> {
    let (uid, gid) = running_ids();
    let mode = meta.mode();
    let control = if meta.uid() != uid {
        Some(Control::OtherOwner)
    } else if mode & 0o002 != 0 {
        Some(Control::OthersWrite)
    } else if mode & 0o020 != 0 && meta.gid() != gid {
        Some(Control::GroupWrites)
    } else {
        None
    };
    match control {
        None => Ok(()),
        Some(control) => Err(Foreign {
            path: path.to_path_buf(),
            owner: meta.uid(),
            group: meta.gid(),
            mode,
            running_as: uid,
            control,
        }),
    }
}

/// Why [`read_own_file`] read nothing.
#[derive(Debug)]
pub enum OwnFileError {
    /// It is another user's to control.
    Foreign(Foreign),
    /// It is a link (never followed), a directory, a pipe, a socket or a device.
    NotAFile,
    /// It is larger than the caller's limit (in bytes).
    TooLarge(u64),
    /// It could not be opened or read.
    Io(std::io::Error),
}

/// The bytes of the regular file at `path`, opened through no link at its name and checked on
/// the open descriptor (so the file checked is the file read): `None` when nothing is there.
/// At most `limit` bytes: a larger file is refused before it is read.
pub fn read_own_file(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, OwnFileError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    // Non-blocking: a FIFO planted at the name must not hang the open.
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        // ELOOP: a link at the name.
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return Err(OwnFileError::NotAFile)
        }
        Err(e) => return Err(OwnFileError::Io(e)),
    };
    let meta = file.metadata().map_err(OwnFileError::Io)?;
    if !meta.is_file() {
        return Err(OwnFileError::NotAFile);
    }
    refuse_foreign(path, &meta).map_err(OwnFileError::Foreign)?;
    if meta.len() > limit {
        return Err(OwnFileError::TooLarge(limit));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // Bounded again while reading: the file may grow after it was measured.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(OwnFileError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(OwnFileError::TooLarge(limit));
    }
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn with_mode(mode: u32) -> Result<(), Foreign> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tls");
        std::fs::create_dir(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        refuse_foreign(&path, &std::fs::symlink_metadata(&path).unwrap())
    }

    #[test]
    fn own_private_and_readable_directories_are_taken() {
        assert_eq!(with_mode(0o700), Ok(()));
        assert_eq!(with_mode(0o755), Ok(()));
        // The running user's own group may write: a user private group's usual 0775.
        assert_eq!(with_mode(0o775), Ok(()));
    }

    #[test]
    fn a_directory_every_user_may_write_is_refused_naming_its_mode() {
        let refused = with_mode(0o777).unwrap_err();
        assert_eq!(refused.control, Control::OthersWrite);
        let text = refused.to_string();
        assert!(text.contains("tls may be written by every user"), "{text}");
        assert!(text.contains("mode 0777"), "{text}");
    }

    #[test]
    fn a_file_is_read_through_no_link_and_within_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("root-ca.key");
        std::fs::write(&key, b"key bytes").unwrap();
        assert_eq!(read_own_file(&key, 64).unwrap().unwrap(), b"key bytes");
        assert!(matches!(
            read_own_file(&key, 4),
            Err(OwnFileError::TooLarge(4))
        ));
        let link = dir.path().join("admin.key");
        std::os::unix::fs::symlink(&key, &link).unwrap();
        assert!(matches!(
            read_own_file(&link, 64),
            Err(OwnFileError::NotAFile)
        ));
        assert!(read_own_file(&dir.path().join("absent.key"), 64)
            .unwrap()
            .is_none());
    }

    #[test]
    fn a_file_others_may_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("root-ca.key");
        std::fs::write(&key, b"key bytes").unwrap();
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o666)).unwrap();
        match read_own_file(&key, 64) {
            Err(OwnFileError::Foreign(foreign)) => {
                assert_eq!(foreign.control, Control::OthersWrite)
            }
            other => panic!("{other:?}"),
        }
    }
}
