//! Users matched by name: SSH keys added or removed (summarized), password hashes changed
//! (as a short digest, never the hash), any other field changed.

use super::entries::Differ;
use super::ChangeKind;
use crate::ignition::redact::Redact;
use crate::ignition::view::summarize_key;
use crate::ignition::DecodedUser;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

impl Differ<'_> {
    pub(super) fn users(
        &mut self,
        a: &[DecodedUser],
        b: &[DecodedUser],
        raw_a: &Value,
        raw_b: &Value,
    ) {
        let a: BTreeMap<&str, &DecodedUser> = a.iter().map(|u| (u.name.as_str(), u)).collect();
        let b: BTreeMap<&str, &DecodedUser> = b.iter().map(|u| (u.name.as_str(), u)).collect();
        let names: BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
        for name in names {
            match (a.get(name), b.get(name)) {
                (None, Some(u)) => self.push(
                    ChangeKind::Added,
                    "user",
                    name,
                    vec![format!("{} SSH key(s)", u.ssh_authorized_keys.len())],
                    None,
                ),
                (Some(u), None) => self.push(
                    ChangeKind::Removed,
                    "user",
                    name,
                    vec![format!("{} SSH key(s)", u.ssh_authorized_keys.len())],
                    None,
                ),
                (Some(x), Some(y)) => {
                    let mut details = Vec::new();
                    for key in y
                        .ssh_authorized_keys
                        .iter()
                        .filter(|k| !x.ssh_authorized_keys.contains(k))
                    {
                        details.push(format!("SSH key added: {}", summarize_key(key)));
                    }
                    for key in x
                        .ssh_authorized_keys
                        .iter()
                        .filter(|k| !y.ssh_authorized_keys.contains(k))
                    {
                        details.push(format!("SSH key removed: {}", summarize_key(key)));
                    }
                    let hash = |raw: &Value| user_field(raw, name, "passwordHash");
                    let (hash_a, hash_b) = (hash(raw_a), hash(raw_b));
                    if hash_a != hash_b {
                        let shown = |hash: Option<Value>| match hash {
                            Some(Value::String(h)) => {
                                Redact::WithDigest.shown("password hash", h.as_bytes())
                            }
                            _ => "unset".to_string(),
                        };
                        details.push(format!(
                            "password hash changed ({} -> {})",
                            shown(hash_a),
                            shown(hash_b)
                        ));
                    }
                    let others = |raw: &Value| user_other_fields(raw, name);
                    for field in changed_keys(&others(raw_a), &others(raw_b)) {
                        details.push(format!("{field} changed"));
                    }
                    if !details.is_empty() {
                        self.push(ChangeKind::Changed, "user", name, details, None);
                    }
                }
                (None, None) => {}
            }
        }
    }
}

fn user_field(raw: &Value, name: &str, field: &str) -> Option<Value> {
    raw.pointer("/passwd/users")?
        .as_array()?
        .iter()
        .find(|u| u.get("name").and_then(Value::as_str) == Some(name))?
        .get(field)
        .cloned()
}

fn user_other_fields(raw: &Value, name: &str) -> BTreeMap<String, Value> {
    let user = raw
        .pointer("/passwd/users")
        .and_then(Value::as_array)
        .and_then(|users| {
            users
                .iter()
                .find(|u| u.get("name").and_then(Value::as_str) == Some(name))
        });
    user.and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .filter(|(k, _)| {
                    !["name", "sshAuthorizedKeys", "passwordHash"].contains(&k.as_str())
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default()
}

fn changed_keys(a: &BTreeMap<String, Value>, b: &BTreeMap<String, Value>) -> Vec<String> {
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect()
}
