//! Comparing two objects views: every file, unit and user matched by path or name, and inside
//! each structured file every field, so a difference reads as the field an operator would see
//! differently.

use super::{FileObject, ObjectView, UnitObject};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// One difference between two views.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ObjectChange {
    /// `file`, `unit`, `user`, `authority` (a CA the config gives inline) or `fetch` (a config
    /// merged or replacing, a CA by URL).
    pub what: &'static str,
    /// The file's path, the unit's or user's name.
    pub name: String,
    /// The field that differs (`mode`, `enabled`, `Unit.After`, `dropin 10-x.conf`,
    /// `status.apiServerInternalURI`, `spec.overrides[3].name`); empty when the whole entry is
    /// only on one side.
    pub field: String,
    /// The old side's value; None when absent there.
    pub old: Option<Value>,
    /// The new side's value; None when absent there.
    pub new: Option<Value>,
}

/// The differences between two views.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ObjectDiff {
    /// The old side's name.
    pub old: String,
    /// The new side's name.
    pub new: String,
    /// Every difference, files first, then units, users, authorities and what is fetched, each
    /// sorted by name.
    pub changes: Vec<ObjectChange>,
}

impl ObjectDiff {
    /// True when the two views are equal.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

struct Collector<'a> {
    what: &'static str,
    name: &'a str,
    out: &'a mut Vec<ObjectChange>,
}

impl Collector<'_> {
    fn push(&mut self, field: String, old: Option<&Value>, new: Option<&Value>) {
        self.out.push(ObjectChange {
            what: self.what,
            name: self.name.to_string(),
            field,
            old: old.cloned(),
            new: new.cloned(),
        });
    }

    /// Walks two values, recording each leaf (or whole subtree) that differs.
    fn values(&mut self, path: &str, old: Option<&Value>, new: Option<&Value>) {
        match (old, new) {
            (Some(Value::Object(a)), Some(Value::Object(b))) => {
                let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
                for key in keys {
                    self.values(&join(path, key), a.get(key), b.get(key));
                }
            }
            (Some(Value::Array(a)), Some(Value::Array(b))) => self.arrays(path, a, b),
            (a, b) if a != b => self.push(path.to_string(), a, b),
            _ => {}
        }
    }

    /// Lists of named objects (manifests of a multi-document file, overrides, containers)
    /// are matched by name, so an insertion reads as one addition; other lists by position.
    fn arrays(&mut self, path: &str, a: &[Value], b: &[Value]) {
        match (named(a), named(b)) {
            (Some(x), Some(y)) => {
                let names: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                for name in names {
                    let field = format!("{path}[{name}]");
                    self.values(&field, x.get(name).copied(), y.get(name).copied());
                }
            }
            _ if a.len() == b.len() => {
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    self.values(&format!("{path}[{i}]"), Some(x), Some(y));
                }
            }
            _ => self.push(
                path.to_string(),
                Some(&Value::Array(a.to_vec())),
                Some(&Value::Array(b.to_vec())),
            ),
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A list whose items each carry a distinct name: `kind/namespace/name` of a Kubernetes
/// object, else `name`.
fn named(items: &[Value]) -> Option<BTreeMap<String, &Value>> {
    let mut out = BTreeMap::new();
    for item in items {
        let key = item_name(item)?;
        if out.insert(key, item).is_some() {
            return None;
        }
    }
    (!out.is_empty()).then_some(out)
}

fn item_name(item: &Value) -> Option<String> {
    let text = |p: &str| item.pointer(p).and_then(Value::as_str).unwrap_or_default();
    if let Some(name) = item.pointer("/metadata/name").and_then(Value::as_str) {
        return Some(format!(
            "{}/{}/{name}",
            text("/kind"),
            text("/metadata/namespace")
        ));
    }
    let name = item.get("name")?.as_str()?;
    // CVO overrides name an object by kind, group, namespace and name.
    Some(
        [text("/kind"), text("/group"), text("/namespace"), name]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("/"),
    )
}

fn file_value(file: &FileObject) -> Value {
    serde_json::to_value(file).unwrap_or(Value::Null)
}

fn unit_value(unit: &UnitObject) -> Value {
    serde_json::to_value(unit).unwrap_or(Value::Null)
}

fn entries<T>(
    what: &'static str,
    a: &BTreeMap<String, T>,
    b: &BTreeMap<String, T>,
    to_value: impl Fn(&T) -> Value,
    out: &mut Vec<ObjectChange>,
) {
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for name in names {
        let mut collector = Collector { what, name, out };
        match (a.get(name).map(&to_value), b.get(name).map(&to_value)) {
            (Some(x), Some(y)) => collector.values("", Some(&x), Some(&y)),
            (x, y) => collector.push(String::new(), x.as_ref(), y.as_ref()),
        }
    }
}

/// Compares two views, `old_name` and `new_name` naming them in the output.
pub fn diff_objects(
    old: &ObjectView,
    new: &ObjectView,
    old_name: &str,
    new_name: &str,
) -> ObjectDiff {
    let mut changes = Vec::new();
    entries("file", &old.files, &new.files, file_value, &mut changes);
    entries("unit", &old.units, &new.units, unit_value, &mut changes);
    entries(
        "user",
        &old.users,
        &new.users,
        super::UserObject::to_value,
        &mut changes,
    );
    entries(
        "authority",
        &old.authorities,
        &new.authorities,
        |facts| serde_json::to_value(facts).unwrap_or(Value::Null),
        &mut changes,
    );
    entries(
        "fetch",
        &old.fetched,
        &new.fetched,
        |f| serde_json::to_value(f).unwrap_or(Value::Null),
        &mut changes,
    );
    ObjectDiff {
        old: old_name.to_string(),
        new: new_name.to_string(),
        changes,
    }
}

/// A value on one line, shortened: enough to see what differs.
fn short(value: Option<&Value>) -> String {
    let Some(value) = value else {
        return "(absent)".to_string();
    };
    let text = value.to_string();
    if text.chars().count() > 100 {
        let cut: String = text.chars().take(97).collect();
        format!("{cut}...")
    } else {
        text
    }
}

impl fmt::Display for ObjectDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.changes.is_empty() {
            return writeln!(f, "{} and {} have the same objects", self.old, self.new);
        }
        writeln!(f, "--- {}\n+++ {}", self.old, self.new)?;
        for c in &self.changes {
            match (&c.old, &c.new, c.field.is_empty()) {
                (None, Some(_), true) => writeln!(f, "+ {} {}", c.what, c.name)?,
                (Some(_), None, true) => writeln!(f, "- {} {}", c.what, c.name)?,
                _ => writeln!(
                    f,
                    "~ {} {}: {}: {} -> {}",
                    c.what,
                    c.name,
                    c.field,
                    short(c.old.as_ref()),
                    short(c.new.as_ref())
                )?,
            }
        }
        writeln!(f, "{} differences", self.changes.len())
    }
}
