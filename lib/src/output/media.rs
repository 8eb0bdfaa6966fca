//! Writing boot media: a customized ISO in place (the patch's few runs written into the input
//! after every check passed) or streamed to a new file (an exclusive temporary file beside it,
//! copied, patched, renamed), so an input is never left half-written and an output either
//! appears whole or not at all. A copy carries the config, private keys included: it is 0600.
//!
//! A copy is not synced before the rename, as neither `cp` nor `coreos-installer iso customize
//! -o` syncs: waiting for the disk doubles the time of a 1 GiB copy (BENCHMARKS.md, benchmark
//! 8b), and the image is made again from its inputs. An interrupted run leaves nothing at the
//! name; only a power loss in the seconds after it can leave a short file there.

use crate::error::{Error, Result};
use crate::media::Patch;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Present in an output directory from the commit of a run's configs until the media it makes
/// from them are written (written with the configs, removed after the media): media beside it
/// hold the configs from before a killed run.
pub const MEDIA_PENDING: &str = ".bootgen-media-pending";

/// The [`MEDIA_PENDING`] marker, to be written with the configs the media are made from.
pub fn media_pending_marker() -> super::OutputFile {
    super::OutputFile {
        relative: MEDIA_PENDING.into(),
        contents: b"the media of these configs are not all written yet\n".to_vec(),
        mode: 0o600,
    }
}

/// Whether `dir` holds configs whose media a killed run did not finish (see [`MEDIA_PENDING`]).
pub fn media_pending(dir: &Path) -> bool {
    fs::symlink_metadata(dir.join(MEDIA_PENDING)).is_ok_and(|m| m.is_file())
}

/// Removes the [`MEDIA_PENDING`] marker once the media are written (or none are left).
pub fn clear_media_pending(dir: &Path) -> Result<()> {
    let path = dir.join(MEDIA_PENDING);
    match fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(Error::io("cannot remove", &path, e))
        }
        _ => Ok(()),
    }
}

/// The directories below an output directory that `bootgen ignition --iso/--pxe` writes media
/// into, relative to it.
pub fn media_dirs() -> [String; 4] {
    let (media, hosts) = (super::MEDIA_DIR, super::HOSTS_DIR);
    [
        media.to_string(),
        format!("{media}/{hosts}"),
        format!("{media}/pxe"),
        format!("{media}/pxe/{hosts}"),
    ]
}

/// Every directory a run writes files into, relative to the output directory (`""` is the
/// directory itself): a temporary file of bootgen's may be in any of them.
pub fn written_dirs() -> impl Iterator<Item = String> {
    let own = [
        String::new(),
        "auth".into(),
        "tls".into(),
        super::HOSTS_DIR.into(),
    ];
    own.into_iter().chain(media_dirs())
}

/// Removes the temporary files a killed write left in `dir` (`.NAME.XXXXXX.bootgen-tmp`, from
/// an atomic write: a media file a whole ISO's size, a patched config, a commit record; any
/// of them may hold keys): in `dir` itself, `auth/`, `tls/`, `hosts/` and the media
/// directories. Only regular files of that name directly in real directories (no link is
/// followed); the caller holds the output's lock, so no other run is writing them. Returns the
/// paths removed, relative to `dir`.
pub fn remove_temp_files(dir: &Path) -> Result<Vec<String>> {
    let mut removed = Vec::new();
    for relative in written_dirs() {
        let path = dir.join(&relative);
        let is_dir = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_dir());
        if !is_dir {
            continue;
        }
        for entry in fs::read_dir(&path).map_err(|e| Error::io("cannot read", &path, e))? {
            let entry = entry.map_err(|e| Error::io("cannot read", &path, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let scratch = super::is_temp_file_name(&name);
            if scratch && entry.file_type().is_ok_and(|t| t.is_file()) {
                fs::remove_file(entry.path())
                    .map_err(|e| Error::io("cannot remove", entry.path(), e))?;
                removed.push(if relative.is_empty() {
                    name
                } else {
                    format!("{relative}/{name}")
                });
            }
        }
    }
    removed.sort();
    Ok(removed)
}

/// A live image opened to be customized in place: opened once, read and written through the
/// same descriptor, so the file checked is the file written even if its name is swapped for a
/// link (or another file) meanwhile.
#[derive(Debug)]
pub struct InPlaceImage {
    file: fs::File,
    path: std::path::PathBuf,
    mode: u32,
}

/// What [`InPlaceImage::patch`] did to the image's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageMode {
    /// Left as it was, and others cannot read it.
    Private,
    /// Made private (the old mode given): it now holds secrets others could read.
    MadePrivate(u32),
    /// Left as it was, readable by others, as the caller asked.
    KeptReadable(u32),
}

