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

use super::Links;
use crate::error::{Error, Result};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

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

/// Finishes or undoes a write into `dir` that was interrupted (killed, power lost). Finishing
/// moves only the files its commit record lists, each from a real file of the staging
/// directory into a real directory of `dir`: a link on either way (other than a `tls/` that
/// `links` allows) is refused, and the record and staging directory are left as they are. A
/// directory another user controls is refused first ([`super::refuse_foreign_output`]).
pub fn recover(dir: &Path, links: Links) -> Result<Recovery> {
    // Before anything in it is read or moved: another user's directory is not finished for them.
    super::refuse_foreign_output(dir, links)?;
    let staging = dir.join(STAGING_DIR);
    let record = dir.join(COMMIT_RECORD);
    if fs::symlink_metadata(&record).is_ok() {
        let listed = listed_files(&record)?;
        let mut placed = Vec::new();
        place_listed(&staging, dir, &listed, links, &mut placed, &mut |_| {})?;
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
    links: Links,
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
    let listed: Vec<String> = files.iter().map(|f| f.relative.to_string()).collect();
    place_listed(
        &staging,
        dir,
        &listed,
        links,
        &mut placed,
        &mut |relative| observe(&WriteStep::Place(relative.to_string())),
    )?;
    for file in files {
        if let Some(parent) = Path::new(file.relative)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
        {
            // A linked `tls/` (`--tls-dir` naming it on purpose) is the user's: its mode stays.
            let linked = fs::symlink_metadata(dir.join(parent)).is_ok_and(|m| m.is_symlink());
            if private_dirs(file.relative) && !linked {
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

/// The most a commit record may hold: bootgen lists a few hundred short names at most.
const RECORD_LIMIT: u64 = 1024 * 1024;

/// The files the commit record at `record` lists, one relative path a line. Anything bootgen
/// does not write is refused, naming the record: a record that is no regular file, or too
/// large, or a line that is not a path of plain names inside the directory.
fn listed_files(record: &Path) -> Result<Vec<String>> {
    let refuse = |reason: String| Error::UnsafePath {
        path: record.display().to_string(),
        reason,
    };
    let meta = fs::symlink_metadata(record).map_err(|e| Error::io("cannot read", record, e))?;
    if !meta.is_file() {
        return Err(refuse(
            "it is not a regular file, so bootgen did not write it; remove it and the staging directory by hand".into(),
        ));
    }
    if meta.len() > RECORD_LIMIT {
        return Err(refuse(format!(
            "it is {} bytes, more than a commit record of bootgen ever holds",
            meta.len()
        )));
    }
    let bytes = fs::read(record).map_err(|e| Error::io("cannot read", record, e))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| refuse("it is not UTF-8, so bootgen did not write it".into()))?;
    let mut listed = Vec::new();
    for line in text.lines().filter(|line| !line.is_empty()) {
        let plain = Path::new(line)
            .components()
            .all(|part| matches!(part, Component::Normal(_)));
        if !plain {
            return Err(refuse(format!(
                "it lists `{line}`, which is not a path inside the directory"
            )));
        }
        listed.push(line.to_string());
    }
    Ok(listed)
}

/// Moves each file of `listed` from below `from` to the same relative path below `to`,
/// creating directories. A file no longer in `from` was moved by an earlier, interrupted pass.
/// Nothing is moved through a link: the staged file and every directory on its way must be
/// real ones, and so must every directory on the way to its target (but a `tls/` that `links`
/// allows), else an error names the link.
fn place_listed(
    from: &Path,
    to: &Path,
    listed: &[String],
    links: Links,
    placed: &mut Vec<String>,
    observe: &mut dyn FnMut(&str),
) -> Result<()> {
    let mut checked = std::collections::BTreeSet::new();
    for relative in listed {
        let source = from.join(relative);
        match real_file(from, relative)? {
            Staged::Gone => continue,
            Staged::File => {}
        }
        let parts: Vec<_> = Path::new(relative).components().collect();
        let mut prefix = PathBuf::new();
        for part in parts.iter().take(parts.len().saturating_sub(1)) {
            prefix.push(part);
            if !checked.insert(prefix.clone()) {
                continue;
            }
            let path = to.join(&prefix);
            match fs::symlink_metadata(&path) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    if links == Links::AllowTls && prefix == Path::new("tls") {
                        continue;
                    }
                    return Err(through_link(&path));
                }
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => {
                    return Err(Error::UnsafePath {
                        path: path.display().to_string(),
                        reason: format!(
                            "it is not a directory, and an interrupted write has files for it; move it away, then run `bootgen recover {}`",
                            to.display()
                        ),
                    })
                }
                // auth/ and tls/ are private from the start, also when a recovery makes them.
                Err(_) if super::is_secret(relative) => create_dir(&path, 0o700)?,
                Err(_) => create_dir(&path, 0o755)?,
            }
        }
        let target = to.join(relative);
        if fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir()) {
            return Err(Error::UnsafePath {
                path: target.display().to_string(),
                reason: format!(
                    "it is a directory where an interrupted write puts a file; move it away, then run `bootgen recover {}`",
                    to.display()
                ),
            });
        }
        observe(relative);
        fs::rename(&source, &target)
            .map_err(|e| Error::io("cannot move into place", &target, e))?;
        placed.push(relative.clone());
    }
    Ok(())
}

/// What the staging directory holds for one listed file.
enum Staged {
    /// A regular file, reached through real directories only.
    File,
    /// Nothing: an earlier pass moved it into place.
    Gone,
}

/// Whether `relative` below the staging directory `from` is a regular file reached through no
/// link (the staging directory itself included); an error names what is a link or no file.
fn real_file(from: &Path, relative: &str) -> Result<Staged> {
    let mut path = from.to_path_buf();
    let parts: Vec<_> = Path::new(relative).components().collect();
    for (i, part) in std::iter::once(None)
        .chain(parts.iter().map(Some))
        .enumerate()
    {
        if let Some(part) = part {
            path.push(part);
        }
        let meta = match fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Staged::Gone),
            Err(e) => return Err(Error::io("cannot read", &path, e)),
        };
        if meta.file_type().is_symlink() {
            return Err(through_link(&path));
        }
        let last = i == parts.len();
        if last && !meta.is_file() || !last && !meta.is_dir() {
            return Err(Error::UnsafePath {
                path: path.display().to_string(),
                reason: "an interrupted write lists it, and it is not what bootgen stages".into(),
            });
        }
    }
    Ok(Staged::File)
}

