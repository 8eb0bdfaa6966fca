//! A large config without its file list as a JSON tree: [`SplitDoc`] keeps every file entry as
//! raw JSON borrowed from the input (16 bytes an entry) and builds the tree only for the rest of
//! the config and for the few file entries a caller names. A JSON tree costs about ten times
//! the bytes it was parsed from, so a config of 200,000 small files parsed whole needs over 10x
//! its size in memory; split, the entries are parsed one at a time when read and dropped again.
//!
//! Written back ([`SplitDoc::write_to`]), the file list is spliced in where it was: the kept
//! entries (as the caller left them), the others parsed and written one at a time, then the
//! entries the caller added. The bytes are exactly those [`IgnitionDoc::to_bytes`] gives for
//! the whole config parsed as one tree and changed the same way.

use super::IgnitionDoc;
use crate::error::{Error, Result};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// A config parsed for reading or patching without a JSON tree of its file list.
#[derive(Debug)]
pub struct SplitDoc<'a> {
    /// The config, with `storage.files` holding only the kept entries (in config order), plus
    /// whatever a caller adds to it.
    pub doc: IgnitionDoc,
    /// Every file entry of the input, raw, in config order.
    files: Vec<&'a RawValue>,
    /// The indices (into `files`) of the entries kept in `doc`, ascending.
    kept: Vec<usize>,
    /// The input with an empty file list (made of the input's own text, duplicate keys and
    /// all), for the schema check.
    skeleton: String,
}

/// The members of a JSON object, values raw, in order.
struct RawMembers<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for RawMembers<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = RawMembers<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    members.push((key, map.next_value::<&'de RawValue>()?));
                }
                Ok(RawMembers(members))
            }
        }
        deserializer.deserialize_map(Members)
    }
}

fn json_error(name: &str, e: serde_json::Error) -> Error {
    Error::Ignition {
        file: name.to_string(),
        message: format!("not valid JSON: {e}"),
    }
}

/// The `path` of a raw file entry ("" when it has none).
fn raw_path(raw: &RawValue) -> serde_json::Result<Cow<'_, str>> {
    Ok(super::files::raw_path(raw)?.unwrap_or_default())
}

impl<'a> SplitDoc<'a> {
    /// Parses `bytes` (a config [`IgnitionDoc::check`] accepted; `name` is used in errors),
    /// keeping as a tree only the file entries whose path `keep` accepts.
    pub fn parse(bytes: &'a [u8], name: &str, keep: impl Fn(&str) -> bool) -> Result<Self> {
        let members: RawMembers<'a> =
            serde_json::from_slice(bytes).map_err(|e| json_error(name, e))?;
        let mut root = Map::new();
        let mut files = Vec::new();
        let mut kept = Vec::new();
        let mut skeleton = String::from("{");
        let member = |skeleton: &mut String, key: &str, raw: &str| {
            if !skeleton.ends_with('{') {
                skeleton.push(',');
            }
            skeleton.push_str(&Value::from(key).to_string());
            skeleton.push(':');
            skeleton.push_str(raw);
        };
        for (key, raw) in members.0 {
            if key != "storage" || !raw.get().starts_with('{') {
                member(&mut skeleton, &key, raw.get());
            }
            let value = match key.as_str() {
                "storage" if raw.get().starts_with('{') => {
                    let storage: RawMembers<'a> =
                        serde_json::from_str(raw.get()).map_err(|e| json_error(name, e))?;
                    let mut map = Map::new();
                    member(&mut skeleton, &key, "{");
                    for (key, raw) in storage.0 {
                        let is_list = key == "files" && raw.get().starts_with('[');
                        member(&mut skeleton, &key, if is_list { "[]" } else { raw.get() });
                        let value = if is_list {
                            // A second `files` member replaces the first, as in a tree.
                            kept = Vec::new();
                            files = serde_json::from_str::<Vec<&'a RawValue>>(raw.get())
                                .map_err(|e| json_error(name, e))?;
                            let mut entries = Vec::new();
                            for (i, entry) in files.iter().enumerate() {
                                let path = raw_path(entry).map_err(|e| json_error(name, e))?;
                                if keep(&path) {
                                    kept.push(i);
                                    entries.push(
                                        serde_json::from_str(entry.get())
                                            .map_err(|e| json_error(name, e))?,
                                    );
                                }
                            }
                            Value::Array(entries)
                        } else {
                            serde_json::from_str(raw.get()).map_err(|e| json_error(name, e))?
                        };
                        map.insert(key, value);
                    }
                    skeleton.push('}');
                    Value::Object(map)
                }
                _ => serde_json::from_str(raw.get()).map_err(|e| json_error(name, e))?,
            };
            if key == "storage" && !value.get("files").is_some_and(Value::is_array) {
                (files, kept) = (Vec::new(), Vec::new());
            }
            root.insert(key, value);
        }
        skeleton.push('}');
        Ok(SplitDoc {
            doc: IgnitionDoc {
                value: Value::Object(root),
            },
            files,
            kept,
            skeleton,
        })
    }

