//! Ignition configs: built from the node's assets (spec 3.2.0, with the `ignition-config`
//! crate's types), and read back, any 3.x config whoever wrote it: parsed whole or split,
//! decoded file by file, each file classified, shown as a readable view.
//!
//! Configs travel between stages as [`IgnitionDoc`]: the JSON value, with key order kept, so a
//! config written by someone else comes back out exactly as it went in except where a pass
//! changed it.

pub(crate) mod dataurl;
pub(crate) mod decode;
pub(crate) mod files;
pub(crate) mod go_empty;
pub(crate) mod hash;
pub(crate) mod kind;
pub(crate) mod place;
pub(crate) mod pointer;
pub mod read;
pub(crate) mod redact;
pub(crate) mod schema;
pub(crate) mod split;
pub(crate) mod unit_text;
pub(crate) mod unknown_order;
pub(crate) mod view;

pub use dataurl::DecodeError;
pub use decode::{
    decode, decode_file, decode_units, decode_users, decoded_files, DecodedConfig, DecodedDropin,
    DecodedFile, DecodedUnit, DecodedUser,
};
pub use kind::{classify, FileKind};
pub use pointer::replace_pointer;
pub use split::SplitDoc;
pub use view::readable_view;

use crate::assets::AssetSet;
use crate::error::{Error, Result};
use ignition_config::v3_2 as spec;
use serde_json::Value;

/// The spec version bootgen writes.
pub const SPEC_VERSION: &str = "3.2.0";

/// Spec versions bootgen reads.
pub const READABLE_VERSIONS: &[&str] = &["3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0", "3.5.0"];

/// An Ignition config as a JSON document. Its `Debug` shows the config with its secrets
/// hidden and its files' contents (data URLs) by their length.
#[derive(Clone, PartialEq)]
pub struct IgnitionDoc {
    /// The whole config.
    pub value: Value,
}

impl std::fmt::Debug for IgnitionDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IgnitionDoc {}", redact::for_debug(&self.value))
    }
}

impl IgnitionDoc {
    /// The `ignition.version` string.
    pub fn version(&self) -> &str {
        self.value
            .pointer("/ignition/version")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// Single-line JSON bytes, as the installer writes them.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Sized once, from above: grown by doubling, a large config's buffer was copied into
        // fresh memory at every step, pages a new process pays for one by one.
        let mut out = Vec::with_capacity(json_len_bound(&self.value));
        match serde_json::to_writer(&mut out, &self.value) {
            Ok(()) => out,
            Err(_) => Vec::new(),
        }
    }

    /// The length of [`IgnitionDoc::to_bytes`], counted without keeping the bytes.
    pub fn serialized_len(&self) -> u64 {
        let mut count = Count(0);
        let _ = serde_json::to_writer(&mut count, &self.value);
        count.0
    }

    /// Pretty JSON, for people.
    pub fn to_pretty(&self) -> String {
        serde_json::to_string_pretty(&self.value).unwrap_or_default()
    }

    /// Parses and checks a config of spec 3.0 to 3.5; `name` is used in errors.
    pub fn parse(bytes: &[u8], name: &str) -> Result<IgnitionDoc> {
        Self::check(bytes, name)?;
        let value: Value = serde_json::from_slice(bytes).map_err(|e| Error::Ignition {
            file: name.to_string(),
            message: format!("not valid JSON: {e}"),
        })?;
        Ok(IgnitionDoc { value })
    }

