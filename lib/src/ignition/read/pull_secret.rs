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

/// The `auths` key whose credentials a pull from `repository` (`host[:port]/path`) sends, as
/// containers-auth.json is read by podman, skopeo and CRI-O: the most specific key naming the
/// repository or a namespace it lies under (whole path components: `host/ocp` covers
/// `host/ocp/release`, `host/ocp/rel` does not), else the host's own.
pub fn auth_key_for<'k, K: AsRef<str>>(keys: &'k [K], repository: &str) -> Option<&'k K> {
    let mut candidate = repository.trim_end_matches('/');
    loop {
        if let Some(key) = keys.iter().find(|k| k.as_ref() == candidate) {
            return Some(key);
        }
        candidate = &candidate[..candidate.rfind('/')?];
    }
}

/// Whether a pull from any of a mirror host's `locations` sends credentials.
pub fn has_credentials(keys: &[String], locations: &[&str]) -> bool {
    locations.iter().any(|l| auth_key_for(keys, l).is_some())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_specific_key_of_whole_path_components_wins() {
        let keys = ["m:5000", "m:5000/ocp", "m:5000/ocp/release", "m:5000/other"];
        let key = |repository| auth_key_for(&keys, repository).copied();
        assert_eq!(key("m:5000/ocp/release"), Some("m:5000/ocp/release"));
        assert_eq!(key("m:5000/ocp/release-art"), Some("m:5000/ocp"));
        assert_eq!(key("m:5000/ocp"), Some("m:5000/ocp"));
        assert_eq!(key("m:5000/app"), Some("m:5000"));
        assert_eq!(key("n:5000/ocp/release"), None);
        // A namespace key covers nothing outside it, and no prefix of a component counts.
        let scoped = ["m:5000/other", "m:5000/ocp/rel"];
        assert_eq!(auth_key_for(&scoped, "m:5000/ocp/release"), None);
        assert!(!has_credentials(
            &["m:5000/other".to_string()],
            &["m:5000/ocp/release"]
        ));
        assert!(has_credentials(
            &["m:5000/ocp".to_string()],
            &["m:5000/app", "m:5000/ocp/release"]
        ));
    }
}
