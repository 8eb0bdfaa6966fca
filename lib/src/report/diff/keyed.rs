//! Directories, links and groups matched by path or name, as Ignition keys them: their order
//! does not matter, and a change names the entry and each field that changed.

use super::entries::Differ;
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

/// The entries of one list by key, each with the fields that matter: a field Ignition reads as
/// unset (null, false, an empty object) is left out, so spelling out a default is no change.
fn entries<'a>(
    doc: &'a Value,
    parent: &str,
    list: &str,
    key: &str,
) -> BTreeMap<&'a str, Map<String, Value>> {
    doc.pointer(&format!("{parent}/{list}"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let name = entry.get(key)?.as_str()?;
            let fields = entry
                .as_object()?
                .iter()
                .filter(|(k, v)| k.as_str() != key && !is_unset(v) && !is_default(list, k, v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            Some((name, fields))
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
            for name in names {
                match (a.get(name), b.get(name)) {
                    (None, Some(_)) => self.push(ChangeKind::Added, what, name, vec![], None),
                    (Some(_), None) => self.push(ChangeKind::Removed, what, name, vec![], None),
                    (Some(x), Some(y)) if x != y => {
                        let fields: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                        let details = fields
                            .into_iter()
                            .filter(|f| x.get(*f) != y.get(*f))
                            .map(|f| {
                                format!("{f} {} -> {}", shown(f, x.get(f)), shown(f, y.get(f)))
                            })
                            .collect();
                        self.push(ChangeKind::Changed, what, name, details, None);
                    }
                    _ => {}
                }
            }
        }
    }
}
