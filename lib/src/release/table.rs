//! `releases.toml` as written: its rows, the release ranges they hold for (each bound read into a
//! [`Bound`] once, as the table loads), and the checks that make a bad table an error when it
//! loads (an unknown switch, opt-in or overlay, a row with a bound that names no supported
//! release), never a silently smaller node.

use super::dimensions::{Condition, Distribution, Each, Flow, Order, Platform, Scope};
use super::switch::Switch;
use super::version::Minor;
use serde::Deserialize;

/// The table as written, for the tests that load it with rows added.
#[cfg(test)]
pub(super) const TABLE: &str = include_str!("releases.toml");

/// The table as the library embeds it: `releases.toml` turned into JSON by `build.rs`, which
/// a process reads in a fraction of a TOML parse's time and memory.
const EMBEDDED: &str = include_str!(concat!(env!("OUT_DIR"), "/releases.json"));

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Table {
    pub release: Vec<ReleaseRow>,
    pub distribution: Vec<DistributionRow>,
    pub ignition_spec: Vec<Ranged<String>>,
    pub node_image: Vec<Ranged<String>>,
    #[serde(default)]
    pub os_image_stream: Vec<Ranged<String>>,
    #[serde(default)]
    pub os_image_stream_choice: Vec<Ranged<String>>,
    pub image: Vec<ImageRow>,
    pub stage: Vec<StageRow>,
    #[serde(default)]
    pub switch: Vec<SwitchRow>,
    #[serde(default)]
    pub overlay: Vec<OverlayRow>,
    #[serde(default)]
    pub file: Vec<FileRow>,
    #[serde(default)]
    pub unit: Vec<UnitRow>,
    #[serde(default)]
    pub opt_in: Vec<OptInRow>,
    #[serde(default)]
    pub feature_set: Vec<Ranged<String>>,
    #[serde(default)]
    pub capability: Vec<CapabilityRow>,
    #[serde(default)]
    pub capability_set: Vec<CapabilitySetRow>,
}

/// A cluster capability the release knows, and the first baseline set (`v4.N`) that holds it;
/// without one, only `vCurrent` does.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CapabilityRow {
    pub name: String,
    pub since: Option<Bound>,
    pub until: Option<Bound>,
    #[serde(default, deserialize_with = "some_minor")]
    pub in_sets_from: Option<Minor>,
}

/// A versioned baseline capability set (`v4.N`) the release knows.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CapabilitySetRow {
    /// The set's name, `v<minor>`, read as its minor.
    #[serde(rename = "name", deserialize_with = "versioned_set")]
    pub minor: Minor,
    pub since: Option<Bound>,
    pub until: Option<Bound>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OptInRow {
    pub name: String,
    pub since: Option<Bound>,
    pub until: Option<Bound>,
    pub flow: Option<Flow>,
    pub feature_sets: Vec<String>,
    #[serde(default)]
    pub feature_gates: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ReleaseRow {
    #[serde(deserialize_with = "minor")]
    pub minor: Minor,
    pub source: String,
    #[serde(default)]
    pub development: bool,
}

/// A distribution a range of releases has, and what its clusters are told of it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DistributionRow {
    pub name: Distribution,
    pub since: Option<Bound>,
    pub until: Option<Bound>,
    pub repository: String,
    pub channel: String,
    pub upstream: Option<String>,
}

/// A value that holds for a range of releases (of one distribution, when it names one).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Ranged<T> {
    pub value: T,
    pub since: Option<Bound>,
    pub until: Option<Bound>,
    pub distribution: Option<Distribution>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ImageRow {
    pub var: String,
    pub name: String,
    pub fallback: Option<String>,
    pub since: Option<Bound>,
    pub until: Option<Bound>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StageRow {
    pub name: String,
    pub marker: String,
    #[serde(default = "same_as_marker")]
    pub skip_if: String,
    pub kind: String,
    pub since: Option<Bound>,
    pub until: Option<Bound>,
    #[serde(default)]
    pub options: Vec<String>,
    pub image: Option<String>,
    #[serde(default)]
    pub command: Vec<Word>,
    pub flow: Option<Flow>,
    #[serde(default)]
    pub optional_flags: Vec<Word>,
    pub opt_in: Option<String>,
}

fn same_as_marker() -> String {
    "=".into()
}

/// A word of a command: plain, or held only for some releases.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Word {
    Always(String),
    Ranged {
        word: String,
        since: Option<Bound>,
        until: Option<Bound>,
    },
}

