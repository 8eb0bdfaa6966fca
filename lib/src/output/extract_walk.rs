//! Walking the directory `extract` writes into one component at a time, through open directory
//! handles: each directory is opened relative to its parent and never through a link, and the
//! deepest one opened is kept for the next path, so a config of many files in deep directories
//! costs a few system calls a file (looking every path up again from the top took time in the
//! square of the depth), and a directory swapped for a link after it was opened changes nothing.

use crate::error::{Error, Result};
use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::path::{Path, PathBuf};

/// What is at a name inside an opened directory.
pub(super) enum Found {
    Nothing,
    /// A regular file.
    File,
    Directory,
    Link,
    /// A pipe, socket or device.
    Other,
}

/// The directory being written into, and the deepest directory below it opened last.
pub(super) struct Walk {
    root: OwnedFd,
    root_path: PathBuf,
    /// The parts of the directory `current` is, below the root.
    parts: Vec<String>,
    current: Option<OwnedFd>,
    /// Its path, for messages.
    current_path: PathBuf,
}

fn unsafe_path(node_path: &str, reason: String) -> Error {
    Error::UnsafePath {
        path: node_path.to_string(),
        reason,
    }
}

fn open_dir(parent: &OwnedFd, name: &str) -> rustix::io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    rustix::fs::openat(parent, name, flags, Mode::empty())
}

impl Walk {
    /// Opens `root` (which must exist).
    pub(super) fn new(root: &Path) -> Result<Walk> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let fd = rustix::fs::open(root, flags, Mode::empty())
            .map_err(|e| Error::io("cannot open", root, e.into()))?;
        Ok(Walk {
            root: fd,
            root_path: root.to_path_buf(),
            parts: Vec::new(),
            current: None,
            current_path: root.to_path_buf(),
        })
    }

    /// The path of the directory [`Walk::enter`] opened last, for messages.
    pub(super) fn current_path(&self) -> &Path {
        &self.current_path
    }

    /// What is at `name` in the directory `dir`, not following a link.
    pub(super) fn found(dir: &OwnedFd, name: &str) -> rustix::io::Result<Found> {
        match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(match FileType::from_raw_mode(stat.st_mode) {
                FileType::RegularFile => Found::File,
                FileType::Directory => Found::Directory,
                FileType::Symlink => Found::Link,
                _ => Found::Other,
            }),
            Err(rustix::io::Errno::NOENT) => Ok(Found::Nothing),
            Err(e) => Err(e),
        }
    }

    /// The directory [`Walk::enter`] opened last (the root before any).
    pub(super) fn dir(&self) -> &OwnedFd {
        self.current.as_ref().unwrap_or(&self.root)
    }

    /// Opens the directory `parts` below the root ([`Walk::dir`] then), creating what is
    /// missing when `create`; false when something is missing and not made. A link or a
    /// non-directory on the way is an error naming it, for `node_path`.
    pub(super) fn enter(&mut self, node_path: &str, parts: &[&str], create: bool) -> Result<bool> {
        let common = self
            .parts
            .iter()
            .zip(parts)
            .take_while(|(a, b)| a == *b)
            .count();
        if common < self.parts.len() {
            // Back up: from the root again (only the deepest handle is kept, so that a deep
            // path holds one descriptor, not one a level).
            self.parts.clear();
            self.current = None;
            self.current_path = self.root_path.clone();
        }
        for part in &parts[self.parts.len()..] {
            let parent = self.current.as_ref().unwrap_or(&self.root);
            let here = self.current_path.join(part);
            let opened = match open_dir(parent, part) {
                Ok(fd) => fd,
                Err(rustix::io::Errno::NOENT) if create => {
                    rustix::fs::mkdirat(parent, *part, Mode::from_raw_mode(0o755))
                        .map_err(|e| Error::io("cannot create", &here, e.into()))?;
                    open_dir(parent, part).map_err(|e| Error::io("cannot open", &here, e.into()))?
                }
                Err(rustix::io::Errno::NOENT) => {
                    // Not entered: what is below is not looked at.
                    self.parts.clear();
                    self.current = None;
                    self.current_path = self.root_path.clone();
                    return Ok(false);
                }
                Err(e) => {
                    let what = match Walk::found(parent, part) {
                        Ok(Found::Link) => format!("{} is a symlink", here.display()),
                        Ok(Found::File | Found::Other) => {
                            format!("{} exists and is not a directory", here.display())
                        }
                        _ => return Err(Error::io("cannot open", &here, e.into())),
                    };
                    return Err(unsafe_path(node_path, what));
                }
            };
            self.parts.push((*part).to_string());
            self.current = Some(opened);
            self.current_path = here;
        }
        Ok(true)
    }
}
