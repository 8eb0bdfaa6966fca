//! The schema check with the types of `ignition-config` and its unknown-key detection, read as
//! Ignition's own Go types read a config ([`parse_typed`]); and that check of a split config a
//! part at a time: the config without its file list (the skeleton), then each file entry on its
//! own, so no typed tree of the whole config is ever built.

use super::go_empty::with_empty_fields;
use super::unknown_order::walk_order;
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

impl SchemaError {
    /// serde_json's error `e` in its own words without the position, which is `position` (the
    /// line and column in the config as given; line 0 when it has none).
    pub(crate) fn of_json(e: &serde_json::Error, (line, column): (usize, usize)) -> SchemaError {
        let message = without_position(&e.to_string()).to_string();
        SchemaError {
            duplicate_key: message
                .strip_prefix("duplicate field `")
                .and_then(|k| k.strip_suffix('`'))
                .map(str::to_string),
            message,
            position: (line > 0).then_some((line, column)),
        }
    }
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

/// `Config::parse_slice` reading `bytes` as Ignition reads a config: what Go's types read as
/// empty where `ignition-config`'s want a value is taken as empty (see [`super::go_empty`]),
/// so `ignition-validate` and bootgen refuse the same configs; what an empty one does at boot
/// is for the rules to say. An error's position is in `bytes`; the unknown keys are in the
/// order `ignition-validate` reports them (see [`super::unknown_order`]).
pub(crate) fn parse_typed(bytes: &[u8]) -> Result<(Config, Vec<Warning>), SchemaError> {
    let filled = with_empty_fields(bytes);
    let read = filled.as_ref().map_or(bytes, |(text, _)| text.as_slice());
    let (config, mut warnings) = Config::parse_slice(read).map_err(|e| match e {
        ignition_config::Error::Serialization(inner) => {
            let (mut line, mut column) = (inner.line(), inner.column());
            if let Some((_, inserted)) = &filled {
                (line, column) = position_before_insertions(bytes, inserted, line, column);
            }
            SchemaError::of_json(&inner, (line, column))
        }
        other => SchemaError {
            message: other.to_string(),
            position: None,
            duplicate_key: None,
        },
    })?;
    warnings.sort_by_cached_key(|w| match w {
        Warning::UnusedKey(path) => walk_order(path),
        _ => Vec::new(),
    });
    Ok((config, warnings))
}

/// The line and column in `original` of what is at `line` and `column` of the text made by
/// putting `inserted` (offset into `original`, length; ascending, no newline) into it.
fn position_before_insertions(
    original: &[u8],
    inserted: &[(usize, usize)],
    line: usize,
    column: usize,
) -> (usize, usize) {
    let mut shift = 0;
    let mut current_line = 1;
    let mut line_start = 0;
    let mut scanned = 0;
    for &(at, len) in inserted {
        for (i, b) in original[scanned..at].iter().enumerate() {
            if *b == b'\n' {
                current_line += 1;
                line_start = scanned + i + 1;
            }
        }
        scanned = at;
        if current_line < line {
            continue;
        }
        if current_line > line {
            break;
        }
        // Columns count bytes from 1; the insertion starts at this column of the filled text.
        let starts = at - line_start + 1 + shift;
        if column <= starts {
            break;
        }
        shift += len.min(column - starts);
    }
    (line, column - shift)
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
/// reports them, `ignition-validate`'s) whose skeleton and raw file entries are given; `None`
/// when a part does not fit the schema. Then only the whole check can say.
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
    for (i, raw) in files.iter().enumerate() {
        if !file(raw.get(), &format!("$.storage.files.{i}"), &mut unknown) {
            return None;
        }
    }
    unknown.sort_by_cached_key(|path| walk_order(path));
    Some(unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A RAID array without a name (any 3.x), a LUKS volume without one (from 3.2, which has
    /// them), a disk or filesystem without a device and a link without a target (before 3.3)
    /// fit, as Go's types read them (`ignition-validate` takes them, or refuses them by its
    /// rules); a link without a target from 3.3 is for the rules to refuse.
    #[test]
    fn fields_go_reads_as_empty_may_be_absent() {
        for version in ["3.0.0", "3.2.0", "3.3.0", "3.5.0"] {
            let raid = format!(
                r#"{{"ignition":{{"version":"{version}"}},"storage":{{"disks":[{{}}],"filesystems":[{{"format":"ext4"}}],"raid":[{{"level":"raid1","devices":["/dev/a"]}}],"links":[{{"path":"/l"}}]}}}}"#
            );
            let (_, warnings) = parse_typed(raid.as_bytes()).unwrap();
            assert!(warnings.is_empty(), "{version}");
        }
        for version in ["3.2.0", "3.5.0"] {
            let luks = format!(
                r#"{{"ignition":{{"version":"{version}"}},"storage":{{"luks":[{{"device":"/dev/a"}}]}}}}"#
            );
            let (_, warnings) = parse_typed(luks.as_bytes()).unwrap();
            assert!(warnings.is_empty(), "{version}");
        }
        // A user or group without a name, in every spec (each has `passwd`).
        for version in ["3.0.0", "3.3.0", "3.5.0"] {
            let accounts = format!(
                r#"{{"ignition":{{"version":"{version}"}},"passwd":{{"users":[{{}},{{"name":null,"uid":1}}],"groups":[{{"gid":1}},{{"name":null}}]}}}}"#
            );
            let (_, warnings) = parse_typed(accounts.as_bytes()).unwrap();
            assert!(warnings.is_empty(), "{version}");
        }
        // A null kernel argument is the empty one (from 3.3, which has them).
        for version in ["3.3.0", "3.5.0"] {
            let arguments = format!(
                r#"{{"ignition":{{"version":"{version}"}},"kernelArguments":{{"shouldExist":["a",null],"shouldNotExist":[null]}}}}"#
            );
            let (_, warnings) = parse_typed(arguments.as_bytes()).unwrap();
            assert!(warnings.is_empty(), "{version}");
        }
        // A null item of a string list and a null user or group, up to 3.5 (which
        // ignition-validate 2.14 does not know).
        for version in ["3.0.0", "3.5.0"] {
            let nulls = format!(
                r#"{{"ignition":{{"version":"{version}"}},"passwd":{{"users":[null,{{"name":"u","groups":[null],"sshAuthorizedKeys":[null]}}],"groups":[null]}},"storage":{{"filesystems":[{{"device":"/d","options":[null]}}],"raid":[{{"name":"r","level":"raid1","devices":["/d"],"options":[null]}}],"files":[{{"path":"/a","append":[null]}}]}}}}"#
            );
            let (_, warnings) = parse_typed(nulls.as_bytes()).unwrap();
            assert!(warnings.is_empty(), "{version}");
        }
        // `null` is absent to Go, and a filled-in field is read as empty in place.
        let nulls = r#"{"ignition":{"version":"3.2.0"},"storage":{"disks":[{"device":null}],"raid":[{"name" : null,"level":"raid1","devices":["/dev/a"]}],"links":[{"path":"/l","target":null}]}}"#;
        assert!(parse_typed(nulls.as_bytes()).is_ok());
        // An entry with nothing at all (from 3.3 an array needs neither level nor devices).
        let empty = r#"{"ignition":{"version":"3.3.0"},"storage":{"raid":[{ }]}}"#;
        assert!(parse_typed(empty.as_bytes()).is_ok());
        let files = r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"mode":420}]}}"#;
        assert_eq!(
            parse_typed(files.as_bytes()).unwrap_err().message,
            "missing field `path`"
        );
    }

    /// An error after a filled-in field is placed where it is in the config as written: the
    /// same line and column as in a config of the same length that needed no filling.
    #[test]
    fn errors_keep_their_place_in_the_config_as_written() {
        let filled = r#""name":"","#;
        for layout in ["", "\n", "\n  "] {
            let written = format!(
                r#"{{"ignition":{{"version":"3.2.0"}},"storage":{{"raid":[{{{layout}"level":"raid1","devices":["/dev/a"]{pad}}},{{"level":"raid1","devices":["/dev/b"]{pad}}}],{layout}"links":[{{"path":"/l"{pad_link}}}],"files":[{{"path":"/a","mode":"x"}}]}}}}"#,
                pad = " ".repeat(filled.len()),
                pad_link = " ".repeat(r#","target":"""#.len()),
            );
            let complete = written
                .replacen(
                    &format!("{{{layout}\"level\""),
                    &format!("{{{layout}{filled}\"level\""),
                    1,
                )
                .replacen(&format!("\"]{}}}", " ".repeat(filled.len())), "\"]}", 1)
                .replacen("{\"level\"", &format!("{{{filled}\"level\""), 1)
                .replacen(&format!("\"]{}}}", " ".repeat(filled.len())), "\"]}", 1)
                .replace(
                    &format!("\"/l\"{}}}", " ".repeat(r#","target":"""#.len())),
                    "\"/l\",\"target\":\"\"}",
                );
            assert_eq!(written.len(), complete.len(), "{complete}");
            let ours = parse_typed(written.as_bytes()).unwrap_err();
            let theirs = match Config::parse_slice(complete.as_bytes()).unwrap_err() {
                ignition_config::Error::Serialization(e) => (e.line(), e.column()),
                other => panic!("{other}"),
            };
            assert_eq!(ours.position, Some(theirs), "{written}");
            assert!(ours.message.contains("invalid type"), "{}", ours.message);
        }
    }

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