    /// Checks what [`IgnitionDoc::parse`] checks (JSON, a readable spec version, the schema, no
    /// unknown keys) without keeping the document.
    pub fn check(bytes: &[u8], name: &str) -> Result<()> {
        let err = |message: String| Error::Ignition {
            file: name.to_string(),
            message,
        };
        // Checked against the typed schema first and the typed tree dropped before the JSON
        // tree is built: both at once would double the peak memory of a large config.
        let version = peek_version(bytes).map_err(|e| {
            let read = schema::SchemaError::of_json(&e, (e.line(), e.column()));
            // Valid JSON: a key given twice, which bootgen refuses on purpose.
            if read.duplicate_key.is_some() {
                return err(read.to_string());
            }
            let (line, column) = place::syntax_place(&e);
            err(format!(
                "not valid JSON at line {line}, column {column}: {}",
                describe_json_error(&e)
            ))
        })?;
        let version = version.ok_or_else(|| {
            err("has no ignition.version; is it an Ignition config? (Butane YAML must be translated with butane first)".into())
        })?;
        if !READABLE_VERSIONS.contains(&version.as_str()) {
            return Err(err(format!(
                "spec version {version} is not supported; bootgen reads {}",
                READABLE_VERSIONS.join(", ")
            )));
        }
        let (_, warnings) = schema::parse_typed(bytes).map_err(|e| {
            // Placed as `validate` places it (a key given twice: where serde found it).
            match (&e.duplicate_key, place::schema_place(&e, bytes)) {
                (None, Some((path, line, column))) => err(format!(
                    "does not match the Ignition {version} schema at line {line}, column {column}{}: {}",
                    path.map(|p| format!(" ({p})")).unwrap_or_default(),
                    e.message
                )),
                (None, None) => err(format!("does not match the Ignition {version} schema: {e}")),
                (Some(_), _) => err(e.to_string()),
            }
        })?;
        match warnings.first() {
            // Placed as `validate` places it: at the key.
            Some(ignition_config::Warning::UnusedKey(dotted)) => {
                let path = place::bracket_indices(dotted);
                let at = place::key_place(bytes, &path)
                    .map(|(line, column)| format!(" at line {line}, column {column}"))
                    .unwrap_or_default();
                Err(err(format!(
                    "unused key{at} ({path}): not part of the Ignition {version} spec"
                )))
            }
            Some(w) => Err(err(format!(
                "{w} (not part of the Ignition {version} spec)"
            ))),
            None => Ok(()),
        }
    }
}

/// A writer that only counts the bytes written to it.
struct Count(u64);

/// About the length of `value` as single-line JSON, from above unless its strings need many
/// escapes: a capacity for [`IgnitionDoc::to_bytes`], counted without writing anything.
fn json_len_bound(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 24,
        // Quotes, and a little room for escapes.
        Value::String(text) => text.len() + text.len() / 64 + 2,
        Value::Array(items) => 2 + items.iter().map(|v| json_len_bound(v) + 1).sum::<usize>(),
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(key, v)| key.len() + key.len() / 64 + 4 + json_len_bound(v))
                .sum::<usize>()
        }
    }
}

