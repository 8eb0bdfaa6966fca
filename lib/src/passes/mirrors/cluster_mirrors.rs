//! The cluster's copy of the mirror rules: the ImageDigestMirrorSet manifest (or the
//! deprecated ImageContentSourcePolicy a config already has), so the masters use the same
//! mirrors as the bootstrap node.

use super::{has_manifests, read_text, remove_file, render_template};
use crate::error::{Error, Result};
use crate::ignition::IgnitionDoc;
use crate::model::mirrors::{merge, Registry};
use crate::passes::doc_edit::{file_entries, set_file_text};
use crate::passes::Change;
use crate::release::{profile_for, Minor};
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

/// Which mirror manifests the config's release takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ManifestStyle {
    /// An ImageDigestMirrorSet (or one ImageContentSourcePolicy the config already has), as
    /// installers from 4.14 write.
    DigestMirrorSet,
    /// One ImageContentSourcePolicy per mirrored source, numbered, as installers before 4.14
    /// write (the cluster has no ImageDigestMirrorSet before 4.13, and 4.13 refuses both kinds
    /// at once); `release` names the release in messages.
    PerSourcePolicies {
        /// `4.12`, or `of this config (...)` when the config does not say its version.
        release: String,
    },
}

const DIR: &str = "/opt/openshift/manifests/";

