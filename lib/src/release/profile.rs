//! Release profiles: what a bootstrap node gets for each OpenShift minor, read from one data
//! table (`releases.toml` beside this file). Each row there holds from a release on (`since`)
//! and/or up to one (`until`, inclusive); a profile is the rows that hold for its minor. Code
//! and templates ask the profile; they never compare versions themselves.

use super::dimensions::{Dimensions, Distribution, Flow, NodeFile, NodeUnit, Scope};
use super::switch::{Switch, Switches};
use super::table::{self, holds, values_in, words, Table};
use super::version::Minor;
use serde::Serialize;
use std::sync::{LazyLock, OnceLock};

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

/// The profiles of the table's points: the first releases' (`first`) or the z-stream points'.
fn build(table: &Table, first: bool) -> Vec<Profile> {
    build_points(table, |at| (at.patch == 0) == first)
}

/// Every point of the table that has a profile: each minor's first release, then the patch
/// releases of that minor from which a fact changed.
fn points(table: &Table) -> Vec<table::Point> {
    let patch_points = table::patch_points(table);
    table
        .release
        .iter()
        .flat_map(|row| table::points_of(&patch_points, row.minor))
        .collect()
}

/// The profiles of the points `wanted` picks, in [`points`]' order.
fn build_points(table: &Table, wanted: impl Fn(table::Point) -> bool) -> Vec<Profile> {
    let patch_points = table::patch_points(table);
    table
        .release
        .iter()
        .flat_map(|row| {
            table::points_of(&patch_points, row.minor)
                .into_iter()
                .filter(|at| wanted(*at))
                .map(move |at| (row, at))
        })
        .map(|(row, at)| Profile {
            minor: at.minor,
            from_patch: at.patch,
            development: row.development,
            source: row.source.clone(),
            // Where rows overlap, the last one that holds wins.
            ignition_spec: values_in(&table.ignition_spec, at, Distribution::Ocp)
                .pop()
                .unwrap_or_else(|| "3.2.0".into()),
            distributions: distributions_at(table, at),
            images: table
                .image
                .iter()
                .filter(|r| holds(at, &r.since, &r.until))
                .map(|r| ImageName {
                    var: r.var.clone(),
                    name: r.name.clone(),
                    fallback: r.fallback.clone(),
                })
                .collect(),
            stages: table
                .stage
                .iter()
                .filter(|r| holds(at, &r.since, &r.until))
                .map(|r| Stage {
                    name: r.name.clone(),
                    marker: r.marker.clone(),
                    skip_if: r.skip_if.clone(),
                    kind: r.kind.clone(),
                    options: r.options.clone(),
                    image: r.image.clone(),
                    flow: r.flow,
                    command: words(&r.command, at),
                    optional_flags: words(&r.optional_flags, at),
                    opt_in: r.opt_in.clone(),
                })
                .collect(),
            opt_ins: table
                .opt_in
                .iter()
                .filter(|r| holds(at, &r.since, &r.until))
                .map(|r| OptIn {
                    name: r.name.clone(),
                    flow: r.flow,
                    feature_sets: r.feature_sets.clone(),
                    feature_gates: r.feature_gates.clone(),
                })
                .collect(),
            capabilities: table
                .capability
                .iter()
                .filter(|r| holds(at, &r.since, &r.until))
                .map(|r| Capability {
                    name: r.name.clone(),
                    in_sets_from: r.in_sets_from,
                })
                .collect(),
            capability_sets: table
                .capability_set
                .iter()
                .filter(|r| holds(at, &r.since, &r.until))
                .map(|r| CapabilitySet {
                    name: format!("v{}", r.minor),
                    minor: r.minor,
                })
                .collect(),
            switch_rows: table
                .switch
                .iter()
                .filter(|r| holds(at, &r.since, &r.until))
                .map(|r| {
                    let scope = Scope {
                        flow: r.flow,
                        platform: r.platform,
                        distribution: r.distribution,
                        ..Scope::default()
                    };
                    (r.name, scope)
                })
                .collect(),
            files: table
                .file
                .iter()
                .filter(|r| holds(at, &r.since, &r.until))
                .map(|r| NodeFile {
                    path: r.path.clone(),
                    mode: r.mode,
                    append: r.append,
                    template: template_of(&table::files_dir(&r.overlay), &r.path),
                    when: r.when,
                    each: r.each,
                    order: r.order,
                    scope: table.scope(r),
                })
                .collect(),
            units: table
                .unit
                .iter()
                .filter(|r| holds(at, &r.since, &r.until))
                .map(|r| NodeUnit {
                    name: r.name.clone(),
                    enabled: r.enabled,
                    template_dir: format!("{}/{}", table::units_dir(&r.overlay), r.name),
                    scope: table.scope(r),
                })
                .collect(),
        })
        .collect()
}

