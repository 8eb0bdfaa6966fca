//! The node's pull secrets read back: which registries they hold credentials for.

use super::read_text;
use crate::ignition::IgnitionDoc;
use base64::Engine;
use serde_json::Value;

/// The node's pull secret, for podman and the kubelet.
pub const NODE_PULL_SECRET: &str = "/root/.docker/config.json";
/// The cluster's pull secret.
pub const PULL_SECRET_MANIFEST: &str =
    "/opt/openshift/manifests/openshift-config-secret-pull-secret.yaml";
/// The registry keys of a docker config JSON's `auths`, normalized.
pub fn auth_keys(text: Option<String>) -> Result<Vec<String>, String> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Ok(Vec::new());
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "the pull secret is not JSON (line {}, column {})",
            e.line(),
            e.column()
        )
    })?;
    Ok(value
        .get("auths")
        .and_then(Value::as_object)
        .map(|a| {
            a.keys()
                .map(|k| normalize_auth_key(k).to_string())
                .collect()
        })
        .unwrap_or_default())
}

/// The cluster pull secret's keys, when the config has that manifest and it can be read.
pub fn manifest_auth_keys(doc: &IgnitionDoc) -> Option<Vec<String>> {
    let text = read_text(doc, PULL_SECRET_MANIFEST).ok().flatten()?;
    let manifest: serde_yaml_ng::Value = crate::config::depth::from_str(&text).ok()?;
    let encoded = manifest.get("data")?.get(".dockerconfigjson")?.as_str()?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    auth_keys(String::from_utf8(decoded).ok()).ok()
}

/// containers-auth.json lookup: an entry for the host, or for a namespace the mirror's
/// repositories lie under.
pub fn has_credentials(keys: &[String], host: &str, locations: &[&str]) -> bool {
    keys.iter().any(|key| {
        key == host
            || locations
                .iter()
                .any(|l| l == key || l.starts_with(&format!("{key}/")))
    })
}

/// The registry part of an `auths` key, without a scheme or a trailing `/v1/`.
pub fn normalize_auth_key(key: &str) -> &str {
    let key = key
        .strip_prefix("https://")
        .or_else(|| key.strip_prefix("http://"))
        .unwrap_or(key);
    let key = key.trim_end_matches('/');
    key.strip_suffix("/v1")
        .or_else(|| key.strip_suffix("/v2"))
        .unwrap_or(key)
}
