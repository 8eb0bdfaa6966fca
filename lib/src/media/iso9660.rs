//! Just enough ISO 9660 to find a file's bytes: the primary volume descriptor and directory
//! records, read with bounds (a record never reaches past its directory, a directory or file
//! never past the image). Rock Ridge and Joliet names are not read: the CoreOS tools name
//! their files by the plain ISO 9660 names, which is what this matches (case-insensitively).

use super::fault;
use crate::error::Result;
use std::io::{Read, Seek, SeekFrom};

/// The sector size of every ISO 9660 image CoreOS ships.
pub const SECTOR: u64 = 2048;
/// Directories larger than this are refused rather than read into memory.
const MAX_DIRECTORY: u32 = 4 * 1024 * 1024;
/// Where the volume descriptors start (sector 16), and how many are looked at.
const DESCRIPTORS_AT: u64 = 16 * SECTOR;
const MAX_DESCRIPTORS: u64 = 32;

/// A file or directory's place in the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    /// Byte offset from the start of the image.
    pub offset: u64,
    /// Length in bytes.
    pub length: u64,
    /// A directory rather than a file.
    pub is_dir: bool,
}

/// An opened ISO 9660 volume: its root directory and size.
#[derive(Debug, Clone)]
pub struct Volume {
    root: Extent,
    /// The image's length in bytes (the file's, which must hold the whole volume).
    pub image_len: u64,
}

impl Volume {
    /// Reads the primary volume descriptor; `None` when the image is no ISO 9660 volume.
    pub fn open<R: Read + Seek>(reader: &mut R, file: &str) -> Result<Option<Volume>> {
        let image_len = reader
            .seek(SeekFrom::End(0))
            .map_err(|e| fault(file, "ISO 9660 volume", format!("cannot read: {e}")))?;
        for index in 0..MAX_DESCRIPTORS {
            let at = DESCRIPTORS_AT + index * SECTOR;
            if at + SECTOR > image_len {
                return Ok(None);
            }
            let mut sector = [0u8; SECTOR as usize];
            read_at(reader, at, &mut sector, file, "volume descriptor")?;
            if &sector[1..6] != b"CD001" {
                return Ok(None);
            }
            match sector[0] {
                1 => {
                    let blocks = u32_le(&sector[80..84]);
                    if u64::from(blocks) * SECTOR > image_len {
                        return Err(fault(
                            file,
                            "ISO 9660 volume",
                            format!(
                                "the image is incomplete: its volume is {} bytes, the file {image_len}",
                                u64::from(blocks) * SECTOR
                            ),
                        ));
                    }
                    let root = record(&sector[156..190])
                        .ok_or_else(|| fault(file, "ISO 9660 volume", "no root directory"))?;
                    let volume = Volume { root, image_len };
                    volume.check(root, file, "/")?;
                    return Ok(Some(volume));
                }
                255 => return Ok(None),
                _ => continue,
            }
        }
        Ok(None)
    }

    /// The extent at `path` (`/coreos/igninfo.json`), or `None` when there is none.
    pub fn find<R: Read + Seek>(
        &self,
        reader: &mut R,
        path: &str,
        file: &str,
    ) -> Result<Option<Extent>> {
        let mut here = self.root;
        for name in path.split('/').filter(|c| !c.is_empty() && *c != ".") {
            if !here.is_dir {
                return Ok(None);
            }
            match self.child(reader, here, name, file, path)? {
                Some(next) => here = next,
                None => return Ok(None),
            }
        }
        Ok(Some(here))
    }

    /// Reads the whole of a file of at most `limit` bytes.
    pub fn read_file<R: Read + Seek>(
        &self,
        reader: &mut R,
        extent: Extent,
        limit: u64,
        file: &str,
        path: &str,
    ) -> Result<Vec<u8>> {
        if extent.length > limit {
            return Err(fault(
                file,
                path,
                format!("is {} bytes, more than the {limit} expected", extent.length),
            ));
        }
        let mut bytes = vec![0; extent.length as usize];
        read_at(reader, extent.offset, &mut bytes, file, path)?;
        Ok(bytes)
    }

