//! The cluster's copy of the mirror rules: the ImageDigestMirrorSet manifest (or the
//! deprecated ImageContentSourcePolicy a config already has), so the masters use the same
//! mirrors as the bootstrap node.

use super::{has_manifests, read_text, remove_file, render_template};
use crate::error::{Error, Result};
use crate::ignition::IgnitionDoc;
use crate::model::mirrors::{merge, Registry};
use crate::passes::doc_edit::set_file_text;
use crate::passes::Change;
use serde::Deserialize;

/// The IDMS manifest.
pub const IDMS: &str = "/opt/openshift/manifests/image-digest-mirror-set.yaml";
/// The ICSP manifest.
pub const ICSP: &str = "/opt/openshift/manifests/image-content-source-policy.yaml";
const IDMS_TEMPLATE: &str = "node/opt/openshift/manifests/image-digest-mirror-set.yaml.j2";
const ICSP_TEMPLATE: &str = "node/opt/openshift/manifests/image-content-source-policy.yaml.j2";

#[derive(Deserialize)]
struct Manifest {
    kind: String,
    spec: Spec,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Spec {
    #[serde(default)]
    image_digest_mirrors: Vec<Entry>,
    #[serde(default)]
    repository_digest_mirrors: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    source: String,
    #[serde(default)]
    mirrors: Vec<String>,
    mirror_source_policy: Option<String>,
}

/// The rules of an IDMS or ICSP manifest, as (source, mirrors, blocked).
fn rules_of(path: &str, text: &str, kind: &str) -> Result<Vec<(String, Vec<String>, bool)>> {
    let cannot = |message: String| Error::CannotPatch {
        path: path.to_string(),
        message,
    };
    let manifest: Manifest = serde_yaml_ng::from_str(text)
        .map_err(|e| cannot(format!("expected a single {kind} manifest: {e}")))?;
    if manifest.kind != kind {
        return Err(cannot(format!(
            "expected a {kind}, found a {}",
            manifest.kind
        )));
    }
    let entries = manifest
        .spec
        .image_digest_mirrors
        .into_iter()
        .chain(manifest.spec.repository_digest_mirrors);
    Ok(entries
        .map(|e| {
            let blocked = e.mirror_source_policy.as_deref() == Some("NeverContactSource");
            (e.source, e.mirrors, blocked)
        })
        .collect())
}

/// Brings the cluster manifests in line with the node's registries: the existing manifest's
/// rules first, then the node's, merged. An ICSP is kept while nothing must be blocked;
/// NeverContactSource needs an IDMS, so the ICSP is then replaced by one (a cluster must not
/// carry both kinds).
pub fn apply(doc: &mut IgnitionDoc, registries: &[Registry]) -> Result<Vec<Change>> {
    let node_rules = registries
        .iter()
        .filter(|r| !r.mirrors.is_empty())
        .map(|r| {
            (
                r.location.clone(),
                r.mirrors.iter().map(|m| m.location.clone()).collect(),
                r.blocked,
            )
        });
    let idms_text = read_text(doc, IDMS)?;
    let icsp_text = read_text(doc, ICSP)?;
    if idms_text.is_none() && icsp_text.is_none() && !has_manifests(doc) {
        return Ok(Vec::new());
    }
    let mut rules = Vec::new();
    if let Some(text) = &icsp_text {
        rules.extend(rules_of(ICSP, text, "ImageContentSourcePolicy")?);
    }
    if let Some(text) = &idms_text {
        rules.extend(rules_of(IDMS, text, "ImageDigestMirrorSet")?);
    }
    rules.extend(node_rules);
    let merged = merge(rules);
    let any_blocked = merged.iter().any(|r| r.blocked);
    let context = serde_json::json!({ "registries": merged });
    let mut changes = Vec::new();
    let keep_icsp = icsp_text.is_some() && !any_blocked;
    if keep_icsp {
        let text = render_template(ICSP_TEMPLATE, &context)?;
        if icsp_text.as_deref() != Some(text.as_str()) {
            set_file_text(doc, ICSP, &text, 0o644)?;
            changes.push(Change {
                target: ICSP.into(),
                action: format!("{} mirrored source(s)", merged.len()),
            });
        }
    } else if icsp_text.is_some() {
        remove_file(doc, ICSP);
        changes.push(Change {
            target: ICSP.into(),
            action: format!(
                "replaced by {IDMS}: an ImageContentSourcePolicy cannot say NeverContactSource"
            ),
        });
    }
    if !keep_icsp || idms_text.is_some() {
        let text = render_template(IDMS_TEMPLATE, &context)?;
        if idms_text.as_deref() != Some(text.as_str()) {
            set_file_text(doc, IDMS, &text, 0o644)?;
            let blocked = merged.iter().filter(|r| r.blocked).count();
            changes.push(Change {
                target: IDMS.into(),
                action: format!(
                    "{} mirrored source(s), {blocked} with mirrorSourcePolicy NeverContactSource",
                    merged.len()
                ),
            });
        }
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_kinds() {
        let idms = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: x\nspec:\n  imageDigestMirrors:\n  - source: a.io/x\n    mirrors:\n    - m.io/x\n    mirrorSourcePolicy: NeverContactSource\n";
        assert_eq!(
            rules_of(IDMS, idms, "ImageDigestMirrorSet").unwrap(),
            vec![("a.io/x".into(), vec!["m.io/x".into()], true)]
        );
        let icsp = "kind: ImageContentSourcePolicy\nspec:\n  repositoryDigestMirrors:\n  - source: a.io/x\n    mirrors: [m.io/x]\n";
        assert_eq!(
            rules_of(ICSP, icsp, "ImageContentSourcePolicy").unwrap(),
            vec![("a.io/x".into(), vec!["m.io/x".into()], false)]
        );
        let err = rules_of(IDMS, icsp, "ImageDigestMirrorSet")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(IDMS) && err.contains("found a ImageContentSourcePolicy"),
            "{err}"
        );
    }
}
