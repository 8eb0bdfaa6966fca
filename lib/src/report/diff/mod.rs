//! `bootgen diff`: a semantic diff of two configs. Files, units, drop-ins and users are matched
//! by path or name (order does not matter, nor does encoding: a gzip-compressed file equals the
//! plain one), and text contents get a unified diff. Secrets stay secret: PEM blocks and long
//! base64 runs appear as hashes, and every secret `ignition::redact` knows (a Secret's data,
//! pull secrets, passwords and their hashes, tokens, credentials in URLs) as `<redacted>` with
//! a short digest, so a change shows and the value does not.

mod entries;
mod keyed;
mod users;

use crate::error::Result;
use crate::ignition::decode::{file_resources, resource_terms, ResourceTerms};
use crate::ignition::redact::Redact;
use crate::ignition::{decode_file, decode_units, decode_users, DecodedFile};
use crate::ignition::{IgnitionDoc, SplitDoc};
use entries::Differ;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Each resource of a file entry (`contents`, `append[0]`, ...) with its terms.
pub(super) type Terms = BTreeMap<String, ResourceTerms>;

/// One side's file entries: an index from path to entry (a path defined twice is refused, as
/// Ignition refuses it), each entry read and decoded again when compared, so
/// that a large config is never in memory decoded whole.
pub(super) struct Files<'a> {
    by_path: BTreeMap<String, usize>,
    entry: Box<dyn Fn(usize) -> Result<Cow<'a, Value>> + 'a>,
}

impl<'a> Files<'a> {
    /// Every entry is decoded once here (and dropped), so that an entry that does not decode is
    /// an error whatever its path, as when the whole config is decoded.
    fn new<I>(entries: I, entry: Box<dyn Fn(usize) -> Result<Cow<'a, Value>> + 'a>) -> Result<Self>
    where
        I: Iterator<Item = Result<Cow<'a, Value>>>,
    {
        let mut by_path = BTreeMap::new();
        for (i, value) in entries.enumerate() {
            let path = decode_file(i, value?.as_ref())?.path;
            // Ignition refuses the config: no entry of the two is what the node would have.
            if let Some(first) = by_path.insert(path.clone(), i) {
                return Err(crate::error::Error::Ignition {
                    file: crate::error::UNNAMED_CONFIG.into(),
                    message: format!("$.storage.files[{i}]: {path} is also $.storage.files[{first}]: a path defined twice is refused by Ignition (bootgen validate names it)"),
                });
            }
        }
        Ok(Files { by_path, entry })
    }

    fn of_doc(doc: &'a IgnitionDoc) -> Result<Self> {
        let list = crate::ignition::read::file_entries(doc);
        let entries = list.clone().into_iter().map(|v| Ok(Cow::Borrowed(v)));
        Files::new(
            entries,
            Box::new(move |i| Ok(Cow::Borrowed(list.get(i).copied().unwrap_or(&Value::Null)))),
        )
    }

    fn of_split(split: &'a SplitDoc<'_>) -> Result<Self> {
        let entries = split.input_files().map(|v| v.map(Cow::Owned));
        Files::new(
            entries,
            Box::new(move |i| split.input_file(i).map(Cow::Owned)),
        )
    }

    pub(super) fn paths(&self) -> impl Iterator<Item = &str> {
        self.by_path.keys().map(String::as_str)
    }

    /// The entry of `path`, decoded, with the terms of each of its resources.
    pub(super) fn get(&self, path: &str) -> Result<Option<(DecodedFile, Terms)>> {
        let Some(&i) = self.by_path.get(path) else {
            return Ok(None);
        };
        let raw = (self.entry)(i)?;
        let terms = file_resources(raw.as_ref())
            .map(|(at, resource)| (at, resource_terms(resource)))
            .collect();
        Ok(Some((decode_file(i, raw.as_ref())?, terms)))
    }
}

/// Added, removed or changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// Only in the new config.
    Added,
    /// Only in the old config.
    Removed,
    /// In both, different.
    Changed,
}

