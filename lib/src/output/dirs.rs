//! The directories bootgen makes or enters below an output directory (`media/`, `media/pxe/`,
//! their `hosts/`), never through a link: a link planted there would send boot media, which
//! carry the cluster's private keys, wherever it points. Each directory is checked before the
//! run writes anything ([`refuse_linked_dirs`]), and made or entered one component at a time
//! without following a link when it is written ([`create_dir_below`]).

use crate::error::{Error, Result};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::path::{Path, PathBuf};

/// The error for `path`, a link (or no directory) where bootgen makes or enters a directory.
fn refused(path: &Path, what: &str) -> Error {
    Error::UnsafePath {
        path: path.display().to_string(),
        reason: format!(
            "it is {what}, and bootgen makes or enters no directory through a link inside its output directory"
        ),
    }
}

/// What stands at `path` when it is not a directory: a link, something else, or nothing.
fn not_a_directory(path: &Path) -> Option<&'static str> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Some("a link"),
        Ok(meta) if !meta.is_dir() => Some("no directory"),
        _ => None,
    }
}

/// An error for the first of `relatives` (directories relative to `dir`), or directory on its
/// way, that is a link or no directory. Missing ones are fine: [`create_dir_below`] makes them.
pub fn refuse_linked_dirs(dir: &Path, relatives: &[&str]) -> Result<()> {
    for relative in relatives {
        let mut path = dir.to_path_buf();
        for part in relative.split('/') {
            path.push(part);
            if let Some(what) = not_a_directory(&path) {
                return Err(refused(&path, what));
            }
        }
    }
    Ok(())
}

/// Makes `relative` below `dir` (which must exist), one component at a time, entering each
/// without following a link; a link or a file on the way is refused. Returns its path.
pub fn create_dir_below(dir: &Path, relative: &str) -> Result<PathBuf> {
    let open_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut current = rustix::fs::open(dir, open_flags, Mode::empty())
        .map_err(|e| Error::io("cannot open", dir, e.into()))?;
    let mut path = dir.to_path_buf();
    for part in relative.split('/') {
        path.push(part);
        let enter =
            |at: &_| rustix::fs::openat(at, part, open_flags | OFlags::NOFOLLOW, Mode::empty());
        let next = match enter(&current) {
            Err(rustix::io::Errno::NOENT) => {
                match rustix::fs::mkdirat(&current, part, Mode::from_raw_mode(0o755)) {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(e) => return Err(Error::io("cannot create", &path, e.into())),
                }
                enter(&current)
            }
            other => other,
        };
        current = match next {
            Ok(fd) => fd,
            Err(e) => {
                let kind = rustix::fs::statat(&current, part, AtFlags::SYMLINK_NOFOLLOW)
                    .map(|stat| FileType::from_raw_mode(stat.st_mode));
                return Err(match kind {
                    Ok(FileType::Symlink) => refused(&path, "a link"),
                    Ok(FileType::Directory) | Err(_) => Error::io("cannot open", &path, e.into()),
                    Ok(_) => refused(&path, "no directory"),
                });
            }
        };
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn makes_the_missing_directories_and_enters_existing_ones() {
        let top = tempfile::tempdir().unwrap();
        fs::create_dir(top.path().join("media")).unwrap();
        let made = create_dir_below(top.path(), "media/pxe/hosts").unwrap();
        assert_eq!(made, top.path().join("media/pxe/hosts"));
        assert!(made.is_dir());
        refuse_linked_dirs(top.path(), &["media/pxe/hosts", "media/hosts"]).unwrap();
    }

    #[test]
    fn a_link_on_the_way_is_refused_and_nothing_is_made_where_it_points() {
        let top = tempfile::tempdir().unwrap();
        let out = top.path().join("out");
        let elsewhere = top.path().join("elsewhere");
        fs::create_dir_all(out.join("media")).unwrap();
        fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("media/pxe")).unwrap();
        for error in [
            create_dir_below(&out, "media/pxe/hosts").unwrap_err(),
            refuse_linked_dirs(&out, &["media", "media/pxe/hosts"]).unwrap_err(),
        ] {
            let text = error.to_string();
            assert!(
                text.contains("media/pxe") && text.contains("link"),
                "{text}"
            );
        }
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    #[test]
    fn a_file_where_a_directory_goes_is_refused() {
        let top = tempfile::tempdir().unwrap();
        fs::write(top.path().join("media"), "x").unwrap();
        let text = create_dir_below(top.path(), "media/hosts")
            .unwrap_err()
            .to_string();
        assert!(text.contains("no directory"), "{text}");
        assert!(refuse_linked_dirs(top.path(), &["media/hosts"]).is_err());
    }
}
