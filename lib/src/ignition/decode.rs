//! Reading configs back: every file, unit and user of a config, decoded (data URLs, base64,
//! gzip) by the one decoder in `dataurl`. Every toolkit command and the golden view read
//! configs through here.

use super::{dataurl, IgnitionDoc};
use crate::error::{Error, Result};
use serde::Serialize;
use serde_json::Value;

/// A file entry, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecodedFile {
    /// Absolute path on the node.
    pub path: String,
    /// Mode, when set.
    pub mode: Option<u32>,
    /// `overwrite`, when set.
    pub overwrite: Option<bool>,
    /// Decoded `contents` (None when the entry has none, or a remote source).
    pub contents: Option<Vec<u8>>,
    /// Decoded `append` fragments.
    pub append: Vec<Vec<u8>>,
    /// Sources bootgen does not fetch (http, s3, ...).
    pub remote_sources: Vec<String>,
    /// Owner name or id, when set.
    pub user: Option<String>,
    /// Owning group name or id, when set.
    pub group: Option<String>,
}

/// What the node checks of one resource (`contents` or an `append` fragment) besides its
/// bytes, and how it fetches it: the files stage fails on a hash that does not match, sends
/// the headers, and decompresses a remote source.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ResourceTerms {
    /// `verification.hash`.
    pub(crate) hash: Option<String>,
    /// `compression` of a remote source (a data URL's is decoded away, so not a term).
    pub(crate) compression: Option<String>,
    /// `httpHeaders`, each name with its value (which may be a credential: shown redacted).
    pub(crate) headers: Vec<(String, String)>,
}

/// A resource's source URL. An empty one is none: Ignition writes an empty file for it (though
/// `overwrite` counts it as given).
pub(crate) fn source_of(resource: &Value) -> Option<&str> {
    resource
        .get("source")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// The terms of `resource`, an Ignition resource object.
pub(crate) fn resource_terms(resource: &Value) -> ResourceTerms {
    let remote = source_of(resource).is_some_and(|s| !s.starts_with("data:"));
    ResourceTerms {
        hash: resource
            .pointer("/verification/hash")
            .and_then(Value::as_str)
            .map(str::to_string),
        compression: str_of(resource, "compression").filter(|c| remote && !c.is_empty()),
        headers: resource
            .get("httpHeaders")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|h| {
                let value = h.get("value").and_then(Value::as_str).unwrap_or_default();
                (str_of(h, "name").unwrap_or_default(), value.to_string())
            })
            .collect(),
    }
}

/// A file entry's resources with their place: `contents`, `append[0]`, ...
pub(crate) fn file_resources(f: &Value) -> impl Iterator<Item = (String, &Value)> {
    let appended = f
        .get("append")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    f.get("contents")
        .map(|c| ("contents".to_string(), c))
        .into_iter()
        .chain(
            appended
                .enumerate()
                .map(|(j, r)| (format!("append[{j}]"), r)),
        )
}

/// A drop-in, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecodedDropin {
    /// File name.
    pub name: String,
    /// Text.
    pub contents: Option<String>,
}

/// A unit, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecodedUnit {
    /// Unit name.
    pub name: String,
    /// `enabled`, when set.
    pub enabled: Option<bool>,
    /// `mask`, when set.
    pub mask: Option<bool>,
    /// Unit text.
    pub contents: Option<String>,
    /// Drop-ins.
    pub dropins: Vec<DecodedDropin>,
}

/// A user, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecodedUser {
    /// Login name.
    pub name: String,
    /// authorized_keys entries.
    pub ssh_authorized_keys: Vec<String>,
    /// A password hash is set.
    pub has_password_hash: bool,
}

/// A whole config, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecodedConfig {
    /// `ignition.version`.
    pub version: String,
    /// Files, in config order.
    pub files: Vec<DecodedFile>,
    /// Units, in config order.
    pub units: Vec<DecodedUnit>,
    /// Users, in config order.
    pub users: Vec<DecodedUser>,
}