/// Opens the image at `path` for reading and writing in place: through no link at its name,
/// and only a regular file of the running user's own that others cannot write (one another
/// user controls could be read by them once it holds the config).
pub fn open_in_place(path: &Path) -> Result<InPlaceImage> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(flags.bits() as i32)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(n) if n == rustix::io::Errno::LOOP.raw_os_error() => Error::UnsafePath {
                path: path.display().to_string(),
                reason: "it is a link, and bootgen writes an image in place only through its own name; write a copy of the image instead".into(),
            },
            _ => Error::io("cannot write", path, e),
        })?;
    let meta = file
        .metadata()
        .map_err(|e| Error::io("cannot read", path, e))?;
    if !meta.is_file() {
        return Err(Error::UnsafePath {
            path: path.display().to_string(),
            reason: "it is no regular file, and bootgen writes an image in place only into a file"
                .into(),
        });
    }
    crate::ownership::refuse_foreign(path, &meta)
        .map_err(|foreign| Error::ForeignMedium { foreign })?;
    Ok(InPlaceImage {
        file,
        path: path.to_path_buf(),
        mode: meta.mode() & 0o7777,
    })
}

impl InPlaceImage {
    /// The open image, to read its areas from.
    pub fn file(&mut self) -> &mut fs::File {
        &mut self.file
    }

    /// Writes `patch` into the image through the descriptor it was opened with. When the
    /// config written holds secrets (`secrets`) and others can read the image, its mode is
    /// made private (group and others' bits cleared) unless `keep_mode`.
    pub fn patch(mut self, patch: &Patch, secrets: bool, keep_mode: bool) -> Result<ImageMode> {
        let path = self.path.clone();
        patch
            .apply(&mut self.file)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| Error::io("cannot write", &path, e))?;
        if !secrets || self.mode & 0o077 == 0 {
            return Ok(ImageMode::Private);
        }
        if keep_mode {
            return Ok(ImageMode::KeptReadable(self.mode));
        }
        self.file
            .set_permissions(fs::Permissions::from_mode(self.mode & 0o700))
            .map_err(|e| Error::io("cannot set permissions on", &path, e))?;
        Ok(ImageMode::MadePrivate(self.mode))
    }
}

/// The mode of a medium that carries a config (an ISO, an initramfs with the config
/// appended): the bootstrap's and a single node's carry every private key of the cluster.
pub const CONFIG_MEDIA_MODE: u32 = 0o600;

/// Copies the image open as `source` (read from `input`) to `output` with `patch` applied:
/// the descriptor its areas were read from, so the image copied is the one checked. An
/// existing `output` is refused unless `replace`.
pub fn patch_to_copy(
    source: &fs::File,
    input: &Path,
    output: &Path,
    patch: &Patch,
    replace: bool,
) -> Result<()> {
    use std::io::Seek;
    let mut source = source;
    source
        .seek(std::io::SeekFrom::Start(0))
        .map_err(|e| Error::io("cannot read", input, e))?;
    write_streamed(output, CONFIG_MEDIA_MODE, replace, |file| {
        // A file-to-file copy: the kernel moves the bytes (copy_file_range), as cp does.
        std::io::copy(&mut source, file)?;
        patch.apply(file)
    })
}

/// Writes `output` through `fill`, atomically: nothing at `output` until the whole file is
/// written (not synced: see the module's comment). An existing `output` is refused unless
/// `replace`.
pub fn write_streamed(
    output: &Path,
    mode: u32,
    replace: bool,
    fill: impl FnOnce(&mut fs::File) -> std::io::Result<()>,
) -> Result<()> {
    if let Some(mut device) = super::device_at(output)? {
        return fill(&mut device).map_err(|e| Error::io("cannot write", output, e));
    }
    if !replace && fs::symlink_metadata(output).is_ok() {
        return Err(Error::WouldOverwrite {
            paths: vec![output.to_path_buf()],
        });
    }
    let mut temp = super::temp_file_beside(output)?;
    let file = temp.as_file_mut();
    fill(file)
        .and_then(|()| file.flush())
        .and_then(|()| file.set_permissions(fs::Permissions::from_mode(mode)))
        .map_err(|e| Error::io("cannot write", output, e))?;
    // On failure the temporary file is removed when `temp` is dropped. Not replacing: a file
    // that appeared at `output` while this one was written is refused too, not replaced.
    let placed = if replace {
        temp.persist(output)
    } else {
        temp.persist_noclobber(output)
    };
    placed.map(drop).map_err(|e| match e.error.kind() {
        std::io::ErrorKind::AlreadyExists if !replace => Error::WouldOverwrite {
            paths: vec![output.to_path_buf()],
        },
        _ => Error::io("cannot move into place", output, e.error),
    })
}
