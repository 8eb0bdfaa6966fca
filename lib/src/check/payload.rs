//! Reading a release payload from a mirror: its manifest (through an index, to the first
//! manifest listed), its layers newest first, and in them `release-manifests/image-references`,
//! the image stream that names every image of the release.

use super::probe::Probes;
use super::registry::Session;
use serde_json::Value;
use std::io::Read;

/// The file of a payload that names its images.
const IMAGE_REFERENCES: &str = "release-manifests/image-references";
/// The most of one layer read, decompressed.
const MAX_LAYER_BYTES: u64 = 1 << 30;
/// The most of the image-references file read.
const MAX_REFERENCES_BYTES: u64 = 16 << 20;

/// `/v2/<repository>/manifests/<reference>`.
pub(crate) fn manifest_path(repository: &str, reference: &str) -> String {
    format!("/v2/{repository}/manifests/{reference}")
}

fn fetch(
    session: &mut Session,
    probes: &dyn Probes,
    repository: &str,
    path: &str,
) -> Result<Vec<u8>, String> {
    let response = session.get(probes, path, &format!("repository:{repository}:pull"))?;
    match response.status {
        200 => Ok(response.body),
        301 | 302 | 303 | 307 | 308 => Err(format!(
            "{path} redirects to {}, a host the configs do not name (not followed)",
            response.header("location").unwrap_or("elsewhere")
        )),
        status => Err(format!(
            "{path}: HTTP {status}: {}",
            response.body_excerpt()
        )),
    }
}

/// The pull specs in the payload's image references.
pub(crate) fn image_references(
    session: &mut Session,
    probes: &dyn Probes,
    repository: &str,
    manifest: &[u8],
) -> Result<Vec<String>, String> {
    let mut manifest: Value =
        serde_json::from_slice(manifest).map_err(|e| format!("the manifest is not JSON: {e}"))?;
    if let Some(first) = manifest.get("manifests").and_then(|m| m.get(0)) {
        let digest = first
            .get("digest")
            .and_then(Value::as_str)
            .ok_or("an index without digests")?;
        let bytes = fetch(
            session,
            probes,
            repository,
            &manifest_path(repository, digest),
        )?;
        manifest =
            serde_json::from_slice(&bytes).map_err(|e| format!("the manifest is not JSON: {e}"))?;
    }
    let layers: Vec<String> = manifest
        .get("layers")
        .and_then(Value::as_array)
        .map(|layers| {
            layers
                .iter()
                .filter_map(|l| l.get("digest")?.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    // The payload's own files are in its last layers.
    for digest in layers.iter().rev() {
        let blob = fetch(
            session,
            probes,
            repository,
            &format!("/v2/{repository}/blobs/{digest}"),
        )?;
        if let Some(text) = find_in_layer(&blob)? {
            return parse_references(&text);
        }
    }
    Err(format!("no layer of the payload holds {IMAGE_REFERENCES}"))
}

/// The image-references file of a layer (gzip or plain tar), when it has one.
fn find_in_layer(blob: &[u8]) -> Result<Option<String>, String> {
    let reader: Box<dyn Read> = if blob.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::GzDecoder::new(blob))
    } else {
        Box::new(blob)
    };
    let mut archive = tar::Archive::new(reader.take(MAX_LAYER_BYTES));
    let entries = archive
        .entries()
        .map_err(|e| format!("a layer is not a tar archive: {e}"))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("a layer is damaged: {e}"))?;
        let is_it = entry
            .path()
            .map(|p| {
                p.to_string_lossy()
                    .trim_start_matches("./")
                    .ends_with(IMAGE_REFERENCES)
            })
            .unwrap_or(false);
        if is_it {
            let mut text = String::new();
            entry
                .take(MAX_REFERENCES_BYTES)
                .read_to_string(&mut text)
                .map_err(|e| format!("{IMAGE_REFERENCES} cannot be read: {e}"))?;
            return Ok(Some(text));
        }
    }
    Ok(None)
}

/// `spec.tags[].from.name` of the image stream.
fn parse_references(text: &str) -> Result<Vec<String>, String> {
    let stream: Value =
        serde_json::from_str(text).map_err(|e| format!("{IMAGE_REFERENCES} is not JSON: {e}"))?;
    let tags = stream
        .pointer("/spec/tags")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{IMAGE_REFERENCES} has no spec.tags"))?;
    Ok(tags
        .iter()
        .filter_map(|tag| tag.pointer("/from/name")?.as_str().map(str::to_string))
        .collect())
}
