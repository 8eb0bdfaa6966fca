//! Reading an output directory's per-host configs (`hosts/HOST.ign`) back, for the golden view
//! and `check`: through no link. A link planted at `hosts/` or at `hosts/x.ign` would make them
//! read (and show) whatever file it points to as if bootgen had written it, so it is refused,
//! naming it, as a directory bootgen did not write as it is.

use crate::error::{Error, Result};
use rustix::fs::{Mode, OFlags};
use std::io::Read;
use std::path::Path;

/// The error for `path`, a link (or no regular file) where bootgen reads a per-host config.
fn refused(path: &Path, what: &str) -> Error {
    Error::UnsafePath {
        path: path.display().to_string(),
        reason: format!(
            "it is {what}, and bootgen reads nothing through a link (nor anything but a regular file) in an output directory"
        ),
    }
}

/// The per-host configs of the output directory `dir`, relative to it (`hosts/NAME.ign`),
/// sorted; none when `hosts/` is missing. A link at `hosts/` or at one of its `.ign` names,
/// or a `.ign` that is no regular file, is refused.
pub fn host_configs(dir: &Path) -> Result<Vec<String>> {
    let hosts = dir.join(super::HOSTS_DIR);
    match std::fs::symlink_metadata(&hosts) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(refused(&hosts, "a link")),
        Ok(meta) if !meta.is_dir() => return Err(refused(&hosts, "no directory")),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io("cannot read", &hosts, e)),
    }
    let entries = std::fs::read_dir(&hosts).map_err(|e| Error::io("cannot read", &hosts, e))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("cannot read", &hosts, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".ign") {
            continue;
        }
        let kind = entry
            .file_type()
            .map_err(|e| Error::io("cannot read", entry.path(), e))?;
        if kind.is_symlink() {
            return Err(refused(&entry.path(), "a link"));
        }
        if !kind.is_file() {
            return Err(refused(&entry.path(), "no regular file"));
        }
        names.push(format!("{}/{name}", super::HOSTS_DIR));
    }
    names.sort();
    Ok(names)
}

/// Opens the regular file at `path` to read it, following no link at its name (an error of
/// kind `FilesystemLoop`) and never waiting on a FIFO: it is opened non-blocking, and anything
/// but a regular file is an error of kind `InvalidInput`. `None` when it is missing; else the
/// file with its metadata.
pub(crate) fn open_regular(
    path: &Path,
) -> std::io::Result<Option<(std::fs::File, std::fs::Metadata)>> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = match rustix::fs::open(path, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let file = std::fs::File::from(fd);
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(Some((file, meta)))
}

/// Reads the file at `path` without following a link at its name (refused, naming it) or
/// reading anything but a regular file (a FIFO would never end); `None` when it is missing.
pub fn read_no_link(path: &Path) -> Result<Option<Vec<u8>>> {
    let mut file = match open_regular(path) {
        Ok(Some((file, _))) => file,
        Ok(None) => return Ok(None),
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return Err(refused(path, "a link"))
        }
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            return Err(refused(path, "no regular file (a FIFO, socket or device)"))
        }
        Err(e) => return Err(Error::io("cannot read", path, e)),
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| Error::io("cannot read", path, e))?;
    Ok(Some(bytes))
}

/// Reads `relative` (a path of plain names) inside the output directory `dir` through no link:
/// neither a directory on its way (`auth/`) nor the file itself may be one (refused, naming
/// it); `None` when it is missing. A reader of an output directory shows what it reads (a
/// golden view meant to be committed, a diff), and a link would show a file from elsewhere.
pub fn read_in_dir(dir: &Path, relative: &str) -> Result<Option<Vec<u8>>> {
    let mut path = dir.to_path_buf();
    let parts: Vec<&str> = relative.split('/').collect();
    for part in parts.iter().take(parts.len().saturating_sub(1)) {
        path.push(part);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => return Err(refused(&path, "a link")),
            Ok(meta) if !meta.is_dir() => return Ok(None),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io("cannot read", &path, e)),
        }
    }
    read_no_link(&dir.join(relative))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn lists_the_hosts_regular_configs_and_refuses_a_link() {
        let top = tempfile::tempdir().unwrap();
        let out = top.path().join("out");
        fs::create_dir_all(out.join("hosts")).unwrap();
        fs::write(out.join("hosts/master-1.ign"), "{}").unwrap();
        fs::write(out.join("hosts/master-0.ign"), "{}").unwrap();
        fs::write(out.join("hosts/notes.txt"), "x").unwrap();
        assert_eq!(
            host_configs(&out).unwrap(),
            ["hosts/master-0.ign", "hosts/master-1.ign"]
        );
        let outside = top.path().join("secret.json");
        fs::write(&outside, "{}").unwrap();
        let link = out.join("hosts/x.ign");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        for text in [
            host_configs(&out).unwrap_err().to_string(),
            read_no_link(&link).unwrap_err().to_string(),
        ] {
            assert!(
                text.contains("hosts/x.ign") && text.contains("link"),
                "{text}"
            );
        }
        assert_eq!(read_no_link(&out.join("hosts/none.ign")).unwrap(), None);
    }

    #[test]
    fn a_hosts_directory_that_is_a_link_is_refused() {
        let top = tempfile::tempdir().unwrap();
        let out = top.path().join("out");
        fs::create_dir_all(&out).unwrap();
        std::os::unix::fs::symlink(top.path(), out.join("hosts")).unwrap();
        let text = host_configs(&out).unwrap_err().to_string();
        assert!(text.contains("hosts") && text.contains("a link"), "{text}");
        assert!(host_configs(&top.path().join("none")).unwrap().is_empty());
    }
}