    /// [`IgnitionDoc::check`] and [`SplitDoc::parse`] in one, with the check's errors, without
    /// the check's typed tree of the whole config: the config without its file list is checked,
    /// then each file entry on its own. Only when that finds a problem is the whole config
    /// checked at once, for the error as [`IgnitionDoc::check`] words and places it.
    pub fn parse_checked(bytes: &'a [u8], name: &str, keep: impl Fn(&str) -> bool) -> Result<Self> {
        match SplitDoc::parse(bytes, name, keep) {
            Ok(split) if split.fits_schema() => Ok(split),
            parsed => {
                IgnitionDoc::check(bytes, name)?;
                parsed
            }
        }
    }

    /// [`IgnitionDoc::check`], with its errors, in the memory of [`SplitDoc::parse_checked`].
    pub fn check(bytes: &[u8], name: &str) -> Result<()> {
        SplitDoc::parse_checked(bytes, name, |_| false).map(drop)
    }

    /// True when the config matches its version's schema with no unknown key, checked a part
    /// at a time; false when it does not, or when the parts cannot tell.
    fn fits_schema(&self) -> bool {
        self.unknown_keys().is_some_and(|keys| keys.is_empty())
    }

    /// The config's unknown keys, as the check of the whole config names and orders them,
    /// found a part at a time; `None` when a part does not fit the schema (see
    /// [`super::schema::unknown_keys`]).
    pub(crate) fn unknown_keys(&self) -> Option<Vec<String>> {
        super::schema::unknown_keys(&self.skeleton, &self.files)
    }

