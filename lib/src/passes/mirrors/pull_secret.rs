//! Mirror credentials merged into the pull secret: the node's `/root/.docker/config.json` and
//! the cluster's `openshift-config/pull-secret` manifest. An entry given on the command line
//! replaces the config's entry for the same registry, with a notice naming the registry (never
//! the credentials).

use super::options::RegistryAuth;
use super::{has_manifests, read_text, render_template};
use crate::error::{Error, Result};
use crate::ignition::read::{NODE_PULL_SECRET, PULL_SECRET_MANIFEST};
use crate::ignition::IgnitionDoc;
use crate::passes::doc_edit::set_file_text;
use crate::passes::Change;
use base64::Engine;
use serde_json::{Map, Value};

const MANIFEST_TEMPLATE: &str =
    "node/opt/openshift/manifests/openshift-config-secret-pull-secret.yaml.j2";

fn cannot(path: &str, message: impl Into<String>) -> Error {
    Error::CannotPatch {
        path: path.to_string(),
        message: message.into(),
    }
}

/// Merges `auth` into the docker config JSON `existing` (from the file at `path`, for
/// messages). Returns the new compact JSON and one change per registry added or replaced.
pub fn merge_auths(
    existing: &str,
    auth: &RegistryAuth,
    path: &str,
) -> Result<(String, Vec<Change>)> {
    let mut config: Value = if existing.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_json::from_str(existing).map_err(|e| {
            cannot(
                path,
                format!(
                    "the pull secret is not JSON (line {}, column {})",
                    e.line(),
                    e.column()
                ),
            )
        })?
    };
    let root = config
        .as_object_mut()
        .ok_or_else(|| cannot(path, "the pull secret is not a JSON object"))?;
    let auths = root
        .entry("auths")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| cannot(path, "the pull secret's `auths` is not an object"))?;
    let mut changes = Vec::new();
    for (key, entry) in &auth.entries {
        let action = match auths.get(key) {
            Some(old) if old == entry => continue,
            Some(_) => format!(
                "credentials for {key} replaced by the ones in {} (the command line wins)",
                auth.name
            ),
            None => format!("credentials for {key} added from {}", auth.name),
        };
        auths.insert(key.clone(), entry.clone());
        changes.push(Change {
            target: path.to_string(),
            action,
        });
    }
    let text = serde_json::to_string(&config)
        .map_err(|e| cannot(path, format!("cannot serialize the pull secret: {e}")))?;
    Ok((text, changes))
}

/// Merges `auth` into the node's pull secret and the cluster's pull-secret manifest (the
/// manifest is created only in configs that carry cluster manifests).
pub fn apply(doc: &mut IgnitionDoc, auth: &RegistryAuth) -> Result<Vec<Change>> {
    let existing = read_text(doc, NODE_PULL_SECRET)?.unwrap_or_default();
    let (node_secret, mut changes) = merge_auths(&existing, auth, NODE_PULL_SECRET)?;
    if !changes.is_empty() || existing.trim().is_empty() {
        set_file_text(doc, NODE_PULL_SECRET, &node_secret, 0o600)?;
    }
    match read_text(doc, PULL_SECRET_MANIFEST)? {
        Some(manifest) => {
            let (updated, manifest_changes) = update_manifest(&manifest, auth)?;
            if !manifest_changes.is_empty() {
                set_file_text(doc, PULL_SECRET_MANIFEST, &updated, 0o644)?;
                changes.extend(manifest_changes);
            }
        }
        None if has_manifests(doc) => {
            let text = render_template(
                MANIFEST_TEMPLATE,
                &serde_json::json!({ "pull_secret": node_secret }),
            )?;
            set_file_text(doc, PULL_SECRET_MANIFEST, &text, 0o644)?;
            changes.push(Change {
                target: PULL_SECRET_MANIFEST.into(),
                action: "created with the merged pull secret".into(),
            });
        }
        None => {}
    }
    Ok(changes)
}

