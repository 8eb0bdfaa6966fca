//! registries.conf from the entries, merged as the installer merges them
//! (`MergedMirrorSets`): one table per source (per source and `sourcePolicy` where the release
//! reads the field), first-seen order, each mirror once, tables left without mirrors dropped.
//! An entry whose policy the release ignores carries none, so one rule serves every release.

use super::entry::{Mirror, MirrorEntry, Registry, SourceContact};

/// A registries.conf table and the index of the first entry it was merged from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Merged {
    /// The table.
    pub registry: Registry,
    /// The entry that opened it (for messages naming the install-config's field).
    pub first_entry: usize,
}

/// The registries.conf tables of `entries`, each with the entry that opened it.
pub(crate) fn merge_entries(entries: &[MirrorEntry]) -> Vec<Merged> {
    let mut keys: Vec<(&str, Option<SourceContact>)> = Vec::new();
    let mut merged: Vec<Merged> = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let key = (entry.source.as_str(), entry.source_policy);
        let at = match keys.iter().position(|k| *k == key) {
            Some(at) => at,
            None => {
                keys.push(key);
                merged.push(Merged {
                    registry: Registry {
                        location: entry.source.clone(),
                        insecure: false,
                        blocked: entry.source_policy == Some(SourceContact::Never),
                        mirror_by_digest_only: true,
                        mirrors: Vec::new(),
                    },
                    first_entry: index,
                });
                merged.len() - 1
            }
        };
        let mirrors = &mut merged[at].registry.mirrors;
        for location in &entry.mirrors {
            if !mirrors.iter().any(|m| &m.location == location) {
                mirrors.push(Mirror {
                    location: location.clone(),
                    insecure: false,
                });
            }
        }
    }
    merged.retain(|m| !m.registry.mirrors.is_empty());
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(source: &str, mirrors: &[&str], policy: Option<SourceContact>) -> MirrorEntry {
        MirrorEntry {
            source: source.into(),
            mirrors: mirrors.iter().map(|m| m.to_string()).collect(),
            source_policy: policy,
        }
    }

    fn view(registries: &[Registry]) -> Vec<(&str, bool, Vec<&str>)> {
        registries
            .iter()
            .map(|r| {
                let mirrors = r.mirrors.iter().map(|m| m.location.as_str()).collect();
                (r.location.as_str(), r.blocked, mirrors)
            })
            .collect()
    }

    #[test]
    fn one_table_per_source_in_first_seen_order_each_mirror_once() {
        let entries = [
            entry("a.io/x", &["m1/x", "m1/x"], None),
            entry("b.io/y", &[], None),
            entry("c.io/z", &["m/z"], None),
            entry("a.io/x", &["m2/x", "m1/x"], None),
        ];
        assert_eq!(
            view(
                &merge_entries(&entries)
                    .into_iter()
                    .map(|m| m.registry)
                    .collect::<Vec<_>>()
            ),
            [
                ("a.io/x", false, vec!["m1/x", "m2/x"]),
                ("c.io/z", false, vec!["m/z"]),
            ]
        );
    }

    /// Where the release reads sourcePolicy, a source given with two policies gets two tables
    /// (as the installer writes them), each blocked by its own policy.
    #[test]
    fn each_policy_of_a_source_gets_its_own_table() {
        let entries = [
            entry("a.io/x", &["m1/x"], Some(SourceContact::Never)),
            entry("a.io/x", &["m2/x"], None),
            entry("a.io/x", &["m3/x"], Some(SourceContact::Never)),
            entry("a.io/x", &["m4/x"], Some(SourceContact::Allowed)),
        ];
        let merged = merge_entries(&entries);
        assert_eq!(
            view(
                &merged
                    .iter()
                    .map(|m| m.registry.clone())
                    .collect::<Vec<_>>()
            ),
            [
                ("a.io/x", true, vec!["m1/x", "m3/x"]),
                ("a.io/x", false, vec!["m2/x"]),
                ("a.io/x", false, vec!["m4/x"]),
            ]
        );
        let firsts: Vec<usize> = merged.iter().map(|m| m.first_entry).collect();
        assert_eq!(firsts, [0, 1, 3]);
    }
}
