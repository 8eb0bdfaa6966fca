//! The PXE set: the live kernel, initramfs and rootfs from the ISO's `/images/pxeboot`, the
//! config as a second archive appended to the initramfs (the kernel unpacks concatenated
//! archives in order), and boot entries for iPXE and GRUB with the arguments CoreOS needs.
//!
//! Reading a config back from an initramfs reads only its last xz stream, found from the end
//! through the stream footer and index, so the base initramfs (compressed with whatever its
//! build chose) is never decompressed.

use super::archive::{self, Members};
use super::{fault, Customization, Features};
use crate::error::Result;
use std::io::{Read, Seek, SeekFrom};

/// What follows a PXE set's name (a role's or a host's) in the name of each file bootgen
/// writes for it: the one place these names are made, written and cleaned up.
pub const KERNEL_SUFFIX: &str = "-vmlinuz";
/// The initramfs, with the config's archive appended.
pub const INITRD_SUFFIX: &str = "-initrd.img";
/// The root filesystem the live system fetches.
pub const ROOTFS_SUFFIX: &str = "-rootfs.img";
/// The iPXE script.
pub const IPXE_SUFFIX: &str = ".ipxe";
/// The GRUB menu entry.
pub const GRUB_SUFFIX: &str = "-grub.cfg";

/// The files of a role's PXE set, after its name.
pub const ROLE_SET_SUFFIXES: [&str; 5] = [
    KERNEL_SUFFIX,
    INITRD_SUFFIX,
    ROOTFS_SUFFIX,
    IPXE_SUFFIX,
    GRUB_SUFFIX,
];

/// The files of a host's PXE set, after its name: its own initramfs and entries, which boot
/// the kernel and rootfs of its role's set.
pub const HOST_SET_SUFFIXES: [&str; 3] = [INITRD_SUFFIX, IPXE_SUFFIX, GRUB_SUFFIX];

/// The ISO's PXE files and what follows the set's name in the files they become.
pub const PXE_FILES: [(&str, &str); 3] = [
    ("/images/pxeboot/vmlinuz", KERNEL_SUFFIX),
    ("/images/pxeboot/initrd.img", INITRD_SUFFIX),
    ("/images/pxeboot/rootfs.img", ROOTFS_SUFFIX),
];

/// The archive `customization` appends to a live initramfs (no padding: it is concatenated).
pub fn pxe_archive(
    customization: &Customization,
    features: Features,
    file: &str,
) -> Result<Vec<u8>> {
    let members = customization.members(features, file)?;
    archive::pack(&members, archive::Effort::Preset9)
        .map_err(|e| fault(file, super::CONFIG_MEMBER, e.to_string()))
}

/// The regular files of the last xz stream of an initramfs (zero padding after it is allowed);
/// `None` when it does not end in an xz stream.
pub fn initramfs_members<R: Read + Seek>(reader: &mut R, file: &str) -> Result<Option<Members>> {
    let io = |e: std::io::Error| fault(file, "initramfs", format!("cannot read: {e}"));
    let len = reader.seek(SeekFrom::End(0)).map_err(io)?;
    // Skip the zero padding at the end, four bytes at a time as xz allows.
    let mut end = len;
    let mut word = [0u8; 4];
    while end >= 4 {
        reader
            .seek(SeekFrom::Start(end - 4))
            .and_then(|_| reader.read_exact(&mut word))
            .map_err(io)?;
        if word != [0; 4] {
            break;
        }
        end -= 4;
    }
    let Some(start) = last_stream_start(reader, end).map_err(io)? else {
        return Ok(None);
    };
    let size = end - start;
    if size > archive::MAX_UNPACKED {
        return Err(fault(
            file,
            "initramfs",
            "its last xz stream is larger than any config archive",
        ));
    }
    let mut bytes = vec![0; size as usize];
    reader
        .seek(SeekFrom::Start(start))
        .and_then(|_| reader.read_exact(&mut bytes))
        .map_err(io)?;
    archive::unpack(&bytes)
        .map(Some)
        .map_err(|e| fault(file, "initramfs", e.0))
}