/// The error for a link on the way of an interrupted write's file.
fn through_link(path: &Path) -> Error {
    Error::UnsafePath {
        path: path.display().to_string(),
        reason: "it is a link, and finishing an interrupted write moves nothing through a link; the write was left as it is".into(),
    }
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
            commit(dir, files, Links::Refuse, &|_| false, &mut |_| {
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
            let recovery = recover(dir, Links::Refuse).unwrap();
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

    /// A recovery makes auth/ and tls/ private, as a whole write does; what stands where a
    /// file goes is named, with the way out.
    #[test]
    fn a_recovery_makes_private_directories_private_and_names_what_is_in_the_way() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path();
        let files: &[(&str, &[u8])] = &[("tls/a.key", b"k"), ("auth/p", b"p"), ("b.ign", b"b")];
        // Stop right before the first file is placed (3 staged, flush, commit, then place).
        assert!(!commit_until(dir, &pending(files), 6));
        fs::create_dir(dir.join("b.ign")).unwrap();
        let err = recover(dir, Links::Refuse).unwrap_err().to_string();
        assert!(
            err.contains("b.ign") && err.contains("move it away, then run `bootgen recover"),
            "{err}"
        );
        fs::remove_dir(dir.join("b.ign")).unwrap();
        assert!(matches!(
            recover(dir, Links::Refuse).unwrap(),
            Recovery::RolledForward(_)
        ));
        for private in ["tls", "auth"] {
            let mode = fs::metadata(dir.join(private))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700, "{private}");
        }
    }

    /// A directory with an interrupted write planted in it: staged files and a record listing
    /// `record`.
    fn planted(dir: &Path, staged: &[&str], record: &str) {
        for relative in staged {
            let path = dir.join(STAGING_DIR).join(relative);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "planted").unwrap();
        }
        fs::write(dir.join(COMMIT_RECORD), record).unwrap();
    }

    fn left_as_it_is(dir: &Path) -> bool {
        dir.join(COMMIT_RECORD).exists() && dir.join(STAGING_DIR).is_dir()
    }

    #[test]
    fn finishing_a_write_moves_nothing_through_a_linked_directory() {
        let top = tempfile::tempdir().unwrap();
        let (dir, outside) = (top.path().join("out"), top.path().join("outside"));
        fs::create_dir_all(&outside).unwrap();
        fs::create_dir_all(&dir).unwrap();
        planted(&dir, &["auth/authorized_keys"], "auth/authorized_keys\n");
        std::os::unix::fs::symlink("../outside", dir.join("auth")).unwrap();
        let error = recover(&dir, Links::Refuse).unwrap_err().to_string();
        assert!(error.contains("auth") && error.contains("link"), "{error}");
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
        assert!(left_as_it_is(&dir));
        // A tls/ link is refused too, unless the caller allows it (it named the PKI).
        let dir = top.path().join("out2");
        fs::create_dir_all(&dir).unwrap();
        planted(&dir, &["tls/ca.key"], "tls/ca.key\n");
        std::os::unix::fs::symlink("../outside", dir.join("tls")).unwrap();
        assert!(recover(&dir, Links::Refuse).is_err());
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
        let recovery = recover(&dir, Links::AllowTls).unwrap();
        assert_eq!(recovery, Recovery::RolledForward(vec!["tls/ca.key".into()]));
        assert!(outside.join("ca.key").is_file());
    }

    #[test]
    fn finishing_a_write_moves_nothing_from_outside_the_staging_directory() {
        let top = tempfile::tempdir().unwrap();
        let (dir, elsewhere) = (top.path().join("out"), top.path().join("elsewhere"));
        fs::create_dir_all(&dir).unwrap();
        fs::create_dir_all(elsewhere.join("sub")).unwrap();
        fs::write(elsewhere.join("secret"), "theirs").unwrap();
        fs::write(elsewhere.join("sub/secret"), "theirs").unwrap();
        fs::write(dir.join(COMMIT_RECORD), "secret\n").unwrap();
        // The staging directory itself a link.
        std::os::unix::fs::symlink(&elsewhere, dir.join(STAGING_DIR)).unwrap();
        assert!(recover(&dir, Links::Refuse).is_err());
        // A link inside it, to a directory and to a file.
        fs::remove_file(dir.join(STAGING_DIR)).unwrap();
        fs::create_dir_all(dir.join(STAGING_DIR)).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("sub"), dir.join(STAGING_DIR).join("sub"))
            .unwrap();
        fs::write(dir.join(COMMIT_RECORD), "sub/secret\n").unwrap();
        assert!(recover(&dir, Links::Refuse).is_err());
        std::os::unix::fs::symlink(
            elsewhere.join("secret"),
            dir.join(STAGING_DIR).join("secret"),
        )
        .unwrap();
        fs::write(dir.join(COMMIT_RECORD), "secret\n").unwrap();
        assert!(recover(&dir, Links::Refuse).is_err());
        assert_eq!(
            fs::read_to_string(elsewhere.join("secret")).unwrap(),
            "theirs"
        );
        assert_eq!(
            fs::read_to_string(elsewhere.join("sub/secret")).unwrap(),
            "theirs"
        );
        assert!(!dir.join("secret").exists() && !dir.join("sub").exists());
    }

    #[test]
    fn finishing_a_write_moves_only_what_its_record_lists_inside_the_directory() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("out");
        fs::create_dir_all(&dir).unwrap();
        planted(&dir, &["a", "extra"], "a\n");
        let recovery = recover(&dir, Links::Refuse).unwrap();
        assert_eq!(recovery, Recovery::RolledForward(vec!["a".into()]));
        assert!(dir.join("a").is_file() && !dir.join("extra").exists());
        for record in ["../escape\n", "/etc/passwd\n", "a/../../b\n", "./a\n"] {
            planted(&dir, &["a"], record);
            let error = recover(&dir, Links::Refuse).unwrap_err().to_string();
            assert!(error.contains(COMMIT_RECORD), "{record:?}: {error}");
            assert!(left_as_it_is(&dir), "{record:?}");
        }
        assert!(!top.path().join("escape").exists() && !top.path().join("b").exists());
    }
}
