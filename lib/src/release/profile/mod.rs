//! Release profiles: what a bootstrap node gets for each OpenShift minor, read from one data
//! table (`releases.toml` beside this file). Each row there holds from a release on (`since`)
//! and/or up to one (`until`, inclusive); a profile is the rows that hold for its minor. Code
//! and templates ask the profile; they never compare versions themselves.

use super::dimensions::{Dimensions, Distribution, Flow, NodeFile, NodeUnit, Scope};
use super::switch::{Switch, Switches};
use super::table::{self, Table};
use super::version::Minor;
use serde::Serialize;
use std::sync::{LazyLock, OnceLock};

mod from_table;
use from_table::{build, build_points, points};

/// One supported minor's profile.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Profile {
    /// The minor.
    pub minor: Minor,
    /// The first patch release of the minor this profile holds for: 0, or a z-stream from
    /// which a fact changed (e.g. a backported file).
    pub from_patch: u32,
    /// A release still in development (its installer's `main`), not generally available.
    pub development: bool,
    /// Which installer tree the facts were read from.
    pub source: String,
    /// Ignition spec version of bootstrap.ign and the pointer configs.
    pub ignition_spec: String,
    /// The distributions this release has (OpenShift always first), with what differs between
    /// them ([`Profile::distribution`]).
    pub distributions: Vec<DistributionFacts>,
    /// The payload images bootkube resolves: shell variable to `image_for` name, in order.
    pub images: Vec<ImageName>,
    /// bootkube's stages, in run order.
    pub stages: Vec<Stage>,
    /// Install-config settings that add stages to this release (e.g. konnectivity with a
    /// preview feature set).
    pub opt_ins: Vec<OptIn>,
    /// The switch rows that hold for this release, each with the dimensions it is limited to
    /// (read through [`Profile::switches`] or a [`NodeProfile`](super::NodeProfile)).
    #[serde(skip)]
    switch_rows: Vec<(Switch, Scope)>,
    /// Every file a node of this release can have, in any flow, platform or distribution
    /// (read through a [`NodeProfile`](super::NodeProfile)).
    pub files: Vec<NodeFile>,
    /// Every unit a node of this release can have (read through a [`NodeProfile`](super::NodeProfile)).
    pub units: Vec<NodeUnit>,
    /// The cluster capabilities this release knows, in table order.
    pub capabilities: Vec<Capability>,
    /// The versioned baseline capability sets this release knows (`v4.11`, ...); empty before
    /// releases had capabilities. `None` and `vCurrent` go with them.
    pub capability_sets: Vec<CapabilitySet>,
}

/// What a release is in one distribution: where its payloads are published, what its clusters
/// are told about updates, the payload's node image and the install-config choices that
/// distribution's installer accepts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DistributionFacts {
    /// The distribution.
    pub distribution: Distribution,
    /// The repository its release payloads are published to, e.g. `quay.io/okd/scos-release`.
    pub repository: String,
    /// The ClusterVersion channel, e.g. `stable-4.16` or `stable-scos-4`.
    pub channel: String,
    /// The update graph the ClusterVersion names; `None`: the CVO's own default.
    pub upstream: Option<String>,
    /// The payload's node (CoreOS) image, as `image_for` names it: `rhel-coreos`, `stream-coreos`.
    pub node_image: String,
    /// The node image's OS stream by default (`rhel-9`), `""` before releases had streams.
    pub os_image_stream: String,
    /// The install-config `osImageStream` values this release accepts; empty before the
    /// installer read the field.
    pub os_image_streams: Vec<String>,
    /// The install-config `featureSet` values this release accepts (`""`: unset, the default).
    pub feature_sets: Vec<String>,
}

/// A cluster capability of a release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Capability {
    /// The name, e.g. `marketplace`.
    pub name: String,
    /// The first baseline set (`v4.N`) that holds it; `None`: only `vCurrent`.
    pub in_sets_from: Option<Minor>,
}

/// A versioned baseline capability set of a release, e.g. `v4.11`: the capabilities that minor
/// had.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CapabilitySet {
    /// The name the install-config uses, e.g. `v4.11`.
    pub name: String,
    /// The minor whose capabilities it holds.
    pub minor: Minor,
}

/// A set of stages this release runs only when the install-config asks for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct OptIn {
    /// The name stage rows refer to, e.g. `konnectivity`.
    pub name: String,
    /// The one flow it can be chosen in; `None`: both.
    pub flow: Option<Flow>,
    /// The install-config `featureSet` values that choose it (`""`: unset, the default).
    pub feature_sets: Vec<String>,
    /// The cluster feature gates it stands for: with featureSet CustomNoUpgrade, any of them
    /// enabled in the install-config's `featureGates` chooses it.
    pub feature_gates: Vec<String>,
}

