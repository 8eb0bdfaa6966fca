//! Building profiles from the loaded table: for a point (a minor's first release or a z-stream
//! point), the rows that hold for it gathered into a [`Profile`].

use super::{Capability, CapabilitySet, DistributionFacts, ImageName, OptIn, Profile, Stage};
use crate::release::dimensions::{Distribution, NodeFile, NodeUnit, Scope};
use crate::release::table::{self, holds, values_in, words, Table};

/// The profiles of the table's points: the first releases' (`first`) or the z-stream points'.
pub(super) fn build(table: &Table, first: bool) -> Vec<Profile> {
    build_points(table, |at| (at.patch == 0) == first)
}

/// Every point of the table that has a profile: each minor's first release, then the patch
/// releases of that minor from which a fact changed.
pub(super) fn points(table: &Table) -> Vec<table::Point> {
    let patch_points = table::patch_points(table);
    table
        .release
        .iter()
        .flat_map(|row| table::points_of(&patch_points, row.minor))
        .collect()
}

/// The profiles of the points `wanted` picks, in [`points`]' order.
pub(super) fn build_points(table: &Table, wanted: impl Fn(table::Point) -> bool) -> Vec<Profile> {
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
