//! What differs between two releases' bootstraps: stages, their order, each command's words,
//! the payload images looked up, feature switches and the Ignition spec.

use super::dimensions::Distribution;
use super::profile::{feature_set_label, DistributionFacts, Profile};
use std::fmt::{self, Write as _};

/// The differences going from `from` to `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseDiff {
    /// The older (or first named) release.
    pub from: String,
    /// The other one.
    pub to: String,
    /// One line per difference, in a stable order.
    pub lines: Vec<String>,
}

/// The entries of `new` that `old` lacks, then those of `old` that `new` lacks, each in order.
fn added_removed<'a, T: PartialEq>(old: &'a [T], new: &'a [T]) -> (Vec<&'a T>, Vec<&'a T>) {
    (
        new.iter().filter(|n| !old.contains(n)).collect(),
        old.iter().filter(|o| !new.contains(o)).collect(),
    )
}

/// Compares two profiles.
pub fn compare(from: &Profile, to: &Profile) -> ReleaseDiff {
    let mut lines = Vec::new();
    if from.ignition_spec != to.ignition_spec {
        lines.push(format!(
            "Ignition spec {} -> {}",
            from.ignition_spec, to.ignition_spec
        ));
    }
    let names = |p: &Profile| p.stages.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    let (old_stages, new_stages) = (names(from), names(to));
    // A stage of one flow only says so.
    let only = |p: &Profile, name: &str| {
        let stage = p.stage(name);
        let flow = match stage.and_then(|s| s.flow) {
            Some(super::Flow::InPlace) => " (single node only)",
            Some(super::Flow::Cluster) => " (bootstrap machine only)",
            None => "",
        };
        let opt_in = stage
            .and_then(|s| s.opt_in.as_ref())
            .and_then(|name| p.opt_ins.iter().find(|g| &g.name == name));
        match opt_in {
            Some(opt_in) => format!(
                "{flow} (only with {}: {}{})",
                opt_in.name,
                opt_in.chosen_with(),
                match opt_in.flow {
                    Some(super::Flow::Cluster) => ", bootstrap machine only",
                    Some(super::Flow::InPlace) => ", single node only",
                    None => "",
                }
            ),
            None => flow.to_string(),
        }
    };
    let (added, removed) = added_removed(&old_stages, &new_stages);
    for name in added {
        lines.push(format!("stage {name}: added{}", only(to, name)));
    }
    for name in removed {
        lines.push(format!("stage {name}: removed{}", only(from, name)));
    }
    let common = |list: &[String], other: &[String]| {
        list.iter()
            .filter(|n| other.contains(n))
            .cloned()
            .collect::<Vec<_>>()
    };
    if common(&old_stages, &new_stages) != common(&new_stages, &old_stages) {
        lines.push(format!("stage order: {}", new_stages.join(", ")));
    }
    for stage in &to.stages {
        let Some(old) = from.stage(&stage.name) else {
            continue;
        };
        if old.marker != stage.marker {
            lines.push(format!(
                "stage {}: marker {} -> {}",
                stage.name, old.marker, stage.marker
            ));
        }
        for word in stage.command.iter().filter(|w| !old.command.contains(w)) {
            lines.push(format!("stage {}: + {word}", stage.name));
        }
        for word in old.command.iter().filter(|w| !stage.command.contains(w)) {
            lines.push(format!("stage {}: - {word}", stage.name));
        }
        let kept: Vec<&String> = stage
            .command
            .iter()
            .filter(|w| old.command.contains(w))
            .collect();
        let kept_before: Vec<&String> = old
            .command
            .iter()
            .filter(|w| stage.command.contains(w))
            .collect();
        if kept != kept_before {
            lines.push(format!("stage {}: arguments reordered", stage.name));
        }
    }
    let image_names = |p: &Profile| p.images.iter().map(|i| i.name.clone()).collect::<Vec<_>>();
    let (old_images, new_images) = (image_names(from), image_names(to));
    let (added, removed) = added_removed(&old_images, &new_images);
    for name in added {
        lines.push(format!("image {name}: looked up"));
    }
    for name in removed {
        lines.push(format!("image {name}: no longer looked up"));
    }
    // The switches of a bootstrap machine on the default platform and distribution.
    let (old, new) = (
        from.switches(Default::default()).by_name(),
        to.switches(Default::default()).by_name(),
    );
    for (switch, on) in &new {
        if old.get(switch) != Some(on) {
            lines.push(format!("{switch}: {}", if *on { "yes" } else { "no" }));
        }
    }
    for opt_in in &to.opt_ins {
        match from.opt_ins.iter().find(|g| g.name == opt_in.name) {
            None => lines.push(format!(
                "opt-in {}: added (chosen with {})",
                opt_in.name,
                opt_in.chosen_with()
            )),
            Some(old) if old != opt_in => lines.push(format!(
                "opt-in {}: now chosen with {}",
                opt_in.name,
                opt_in.chosen_with()
            )),
            Some(_) => {}
        }
    }
    for opt_in in from
        .opt_ins
        .iter()
        .filter(|g| !to.opt_ins.iter().any(|t| t.name == g.name))
    {
        lines.push(format!("opt-in {}: removed", opt_in.name));
    }
    node_lines(from, to, &mut lines);
    for distribution in Distribution::ALL {
        distribution_lines(
            *distribution,
            from.distribution(*distribution),
            to.distribution(*distribution),
            &mut lines,
        );
        if from.distribution(*distribution).is_some() && to.distribution(*distribution).is_some() {
            own_switch_lines(*distribution, from, to, &mut lines);
        }
    }
    // A z-stream profile is named by its first patch release, so two of one minor differ.
    let name = |p: &Profile| match p.from_patch {
        0 => p.minor.to_string(),
        patch => format!("{}.{patch}+", p.minor),
    };
    ReleaseDiff {
        from: name(from),
        to: name(to),
        lines,
    }
}