/// One difference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffItem {
    /// Added, removed, changed.
    pub change: ChangeKind,
    /// `version`, `user`, `file`, `unit`, `drop-in`, `directory`, `link`, `group` or `other`
    /// (any other part of the config).
    pub what: &'static str,
    /// Path, name, `unit/drop-in`, or JSON path for `other`.
    pub name: String,
    /// What changed, one line each (`mode 0644 -> 0600`).
    pub details: Vec<String>,
    /// Unified diff of decoded text, when text changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_diff: Option<String>,
}

/// The differences between two configs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigDiff {
    /// The old config's name.
    pub old: String,
    /// The new config's name.
    pub new: String,
    /// Every difference: version, users, files, units and drop-ins, then the rest.
    pub items: Vec<DiffItem>,
}

impl ConfigDiff {
    /// True when the configs are semantically equal.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}
/// Everything except what is compared entry by entry, with no `null` member: Ignition's Go
/// types read a `null` field as they read an absent one (a nil pointer or slice).
fn rest_of(doc: &IgnitionDoc) -> Value {
    let mut value = doc.value.clone();
    let keyed = keyed::KEYED
        .iter()
        .map(|(parent, list, ..)| (*parent, *list));
    for (parent, key) in [
        ("/ignition", "version"),
        ("/storage", "files"),
        ("/systemd", "units"),
        ("/passwd", "users"),
    ]
    .into_iter()
    .chain(keyed)
    {
        if let Some(obj) = value.pointer_mut(parent).and_then(Value::as_object_mut) {
            obj.remove(key);
        }
    }
    crate::ignition::drop_nulls(&mut value);
    value
}

/// One difference of the rest: what, where, and the values (shown redacted).
type RestChange = (ChangeKind, String, Vec<String>);

/// The differences between `a` and `b` at `path`, down to the members and list entries that
/// differ, each with its old and new value.
fn compare_rest(path: &str, a: Option<&Value>, b: Option<&Value>, out: &mut Vec<RestChange>) {
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                compare_rest(&format!("{path}.{key}"), x.get(key), y.get(key), out);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) if x != y => {
            for i in 0..x.len().max(y.len()) {
                compare_rest(&format!("{path}[{i}]"), x.get(i), y.get(i), out);
            }
        }
        (None, Some(v)) if !is_empty_value(v) => out.push((
            ChangeKind::Added,
            path.to_string(),
            vec![shown_value(path, v)],
        )),
        (Some(v), None) if !is_empty_value(v) => out.push((
            ChangeKind::Removed,
            path.to_string(),
            vec![shown_value(path, v)],
        )),
        (Some(x), Some(y)) if x != y => out.push((
            ChangeKind::Changed,
            path.to_string(),
            vec![format!(
                "{} -> {}",
                shown_value(path, x),
                shown_value(path, y)
            )],
        )),
        _ => {}
    }
}

/// The most of a value of the rest the diff shows, in characters.
const MAX_SHOWN_VALUE: usize = 200;

/// A value of the rest (at `path`) as the diff shows it: a data URL (which may hold a whole
/// config and its keys) and an HTTP header's value (which may be a credential) as digests,
/// other strings with their credentials hidden, a long value cut.
fn shown_value(path: &str, value: &Value) -> String {
    fn hide(path: &str, value: &Value) -> Value {
        match value {
            Value::String(s) if s.starts_with("data:") => {
                Value::String(Redact::WithDigest.shown("data URL", s.as_bytes()))
            }
            Value::String(s) if path.contains(".httpHeaders[") && path.ends_with(".value") => {
                Value::String(Redact::WithDigest.shown("redacted", s.as_bytes()))
            }
            Value::String(s) => Value::String(Redact::WithDigest.inline(s)),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), hide(&format!("{path}.{k}"), v)))
                    .collect(),
            ),
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| hide(&format!("{path}[{i}]"), v))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    let text = hide(path, value).to_string();
    if text.chars().count() > MAX_SHOWN_VALUE {
        let cut: String = text.chars().take(MAX_SHOWN_VALUE).collect();
        format!("{cut}... ({} bytes)", text.len())
    } else {
        text
    }
}