/// A switch that is on for a range of releases, in some flows, platforms or distributions (a
/// switch on in any of its rows is on).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SwitchRow {
    pub name: Switch,
    pub since: Option<Bound>,
    pub until: Option<Bound>,
    pub flow: Option<Flow>,
    pub platform: Option<Platform>,
    pub distribution: Option<Distribution>,
}

/// A set of templates (`templates/<name>/node`, `templates/<name>/units`) layered over the base
/// ones for the nodes of some flows, platforms or distributions.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OverlayRow {
    pub name: String,
    pub flow: Option<Flow>,
    pub platform: Option<Platform>,
    pub distribution: Option<Distribution>,
}

/// A file of the node: its template (`templates/node/<path>`, or the overlay's), mode, and
/// every dimension it depends on.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileRow {
    pub path: String,
    pub mode: u32,
    #[serde(default)]
    pub append: bool,
    pub since: Option<Bound>,
    pub until: Option<Bound>,
    pub flow: Option<Flow>,
    pub platform: Option<Platform>,
    pub distribution: Option<Distribution>,
    pub switch: Option<Switch>,
    pub opt_in: Option<String>,
    pub overlay: Option<String>,
    pub when: Option<Condition>,
    pub each: Option<Each>,
    #[serde(default)]
    pub order: Order,
}

/// A unit of the node (its template and drop-ins under `templates/units/`, or the overlay's).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct UnitRow {
    pub name: String,
    #[serde(default)]
    pub enabled: bool,
    pub since: Option<Bound>,
    pub until: Option<Bound>,
    pub flow: Option<Flow>,
    pub platform: Option<Platform>,
    pub distribution: Option<Distribution>,
    pub switch: Option<Switch>,
    pub opt_in: Option<String>,
    pub overlay: Option<String>,
}

/// A row that says which nodes have what it describes (a file or a unit row).
pub(super) trait Scoped {
    /// Its flow, platform, distribution, switch, opt-in and overlay.
    fn dims(&self) -> RowDims<'_>;
}

/// What [`Scoped::dims`] returns.
pub(super) struct RowDims<'a> {
    pub flow: Option<Flow>,
    pub platform: Option<Platform>,
    pub distribution: Option<Distribution>,
    pub switch: Option<Switch>,
    pub opt_in: &'a Option<String>,
    pub overlay: &'a Option<String>,
}

macro_rules! scoped {
    ($($row:ty),+) => {$(
        impl Scoped for $row {
            fn dims(&self) -> RowDims<'_> {
                RowDims {
                    flow: self.flow,
                    platform: self.platform,
                    distribution: self.distribution,
                    switch: self.switch,
                    opt_in: &self.opt_in,
                    overlay: &self.overlay,
                }
            }
        }
    )+};
}

scoped!(FileRow, UnitRow);

impl Table {
    /// The scope of a file or unit row: its own dimensions, narrowed by its overlay's.
    pub fn scope(&self, row: &impl Scoped) -> Scope {
        let dims = row.dims();
        let overlay = dims
            .overlay
            .as_ref()
            .and_then(|name| self.overlay.iter().find(|o| &o.name == name));
        Scope {
            flow: dims.flow.or(overlay.and_then(|o| o.flow)),
            platform: dims.platform.or(overlay.and_then(|o| o.platform)),
            distribution: dims.distribution.or(overlay.and_then(|o| o.distribution)),
            switch: dims.switch,
            opt_in: dims.opt_in.clone(),
        }
    }
}

/// The template directory of the node files of `overlay` (`node`, or `<overlay>/node`).
pub(super) fn files_dir(overlay: &Option<String>) -> String {
    match overlay {
        Some(name) => format!("{name}/node"),
        None => "node".into(),
    }
}

/// The template directory of the units of `overlay` (`units`, or `<overlay>/units`).
pub(super) fn units_dir(overlay: &Option<String>) -> String {
    match overlay {
        Some(name) => format!("{name}/units"),
        None => "units".into(),
    }
}

/// Where a profile sits in the release line: a minor, from one of its patch releases on (a
/// fact can change within a minor when a fix is backported to a z-stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Point {
    pub minor: Minor,
    pub patch: u32,
}

