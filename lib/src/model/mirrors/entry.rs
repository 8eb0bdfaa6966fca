//! The two shapes mirrors take: the install-config's entries as written (what the cluster's
//! manifests carry), and registries.conf's tables (what podman and CRI-O on the node read).

use serde::Serialize;

/// Whether the cluster may still pull from a mirrored source: an entry's `sourcePolicy`, in
/// the words the install-config and the ImageDigestMirrorSet use for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SourceContact {
    /// `AllowContactingSource`: the mirrors first, then the source.
    #[serde(rename = "AllowContactingSource")]
    Allowed,
    /// `NeverContactSource`: the mirrors only.
    #[serde(rename = "NeverContactSource")]
    Never,
}

impl SourceContact {
    /// The install-config's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceContact::Allowed => "AllowContactingSource",
            SourceContact::Never => "NeverContactSource",
        }
    }

    /// Reads the install-config's word; `None` for any other value.
    pub fn parse(word: &str) -> Option<SourceContact> {
        match word {
            "AllowContactingSource" => Some(SourceContact::Allowed),
            "NeverContactSource" => Some(SourceContact::Never),
            _ => None,
        }
    }
}

/// One entry of `imageContentSources` or `imageDigestSources` as written: repeated sources,
/// repeated mirrors and an explicit `AllowContactingSource` kept, as the installer copies them
/// into the cluster's mirror manifests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MirrorEntry {
    /// The source repository.
    pub source: String,
    /// Its mirrors, in the order written (duplicates kept).
    pub mirrors: Vec<String>,
    /// `sourcePolicy`, where the release's installer reads it (`None` where it does not, or
    /// where the entry has none).
    pub source_policy: Option<SourceContact>,
}

/// A mirror of a source repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mirror {
    /// `host[:port]/path`.
    pub location: String,
    /// Plain HTTP or an unverified certificate is allowed.
    pub insecure: bool,
}

/// One mirrored source: a `[[registry]]` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Registry {
    /// The source repository prefix.
    pub location: String,
    /// The source itself may be reached insecurely.
    pub insecure: bool,
    /// Never contact the source: only the mirrors.
    pub blocked: bool,
    /// Mirrors are only used for digest references (always true, as on OpenShift).
    pub mirror_by_digest_only: bool,
    /// Mirrors, in first-seen order.
    pub mirrors: Vec<Mirror>,
}
