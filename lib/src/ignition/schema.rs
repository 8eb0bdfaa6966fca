//! The schema check with the types of `ignition-config` and its unknown-key detection
//! ([`parse_typed`]: its error with the key given twice, when that is the fault); and that check
//! of a split config a part at a time: the config without its file list (the skeleton), then
//! each file entry on its own, so no typed tree of the whole config is ever built.

use ignition_config::{Config, Warning};
use serde_json::value::RawValue;
use std::fmt;

/// Why a config does not fit its version's schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SchemaError {
    /// What is wrong, without the position (serde's words: ``missing field `path` ``).
    pub(crate) message: String,
    /// The 1-based line and column (in bytes) in the config as given, when the JSON reader
    /// gives them.
    pub(crate) position: Option<(usize, usize)>,
    /// The key, when the fault is a key given twice in one object.
    pub(crate) duplicate_key: Option<String>,
}

/// What is said of a key given twice in one object, wherever it is found: not Ignition's rule
/// (Go keeps the last value without a word) but bootgen's, since half of what was written would
/// be dropped.
pub(crate) fn duplicate_key_message(key: &str) -> String {
    format!("key `{key}` is given twice in one object: Ignition would silently keep only the last value; write it once")
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.duplicate_key, self.position) {
            (Some(key), Some((line, column))) => write!(
                f,
                "{} (line {line}, column {column})",
                duplicate_key_message(key)
            ),
            (Some(key), None) => f.write_str(&duplicate_key_message(key)),
            (None, Some((line, column))) => write!(
                f,
                "serialization error: {} at line {line} column {column}",
                self.message
            ),
            (None, None) => f.write_str(&self.message),
        }
    }
}

/// serde's message without its trailing " at line N column M" (a location says that).
pub(crate) fn without_position(text: &str) -> &str {
    match text.rfind(" at line ") {
        Some(cut) if text[cut..].contains(" column ") => &text[..cut],
        _ => text,
    }
}

/// `Config::parse_slice`, its error told apart when it is a key given twice.
pub(crate) fn parse_typed(bytes: &[u8]) -> Result<(Config, Vec<Warning>), SchemaError> {
    Config::parse_slice(bytes).map_err(|e| match e {
        ignition_config::Error::Serialization(inner) => {
            let said = inner.to_string();
            let message = without_position(&said).to_string();
            let (line, column) = (inner.line(), inner.column());
            SchemaError {
                duplicate_key: message
                    .strip_prefix("duplicate field `")
                    .and_then(|k| k.strip_suffix('`'))
                    .map(str::to_string),
                message,
                position: (line > 0).then_some((line, column)),
            }
        }
        other => SchemaError {
            message: other.to_string(),
            position: None,
            duplicate_key: None,
        },
    })
}

/// A serde path written as `ignition-config` writes it (`$.storage.files.0.mode`).
fn dotted(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => "$".to_string(),
        Path::Seq { parent, index } => format!("{}.{index}", dotted(parent)),
        Path::Map { parent, key } => format!("{}.{key}", dotted(parent)),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => dotted(parent),
    }
}

/// Parses `raw` as a `T`, adding the dotted path of every unknown key (under `prefix`, which
/// stands for the root) to `unknown`; false when it does not fit.
fn part<T: serde::de::DeserializeOwned>(
    raw: &str,
    prefix: &str,
    unknown: &mut Vec<String>,
) -> bool {
    let mut json = serde_json::Deserializer::from_str(raw);
    let parsed: Result<T, _> = serde_ignored::deserialize(&mut json, |path| {
        unknown.push(format!("{prefix}{}", &dotted(&path)[1..]));
    });
    parsed.is_ok() && json.end().is_ok()
}

/// The unknown keys of a config (dotted paths, in the order the check of the whole config
/// reports them) whose skeleton and raw file entries are given; `None` when a part does not
/// fit the schema, or when both the skeleton and the entries have unknown keys (the whole
/// check's order interleaves them by position). Then only the whole check can say.
pub(crate) fn unknown_keys(skeleton: &str, files: &[&RawValue]) -> Option<Vec<String>> {
    use ignition_config::{v3_0, v3_1, v3_2, v3_3, v3_4, v3_5};
    let (config, warnings) = parse_typed(skeleton.as_bytes()).ok()?;
    let file: fn(&str, &str, &mut Vec<String>) -> bool = match config {
        Config::V3_0(_) => part::<v3_0::File>,
        Config::V3_1(_) => part::<v3_1::File>,
        Config::V3_2(_) => part::<v3_2::File>,
        Config::V3_3(_) => part::<v3_3::File>,
        Config::V3_4(_) => part::<v3_4::File>,
        Config::V3_5(_) => part::<v3_5::File>,
        _ => return None,
    };
    let mut unknown = Vec::new();
    for warning in warnings {
        match warning {
            Warning::UnusedKey(path) => unknown.push(path),
            // A kind of warning this check does not know: the whole check says what it is.
            _ => return None,
        }
    }
    let in_skeleton = unknown.len();
    for (i, raw) in files.iter().enumerate() {
        if !file(raw.get(), &format!("$.storage.files.{i}"), &mut unknown) {
            return None;
        }
    }
    (in_skeleton == 0 || unknown.len() == in_skeleton).then_some(unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_given_twice_is_named() {
        let text = r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/a","mode":420,"mode":384}]}}"#;
        let e = parse_typed(text.as_bytes()).unwrap_err();
        assert_eq!(e.duplicate_key.as_deref(), Some("mode"));
        assert!(e
            .to_string()
            .starts_with("key `mode` is given twice in one object"));
    }
}