fn decode_resource(resource: &Value, at: &str) -> Result<(Option<Vec<u8>>, Option<String>)> {
    let Some(source) = source_of(resource) else {
        return Ok((Some(Vec::new()), None));
    };
    if !source.starts_with("data:") {
        return Ok((None, Some(source.to_string())));
    }
    let compression = resource.get("compression").and_then(Value::as_str);
    dataurl::decode(source, compression)
        .map(|bytes| (Some(bytes), None))
        .map_err(|e| Error::Ignition {
            file: crate::error::UNNAMED_CONFIG.into(),
            message: format!("{at}: {e}"),
        })
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The config's files, decoded one at a time: a caller that needs only a summary of each never
/// holds every file's contents at once.
pub fn decoded_files(doc: &IgnitionDoc) -> impl Iterator<Item = Result<DecodedFile>> + '_ {
    doc.value
        .pointer("/storage/files")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .enumerate()
        .map(|(i, f)| decode_file(i, f))
}

/// Decodes one file entry; `i` is its index, for errors.
pub fn decode_file(i: usize, f: &Value) -> Result<DecodedFile> {
    let path = str_of(f, "path").unwrap_or_default();
    let mut remote = Vec::new();
    let contents = match f.get("contents") {
        Some(resource) => {
            let (bytes, url) =
                decode_resource(resource, &format!("$.storage.files[{i}].contents ({path})"))?;
            remote.extend(url);
            bytes
        }
        None => None,
    };
    let mut append = Vec::new();
    for (j, resource) in f
        .get("append")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let (bytes, url) = decode_resource(
            resource,
            &format!("$.storage.files[{i}].append[{j}] ({path})"),
        )?;
        append.extend(bytes);
        remote.extend(url);
    }
    let owner = |key: &str| {
        f.get(key).and_then(|o| {
            str_of(o, "name")
                .or_else(|| o.get("id").and_then(Value::as_i64).map(|id| id.to_string()))
        })
    };
    Ok(DecodedFile {
        path,
        mode: f.get("mode").and_then(Value::as_u64).map(|m| m as u32),
        overwrite: f.get("overwrite").and_then(Value::as_bool),
        contents,
        append,
        remote_sources: remote,
        user: owner("user"),
        group: owner("group"),
    })
}

/// Decodes every file, unit and user of a config.
pub fn decode(doc: &IgnitionDoc) -> Result<DecodedConfig> {
    Ok(DecodedConfig {
        version: doc.version().to_string(),
        files: decoded_files(doc).collect::<Result<_>>()?,
        units: decode_units(doc),
        users: decode_users(doc),
    })
}

/// Borrowed, not cloned: a copy of a large config's lists would double its memory.
fn list<'a>(doc: &'a IgnitionDoc, pointer: &str) -> &'a [Value] {
    doc.value
        .pointer(pointer)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The config's units, decoded.
pub fn decode_units(doc: &IgnitionDoc) -> Vec<DecodedUnit> {
    list(doc, "/systemd/units")
        .iter()
        .map(|u| DecodedUnit {
            name: str_of(u, "name").unwrap_or_default(),
            enabled: u.get("enabled").and_then(Value::as_bool),
            mask: u.get("mask").and_then(Value::as_bool),
            contents: str_of(u, "contents"),
            dropins: u
                .get("dropins")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|d| DecodedDropin {
                    name: str_of(d, "name").unwrap_or_default(),
                    contents: str_of(d, "contents"),
                })
                .collect(),
        })
        .collect()
}

/// The config's users, decoded.
pub fn decode_users(doc: &IgnitionDoc) -> Vec<DecodedUser> {
    list(doc, "/passwd/users")
        .iter()
        .map(|u| DecodedUser {
            name: str_of(u, "name").unwrap_or_default(),
            ssh_authorized_keys: u
                .get("sshAuthorizedKeys")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect(),
            has_password_hash: u.get("passwordHash").and_then(Value::as_str).is_some(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_empty_source_is_an_empty_file_not_a_remote_one() {
        let entry = json!({"path": "/etc/a", "contents": {"source": ""}});
        let file = decode_file(0, &entry).unwrap();
        assert_eq!(file.contents, Some(Vec::new()));
        assert!(file.remote_sources.is_empty());
    }
}
