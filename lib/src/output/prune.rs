//! Removing the per-host files an earlier run wrote and this one did not. A host removed or
//! renamed in the hosts file, or a run without `--hosts`, `--iso` or `--pxe`, must not leave
//! behind a config or a medium a machine could still boot with another cluster state.
//!
//! Only regular files named as bootgen names them (a host name and the directory's suffix)
//! in its own per-host directories are removed; every directory is opened below the output
//! directory without following a link, and each file is removed by name inside the directory
//! that was checked, so nothing outside the output directory is ever reached.

use crate::error::{Error, Result};
use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};
use std::collections::BTreeSet;
use std::os::fd::OwnedFd;
use std::path::Path;

/// The directories of per-host files, relative to the output directory, each with the
/// suffixes bootgen puts after a host name there.
pub const HOST_FILE_DIRS: &[(&str, &[&str])] = &[
    ("hosts", &[".ign"]),
    ("media/hosts", &[".iso"]),
    ("media/pxe/hosts", &crate::media::HOST_SET_SUFFIXES),
];

/// The roles whose media bootgen writes (`ignition --iso/--pxe`): the names of their configs
/// without `.ign`, a single node's included.
const ROLES: [&str; 4] = [
    "bootstrap",
    "master",
    "worker",
    "bootstrap-in-place-for-live-iso",
];

/// The directories of the roles' media, relative to the output directory, each with the
/// suffixes bootgen puts after a role's name there (the PXE sets before the ISOs: a directory
/// is removed only once emptied, its subdirectories first).
pub const ROLE_MEDIA_DIRS: &[(&str, &[&str])] = &[
    ("media/pxe", &crate::media::ROLE_SET_SUFFIXES),
    ("media", &[".iso"]),
];

/// The names of the files a re-run removes, for a person: `HOST.ign`, ... then `ROLE.iso`,
/// ..., each with `HOST` or `ROLE` in place of the name.
pub fn own_file_names() -> (Vec<String>, Vec<String>) {
    let names = |dirs: &[(&str, &[&str])], stem: &str| -> Vec<String> {
        dirs.iter()
            .flat_map(|(_, suffixes)| suffixes.iter().map(move |s| format!("{stem}{s}")))
            .collect()
    };
    // The roles' ISOs first: a person reads the media before the PXE sets.
    let roles: Vec<(&str, &[&str])> = ROLE_MEDIA_DIRS.iter().rev().copied().collect();
    (names(HOST_FILE_DIRS, "HOST"), names(&roles, "ROLE"))
}

/// True for a file name bootgen gives a role's medium: a role, then one of `suffixes`.
fn is_role_file(name: &str, suffixes: &[&str]) -> bool {
    suffixes.iter().any(|suffix| {
        name.strip_suffix(suffix)
            .is_some_and(|r| ROLES.contains(&r))
    })
}

/// True when `relative` is one of the directories bootgen prunes: listed as kept, if at all,
/// when it is itself pruned, not as an entry of its parent.
fn is_pruned_dir(relative: &str) -> bool {
    HOST_FILE_DIRS
        .iter()
        .chain(ROLE_MEDIA_DIRS)
        .any(|(dir, _)| *dir == relative)
}

/// What [`remove_stale_host_files`] did, or [`stale_host_files`] would do, each path relative
/// to the output directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StaleFiles {
    /// The per-host files removed (or to be removed): bootgen's, and not written by this run.
    pub removed: Vec<String>,
    /// What was left in place because bootgen does not write it there: a file of another
    /// name, a link, a directory (or a per-host directory that is a link). Hidden names are
    /// neither removed nor listed.
    pub kept: Vec<String>,
}

/// True for a file name bootgen gives a host's file: a host name, then one of `suffixes`.
fn is_host_file(name: &str, suffixes: &[&str]) -> bool {
    suffixes.iter().any(|suffix| {
        name.strip_suffix(suffix)
            .is_some_and(crate::network::is_host_name)
    })
}

/// Removes from `dir`'s per-host directories ([`HOST_FILE_DIRS`]) and media directories
/// ([`ROLE_MEDIA_DIRS`]) every regular file of bootgen's naming that `wrote` (paths relative to
/// `dir`: what this run wrote or found unchanged) does not hold; a directory left empty is
/// removed too. Call it only once the run has written everything, so a failed run removes
/// nothing.
pub fn remove_stale_host_files(dir: &Path, wrote: &BTreeSet<String>) -> Result<StaleFiles> {
    prune(dir, wrote, true)
}

/// What [`remove_stale_host_files`] would remove and leave, removing nothing: for saying why
/// before it does.
pub fn stale_host_files(dir: &Path, wrote: &BTreeSet<String>) -> Result<StaleFiles> {
    prune(dir, wrote, false)
}