/// Empty objects left behind by `rest_of` are not differences.
fn is_empty_value(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| o.values().all(is_empty_value))
        || v.is_null()
}

/// Compares `old` and `new`, named `old_name` and `new_name` in the output.
pub fn diff(
    old: &IgnitionDoc,
    new: &IgnitionDoc,
    old_name: &str,
    new_name: &str,
) -> Result<ConfigDiff> {
    let a = Files::of_doc(old).map_err(|e| e.in_config(old_name))?;
    let b = Files::of_doc(new).map_err(|e| e.in_config(new_name))?;
    diff_parts((old, &a), (new, &b), old_name, new_name)
}

/// [`diff`] for two configs split with nothing kept ([`SplitDoc::parse_checked`] with
/// `|_| false`): the file entries stay raw JSON, each decoded when compared, so neither config
/// is a JSON tree, nor decoded, whole. The same result as [`diff`].
pub fn diff_split(
    old: &SplitDoc<'_>,
    new: &SplitDoc<'_>,
    old_name: &str,
    new_name: &str,
) -> Result<ConfigDiff> {
    let a = Files::of_split(old).map_err(|e| e.in_config(old_name))?;
    let b = Files::of_split(new).map_err(|e| e.in_config(new_name))?;
    diff_parts((&old.doc, &a), (&new.doc, &b), old_name, new_name)
}

