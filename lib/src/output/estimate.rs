//! The live-ISO size estimate of an output directory's boot config, remembered beside it. The
//! estimate (xz at preset 9) took two thirds of a re-run with an existing PKI, and a re-run
//! writes the same config: keyed by the config's SHA-256, the estimate is read back instead of
//! compressed again, and it is the same number.
//!
//! The key is the config's length and CRC-32, not a cryptographic digest: SHA-256 of a 330 KiB
//! config took some 0.2 ms of a re-run that takes 6, the CRC (with the CPU's carry-less
//! multiply) a tenth of that, and a key that two configs share costs at worst a stale size
//! estimate, never a byte of the output.

use super::{KeptFile, OutputFile};
use crate::report::{xz_cpio_size, XZ_ESTIMATE_LIMIT};
use std::path::Path;

/// The file of the output directory that holds the estimate (left out of packages, as
/// bootgen's other dot files are).
pub const ISO_ESTIMATE_FILE: &str = ".bootgen-iso-estimate";

/// Names the way the estimate is made: an estimate made another way is not reused. Change it
/// whenever `xz_cpio_size` can give another number for the same bytes.
const METHOD: &str = "xz-cpio-1";

/// The live-ISO estimate of `config` (the boot config about to be written into `dir`, as
/// [`xz_cpio_size`] makes it; `None` over [`XZ_ESTIMATE_LIMIT`]), and the [`ISO_ESTIMATE_FILE`]
/// to write with the rest of the output. When `dir` already holds the estimate of the same
/// bytes it is read back, not computed; an unreadable or foreign file is just not reused.
pub fn iso_estimate(dir: &Path, config: &[u8]) -> (Option<u64>, OutputFile) {
    let mut crc = flate2::Crc::new();
    crc.update(config);
    let key = key_of(config.len() as u64, crc.sum());
    estimate_with(dir, key, &mut || Some(config.to_vec()))
}

/// [`iso_estimate`] of a boot config that `dir` already holds (`kept`): its bytes are read back
/// from the file only when no estimate of them is recorded.
pub fn iso_estimate_kept(dir: &Path, kept: &KeptFile) -> (Option<u64>, OutputFile) {
    let key = key_of(kept.measured.len, kept.measured.crc32);
    estimate_with(dir, key, &mut || {
        super::read_no_link(&dir.join(&kept.relative))
            .ok()
            .flatten()
    })
}

/// The estimate recorded for `key` in `dir`, else that of the bytes `config` gives (none when
/// it gives none), and the record to write.
fn estimate_with(
    dir: &Path,
    key: String,
    config: &mut dyn FnMut() -> Option<Vec<u8>>,
) -> (Option<u64>, OutputFile) {
    let remembered = super::read_no_link(&dir.join(ISO_ESTIMATE_FILE))
        .ok()
        .flatten()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| read_back(&text, &key));
    let estimate = match remembered {
        Some(estimate) => estimate,
        None => config()
            .filter(|config| config.len() as u64 <= XZ_ESTIMATE_LIMIT)
            .map(|config| xz_cpio_size(&config)),
    };
    let value = estimate.map_or_else(|| "none".to_string(), |bytes| bytes.to_string());
    let file = OutputFile {
        relative: ISO_ESTIMATE_FILE.to_string(),
        contents: format!(
            "# bootgen: the boot config's size in a live ISO (xz-compressed cpio), reused while the config is the same\n{key} {value}\n"
        )
        .into_bytes(),
        mode: 0o644,
    };
    (estimate, file)
}

/// The record's key for a config of `len` bytes with CRC-32 `crc32`, made by [`METHOD`].
fn key_of(len: u64, crc32: u32) -> String {
    format!("{METHOD} bytes:{len} crc32:{crc32:08x}")
}

