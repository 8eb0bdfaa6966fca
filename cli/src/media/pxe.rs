//! A role's PXE set, written from a live ISO: its kernel, its initramfs with the config's
//! archive appended, its rootfs, and the iPXE and GRUB entries that boot them.

use bootgen::media::{Customization, LiveIso};
use std::path::{Path, PathBuf};

/// Writes the PXE set of `customization` into `dir`: `NAME-vmlinuz`, `NAME-initrd.img` (the
/// ISO's initramfs with the config's archive appended), `NAME-rootfs.img`, `NAME.ipxe` and
/// `NAME-grub.cfg`; every check (the files, their names free unless `replace`) runs first.
pub fn write_pxe_set(
    iso_path: &Path,
    iso: &LiveIso,
    customization: &Customization,
    dir: &Path,
    name: &str,
    base_url: &str,
    replace: bool,
) -> anyhow::Result<Vec<PathBuf>> {
    use std::io::{Read, Seek, SeekFrom, Write};
    let iso_name = iso_path.display().to_string();
    let archive = bootgen::media::pxe_archive(customization, iso.features(), &iso_name)?;
    let mut file = std::fs::File::open(iso_path)
        .map_err(|e| bootgen::Error::io("cannot read", iso_path, e))?;
    let mut parts = Vec::new();
    for (path, suffix) in bootgen::media::PXE_FILES {
        let area = pxe_file_area(iso, &mut file, path, &iso_name)?;
        parts.push((
            dir.join(format!("{name}{suffix}")),
            area,
            suffix == bootgen::media::INITRD_SUFFIX,
        ));
    }
    let entries = bootgen::media::boot_entries(name, base_url, name, &[]);
    let texts = [
        (
            dir.join(format!("{name}{}", bootgen::media::IPXE_SUFFIX)),
            entries.ipxe,
        ),
        (
            dir.join(format!("{name}{}", bootgen::media::GRUB_SUFFIX)),
            entries.grub,
        ),
    ];
    if !replace {
        let taken: Vec<_> = parts
            .iter()
            .map(|p| &p.0)
            .chain(texts.iter().map(|t| &t.0))
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .cloned()
            .collect();
        if !taken.is_empty() {
            return Err(bootgen::Error::WouldOverwrite { paths: taken }.into());
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| bootgen::Error::io("cannot create", dir, e))?;
    let mut written = Vec::new();
    for (path, area, append) in parts {
        let mode = if append {
            bootgen::output::CONFIG_MEDIA_MODE
        } else {
            0o644
        };
        bootgen::output::write_streamed(&path, mode, true, |out| {
            file.seek(SeekFrom::Start(area.offset))?;
            std::io::copy(&mut (&mut file).take(area.length), out)?;
            if append {
                out.write_all(&archive)?;
            }
            Ok(())
        })?;
        written.push(path);
    }
    for (path, text) in texts {
        bootgen::output::write_atomic(&path, text.as_bytes(), 0o644)?;
        written.push(path);
    }
    Ok(written)
}

/// Writes a role's kernel and rootfs alone into `dir` (`NAME-vmlinuz`, `NAME-rootfs.img`): what
/// its hosts' PXE entries boot when the role has no set of its own (no `--dest-device`: each
/// host boots its own initramfs). Returns the paths written.
pub fn write_boot_files(
    iso_path: &Path,
    iso: &LiveIso,
    dir: &Path,
    name: &str,
) -> anyhow::Result<Vec<PathBuf>> {
    use std::io::{Read, Seek, SeekFrom};
    let iso_name = iso_path.display().to_string();
    let mut file = std::fs::File::open(iso_path)
        .map_err(|e| bootgen::Error::io("cannot read", iso_path, e))?;
    let mut written = Vec::new();
    for (path, suffix) in bootgen::media::PXE_FILES {
        if suffix == bootgen::media::INITRD_SUFFIX {
            continue;
        }
        let area = pxe_file_area(iso, &mut file, path, &iso_name)?;
        let target = dir.join(format!("{name}{suffix}"));
        bootgen::output::write_streamed(&target, 0o644, true, |out| {
            file.seek(SeekFrom::Start(area.offset))?;
            std::io::copy(&mut (&mut file).take(area.length), out)?;
            Ok(())
        })?;
        written.push(target);
    }
    Ok(written)
}

/// Where the ISO holds `path`, a file a PXE set is made of; its absence is an error naming both.
pub(super) fn pxe_file_area(
    iso: &LiveIso,
    file: &mut std::fs::File,
    path: &str,
    iso_name: &str,
) -> anyhow::Result<bootgen::media::Area> {
    Ok(iso
        .file_area(file, path)?
        .ok_or_else(|| bootgen::Error::Media {
            file: iso_name.to_string(),
            area: path.to_string(),
            message: "the ISO has no such file, which a PXE set needs".into(),
        })?)
}
