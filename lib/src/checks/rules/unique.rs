//! Entries Ignition keys by one field, each key given once: disks and filesystems by device,
//! RAID arrays and LUKS volumes by name, certificate authorities and merged configs by source.
//! Ignition refuses a second entry of a key ("duplicate entry defined").

use super::{list, str_at, Rules};
use crate::checks::problem::Check;
use std::collections::BTreeMap;

/// Each list (a JSON pointer into the config, its JSON path) with the field that keys it, and
/// the first spec minor that has the list.
const KEYED: &[(&str, &str, &str, u32)] = &[
    ("/storage/disks", "$.storage.disks", "device", 0),
    ("/storage/filesystems", "$.storage.filesystems", "device", 0),
    ("/storage/raid", "$.storage.raid", "name", 0),
    ("/storage/luks", "$.storage.luks", "name", 2),
    (
        "/ignition/security/tls/certificateAuthorities",
        "$.ignition.security.tls.certificateAuthorities",
        "source",
        0,
    ),
    (
        "/ignition/config/merge",
        "$.ignition.config.merge",
        "source",
        0,
    ),
];

impl Rules {
    /// Records entry `i`'s `key` in `seen`; an error (`rule` at `at`, `message` given the first
    /// entry's index) when an earlier entry has it.
    pub(super) fn once<K: Ord>(
        &mut self,
        seen: &mut BTreeMap<K, usize>,
        key: K,
        i: usize,
        (rule, at): (&'static str, String),
        message: impl FnOnce(usize) -> String,
    ) {
        if let Some(first) = seen.insert(key, i) {
            self.error(Check::Ignition, rule, at, message(first));
        }
    }

    /// Every keyed list's entries, each key once.
    pub(super) fn unique_entries(&mut self, config: &serde_json::Value) {
        for (pointer, at, key, since) in KEYED {
            if self.minor < *since {
                continue;
            }
            let mut seen = BTreeMap::new();
            for (i, entry) in list(config, pointer).iter().enumerate() {
                // A RAID array without a name is keyed by the empty one, so two of them
                // collide; any other empty key has an error of its own.
                let raid = *pointer == "/storage/raid";
                let value = match str_at(entry, key) {
                    None if raid => "",
                    Some(v) if raid || !v.is_empty() => v,
                    _ => continue,
                };
                self.once(
                    &mut seen,
                    value,
                    i,
                    ("duplicate", format!("{at}[{i}]")),
                    |first| match value {
                        "" => format!("duplicate entry defined: {at}[{first}] has no {key} either"),
                        _ => format!(
                            "duplicate entry defined: {key} `{value}` is also {at}[{first}]"
                        ),
                    },
                );
            }
        }
    }
}
