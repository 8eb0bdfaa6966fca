//! Release profiles: what a bootstrap node gets for each OpenShift minor, read from one data
//! table (`releases.toml` beside this file). Each row there holds from a release on (`since`)
//! and/or up to one (`until`, inclusive); a profile is the rows that hold for its minor. Code
//! and templates ask the profile; they never compare versions themselves.

use super::version::Minor;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// The table, embedded at build time.
const TABLE: &str = include_str!("releases.toml");

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
    /// The node image's OS stream by default (`rhel-9`), `""` before releases had streams.
    pub os_image_stream: String,
    /// The install-config `osImageStream` values this release accepts; empty before the
    /// installer read the field.
    pub os_image_streams: Vec<String>,
    /// The payload images bootkube resolves: shell variable to `image_for` name, in order.
    pub images: Vec<ImageName>,
    /// bootkube's stages, in run order.
    pub stages: Vec<Stage>,
    /// Switches for files, units and manifests that come and go between releases, for a
    /// cluster with a bootstrap machine.
    pub features: BTreeMap<String, bool>,
    /// The same switches for a single node bootstrapping in place.
    pub in_place_features: BTreeMap<String, bool>,
    /// The node paths of the files of `templates/node` this release has.
    pub files: Vec<String>,
    /// The units of `templates/units` this release has.
    pub units: Vec<String>,
    /// The same for a single node (files and units that hang on a switch follow its flow).
    pub in_place_files: Vec<String>,
    /// See [`Profile::in_place_files`].
    pub in_place_units: Vec<String>,
    /// Install-config settings that add stages to this release (e.g. konnectivity with a
    /// preview feature set).
    pub gates: Vec<Gate>,
    /// Files and units (node path or unit name) that the node gets only behind an open gate,
    /// to that gate's name.
    #[serde(skip)]
    pub(crate) gated: BTreeMap<String, String>,
    /// The install-config `featureSet` values this release accepts (`""`: unset, the default).
    pub feature_sets: Vec<String>,
}

/// A set of stages this release runs only when the install-config asks for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Gate {
    /// The name stage rows refer to, e.g. `konnectivity`.
    pub name: String,
    /// The one flow it can open in; `None`: both.
    pub flow: Option<Flow>,
    /// The install-config `featureSet` values that open it (`""`: unset, the default).
    pub feature_sets: Vec<String>,
    /// The cluster feature gates it stands for: with featureSet CustomNoUpgrade, any of them
    /// enabled in the install-config's `featureGates` opens it.
    pub feature_gates: Vec<String>,
}

impl Gate {
    /// Whether an install-config with `feature_set` (and, for CustomNoUpgrade, the feature
    /// gates `enabled` in its `featureGates`) opens it, as the installer's `Enabled()` says.
    pub fn opens(&self, feature_set: &str, enabled: &[String]) -> bool {
        if feature_set == CUSTOM_FEATURE_SET {
            self.feature_gates.iter().any(|g| enabled.contains(g))
        } else {
            self.feature_sets.iter().any(|s| s == feature_set)
        }
    }

    /// What opens it, for a person: `featureSet TechPreviewNoUpgrade or DevPreviewNoUpgrade, or
    /// CustomNoUpgrade with OSStreams`.
    pub fn opens_with(&self) -> String {
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

/// The gate that stands for the cluster's OSStreams feature: the OSImageStream manifest, and
/// an `osImageStream` other than the release's default.
pub const OS_STREAMS_GATE: &str = "os_streams";

/// How the cluster bootstraps: some stages and switches hold for only one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flow {
    /// A separate bootstrap machine that hands over to the control plane.
    Cluster,
    /// A single node that bootstraps from the live ISO and installs itself to disk.
    InPlace,
}

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
    /// The gate ([`Gate`]) the stage runs behind; `None`: it always runs.
    pub gate: Option<String>,
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
    /// The stage named `name`, when the release has it.
    pub fn stage(&self, name: &str) -> Option<&Stage> {
        self.stages.iter().find(|s| s.name == name)
    }