    /// The entry `name` of the directory `dir`.
    fn child<R: Read + Seek>(
        &self,
        reader: &mut R,
        dir: Extent,
        name: &str,
        file: &str,
        path: &str,
    ) -> Result<Option<Extent>> {
        if dir.length > u64::from(MAX_DIRECTORY) {
            return Err(fault(file, path, "a directory on the path is too large"));
        }
        let mut bytes = vec![0; dir.length as usize];
        read_at(reader, dir.offset, &mut bytes, file, path)?;
        let mut at = 0usize;
        while at < bytes.len() {
            let len = usize::from(bytes[at]);
            if len == 0 {
                // Records never cross a sector: the rest of this one is padding.
                at = (at / SECTOR as usize + 1) * SECTOR as usize;
                continue;
            }
            let Some(raw) = bytes.get(at..at + len).filter(|r| r.len() >= 34) else {
                return Err(fault(file, path, "a directory record is cut short"));
            };
            let name_len = usize::from(raw[32]);
            let Some(raw_name) = raw.get(33..33 + name_len) else {
                return Err(fault(file, path, "a directory record's name is cut short"));
            };
            if names_match(&iso_name(raw_name), name) {
                let extent = record(raw)
                    .ok_or_else(|| fault(file, path, "a directory record is cut short"))?;
                self.check(extent, file, path)?;
                return Ok(Some(extent));
            }
            at += len;
        }
        Ok(None)
    }

    /// Refuses an extent that reaches past the image.
    fn check(&self, extent: Extent, file: &str, path: &str) -> Result<()> {
        match extent.offset.checked_add(extent.length) {
            Some(end) if end <= self.image_len => Ok(()),
            _ => Err(fault(
                file,
                path,
                format!(
                    "its directory record points past the end of the image ({} bytes at {})",
                    extent.length, extent.offset
                ),
            )),
        }
    }
}

/// A record's name without its version (`;1`) and a trailing dot (`NAME.` for no extension).
fn iso_name(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let text = text.split(';').next().unwrap_or_default();
    text.strip_suffix('.').unwrap_or(text).to_string()
}

/// True when a record's name is `wanted`, whole or cut to ISO 9660 level 1's 8.3 form
/// (`igninfo.json` is `IGNINFO.JSO`), ignoring case.
fn names_match(record: &str, wanted: &str) -> bool {
    if record.eq_ignore_ascii_case(wanted) {
        return true;
    }
    let cut = |name: &str| match name.rsplit_once('.') {
        Some((base, ext)) => format!("{}.{}", prefix(base, 8), prefix(ext, 3)),
        None => prefix(name, 8).to_string(),
    };
    record.eq_ignore_ascii_case(&cut(wanted))
}

fn prefix(text: &str, chars: usize) -> &str {
    text.char_indices()
        .nth(chars)
        .map_or(text, |(at, _)| &text[..at])
}

/// The extent a directory record points to.
fn record(raw: &[u8]) -> Option<Extent> {
    let sector = u32_le(raw.get(2..6)?);
    let length = u32_le(raw.get(10..14)?);
    let flags = *raw.get(25)?;
    Some(Extent {
        offset: u64::from(sector) * SECTOR,
        length: u64::from(length),
        is_dir: flags & 2 != 0,
    })
}

fn u32_le(bytes: &[u8]) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[..4]);
    u32::from_le_bytes(word)
}

/// Reads exactly `buf.len()` bytes at `offset`, naming `area` when the image ends first.
pub fn read_at<R: Read + Seek>(
    reader: &mut R,
    offset: u64,
    buf: &mut [u8],
    file: &str,
    area: &str,
) -> Result<()> {
    reader
        .seek(SeekFrom::Start(offset))
        .and_then(|_| reader.read_exact(buf))
        .map_err(|e| {
            fault(
                file,
                area,
                format!("cannot read {} bytes at offset {offset}: {e}", buf.len()),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_whole_or_cut_to_eight_dot_three() {
        assert!(names_match(&iso_name(b"IGNINFO.JSO;1"), "igninfo.json"));
        assert!(names_match(&iso_name(b"FEATURES.JSO;1"), "features.json"));
        assert!(names_match(&iso_name(b"ISOLINUX"), "isolinux"));
        assert!(names_match(&iso_name(b"ignition.img"), "ignition.img"));
        assert!(names_match(&iso_name(b"README.;1"), "readme"));
        assert!(!names_match(&iso_name(b"KARGS.JSO;1"), "igninfo.json"));
        assert!(!names_match(&iso_name(b"IGNINFO.JS;1"), "igninfo.json"));
    }

    #[test]
    fn a_record_cut_short_is_no_extent() {
        assert_eq!(record(&[0u8; 20]), None);
        let mut raw = [0u8; 34];
        raw[2..6].copy_from_slice(&3u32.to_le_bytes());
        raw[10..14].copy_from_slice(&10u32.to_le_bytes());
        raw[25] = 2;
        let extent = record(&raw).unwrap();
        assert_eq!(
            (extent.offset, extent.length, extent.is_dir),
            (3 * SECTOR, 10, true)
        );
    }
}