/// A row's bound, read once when the table loads: a minor (`4.9`, every patch of it) or a patch
/// release (`4.9.5`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub(super) struct Bound {
    pub minor: Minor,
    pub patch: Option<u32>,
}

impl std::str::FromStr for Bound {
    type Err = String;

    fn from_str(text: &str) -> Result<Bound, String> {
        let refused = || format!("`{text}` is not a minor (4.9) or a patch release (4.9.5)");
        match text.matches('.').count() {
            1 => Ok(Bound {
                minor: text.parse()?,
                patch: None,
            }),
            2 => {
                let (minor, patch) = text.rsplit_once('.').ok_or_else(refused)?;
                Ok(Bound {
                    minor: minor.parse()?,
                    patch: Some(patch.parse().map_err(|_| refused())?),
                })
            }
            _ => Err(refused()),
        }
    }
}

impl TryFrom<String> for Bound {
    type Error = String;

    fn try_from(text: String) -> Result<Bound, String> {
        text.parse()
    }
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.patch {
            Some(patch) => write!(f, "{}.{patch}", self.minor),
            None => write!(f, "{}", self.minor),
        }
    }
}

/// Reads a minor (`4.16`) of the table.
fn minor<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Minor, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse().map_err(serde::de::Error::custom)
}

/// Reads an optional minor of the table.
fn some_minor<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Minor>, D::Error> {
    minor(deserializer).map(Some)
}

/// Reads a versioned capability set's name (`v4.11`) as its minor.
fn versioned_set<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Minor, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.strip_prefix('v')
        .and_then(|minor| minor.parse().ok())
        .ok_or_else(|| serde::de::Error::custom(format!("capability set `{text}` is not v<minor>")))
}

pub(super) fn holds(at: Point, since: &Option<Bound>, until: &Option<Bound>) -> bool {
    let since_ok = since.is_none_or(|b| (at.minor, at.patch) >= (b.minor, b.patch.unwrap_or(0)));
    let until_ok = until.is_none_or(|b| match b.patch {
        Some(patch) => (at.minor, at.patch) <= (b.minor, patch),
        None => at.minor <= b.minor,
    });
    since_ok && until_ok
}

/// Every row's `[since, until]` bounds, for z-stream points and checks.
pub(super) fn all_bounds(table: &Table) -> Vec<[&Option<Bound>; 2]> {
    let mut out: Vec<[&Option<Bound>; 2]> = Vec::new();
    for s in &table.stage {
        out.push([&s.since, &s.until]);
        for w in s.command.iter().chain(&s.optional_flags) {
            if let Word::Ranged { since, until, .. } = w {
                out.push([since, until]);
            }
        }
    }
    out.extend(table.image.iter().map(|r| [&r.since, &r.until]));
    out.extend(table.switch.iter().map(|r| [&r.since, &r.until]));
    out.extend(table.distribution.iter().map(|r| [&r.since, &r.until]));
    out.extend(
        table
            .ignition_spec
            .iter()
            .chain(&table.node_image)
            .chain(&table.os_image_stream)
            .chain(&table.os_image_stream_choice)
            .chain(&table.feature_set)
            .map(|r| [&r.since, &r.until]),
    );
    out.extend(table.file.iter().map(|r| [&r.since, &r.until]));
    out.extend(table.unit.iter().map(|r| [&r.since, &r.until]));
    out.extend(table.opt_in.iter().map(|r| [&r.since, &r.until]));
    out.extend(table.capability.iter().map(|r| [&r.since, &r.until]));
    out.extend(table.capability_set.iter().map(|r| [&r.since, &r.until]));
    out
}

/// Every patch release at which some row starts or after which one stops: (minor, patch),
/// read once for all minors.
pub(super) fn patch_points(table: &Table) -> Vec<(Minor, u32)> {
    let mut points = Vec::new();
    for [since, until] in all_bounds(table) {
        if let Some(Bound {
            minor,
            patch: Some(patch),
        }) = *since
        {
            points.push((minor, patch));
        }
        if let Some(Bound {
            minor,
            patch: Some(patch),
        }) = *until
        {
            points.push((minor, patch + 1));
        }
    }
    points
}

