//! Taking the lock on an output directory (see `bootgen::output::DirLock`), saying so when the
//! run has to wait for another.

use crate::report::notice;
use bootgen::output::{Access, DirLock, WhenBusy};
use std::path::Path;

/// Locks `dir` for `access`; when another run holds it, waits (saying so) if `wait`, else
/// fails at once naming the directory.
pub fn hold(dir: &Path, access: Access, wait: bool) -> anyhow::Result<DirLock> {
    if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
        anyhow::bail!("{} exists and is not a directory", dir.display());
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
