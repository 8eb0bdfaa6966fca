//! The mirror's CA: added to the node's trust anchors (so podman and CRI-O trust the mirror)
//! and to the cluster's `user-ca-bundle` ConfigMap (so the cluster does too).

use super::options::TrustBundle;
use super::{has_manifests, read_text, render_template};
use crate::error::{Error, Result};
use crate::ignition::read::{parse_certificates, Certificate};
use crate::ignition::read::{ANCHORS, USER_CA_BUNDLE};
use crate::ignition::IgnitionDoc;
use crate::passes::doc_edit::set_file_text;
use crate::passes::Change;

const USER_CA_BUNDLE_TEMPLATE: &str = "node/opt/openshift/manifests/user-ca-bundle-config.yaml.j2";

fn cannot(path: &str, message: String) -> Error {
    Error::CannotPatch {
        path: path.to_string(),
        message,
    }
}

/// `existing` PEM text plus the bundle's certificates it does not hold yet (compared by DER).
/// Returns the new text and the subjects added.
pub fn merge_pem(
    existing: &str,
    bundle: &TrustBundle,
    path: &str,
) -> Result<(String, Vec<String>)> {
    let known: Vec<Certificate> = parse_certificates(existing.as_bytes())
        .map_err(|m| cannot(path, format!("the existing bundle {m}")))?;
    let mut seen: Vec<&[u8]> = known.iter().map(|k| k.der.as_slice()).collect();
    let mut text = existing.trim_end().to_string();
    let mut added = Vec::new();
    for cert in &bundle.certificates {
        if seen.contains(&cert.der.as_slice()) {
            continue;
        }
        seen.push(&cert.der);
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(cert.pem().trim_end());
        added.push(cert.subject.clone());
    }
    if !text.is_empty() {
        text.push('\n');
    }
    Ok((text, added))
}

/// Adds the bundle to the anchors and to the user-ca-bundle manifest (created in configs that
/// carry cluster manifests).
pub fn apply(doc: &mut IgnitionDoc, bundle: &TrustBundle) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    let existing = read_text(doc, ANCHORS)?.unwrap_or_default();
    let (anchors, added) = merge_pem(&existing, bundle, ANCHORS)?;
    if !added.is_empty() {
        set_file_text(doc, ANCHORS, &anchors, 0o600)?;
        changes.push(Change {
            target: ANCHORS.into(),
            action: format!("trusts {} from {}", added.join("; "), bundle.name),
        });
    }
    let current = match read_text(doc, USER_CA_BUNDLE)? {
        Some(text) => Some(bundle_of_manifest(&text)?),
        None if has_manifests(doc) => None,
        None => return Ok(changes),
    };
    let (merged, added) = merge_pem(current.as_deref().unwrap_or(""), bundle, USER_CA_BUNDLE)?;
    if !added.is_empty() {
        let text = render_template(
            USER_CA_BUNDLE_TEMPLATE,
            &serde_json::json!({ "user_ca_bundle": merged }),
        )?;
        set_file_text(doc, USER_CA_BUNDLE, &text, 0o644)?;
        changes.push(Change {
            target: USER_CA_BUNDLE.into(),
            action: match current {
                Some(_) => format!("ca-bundle.crt gains {}", added.join("; ")),
                None => format!("created with {}", added.join("; ")),
            },
        });
    }
    Ok(changes)
}

/// The `ca-bundle.crt` of a user-ca-bundle ConfigMap.
fn bundle_of_manifest(text: &str) -> Result<String> {
    let value: serde_yaml_ng::Value = crate::config::depth::from_str(text)
        .map_err(|e| cannot(USER_CA_BUNDLE, format!("the manifest is not YAML: {e}")))?;
    let is_config_map =
        value.get("kind").and_then(serde_yaml_ng::Value::as_str) == Some("ConfigMap");
    let bundle = value
        .get("data")
        .and_then(|d| d.get("ca-bundle.crt"))
        .and_then(serde_yaml_ng::Value::as_str);
    match (is_config_map, bundle) {
        (true, Some(bundle)) => Ok(bundle.to_string()),
        _ => Err(cannot(
            USER_CA_BUNDLE,
            "expected a ConfigMap with data.ca-bundle.crt".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::passes::mirrors::tests::ca_pem as ca;

    #[test]
    fn adds_only_new_certificates() {
        let (a, b) = (ca("A"), ca("B"));
        let bundle = TrustBundle::parse("b.pem", format!("{a}{b}").as_bytes()).unwrap();
        let (text, added) = merge_pem(&a, &bundle, ANCHORS).unwrap();
        assert_eq!(added, vec!["CN=B".to_string()]);
        assert_eq!(parse_certificates(text.as_bytes()).unwrap().len(), 2);
        assert!(text.ends_with("-----END CERTIFICATE-----\n"));
        let (again, none) = merge_pem(&text, &bundle, ANCHORS).unwrap();
        assert!(none.is_empty());
        assert_eq!(again, text);
        let (fresh, _) = merge_pem("", &bundle, ANCHORS).unwrap();
        assert!(fresh.starts_with("-----BEGIN CERTIFICATE-----\n"));
    }

    #[test]
    fn reads_the_manifest_bundle() {
        let pem = ca("A");
        let text = render_template(
            USER_CA_BUNDLE_TEMPLATE,
            &serde_json::json!({ "user_ca_bundle": pem }),
        )
        .unwrap();
        assert_eq!(
            bundle_of_manifest(&text).unwrap().trim_end(),
            pem.trim_end()
        );
        assert!(bundle_of_manifest("kind: Secret\n").is_err());
    }
}
