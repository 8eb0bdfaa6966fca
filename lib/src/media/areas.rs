//! Where a CoreOS live ISO keeps what a user may change: the Ignition embed area
//! (`/coreos/igninfo.json`, else `/images/ignition.img`, else the 2020 `coreiso+` header), the
//! kernel-argument areas (`/coreos/kargs.json`, else the `coreKarg` header), the OS features
//! (`/coreos/features.json`), and the architecture its boot files are for.

use super::fault;
use super::iso9660::{read_at, Extent, Volume, SECTOR};
use crate::arch::Arch;
use crate::error::Result;
use serde::Deserialize;
use std::io::{Read, Seek};

/// The embed area's file when the ISO has no `igninfo.json`.
pub const DEFAULT_EMBED_FILE: &str = "/images/ignition.img";
const IGNINFO: &str = "/coreos/igninfo.json";
const KARGS_INFO: &str = "/coreos/kargs.json";
const FEATURES: &str = "/coreos/features.json";
/// The system area's last 24 bytes (2020 ISOs): `coreiso+`, the embed area's offset, its length.
const IGNITION_HEADER_AT: u64 = 16 * SECTOR - 24;
/// The 72 bytes before it: `coreKarg`, the areas' length, the defaults' offset, 6 offsets.
const KARGS_HEADER_AT: u64 = IGNITION_HEADER_AT - 72;
/// Kernel-argument areas are small; a larger one is a damaged image.
const MAX_KARGS_AREA: u64 = 2048;
/// The info files are a few hundred bytes.
const MAX_INFO: u64 = 64 * 1024;

/// A run of bytes of the image that may be rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Area {
    /// Byte offset in the image.
    pub offset: u64,
    /// Length in bytes.
    pub length: u64,
}

/// One kernel-argument area: where, and how its text is ended and padded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KargsArea {
    /// Where it is.
    pub area: Area,
    /// The byte after the arguments (a newline unless the image says otherwise).
    pub end: u8,
    /// The byte the rest is filled with (`#` unless the image says otherwise).
    pub pad: u8,
}

/// The image's kernel-argument areas, all the same length, and the arguments it shipped with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KargsAreas {
    /// Every copy (one per boot loader's config).
    pub areas: Vec<KargsArea>,
    /// The arguments the image shipped with.
    pub default: String,
    /// Where it was read from (`/coreos/kargs.json` or the `coreKarg` header).
    pub source: &'static str,
}

/// What the live system's tools support, from `/coreos/features.json` (all false without it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct Features {
    /// The live installer reads `/etc/coreos/installer.d`.
    pub installer_config: bool,
    /// The live initrd reads keyfiles from `/etc/coreos-firstboot-network`.
    pub live_initrd_network: bool,
    /// The directives the installer config accepts.
    pub installer_config_directives: Directives,
}

/// Installer-config directives beyond the first set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct Directives {
    /// `console:` is understood.
    pub console: bool,
}

/// Everything found in the image.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The Ignition embed area.
    pub ignition: Area,
    /// Where the embed area was found (`/images/ignition.img`, `coreiso+ header`).
    pub ignition_source: String,
    /// The kernel-argument areas, when the image has any.
    pub kargs: Option<KargsAreas>,
    /// The OS features.
    pub features: Features,
    /// The architecture of its boot files, when they tell.
    pub arch: Option<Arch>,
}

#[derive(Deserialize)]
struct IgnInfo {
    file: String,
    offset: Option<u64>,
    length: Option<u64>,
}

#[derive(Deserialize)]
struct KargsInfo {
    default: String,
    files: Vec<KargsFile>,
    size: u64,
}

#[derive(Deserialize)]
struct KargsFile {
    path: String,
    offset: u64,
    pad: Option<char>,
    end: Option<char>,
}

/// Finds the areas of the live ISO `reader`; an image without an embed area is not a CoreOS
/// live ISO and is refused.
pub fn discover<R: Read + Seek>(reader: &mut R, volume: &Volume, file: &str) -> Result<Layout> {
    let (ignition, ignition_source) = ignition_area(reader, volume, file)?;
    let kargs = match info::<KargsInfo, _>(reader, volume, KARGS_INFO, file)? {
        Some(info) => Some(kargs_from_info(reader, volume, info, file)?),
        None => kargs_from_header(reader, volume, file)?,
    };
    let features = info::<Features, _>(reader, volume, FEATURES, file)?.unwrap_or_default();
    Ok(Layout {
        ignition,
        ignition_source,
        kargs,
        features,
        arch: boot_arch(reader, volume, file)?,
    })
}

