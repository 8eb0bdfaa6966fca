//! A user as the objects view keeps it: the SSH keys it may log in with, counted, and what else
//! decides what it may do (groups such as `wheel`, uid, shell, home, a password being set).

use super::normalize::is_go_empty;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The fields a user has besides these are kept: the name is the view's key, the keys are
/// counted, and a password hash is kept only as set (the view reads the same for every run).
const NOT_KEPT: &[&str] = &["name", "sshAuthorizedKeys", "passwordHash"];

/// One user of the view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UserObject {
    /// A user with SSH keys only: their number (as views made before users had fields hold it).
    Keys(usize),
    /// A user with other fields.
    Account {
        /// The number of SSH keys.
        #[serde(rename = "sshKeys")]
        ssh_keys: usize,
        /// Every other field set, as the config writes it (Go's empty values left out), a
        /// password hash as `<redacted>`.
        #[serde(flatten)]
        fields: Map<String, Value>,
    },
}

impl UserObject {
    /// The user of a `passwd.users` entry.
    pub(super) fn of(raw: &Value) -> UserObject {
        let ssh_keys = raw
            .get("sshAuthorizedKeys")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let mut fields: Map<String, Value> = raw
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(key, value)| !NOT_KEPT.contains(&key.as_str()) && !is_go_empty(value))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        if raw.get("passwordHash").is_some_and(|h| !is_go_empty(h)) {
            fields.insert("passwordHash".into(), Value::from("<redacted>"));
        }
        if fields.is_empty() {
            UserObject::Keys(ssh_keys)
        } else {
            UserObject::Account { ssh_keys, fields }
        }
    }

    /// The user as one object, whichever form it has, so that two are compared field by field.
    pub(super) fn to_value(&self) -> Value {
        let (ssh_keys, fields) = match self {
            UserObject::Keys(n) => (*n, Map::new()),
            UserObject::Account { ssh_keys, fields } => (*ssh_keys, fields.clone()),
        };
        let mut object = fields;
        object.insert("sshKeys".into(), Value::from(ssh_keys));
        Value::Object(object)
    }
}