/// Replaces the base64 `.dockerconfigjson` value in the manifest text, leaving every other
/// byte as it was.
fn update_manifest(text: &str, auth: &RegistryAuth) -> Result<(String, Vec<Change>)> {
    let path = PULL_SECRET_MANIFEST;
    let manifest: serde_yaml_ng::Value = crate::config::depth::from_str(text)
        .map_err(|e| cannot(path, format!("the manifest is not YAML: {e}")))?;
    let encoded = manifest
        .get("data")
        .and_then(|d| d.get(".dockerconfigjson"))
        .and_then(serde_yaml_ng::Value::as_str)
        .ok_or_else(|| {
            cannot(
                path,
                "the manifest has no data..dockerconfigjson; is it a kubernetes.io/dockerconfigjson Secret?",
            )
        })?;
    let engine = base64::engine::general_purpose::STANDARD;
    let decoded = engine
        .decode(encoded.trim())
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| cannot(path, "data..dockerconfigjson is not base64 of UTF-8 text"))?;
    let (merged, changes) = merge_auths(&decoded, auth, path)?;
    if changes.is_empty() {
        return Ok((text.to_string(), changes));
    }
    if text.matches(encoded).count() != 1 {
        return Err(cannot(
            path,
            "the .dockerconfigjson value is not written once on its own, so bootgen cannot replace it safely",
        ));
    }
    Ok((text.replacen(encoded, &engine.encode(merged), 1), changes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(json: &str) -> RegistryAuth {
        RegistryAuth::parse("auth.json", json.as_bytes()).unwrap()
    }

    #[test]
    fn command_line_entries_win_with_a_notice_naming_the_host() {
        let existing =
            r#"{"auths":{"quay.io":{"auth":"cTp4"},"m.io:5000":{"auth":"b2xkOm9sZA=="}}}"#;
        let cli = auth(r#"{"auths":{"m.io:5000":{"auth":"bmV3Om5ldw=="},"n.io":{"auth":"bjpu"}}}"#);
        let (text, changes) = merge_auths(existing, &cli, NODE_PULL_SECRET).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["auths"]["m.io:5000"]["auth"], "bmV3Om5ldw==");
        assert_eq!(value["auths"]["quay.io"]["auth"], "cTp4");
        assert_eq!(value["auths"]["n.io"]["auth"], "bjpu");
        let notes: Vec<String> = changes.iter().map(ToString::to_string).collect();
        assert!(notes[0].contains("m.io:5000") && notes[0].contains("command line wins"));
        assert!(notes[1].contains("n.io") && notes[1].contains("added"));
        for note in &notes {
            assert!(
                !note.contains("bmV3") && !note.contains("new:new"),
                "{note}"
            );
        }
        // Merging again changes nothing.
        let (_, again) = merge_auths(&text, &cli, NODE_PULL_SECRET).unwrap();
        assert!(again.is_empty());
    }

    #[test]
    fn broken_pull_secrets_are_named_not_printed() {
        let cli = auth(r#"{"auths":{"m.io":{"auth":"bTpt"}}}"#);
        let err = merge_auths("{\"auths\": [secret", &cli, NODE_PULL_SECRET)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(NODE_PULL_SECRET) && !err.contains("secret\""),
            "{err}"
        );
        assert!(merge_auths("[]", &cli, NODE_PULL_SECRET).is_err());
    }

    #[test]
    fn manifest_value_is_replaced_in_place() {
        let engine = base64::engine::general_purpose::STANDARD;
        let old = engine.encode(r#"{"auths":{"quay.io":{"auth":"cTp4"}}}"#);
        let text = format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: pull-secret\n  namespace: openshift-config\n  labels:\n    keep: me\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: {old}\n"
        );
        let cli = auth(r#"{"auths":{"m.io":{"auth":"bTpt"}}}"#);
        let (updated, changes) = update_manifest(&text, &cli).unwrap();
        assert_eq!(changes.len(), 1);
        assert!(updated.contains("keep: me"));
        let value: serde_yaml_ng::Value = serde_yaml_ng::from_str(&updated).unwrap();
        let decoded = engine
            .decode(value["data"][".dockerconfigjson"].as_str().unwrap())
            .unwrap();
        let json: Value = serde_json::from_slice(&decoded).unwrap();
        assert_eq!(json["auths"]["m.io"]["auth"], "bTpt");
        assert_eq!(json["auths"]["quay.io"]["auth"], "cTp4");
        assert!(update_manifest("kind: ConfigMap\n", &cli).is_err());
    }
}
