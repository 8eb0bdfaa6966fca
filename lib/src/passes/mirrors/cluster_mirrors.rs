//! The cluster's copy of the mirror rules: the ImageDigestMirrorSet manifest (or the
//! deprecated ImageContentSourcePolicy a config already has), so the masters use the same
//! mirrors as the bootstrap node.

use super::{has_manifests, read_text, remove_file, render_template};
use crate::error::{Error, Result};
use crate::ignition::read::file_entries;
use crate::ignition::IgnitionDoc;
use crate::model::mirrors::{
    lay_out, MirrorEntry, MirrorKind, MirrorManifest, PolicyLayout, Registry, SourceContact,
};
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
    image_digest_mirrors: Vec<Written>,
    #[serde(default)]
    repository_digest_mirrors: Vec<Written>,
}

/// An entry of a mirror manifest as written.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Written {
    source: String,
    #[serde(default)]
    mirrors: Option<Vec<String>>,
    mirror_source_policy: Option<String>,
}

/// The entries of an IDMS or ICSP manifest, as written.
fn entries_of(path: &str, text: &str, kind: &str) -> Result<Vec<MirrorEntry>> {
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
    manifest
        .spec
        .image_digest_mirrors
        .into_iter()
        .chain(manifest.spec.repository_digest_mirrors)
        .map(|written| {
            let source_policy = match written.mirror_source_policy.as_deref() {
                None | Some("") => None,
                Some(word) => Some(SourceContact::parse(word).ok_or_else(|| {
                    cannot(format!(
                        "mirrorSourcePolicy `{word}` of {} is neither AllowContactingSource nor NeverContactSource",
                        written.source
                    ))
                })?),
            };
            Ok(MirrorEntry {
                source: written.source,
                mirrors: written.mirrors.unwrap_or_default(),
                source_policy,
            })
        })
        .collect()
}

/// The entries the node's registries add to `entries`: for each source, the mirrors none of
/// its entries lists, as one new entry (the entries already written stay as they are).
fn node_entries(entries: &[MirrorEntry], registries: &[Registry]) -> Vec<MirrorEntry> {
    let mut added: Vec<MirrorEntry> = Vec::new();
    for registry in registries.iter().filter(|r| !r.mirrors.is_empty()) {
        let listed = |mirror: &str| {
            entries
                .iter()
                .chain(&added)
                .any(|e| e.source == registry.location && e.mirrors.iter().any(|m| m == mirror))
        };
        let missing: Vec<String> = registry
            .mirrors
            .iter()
            .filter(|m| !listed(&m.location))
            .map(|m| m.location.clone())
            .collect();
        if !missing.is_empty() {
            added.push(MirrorEntry {
                source: registry.location.clone(),
                mirrors: missing,
                source_policy: None,
            });
        }
    }
    added
}

/// Every entry with mirrors whose source the node blocks says NeverContactSource.
fn block_as_the_node_does(entries: &mut [MirrorEntry], registries: &[Registry]) {
    for entry in entries.iter_mut().filter(|e| !e.mirrors.is_empty()) {
        if registries
            .iter()
            .any(|r| r.blocked && r.location == entry.source)
        {
            entry.source_policy = Some(SourceContact::Never);
        }
    }
}

/// The mirror manifests a config already has: the numbered ICSPs of installers before 4.14
/// (in their order), the single ICSP and the IDMS, each with its text and entries.
struct Found {
    numbered: Vec<(String, String)>,
    numbered_entries: Vec<MirrorEntry>,
    icsp: Option<String>,
    icsp_entries: Vec<MirrorEntry>,
    idms: Option<String>,
    idms_entries: Vec<MirrorEntry>,
}