/// The walk of [`remove_stale_host_files`], removing only when `remove` is true.
fn prune(dir: &Path, wrote: &BTreeSet<String>, remove: bool) -> Result<StaleFiles> {
    let mut found = StaleFiles::default();
    let root = match rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT) => return Ok(found),
        Err(e) => return Err(Error::io("cannot open", dir, e.into())),
    };
    let dirs = HOST_FILE_DIRS
        .iter()
        .map(|(relative, suffixes)| {
            (
                *relative,
                *suffixes,
                is_host_file as fn(&str, &[&str]) -> bool,
            )
        })
        .chain(
            ROLE_MEDIA_DIRS
                .iter()
                .map(|(relative, suffixes)| (*relative, *suffixes, is_role_file as _)),
        );
    for (relative, suffixes, is_ours) in dirs {
        let Some((parent, fd)) = open_below(&root, dir, relative, &mut found.kept)? else {
            continue;
        };
        let here = dir.join(relative);
        let mut remaining = 0;
        for name in entry_names(&fd, &here)? {
            let path = format!("{relative}/{name}");
            let kind = rustix::fs::statat(&fd, name.as_str(), AtFlags::SYMLINK_NOFOLLOW)
                .map(|stat| FileType::from_raw_mode(stat.st_mode))
                .map_err(|e| Error::io("cannot read", here.join(&name), e.into()))?;
            let ours = kind == FileType::RegularFile && is_ours(&name, suffixes);
            if ours && !wrote.contains(&path) {
                if remove {
                    rustix::fs::unlinkat(&fd, name.as_str(), AtFlags::empty())
                        .map_err(|e| Error::io("cannot remove", here.join(&name), e.into()))?;
                }
                found.removed.push(path);
                continue;
            }
            remaining += 1;
            if !ours && !name.starts_with('.') && !is_pruned_dir(&path) {
                found.kept.push(path);
            }
        }
        if remove && remaining == 0 {
            let last = relative.rsplit('/').next().unwrap_or(relative);
            // Only an empty directory goes; one that filled up meanwhile stays.
            let _ = rustix::fs::unlinkat(&parent, last, AtFlags::REMOVEDIR);
        }
    }
    Ok(found)
}

/// Opens `relative` below `root`, one component at a time and following no link; returns
/// it with its parent, or `None` when it is missing, or is a link or no directory (which
/// is then listed in `kept`).
fn open_below(
    root: &OwnedFd,
    dir: &Path,
    relative: &str,
    kept: &mut Vec<String>,
) -> Result<Option<(OwnedFd, OwnedFd)>> {
    let mut parent: Option<OwnedFd> = None;
    let mut current = rustix::io::dup(root).map_err(|e| Error::io("cannot open", dir, e.into()))?;
    let mut walked = String::new();
    for part in relative.split('/') {
        if !walked.is_empty() {
            walked.push('/');
        }
        walked.push_str(part);
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        match rustix::fs::openat(&current, part, flags, Mode::empty()) {
            Ok(next) => parent = Some(std::mem::replace(&mut current, next)),
            Err(rustix::io::Errno::NOENT) => return Ok(None),
            Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                if !kept.contains(&walked) {
                    kept.push(walked);
                }
                return Ok(None);
            }
            Err(e) => return Err(Error::io("cannot open", dir.join(&walked), e.into())),
        }
    }
    Ok(parent.map(|parent| (parent, current)))
}

