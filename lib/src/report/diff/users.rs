//! Users matched by name (one without a name named by its place): SSH keys added or removed (summarized), password hashes changed
//! (as a short digest, never the hash), any other field changed.

use super::entries::{entry_name, Differ};
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
        let (a, b) = (by_name(a), by_name(b));
        let names: BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
        let named = |name: &str, i: usize| entry_name(name, "$.passwd.users", i);
        for name in names {
            match (a.get(name), b.get(name)) {
                (None, Some((i, u))) => self.push(
                    ChangeKind::Added,
                    "user",
                    &named(name, *i),
                    vec![format!("{} SSH key(s)", u.ssh_authorized_keys.len())],
                    None,
                ),
                (Some((i, u)), None) => self.push(
                    ChangeKind::Removed,
                    "user",
                    &named(name, *i),
                    vec![format!("{} SSH key(s)", u.ssh_authorized_keys.len())],
                    None,
                ),
                (Some((i, x)), Some((j, y))) => {
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
                    let (user_a, user_b) = (user_entry(raw_a, *i), user_entry(raw_b, *j));
                    let hash = |user: Option<&Value>| user?.get("passwordHash").cloned();
                    let (hash_a, hash_b) = (hash(user_a), hash(user_b));
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
                    for field in changed_keys(&other_fields(user_a), &other_fields(user_b)) {
                        details.push(format!("{field} changed"));
                    }
                    if !details.is_empty() {
                        self.push(ChangeKind::Changed, "user", &named(name, *j), details, None);
                    }
                }
                (None, None) => {}
            }
        }
    }
}

/// Users by name (Ignition's key), each with its index in the list.
fn by_name(users: &[DecodedUser]) -> BTreeMap<&str, (usize, &DecodedUser)> {
    users
        .iter()
        .enumerate()
        .map(|(i, u)| (u.name.as_str(), (i, u)))
        .collect()
}

/// User `index` of config `raw`, as written.
fn user_entry(raw: &Value, index: usize) -> Option<&Value> {
    raw.pointer("/passwd/users")?.as_array()?.get(index)
}

fn other_fields(user: Option<&Value>) -> BTreeMap<String, Value> {
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