/// The distributions a release has at `at`, in table order (OpenShift's row comes first).
fn distributions_at(table: &Table, at: table::Point) -> Vec<DistributionFacts> {
    table
        .distribution
        .iter()
        .filter(|r| holds(at, &r.since, &r.until))
        .map(|r| {
            let d = r.name;
            // Where rows overlap, the last one that holds wins.
            let last = |rows| values_in(rows, at, d).pop().unwrap_or_default();
            DistributionFacts {
                distribution: d,
                repository: r.repository.clone(),
                channel: r.channel.replace("{minor}", &at.minor.to_string()),
                upstream: r.upstream.clone(),
                node_image: last(&table.node_image),
                os_image_stream: last(&table.os_image_stream),
                os_image_streams: values_in(&table.os_image_stream_choice, at, d),
                feature_sets: values_in(&table.feature_set, at, d),
            }
        })
        .collect()
}

/// The embedded template of the node file at `path` under `dir`: `<dir><path>.j2` when it is
/// rendered, `<dir><path>` when it is copied as it is.
fn template_of(dir: &str, path: &str) -> String {
    let rendered = format!("{dir}{path}{}", crate::render::TEMPLATE_SUFFIX);
    if crate::render::template(&rendered).is_some() {
        rendered
    } else {
        format!("{dir}{path}")
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
mod tests {
    use super::*;
    use crate::release::dimensions::{Dimensions, Platform};
    use table::{Bound, Point};

    /// Every node a profile can make: each flow, platform and distribution.
    fn every_dims() -> Vec<Dimensions> {
        let mut out = Vec::new();
        for flow in [Flow::Cluster, Flow::InPlace] {
            for platform in Platform::ALL {
                for distribution in Distribution::ALL {
                    out.push(Dimensions {
                        flow,
                        platform: *platform,
                        distribution: *distribution,
                    });
                }
            }
        }
        out
    }

    /// The table the library embeds (JSON made by build.rs) is `releases.toml`, row for row,
    /// and a profile built alone, as a run builds its release's, is the one built with the rest.
    #[test]
    fn the_embedded_table_and_lone_profiles_are_the_tables() {
        let written = table::load(table::TABLE).unwrap();
        let embedded = table::load_embedded().unwrap();
        assert_eq!(format!("{embedded:?}"), format!("{written:?}"));
        let together = build(&written, true)
            .into_iter()
            .chain(build(&written, false));
        let alone: Vec<&Profile> = PROFILES
            .iter()
            .map(|p| profile_for(p.minor).unwrap())
            .chain(z_stream_profiles())
            .collect();
        let together: Vec<Profile> = together.collect();
        assert_eq!(alone.len(), together.len());
        for (alone, together) in alone.iter().zip(&together) {
            assert_eq!(format!("{alone:?}"), format!("{together:?}"));
        }
        let listed: Vec<(Minor, bool)> =
            PROFILES.iter().map(|p| (p.minor, p.development)).collect();
        assert_eq!(minors().collect::<Vec<_>>(), listed);
    }

    #[test]
    fn the_table_loads_and_every_minor_is_in_order() {
        let table = table::load(table::TABLE).unwrap();
        assert_eq!(PROFILES.len(), table.release.len());
        let minors: Vec<Minor> = PROFILES.iter().map(|p| p.minor).collect();
        let mut sorted = minors.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(minors, sorted);
        // Every opt-in a stage, file or unit names is an opt-in of that release.
        for profile in PROFILES.iter() {
            let opt_ins = profile
                .files
                .iter()
                .map(|f| (&f.path, &f.scope.opt_in))
                .chain(profile.units.iter().map(|u| (&u.name, &u.scope.opt_in)))
                .chain(profile.stages.iter().map(|s| (&s.name, &s.opt_in)));
            for (name, opt_in) in opt_ins {
                if let Some(opt_in) = opt_in {
                    assert!(
                        profile.opt_ins.iter().any(|g| &g.name == opt_in),
                        "{}: {name} is behind opt-in {opt_in}, which the release does not have",
                        profile.minor
                    );
                }
            }
        }
        // An opt-in is chosen only with feature sets its release accepts (CustomNoUpgrade chooses opt-ins
        // through their feature gates, never as a listed set), and at most one row per name.
        for profile in PROFILES.iter() {
            let mut names = std::collections::BTreeSet::new();
            for opt_in in &profile.opt_ins {
                assert!(
                    names.insert(&opt_in.name),
                    "{}: two {} opt-ins",
                    profile.minor,
                    opt_in.name
                );
                for set in &opt_in.feature_sets {
                    assert!(
                        profile
                            .distributions
                            .iter()
                            .any(|d| d.feature_sets.contains(set))
                            && set != CUSTOM_FEATURE_SET,
                        "{}: opt-in {} is chosen with `{set}`, not a feature set the release lists",
                        profile.minor,
                        opt_in.name
                    );
                }
            }
            for facts in &profile.distributions {
                assert!(facts.feature_sets.iter().any(|s| s.is_empty()));
                // The installer reads featureSet from 4.12; before, only the default exists.
                assert_eq!(
                    facts.feature_sets.iter().any(|s| s == CUSTOM_FEATURE_SET),
                    profile.minor >= super::Minor::new(4, 12),
                    "{}",
                    profile.minor
                );
                assert!(!facts.node_image.is_empty(), "{}", profile.minor);
            }
        }
        // A release that reads osImageStream has a default stream among the ones it accepts,
        // and the OSStreams opt-in that lets a cluster choose another.
        for profile in PROFILES.iter() {
            for facts in &profile.distributions {
                if facts.os_image_streams.is_empty() {
                    continue;
                }
                assert!(
                    facts.os_image_streams.contains(&facts.os_image_stream),
                    "{} {}: default stream `{}` is not one it accepts",
                    facts.distribution,
                    profile.minor,
                    facts.os_image_stream
                );
                assert!(
                    profile.opt_ins.iter().any(|g| g.name == OS_STREAMS_OPT_IN),
                    "{}: accepts osImageStream but has no {OS_STREAMS_OPT_IN} opt-in",
                    profile.minor
                );
            }
        }
        for profile in PROFILES.iter() {
            for stage in &profile.stages {
                if let Some(image) = &stage.image {
                    assert!(
                        image == "RELEASE_IMAGE_DIGEST"
                            || profile.images.iter().any(|i| &i.var == image),
                        "{}: stage {} uses {image}, which the release does not resolve",
                        profile.minor,
                        stage.name
                    );
                }
            }
        }
    }

    /// A bad table is an error when it loads, naming what is wrong: never a smaller node.
    #[test]
    fn a_bad_table_is_refused_naming_the_fault() {
        let with = |extra: &str| table::load(&format!("{}\n{extra}", table::TABLE));
        let fault = with("[[switch]]\nname = \"no_such_switch\"\n").unwrap_err();
        assert!(fault.contains("no_such_switch"), "{fault}");
        let fault = with("[[file]]\npath = \"/x\"\nmode = 0o600\nopt_in = \"nope\"\n").unwrap_err();
        assert!(fault.contains("/x: no opt-in `nope`"), "{fault}");
        let fault =
            with("[[file]]\npath = \"/y\"\nmode = 0o600\noverlay = \"nope\"\n").unwrap_err();
        assert!(fault.contains("/y: no overlay `nope`"), "{fault}");
        let fault = with("[[file]]\npath = \"/z\"\nmode = 0o600\nsince = \"4.99\"\n").unwrap_err();
        assert!(fault.contains("`4.99` is not a supported minor"), "{fault}");
        let fault = with("[[capability_set]]\nname = \"4.11\"\n").unwrap_err();
        assert!(
            fault.contains("capability set `4.11` is not v<minor>"),
            "{fault}"
        );
        // Without a release outside development, a run that names none has nothing to take.
        let all_development = table::TABLE
            .replace("development = true\n", "")
            .replace("[[release]]\n", "[[release]]\ndevelopment = true\n");
        let fault = table::load(&all_development).unwrap_err();
        assert!(fault.contains("no release to default to"), "{fault}");
        let fault = with("[[unit]]\nname = \"v.service\"\nuntil = \"4.9.x\"\n").unwrap_err();
        assert!(fault.contains("`4.9.x` is not a minor"), "{fault}");
        let fault = with("[[file]]\npath = \"/w\"\nmode = 0o600\nwhen = \"sunny\"\n").unwrap_err();
        assert!(fault.contains("sunny"), "{fault}");
        let fault = with("[[unit]]\nname = \"u.service\"\nenabld = true\n").unwrap_err();
        assert!(fault.contains("enabld"), "{fault}");
    }

    /// Every switch has a row: a switch no row turns on is dead code in waiting.
    #[test]
    fn every_switch_has_a_row() {
        let table = table::load(table::TABLE).unwrap();
        for switch in Switch::ALL {
            assert!(
                table.switch.iter().any(|r| r.name == *switch),
                "{switch} has no [[switch]] row"
            );
        }
    }

    /// Every template of templates/node and templates/units (and of each overlay) has a row
    /// saying which nodes have it, and every row names a template: a new file cannot reach (or
    /// miss) the node by accident. No node gets two rows for one path or unit.
    #[test]
    fn every_template_is_declared_by_the_release_table() {
        use crate::render::files_under;
        use std::collections::BTreeSet;
        let table = table::load(table::TABLE).unwrap();
        let overlays: Vec<Option<String>> = std::iter::once(None)
            .chain(table.overlay.iter().map(|o| Some(o.name.clone())))
            .collect();
        for overlay in &overlays {
            let dir = table::files_dir(overlay);
            let templates: BTreeSet<String> = files_under(&dir)
                .iter()
                .map(|t| t.output_name().trim_start_matches(dir.as_str()).to_string())
                .collect();
            let rows: BTreeSet<String> = table
                .file
                .iter()
                .filter(|r| &r.overlay == overlay)
                .map(|r| r.path.clone())
                .collect();
            assert_eq!(
                templates, rows,
                "templates/{dir} and its [[file]] rows differ"
            );

            let dir = table::units_dir(overlay);
            let templates: BTreeSet<String> = files_under(&dir)
                .iter()
                .map(|t| {
                    let relative = t.output_name().trim_start_matches(&format!("{dir}/"));
                    relative
                        .split_once(".d/")
                        .map_or(relative, |(unit, _)| unit)
                        .to_string()
                })
                .collect();
            let rows: BTreeSet<String> = table
                .unit
                .iter()
                .filter(|r| &r.overlay == overlay)
                .map(|r| r.name.clone())
                .collect();
            assert_eq!(
                templates, rows,
                "templates/{dir} and its [[unit]] rows differ"
            );
        }
        for profile in all_profiles() {
            for dims in every_dims() {
                let all_opt_ins: Vec<String> =
                    profile.opt_ins.iter().map(|g| g.name.clone()).collect();
                let node =
                    profile.for_node(dims.flow, dims.platform, dims.distribution, &all_opt_ins);
                let mut seen = BTreeSet::new();
                for file in &node.files {
                    assert!(
                        seen.insert(&file.path),
                        "{} ({dims:?}): two rows for {}",
                        profile.minor,
                        file.path
                    );
                    assert!(
                        crate::render::template(&file.template).is_some(),
                        "{}: no template {}",
                        file.path,
                        file.template
                    );
                }
                let mut seen = BTreeSet::new();
                for unit in &node.units {
                    assert!(
                        seen.insert(&unit.name),
                        "{} ({dims:?}): two rows for {}",
                        profile.minor,
                        unit.name
                    );
                }
            }
        }
    }

    /// A row whose template is a Secret manifest is 0600 (the installer ships them 0644, but
    /// a pull secret or a key should not be world-readable on the node).
    #[test]
    fn secret_manifests_are_private_in_the_table() {
        for profile in PROFILES.iter() {
            for file in &profile.files {
                let text = crate::render::template(&file.template)
                    .map(|t| String::from_utf8_lossy(t.bytes).into_owned())
                    .unwrap_or_default();
                if text.lines().any(|l| l == "kind: Secret") {
                    assert_eq!(file.mode, 0o600, "{}", file.path);
                }
            }
        }
    }

    #[test]
    fn a_patch_bound_splits_its_minor_at_that_z_stream() {
        let at = |minor: &str, patch| Point {
            minor: minor.parse().unwrap(),
            patch,
        };
        let from = Some("4.9.5".parse::<Bound>().unwrap());
        assert!(!holds(at("4.9", 4), &from, &None));
        assert!(holds(at("4.9", 5), &from, &None));
        assert!(holds(at("4.10", 0), &from, &None));
        let until = Some("4.9.4".parse::<Bound>().unwrap());
        assert!(holds(at("4.9", 4), &None, &until));
        assert!(!holds(at("4.9", 5), &None, &until));
        let bound: Bound = "4.9.5".parse().unwrap();
        assert_eq!((bound.minor, bound.patch), (Minor::new(4, 9), Some(5)));
        assert_eq!(bound.to_string(), "4.9.5");
        assert!("4.9.x".parse::<Bound>().is_err() && "4".parse::<Bound>().is_err());
        // The z-stream's profile exists and differs from the minor's where the table says so.
        let first = profile_for_patch(Minor::new(4, 9), 0).unwrap();
        let later = profile_for_patch(Minor::new(4, 9), 7).unwrap();
        assert_eq!(first.from_patch, 0);
        assert_eq!(later.from_patch, 5);
        let cluster = Dimensions::default();
        assert!(!first.switches(cluster).has(Switch::CvoOverrides));
        assert!(later.switches(cluster).has(Switch::CvoOverrides));
        let node = later.for_node(Flow::Cluster, Platform::None, Distribution::Ocp, &[]);
        assert!(node
            .file("/opt/openshift/original_cvo_overrides.patch")
            .is_some());
        let node = first.for_node(Flow::Cluster, Platform::None, Distribution::Ocp, &[]);
        assert!(node
            .file("/opt/openshift/original_cvo_overrides.patch")
            .is_none());
    }

    /// A switch, file or stage limited to one flow is on only there; an overlay's files reach
    /// only its nodes.
    #[test]
    fn node_profiles_follow_flow_and_overlay() {
        let profile = profile_for(Minor::new(4, 16)).unwrap();
        let cluster = profile.for_node(Flow::Cluster, Platform::None, Distribution::Ocp, &[]);
        let single = profile.for_node(Flow::InPlace, Platform::None, Distribution::Ocp, &[]);
        assert!(!cluster.has(Switch::SingleNodeWorkerConfig));
        assert!(single.has(Switch::SingleNodeWorkerConfig));
        assert!(cluster.file("/usr/local/bin/install-to-disk.sh").is_none());
        let install = single.file("/usr/local/bin/install-to-disk.sh").unwrap();
        assert_eq!(install.mode, 0o555);
        assert_eq!(
            install.template,
            "single-node/node/usr/local/bin/install-to-disk.sh.j2"
        );
        assert!(single
            .units
            .iter()
            .any(|u| u.name == "install-to-disk.service" && u.enabled));
        assert!(!cluster
            .units
            .iter()
            .any(|u| u.name == "install-to-disk.service"));
        // registries.conf changed mode in 4.18.
        let mode = |minor| {
            profile_for(Minor::new(4, minor))
                .unwrap()
                .for_node(Flow::Cluster, Platform::None, Distribution::Ocp, &[])
                .file("/etc/containers/registries.conf")
                .unwrap()
                .mode
        };
        assert_eq!((mode(17), mode(18)), (0o600, 0o644));
    }

    /// A file for some nodes and a range of releases is one row: here a file of the
    /// single-node overlay from 4.20 on reaches exactly those nodes.
    #[test]
    fn a_file_for_one_overlay_and_range_of_releases_is_one_row() {
        let row = "[[file]]\npath = \"/etc/example.conf\"\nmode = 0o644\noverlay = \"single-node\"\nsince = \"4.20\"\n";
        let table = table::load(&format!("{}\n{row}", table::TABLE)).unwrap();
        for profile in &build(&table, true) {
            for dims in every_dims() {
                let node = profile.for_node(dims.flow, dims.platform, dims.distribution, &[]);
                let has = node.file("/etc/example.conf").is_some();
                let wanted = dims.flow == Flow::InPlace && profile.minor >= Minor::new(4, 20);
                assert_eq!(has, wanted, "{} {dims:?}", profile.minor);
                if let Some(file) = node.file("/etc/example.conf") {
                    assert_eq!(file.mode, 0o644);
                    assert_eq!(file.template, "single-node/node/etc/example.conf");
                }
            }
        }
    }

    /// The same for a platform: a file only external-platform nodes get from 4.20 on is one row
    /// (its template beside the others, or in a platform overlay).
    #[test]
    fn a_file_for_one_platform_and_range_of_releases_is_one_row() {
        let row = "[[file]]\npath = \"/etc/provider.conf\"\nmode = 0o600\nplatform = \"external\"\nsince = \"4.20\"\n";
        let table = table::load(&format!("{}\n{row}", table::TABLE)).unwrap();
        for profile in &build(&table, true) {
            for dims in every_dims() {
                let node = profile.for_node(dims.flow, dims.platform, dims.distribution, &[]);
                let wanted =
                    dims.platform == Platform::External && profile.minor >= Minor::new(4, 20);
                assert_eq!(
                    node.file("/etc/provider.conf").is_some(),
                    wanted,
                    "{} {dims:?}",
                    profile.minor
                );
            }
        }
    }

    #[test]
    fn ranges_are_inclusive() {
        let m = |t: &str| Some(t.parse::<Bound>().unwrap());
        let at = |minor, patch| Point {
            minor: Minor::new(4, minor),
            patch,
        };
        assert!(holds(at(12, 0), &m("4.12"), &None));
        assert!(!holds(at(11, 9), &m("4.12"), &None));
        assert!(holds(at(12, 30), &None, &m("4.12")));
        assert!(!holds(at(13, 0), &None, &m("4.12")));
    }
}
