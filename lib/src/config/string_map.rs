//! `metadata.labels` and `metadata.annotations`: Kubernetes maps of string to string. The
//! installer reads YAML by turning it into JSON for the map's type, so a scalar value becomes
//! the string the map holds (`1` is stored as "1", `true` as "true", null as ""), and a list or
//! a map is refused; bootgen reads them the same way, but refuses a number with a fraction too.

use serde::{Deserialize, Deserializer};
use serde_yaml_ng::Value;
use std::collections::BTreeMap;

/// The maps of string to string under `metadata`.
const MAPS: [&str; 2] = ["labels", "annotations"];

/// The string the installer stores for one value of such a map, or why bootgen refuses it.
pub(super) fn text_of(value: &Value) -> Result<String, String> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Ok(String::new()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Ok(n.to_string()),
        // The installer stores it as Go spells the number (`1.50` as "1.5", `1e21` as
        // "1e+21"): not what was written.
        Value::Number(n) => Err(format!(
            "the number {n} is not a string, and the installer would store Go's spelling of it rather than what is written: quote the value"
        )),
        Value::Sequence(_) => Err("a list, not a string: each value is one string (the installer refuses a list too)".into()),
        Value::Mapping(_) => Err("a map, not a string: each value is one string (the installer refuses a map too)".into()),
        Value::Tagged(_) => Err("a tagged value, not a string: each value is one string".into()),
    }
}

/// The first value of `metadata.labels` or `metadata.annotations` that is refused, as its
/// dotted field path (`metadata.labels.tier`) and the reason.
pub(super) fn first_refused(document: &Value) -> Option<(String, String)> {
    let metadata = document.get("metadata")?;
    for name in MAPS {
        let field = format!("metadata.{name}");
        match metadata.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::Mapping(map)) => {
                for (key, value) in map {
                    if let Err(why) = text_of(value) {
                        let key = text_of(key).unwrap_or_else(|_| format!("{key:?}"));
                        return Some((format!("{field}.{key}"), why));
                    }
                }
            }
            Some(_) => {
                return Some((
                    field,
                    "expected a map of names to string values".to_string(),
                ))
            }
        }
    }
    None
}

/// Reads such a map as the installer does; null (or nothing) is an empty map.
pub(super) fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<BTreeMap<String, String>, D::Error> {
    let map: Option<BTreeMap<String, Value>> = Option::deserialize(deserializer)?;
    map.unwrap_or_default()
        .into_iter()
        .map(|(key, value)| {
            let text =
                text_of(&value).map_err(|why| serde::de::Error::custom(format!("{key}: {why}")))?;
            Ok((key, text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Debug)]
    struct Meta {
        #[serde(default, deserialize_with = "deserialize")]
        labels: BTreeMap<String, String>,
    }

    fn read(text: &str) -> Result<BTreeMap<String, String>, String> {
        serde_yaml_ng::from_str::<Meta>(text)
            .map(|m| m.labels)
            .map_err(|e| e.to_string())
    }

    fn refused(text: &str) -> Option<(String, String)> {
        first_refused(&serde_yaml_ng::from_str(text).unwrap())
    }

    #[test]
    fn scalars_become_the_strings_the_installer_stores() {
        let labels =
            read("labels:\n  a: 1\n  b: true\n  c: \"x\"\n  d: null\n  e: -3\n  1: key\n").unwrap();
        let got: Vec<(&str, &str)> = labels
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("1", "key"),
                ("a", "1"),
                ("b", "true"),
                ("c", "x"),
                ("d", ""),
                ("e", "-3")
            ]
        );
        assert!(read("labels:\n").unwrap().is_empty());
        assert!(read("{}").unwrap().is_empty());
        let good = "metadata:\n  labels:\n    a: 1\n  annotations:\n    b: x\n";
        assert_eq!(refused(good), None);
    }

    #[test]
    fn lists_maps_and_fractions_are_refused_naming_the_key() {
        for (value, said) in [
            ("[1]", "a list, not a string"),
            ("{b: c}", "a map, not a string"),
            ("1.5", "the number 1.5 is not a string"),
        ] {
            for map in MAPS {
                let text =
                    format!("metadata:\n  name: x\n  {map}:\n    ok: y\n    tier: {value}\n");
                let (field, why) = refused(&text).unwrap();
                assert_eq!(field, format!("metadata.{map}.tier"));
                assert!(why.contains(said), "{why}");
            }
            let err = read(&format!("labels:\n  tier: {value}\n")).unwrap_err();
            assert!(err.contains("tier: ") && err.contains(said), "{err}");
        }
        let (field, _) = refused("metadata:\n  labels: [a]\n").unwrap();
        assert_eq!(field, "metadata.labels");
    }
}