/// The points of `minor` that need a profile: its first release, and each of the
/// [`patch_points`] of that minor.
pub(super) fn points_of(patch_points: &[(Minor, u32)], minor: Minor) -> Vec<Point> {
    let mut patches = vec![0];
    patches.extend(
        patch_points
            .iter()
            .filter(|(m, _)| *m == minor)
            .map(|(_, patch)| *patch),
    );
    patches.sort_unstable();
    patches.dedup();
    patches
        .into_iter()
        .map(|patch| Point { minor, patch })
        .collect()
}

/// The words that hold for `at`.
pub(super) fn words(words: &[Word], at: Point) -> Vec<String> {
    words
        .iter()
        .filter_map(|w| match w {
            Word::Always(word) => Some(word.clone()),
            Word::Ranged { word, since, until } => holds(at, since, until).then(|| word.clone()),
        })
        .collect()
}

/// The values of the rows that hold for `at` and `distribution`, in table order.
pub(super) fn values_in(
    rows: &[Ranged<String>],
    at: Point,
    distribution: Distribution,
) -> Vec<String> {
    rows.iter()
        .filter(|r| holds(at, &r.since, &r.until))
        .filter(|r| r.distribution.is_none_or(|d| d == distribution))
        .map(|r| r.value.clone())
        .collect()
}

/// Reads and checks the embedded table (see [`check`]).
pub(super) fn load_embedded() -> Result<Table, String> {
    check(serde_json::from_str(EMBEDDED).map_err(|e| e.to_string())?)
}

/// Reads and checks a table written as TOML (see [`check`]).
#[cfg(test)]
pub(super) fn load(text: &str) -> Result<Table, String> {
    check(toml::from_str(text).map_err(|e| e.to_string())?)
}

/// Checks a table: every bound names a supported release, every opt-in and overlay a row names
/// exists, and no two file rows for one path (or unit rows for one name) can hold for the same
/// node.
fn check(table: Table) -> Result<Table, String> {
    let known: Vec<Minor> = table.release.iter().map(|r| r.minor).collect();
    // A run that names no release takes the newest one outside development.
    if table.release.iter().all(|r| r.development) {
        return Err("no [[release]] row outside development: no release to default to".into());
    }
    for bound in all_bounds(&table).into_iter().flatten().flatten() {
        if !known.contains(&bound.minor) {
            return Err(format!(
                "`{bound}` is not a supported minor or a patch release of one"
            ));
        }
    }
    let opt_in_names: Vec<&str> = table.opt_in.iter().map(|g| g.name.as_str()).collect();
    let overlay_names: Vec<&str> = table.overlay.iter().map(|o| o.name.as_str()).collect();
    let named_opt_ins = table
        .file
        .iter()
        .map(|r| (&r.path, &r.opt_in))
        .chain(table.unit.iter().map(|r| (&r.name, &r.opt_in)))
        .chain(table.stage.iter().map(|r| (&r.name, &r.opt_in)));
    for (row, opt_in) in named_opt_ins {
        if let Some(opt_in) = opt_in.as_deref().filter(|g| !opt_in_names.contains(g)) {
            return Err(format!("{row}: no opt-in `{opt_in}`"));
        }
    }
    let named_overlays = table
        .file
        .iter()
        .map(|r| (&r.path, &r.overlay))
        .chain(table.unit.iter().map(|r| (&r.name, &r.overlay)));
    for (row, overlay) in named_overlays {
        if let Some(overlay) = overlay.as_deref().filter(|o| !overlay_names.contains(o)) {
            return Err(format!("{row}: no overlay `{overlay}`"));
        }
    }
    // Every release is OpenShift first, and no distribution is there twice.
    for minor in &known {
        let at = Point {
            minor: *minor,
            patch: 0,
        };
        let here: Vec<Distribution> = table
            .distribution
            .iter()
            .filter(|r| holds(at, &r.since, &r.until))
            .map(|r| r.name)
            .collect();
        if here.first() != Some(&Distribution::Ocp) {
            return Err(format!(
                "{minor}: the first [[distribution]] row must be ocp"
            ));
        }
        if let Some(twice) = here
            .iter()
            .enumerate()
            .find_map(|(i, d)| here[..i].contains(d).then_some(d))
        {
            return Err(format!("{minor}: two [[distribution]] rows for {twice}"));
        }
    }
    Ok(table)
}