/// The files and units a node can get that differ: added, removed, or held under other terms
/// (mode, the install-config's condition, the platform, distribution, flow, switch or opt-in
/// they are limited to). Each path or unit name gets one line.
fn node_lines(from: &Profile, to: &Profile, lines: &mut Vec<String>) {
    use super::dimensions::Scope;
    use std::collections::BTreeMap;
    fn scope_terms(scope: &Scope, terms: &mut Vec<String>) {
        if let Some(distribution) = scope.distribution {
            terms.push(format!("{} only", distribution.label()));
        }
        if let Some(platform) = scope.platform {
            terms.push(format!("platform {platform} only"));
        }
        match scope.flow {
            Some(super::Flow::InPlace) => terms.push("single node only".into()),
            Some(super::Flow::Cluster) => terms.push("bootstrap machine only".into()),
            None => {}
        }
        if let Some(switch) = scope.switch {
            terms.push(format!("with {}", switch.name()));
        }
        if let Some(opt_in) = &scope.opt_in {
            terms.push(format!("with opt-in {opt_in}"));
        }
    }
    fn files(p: &Profile) -> BTreeMap<&str, Vec<String>> {
        let mut by_path: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for file in &p.files {
            let mut terms = vec![format!("mode {:04o}", file.mode)];
            if file.append {
                terms.push("appended".into());
            }
            if let Some(when) = file.when {
                let name = serde_json::to_value(when)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                terms.push(format!("only with {name}"));
            }
            scope_terms(&file.scope, &mut terms);
            by_path
                .entry(&file.path)
                .or_default()
                .push(terms.join(", "));
        }
        by_path
    }
    fn units(p: &Profile) -> BTreeMap<&str, Vec<String>> {
        let mut by_name: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for unit in &p.units {
            let mut terms = vec![if unit.enabled {
                "enabled"
            } else {
                "not enabled"
            }
            .to_string()];
            scope_terms(&unit.scope, &mut terms);
            by_name
                .entry(&unit.name)
                .or_default()
                .push(terms.join(", "));
        }
        by_name
    }
    for (kind, old, new) in [
        ("file", files(from), files(to)),
        ("unit", units(from), units(to)),
    ] {
        let names: std::collections::BTreeSet<&str> =
            old.keys().chain(new.keys()).copied().collect();
        for name in names {
            let describe = |rows: &Vec<String>| rows.join("; or ");
            match (old.get(name), new.get(name)) {
                (None, Some(rows)) => {
                    lines.push(format!("{kind} {name}: added ({})", describe(rows)))
                }
                (Some(rows), None) => {
                    lines.push(format!("{kind} {name}: removed (was {})", describe(rows)))
                }
                (Some(was), Some(now)) if was != now => lines.push(format!(
                    "{kind} {name}: {} -> {}",
                    describe(was),
                    describe(now)
                )),
                _ => {}
            }
        }
    }
}

