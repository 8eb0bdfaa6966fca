//! The fields of a Kubernetes object's metadata that an install-config may hold beside the
//! cluster's name, labels and annotations (`namespace`, `uid`, `creationTimestamp`, ...). The
//! installer reads them as its `ObjectMeta` type and copies them into the cluster's stored
//! install-config; nothing else reads them. bootgen keeps them the same way, as the installer's
//! JSON reading types them: a scalar written for a text field is its text, a timestamp is
//! RFC 3339 and is stored in UTC to the second.
//!
//! Two fields are refused instead: `ownerReferences` and `managedFields` are structures the API
//! server keeps about a stored object, which no install-config has reason to hold.

use serde::{Deserialize, Deserializer};
use serde_yaml_ng::Value;
use time::format_description::well_known::Rfc3339;

/// The object metadata bootgen refuses, with why.
const REFUSED: [(&str, &str); 2] = [
    (
        "ownerReferences",
        "the objects that own a stored object, which the API server keeps",
    ),
    (
        "managedFields",
        "the record of which client set each field of a stored object, which the API server keeps",
    ),
];

/// The refusal of `metadata.ownerReferences` or `metadata.managedFields` (or a key below one),
/// when `dotted` is one.
pub(super) fn refusal(dotted: &str) -> Option<String> {
    let mut parts = dotted.split('.');
    if parts.next() != Some("metadata") {
        return None;
    }
    let key = parts.next()?;
    let (_, what) = REFUSED.iter().find(|(name, _)| *name == key)?;
    Some(format!(
        "{what}: an install-config is no such object (the installer would only copy it into the cluster's stored install-config); remove it"
    ))
}

/// The text fields, read by `text`.
const TEXTS: [&str; 5] = [
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
];

/// The timestamps, read by `timestamp`.
const TIMESTAMPS: [&str; 2] = ["creationTimestamp", "deletionTimestamp"];

/// The whole-number fields.
const NUMBERS: [&str; 2] = ["generation", "deletionGracePeriodSeconds"];

/// The first of these fields whose value is refused, as its dotted path
/// (`metadata.creationTimestamp`) and the reason: checked on the document before it is read,
/// because the typed reading names only `metadata` for a value its readers below refuse.
pub(super) fn first_refused(document: &Value) -> Option<(String, String)> {
    let metadata = document.get("metadata")?;
    let field = |key: &str| format!("metadata.{key}");
    for key in TEXTS {
        if let Some(Err(why)) = metadata.get(key).map(scalar_text) {
            return Some((field(key), why));
        }
    }
    for key in NUMBERS {
        match metadata.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Number(n)) if n.is_i64() => {}
            Some(other) => {
                let written = serde_yaml_ng::to_string(other).unwrap_or_default();
                return Some((
                    field(key),
                    format!(
                        "`{}` is not a whole number",
                        written.trim_end().escape_debug()
                    ),
                ));
            }
        }
    }
    for key in TIMESTAMPS {
        match metadata.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(written)) => {
                if let Err(why) = stored_timestamp(written) {
                    return Some((field(key), why));
                }
            }
            Some(_) => {
                return Some((
                    field(key),
                    "expected a timestamp such as 2024-03-01T10:20:30Z".into(),
                ))
            }
        }
    }
    match metadata.get("finalizers") {
        None | Some(Value::Null) => {}
        Some(Value::Sequence(list)) => {
            for (i, value) in list.iter().enumerate() {
                if let Err(why) = scalar_text(value) {
                    return Some((format!("metadata.finalizers.{i}"), why));
                }
            }
        }
        Some(_) => return Some((field("finalizers"), "expected a list of strings".into())),
    }
    None
}

/// A text field, a scalar taken as its text (`resourceVersion: 42` is "42"); null or empty is
/// none, as the installer leaves an empty field out.
pub(super) fn text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    scalar_text(&value)
        .map(|t| Some(t).filter(|t| !t.is_empty()))
        .map_err(serde::de::Error::custom)
}

/// A list of texts (`finalizers`); null is an empty list.
pub(super) fn texts<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    let list: Option<Vec<Value>> = Option::deserialize(deserializer)?;
    list.unwrap_or_default()
        .iter()
        .map(scalar_text)
        .collect::<Result<_, _>>()
        .map_err(serde::de::Error::custom)
}

/// A timestamp (`2024-03-01T10:20:30+02:00`) as the cluster stores it
/// (`2024-03-01T08:20:30Z`: UTC, the fraction of a second dropped); null is none.
pub(super) fn timestamp<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    let Some(written) = Option::<String>::deserialize(deserializer)? else {
        return Ok(None);
    };
    stored_timestamp(&written)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// The stored form of an RFC 3339 timestamp, or why it is not one.
