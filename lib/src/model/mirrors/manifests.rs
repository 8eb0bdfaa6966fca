//! The cluster's mirror manifests as the release's installer lays the entries out: every entry
//! as written, in one ImageDigestMirrorSet or ImageContentSourcePolicy, or (installers without
//! ImageDigestMirrorSet) one numbered ImageContentSourcePolicy per entry. Generation and the
//! mirror pass of `bootgen patch` both lay them out here and render them with the variables of
//! [`MirrorManifest::variables`].

use super::entry::MirrorEntry;
use super::MirrorKind;
use crate::release::NodeFile;
use serde::Serialize;

/// One mirror manifest file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MirrorManifest {
    /// Path on the node.
    pub path: String,
    /// Kubernetes kind.
    pub kind: &'static str,
    /// API group.
    pub group: &'static str,
    /// Object name.
    pub name: String,
    /// The entries it holds, as written.
    pub entries: Vec<MirrorEntry>,
}

impl MirrorManifest {
    /// The variables its template is rendered with, beside the context: `entries` and the
    /// object's name as `mirror_name`.
    pub fn variables(&self) -> serde_json::Value {
        serde_json::json!({ "entries": self.entries, "mirror_name": self.name })
    }
}

/// How a release's installer spreads the entries over ImageContentSourcePolicy manifests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PolicyLayout {
    /// One manifest, `image-policy`, holding every entry (installers with ImageDigestMirrorSet).
    Single,
    /// One manifest per entry, `image-policy-<i>` at the row's path numbered from 0, zero-padded
    /// to the digits of the count (installers before ImageDigestMirrorSet).
    PerEntry,
}

/// The manifests of `kind` holding `entries`, at the paths of `row` (the release table's row
/// that renders that kind); none without entries.
pub(crate) fn lay_out(
    kind: MirrorKind,
    entries: &[MirrorEntry],
    row: &NodeFile,
    layout: PolicyLayout,
) -> Vec<MirrorManifest> {
    if entries.is_empty() {
        return Vec::new();
    }
    let manifest = |path: String, name: String, entries: Vec<MirrorEntry>| MirrorManifest {
        path,
        kind: kind.as_str(),
        group: kind.group(),
        name,
        entries,
    };
    match (kind, layout) {
        (MirrorKind::ImageDigestMirrorSet, _) => vec![manifest(
            row.path.clone(),
            "image-digest-mirror".into(),
            entries.to_vec(),
        )],
        (MirrorKind::ImageContentSourcePolicy, PolicyLayout::Single) => vec![manifest(
            row.path.clone(),
            "image-policy".into(),
            entries.to_vec(),
        )],
        (MirrorKind::ImageContentSourcePolicy, PolicyLayout::PerEntry) => {
            let width = entries.len().to_string().len();
            entries
                .iter()
                .enumerate()
                .map(|(i, entry)| {
                    manifest(
                        row.numbered_path(i, entries.len()),
                        format!("image-policy-{i:0width$}"),
                        vec![entry.clone()],
                    )
                })
                .collect()
        }
    }
}