/// The embed area, refused when it has no room: an image whose area is a link (a Rock Ridge
/// symlink, which is an empty file to ISO 9660) would otherwise read as "a config larger than
/// the area's 0 bytes".
fn ignition_area<R: Read + Seek>(
    reader: &mut R,
    volume: &Volume,
    file: &str,
) -> Result<(Area, String)> {
    let (area, source) = find_ignition_area(reader, volume, file)?;
    if area.length == 0 {
        return Err(fault(
            file,
            &source,
            "the Ignition embed area is empty (0 bytes), so it has no room for a config; a CoreOS live ISO reserves space there (a link in its place, which is not followed, reads as empty)",
        ));
    }
    Ok((area, source))
}

fn find_ignition_area<R: Read + Seek>(
    reader: &mut R,
    volume: &Volume,
    file: &str,
) -> Result<(Area, String)> {
    if let Some(info) = info::<IgnInfo, _>(reader, volume, IGNINFO, file)? {
        let path = format!("/{}", info.file.trim_start_matches('/'));
        let extent = existing(reader, volume, &path, file)?;
        let offset = info.offset.unwrap_or(0);
        let length = info.length.unwrap_or(extent.length.saturating_sub(offset));
        if offset.saturating_add(length) > extent.length {
            return Err(fault(
                file,
                IGNINFO,
                format!("its area reaches past the end of {path}"),
            ));
        }
        return Ok((
            Area {
                offset: extent.offset + offset,
                length,
            },
            path,
        ));
    }
    if let Some(extent) = volume.find(reader, DEFAULT_EMBED_FILE, file)? {
        return Ok((
            Area {
                offset: extent.offset,
                length: extent.length,
            },
            DEFAULT_EMBED_FILE.into(),
        ));
    }
    let mut header = [0u8; 24];
    read_at(
        reader,
        IGNITION_HEADER_AT,
        &mut header,
        file,
        "coreiso+ header",
    )?;
    if &header[..8] == b"coreiso+" {
        let area = Area {
            offset: u64_le(&header[8..16]),
            length: u64_le(&header[16..24]),
        };
        in_image(area, volume, file, "coreiso+ header")?;
        return Ok((area, "coreiso+ header".into()));
    }
    Err(fault(
        file,
        DEFAULT_EMBED_FILE,
        "not a CoreOS live ISO: it has no Ignition embed area (no /coreos/igninfo.json, /images/ignition.img or coreiso+ header)",
    ))
}

fn kargs_from_info<R: Read + Seek>(
    reader: &mut R,
    volume: &Volume,
    info: KargsInfo,
    file: &str,
) -> Result<KargsAreas> {
    if info.size > MAX_KARGS_AREA || info.default.len() as u64 > info.size {
        return Err(fault(
            file,
            KARGS_INFO,
            format!(
                "an area of {} bytes is not a kernel-argument area",
                info.size
            ),
        ));
    }
    let mut areas = Vec::new();
    for entry in info.files {
        let path = format!("/{}", entry.path.trim_start_matches('/'));
        let extent = existing(reader, volume, &path, file)?;
        // Checked before the sum: the offset is the image's to choose.
        if entry.offset.saturating_add(info.size) > extent.length {
            return Err(fault(
                file,
                KARGS_INFO,
                format!("its area in {path} reaches past the file's end"),
            ));
        }
        let area = Area {
            offset: extent.offset + entry.offset,
            length: info.size,
        };
        areas.push(KargsArea {
            area,
            end: byte_of(entry.end, b'\n'),
            pad: byte_of(entry.pad, b'#'),
        });
    }
    areas.sort_by_key(|a| a.area.offset);
    if areas.is_empty() {
        return Err(fault(file, KARGS_INFO, "it lists no kernel-argument area"));
    }
    Ok(KargsAreas {
        areas,
        default: info.default,
        source: KARGS_INFO,
    })
}