    /// Whether a feature switch is on for this release (unknown switches are off).
    pub fn has(&self, feature: &str) -> bool {
        self.features.get(feature).copied().unwrap_or(false)
    }

    /// The stages bootkube runs in `flow` with the gates `open` ([`Profile::gates_open`]), in
    /// order.
    pub fn stages_in<'a>(
        &'a self,
        flow: Flow,
        open: &'a [String],
    ) -> impl Iterator<Item = &'a Stage> + 'a {
        self.stages.iter().filter(move |s| {
            s.flow.is_none_or(|f| f == flow) && s.gate.as_ref().is_none_or(|g| open.contains(g))
        })
    }

    /// The gates an install-config with `feature_set` (and, for CustomNoUpgrade, the feature
    /// gates `enabled` in its `featureGates`) opens in `flow`.
    pub fn gates_open(&self, flow: Flow, feature_set: &str, enabled: &[String]) -> Vec<String> {
        self.gates
            .iter()
            .filter(|g| g.flow.is_none_or(|f| f == flow))
            .filter(|g| g.opens(feature_set, enabled))
            .map(|g| g.name.clone())
            .collect()
    }

    /// The feature switches of `flow`.
    pub fn features_in(&self, flow: Flow) -> &BTreeMap<String, bool> {
        match flow {
            Flow::Cluster => &self.features,
            Flow::InPlace => &self.in_place_features,
        }
    }

    /// The node files of `templates/node` this release has in `flow`.
    pub fn files_in(&self, flow: Flow) -> &[String] {
        match flow {
            Flow::Cluster => &self.files,
            Flow::InPlace => &self.in_place_files,
        }
    }

    /// The units of `templates/units` this release has in `flow`.
    pub fn units_in(&self, flow: Flow) -> &[String] {
        match flow {
            Flow::Cluster => &self.units,
            Flow::InPlace => &self.in_place_units,
        }
    }

    /// Of `names` (files or units of this release), those the gates `open` let onto the node.
    pub(crate) fn behind_open_gates(&self, names: &[String], open: &[String]) -> Vec<String> {
        names
            .iter()
            .filter(|name| self.gated.get(*name).is_none_or(|gate| open.contains(gate)))
            .cloned()
            .collect()
    }
}

