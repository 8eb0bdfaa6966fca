//! Mirror registries: the install-config's `imageContentSources` / `imageDigestSources`
//! entries kept as written, which the cluster's mirror manifests carry entry for entry, and
//! registries.conf's tables merged from them as the release's installer merges them.

mod entry;
mod manifests;
mod merge;
mod pull_specs;
mod read;
#[cfg(test)]
mod tests;

pub use entry::{Mirror, MirrorEntry, Registry, SourceContact};
pub use manifests::MirrorManifest;
pub(crate) use manifests::{lay_out, PolicyLayout};
pub use pull_specs::{host_of, matches_source, repository_of};

use serde::Serialize;

/// The install-config's mirrors: its entries as written, and registries.conf's tables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Mirrors {
    /// The entries of the list the release's installer reads, in order, as written (but for a
    /// `sourcePolicy` that installer ignores): what the mirror manifests hold.
    pub entries: Vec<MirrorEntry>,
    /// registries.conf's tables: the entries merged as the release's installer merges them.
    pub registries: Vec<Registry>,
    /// Which manifest carries the entries (when there are any).
    pub kind: Option<MirrorKind>,
}

/// Which cluster manifest carries the mirrors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MirrorKind {
    /// From the deprecated `imageContentSources`.
    ImageContentSourcePolicy,
    /// From `imageDigestSources` or the command line.
    ImageDigestMirrorSet,
}

impl MirrorKind {
    /// The Kubernetes kind name.
    pub fn as_str(self) -> &'static str {
        match self {
            MirrorKind::ImageContentSourcePolicy => "ImageContentSourcePolicy",
            MirrorKind::ImageDigestMirrorSet => "ImageDigestMirrorSet",
        }
    }

    /// The kind's API group.
    pub fn group(self) -> &'static str {
        match self {
            MirrorKind::ImageContentSourcePolicy => "operator.openshift.io",
            MirrorKind::ImageDigestMirrorSet => "config.openshift.io",
        }
    }
}