impl std::io::Write for Count {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Reads the whole document as JSON (so syntax errors are found here, with their position) but
/// keeps only `ignition.version`.
fn peek_version(bytes: &[u8]) -> std::result::Result<Option<String>, serde_json::Error> {
    // Only the `ignition` section is kept (it is small); the rest is checked and skipped.
    #[derive(serde::Deserialize)]
    struct Top {
        ignition: Option<Value>,
    }
    let top: Top = serde_json::from_slice(bytes)?;
    Ok(top
        .ignition
        .as_ref()
        .and_then(|i| i.get("version"))
        .and_then(Value::as_str)
        .map(str::to_string))
}

fn describe_json_error(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    match e.classify() {
        Category::Eof => "the file ends early (truncated?)".into(),
        // serde_json's own words (`expected `,` or `]``, `recursion limit exceeded`,
        // `duplicate field `ignition``), without the position, which the message gives already.
        Category::Syntax | Category::Data => schema::without_position(&e.to_string()).to_string(),
        Category::Io => "read error".into(),
    }
}

/// Builds the bootstrap config from an asset set.
///
/// The set is consumed: each file's bytes are freed as soon as its data URL is made, so a config
/// with thousands of large manifests is not held twice over.
pub fn build(assets: AssetSet) -> Result<IgnitionDoc> {
    let mut config = spec::Config::default();
    let users: Vec<spec::User> = assets
        .users
        .iter()
        .map(|u| {
            let mut user = spec::User::new(u.name.clone());
            user.ssh_authorized_keys = Some(u.ssh_authorized_keys.clone());
            user
        })
        .collect();
    if !users.is_empty() {
        config.passwd = Some(spec::Passwd {
            users: Some(users),
            ..Default::default()
        });
    }
    // An empty list for now, so `storage` keeps its place among the keys; filled below.
    if !assets.files.is_empty() {
        config.storage = Some(spec::Storage {
            files: Some(Vec::new()),
            ..Default::default()
        });
    }
    let units: Vec<spec::Unit> = assets
        .units
        .iter()
        .map(|u| {
            let mut unit = spec::Unit::new(u.name.clone());
            unit.contents = u.contents.clone();
            unit.enabled = u.enabled;
            if !u.dropins.is_empty() {
                unit.dropins = Some(
                    u.dropins
                        .iter()
                        .map(|d| {
                            let mut dropin = spec::Dropin::new(d.name.clone());
                            dropin.contents = Some(d.contents.clone());
                            dropin
                        })
                        .collect(),
                );
            }
            unit
        })
        .collect();
    if !units.is_empty() {
        config.systemd = Some(spec::Systemd { units: Some(units) });
    }
    let mut doc = to_doc(&config)?;
    if let Some(list) = doc
        .value
        .pointer_mut("/storage/files")
        .and_then(Value::as_array_mut)
    {
        list.reserve(assets.files.len());
        for file in assets.files {
            let mut entry =
                serde_json::to_value(file_entry(&file)).map_err(|e| Error::Ignition {
                    file: "<generated>".into(),
                    message: format!("cannot serialize {}: {e}", file.path),
                })?;
            drop(file);
            drop_nulls(&mut entry);
            list.push(entry);
        }
    }
    Ok(doc)
}

fn file_entry(f: &crate::assets::File) -> spec::File {
    let mut file = spec::File::new(f.path.clone());
    let resource = spec::Resource {
        source: Some(dataurl::encode(&f.contents)),
        ..Default::default()
    };
    if f.append {
        file.append = Some(vec![resource]);
        file.overwrite = Some(false);
    } else {
        file.contents = Some(resource);
        file.overwrite = Some(true);
    }
    file.mode = Some(i64::from(f.mode));
    file.user = Some(spec::NodeUser {
        name: Some("root".into()),
        ..Default::default()
    });
    file
}

/// A pointer config (`master.ign`/`worker.ign`): merge from `url`, trust `ca_pem`.
pub fn pointer(url: &str, ca_pem: &str) -> Result<IgnitionDoc> {
    let mut config = spec::Config::default();
    config.ignition.config = Some(spec::IgnitionConfig {
        merge: Some(vec![spec::Resource {
            source: Some(url.to_string()),
            ..Default::default()
        }]),
        ..Default::default()
    });
    config.ignition.security = Some(spec::Security {
        tls: Some(spec::SecurityTls {
            certificate_authorities: Some(vec![spec::Resource {
                source: Some(dataurl::encode(ca_pem.as_bytes())),
                ..Default::default()
            }]),
        }),
    });
    to_doc(&config)
}

fn to_doc(config: &spec::Config) -> Result<IgnitionDoc> {
    let mut value = serde_json::to_value(config).map_err(|e| Error::Ignition {
        file: "<generated>".into(),
        message: format!("cannot serialize: {e}"),
    })?;
    drop_nulls(&mut value);
    Ok(IgnitionDoc { value })
}

/// The crate's types write unset fields as `null`; the installer (and every reader) leaves them
/// out, so do the same. Removes every object member whose value is `null`, at any depth.
pub(crate) fn drop_nulls(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::{File, Unit};

    #[test]
    fn a_json_syntax_error_keeps_serde_jsons_words() {
        let nested = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let err = IgnitionDoc::parse(nested.as_bytes(), "nest.ign")
            .unwrap_err()
            .to_string();
        assert!(err.contains("recursion limit exceeded"), "{err}");
        let err = IgnitionDoc::parse(br#"{"ignition":{"version":"3.2.0"},}"#, "sx.ign")
            .unwrap_err()
            .to_string();
        // One past the `}` at column 33, as `validate` says (Go counts the byte it stopped at).
        assert!(
            err.contains("trailing comma") && err.contains("column 34"),
            "{err}"
        );
        // A key given twice is named, whichever copy comes first, in the words and with the
        // place the typed check gives one deeper down (below).
        for doubled in [
            br#"{"ignition":{"version":"3.2.0"},"ignition":{"version":"9.9.9"}}"#.as_slice(),
            br#"{"ignition":{"version":"9.9.9"},"ignition":{"version":"3.2.0"}}"#.as_slice(),
        ] {
            let err = IgnitionDoc::parse(doubled, "dup.ign")
                .unwrap_err()
                .to_string();
            assert_eq!(err, "dup.ign: key `ignition` is given twice in one object: Ignition would silently keep only the last value; write it once (line 1, column 42)");
        }
        // Deeper down too: the key, where it is, and no word of a schema.
        let err = IgnitionDoc::parse(
            br#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/a","mode":420,"mode":384}]}}"#,
            "dup.ign",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(err, "dup.ign: key `mode` is given twice in one object: Ignition would silently keep only the last value; write it once (line 1, column 82)");
    }

    #[test]
    fn builds_a_config_that_parses_back() {
        let mut set = AssetSet::default();
        set.add_file(File {
            path: "/etc/motd".into(),
            mode: 0o644,
            contents: b"hi\n".to_vec(),
            append: true,
        });
        set.add_unit(Unit {
            name: "a.service".into(),
            enabled: Some(true),
            contents: Some("[Unit]\n".into()),
            dropins: vec![],
        });
        let doc = build(set).unwrap();
        assert_eq!(doc.version(), "3.2.0");
        let bytes = doc.to_bytes();
        assert!(!bytes.contains(&b'\n'));
        let back = IgnitionDoc::parse(&bytes, "x.ign").unwrap();
        assert_eq!(back, doc);
        assert_eq!(
            doc.value.pointer("/storage/files/0/overwrite"),
            Some(&Value::Bool(false))
        );
        assert_eq!(
            doc.value.pointer("/storage/files/0/mode"),
            Some(&Value::from(420))
        );
    }

    /// The bytes are serde_json's, whatever the capacity guess, for values with every kind of
    /// JSON in them; the guess covers a built config, so its buffer never grows.
    #[test]
    fn bytes_are_the_json_and_their_capacity_is_guessed_from_above() {
        let mut set = AssetSet::default();
        for (index, size) in [0, 1, 300, 200_000].into_iter().enumerate() {
            set.add_file(File {
                path: format!("/etc/file-{index}"),
                mode: 0o600,
                contents: (0..size).map(|i| (i % 256) as u8).collect(),
                append: false,
            });
        }
        let built = build(set).unwrap();
        let weird = serde_json::json!({
            "a": [null, true, 1.5e300, -7, "x\"y\\z\u{1}é", {}, []],
            "": {"b": "\n\t".repeat(3)},
        });
        for value in [&built.value, &weird, &Value::Null] {
            let doc = IgnitionDoc {
                value: value.clone(),
            };
            let bytes = doc.to_bytes();
            assert_eq!(bytes, serde_json::to_vec(value).unwrap());
        }
        assert!(json_len_bound(&built.value) >= built.to_bytes().len());
    }

    #[test]
    fn parse_errors_say_what_is_wrong() {
        let e = |b: &str| {
            IgnitionDoc::parse(b.as_bytes(), "in.ign")
                .unwrap_err()
                .to_string()
        };
        assert!(e("{\"ignition\": {\"version\": \"3.2.0\"").contains("truncated"));
        assert!(e("variant: fcos\nversion: 1.4.0\n").contains("line 1"));
        assert!(e("{\"ignition\": {\"version\": \"2.2.0\"}}").contains("2.2.0"));
        assert!(e("{\"foo\": 1}").contains("ignition.version"));
        assert!(
            e("{\"ignition\": {\"version\": \"3.2.0\"}, \"storage\": {\"filez\": []}}")
                .contains("filez")
        );
    }
}
