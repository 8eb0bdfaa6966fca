//! Taking the lock on an output directory (see `bootgen::output::DirLock`), saying so when the
//! run has to wait for another.

use crate::report::notice;
use bootgen::output::{Access, DirLock, WhenBusy};
use std::path::{Path, PathBuf};

/// Locks `dir` for `access`; when another run holds it, waits (saying so) if `wait`, else
/// fails at once naming the directory.
pub fn hold(dir: &Path, access: Access, wait: bool) -> anyhow::Result<DirLock> {
    if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
        anyhow::bail!("{} exists and is not a directory", dir.display());
    }
    // A link to nothing: say so, rather than fail opening the lock file inside it.
    if let (Ok(target), Err(_)) = (std::fs::read_link(dir), std::fs::metadata(dir)) {
        anyhow::bail!(
            "{} is a link to {}, which does not exist: make that directory, or name another",
            dir.display(),
            target.display()
        );
    }
    match DirLock::acquire(dir, access, WhenBusy::Refuse) {
        Err(bootgen::Error::OutputBusy { .. }) if wait => {
            notice(format!(
                "waiting for the other bootgen run using {} to finish",
                dir.display()
            ));
            Ok(DirLock::acquire(dir, access, WhenBusy::Wait)?)
        }
        other => Ok(other?),
    }
}

/// True when `a` and `b` name the same directory (both exist and resolve to one place).
pub fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// True when `a` and `b` name the same existing file.
pub fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// What a write of one file holds while it reads, changes and replaces it (`bootgen patch -o`):
/// the lock of the output directory the file is in, when it is one (so no `bootgen ignition`
/// writes it meanwhile), and an exclusive `flock` on the file itself (so two patches of one
/// file follow each other, the second reading the first's result).
pub struct FileLock {
    _dir: Option<DirLock>,
    _file: Option<std::fs::File>,
}

/// Locks `output` as [`FileLock`] says, before it is read; waits for another run holding the
/// output directory (saying so) if `wait`, else fails naming it. A file that is missing, or is
/// no regular file (a device such as `/dev/stdout`), gets no lock of its own.
pub fn hold_file(output: &Path, wait: bool) -> anyhow::Result<FileLock> {
    Ok(FileLock {
        _dir: hold_output_around(&parent_of(output), wait)?,
        _file: bootgen::output::lock_file(output)?,
    })
}

/// The directory `path` is in (`.` for a bare name).
pub fn parent_of(path: &Path) -> PathBuf {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf()
}

/// Locks, for writing, the output directory that `dir` is or is one of the directories of
/// (`media/`, `auth/`, ...: `bootgen::output::written_dirs`), when it is in one: a run writing
/// that output meanwhile would replace the same files, or remove a temporary file of ours as a
/// killed run's. Waits for another run (saying so) if `wait`, else fails naming it.
pub fn hold_output_around(dir: &Path, wait: bool) -> anyhow::Result<Option<DirLock>> {
    // Where the directory really is: `-o x.iso` run inside `out/media` is in `out`.
    let dir = &dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    for relative in bootgen::output::written_dirs() {
        let depth = Path::new(&relative).components().count();
        let Some(top) = dir
            .ancestors()
            .nth(depth)
            .filter(|_| dir.ends_with(&relative))
        else {
            continue;
        };
        let top = if top.as_os_str().is_empty() {
            Path::new(".")
        } else {
            top
        };
        if top.join(bootgen::output::LOCK_FILE).is_file() {
            return Ok(Some(hold(top, Access::Write, wait)?));
        }
    }
    Ok(None)
}
