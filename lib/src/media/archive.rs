//! The archive the live initrd unpacks: a newc cpio of the members, xz-compressed with a CRC32
//! check (the kernel's xz decoder knows no other), as coreos-installer writes it: parent
//! directories before their files (the kernel makes no directory itself), files mode 0600.
//! Reading it back is bounded: at most [`MAX_UNPACKED`] bytes, and nothing but zeros after the
//! stream.

use std::collections::BTreeMap;
use std::io::{Cursor, Read};

/// The most an embedded archive may unpack to; a larger one is refused, not read.
pub const MAX_UNPACKED: u64 = 64 * 1024 * 1024;

/// The most memory the xz decoder may take: preset 9's 64 MiB dictionary (what
/// coreos-installer compresses with) and its overhead, not the 1.5 GiB a hostile header may ask.
const MAX_XZ_MEMORY: u64 = 96 * 1024 * 1024;

/// The files of an archive by path (`config.ign`, `etc/coreos-firstboot-network/eth0.nmconnection`).
pub type Members = BTreeMap<String, Vec<u8>>;

/// How hard xz works: the preset, and whether to spend more time for a smaller archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effort {
    /// Preset 9, as coreos-installer compresses.
    Preset9,
    /// Preset 9 extreme: slower, a few percent smaller, tried when preset 9 does not fit.
    Extreme,
}

/// The members as an xz-compressed newc cpio archive.
pub fn pack(members: &Members, effort: Effort) -> std::io::Result<Vec<u8>> {
    let mut entries = Vec::new();
    let mut cwd: Vec<&str> = Vec::new();
    for (path, contents) in members {
        let mut parents: Vec<&str> = path.split('/').collect();
        parents.pop();
        let common = cwd.iter().zip(&parents).take_while(|(a, b)| a == b).count();
        cwd.truncate(common);
        for dir in &parents[common..] {
            cwd.push(dir);
            entries.push((
                cpio::NewcBuilder::new(&cwd.join("/")).mode(0o40_755),
                Cursor::new(&[][..]),
            ));
        }
        entries.push((
            cpio::NewcBuilder::new(path).mode(0o100_600),
            Cursor::new(contents.as_slice()),
        ));
    }
    let unpacked: u64 = members.values().map(|c| c.len() as u64 + 512).sum();
    let encoder = xz_encoder(unpacked, effort)?;
    cpio::write_cpio(entries.into_iter(), encoder)?.finish()
}

/// An xz encoder with preset 9's settings (and CRC32), whose dictionary is no larger than the
/// input needs: the archive is the same, without preset 9's 674 MiB of encoder memory.
fn xz_encoder(
    unpacked: u64,
    effort: Effort,
) -> std::io::Result<liblzma::write::XzEncoder<Vec<u8>>> {
    let preset = match effort {
        Effort::Preset9 => 9,
        Effort::Extreme => 9 | liblzma::stream::PRESET_EXTREME,
    };
    let mut options = liblzma::stream::LzmaOptions::new_preset(preset)?;
    let window = (unpacked + 4096).next_power_of_two().min(64 * 1024 * 1024);
    options.dict_size(window as u32);
    let mut filters = liblzma::stream::Filters::new();
    filters.lzma2(&options);
    let stream =
        liblzma::stream::Stream::new_stream_encoder(&filters, liblzma::stream::Check::Crc32)?;
    Ok(liblzma::write::XzEncoder::new_stream(Vec::new(), stream))
}

/// Why an archive cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable(pub String);

/// The regular files of the archive at the start of `bytes` (an xz-compressed or plain newc
/// cpio), which must be followed by zeros only. All zeros is an empty area: no members.
pub fn unpack(bytes: &[u8]) -> Result<Members, Unreadable> {
    let end = bytes.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
    if end == 0 {
        return Ok(Members::new());
    }
    if bytes.starts_with(b"\xfd7zXZ\0") {
        let stream = liblzma::stream::Stream::new_stream_decoder(MAX_XZ_MEMORY, 0)
            .map_err(|e| Unreadable(format!("cannot start xz: {e}")))?;
        let mut decoder = liblzma::read::XzDecoder::new_stream(&bytes[..end], stream);
        let mut cpio = Vec::new();
        (&mut decoder)
            .take(MAX_UNPACKED + 1)
            .read_to_end(&mut cpio)
            .map_err(|e| Unreadable(format!("its xz stream is damaged: {e}")))?;
        if cpio.len() as u64 > MAX_UNPACKED {
            return Err(Unreadable(format!(
                "it unpacks to more than {MAX_UNPACKED} bytes"
            )));
        }
        let used = decoder.total_in() as usize;
        if bytes[used..end].iter().any(|b| *b != 0) {
            return Err(Unreadable("it holds data after its xz stream".to_string()));
        }
        read_cpio(&cpio)
    } else if bytes.starts_with(b"070701") {
        read_cpio(&bytes[..end])
    } else {
        Err(Unreadable(
            "it is neither zeros nor an xz-compressed cpio archive".to_string(),
        ))
    }
}

/// The regular files of a newc cpio archive; the last copy of a path wins, as in the kernel.
fn read_cpio(mut bytes: &[u8]) -> Result<Members, Unreadable> {
    let mut members = Members::new();
    loop {
        let reader = cpio::NewcReader::new(bytes)
            .map_err(|e| Unreadable(format!("its cpio archive is damaged: {e}")))?;
        let entry = reader.entry();
        if entry.is_trailer() {
            return Ok(members);
        }
        let name = entry.name().to_string();
        let size = u64::from(entry.file_size());
        if size > bytes.len() as u64 {
            return Err(Unreadable(format!(
                "its member {name} claims {size} bytes, more than the archive holds"
            )));
        }
        let regular = entry.mode() & 0o170_000 == 0o100_000;
        let mut reader = reader;
        let mut contents = Vec::new();
        reader
            .read_to_end(&mut contents)
            .map_err(|e| Unreadable(format!("its member {name} is cut short: {e}")))?;
        bytes = reader
            .finish()
            .map_err(|e| Unreadable(format!("its member {name} is cut short: {e}")))?;
        if regular {
            members.insert(name, contents);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_round_trip_with_their_directories() {
        let mut members = Members::new();
        members.insert("config.ign".into(), b"{}".to_vec());
        members.insert(
            "etc/coreos-firstboot-network/a.nmconnection".into(),
            b"x".to_vec(),
        );
        let packed = pack(&members, Effort::Preset9).unwrap();
        assert!(packed.starts_with(b"\xfd7zXZ\0"));
        let mut padded = packed.clone();
        padded.resize(packed.len() + 100, 0);
        assert_eq!(unpack(&padded).unwrap(), members);
    }

    #[test]
    fn garbage_after_the_stream_and_damage_are_refused() {
        let mut members = Members::new();
        members.insert("config.ign".into(), b"{}".to_vec());
        let mut packed = pack(&members, Effort::Preset9).unwrap();
        packed.push(1);
        assert!(unpack(&packed)
            .unwrap_err()
            .0
            .contains("after its xz stream"));
        let mut damaged = pack(&members, Effort::Preset9).unwrap();
        let middle = damaged.len() / 2;
        damaged[middle] ^= 0xff;
        assert!(unpack(&damaged).is_err());
        assert!(unpack(b"hello").is_err());
        assert!(unpack(&[0; 64]).unwrap().is_empty());
    }
}