impl fmt::Display for ReleaseDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        if self.lines.is_empty() {
            let _ = writeln!(out, "{} and {}: the same bootstrap", self.from, self.to);
        } else {
            let _ = writeln!(out, "from {} to {}:", self.from, self.to);
            for line in &self.lines {
                let _ = writeln!(out, "  {line}");
            }
        }
        f.write_str(&out)
    }
}

/// The switches a distribution other than OpenShift sets its own way (OKD's pivot, ...) that
/// change between the two releases, prefixed with its name; OpenShift's changes are listed
/// above, unprefixed.
fn own_switch_lines(
    distribution: Distribution,
    from: &Profile,
    to: &Profile,
    lines: &mut Vec<String>,
) {
    if distribution == Distribution::Ocp {
        return;
    }
    let of = |p: &Profile, distribution: Distribution| {
        p.switches(super::Dimensions {
            distribution,
            ..Default::default()
        })
        .by_name()
    };
    let (ocp_old, ocp_new) = (of(from, Distribution::Ocp), of(to, Distribution::Ocp));
    let (old, new) = (of(from, distribution), of(to, distribution));
    for (switch, on) in &new {
        let own = ocp_old.get(switch) != old.get(switch) || ocp_new.get(switch) != Some(on);
        if own && old.get(switch) != Some(on) {
            lines.push(format!(
                "{}: {switch}: {}",
                distribution.label(),
                if *on { "yes" } else { "no" }
            ));
        }
    }
}