    /// The input's file entries, each parsed when read.
    pub(crate) fn file_list(&self) -> super::files::FileList<'_> {
        super::files::FileList::Raw(&self.files)
    }

    /// How many file entries the input has.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// Every file entry of the input, in config order, each parsed when reached (changes made
    /// to [`SplitDoc::doc`] are not seen here).
    pub fn input_files(&self) -> impl Iterator<Item = Result<Value>> + '_ {
        self.files.iter().map(|raw| {
            serde_json::from_str(raw.get()).map_err(|e| json_error(crate::error::UNNAMED_CONFIG, e))
        })
    }

    /// The input's file entry `i` (in config order), parsed.
    pub fn input_file(&self, i: usize) -> Result<Value> {
        let raw = self.files.get(i).ok_or_else(|| Error::Ignition {
            file: crate::error::UNNAMED_CONFIG.into(),
            message: format!("no file entry {i} (the config has {})", self.files.len()),
        })?;
        serde_json::from_str(raw.get()).map_err(|e| json_error(crate::error::UNNAMED_CONFIG, e))
    }

    /// The paths of every file entry of the config as it is now: the input's entries not kept,
    /// and the entries of [`SplitDoc::doc`].
    pub fn paths(&self) -> Result<Vec<String>> {
        let mut paths = Vec::with_capacity(self.files.len());
        let mut kept = self.kept.iter().peekable();
        for (i, raw) in self.files.iter().enumerate() {
            if kept.next_if_eq(&&i).is_some() {
                continue;
            }
            paths.push(
                raw_path(raw)
                    .map_err(|e| json_error(crate::error::UNNAMED_CONFIG, e))?
                    .into_owned(),
            );
        }
        paths.extend(
            super::read::file_entries(&self.doc)
                .into_iter()
                .map(|f| f.get("path").and_then(Value::as_str).unwrap_or_default())
                .map(str::to_string),
        );
        Ok(paths)
    }

    /// Writes the config as single-line JSON: the bytes [`IgnitionDoc::to_bytes`] gives for
    /// the whole config.
    pub fn write_to(&self, writer: impl std::io::Write) -> Result<()> {
        if self.kept_entries().len() < self.kept.len() {
            return Err(Error::Ignition {
                file: crate::error::UNNAMED_CONFIG.into(),
                message: "a kept file entry was removed from the split config".into(),
            });
        }
        serde_json::to_writer(writer, &Root(self)).map_err(|e| Error::Ignition {
            file: crate::error::UNNAMED_CONFIG.into(),
            message: format!("cannot serialize: {e}"),
        })
    }

    /// [`SplitDoc::write_to`] into a vector.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_to(&mut out)?;
        Ok(out)
    }

    /// The length of [`SplitDoc::to_bytes`], counted without keeping the bytes.
    pub fn serialized_len(&self) -> Result<u64> {
        let mut count = super::Count(0);
        self.write_to(&mut count)?;
        Ok(count.0)
    }

    fn kept_entries(&self) -> &[Value] {
        self.doc
            .value
            .pointer("/storage/files")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }
}

struct Root<'s, 'a>(&'s SplitDoc<'a>);
struct Storage<'s, 'a>(&'s SplitDoc<'a>, &'s Map<String, Value>);
struct Files<'s, 'a>(&'s SplitDoc<'a>);

impl Serialize for Root<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let Value::Object(root) = &self.0.doc.value else {
            return self.0.doc.value.serialize(serializer);
        };
        let mut map = serializer.serialize_map(Some(root.len()))?;
        for (key, value) in root {
            match value {
                Value::Object(storage) if key == "storage" => {
                    map.serialize_entry(key, &Storage(self.0, storage))?
                }
                _ => map.serialize_entry(key, value)?,
            }
        }
        map.end()
    }
}

impl Serialize for Storage<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.1.len()))?;
        for (key, value) in self.1 {
            match value {
                Value::Array(_) if key == "files" => map.serialize_entry(key, &Files(self.0))?,
                _ => map.serialize_entry(key, value)?,
            }
        }
        map.end()
    }
}