// ---- the table as written ------------------------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    release: Vec<ReleaseRow>,
    ignition_spec: Vec<Ranged<String>>,
    #[serde(default)]
    os_image_stream: Vec<Ranged<String>>,
    #[serde(default)]
    os_image_stream_choice: Vec<Ranged<String>>,
    image: Vec<ImageRow>,
    stage: Vec<StageRow>,
    #[serde(default)]
    feature: Vec<FeatureRow>,
    #[serde(default)]
    file: Vec<PresenceRow>,
    #[serde(default)]
    unit: Vec<PresenceRow>,
    #[serde(default)]
    gate: Vec<GateRow>,
    #[serde(default)]
    feature_set: Vec<Ranged<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GateRow {
    name: String,
    since: Option<String>,
    until: Option<String>,
    flow: Option<Flow>,
    feature_sets: Vec<String>,
    #[serde(default)]
    feature_gates: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReleaseRow {
    minor: String,
    source: String,
    #[serde(default)]
    development: bool,
}

/// A value that holds for a range of releases.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ranged<T> {
    value: T,
    since: Option<String>,
    until: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ImageRow {
    var: String,
    name: String,
    fallback: Option<String>,
    since: Option<String>,
    until: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StageRow {
    name: String,
    marker: String,
    #[serde(default = "same_as_marker")]
    skip_if: String,
    kind: String,
    since: Option<String>,
    until: Option<String>,
    #[serde(default)]
    options: Vec<String>,
    image: Option<String>,
    #[serde(default)]
    command: Vec<Word>,
    flow: Option<Flow>,
    #[serde(default)]
    optional_flags: Vec<Word>,
    gate: Option<String>,
}

fn same_as_marker() -> String {
    "=".into()
}

/// A word of a command: plain, or held only for some releases.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Word {
    Always(String),
    Ranged {
        word: String,
        since: Option<String>,
        until: Option<String>,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FeatureRow {
    name: String,
    since: Option<String>,
    until: Option<String>,
    /// Only in this flow; a switch on in any of its rows is on.
    flow: Option<Flow>,
}

/// A file (`path`) or unit (`name`) and the releases that have it: a range, a feature switch,
/// or both.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PresenceRow {
    #[serde(alias = "name")]
    path: String,
    since: Option<String>,
    until: Option<String>,
    feature: Option<String>,
    /// Only when this gate is open.
    gate: Option<String>,
}

fn present(rows: &[PresenceRow], minor: Point, features: &BTreeMap<String, bool>) -> Vec<String> {
    rows.iter()
        .filter(|r| holds(minor, &r.since, &r.until))
        .filter(|r| {
            r.feature
                .as_ref()
                .is_none_or(|f| features.get(f).copied().unwrap_or(false))
        })
        .map(|r| r.path.clone())
        .collect()
}

/// The values of the rows that hold for `minor`, in table order.
fn values_in(rows: &[Ranged<String>], minor: Point) -> Vec<String> {
    rows.iter()
        .filter(|r| holds(minor, &r.since, &r.until))
        .map(|r| r.value.clone())
        .collect()
}

/// The words that hold for `minor`.
fn words(words: &[Word], minor: Point) -> Vec<String> {
    words
        .iter()
        .filter_map(|w| match w {
            Word::Always(word) => Some(word.clone()),
            Word::Ranged { word, since, until } => holds(minor, since, until).then(|| word.clone()),
        })
        .collect()
}

/// Where a profile sits in the release line: a minor, from one of its patch releases on (a
/// fact can change within a minor when a fix is backported to a z-stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Point {
    minor: Minor,
    patch: u32,
}

/// A row's bound: a minor (`4.9`, every patch of it) or a patch release (`4.9.5`).
fn bound(text: &str) -> Option<(Minor, Option<u32>)> {
    match text.parse::<Minor>() {
        Ok(minor) => Some((minor, None)),
        Err(_) => {
            let (minor, patch) = text.rsplit_once('.')?;
            Some((minor.parse().ok()?, Some(patch.parse().ok()?)))
        }
    }
}

fn holds(at: Point, since: &Option<String>, until: &Option<String>) -> bool {
    let since_ok = since
        .as_deref()
        .and_then(bound)
        .is_none_or(|(m, p)| (at.minor, at.patch) >= (m, p.unwrap_or(0)));
    let until_ok = until
        .as_deref()
        .and_then(bound)
        .is_none_or(|(m, p)| match p {
            Some(p) => (at.minor, at.patch) <= (m, p),
            None => at.minor <= m,
        });
    since_ok && until_ok
}

/// Every row's `[since, until]` bounds, for z-stream points and checks.
fn all_bounds(table: &Table) -> Vec<[&Option<String>; 2]> {
    let mut out: Vec<[&Option<String>; 2]> = Vec::new();
    for s in &table.stage {
        out.push([&s.since, &s.until]);
        for w in s.command.iter().chain(&s.optional_flags) {
            if let Word::Ranged { since, until, .. } = w {
                out.push([since, until]);
            }
        }
    }
    out.extend(table.image.iter().map(|r| [&r.since, &r.until]));
    out.extend(table.feature.iter().map(|r| [&r.since, &r.until]));
    out.extend(
        table
            .ignition_spec
            .iter()
            .chain(&table.os_image_stream)
            .chain(&table.os_image_stream_choice)
            .chain(&table.feature_set)
            .map(|r| [&r.since, &r.until]),
    );
    out.extend(
        table
            .file
            .iter()
            .chain(&table.unit)
            .map(|r| [&r.since, &r.until]),
    );
    out.extend(table.gate.iter().map(|r| [&r.since, &r.until]));
    out
}

/// The points of `minor` that need a profile: its first release, every patch release from
/// which a row starts, and every one after a row stops.
fn points_of(table: &Table, minor: Minor) -> Vec<Point> {
    let mut patches = vec![0];
    let patch_of = |text: &Option<String>| match text.as_deref().and_then(bound) {
        Some((m, Some(p))) if m == minor => Some(p),
        _ => None,
    };
    for [since, until] in all_bounds(table) {
        patches.extend(patch_of(since));
        patches.extend(patch_of(until).map(|p| p + 1));
    }
    patches.sort_unstable();
    patches.dedup();
    patches
        .into_iter()
        .map(|patch| Point { minor, patch })
        .collect()
}

fn build(table: &Table) -> Vec<Profile> {
    table
        .release
        .iter()
        .filter_map(|row| Some((row, row.minor.parse::<Minor>().ok()?)))
        .flat_map(|(row, minor)| points_of(table, minor).into_iter().map(move |at| (row, at)))
        .map(|(row, at)| {
            let minor = at;
            let features = features_of(table, minor, Flow::Cluster);
            let in_place_features = features_of(table, minor, Flow::InPlace);
            Profile {
                minor: at.minor,
                from_patch: at.patch,
                development: row.development,
                source: row.source.clone(),
                // Where rows overlap, the last one that holds wins.
                ignition_spec: values_in(&table.ignition_spec, minor)
                    .pop()
                    .unwrap_or_else(|| "3.2.0".into()),
                os_image_stream: values_in(&table.os_image_stream, minor)
                    .pop()
                    .unwrap_or_default(),
                os_image_streams: values_in(&table.os_image_stream_choice, minor),
                images: table
                    .image
                    .iter()
                    .filter(|r| holds(minor, &r.since, &r.until))
                    .map(|r| ImageName {
                        var: r.var.clone(),
                        name: r.name.clone(),
                        fallback: r.fallback.clone(),
                    })
                    .collect(),
                stages: table
                    .stage
                    .iter()
                    .filter(|r| holds(minor, &r.since, &r.until))
                    .map(|r| Stage {
                        name: r.name.clone(),
                        marker: r.marker.clone(),
                        skip_if: r.skip_if.clone(),
                        kind: r.kind.clone(),
                        options: r.options.clone(),
                        image: r.image.clone(),
                        flow: r.flow,
                        command: words(&r.command, minor),
                        optional_flags: words(&r.optional_flags, minor),
                        gate: r.gate.clone(),
                    })
                    .collect(),
                gates: table
                    .gate
                    .iter()
                    .filter(|r| holds(minor, &r.since, &r.until))
                    .map(|r| Gate {
                        name: r.name.clone(),
                        flow: r.flow,
                        feature_sets: r.feature_sets.clone(),
                        feature_gates: r.feature_gates.clone(),
                    })
                    .collect(),
                feature_sets: values_in(&table.feature_set, minor),
                gated: table
                    .file
                    .iter()
                    .chain(&table.unit)
                    .filter(|r| holds(minor, &r.since, &r.until))
                    .filter_map(|r| Some((r.path.clone(), r.gate.clone()?)))
                    .collect(),
                files: present(&table.file, minor, &features),
                units: present(&table.unit, minor, &features),
                in_place_files: present(&table.file, minor, &in_place_features),
                in_place_units: present(&table.unit, minor, &in_place_features),
                features,
                in_place_features,
            }
        })
        .collect()
}

/// The switches of `minor` in `flow`: every name the table knows, on when one of its rows holds.
fn features_of(table: &Table, minor: Point, flow: Flow) -> BTreeMap<String, bool> {
    let mut features = BTreeMap::new();
    for row in &table.feature {
        let on = holds(minor, &row.since, &row.until) && row.flow.is_none_or(|f| f == flow);
        *features.entry(row.name.clone()).or_insert(false) |= on;
    }
    features
}

/// Every profile: each supported minor's, and after it those of the patch releases from which
/// a fact of that minor changed.
static ALL_PROFILES: LazyLock<Vec<Profile>> = LazyLock::new(|| match toml::from_str(TABLE) {
    Ok(table) => build(&table),
    // The table is ours and checked by the tests below; an unreadable one supports nothing.
    Err(_) => Vec::new(),
});

/// Every supported release's profile (as of its first release, `X.Y.0`), oldest first.
pub static PROFILES: LazyLock<Vec<Profile>> = LazyLock::new(|| {
    ALL_PROFILES
        .iter()
        .filter(|p| p.from_patch == 0)
        .cloned()
        .collect()
});

/// The profile of `minor` (as of `X.Y.0`), when it is supported.
pub fn profile_for(minor: Minor) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.minor == minor)
}

