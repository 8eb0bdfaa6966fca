//! The live-ISO size estimate of an output directory's boot config, remembered beside it. The
//! estimate (xz at preset 9) took two thirds of a re-run with an existing PKI, and a re-run
//! writes the same config: keyed by the config's SHA-256, the estimate is read back instead of
//! compressed again, and it is the same number.

use super::OutputFile;
use crate::report::{xz_cpio_size, XZ_ESTIMATE_LIMIT};
use sha2::{Digest, Sha256};
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
    let key = format!("{METHOD} sha256:{:x}", Sha256::digest(config));
    let remembered = std::fs::read_to_string(dir.join(ISO_ESTIMATE_FILE))
        .ok()
        .and_then(|text| read_back(&text, &key));
    let estimate = match remembered {
        Some(estimate) => estimate,
        None => (config.len() as u64 <= XZ_ESTIMATE_LIMIT).then(|| xz_cpio_size(config)),
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

    #[test]
    fn a_config_too_large_to_estimate_is_recorded_as_such() {
        let key = "xz-cpio-1 sha256:00";
        assert_eq!(read_back(&format!("# x\n{key} none\n"), key), Some(None));
        assert_eq!(read_back(&format!("{key} 77\n"), key), Some(Some(77)));
        assert_eq!(read_back(&format!("{key}0 77\n"), key), None);
        assert_eq!(read_back("", key), None);
    }
}