impl Found {
    fn read(doc: &IgnitionDoc, rows: &Rows) -> Result<Found> {
        let (idms_path, icsp_path) = (rows.idms.path.as_str(), rows.icsp.path.as_str());
        let mut numbered = Vec::new();
        let mut numbered_entries = Vec::new();
        for path in numbered_policies(doc) {
            let text = read_text(doc, &path)?.unwrap_or_default();
            numbered_entries.extend(entries_of(&path, &text, ICSP)?);
            numbered.push((path, text));
        }
        let icsp = read_text(doc, icsp_path)?;
        let idms = read_text(doc, idms_path)?;
        Ok(Found {
            numbered,
            numbered_entries,
            icsp_entries: match &icsp {
                Some(text) => entries_of(icsp_path, text, ICSP)?,
                None => Vec::new(),
            },
            idms_entries: match &idms {
                Some(text) => entries_of(idms_path, text, IDMS)?,
                None => Vec::new(),
            },
            icsp,
            idms,
        })
    }

    fn nothing(&self) -> bool {
        self.numbered.is_empty() && self.icsp.is_none() && self.idms.is_none()
    }
}

const ICSP: &str = "ImageContentSourcePolicy";
const IDMS: &str = "ImageDigestMirrorSet";

/// Which mirror manifests the config's release takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ManifestStyle {
    /// An ImageDigestMirrorSet (or one ImageContentSourcePolicy the config already has), as
    /// installers from 4.14 write.
    DigestMirrorSet,
    /// One ImageContentSourcePolicy per mirror entry, numbered, as installers before 4.14
    /// write (the cluster has no ImageDigestMirrorSet before 4.13, and 4.13 refuses both kinds
    /// at once); `release` names the release in messages.
    PerEntryPolicies {
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

/// The profile of the config's release: `release` when the caller knows it, else the release
/// the config says it was made for; None when neither is known (or the table lacks it).
pub(crate) fn release_profile(
    doc: &IgnitionDoc,
    release: Option<Minor>,
) -> Option<&'static crate::release::Profile> {
    let minor = release.or_else(|| {
        let guess = crate::ignition::read::release_of(doc)?;
        let mut parts = guess.version.split('.');
        format!("{}.{}", parts.next()?, parts.next()?).parse().ok()
    });
    minor.and_then(profile_for)
}