/// The estimate recorded for `key` in the file's `text`: `Some(None)` when it was too large to
/// estimate, `None` when the file holds no (readable) record for it.
fn read_back(text: &str, key: &str) -> Option<Option<u64>> {
    let value = text
        .lines()
        .find_map(|line| line.strip_prefix(key)?.strip_prefix(' '))?;
    match value.trim() {
        "none" => Some(None),
        bytes => bytes.parse().ok().map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_is_read_back_only_for_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let config = br#"{"ignition":{"version":"3.2.0"},"storage":{"files":[]}}"#;
        let (first, file) = iso_estimate(dir.path(), config);
        assert_eq!(first, Some(xz_cpio_size(config)));
        assert_eq!(file.relative, ISO_ESTIMATE_FILE);
        // A recorded figure that differs from what xz would give shows that it was read back.
        let text = String::from_utf8(file.contents).unwrap();
        let planted = text.replace(&format!(" {}\n", first.unwrap()), " 12345\n");
        assert_ne!(planted, text);
        std::fs::write(dir.path().join(ISO_ESTIMATE_FILE), &planted).unwrap();
        let (again, rewritten) = iso_estimate(dir.path(), config);
        assert_eq!(again, Some(12345));
        assert_eq!(String::from_utf8(rewritten.contents).unwrap(), planted);
        // Other bytes: computed, not read back.
        let other = br#"{"ignition":{"version":"3.2.0"}}"#;
        assert_eq!(iso_estimate(dir.path(), other).0, Some(xz_cpio_size(other)));
        // A damaged file is not reused.
        let damaged = planted.replace(" 12345\n", " 12x45\n");
        std::fs::write(dir.path().join(ISO_ESTIMATE_FILE), damaged).unwrap();
        assert_eq!(iso_estimate(dir.path(), config).0, first);
    }

    /// The record names the config by its length and CRC-32 (that of `123456789` is the
    /// check value of CRC-32/ISO-HDLC), so a re-run hashes 330 KiB cheaply.
    #[test]
    fn the_record_is_keyed_by_length_and_crc32() {
        let dir = tempfile::tempdir().unwrap();
        let (_, file) = iso_estimate(dir.path(), b"123456789");
        let text = String::from_utf8(file.contents).unwrap();
        assert!(
            text.contains("\nxz-cpio-1 bytes:9 crc32:cbf43926 "),
            "{text}"
        );
    }

    /// A config the directory already holds: the same record as for its bytes, read back when
    /// there, else made from the file.
    #[test]
    fn a_kept_config_is_estimated_as_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let config = br#"{"ignition":{"version":"3.2.0"},"storage":{"files":[]}}"#;
        std::fs::write(dir.path().join("bootstrap.ign"), config).unwrap();
        let mut crc = flate2::Crc::new();
        crc.update(config);
        let kept = KeptFile {
            relative: "bootstrap.ign".into(),
            measured: super::super::Measured {
                len: config.len() as u64,
                crc32: crc.sum(),
            },
        };
        let (from_bytes, record) = iso_estimate(dir.path(), config);
        assert_eq!(
            iso_estimate_kept(dir.path(), &kept),
            (from_bytes, record.clone())
        );
        let text = String::from_utf8(record.contents).unwrap();
        let planted = text.replace(&format!(" {}\n", from_bytes.unwrap()), " 777\n");
        std::fs::write(dir.path().join(ISO_ESTIMATE_FILE), planted).unwrap();
        assert_eq!(iso_estimate_kept(dir.path(), &kept).0, Some(777));
    }

    #[test]
    fn a_config_too_large_to_estimate_is_recorded_as_such() {
        let key = "xz-cpio-1 bytes:2 crc32:00000000";
        assert_eq!(read_back(&format!("# x\n{key} none\n"), key), Some(None));
        assert_eq!(read_back(&format!("{key} 77\n"), key), Some(Some(77)));
        assert_eq!(read_back(&format!("{key}0 77\n"), key), None);
        assert_eq!(read_back("", key), None);
    }
}
