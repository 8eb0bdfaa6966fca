//! The cluster's copy of the mirror rules: the ImageDigestMirrorSet manifest (or the
//! deprecated ImageContentSourcePolicy a config already has), so the masters use the same
//! mirrors as the bootstrap node.

use super::{has_manifests, read_text, remove_file, render_template};
use crate::error::{Error, Result};
use crate::ignition::read::file_entries;
use crate::ignition::IgnitionDoc;
use crate::model::mirrors::{merge, Registry};
use crate::passes::doc_edit::set_file_text;
use crate::passes::Change;
use crate::release::{per_item_row, profile_for, Each, Minor, NodeFile};
use serde::Deserialize;

/// The release table's rows of the two mirror manifests: their node paths and templates.
struct Rows {
    idms: &'static NodeFile,
    icsp: &'static NodeFile,
}

impl Rows {
    fn get() -> Result<Rows> {
        let row = |each: Each| {
            per_item_row(each).ok_or_else(|| Error::ReleaseTable {
                fault: format!("no [[file]] row renders the {} manifests", each.kind()),
            })
        };
        Ok(Rows {
            idms: row(Each::ImageDigestMirrorSet)?,
            icsp: row(Each::ImageContentSourcePolicy)?,
        })
    }
}

/// The IDMS manifest's node path (its row in the release table).
pub fn idms_path() -> &'static str {
    per_item_row(Each::ImageDigestMirrorSet).map_or("", |f| f.path.as_str())
}

/// The ICSP manifest's node path (its row in the release table).
pub fn icsp_path() -> &'static str {
    per_item_row(Each::ImageContentSourcePolicy).map_or("", |f| f.path.as_str())
}

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
    let manifest: Manifest = crate::config::depth::from_str(text)
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

