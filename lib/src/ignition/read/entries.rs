//! A config's files and units as entries, and the text of one file.

use crate::error::{Error, Result};
use crate::ignition::{dataurl, IgnitionDoc};
use serde_json::Value;

/// The names of the config's units, in config order.
pub fn unit_names(doc: &IgnitionDoc) -> Vec<String> {
    doc.value
        .pointer("/systemd/units")
        .and_then(Value::as_array)
        .map(|units| {
            units
                .iter()
                .filter_map(|u| u.get("name").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether the config carries a secret a person other than its owner must not read: a file
/// that is a private key, kubeconfig, pull secret or Secret manifest, or a user's password
/// hash. A file that cannot be decoded counts as one (it cannot be shown to hold none).
pub fn holds_secrets(doc: &IgnitionDoc) -> bool {
    let secret_file = file_entries(doc).into_iter().enumerate().any(|(i, entry)| {
        crate::ignition::decode_file(i, entry).map_or(true, |file| {
            let bytes = file.contents.as_ref().or(file.append.first());
            crate::ignition::classify(&file.path, bytes.map(Vec::as_slice)).is_secret()
        })
    });
    let password = doc
        .value
        .pointer("/passwd/users")
        .and_then(Value::as_array)
        .is_some_and(|users| {
            users
                .iter()
                .any(|u| u.get("passwordHash").is_some_and(|h| !h.is_null()))
        });
    secret_file || password
}

/// Every file entry of the config.
pub fn file_entries(doc: &IgnitionDoc) -> Vec<&Value> {
    doc.value
        .pointer("/storage/files")
        .and_then(Value::as_array)
        .map(|files| files.iter().collect())
        .unwrap_or_default()
}

/// The decoded contents of the file at `path` (its `contents`, not appends), when present
/// and inline.
pub fn file_text(doc: &IgnitionDoc, path: &str) -> Option<String> {
    let entry = file_entries(doc)
        .into_iter()
        .find(|f| f.get("path").and_then(Value::as_str) == Some(path))?;
    let resource = entry.get("contents")?;
    let source = crate::ignition::decode::source_of(resource)?;
    let compression = resource.get("compression").and_then(Value::as_str);
    let bytes = dataurl::decode(source, compression).ok()?;
    String::from_utf8(bytes).ok()
}

fn cannot(path: &str, message: impl Into<String>) -> Error {
    Error::CannotPatch {
        path: path.to_string(),
        message: message.into(),
    }
}

/// The whole text of the file at `path` (`None` when the config has no such file). A file
/// bootgen cannot read back exactly (appended to, fetched from a URL, not UTF-8) is an error:
/// rewriting it would lose what the config really puts there.
pub fn read_text(doc: &IgnitionDoc, path: &str) -> Result<Option<String>> {
    let Some(entry) = file_entries(doc)
        .into_iter()
        .find(|f| f.get("path").and_then(Value::as_str) == Some(path))
    else {
        return Ok(None);
    };
    if entry
        .get("append")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty())
    {
        return Err(cannot(
            path,
            "the config appends to it, so bootgen cannot tell its whole text",
        ));
    }
    let Some(resource) = entry.get("contents").filter(|c| !c.is_null()) else {
        return Ok(Some(String::new()));
    };
    let Some(source) = crate::ignition::decode::source_of(resource) else {
        return Ok(Some(String::new()));
    };
    let compression = resource.get("compression").and_then(Value::as_str);
    let bytes = dataurl::decode(source, compression).map_err(|e| cannot(path, e.to_string()))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| cannot(path, "its contents are not UTF-8 text"))
}

/// True when the config carries cluster manifests (a bootstrap config), so cluster-side
/// files may be created.
pub fn has_manifests(doc: &IgnitionDoc) -> bool {
    file_entries(doc).iter().any(|f| {
        f.get("path")
            .and_then(Value::as_str)
            .is_some_and(|p| p.starts_with("/opt/openshift/manifests/"))
    })
}