/// The numbered ICSP manifests installers before 4.14 write (`image-content-source-policy-0.yaml`).
fn numbered_policies(doc: &IgnitionDoc) -> Vec<String> {
    file_entries(doc)
        .iter()
        .filter_map(|f| f.get("path").and_then(serde_json::Value::as_str))
        .filter(|p| {
            p.strip_prefix(DIR)
                .and_then(|n| n.strip_prefix("image-content-source-policy-"))
                .and_then(|n| n.strip_suffix(".yaml"))
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        .map(str::to_string)
        .collect()
}

/// The style of the config's release: from `release` when the caller knows it, else from the
/// release the config says it was made for, else from the manifests it already has.
pub(crate) fn style_of(doc: &IgnitionDoc, release: Option<Minor>) -> ManifestStyle {
    let minor = release.or_else(|| {
        let guess = crate::report::release_of(doc)?;
        let mut parts = guess.version.split('.');
        format!("{}.{}", parts.next()?, parts.next()?).parse().ok()
    });
    match minor.and_then(profile_for) {
        Some(profile)
            if !profile
                .features(Default::default())
                .has(crate::release::Feature::ImageDigestMirrorSet) =>
        {
            ManifestStyle::PerSourcePolicies {
                release: profile.minor.to_string(),
            }
        }
        Some(_) => ManifestStyle::DigestMirrorSet,
        None if !numbered_policies(doc).is_empty() => ManifestStyle::PerSourcePolicies {
            release: "of this config (it has one ImageContentSourcePolicy per source, as installers before 4.14 write)".into(),
        },
        None => ManifestStyle::DigestMirrorSet,
    }
}

/// Brings the cluster manifests in line with the node's registries: the existing manifests'
/// rules first, then the node's, merged, in the kind the config's release takes (`style`).
pub(crate) fn apply(
    doc: &mut IgnitionDoc,
    registries: &[Registry],
    style: &ManifestStyle,
) -> Result<Vec<Change>> {
    match style {
        ManifestStyle::DigestMirrorSet => apply_digest_mirror_set(doc, registries),
        ManifestStyle::PerSourcePolicies { release } => {
            apply_per_source_policies(doc, registries, release)
        }
    }
}

fn node_rules(registries: &[Registry]) -> impl Iterator<Item = (String, Vec<String>, bool)> + '_ {
    registries
        .iter()
        .filter(|r| !r.mirrors.is_empty())
        .map(|r| {
            (
                r.location.clone(),
                r.mirrors.iter().map(|m| m.location.clone()).collect(),
                r.blocked,
            )
        })
}

/// Before 4.14: one ImageContentSourcePolicy per source, as that release's installer writes
/// them. A blocked source cannot be said in one, and the release's cluster either has no
/// ImageDigestMirrorSet or refuses it beside the policies: that is an error naming the release.
fn apply_per_source_policies(
    doc: &mut IgnitionDoc,
    registries: &[Registry],
    release: &str,
) -> Result<Vec<Change>> {
    let existing = numbered_policies(doc);
    let idms_text = read_text(doc, IDMS)?;
    let icsp_text = read_text(doc, ICSP)?;
    if existing.is_empty() && idms_text.is_none() && icsp_text.is_none() && !has_manifests(doc) {
        return Ok(Vec::new());
    }
    let mut rules = Vec::new();
    let mut before = Vec::new();
    for path in &existing {
        let text = read_text(doc, path)?.unwrap_or_default();
        rules.extend(rules_of(path, &text, "ImageContentSourcePolicy")?);
        before.push((path.clone(), text));
    }
    if let Some(text) = &icsp_text {
        rules.extend(rules_of(ICSP, text, "ImageContentSourcePolicy")?);
    }
    if let Some(text) = &idms_text {
        rules.extend(rules_of(IDMS, text, "ImageDigestMirrorSet")?);
    }
    rules.extend(node_rules(registries));
    let merged = merge(rules);
    if let Some(blocked) = merged.iter().find(|r| r.blocked) {
        return Err(Error::ReleaseCannot {
            release: release.to_string(),
            message: format!(
                "keep the cluster from contacting {}: its installer writes ImageContentSourcePolicy manifests, which cannot say NeverContactSource (ImageDigestMirrorSet manifests come with 4.14); mirror without blocking the source, or make the config for 4.14 or later",
                blocked.location
            ),
        });
    }
    let width = merged.len().to_string().len();
    let mut written = Vec::new();
    for (i, registry) in merged.iter().enumerate() {
        let context = serde_json::json!({
            "registries": [registry],
            "mirror_name": format!("image-policy-{i:0width$}"),
        });
        let path = format!("{DIR}image-content-source-policy-{i:0width$}.yaml");
        written.push((path, render_template(ICSP_TEMPLATE, &context)?));
    }
    if written == before && idms_text.is_none() && icsp_text.is_none() {
        return Ok(Vec::new());
    }
    let mut changes = Vec::new();
    let stale = existing
        .iter()
        .map(String::as_str)
        .chain([ICSP, IDMS])
        .filter(|path| !written.iter().any(|(p, _)| p == path))
        .map(str::to_string)
        .collect::<Vec<_>>();
    for path in stale {
        if read_text(doc, &path)?.is_some() {
            remove_file(doc, &path);
            changes.push(Change {
                target: path,
                action: format!(
                    "removed: release {release} takes one ImageContentSourcePolicy per mirrored source"
                ),
            });
        }
    }
    for ((path, text), registry) in written.into_iter().zip(&merged) {
        if !before.contains(&(path.clone(), text.clone())) {
            set_file_text(doc, &path, &text, 0o644)?;
            changes.push(Change {
                target: path,
                action: format!(
                    "ImageContentSourcePolicy for {} (release {release})",
                    registry.location
                ),
            });
        }
    }
    Ok(changes)
}

/// From 4.14: an ICSP is kept while nothing must be blocked; NeverContactSource needs an
/// IDMS, so the ICSP is then replaced by one (a cluster must not carry both kinds).
fn apply_digest_mirror_set(doc: &mut IgnitionDoc, registries: &[Registry]) -> Result<Vec<Change>> {
    let node_rules = node_rules(registries);
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

    /// A config that says no release but carries numbered ICSPs (as installers before 4.14
    /// write) keeps that kind: merged into numbered ICSPs, never an IDMS beside them, and
    /// blocking is refused.
    #[test]
    fn numbered_policies_without_a_release_stay_per_source() {
        let icsp = "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: image-policy-0\nspec:\n  repositoryDigestMirrors:\n  - source: a.io/x\n    mirrors:\n    - m.io/x\n";
        let mut doc = IgnitionDoc {
            value: serde_json::json!({"ignition": {"version": "3.2.0"}}),
        };
        set_file_text(
            &mut doc,
            &format!("{DIR}image-content-source-policy-0.yaml"),
            icsp,
            0o644,
        )
        .unwrap();
        let style = style_of(&doc, None);
        assert!(
            matches!(style, ManifestStyle::PerSourcePolicies { .. }),
            "{style:?}"
        );
        let registry = |location: &str, blocked: bool| Registry {
            location: location.into(),
            insecure: false,
            blocked,
            mirror_by_digest_only: true,
            mirrors: vec![crate::model::mirrors::Mirror {
                location: format!("m.io/{location}"),
                insecure: false,
            }],
        };
        let mut merged = doc.clone();
        apply(&mut merged, &[registry("b.io/y", false)], &style).unwrap();
        let paths: Vec<String> = file_entries(&merged)
            .iter()
            .filter_map(|f| f.get("path").and_then(serde_json::Value::as_str))
            .map(str::to_string)
            .collect();
        assert_eq!(
            paths,
            [
                format!("{DIR}image-content-source-policy-0.yaml"),
                format!("{DIR}image-content-source-policy-1.yaml")
            ]
        );
        let err = apply(&mut doc, &[registry("b.io/y", true)], &style)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("release of this config") && err.contains("b.io/y"),
            "{err}"
        );
    }
}