fn kargs_from_header<R: Read + Seek>(
    reader: &mut R,
    volume: &Volume,
    file: &str,
) -> Result<Option<KargsAreas>> {
    const AREA: &str = "coreKarg header";
    let mut header = [0u8; 72];
    read_at(reader, KARGS_HEADER_AT, &mut header, file, AREA)?;
    if &header[..8] != b"coreKarg" {
        return Ok(None);
    }
    let length = u64_le(&header[8..16]);
    if length > MAX_KARGS_AREA || length == 0 {
        return Err(fault(
            file,
            AREA,
            format!("an area of {length} bytes is not a kernel-argument area"),
        ));
    }
    let defaults = Area {
        offset: u64_le(&header[16..24]),
        length,
    };
    in_image(defaults, volume, file, AREA)?;
    let mut text = vec![0u8; length as usize];
    read_at(reader, defaults.offset, &mut text, file, AREA)?;
    let mut areas = Vec::new();
    for slot in header[24..].chunks_exact(8) {
        let offset = u64_le(slot);
        if offset == 0 {
            break;
        }
        let area = Area { offset, length };
        in_image(area, volume, file, AREA)?;
        areas.push(KargsArea {
            area,
            end: b'\n',
            pad: b'#',
        });
    }
    if areas.is_empty() {
        return Err(fault(file, AREA, "it lists no kernel-argument area"));
    }
    Ok(Some(KargsAreas {
        areas,
        default: kargs_text(&text, b'\n', b'#'),
        source: AREA,
    }))
}

/// The arguments an area holds: up to the end byte, without the padding.
pub fn kargs_text(bytes: &[u8], end: u8, pad: u8) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches(pad as char);
    let text = text.trim_end_matches(end as char);
    text.trim().to_string()
}

/// The architecture the image boots: its UEFI loader's name, else the boot loader only one
/// architecture has (isolinux on x86_64, the CD boot image on s390x, `/ppc` on POWER).
fn boot_arch<R: Read + Seek>(reader: &mut R, volume: &Volume, file: &str) -> Result<Option<Arch>> {
    const SIGNS: [(&str, Arch); 6] = [
        ("/EFI/BOOT/BOOTX64.EFI", Arch::Amd64),
        ("/EFI/BOOT/BOOTAA64.EFI", Arch::Arm64),
        ("/isolinux", Arch::Amd64),
        ("/images/cdboot.img", Arch::S390x),
        ("/generic.ins", Arch::S390x),
        ("/ppc", Arch::Ppc64le),
    ];
    for (path, arch) in SIGNS {
        if volume.find(reader, path, file)?.is_some() {
            return Ok(Some(arch));
        }
    }
    Ok(None)
}

/// A JSON info file of the image, `None` when it has none.
fn info<T: serde::de::DeserializeOwned, R: Read + Seek>(
    reader: &mut R,
    volume: &Volume,
    path: &str,
    file: &str,
) -> Result<Option<T>> {
    let Some(extent) = volume.find(reader, path, file)? else {
        return Ok(None);
    };
    let bytes = volume.read_file(reader, extent, MAX_INFO, file, path)?;
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| fault(file, path, format!("does not parse: {e}")))
}

fn existing<R: Read + Seek>(
    reader: &mut R,
    volume: &Volume,
    path: &str,
    file: &str,
) -> Result<Extent> {
    volume
        .find(reader, path, file)?
        .filter(|e| !e.is_dir)
        .ok_or_else(|| {
            fault(
                file,
                path,
                "the image's info names this file, which it does not have",
            )
        })
}

fn in_image(area: Area, volume: &Volume, file: &str, what: &str) -> Result<()> {
    match area.offset.checked_add(area.length) {
        Some(end) if end <= volume.image_len => Ok(()),
        _ => Err(fault(
            file,
            what,
            format!(
                "it points past the end of the image ({} bytes at {})",
                area.length, area.offset
            ),
        )),
    }
}

fn byte_of(c: Option<char>, default: u8) -> u8 {
    c.and_then(|c| u8::try_from(u32::from(c)).ok())
        .unwrap_or(default)
}

fn u64_le(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(word)
}