/// The diff of two configs whose file entries are in `Files` and everything else in the doc
/// (whose own file list is not read).
fn diff_parts(
    (old, old_files): (&IgnitionDoc, &Files<'_>),
    (new, new_files): (&IgnitionDoc, &Files<'_>),
    old_name: &str,
    new_name: &str,
) -> Result<ConfigDiff> {
    let mut differ = Differ {
        old: old_name,
        new: new_name,
        items: Vec::new(),
    };
    let (a_version, b_version) = (old.version(), new.version());
    if a_version != b_version {
        differ.push(
            ChangeKind::Changed,
            "version",
            "ignition.version",
            vec![format!("{a_version} -> {b_version}")],
            None,
        );
    }
    differ.users(
        &decode_users(old),
        &decode_users(new),
        &old.value,
        &new.value,
    );
    differ.files(old_files, new_files)?;
    differ.units(&decode_units(old), &decode_units(new));
    differ.keyed(&old.value, &new.value);
    let mut rest = Vec::new();
    compare_rest("$", Some(&rest_of(old)), Some(&rest_of(new)), &mut rest);
    for (kind, path, details) in rest {
        differ.push(kind, "other", &path, details, None);
    }
    Ok(ConfigDiff {
        old: old_name.to_string(),
        new: new_name.to_string(),
        items: differ.items,
    })
}

/// Compares two versions of a file that is not inside a config (`metadata.json`, a
/// kubeconfig), shown as `label`; `None` for a side that does not have it. Secrets are
/// summarized as in [`diff`].
pub fn diff_file(
    old: Option<&[u8]>,
    new: Option<&[u8]>,
    old_name: &str,
    new_name: &str,
    label: &str,
) -> ConfigDiff {
    let mut differ = Differ {
        old: old_name,
        new: new_name,
        items: Vec::new(),
    };
    match (old, new) {
        (None, Some(_)) => differ.push(ChangeKind::Added, "file", label, vec![], None),
        (Some(_), None) => differ.push(ChangeKind::Removed, "file", label, vec![], None),
        (Some(a), Some(b)) if a != b => {
            let kind = crate::ignition::classify(label, Some(b));
            let mut details = Vec::new();
            let text = differ.text("contents", kind, a, b, &mut details);
            differ.push(ChangeKind::Changed, "file", label, details, text);
        }
        _ => {}
    }
    ConfigDiff {
        old: old_name.to_string(),
        new: new_name.to_string(),
        items: differ.items,
    }
}

impl fmt::Display for ConfigDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.items.is_empty() {
            return writeln!(f, "{} and {} are the same config", self.old, self.new);
        }
        writeln!(f, "--- {}\n+++ {}", self.old, self.new)?;
        for item in &self.items {
            let sign = match item.change {
                ChangeKind::Added => '+',
                ChangeKind::Removed => '-',
                ChangeKind::Changed => '~',
            };
            writeln!(f, "{sign} {} {}", item.what, item.name)?;
            for line in &item.details {
                writeln!(f, "    {line}")?;
            }
            if let Some(text) = &item.text_diff {
                for line in text.lines() {
                    writeln!(f, "    {line}")?;
                }
            }
        }
        let count = |k: ChangeKind| self.items.iter().filter(|i| i.change == k).count();
        writeln!(
            f,
            "{} added, {} removed, {} changed",
            count(ChangeKind::Added),
            count(ChangeKind::Removed),
            count(ChangeKind::Changed)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ignition::dataurl;
    use serde_json::json;

    fn doc(files: Value) -> IgnitionDoc {
        IgnitionDoc {
            value: json!({"ignition": {"version": "3.2.0"}, "storage": {"files": files}}),
        }
    }

    #[test]
    fn encoding_is_not_a_difference_but_modes_and_text_are() {
        let text = b"line\n".repeat(20);
        let plain = doc(
            json!([{"path": "/a", "mode": 420, "contents": {"source": dataurl::encode(&text)}}]),
        );
        let gz = format!(
            "data:;base64,{}",
            base64::Engine::encode(
                &base64::engine::general_purpose::STANDARD,
                dataurl::gzip(&text),
            )
        );
        let compressed = doc(
            json!([{"path": "/a", "mode": 420, "contents": {"source": gz, "compression": "gzip"}}]),
        );
        assert!(diff(&plain, &compressed, "a", "b").unwrap().is_empty());
        let changed = doc(
            json!([{"path": "/a", "mode": 384, "contents": {"source": "data:,line%0Aother%0A"}}]),
        );
        let d = diff(&plain, &changed, "a", "b").unwrap();
        assert_eq!(d.items.len(), 1);
        assert_eq!(d.items[0].details[0], "mode 0644 -> 0600");
        assert!(d.items[0]
            .text_diff
            .as_deref()
            .unwrap_or_default()
            .contains("+other"));
        assert!(d.to_string().ends_with("0 added, 0 removed, 1 changed\n"));
    }

    /// A merged config's `"compression": null` is the absent field, as Ignition reads it; what
    /// does differ in such parts is named down to its field, old and new, credentials hidden.
    #[test]
    fn null_is_absent_and_other_parts_name_the_field_that_differs() {
        let pointer = |merge: Value| IgnitionDoc {
            value: json!({"ignition": {"version": "3.2.0", "config": {"merge": [merge]}}}),
        };
        let source = "https://api-int.example.com:22623/config/master";
        let absent = pointer(json!({"source": source}));
        let null = pointer(json!({"source": source, "compression": null,
                                  "verification": {"hash": null}}));
        assert!(diff(&absent, &null, "a", "b").unwrap().is_empty());

        let token = "s3cr3t-t0ken-value";
        let moved = pointer(
            json!({"source": "https://api-int.renamed.example.com:22623/config/master",
                                   "httpHeaders": [{"name": "Authorization", "value": token}]}),
        );
        let d = diff(&null, &moved, "a", "b").unwrap();
        let text = d.to_string();
        assert!(
            text.contains(&format!(
                "~ other $.ignition.config.merge[0].source\n    \"{source}\" -> \"https://api-int.renamed.example.com:22623/config/master\"\n"
            )),
            "{text}"
        );
        assert!(
            text.contains("+ other $.ignition.config.merge[0].httpHeaders\n    [{\"name\":\"Authorization\",\"value\":\"<redacted hmac:"),
            "{text}"
        );
        assert!(!text.contains(token), "{text}");

        let inline = pointer(json!({"source": "data:,%7B%22passwd%22%3A%7B%7D%7D"}));
        let text = diff(&null, &inline, "a", "b").unwrap().to_string();
        assert!(text.contains("-> \"<data URL hmac:"), "{text}");
        assert!(!text.contains("passwd"), "{text}");
    }

    /// An added file shows its text, its secrets hidden as every view hides them, and a long
    /// one its first lines with the count of the others.
    #[test]
    fn an_added_file_shows_its_text_bounded_and_redacted() {
        let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  token: c2VjcmV0LXZhbHVlLXRoYXQtbXVzdC1ub3Qtc2hvdw==\n";
        let key = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n";
        let long: String = (1..=25).map(|i| format!("line {i}\n")).collect();
        let old = doc(json!([]));
        let new = doc(json!([
            {"path": "/etc/motd", "mode": 420, "contents": {"source": dataurl::encode(b"hello\nworld\n")}},
            {"path": "/etc/secret.yaml", "contents": {"source": dataurl::encode(secret.as_bytes())}},
            {"path": "/etc/tls.key", "contents": {"source": dataurl::encode(key.as_bytes())}},
            {"path": "/etc/long", "contents": {"source": dataurl::encode(long.as_bytes())}}
        ]));
        let d = diff(&old, &new, "a", "b").unwrap();
        let text = d.to_string();
        assert!(
            text.contains(
                "+ file /etc/motd\n    mode 0644, 12 bytes, text\n    +hello\n    +world\n"
            ),
            "{text}"
        );
        assert!(text.contains("+kind: Secret"), "{text}");
        assert!(!text.contains("c2VjcmV0"), "{text}");
        assert!(!text.contains("MIIEvQIBADAN"), "{text}");
        assert!(
            text.contains("    +line 20\n    ... and 5 more lines\n"),
            "{text}"
        );
        assert!(!text.contains("line 21"), "{text}");
    }

    /// Split, every file entry decoded when compared: the same diff as from whole trees, for
    /// every pair of valid fixture configs (and a config against itself).
    #[test]
    fn a_split_diff_is_the_diff_of_the_trees() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/ign/valid");
        // The ones the strict parse takes (not those with an unknown key).
        let configs: Vec<(String, Vec<u8>)> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
            .filter(|(name, bytes)| IgnitionDoc::parse(bytes, name).is_ok())
            .collect();
        assert!(configs.len() >= 5);
        let mut differing = 0;
        for (a_name, a) in &configs {
            for (b_name, b) in &configs {
                let whole = diff(
                    &IgnitionDoc::parse(a, a_name).unwrap(),
                    &IgnitionDoc::parse(b, b_name).unwrap(),
                    a_name,
                    b_name,
                )
                .unwrap();
                let split = diff_split(
                    &SplitDoc::parse_checked(a, a_name, |_| false).unwrap(),
                    &SplitDoc::parse_checked(b, b_name, |_| false).unwrap(),
                    a_name,
                    b_name,
                )
                .unwrap();
                assert_eq!(whole, split, "{a_name} {b_name}");
                assert_eq!(whole.is_empty(), a_name == b_name, "{a_name} {b_name}");
                differing += usize::from(!whole.is_empty());
            }
        }
        assert!(differing > configs.len());
    }

    #[test]
    fn files_outside_configs_are_compared_with_secrets_summarized() {
        let key = |body: &str| {
            format!(
                "client-key-data: {}\nserver: https://api:6443\n",
                body.repeat(40)
            )
        };
        let (a, b) = (key("QUJD"), key("REVG"));
        let d = diff_file(
            Some(a.as_bytes()),
            Some(b.as_bytes()),
            "x",
            "y",
            "auth/kubeconfig",
        );
        let text = d.to_string();
        assert!(text.contains("~ file auth/kubeconfig"), "{text}");
        assert!(
            !text.contains("QUJDQUJD") && !text.contains("REVGREVG"),
            "{text}"
        );
        assert!(diff_file(Some(b"a"), Some(b"a"), "x", "y", "m").is_empty());
        let gone = diff_file(Some(b"a"), None, "x", "y", "metadata.json");
        assert_eq!(gone.items[0].change, ChangeKind::Removed);
    }
}
