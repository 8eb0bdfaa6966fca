//! Entries Ignition keys by one field, each key given once: disks and filesystems by device,
//! RAID arrays, LUKS volumes, users and groups by name, certificate authorities and merged
//! configs by source.
//! Ignition refuses a second entry of a key ("duplicate entry defined"), the empty one too: an
//! entry without the field has it.

use super::volumes::LUKS_SINCE;
use super::{list, str_at, Rules};
use crate::checks::problem::Check;
use std::collections::BTreeMap;

/// Each list (a JSON pointer into the config, its JSON path) with the field that keys it, and
/// the first spec minor that has the list.
const KEYED: &[(&str, &str, &str, u32)] = &[
    ("/storage/disks", "$.storage.disks", "device", 0),
    ("/storage/filesystems", "$.storage.filesystems", "device", 0),
    ("/storage/raid", "$.storage.raid", "name", 0),
    ("/storage/luks", "$.storage.luks", "name", LUKS_SINCE),
    ("/passwd/users", "$.passwd.users", "name", 0),
    ("/passwd/groups", "$.passwd.groups", "name", 0),
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
                // Go reads an absent key as the empty one, and Ignition keys every entry by it:
                // a second entry without one is a duplicate too, whatever else it is refused for.
                let value = str_at(entry, key).unwrap_or_default();
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

#[cfg(test)]
mod tests {
    use super::super::check;
    use crate::ignition::files::FileList;
    use serde_json::{json, Value};

    /// The duplicates of `config` (spec 3.`minor`): each JSON path with its message.
    fn duplicates(config: &Value, minor: u32) -> Vec<(String, String)> {
        check(config, FileList::of(config), minor)
            .unwrap()
            .into_iter()
            .filter(|p| p.rule == "duplicate")
            .map(|p| (p.location.path.unwrap_or_default(), p.message))
            .collect()
    }

    /// As `ignition-validate` judges them: two entries without their key (absent, null or
    /// empty) are a duplicate entry, named at the second and pointing at the first; one alone is
    /// not. Two LUKS volumes, users or groups without a name, and in spec 3.0 two merged configs
    /// without a source, have no other error, so this is what makes such a config invalid.
    #[test]
    fn entries_without_their_key_share_the_empty_one() {
        for (pointer, key, minor) in [
            ("/storage/disks", "device", 2),
            ("/storage/filesystems", "device", 2),
            ("/storage/luks", "name", 2),
            ("/storage/raid", "name", 2),
            ("/passwd/users", "name", 0),
            ("/passwd/groups", "name", 3),
            ("/ignition/security/tls/certificateAuthorities", "source", 2),
            ("/ignition/config/merge", "source", 0),
            ("/ignition/config/merge", "source", 2),
        ] {
            let at = format!("${}", pointer.replace('/', "."));
            let with = |entries: Vec<Value>| {
                let mut config = json!({});
                let mut parent = &mut config;
                for part in pointer.split('/').skip(1) {
                    parent = &mut parent[part];
                }
                *parent = Value::Array(entries);
                config
            };
            let empty = json!({ key: "" });
            for two in [
                vec![json!({}), json!({})],
                vec![empty.clone(), empty.clone()],
                vec![json!({}), empty.clone()],
                vec![json!({ key: null }), json!({})],
            ] {
                assert_eq!(
                    duplicates(&with(two.clone()), minor),
                    [(
                        format!("{at}[1]"),
                        format!("duplicate entry defined: {at}[0] has no {key} either")
                    )],
                    "{two:?} at {at}, 3.{minor}"
                );
            }
            for one in [json!({}), empty] {
                assert!(duplicates(&with(vec![one]), minor).is_empty(), "{at}");
            }
        }
        let luks = json!({"storage": {"luks": [{"device": "/dev/a"}, {"device": "/dev/b"}]}});
        let merge = json!({"ignition": {"config": {"merge": [{}, {}]}}});
        for (config, minor) in [(luks, 2), (merge, 0)] {
            let rules: Vec<_> = check(&config, FileList::of(&config), minor)
                .unwrap()
                .into_iter()
                .map(|p| p.rule)
                .collect();
            assert_eq!(rules, ["duplicate"], "{config}");
        }
    }
}
