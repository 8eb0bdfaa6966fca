//! Directories, links and groups matched by path or name, as Ignition keys them: their order
//! does not matter, and a change names the entry and each field that changed.

use super::entries::{entry_name, Differ};
use super::ChangeKind;
use crate::ignition::redact::Redact;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Each list: its parent (a JSON pointer), its key in the parent, the field that keys an entry,
/// and what an entry is called in the diff.
pub(super) const KEYED: &[(&str, &str, &str, &str)] = &[
    ("/storage", "directories", "path", "directory"),
    ("/storage", "links", "path", "link"),
    ("/passwd", "groups", "name", "group"),
];

/// The entries of one list by key, each with its index and the fields that matter: a field
/// Ignition reads as unset (null, false, an empty object) is left out, so spelling out a
/// default is no change. An entry without its key (a group without a name, or `null`) has the
/// empty one, as Go reads it.
fn entries<'a>(
    doc: &'a Value,
    parent: &str,
    list: &str,
    key: &str,
) -> BTreeMap<&'a str, (usize, Map<String, Value>)> {
    doc.pointer(&format!("{parent}/{list}"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, entry)| {
            let name = entry.get(key).and_then(Value::as_str).unwrap_or_default();
            let fields = entry
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, v)| k.as_str() != key && !is_unset(v) && !is_default(list, k, v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            (name, (i, fields))
        })
        .collect()
}

/// A value Ignition gives the field when it is absent: owner and group root (id 0), and a
/// directory's mode 0755.
fn is_default(list: &str, field: &str, value: &Value) -> bool {
    match field {
        "user" | "group" => {
            value.get("id").and_then(Value::as_i64) == Some(0) && value.get("name").is_none()
        }
        "mode" => list == "directories" && value.as_u64() == Some(0o755),
        _ => false,
    }
}

fn is_unset(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(false) => true,
        Value::Object(o) => o.values().all(is_unset),
        _ => false,
    }
}

/// A field's value for a person: a password hash as a digest, anything else as JSON.
fn shown(field: &str, value: Option<&Value>) -> String {
    match value {
        None => "unset".to_string(),
        Some(Value::String(hash)) if field == "passwordHash" => {
            Redact::WithDigest.shown("password hash", hash.as_bytes())
        }
        Some(v) => Redact::WithDigest.inline(&v.to_string()),
    }
}

impl Differ<'_> {
    pub(super) fn keyed(&mut self, old: &Value, new: &Value) {
        for (parent, list, key, what) in KEYED {
            let (a, b) = (
                entries(old, parent, list, key),
                entries(new, parent, list, key),
            );
            let names: BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
            let at = format!("${}.{list}", parent.replace('/', "."));
            for name in names {
                let named = |i: usize| entry_name(name, &at, i);
                match (a.get(name), b.get(name)) {
                    (None, Some((i, _))) => {
                        self.push(ChangeKind::Added, what, &named(*i), vec![], None)
                    }
                    (Some((i, _)), None) => {
                        self.push(ChangeKind::Removed, what, &named(*i), vec![], None)
                    }
                    (Some((_, x)), Some((j, y))) if x != y => {
                        let fields: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                        let details = fields
                            .into_iter()
                            .filter(|f| x.get(*f) != y.get(*f))
                            .map(|f| {
                                format!("{f} {} -> {}", shown(f, x.get(f)), shown(f, y.get(f)))
                            })
                            .collect();
                        self.push(ChangeKind::Changed, what, &named(*j), details, None);
                    }
                    _ => {}
                }
            }
        }
    }
}