/// Where the xz stream ending at `end` starts: its footer gives its index's size, the index
/// the size of every block.
fn last_stream_start<R: Read + Seek>(reader: &mut R, end: u64) -> std::io::Result<Option<u64>> {
    const FOOTER: u64 = 12;
    const HEADER: u64 = 12;
    if end < HEADER + FOOTER {
        return Ok(None);
    }
    let mut footer = [0u8; 12];
    reader.seek(SeekFrom::Start(end - FOOTER))?;
    reader.read_exact(&mut footer)?;
    if &footer[10..12] != b"YZ" {
        return Ok(None);
    }
    let backward = (u64::from(u32::from_le_bytes([
        footer[4], footer[5], footer[6], footer[7],
    ])) + 1)
        * 4;
    if backward > end - HEADER - FOOTER || backward > 16 * 1024 * 1024 {
        return Ok(None);
    }
    let index_at = end - FOOTER - backward;
    let mut index = vec![0u8; backward as usize];
    reader.seek(SeekFrom::Start(index_at))?;
    reader.read_exact(&mut index)?;
    let Some(blocks) = blocks_size(&index) else {
        return Ok(None);
    };
    let Some(start) = index_at
        .checked_sub(blocks)
        .and_then(|s| s.checked_sub(HEADER))
    else {
        return Ok(None);
    };
    let mut magic = [0u8; 6];
    reader.seek(SeekFrom::Start(start))?;
    reader.read_exact(&mut magic)?;
    Ok((&magic == b"\xfd7zXZ\0").then_some(start))
}

/// The total size of the blocks an xz index lists (each padded to four bytes).
fn blocks_size(index: &[u8]) -> Option<u64> {
    let mut at = 1usize;
    if index.first() != Some(&0) {
        return None;
    }
    let count = varint(index, &mut at)?;
    let mut total = 0u64;
    for _ in 0..count {
        let unpadded = varint(index, &mut at)?;
        varint(index, &mut at)?;
        total = total.checked_add(unpadded.checked_add(3)? / 4 * 4)?;
    }
    Some(total)
}

fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in 0..9 {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << (7 * shift);
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Ready boot entries for one PXE set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootEntries {
    /// An iPXE script.
    pub ipxe: String,
    /// A GRUB menu entry.
    pub grub: String,
    /// The kernel command line both use.
    pub kargs: String,
}

/// The entries that boot the set `name` (its kernel, and its initramfs with the config
/// appended) from `base_url`, the rootfs fetched from there too, plus `extra` kernel arguments.
pub fn boot_entries(title: &str, base_url: &str, name: &str, extra: &[String]) -> BootEntries {
    let files = PxeFiles {
        kernel: format!("{name}{KERNEL_SUFFIX}"),
        initrd: format!("{name}{INITRD_SUFFIX}"),
        rootfs: format!("{name}{ROOTFS_SUFFIX}"),
    };
    boot_entries_for(title, base_url, &files, extra)
}

/// Where a PXE entry's three files are, relative to the base URL (and to GRUB's prefix): a
/// host's own initramfs beside the kernel and rootfs its role's set already serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PxeFiles {
    /// The kernel.
    pub kernel: String,
    /// The initramfs with the config appended.
    pub initrd: String,
    /// The root filesystem the live system fetches.
    pub rootfs: String,
}

/// The entries that boot `files` from `base_url`, plus `extra` kernel arguments.
pub fn boot_entries_for(
    title: &str,
    base_url: &str,
    files: &PxeFiles,
    extra: &[String],
) -> BootEntries {
    let base = base_url.trim_end_matches('/');
    let PxeFiles {
        kernel,
        initrd,
        rootfs,
    } = files;
    let mut kargs = format!(
        "coreos.live.rootfs_url={base}/{rootfs} ignition.firstboot ignition.platform.id=metal"
    );
    for arg in extra {
        kargs.push(' ');
        kargs.push_str(arg);
    }
    let ipxe = format!(
        "#!ipxe\n# {title}\nkernel {base}/{kernel} initrd=main {kargs}\ninitrd --name main {base}/{initrd}\nboot\n"
    );
    let grub =
        format!("menuentry '{title}' {{\n    linux {kernel} {kargs}\n    initrd {initrd}\n}}\n");
    BootEntries { ipxe, grub, kargs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn the_appended_archive_is_found_from_the_end() {
        let mut base = vec![7u8; 1000];
        let mut members = Members::new();
        members.insert("config.ign".into(), b"{\"ignition\":{}}".to_vec());
        base.extend(archive::pack(&members, archive::Effort::Preset9).unwrap());
        base.extend([0u8; 8]);
        let found = initramfs_members(&mut Cursor::new(base), "initrd.img").unwrap();
        assert_eq!(found, Some(members));
        assert_eq!(
            initramfs_members(&mut Cursor::new(vec![7u8; 100]), "x").unwrap(),
            None
        );
    }
}