fn stored_timestamp(written: &str) -> Result<String, String> {
    let bad = || {
        format!(
            "`{}` is not an RFC 3339 timestamp such as 2024-03-01T10:20:30Z",
            written.escape_debug()
        )
    };
    let parsed = time::OffsetDateTime::parse(written, &Rfc3339).map_err(|_| bad())?;
    parsed
        .to_offset(time::UtcOffset::UTC)
        .replace_nanosecond(0)
        .map_err(|_| bad())?
        .format(&Rfc3339)
        .map_err(|_| bad())
}

/// A scalar's text, as `metadata.labels` takes it; a list or a map is refused.
fn scalar_text(value: &Value) -> Result<String, String> {
    match value {
        Value::Sequence(_) | Value::Mapping(_) => {
            Err("expected a string, found a list or a map".to_string())
        }
        _ => super::string_map::text_of(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse;

    fn config(metadata: &str) -> String {
        format!("apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: demo\n{metadata}platform:\n  none: {{}}\npullSecret: '{{\"auths\":{{}}}}'\n")
    }

    #[test]
    fn object_metadata_is_read_as_the_installer_types_it() {
        let loaded = parse(
            &config("  namespace: default\n  uid: 1234-abcd\n  resourceVersion: 42\n  generation: 7\n  generateName: demo-\n  selfLink: /api/v1/x\n  finalizers:\n  - a.example.com/f\n  - 3\n  deletionGracePeriodSeconds: 30\n  creationTimestamp: \"2024-03-01T01:20:30.75+02:00\"\n  deletionTimestamp: 2024-03-02T10:20:30Z\n"),
            "install-config.yaml",
        )
        .unwrap();
        let m = &loaded.config.metadata;
        assert_eq!(m.namespace.as_deref(), Some("default"));
        assert_eq!(m.uid.as_deref(), Some("1234-abcd"));
        assert_eq!(m.resource_version.as_deref(), Some("42"));
        assert_eq!(m.generation, Some(7));
        assert_eq!(m.generate_name.as_deref(), Some("demo-"));
        assert_eq!(m.self_link.as_deref(), Some("/api/v1/x"));
        assert_eq!(m.finalizers, ["a.example.com/f", "3"]);
        assert_eq!(m.deletion_grace_period_seconds, Some(30));
        // The day before in UTC, the fraction gone.
        assert_eq!(
            m.creation_timestamp.as_deref(),
            Some("2024-02-29T23:20:30Z")
        );
        assert_eq!(
            m.deletion_timestamp.as_deref(),
            Some("2024-03-02T10:20:30Z")
        );
    }

    #[test]
    fn null_and_empty_fields_are_left_out() {
        let loaded = parse(
            &config(
                "  creationTimestamp: null\n  namespace: \"\"\n  uid: null\n  finalizers: null\n",
            ),
            "install-config.yaml",
        )
        .unwrap();
        let m = &loaded.config.metadata;
        assert_eq!(m.creation_timestamp, None);
        assert_eq!(m.namespace, None);
        assert_eq!(m.uid, None);
        assert!(m.finalizers.is_empty());
    }

    #[test]
    fn a_bad_value_is_refused_naming_its_field() {
        for (written, field, said) in [
            (
                "  creationTimestamp: yesterday\n",
                "metadata.creationTimestamp",
                "`yesterday` is not an RFC 3339 timestamp",
            ),
            (
                "  deletionTimestamp: \"2024-03-01\"\n",
                "metadata.deletionTimestamp",
                "not an RFC 3339 timestamp",
            ),
            (
                "  generation: seven\n",
                "metadata.generation",
                "`seven` is not a whole number",
            ),
            (
                "  deletionGracePeriodSeconds: 1.5\n",
                "metadata.deletionGracePeriodSeconds",
                "`1.5` is not a whole number",
            ),
            (
                "  namespace: [a]\n",
                "metadata.namespace",
                "expected a string",
            ),
            ("  uid: 1.5\n", "metadata.uid", "quote the value"),
        ] {
            let err = parse(&config(written), "install-config.yaml")
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(field) && err.contains(said),
                "{written}: {err}"
            );
        }
    }

    #[test]
    fn structures_the_api_server_keeps_are_refused_with_why() {
        for key in ["ownerReferences", "managedFields"] {
            let err = parse(
                &config(&format!("  {key}:\n  - apiVersion: v1\n")),
                "install-config.yaml",
            )
            .unwrap_err()
            .to_string();
            assert!(
                err.contains(&format!("metadata.{key}"))
                    && err.contains("which the API server keeps")
                    && err.contains("remove it"),
                "{err}"
            );
        }
        assert_eq!(refusal("metadata.name"), None);
        assert_eq!(refusal("ownerReferences"), None);
    }
}