/// The numbered ICSP manifests installers before 4.14 write (`image-content-source-policy-0.yaml`).
fn numbered_policies(doc: &IgnitionDoc) -> Vec<String> {
    let (stem, extension) = icsp_path().rsplit_once('.').unwrap_or_default();
    file_entries(doc)
        .iter()
        .filter_map(|f| f.get("path").and_then(serde_json::Value::as_str))
        .filter(|p| {
            p.strip_prefix(stem)
                .and_then(|n| n.strip_prefix('-'))
                .and_then(|n| n.strip_suffix(extension))
                .and_then(|n| n.strip_suffix('.'))
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        .map(str::to_string)
        .collect()
}

/// The style of the config's release: from `release` when the caller knows it, else from the
/// release the config says it was made for, else from the manifests it already has.
pub(crate) fn style_of(doc: &IgnitionDoc, release: Option<Minor>) -> ManifestStyle {
    let minor = release.or_else(|| {
        let guess = crate::ignition::read::release_of(doc)?;
        let mut parts = guess.version.split('.');
        format!("{}.{}", parts.next()?, parts.next()?).parse().ok()
    });
    match minor.and_then(profile_for) {
        Some(profile)
            if !profile
                .switches(Default::default())
                .has(crate::release::Switch::ImageDigestMirrorSet) =>
        {
            ManifestStyle::PerSourcePolicies {
                release: profile.minor.to_string(),
            }
        }
        Some(_) => ManifestStyle::DigestMirrorSet,
        None if !numbered_policies(doc).is_empty() => ManifestStyle::PerSourcePolicies {
            release: format!(
                "of this config (it has one ImageContentSourcePolicy per source, as installers {} write)",
                digest_mirror_sets_from().map_or_else(|| "before ImageDigestMirrorSet".into(), |m| format!("before {m}"))
            ),
        },
        None => ManifestStyle::DigestMirrorSet,
    }
}

/// The first release whose installer writes ImageDigestMirrorSet manifests, from the release
/// table (for messages).
fn digest_mirror_sets_from() -> Option<Minor> {
    crate::release::first_with(crate::release::Switch::ImageDigestMirrorSet)
}

/// Brings the cluster manifests in line with the node's registries: the existing manifests'
/// rules first, then the node's, merged, in the kind the config's release takes (`style`).
pub(crate) fn apply(
    doc: &mut IgnitionDoc,
    registries: &[Registry],
    style: &ManifestStyle,
) -> Result<Vec<Change>> {
    let rows = Rows::get()?;
    match style {
        ManifestStyle::DigestMirrorSet => apply_digest_mirror_set(doc, registries, &rows),
        ManifestStyle::PerSourcePolicies { release } => {
            apply_per_source_policies(doc, registries, release, &rows)
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
    rows: &Rows,
) -> Result<Vec<Change>> {
    let (idms, icsp) = (rows.idms.path.as_str(), rows.icsp.path.as_str());
    let existing = numbered_policies(doc);
    let idms_text = read_text(doc, idms)?;
    let icsp_text = read_text(doc, icsp)?;
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
        rules.extend(rules_of(icsp, text, "ImageContentSourcePolicy")?);
    }
    if let Some(text) = &idms_text {
        rules.extend(rules_of(idms, text, "ImageDigestMirrorSet")?);
    }
    rules.extend(node_rules(registries));
    let merged = merge(rules);
    if let Some(blocked) = merged.iter().find(|r| r.blocked) {
        return Err(Error::ReleaseCannot {
            release: release.to_string(),
            message: format!(
                "keep the cluster from contacting {}: its installer writes ImageContentSourcePolicy manifests, which cannot say NeverContactSource{}; mirror without blocking the source{}",
                blocked.location,
                digest_mirror_sets_from().map_or_else(String::new, |m| format!(" (ImageDigestMirrorSet manifests come with {m})")),
                digest_mirror_sets_from().map_or_else(String::new, |m| format!(", or make the config for {m} or later")),
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
        let path = rows.icsp.numbered_path(i, merged.len());
        written.push((path, render_template(&rows.icsp.template, &context)?));
    }
    if written == before && idms_text.is_none() && icsp_text.is_none() {
        return Ok(Vec::new());
    }
    let mut changes = Vec::new();
    let stale = existing
        .iter()
        .map(String::as_str)
        .chain([icsp, idms])
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
fn apply_digest_mirror_set(
    doc: &mut IgnitionDoc,
    registries: &[Registry],
    rows: &Rows,
) -> Result<Vec<Change>> {
    let (idms, icsp) = (rows.idms.path.as_str(), rows.icsp.path.as_str());
    let node_rules = node_rules(registries);
    let idms_text = read_text(doc, idms)?;
    let icsp_text = read_text(doc, icsp)?;
    if idms_text.is_none() && icsp_text.is_none() && !has_manifests(doc) {
        return Ok(Vec::new());
    }
    let mut rules = Vec::new();
    if let Some(text) = &icsp_text {
        rules.extend(rules_of(icsp, text, "ImageContentSourcePolicy")?);
    }
    if let Some(text) = &idms_text {
        rules.extend(rules_of(idms, text, "ImageDigestMirrorSet")?);
    }
    rules.extend(node_rules);
    let merged = merge(rules);
    let any_blocked = merged.iter().any(|r| r.blocked);
    let context = serde_json::json!({ "registries": merged });
    let mut changes = Vec::new();
    let keep_icsp = icsp_text.is_some() && !any_blocked;
    if keep_icsp {
        let text = render_template(&rows.icsp.template, &context)?;
        if icsp_text.as_deref() != Some(text.as_str()) {
            set_file_text(doc, icsp, &text, 0o644)?;
            changes.push(Change {
                target: icsp.into(),
                action: format!("{} mirrored source(s)", merged.len()),
            });
        }
    } else if icsp_text.is_some() {
        remove_file(doc, icsp);
        changes.push(Change {
            target: icsp.into(),
            action: format!(
                "replaced by {idms}: an ImageContentSourcePolicy cannot say NeverContactSource"
            ),
        });
    }
    if !keep_icsp || idms_text.is_some() {
        let text = render_template(&rows.idms.template, &context)?;
        if idms_text.as_deref() != Some(text.as_str()) {
            set_file_text(doc, idms, &text, 0o644)?;
            let blocked = merged.iter().filter(|r| r.blocked).count();
            changes.push(Change {
                target: idms.into(),
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
            rules_of(idms, idms, "ImageDigestMirrorSet").unwrap(),
            vec![("a.io/x".into(), vec!["m.io/x".into()], true)]
        );
        let icsp = "kind: ImageContentSourcePolicy\nspec:\n  repositoryDigestMirrors:\n  - source: a.io/x\n    mirrors: [m.io/x]\n";
        assert_eq!(
            rules_of(icsp, icsp, "ImageContentSourcePolicy").unwrap(),
            vec![("a.io/x".into(), vec!["m.io/x".into()], false)]
        );
        let err = rules_of(idms, icsp, "ImageDigestMirrorSet")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(idms) && err.contains("found a ImageContentSourcePolicy"),
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
            "/opt/openshift/manifests/image-content-source-policy-0.yaml",
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
                "/opt/openshift/manifests/image-content-source-policy-0.yaml".to_string(),
                "/opt/openshift/manifests/image-content-source-policy-1.yaml".to_string()
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