impl Serialize for Files<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        let split = self.0;
        let entries = split.kept_entries();
        let mut seq =
            serializer.serialize_seq(Some(split.files.len() - split.kept.len() + entries.len()))?;
        let mut kept = split.kept.iter().zip(entries).peekable();
        for (i, raw) in split.files.iter().enumerate() {
            match kept.next_if(|(k, _)| **k == i) {
                Some((_, entry)) => seq.serialize_element(entry)?,
                None => {
                    let entry: Value = serde_json::from_str(raw.get()).map_err(S::Error::custom)?;
                    seq.serialize_element(&entry)?;
                }
            }
        }
        for entry in &entries[split.kept.len()..] {
            seq.serialize_element(entry)?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = r#"{"ignition":{"version":"3.2.0"},"passwd":{},"storage":{"directories":[{"path":"/d"}],"files":[{"path":"/a","mode":420},{"path":"/b","contents":{"source":"data:,b"}},{"path":"/c"}],"links":[]},"systemd":{"units":[{"name":"a.service"}]}}"#;

    #[test]
    fn writes_back_what_the_whole_tree_writes() {
        let whole = IgnitionDoc::parse(CONFIG.as_bytes(), "t").unwrap();
        for keep in [|_: &str| false, |p: &str| p == "/b", |_: &str| true] {
            let split = SplitDoc::parse(CONFIG.as_bytes(), "t", keep).unwrap();
            assert_eq!(split.to_bytes().unwrap(), whole.to_bytes());
            assert_eq!(split.serialized_len().unwrap(), whole.serialized_len());
            assert_eq!(split.file_count(), 3);
        }
        // Changed and added entries land where they land in the whole tree.
        let mut whole = whole;
        let mut split = SplitDoc::parse(CONFIG.as_bytes(), "t", |p| p == "/b").unwrap();
        for doc in [&mut whole, &mut split.doc] {
            crate::passes::set_file_text(doc, "/b", "new", 0o644).unwrap();
            crate::passes::set_file_text(doc, "/z", "added", 0o644).unwrap();
            crate::passes::mask_unit(doc, "a.service").unwrap();
        }
        assert_eq!(split.to_bytes().unwrap(), whole.to_bytes());
        assert_eq!(split.paths().unwrap(), ["/a", "/c", "/b", "/z"]);
    }

    /// The check in parts accepts what the whole check accepts, and where it refuses, it says
    /// what the whole check says; on every fixture config and on broken variants of one.
    #[test]
    fn the_check_in_parts_agrees_with_the_whole_check() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/ign");
        let mut configs = vec![
            CONFIG.to_string(),
            CONFIG.replace(r#""mode":420"#, r#""mode":"420""#),
            CONFIG.replace(r#""mode":420"#, r#""mode":420,"mdoe":1"#),
            CONFIG.replace(r#""passwd":{}"#, r#""passwd":{"userz":[]}"#),
            CONFIG.replace(r#""links":[]"#, r#""links":[],"files":[]"#),
            CONFIG.replace(r#""3.2.0"}"#, r#""3.2.0","version":"3.2.0"}"#),
            CONFIG.replace(r#"{"path":"/c"}"#, r#"{"path":"/c","path":"/d"}"#),
            CONFIG.replace(r#"{"path":"/c"}"#, r#"{"path":7}"#),
            CONFIG.replace(r#"{"path":"/c"}"#, r#"{}"#),
            CONFIG.replace("3.2.0", "3.0.0"),
            CONFIG.replace("3.2.0", "2.2.0"),
            CONFIG[..CONFIG.len() - 3].to_string(),
        ];
        for dir in std::fs::read_dir(root).unwrap() {
            for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
                let path = file.unwrap().path();
                if path.extension().is_some_and(|e| e == "ign" || e == "json") {
                    configs.push(std::fs::read_to_string(path).unwrap());
                }
            }
        }
        assert!(configs.len() > 20, "{}", configs.len());
        for text in &configs {
            let whole = IgnitionDoc::check(text.as_bytes(), "t").map_err(|e| e.to_string());
            let parts = SplitDoc::check(text.as_bytes(), "t").map_err(|e| e.to_string());
            assert_eq!(parts, whole, "{text}");
            if whole.is_ok() {
                let split = SplitDoc::parse(text.as_bytes(), "t", |_| false).unwrap();
                assert!(split.fits_schema(), "{text}");
            }
        }
    }

    #[test]
    fn configs_without_files_and_pretty_input() {
        for text in [
            r#"{"ignition":{"version":"3.2.0"}}"#,
            r#"{"ignition":{"version":"3.2.0"},"storage":{}}"#,
            "{\n  \"ignition\": {\"version\": \"3.2.0\"},\n  \"storage\": {\"files\": [ {\"path\": \"\\/x\\u0079\", \"mode\": 420 } ] }\n}",
        ] {
            let whole = IgnitionDoc::parse(text.as_bytes(), "t").unwrap();
            let mut split = SplitDoc::parse(text.as_bytes(), "t", |_| false).unwrap();
            assert_eq!(split.to_bytes().unwrap(), whole.to_bytes(), "{text}");
            let mut whole = whole;
            crate::passes::set_file_text(&mut whole, "/n", "n", 0o644).unwrap();
            crate::passes::set_file_text(&mut split.doc, "/n", "n", 0o644).unwrap();
            assert_eq!(split.to_bytes().unwrap(), whole.to_bytes(), "{text}");
        }
    }
}