/// The z-stream profiles: for each minor where a fact changed within it, one profile from
/// that patch release on (`from_patch` > 0), oldest first.
pub fn z_stream_profiles() -> impl Iterator<Item = &'static Profile> {
    ALL_PROFILES.iter().filter(|p| p.from_patch > 0)
}

/// The profile of one patch release of `minor`: the minor's own, or that of the latest
/// z-stream point at or before `patch` where a fact changed.
pub fn profile_for_patch(minor: Minor, patch: u32) -> Option<&'static Profile> {
    ALL_PROFILES
        .iter()
        .filter(|p| p.minor == minor && p.from_patch <= patch)
        .max_by_key(|p| p.from_patch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_and_every_minor_is_in_order() {
        let table: Table = toml::from_str(TABLE).unwrap();
        assert_eq!(PROFILES.len(), table.release.len());
        let minors: Vec<Minor> = PROFILES.iter().map(|p| p.minor).collect();
        let mut sorted = minors.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(minors, sorted);
        // Every bound names a supported minor, or a patch release of one: a typo would
        // silently change a range.
        let known: Vec<String> = table.release.iter().map(|r| r.minor.clone()).collect();
        for text in all_bounds(&table).into_iter().flatten().flatten() {
            let named = bound(text).map(|(minor, _)| minor.to_string());
            assert!(
                named.is_some_and(|m| known.contains(&m)),
                "`{text}` is not a supported minor or a patch release of one"
            );
        }
        // Every feature a file or unit names is a switch of the table.
        for row in table.file.iter().chain(&table.unit) {
            if let Some(feature) = &row.feature {
                assert!(
                    table.feature.iter().any(|f| &f.name == feature),
                    "{}: no feature {feature}",
                    row.path
                );
            }
        }
        // Every gate a stage, file or unit names is a gate of the table, and the release of the
        // stage, file or unit has it.
        for profile in PROFILES.iter() {
            for (name, gate) in &profile.gated {
                assert!(
                    profile.gates.iter().any(|g| &g.name == gate),
                    "{}: {name} is behind gate {gate}, which the release does not have",
                    profile.minor
                );
            }
            for stage in &profile.stages {
                if let Some(gate) = &stage.gate {
                    assert!(
                        profile.gates.iter().any(|g| &g.name == gate),
                        "{}: stage {} is behind gate {gate}, which the release does not have",
                        profile.minor,
                        stage.name
                    );
                }
            }
        }
        // A gate opens only with feature sets its release accepts (CustomNoUpgrade opens gates
        // through their feature gates, never as a listed set), and at most one row per name.
        for profile in PROFILES.iter() {
            let mut names = std::collections::BTreeSet::new();
            for gate in &profile.gates {
                assert!(
                    names.insert(&gate.name),
                    "{}: two {} gates",
                    profile.minor,
                    gate.name
                );
                for set in &gate.feature_sets {
                    assert!(
                        profile.feature_sets.contains(set) && set != CUSTOM_FEATURE_SET,
                        "{}: gate {} opens with `{set}`, not a feature set the release lists",
                        profile.minor,
                        gate.name
                    );
                }
            }
            assert!(profile.feature_sets.iter().any(|s| s.is_empty()));
            assert!(profile.feature_sets.iter().any(|s| s == CUSTOM_FEATURE_SET));
        }
        // A release that reads osImageStream has a default stream among the ones it accepts,
        // and the OSStreams gate that lets a cluster choose another.
        for profile in PROFILES.iter() {
            if profile.os_image_streams.is_empty() {
                continue;
            }
            assert!(
                profile.os_image_streams.contains(&profile.os_image_stream),
                "{}: default stream `{}` is not one it accepts",
                profile.minor,
                profile.os_image_stream
            );
            assert!(
                profile.gates.iter().any(|g| g.name == OS_STREAMS_GATE),
                "{}: accepts osImageStream but has no {OS_STREAMS_GATE} gate",
                profile.minor
            );
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

    /// Every file of templates/node and unit of templates/units has a row saying which releases
    /// have it, and every row names a template: a new file cannot reach (or miss) the node by
    /// accident.
    #[test]
    fn every_template_is_declared_by_the_release_table() {
        use crate::render::files_under;
        use std::collections::BTreeSet;
        let table: Table = toml::from_str(TABLE).unwrap();
        let files: BTreeSet<String> = files_under("node")
            .iter()
            .map(|t| format!("/{}", t.output_name().trim_start_matches("node/")))
            .collect();
        let rows: BTreeSet<String> = table.file.iter().map(|r| r.path.clone()).collect();
        let undeclared: Vec<&String> = files.difference(&rows).collect();
        assert!(
            undeclared.is_empty(),
            "templates without a [[file]] row in releases.toml: {undeclared:?}"
        );
        let stale: Vec<&String> = rows.difference(&files).collect();
        assert!(
            stale.is_empty(),
            "[[file]] rows without a template: {stale:?}"
        );
        assert_eq!(rows.len(), table.file.len(), "a [[file]] row is repeated");

        let units: BTreeSet<String> = files_under("units")
            .iter()
            .map(|t| {
                let relative = t.output_name().trim_start_matches("units/");
                relative
                    .split_once(".d/")
                    .map_or(relative, |(unit, _)| unit)
                    .to_string()
            })
            .collect();
        let rows: BTreeSet<String> = table.unit.iter().map(|r| r.path.clone()).collect();
        assert_eq!(units, rows, "templates/units and the [[unit]] rows differ");
        assert_eq!(rows.len(), table.unit.len(), "a [[unit]] row is repeated");
    }

    #[test]
    fn a_patch_bound_splits_its_minor_at_that_z_stream() {
        let at = |minor: &str, patch| Point {
            minor: minor.parse().unwrap(),
            patch,
        };
        let from = Some("4.9.5".to_string());
        assert!(!holds(at("4.9", 4), &from, &None));
        assert!(holds(at("4.9", 5), &from, &None));
        assert!(holds(at("4.10", 0), &from, &None));
        let until = Some("4.9.4".to_string());
        assert!(holds(at("4.9", 4), &None, &until));
        assert!(!holds(at("4.9", 5), &None, &until));
        // The z-stream's profile exists and differs from the minor's where the table says so.
        let first = profile_for_patch(Minor::new(4, 9), 0).unwrap();
        let later = profile_for_patch(Minor::new(4, 9), 7).unwrap();
        assert_eq!(first.from_patch, 0);
        assert_eq!(later.from_patch, 5);
        assert!(!first.features["cvo_overrides"] && later.features["cvo_overrides"]);
        assert!(later
            .files
            .iter()
            .any(|f| f.ends_with("original_cvo_overrides.patch")));
    }

    #[test]
    fn ranges_are_inclusive() {
        let m = |t: &str| Some(t.to_string());
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