impl OptIn {
    /// Whether an install-config with `feature_set` (and, for CustomNoUpgrade, the feature
    /// gates `enabled` in its `featureGates`) chooses it, as the installer's `Enabled()` says.
    pub fn chosen_by(&self, feature_set: &str, enabled: &[String]) -> bool {
        if feature_set == CUSTOM_FEATURE_SET {
            self.feature_gates.iter().any(|g| enabled.contains(g))
        } else {
            self.feature_sets.iter().any(|s| s == feature_set)
        }
    }

    /// What chooses it, for a person: `featureSet TechPreviewNoUpgrade or DevPreviewNoUpgrade, or
    /// CustomNoUpgrade with OSStreams`.
    pub fn chosen_with(&self) -> String {
        let sets: Vec<&str> = self
            .feature_sets
            .iter()
            .map(|s| if s.is_empty() { "unset" } else { s.as_str() })
            .collect();
        let mut text = format!("featureSet {}", sets.join(" or "));
        if !self.feature_gates.is_empty() {
            text.push_str(&format!(
                ", or {CUSTOM_FEATURE_SET} with {}",
                self.feature_gates.join(" or ")
            ));
        }
        text
    }
}

/// The feature set that turns on exactly the feature gates the install-config lists.
pub const CUSTOM_FEATURE_SET: &str = "CustomNoUpgrade";

/// A `featureSet` value as messages show it: the default (unset) as `(unset)`.
pub(crate) fn feature_set_label(set: &str) -> &str {
    if set.is_empty() {
        "(unset)"
    } else {
        set
    }
}

/// The opt-in that stands for the cluster's OSStreams feature: the OSImageStream manifest, and
/// an `osImageStream` other than the release's default.
pub const OS_STREAMS_OPT_IN: &str = "os_streams";

/// The opt-in that stands for the cluster's ConfigurablePKI feature: its PKI configuration
/// manifest, and signers whose keys follow the release's default PKI profile.
pub const CONFIGURABLE_PKI_OPT_IN: &str = "configurable_pki";

/// The opt-in that stands for the VSphereMultiVCenters feature gate: more than one vCenter,
/// where the release's installer asks for it.
pub const VSPHERE_MULTI_VCENTERS_OPT_IN: &str = "vsphere_multi_vcenters";

/// The opt-in that stands for the VSphereMultiNetworks feature gate: more than one network in a
/// failure domain, and (until 5.0) the Infrastructure's node networking.
pub const VSPHERE_MULTI_NETWORKS_OPT_IN: &str = "vsphere_multi_networks";

/// The opt-in that stands for the ShortCertRotation feature gate: the one-day and one-year
/// certificates live hours.
pub const SHORT_CERT_ROTATION_OPT_IN: &str = "short_cert_rotation";

/// A payload image bootkube looks up by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageName {
    /// The shell variable, e.g. `API_IMAGE`.
    pub var: String,
    /// The `image_for` name, e.g. `cluster-config-api`.
    pub name: String,
    /// The value when the payload has no such image; `None`: the lookup must succeed.
    pub fallback: Option<String>,
}

/// One bootkube stage of a release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Stage {
    /// The recorded stage name, e.g. `kube-apiserver-bootstrap`.
    pub name: String,
    /// Marker file touched on success, `-` for none.
    pub marker: String,
    /// File whose presence skips the stage, `=` for the marker itself, `-` for none.
    pub skip_if: String,
    /// `files`, `cluster` or `probe` (see bootkube-stages.sh).
    pub kind: String,
    /// podman options before the image (`--name=...`, volumes, environment).
    pub options: Vec<String>,
    /// The image variable of its container, when it runs one.
    pub image: Option<String>,
    /// The command inside the container, then its arguments, as shell words.
    pub command: Vec<String>,
    /// The one flow the stage belongs to; `None`: both.
    pub flow: Option<Flow>,
    /// Flags bootkube.sh adds to the command only when an input is there (a file, a setting),
    /// through a shell array among the command's words.
    pub optional_flags: Vec<String>,
    /// The opt-in ([`OptIn`]) the stage runs behind; `None`: it always runs.
    pub opt_in: Option<String>,
}

impl Stage {
    /// The image and command as one line of shell words, e.g.
    /// `"$API_IMAGE" /usr/bin/render --asset-output-dir=/assets/api-bootstrap ...`.
    pub fn run(&self) -> String {
        let mut words = self.options.clone();
        if let Some(image) = &self.image {
            words.push(format!("\"${image}\""));
        }
        words.extend(self.command.iter().cloned());
        words.join(" ")
    }
}

impl Profile {
    /// What this release is in `distribution`, when it has that distribution (OKD payloads
    /// start with 4.12).
    pub fn distribution(&self, distribution: Distribution) -> Option<&DistributionFacts> {
        self.distributions
            .iter()
            .find(|d| d.distribution == distribution)
    }

    /// The stage named `name`, when the release has it.
    pub fn stage(&self, name: &str) -> Option<&Stage> {
        self.stages.iter().find(|s| s.name == name)
    }

