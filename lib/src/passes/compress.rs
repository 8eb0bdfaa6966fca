//! `--compress`: each file's inline contents (and append fragments) gzip-compressed, as
//! `compression: "gzip"` with a base64 data URL, wherever that makes the source shorter. Keys and
//! certificates are random data and rarely shrink, so they usually stay as they
//! are. Sources that are remote, already compressed or carry a verification hash are left alone
//! (the hash would have to be recomputed by whoever wrote it).
//!
//! Every 3.x spec has `compression` on file contents, 3.0 included (3.1 added it to config and
//! CA references, which this pass does not touch).

use super::Change;
use crate::error::{Error, Result};
use crate::ignition::{dataurl, IgnitionDoc};
use base64::Engine as _;
use serde_json::{Map, Value};

/// The prefix of a compressed source: the media type says nothing, the payload is gzip.
const GZIP_PREFIX: &str = "data:;base64,";

/// The gzip data URL that would replace `resource`'s source, when that is shorter; `None` for
/// sources left alone (remote, already compressed, verified) or that would not shrink.
fn gzipped_source(resource: &Map<String, Value>, at: &str) -> Result<Option<String>> {
    let Some(source) = resource.get("source").and_then(Value::as_str) else {
        return Ok(None);
    };
    let already = resource
        .get("compression")
        .and_then(Value::as_str)
        .is_some_and(|c| !c.is_empty());
    if !source.starts_with("data:")
        || already
        || resource.get("verification").is_some_and(|v| !v.is_null())
    {
        return Ok(None);
    }
    let bytes = dataurl::decode(source, None).map_err(|e| Error::Ignition {
        file: crate::error::UNNAMED_CONFIG.into(),
        message: format!("{at}: {e}"),
    })?;
    // The shortest gzip stream is 20 bytes, 28 in base64: a source no longer than the prefix
    // and those cannot shrink, so it is not compressed just to find that out (in a config of
    // many tiny files, setting up the compressor would be most of the work).
    if source.len() <= GZIP_PREFIX.len() + 28 {
        return Ok(None);
    }
    let gz = dataurl::gzip(&bytes);
    let mut compressed = String::with_capacity(GZIP_PREFIX.len() + gz.len() * 4 / 3 + 4);
    compressed.push_str(GZIP_PREFIX);
    base64::engine::general_purpose::STANDARD.encode_string(&gz, &mut compressed);
    Ok((compressed.len() < source.len()).then_some(compressed))
}

/// Compresses one resource when that is shorter; returns (old, new) source lengths when it did.
fn compress_resource(
    resource: &mut Map<String, Value>,
    at: &str,
) -> Result<Option<(usize, usize)>> {
    let Some(compressed) = gzipped_source(resource, at)? else {
        return Ok(None);
    };
    let before = resource
        .get("source")
        .and_then(Value::as_str)
        .map_or(0, str::len);
    let after = compressed.len();
    resource.insert("compression".into(), Value::String("gzip".into()));
    resource.insert("source".into(), Value::String(compressed));
    Ok(Some((before, after)))
}

/// What `--compress` would save on `doc`, in bytes of serialized config, worked out one file at
/// a time without changing (or copying) the config; `None` when nothing would shrink.
pub fn compress_saving(doc: &IgnitionDoc) -> Option<u64> {
    let mut saving = CompressSaving::default();
    for file in doc.value.pointer("/storage/files")?.as_array()? {
        saving.add(file);
    }
    saving.total()
}

/// [`compress_saving`] summed up one file entry at a time, for a caller that has the entries
/// one by one.
#[derive(Debug, Default)]
pub struct CompressSaving {
    saving: i64,
    any: bool,
}