/// The names in an open directory, sorted, but `.` and `..`; a name that is not UTF-8 is
/// kept as its lossy form, which matches no host's file.
fn entry_names(fd: &OwnedFd, path: &Path) -> Result<Vec<String>> {
    let listing = Dir::read_from(fd).map_err(|e| Error::io("cannot read", path, e.into()))?;
    let mut names = Vec::new();
    for entry in listing {
        let entry = entry.map_err(|e| Error::io("cannot read", path, e.into()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name != "." && name != ".." {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn wrote(paths: &[&str]) -> BTreeSet<String> {
        paths.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn the_names_a_person_reads_are_the_names_pruned() {
        let (hosts, roles) = own_file_names();
        assert_eq!(
            hosts,
            [
                "HOST.ign",
                "HOST.iso",
                "HOST-initrd.img",
                "HOST.ipxe",
                "HOST-grub.cfg"
            ]
        );
        assert_eq!(
            roles,
            [
                "ROLE.iso",
                "ROLE-vmlinuz",
                "ROLE-initrd.img",
                "ROLE-rootfs.img",
                "ROLE.ipxe",
                "ROLE-grub.cfg"
            ]
        );
    }

    #[test]
    fn removes_only_bootgens_own_files_that_this_run_did_not_write() {
        let top = tempfile::tempdir().unwrap();
        let out = top.path().join("out");
        fs::create_dir_all(out.join("hosts")).unwrap();
        fs::create_dir_all(out.join("media/pxe/hosts")).unwrap();
        for name in [
            "master-0.ign",
            "master-1.ign",
            "notes.txt",
            "Upper.ign",
            ".hidden.ign",
        ] {
            fs::write(out.join("hosts").join(name), name).unwrap();
        }
        for name in ["master-1-initrd.img", "master-1.ipxe", "master-1-grub.cfg"] {
            fs::write(out.join("media/pxe/hosts").join(name), name).unwrap();
        }
        fs::create_dir(out.join("hosts/master-2.ign")).unwrap();
        let outside = top.path().join("precious.ign");
        fs::write(&outside, "precious").unwrap();
        std::os::unix::fs::symlink(&outside, out.join("hosts/master-3.ign")).unwrap();
        let found = remove_stale_host_files(&out, &wrote(&["hosts/master-0.ign"])).unwrap();
        assert_eq!(
            found.removed,
            [
                "hosts/master-1.ign",
                "media/pxe/hosts/master-1-grub.cfg",
                "media/pxe/hosts/master-1-initrd.img",
                "media/pxe/hosts/master-1.ipxe",
            ]
        );
        assert_eq!(
            found.kept,
            [
                "hosts/Upper.ign",
                "hosts/master-2.ign",
                "hosts/master-3.ign",
                "hosts/notes.txt"
            ]
        );
        assert!(out.join("hosts/master-0.ign").exists());
        assert!(out.join("hosts/.hidden.ign").exists());
        assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
        assert!(fs::symlink_metadata(out.join("hosts/master-3.ign")).is_ok());
        // Emptied, the per-host directory goes, and the media directories it emptied.
        assert!(!out.join("media").exists());
    }

    #[test]
    fn role_media_not_written_go_and_a_users_files_stay() {
        let top = tempfile::tempdir().unwrap();
        let out = top.path().join("out");
        fs::create_dir_all(out.join("media/pxe/hosts")).unwrap();
        for name in [
            "bootstrap.iso",
            "master.iso",
            "worker.iso",
            "rhcos-live.iso",
        ] {
            fs::write(out.join("media").join(name), name).unwrap();
        }
        for name in ["bootstrap-vmlinuz", "bootstrap.ipxe", "master-grub.cfg"] {
            fs::write(out.join("media/pxe").join(name), name).unwrap();
        }
        fs::write(out.join("media/pxe/hosts/master-0.ipxe"), "x").unwrap();
        let outside = top.path().join("precious.iso");
        fs::write(&outside, "precious").unwrap();
        fs::remove_file(out.join("media/worker.iso")).unwrap();
        std::os::unix::fs::symlink(&outside, out.join("media/worker.iso")).unwrap();
        let wrote = wrote(&["media/master.iso", "media/pxe/hosts/master-0.ipxe"]);
        // Listed first, nothing removed; then removed, the same files.
        let listed = stale_host_files(&out, &wrote).unwrap();
        assert!(out.join("media/bootstrap.iso").exists());
        assert!(out.join("media/pxe/bootstrap.ipxe").exists());
        let found = remove_stale_host_files(&out, &wrote).unwrap();
        assert_eq!(listed, found);
        assert_eq!(
            found.removed,
            [
                "media/pxe/bootstrap-vmlinuz",
                "media/pxe/bootstrap.ipxe",
                "media/pxe/master-grub.cfg",
                "media/bootstrap.iso",
            ]
        );
        assert_eq!(found.kept, ["media/rhcos-live.iso", "media/worker.iso"]);
        assert!(out.join("media/master.iso").exists());
        assert!(out.join("media/pxe/hosts/master-0.ipxe").exists());
        assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
    }

    #[test]
    fn a_per_host_directory_that_is_a_link_is_not_entered() {
        let top = tempfile::tempdir().unwrap();
        let out = top.path().join("out");
        let elsewhere = top.path().join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::create_dir_all(out.join("media")).unwrap();
        fs::write(elsewhere.join("master-0.ign"), "theirs").unwrap();
        fs::write(elsewhere.join("master-0.iso"), "theirs").unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("hosts")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("media/hosts")).unwrap();
        let found = remove_stale_host_files(&out, &BTreeSet::new()).unwrap();
        assert!(found.removed.is_empty(), "{found:?}");
        assert_eq!(found.kept, ["hosts", "media/hosts"]);
        assert!(elsewhere.join("master-0.ign").exists() && elsewhere.join("master-0.iso").exists());
    }

    #[test]
    fn a_missing_directory_is_nothing_to_do() {
        let top = tempfile::tempdir().unwrap();
        let found = remove_stale_host_files(&top.path().join("none"), &BTreeSet::new()).unwrap();
        assert_eq!(found, StaleFiles::default());
    }
}