    /// The opt-ins an install-config with `feature_set` (and, for CustomNoUpgrade, the feature
    /// gates `enabled` in its `featureGates`) chooses in `flow`.
    pub fn opt_ins_chosen(&self, flow: Flow, feature_set: &str, enabled: &[String]) -> Vec<String> {
        self.opt_ins
            .iter()
            .filter(|g| g.flow.is_none_or(|f| f == flow))
            .filter(|g| g.chosen_by(feature_set, enabled))
            .map(|g| g.name.clone())
            .collect()
    }

    /// The switches that are on for a node of this release at `dims`.
    pub fn switches(&self, dims: Dimensions) -> Switches {
        let mut on = Switches::default();
        for (switch, scope) in &self.switch_rows {
            if scope.admits(dims, &Switches::default(), &[]) {
                on.insert(*switch);
            }
        }
        on
    }
}

/// The table, loaded once, or what is wrong with it.
static LOADED: LazyLock<Result<Table, String>> = LazyLock::new(table::load_embedded);

/// One profile per point of the table (each minor's first release, then its z-stream points),
/// each built the first time it is asked for: a run needs the profile of its own release, and
/// building all of them cost every process as much as reading the table.
static CELLS: LazyLock<Vec<(table::Point, OnceLock<Profile>)>> = LazyLock::new(|| {
    LOADED.as_ref().map_or_else(
        |_| Vec::new(),
        |t| {
            points(t)
                .into_iter()
                .map(|at| (at, OnceLock::new()))
                .collect()
        },
    )
});

/// The profile of the point `at` of [`CELLS`], built on first use.
fn cell_profile(at: table::Point, cell: &'static OnceLock<Profile>) -> Option<&'static Profile> {
    if let Some(profile) = cell.get() {
        return Some(profile);
    }
    let table = LOADED.as_ref().ok()?;
    let built = build_points(table, |point| point == at).pop()?;
    Some(cell.get_or_init(|| built))
}

/// The profiles of the points `wanted` picks, oldest first, built as needed.
fn cells(
    wanted: impl Fn(table::Point) -> bool,
) -> impl DoubleEndedIterator<Item = &'static Profile> {
    CELLS
        .iter()
        .filter(move |(at, _)| wanted(*at))
        .filter_map(|(at, cell)| cell_profile(*at, cell))
}

/// Every profile, each minor's and the z-stream points', or none when the table does not load:
/// [`check_table`] (which [`crate::release::select`] runs before any choice) reports that.
fn all_profiles() -> impl DoubleEndedIterator<Item = &'static Profile> {
    PROFILES.iter().chain(cells(|at| at.patch > 0))
}

/// Whether the embedded release table loads; its fault otherwise. The table is checked by the
/// tests, so this fails only in a broken build, but it fails loudly, never as "no releases".
pub fn check_table() -> crate::error::Result<()> {
    match &*LOADED {
        Ok(_) => Ok(()),
        Err(fault) => Err(crate::error::Error::ReleaseTable {
            fault: fault.clone(),
        }),
    }
}

/// Every supported release's profile (as of its first release, `X.Y.0`), oldest first. Built
/// whole when first read; [`profile_for`] and [`profile_for_patch`] build only the one asked for.
pub static PROFILES: LazyLock<Vec<Profile>> = LazyLock::new(|| {
    LOADED
        .as_ref()
        .map_or_else(|_| Vec::new(), |t| build(t, true))
});

/// The supported minors with whether each is still in development, oldest first, read from the
/// table's `[[release]]` rows without building a profile.
pub(super) fn minors() -> impl DoubleEndedIterator<Item = (Minor, bool)> {
    LOADED
        .as_ref()
        .map(|t| t.release.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|row| (row.minor, row.development))
}

/// The profile of `minor` (as of `X.Y.0`), when it is supported.
pub fn profile_for(minor: Minor) -> Option<&'static Profile> {
    cells(move |at| at.minor == minor && at.patch == 0).next()
}

/// The file row that renders the items of `each` (one path and template in every release that
/// has it): for code that edits those manifests in any config, whatever its release.
pub fn per_item_row(each: super::dimensions::Each) -> Option<&'static NodeFile> {
    all_profiles()
        .rev()
        .flat_map(|p| p.files.iter())
        .find(|f| f.each == Some(each))
}

/// The z-stream profiles: for each minor where a fact changed within it, one profile from
/// that patch release on (`from_patch` > 0), oldest first.
pub fn z_stream_profiles() -> impl Iterator<Item = &'static Profile> {
    cells(|at| at.patch > 0)
}

/// The profile of one patch release of `minor`: the minor's own, or that of the latest
/// z-stream point at or before `patch` where a fact changed.
pub fn profile_for_patch(minor: Minor, patch: u32) -> Option<&'static Profile> {
    let at = CELLS
        .iter()
        .map(|(at, _)| *at)
        .filter(|at| at.minor == minor && at.patch <= patch)
        .max()?;
    cells(move |point| point == at).next()
}

#[cfg(test)]
mod tests;