impl CompressSaving {
    /// Adds what compressing the file entry `file` would save.
    pub fn add(&mut self, file: &Value) {
        // `,"compression":"gzip"` is added to each compressed resource.
        const ADDED_KEY: usize = r#","compression":"gzip""#.len();
        let resources = file.get("contents").into_iter().chain(
            file.get("append")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        );
        for resource in resources.filter_map(Value::as_object) {
            if let Ok(Some(compressed)) = gzipped_source(resource, "") {
                let before = resource
                    .get("source")
                    .and_then(Value::as_str)
                    .map_or(0, str::len);
                self.saving += before as i64 - compressed.len() as i64 - ADDED_KEY as i64;
                self.any = true;
            }
        }
    }

    /// The saving in bytes; `None` when nothing would shrink.
    pub fn total(&self) -> Option<u64> {
        (self.any && self.saving > 0).then_some(self.saving as u64)
    }
}

/// Gzips every file's contents where that is shorter. Returns one change summing it up, or
/// nothing when no file got shorter (the config is then unchanged).
pub fn compress_files(doc: &mut IgnitionDoc) -> Result<Vec<Change>> {
    let Some(files) = doc
        .value
        .pointer_mut("/storage/files")
        .and_then(Value::as_array_mut)
    else {
        return Ok(Vec::new());
    };
    let total = files.len();
    let (mut count, mut before, mut after) = (0, 0, 0);
    for (i, file) in files.iter_mut().enumerate() {
        let mut shrunk = false;
        if let Some(contents) = file.get_mut("contents").and_then(Value::as_object_mut) {
            if let Some((b, a)) =
                compress_resource(contents, &format!("$.storage.files[{i}].contents"))?
            {
                (before, after, shrunk) = (before + b, after + a, true);
            }
        }
        let appends = file.get_mut("append").and_then(Value::as_array_mut);
        for (j, fragment) in appends.into_iter().flatten().enumerate() {
            if let Some(fragment) = fragment.as_object_mut() {
                if let Some((b, a)) =
                    compress_resource(fragment, &format!("$.storage.files[{i}].append[{j}]"))?
                {
                    (before, after, shrunk) = (before + b, after + a, true);
                }
            }
        }
        count += usize::from(shrunk);
    }
    if count == 0 {
        return Ok(Vec::new());
    }
    Ok(vec![Change {
        target: "storage.files".into(),
        action: format!(
            "gzip-compressed {count} of {total} files: their sources shrank from {before} to {after} bytes"
        ),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ignition::decode;
    use serde_json::json;

    #[test]
    fn compresses_what_shrinks_and_keeps_the_decoded_bytes() {
        let text = "line of text that repeats\n".repeat(40);
        let mut doc = IgnitionDoc {
            value: json!({
                "ignition": {"version": "3.0.0"},
                "storage": {"files": [
                    {"path": "/big", "contents": {"source": dataurl::encode(text.as_bytes())}},
                    {"path": "/tiny", "contents": {"source": "data:,x"}},
                    {"path": "/remote", "contents": {"source": "https://example.com/x"}},
                    {"path": "/log", "append": [{"source": dataurl::encode(text.as_bytes())}]}
                ]}
            }),
        };
        let before = decode(&doc).unwrap();
        // The saving is worked out without changing the config, and is exactly what it saves.
        let saving = compress_saving(&doc).unwrap();
        let size = doc.to_bytes().len() as u64;
        let changes = compress_files(&mut doc).unwrap();
        assert_eq!(doc.to_bytes().len() as u64, size - saving);
        assert_eq!(changes.len(), 1);
        assert!(changes[0].action.contains("2 of 4"), "{}", changes[0]);
        assert_eq!(decode(&doc).unwrap(), before);
        assert_eq!(
            doc.value.pointer("/storage/files/0/contents/compression"),
            Some(&json!("gzip"))
        );
        assert_eq!(
            doc.value.pointer("/storage/files/1/contents/compression"),
            None
        );
        // A second run changes nothing.
        assert!(compress_files(&mut doc).unwrap().is_empty());
        assert_eq!(compress_saving(&doc), None);
    }
}
