//! The record of the keys bootgen has checked: `verified-keys.sha256` in a tls directory, one
//! `<SHA-256>  <file>` line per private key file (the format `sha256sum -c` reads), written
//! with the PKI.
//!
//! Every key in a finished PKI was generated, imported with aws-lc's checks, or read from bytes
//! this record vouched for, so the record written with it vouches for all of its keys. A key
//! file whose bytes are the ones recorded under its name is read without importing it (see
//! `keys.rs`); a missing, unreadable or stale record, or a line that does not parse, only means
//! the full check for the keys it does not vouch for. The record is no authority to sign:
//! a key is imported with every check before it signs, whatever the record says.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use aws_lc_rs::digest;

/// The record's file name in a tls directory.
pub(crate) const VERIFIED_KEYS_FILE: &str = "verified-keys.sha256";

/// The digests a tls directory's record holds, by key file name.
#[derive(Debug, Default)]
pub(crate) struct KeyRecord {
    digests: BTreeMap<String, String>,
}

impl KeyRecord {
    /// The record of `dir`, or an empty one (every key gets the full check).
    pub(crate) fn read(dir: Option<&Path>) -> KeyRecord {
        // A record that cannot be read as the running user's own vouches for nothing: every key
        // is then imported with every check.
        let text = dir
            .and_then(|dir| {
                crate::ownership::read_own_file(&dir.join(VERIFIED_KEYS_FILE), 1 << 20).ok()
            })
            .flatten()
            .and_then(|bytes| String::from_utf8(bytes).ok());
        let digests = text
            .iter()
            .flat_map(|text| text.lines())
            .filter_map(|line| line.split_once("  "))
            .filter(|(digest, _)| digest.len() == 64)
            .map(|(digest, name)| (name.to_string(), digest.to_string()))
            .collect();
        KeyRecord { digests }
    }

    /// The digest the record holds for the file `name` when `bytes` are what it recorded:
    /// the file's SHA-256, which the record written again reuses rather than hash it twice.
    pub(crate) fn vouched_digest(&self, name: &str, bytes: &[u8]) -> Option<String> {
        let recorded = self.digests.get(name)?;
        let digest = sha256_hex(bytes);
        (*recorded == digest).then_some(digest)
    }
}

/// One key file for the record: its name, its contents, and their SHA-256 when known already.
pub(crate) struct KeyFile<'a> {
    pub name: &'a str,
    pub contents: &'a [u8],
    pub sha256: Option<&'a str>,
}

/// The record's text for `keys`, sorted by name.
pub(crate) fn record_text<'a>(keys: impl Iterator<Item = KeyFile<'a>>) -> String {
    let mut lines: Vec<(&str, String)> = keys
        .map(|key| {
            let digest = key
                .sha256
                .map_or_else(|| sha256_hex(key.contents), str::to_string);
            (key.name, digest)
        })
        .collect();
    lines.sort();
    lines
        .into_iter()
        .fold(String::new(), |mut text, (name, hex)| {
            let _ = writeln!(text, "{hex}  {name}");
            text
        })
}

fn sha256_hex(bytes: &[u8]) -> String {
    base16ct::lower::encode_string(digest::digest(&digest::SHA256, bytes).as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vouches_only_for_the_bytes_recorded_under_the_name() {
        let key = |name, contents| KeyFile {
            name,
            contents,
            sha256: None,
        };
        let text = record_text([key("b.key", &b"bee"[..]), key("a.key", &b"ay"[..])].into_iter());
        let first = text.lines().next().unwrap();
        assert!(
            first.ends_with("  a.key") && first.len() == 64 + 2 + 5,
            "{text}"
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(VERIFIED_KEYS_FILE),
            format!("garbage\n{text}"),
        )
        .unwrap();
        let record = KeyRecord::read(Some(dir.path()));
        let digest = record.vouched_digest("a.key", b"ay");
        assert!(digest
            .as_ref()
            .is_some_and(|d| first.starts_with(d.as_str())));
        assert_eq!(
            record.vouched_digest("a.key", b"bee"),
            None,
            "another file's bytes"
        );
        assert_eq!(
            record.vouched_digest("c.key", b"ay"),
            None,
            "a name not recorded"
        );
        assert_eq!(KeyRecord::read(None).vouched_digest("a.key", b"ay"), None);
        // A digest known already is written as it is, not computed again.
        let known = record_text(std::iter::once(KeyFile {
            name: "a.key",
            contents: b"",
            sha256: digest.as_deref(),
        }));
        assert_eq!(known.lines().next(), Some(first));
    }
}
