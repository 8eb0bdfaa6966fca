//! Replacing a whole directory at once.
//!
//! The new tree is built in a hidden sibling (`.<name>.bootgen-<pid>`): existing files are
//! hard-linked into it (no copy, and keys keep their inode), changed files are written fresh,
//! and then the kernel swaps the two directories in one `renameat2(RENAME_EXCHANGE)`. A run
//! that fails or is killed at any moment leaves either the old tree or the new one, never a
//! mix; a killed run's sibling is removed by the next run.

use crate::error::{Error, Result};
use rustix::fs::{renameat_with, RenameFlags, CWD};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Prefix of the hidden sibling, after the leading `.` and the directory's name.
const SIBLING_MARK: &str = ".bootgen-";

fn sibling_prefix(dir: &Path) -> (PathBuf, String) {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    (parent, format!(".{name}{SIBLING_MARK}"))
}

/// A staging directory that becomes `dir` on [`Staging::commit`]; removed when dropped.
pub struct Staging {
    /// Where the new tree is built.
    pub path: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl Staging {
    /// Creates the sibling and, when `dir` exists, links its whole tree into it.
    pub fn begin(dir: &Path) -> Result<Staging> {
        let (parent, prefix) = sibling_prefix(dir);
        fs::create_dir_all(&parent).map_err(|e| Error::io("cannot create", &parent, e))?;
        remove_stale(&parent, &prefix);
        let path = parent.join(format!("{prefix}{}", std::process::id()));
        if path.exists() {
            fs::remove_dir_all(&path).map_err(|e| Error::io("cannot clean", &path, e))?;
        }
        let staging = Staging {
            path,
            target: dir.to_path_buf(),
            committed: false,
        };
        match fs::metadata(dir) {
            Ok(meta) if meta.is_dir() => {
                link_tree(dir, &staging.path)?;
            }
            Ok(_) => {
                return Err(Error::InvalidOption {
                    option: "--output".into(),
                    message: format!("{} exists and is not a directory", dir.display()),
                })
            }
            Err(_) => {
                fs::create_dir(&staging.path)
                    .map_err(|e| Error::io("cannot create", &staging.path, e))?;
                fs::set_permissions(&staging.path, fs::Permissions::from_mode(0o755))
                    .map_err(|e| Error::io("cannot set permissions on", &staging.path, e))?;
            }
        }
        Ok(staging)
    }

    /// Puts a file into the new tree, replacing any link to the old file first (writing
    /// through the link would change the old tree too).
    pub fn replace(&self, relative: &str, contents: &[u8], mode: u32) -> Result<()> {
        let path = self.path.join(relative);
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io("cannot replace", &path, e)),
        }
        super::write_file_with(&path, contents, mode, false)
    }

    /// Swaps the new tree in. Afterwards the sibling holds the old tree and is removed.
    pub fn commit(mut self) -> Result<()> {
        // One syncfs for the whole tree instead of an fsync per file: everything is on disk
        // before the swap makes it visible.
        let handle =
            fs::File::open(&self.path).map_err(|e| Error::io("cannot open", &self.path, e))?;
        rustix::fs::syncfs(&handle)
            .map_err(|e| Error::io("cannot flush", &self.path, std::io::Error::from(e)))?;
        let exists = self.target.exists();
        if exists {
            renameat_with(CWD, &self.path, CWD, &self.target, RenameFlags::EXCHANGE).map_err(
                |e| {
                    Error::io(
                        "cannot swap the new output into",
                        &self.target,
                        std::io::Error::from(e),
                    )
                },
            )?;
        } else {
            fs::rename(&self.path, &self.target)
                .map_err(|e| Error::io("cannot move the new output to", &self.target, e))?;
        }
        self.committed = true;
        let _ = fs::remove_dir_all(&self.path);
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed || self.path.exists() {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

/// Hard-links every file of `from` into `to` (created), recreating directories with their
/// modes and symlinks as symlinks.
fn link_tree(from: &Path, to: &Path) -> Result<()> {
    let meta = fs::metadata(from).map_err(|e| Error::io("cannot read", from, e))?;
    fs::create_dir(to).map_err(|e| Error::io("cannot create", to, e))?;
    fs::set_permissions(
        to,
        fs::Permissions::from_mode(meta.permissions().mode() & 0o7777),
    )
    .map_err(|e| Error::io("cannot set permissions on", to, e))?;
    for entry in fs::read_dir(from).map_err(|e| Error::io("cannot read", from, e))? {
        let entry = entry.map_err(|e| Error::io("cannot read", from, e))?;
        let source = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry
            .file_type()
            .map_err(|e| Error::io("cannot read", &source, e))?;
        if kind.is_dir() {
            link_tree(&source, &target)?;
        } else if kind.is_symlink() {
            let link = fs::read_link(&source).map_err(|e| Error::io("cannot read", &source, e))?;
            std::os::unix::fs::symlink(link, &target)
                .map_err(|e| Error::io("cannot create", &target, e))?;
        } else {
            fs::hard_link(&source, &target).map_err(|e| Error::io("cannot link", &target, e))?;
        }
    }
    Ok(())
}

/// Removes siblings left by killed runs (only our own `.<name>.bootgen-<pid>` directories).
fn remove_stale(parent: &Path, prefix: &str) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name
            .strip_prefix(prefix)
            .is_some_and(|pid| !pid.is_empty() && pid.chars().all(|c| c.is_ascii_digit()));
        if ours && entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn swap_keeps_untouched_files_as_the_same_inode() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("out");
        fs::create_dir_all(dir.join("tls")).unwrap();
        fs::write(dir.join("tls/a.key"), "key").unwrap();
        fs::write(dir.join("notes.txt"), "mine").unwrap();
        fs::write(dir.join("bootstrap.ign"), "old").unwrap();
        let inode = fs::metadata(dir.join("tls/a.key")).unwrap().ino();

        let staging = Staging::begin(&dir).unwrap();
        staging.replace("bootstrap.ign", b"new", 0o600).unwrap();
        // Until the commit, the old tree is untouched.
        assert_eq!(fs::read(dir.join("bootstrap.ign")).unwrap(), b"old");
        staging.commit().unwrap();

        assert_eq!(fs::read(dir.join("bootstrap.ign")).unwrap(), b"new");
        assert_eq!(fs::read(dir.join("notes.txt")).unwrap(), b"mine");
        assert_eq!(fs::metadata(dir.join("tls/a.key")).unwrap().ino(), inode);
        let leftovers: Vec<_> = fs::read_dir(top.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("out")]);
    }

    #[test]
    fn dropping_without_commit_changes_nothing_and_stale_siblings_go() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("out");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("bootstrap.ign"), "old").unwrap();
        fs::create_dir(top.path().join(".out.bootgen-999999")).unwrap();
        {
            let staging = Staging::begin(&dir).unwrap();
            staging.replace("bootstrap.ign", b"new", 0o600).unwrap();
        }
        assert_eq!(fs::read(dir.join("bootstrap.ign")).unwrap(), b"old");
        assert!(!top.path().join(".out.bootgen-999999").exists());
    }
}