/// The style of the config's release (`profile`, from [`release_profile`]), else from the
/// manifests it already has.
pub(crate) fn style_of(
    doc: &IgnitionDoc,
    profile: Option<&crate::release::Profile>,
) -> ManifestStyle {
    match profile {
        Some(profile)
            if !profile
                .switches(Default::default())
                .has(crate::release::Switch::ImageDigestMirrorSet) =>
        {
            ManifestStyle::PerEntryPolicies {
                release: profile.minor.to_string(),
            }
        }
        Some(_) => ManifestStyle::DigestMirrorSet,
        None if !numbered_policies(doc).is_empty() => ManifestStyle::PerEntryPolicies {
            release: format!(
                "of this config (it has numbered ImageContentSourcePolicy manifests, as installers {} write)",
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

/// Brings the cluster manifests in line with the node's registries: the entries the config's
/// manifests already have stay as written, the node's mirrors none of them lists come after
/// them as entries of their own, and the sources the node blocks say NeverContactSource; laid
/// out and rendered as generation does, in the kind the config's release takes (`style`).
pub(crate) fn apply(
    doc: &mut IgnitionDoc,
    registries: &[Registry],
    style: &ManifestStyle,
) -> Result<Vec<Change>> {
    let rows = Rows::get()?;
    let found = Found::read(doc, &rows)?;
    if found.nothing() && !has_manifests(doc) {
        return Ok(Vec::new());
    }
    match style {
        ManifestStyle::DigestMirrorSet => apply_digest_mirror_set(doc, registries, found, &rows),
        ManifestStyle::PerEntryPolicies { release } => {
            apply_per_entry_policies(doc, registries, found, release, &rows)
        }
    }
}

/// Renders a manifest laid out by [`lay_out`] with its row's template, as generation does.
fn render(row: &'static NodeFile, manifest: &MirrorManifest) -> Result<String> {
    render_template(&row.template, &manifest.variables())
}

/// Before 4.14: one ImageContentSourcePolicy per entry, as that release's installer writes
/// them. A blocked source cannot be said in one, and the release's cluster either has no
/// ImageDigestMirrorSet or refuses it beside the policies: that is an error naming the release.
fn apply_per_entry_policies(
    doc: &mut IgnitionDoc,
    registries: &[Registry],
    found: Found,
    release: &str,
    rows: &Rows,
) -> Result<Vec<Change>> {
    let (idms, icsp) = (rows.idms.path.as_str(), rows.icsp.path.as_str());
    let mut entries: Vec<MirrorEntry> = [
        found.numbered_entries,
        found.icsp_entries,
        found.idms_entries,
    ]
    .concat();
    entries.extend(node_entries(&entries, registries));
    block_as_the_node_does(&mut entries, registries);
    if let Some(blocked) = entries
        .iter()
        .find(|e| e.source_policy == Some(SourceContact::Never))
    {
        return Err(Error::ReleaseCannot {
            release: release.to_string(),
            message: format!(
                "keep the cluster from contacting {}: its installer writes ImageContentSourcePolicy manifests, which cannot say NeverContactSource{}; mirror without blocking the source{}",
                blocked.source,
                digest_mirror_sets_from().map_or_else(String::new, |m| format!(" (ImageDigestMirrorSet manifests come with {m})")),
                digest_mirror_sets_from().map_or_else(String::new, |m| format!(", or make the config for {m} or later")),
            ),
        });
    }
    let manifests = lay_out(
        MirrorKind::ImageContentSourcePolicy,
        &entries,
        rows.icsp,
        PolicyLayout::PerEntry,
    );
    let mut written = Vec::new();
    for manifest in &manifests {
        written.push((manifest.path.clone(), render(rows.icsp, manifest)?));
    }
    if written == found.numbered && found.idms.is_none() && found.icsp.is_none() {
        return Ok(Vec::new());
    }
    let mut changes = Vec::new();
    let stale = found
        .numbered
        .iter()
        .map(|(path, _)| path.as_str())
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
                    "removed: release {release} takes one ImageContentSourcePolicy per mirror entry"
                ),
            });
        }
    }
    for ((path, text), manifest) in written.into_iter().zip(&manifests) {
        if !found.numbered.contains(&(path.clone(), text.clone())) {
            set_file_text(doc, &path, &text, 0o644)?;
            changes.push(Change {
                target: path,
                action: format!(
                    "ImageContentSourcePolicy for {} (release {release})",
                    manifest
                        .entries
                        .iter()
                        .map(|e| e.source.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
    }
    Ok(changes)
}

/// From 4.14: an ICSP is kept while nothing must be blocked (and takes the node's new
/// entries); NeverContactSource needs an IDMS, so the ICSP's entries then move into one (a
/// cluster must not carry both kinds).
fn apply_digest_mirror_set(
    doc: &mut IgnitionDoc,
    registries: &[Registry],
    found: Found,
    rows: &Rows,
) -> Result<Vec<Change>> {
    let (idms, icsp) = (rows.idms.path.as_str(), rows.icsp.path.as_str());
    let mut icsp_entries = [found.numbered_entries, found.icsp_entries].concat();
    let mut idms_entries = found.idms_entries;
    let mut added = node_entries(
        &[icsp_entries.clone(), idms_entries.clone()].concat(),
        registries,
    );
    for list in [&mut icsp_entries, &mut idms_entries, &mut added] {
        block_as_the_node_does(list, registries);
    }
    let blocks = |list: &[MirrorEntry]| {
        list.iter()
            .any(|e| e.source_policy == Some(SourceContact::Never))
    };
    let had_icsp = found.icsp.is_some() || !found.numbered.is_empty();
    let keep_icsp = had_icsp
        && ![&icsp_entries, &idms_entries, &added]
            .iter()
            .any(|l| blocks(l));
    let mut changes = Vec::new();
    if keep_icsp {
        icsp_entries.extend(added);
        let kind = MirrorKind::ImageContentSourcePolicy;
        changes.extend(write_single(
            doc,
            kind,
            &icsp_entries,
            rows.icsp,
            found.icsp.as_deref(),
        )?);
    } else {
        idms_entries = [icsp_entries, idms_entries, added].concat();
    }
    for (path, _) in &found.numbered {
        remove_file(doc, path);
        changes.push(Change {
            target: path.clone(),
            action: format!(
                "replaced by {icsp}: installers from 4.14 write one ImageContentSourcePolicy"
            ),
        });
    }
    if !keep_icsp && found.icsp.is_some() {
        remove_file(doc, icsp);
        changes.push(Change {
            target: icsp.into(),
            action: format!(
                "replaced by {idms}: an ImageContentSourcePolicy cannot say NeverContactSource"
            ),
        });
    }
    if !keep_icsp || found.idms.is_some() {
        let kind = MirrorKind::ImageDigestMirrorSet;
        changes.extend(write_single(
            doc,
            kind,
            &idms_entries,
            rows.idms,
            found.idms.as_deref(),
        )?);
    }
    Ok(changes)
}

/// Writes the one manifest of `kind` holding `entries` where its text is not `before`.
fn write_single(
    doc: &mut IgnitionDoc,
    kind: MirrorKind,
    entries: &[MirrorEntry],
    row: &'static NodeFile,
    before: Option<&str>,
) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    for manifest in lay_out(kind, entries, row, PolicyLayout::Single) {
        let text = render(row, &manifest)?;
        if before == Some(text.as_str()) {
            continue;
        }
        set_file_text(doc, &manifest.path, &text, 0o644)?;
        let blocked = manifest
            .entries
            .iter()
            .filter(|e| e.source_policy == Some(SourceContact::Never))
            .count();
        changes.push(Change {
            target: manifest.path,
            action: format!(
                "{} mirror entries, {blocked} with mirrorSourcePolicy NeverContactSource",
                manifest.entries.len()
            ),
        });
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_kinds_as_written() {
        let idms = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: x\nspec:\n  imageDigestMirrors:\n  - source: a.io/x\n    mirrors:\n    - m.io/x\n    - m.io/x\n    mirrorSourcePolicy: NeverContactSource\n  - source: a.io/x\n    mirrorSourcePolicy: AllowContactingSource\n";
        let entry = |mirrors: &[&str], policy| MirrorEntry {
            source: "a.io/x".into(),
            mirrors: mirrors.iter().map(|m| m.to_string()).collect(),
            source_policy: policy,
        };
        assert_eq!(
            entries_of(idms, idms, IDMS).unwrap(),
            vec![
                entry(&["m.io/x", "m.io/x"], Some(SourceContact::Never)),
                entry(&[], Some(SourceContact::Allowed)),
            ]
        );
        let icsp = "kind: ImageContentSourcePolicy\nspec:\n  repositoryDigestMirrors:\n  - source: a.io/x\n    mirrors: [m.io/x]\n  - source: a.io/x\n    mirrors: null\n";
        assert_eq!(
            entries_of(icsp, icsp, ICSP).unwrap(),
            vec![entry(&["m.io/x"], None), entry(&[], None)]
        );
        let err = entries_of(idms, icsp, IDMS).unwrap_err().to_string();
        assert!(
            err.contains(idms) && err.contains("found a ImageContentSourcePolicy"),
            "{err}"
        );
        let odd = idms.replace("AllowContactingSource", "Sometimes");
        let err = entries_of("idms.yaml", &odd, IDMS).unwrap_err().to_string();
        assert!(
            err.contains("idms.yaml") && err.contains("`Sometimes` of a.io/x"),
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
            matches!(style, ManifestStyle::PerEntryPolicies { .. }),
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