/// What differs in one distribution: whether the release has it, its channel, node image,
/// default OS stream, and the feature sets and streams its installer accepts. OpenShift's lines
/// are unprefixed; another distribution's start with its name.
fn distribution_lines(
    distribution: Distribution,
    from: Option<&DistributionFacts>,
    to: Option<&DistributionFacts>,
    lines: &mut Vec<String>,
) {
    let prefix = match distribution {
        Distribution::Ocp => String::new(),
        other => format!("{}: ", other.label()),
    };
    let (from, to) = match (from, to) {
        (Some(from), Some(to)) => (from, to),
        (None, Some(_)) => return lines.push(format!("{prefix}made from here on")),
        (Some(_), None) => return lines.push(format!("{prefix}no longer made")),
        (None, None) => return,
    };
    let mut push = |line: String| lines.push(format!("{prefix}{line}"));
    if from.node_image != to.node_image {
        push(format!(
            "node image {} -> {}",
            from.node_image, to.node_image
        ));
    }
    let (added, removed) = added_removed(&from.feature_sets, &to.feature_sets);
    for set in added {
        push(format!("featureSet {}: accepted", feature_set_label(set)));
    }
    for set in removed {
        push(format!(
            "featureSet {}: no longer accepted",
            feature_set_label(set)
        ));
    }
    if from.os_image_stream != to.os_image_stream {
        let stream = |s: &str| {
            if s.is_empty() {
                "none".to_string()
            } else {
                s.to_string()
            }
        };
        push(format!(
            "node image OS stream by default: {} -> {}",
            stream(&from.os_image_stream),
            stream(&to.os_image_stream)
        ));
    }
    let (added, removed) = added_removed(&from.os_image_streams, &to.os_image_streams);
    for stream in added {
        push(format!("osImageStream {stream}: accepted"));
    }
    for stream in removed {
        push(format!("osImageStream {stream}: no longer accepted"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::{profile_for, Minor};

    fn diff(a: (u32, u32), b: (u32, u32)) -> ReleaseDiff {
        let (Some(a), Some(b)) = (
            profile_for(Minor::new(a.0, a.1)),
            profile_for(Minor::new(b.0, b.1)),
        ) else {
            panic!("unsupported");
        };
        compare(a, b)
    }

    #[test]
    fn names_what_changed_between_two_releases() {
        let text = diff((4, 18), (4, 19)).to_string();
        assert!(text.contains("stage auth-api-bootstrap: added"), "{text}");
        assert!(
            text.contains("image cluster-authentication-operator: looked up"),
            "{text}"
        );
        let text = diff((4, 13), (4, 14)).to_string();
        assert!(text.contains("stage order:"), "{text}");
        assert!(
            text.contains("stage mco-bootstrap: - --infra-image="),
            "{text}"
        );
        assert!(
            text.contains("stage kube-apiserver-bootstrap: + --payload-version="),
            "{text}"
        );
        // Opt-ins, and the stages behind them, say what chooses them.
        let text = diff((4, 22), (5, 0)).to_string();
        assert!(
            text.contains("stage konnectivity-certs: added (only with konnectivity: featureSet TechPreviewNoUpgrade or DevPreviewNoUpgrade, or CustomNoUpgrade with ClusterAPIMachineManagement or CRDCompatibilityRequirementOperator, bootstrap machine only)"),
            "{text}"
        );
        assert!(text.contains("opt-in konnectivity: added (chosen with featureSet TechPreviewNoUpgrade or DevPreviewNoUpgrade, or CustomNoUpgrade with ClusterAPIMachineManagement or CRDCompatibilityRequirementOperator)"), "{text}");
        assert!(
            text.contains("opt-in os_streams: now chosen with featureSet unset or TechPreviewNoUpgrade or DevPreviewNoUpgrade or OKD, or CustomNoUpgrade with OSStreams"),
            "{text}"
        );
        // The node image's streams.
        let text = diff((4, 21), (4, 22)).to_string();
        assert!(
            text.contains("node image OS stream by default: none -> rhel-9"),
            "{text}"
        );
        assert!(text.contains("osImageStream rhel-10: accepted"), "{text}");
        let text = diff((4, 22), (5, 0)).to_string();
        assert!(
            text.contains("node image OS stream by default: rhel-9 -> rhel-10"),
            "{text}"
        );
        assert!(!text.contains("osImageStream rhel"), "{text}");
        // The feature sets each release accepts.
        let text = diff((4, 15), (4, 16)).to_string();
        assert!(
            text.contains("featureSet DevPreviewNoUpgrade: accepted"),
            "{text}"
        );
        assert!(
            text.contains("featureSet LatencySensitive: no longer accepted"),
            "{text}"
        );
        // 4.20 differs from 4.19 in two install-config rules (4.19's installer made a single
        // node on platform none only in place; 4.20's holds dual-stack VIPs to the networks'
        // primary family), in ShortCertRotation's lifetimes, and in the dual-stack machine
        // configs (vSphere's only until then, every platform's since).
        let next = diff((4, 19), (4, 20));
        assert_eq!(
            next.lines,
            [
                "short_cert_rotation_two_hours: yes",
                "single_replica_needs_bootstrap_in_place: no",
                "vip_family_matches_networks: yes",
                "file /opt/openshift/openshift/99_openshift-machineconfig_99-dual-stack-master.yaml: mode 0644, only with dual-stack, platform vsphere only -> mode 0644, only with dual-stack",
                "file /opt/openshift/openshift/99_openshift-machineconfig_99-dual-stack-worker.yaml: mode 0644, only with dual-stack, platform vsphere only -> mode 0644, only with dual-stack",
            ],
            "{next}"
        );
        let text = diff((4, 13), (4, 14)).to_string();
        assert!(
            text.contains("file /opt/openshift/openshift/99_openshift-machineconfig_99-dual-stack-master.yaml: added (mode 0644, only with dual-stack, platform vsphere only)"),
            "{text}"
        );
        // The files and units of the node: a mode, a condition, a distribution.
        let text = diff((4, 17), (4, 18)).to_string();
        assert!(
            text.contains("file /etc/containers/registries.conf: mode 0600 -> mode 0644"),
            "{text}"
        );
        let text = diff((4, 13), (4, 14)).to_string();
        assert!(
            text.contains("file /opt/openshift/openshift/99_feature-gate.yaml: mode 0644, only with feature-set -> mode 0644"),
            "{text}"
        );
        let text = diff((4, 15), (4, 16)).to_string();
        assert!(
            text.contains(
                "unit systemd-journal-gatewayd.socket: enabled -> enabled, OpenShift only"
            ),
            "{text}"
        );
        // A release compared with itself.
        let same = diff((4, 20), (4, 20));
        assert!(same.lines.is_empty(), "{same}");
        assert!(same.to_string().contains("the same bootstrap"));
        // Two z-streams of one minor are told apart.
        let minor = crate::release::Minor::new(4, 9);
        let first = crate::release::profile_for(minor).unwrap();
        let later = crate::release::profile_for_patch(minor, 5).unwrap();
        let z = compare(first, later);
        assert!(z.to_string().starts_with("from 4.9 to 4.9.5+:"), "{z}");
    }
}
