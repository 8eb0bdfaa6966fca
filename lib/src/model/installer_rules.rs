//! The install-config rules that change between releases (`installer_rules.toml`: switches,
//! the capabilities and the baseline capability sets each release knows), and the checks that
//! read them: the capabilities, and the rules a release's installer applies to machine pools,
//! networks, the proxy and the SSH key beyond the checks of single values in `fields.rs`.

use super::network::{overlaps, Networks};
use crate::config::LoadedConfig;
use crate::error::Result;
use crate::release::{Minor, Profile};
use ipnet::IpNet;
use serde::Deserialize;
use std::sync::LazyLock;

const TABLE: &str = include_str!("installer_rules.toml");

#[derive(Deserialize, Default)]
struct Table {
    rule: Vec<Row>,
    capability: Vec<Row>,
    capability_set: Vec<Row>,
}

/// A row that holds from `since` on, up to `until` (inclusive) when given.
#[derive(Deserialize)]
struct Row {
    name: String,
    since: String,
    #[serde(default)]
    until: Option<String>,
    /// Capabilities: the first baseline set holding it.
    #[serde(default)]
    in_sets_from: Option<String>,
}

/// A release bound of the table (checked by the tests below: a bad one never holds).
fn minor(text: &str) -> Option<Minor> {
    text.parse().ok()
}

impl Row {
    fn holds(&self, release: Minor) -> bool {
        minor(&self.since).is_some_and(|since| since <= release)
            && self
                .until
                .as_deref()
                .is_none_or(|u| minor(u).is_some_and(|until| release <= until))
    }
}

// The table is ours and checked by the tests below; an unreadable one has no rules.
static RULES: LazyLock<Table> = LazyLock::new(|| toml::from_str(TABLE).unwrap_or_default());

/// Whether the installer of `profile`'s release applies the rule `name`.
pub(crate) fn applies(profile: &Profile, name: &str) -> bool {
    let row = RULES.rule.iter().find(|r| r.name == name);
    debug_assert!(row.is_some(), "no rule {name} in installer_rules.toml");
    row.is_some_and(|r| r.holds(profile.minor))
}

/// The capabilities the release knows, in the table's order.
fn capabilities(release: Minor) -> Vec<&'static str> {
    RULES
        .capability
        .iter()
        .filter(|c| c.holds(release))
        .map(|c| c.name.as_str())
        .collect()
}

/// The baseline sets the release knows (`None`, `v4.N`..., `vCurrent`); empty before 4.11.
fn capability_sets(release: Minor) -> Vec<&'static str> {
    let versioned: Vec<&str> = RULES
        .capability_set
        .iter()
        .filter(|s| s.holds(release))
        .map(|s| s.name.as_str())
        .collect();
    if versioned.is_empty() {
        return Vec::new();
    }
    let mut sets = vec!["None"];
    sets.extend(versioned);
    sets.push("vCurrent");
    sets
}

/// The capabilities a baseline set turns on in the release.
fn set_members(release: Minor, set: &str) -> Vec<&'static str> {
    let known = RULES.capability.iter().filter(|c| c.holds(release));
    match set {
        "None" => Vec::new(),
        "vCurrent" => known.map(|c| c.name.as_str()).collect(),
        versioned => {
            let set_minor = minor(versioned.trim_start_matches('v'));
            known
                .filter(|c| {
                    c.in_sets_from
                        .as_deref()
                        .and_then(minor)
                        .is_some_and(|from| Some(from) <= set_minor)
                })
                .map(|c| c.name.as_str())
                .collect()
        }
    }
}

/// `capabilities`: a baseline set and additional capabilities the release knows, and the
/// dependencies its installer checks.
pub(crate) fn check_capabilities(loaded: &LoadedConfig, profile: &Profile) -> Result<()> {
    let Some(caps) = &loaded.config.capabilities else {
        return Ok(());
    };
    let release = profile.minor;
    let sets = capability_sets(release);
    if sets.is_empty() {
        // 4.9 and 4.10 have no capabilities; their installer ignores the key.
        return Ok(());
    }
    let set = caps.baseline_capability_set.as_deref().unwrap_or_default();
    if !sets.contains(&set) {
        let field = "capabilities.baselineCapabilitySet";
        let what = if set.is_empty() {
            "is required when capabilities are given".to_string()
        } else {
            format!("`{set}` is not a capability set of OpenShift {release}")
        };
        return Err(loaded.field_error(field, format!("{what}; write one of: {}", sets.join(", "))));
    }
    let known = capabilities(release);
    for (i, name) in caps.additional_enabled_capabilities.iter().enumerate() {
        if !known.contains(&name.as_str()) {
            let same_letters = known.iter().find(|k| k.eq_ignore_ascii_case(name));
            let hint = match same_letters {
                Some(k) => format!("write `{k}` (capabilities are case-sensitive)"),
                None => format!("write one of: {}", known.join(", ")),
            };
            return Err(loaded.field_error(
                &format!("capabilities.additionalEnabledCapabilities.{i}"),
                format!("`{name}` is not a capability of OpenShift {release}; {hint}"),
            ));
        }
    }
    let additional: Vec<&str> = caps
        .additional_enabled_capabilities
        .iter()
        .map(String::as_str)
        .collect();
    let mut enabled = set_members(release, set);
    enabled.extend(&additional);
    let needs_olm = applies(profile, "marketplace_needs_olm")
        || (set == "None" && applies(profile, "marketplace_needs_olm_with_none"));
    if needs_olm
        && enabled.contains(&"marketplace")
        && !enabled.contains(&"OperatorLifecycleManager")
    {
        let through = if additional.contains(&"marketplace") {
            String::new()
        } else {
            format!(" (through the {set} set)")
        };
        return Err(loaded.field_error(
            "capabilities.additionalEnabledCapabilities",
            format!(
                "enables marketplace{through} without OperatorLifecycleManager, which the marketplace needs: add OperatorLifecycleManager to the list"
            ),
        ));
    }
    if applies(profile, "ingress_capability_required") && !enabled.contains(&"Ingress") {
        return Err(loaded.field_error(
            "capabilities",
            format!(
                "leaves out the Ingress capability, which every cluster needs: add Ingress to additionalEnabledCapabilities (or use baselineCapabilitySet vCurrent){}",
                if set == "None" {
                    "; a cluster on platform none also keeps CloudCredential and CloudControllerManager"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(())
}

/// Compute pool names: `worker` only on platform none (`edge` needs a cloud's edge zones), and
/// each once; a pool without a name is refused as the installer does not name it.
pub(crate) fn check_compute_names(loaded: &LoadedConfig) -> Result<()> {
    let mut seen = Vec::new();
    for (i, pool) in loaded.config.compute.iter().enumerate() {
        let field = format!("compute.{i}.name");
        let name = pool.name.as_deref().unwrap_or_default();
        if name != "worker" {
            let what = match name {
                "" => "is required".to_string(),
                "edge" => "`edge` pools need a cloud's edge zones; not on platform none".to_string(),
                other => format!("`{other}` is not a compute pool the installer makes (an `infra` pool is made after the install, with a MachineConfigPool)"),
            };
            return Err(loaded.field_error(&field, format!("{what}: write `name: worker`")));
        }
        if seen.contains(&name) {
            return Err(loaded.field_error(
                &field,
                format!("a second `{name}` pool: put all its machines in one pool (add up the replicas)"),
            ));
        }
        seen.push(name);
    }
    Ok(())
}

/// Two control-plane machines make a two-node cluster, which the installer builds only with
/// fencing credentials; bootgen does not make those clusters.
pub(crate) fn check_control_plane_count(
    loaded: &LoadedConfig,
    profile: &Profile,
    replicas: u32,
) -> Result<()> {
    if replicas == 2 && applies(profile, "two_nodes_need_fencing") {
        return Err(loaded.field_error(
            "controlPlane.fencing",
            format!(
                "controlPlane.replicas 2 makes a two-node cluster, which OpenShift {} builds only with the fencing credentials of both nodes (controlPlane.fencing), and bootgen does not make two-node clusters: use 3 control-plane machines (or 1 for a single node)",
                profile.minor
            ),
        ));
    }
    Ok(())
}

/// A pool's `platform` on platform none: nothing, or `none: {}`.
pub(crate) fn check_pool_platform(
    loaded: &LoadedConfig,
    field: &str,
    platform: Option<&serde_json::Value>,
) -> Result<()> {
    let Some(serde_json::Value::Object(platforms)) = platform else {
        return Ok(());
    };
    for (name, settings) in platforms {
        let empty = settings.is_null() || settings.as_object().is_some_and(|m| m.is_empty());
        if name != "none" {
            return Err(loaded.field_error(
                &format!("{field}.platform.{name}"),
                format!("unknown key: a pool on platform none takes no settings of platform `{name}`; remove it"),
            ));
        }
        if !empty {
            let key = settings
                .as_object()
                .and_then(|m| m.keys().next())
                .map_or("", |k| k.as_str());
            return Err(loaded.field_error(
                &format!("{field}.platform.none.{key}"),
                "unknown key: platform none has no settings; write `none: {}`",
            ));
        }
    }
    Ok(())
}

/// With `fips: true` the nodes' sshd takes only RSA and ECDSA keys.
pub(crate) fn check_fips_ssh_key(loaded: &LoadedConfig, fips: bool, key: &str) -> Result<()> {
    if !fips {
        return Ok(());
    }
    for line in key.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let kind = line.split_whitespace().next().unwrap_or_default();
        if kind != "ssh-rsa" && !kind.starts_with("ecdsa-sha2-nistp") {
            return Err(loaded.field_error(
                "sshKey",
                format!(
                    "is a `{kind}` key, which a FIPS node's sshd refuses (nobody could log in): with `fips: true` use an RSA or ECDSA key (ssh-keygen -t ecdsa -b 384)"
                ),
            ));
        }
    }
    Ok(())
}

/// The proxy: a URL for at least one of HTTP and HTTPS, an `http://` HTTP proxy, not at an
/// address of the cluster's own pod or service networks, and a noProxy list of domains,
/// addresses and CIDRs without spaces or wildcards (`*` alone means all).
pub(crate) fn check_proxy(loaded: &LoadedConfig, networks: &Networks) -> Result<()> {
    let Some(proxy) = &loaded.config.proxy else {
        return Ok(());
    };
    let http = proxy.http_proxy.as_deref().unwrap_or_default();
    let https = proxy.https_proxy.as_deref().unwrap_or_default();
    if http.is_empty() && https.is_empty() {
        return Err(loaded.field_error(
            "proxy",
            "names no proxy: write httpProxy or httpsProxy (or remove the proxy section)",
        ));
    }
    if !http.is_empty() && !http.starts_with("http://") {
        return Err(loaded.field_error(
            "proxy.httpProxy",
            format!(
                "`{}` must start with http:// (the proxy for plain HTTP is reached over HTTP)",
                super::fields::redact_userinfo(http)
            ),
        ));
    }
    for (field, url) in [("proxy.httpProxy", http), ("proxy.httpsProxy", https)] {
        let host = url.split_once("://").map_or("", |(_, rest)| rest);
        let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
        let host = host.split('/').next().unwrap_or_default();
        let host = match host.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or_default(),
            None => host.rsplit_once(':').map_or(host, |(h, _)| h),
        };
        let Ok(address) = host.parse::<std::net::IpAddr>() else {
            continue;
        };
        let cluster = networks.cluster.iter().map(|c| (&c.cidr, "pod network"));
        let service = networks.service.iter().map(|s| (s, "service network"));
        if let Some((net, kind)) = cluster.chain(service).find(|(n, _)| n.contains(&address)) {
            return Err(loaded.field_error(
                field,
                format!(
                    "points at {address}, inside the cluster's {kind} {net}: the proxy must be reachable outside the cluster's own networks"
                ),
            ));
        }
    }
    let no_proxy = proxy.no_proxy.as_deref().unwrap_or_default();
    if no_proxy.is_empty() || no_proxy == "*" {
        return Ok(());
    }
    if no_proxy.contains(' ') {
        return Err(loaded.field_error(
            "proxy.noProxy",
            format!(
                "`{no_proxy}` has spaces: separate the entries with commas only (`{}`)",
                no_proxy
                    .split(',')
                    .map(str::trim)
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        ));
    }
    for entry in no_proxy.split(',') {
        if entry.contains('*') {
            return Err(loaded.field_error(
                "proxy.noProxy",
                format!(
                    "`{entry}` has a wildcard: write the domain with a leading dot instead (`.{}` covers every name under it), or `*` alone for no proxy at all",
                    entry.trim_start_matches('*').trim_start_matches('.')
                ),
            ));
        }
    }
    Ok(())
}

/// OVN-Kubernetes' internal subnets (join and transit), which no cluster network may overlap.
const OVN_INTERNAL: &[&str] = &["100.64.0.0/16", "100.88.0.0/16", "fd98::/64", "fd97::/64"];

/// The rules between networks: no overlaps (machine and cluster, machine and service, the
/// cluster networks among themselves, OVN-Kubernetes' internal subnets), one hostPrefix for the
/// IPv4 cluster networks and 64 for IPv6 ones, both families in every list of a dual-stack
/// cluster, and no network plugin the release has dropped.
pub(crate) fn check_networks(
    loaded: &LoadedConfig,
    profile: &Profile,
    networks: &Networks,
) -> Result<()> {
    let plugin = &networks.network_type;
    if applies(profile, "no_openshift_sdn")
        && (plugin.eq_ignore_ascii_case("OpenShiftSDN") || plugin.eq_ignore_ascii_case("Kuryr"))
    {
        return Err(loaded.field_error(
            "networking.networkType",
            format!(
                "`{plugin}` is not a network plugin of OpenShift {} (OpenShiftSDN is gone, Kuryr before it): write `networkType: OVNKubernetes`",
                profile.minor
            ),
        ));
    }
    let written = loaded.config.networking.clone().unwrap_or_default();
    for (i, (entry, cluster)) in written
        .cluster_network
        .iter()
        .zip(&networks.cluster)
        .enumerate()
    {
        let field = format!("networking.clusterNetwork.{i}.hostPrefix");
        if entry.host_prefix.is_none() {
            return Err(loaded.field_error(
                &format!("networking.clusterNetwork.{i}"),
                format!(
                    "has no hostPrefix: write the prefix of each node's slice of {}, e.g. `hostPrefix: {}`",
                    cluster.cidr,
                    if cluster.cidr.addr().is_ipv6() { 64 } else { 23 }
                ),
            ));
        }
        if cluster.cidr.addr().is_ipv6() && cluster.host_prefix != 64 {
            return Err(loaded.field_error(
                &field,
                format!("{} for an IPv6 network: it must be 64", cluster.host_prefix),
            ));
        }
        if let Some(first) = networks.cluster[..i].iter().find(|c| {
            c.cidr.addr().is_ipv4()
                && cluster.cidr.addr().is_ipv4()
                && c.host_prefix != cluster.host_prefix
        }) {
            if applies(profile, "one_ipv4_host_prefix") {
                return Err(loaded.field_error(
                    &field,
                    format!(
                        "{} differs from the hostPrefix {} of an earlier IPv4 cluster network: every IPv4 cluster network takes the same",
                        cluster.host_prefix, first.host_prefix
                    ),
                ));
            }
        }
        for (j, other) in networks.cluster[..i].iter().enumerate() {
            if overlaps(&cluster.cidr, &other.cidr) {
                return Err(loaded.field_error(
                    &format!("networking.clusterNetwork.{i}.cidr"),
                    format!(
                        "{} overlaps clusterNetwork[{j}] {}: give each its own range",
                        cluster.cidr, other.cidr
                    ),
                ));
            }
        }
        for machine in &networks.machine {
            if overlaps(&cluster.cidr, machine) {
                return Err(loaded.field_error(
                    &format!("networking.clusterNetwork.{i}.cidr"),
                    format!("{} overlaps the machine network {machine}: pods and machines need separate ranges", cluster.cidr),
                ));
            }
        }
    }
    for (i, machine) in networks.machine.iter().enumerate() {
        if let Some((j, other)) = networks.machine[..i]
            .iter()
            .enumerate()
            .find(|(_, o)| overlaps(machine, o))
        {
            return Err(loaded.field_error(
                &format!("networking.machineNetwork.{i}.cidr"),
                format!("{machine} overlaps machineNetwork[{j}] {other}: merge them into one entry, or give each its own range"),
            ));
        }
    }
    for (i, service) in networks.service.iter().enumerate() {
        for machine in &networks.machine {
            if overlaps(service, machine) {
                return Err(loaded.field_error(
                    &format!("networking.serviceNetwork.{i}"),
                    format!("{service} overlaps the machine network {machine}: services and machines need separate ranges"),
                ));
            }
        }
    }
    if plugin.eq_ignore_ascii_case("OVNKubernetes") && applies(profile, "ovn_internal_subnets") {
        let internal: Vec<IpNet> = OVN_INTERNAL.iter().filter_map(|n| n.parse().ok()).collect();
        let lists = [
            (
                "networking.machineNetwork",
                "{i}.cidr",
                networks.machine.clone(),
            ),
            ("networking.serviceNetwork", "{i}", networks.service.clone()),
            (
                "networking.clusterNetwork",
                "{i}.cidr",
                networks.cluster.iter().map(|c| c.cidr).collect(),
            ),
        ];
        for (list, tail, nets) in lists {
            for (i, net) in nets.iter().enumerate() {
                if let Some(hit) = internal.iter().find(|o| overlaps(net, o)) {
                    return Err(loaded.field_error(
                        &format!("{list}.{}", tail.replace("{i}", &i.to_string())),
                        format!("{net} overlaps {hit}, which OVN-Kubernetes uses inside the cluster: choose another range"),
                    ));
                }
            }
        }
    }
    // Before 4.21 a dual-stack cluster on platform none lists IPv4 first everywhere.
    if applies(profile, "ipv4_first_in_dual_stack") {
        let cluster: Vec<IpNet> = networks.cluster.iter().map(|c| c.cidr).collect();
        for (field, nets) in [
            ("networking.clusterNetwork", &cluster),
            ("networking.machineNetwork", &networks.machine),
            ("networking.serviceNetwork", &networks.service),
        ] {
            let has_v4 = nets.iter().any(|n| n.addr().is_ipv4());
            if has_v4 && nets.first().is_some_and(|n| n.addr().is_ipv6()) {
                return Err(loaded.field_error(
                    field,
                    format!(
                        "lists an IPv6 network first: OpenShift {} makes IPv4-primary dual-stack clusters only; put the IPv4 network first",
                        profile.minor
                    ),
                ));
            }
        }
    }
    // Two service networks make a dual-stack cluster: every list then needs both families.
    if networks.service.len() == 2 {
        let both = |nets: &[IpNet]| {
            nets.iter().any(|n| n.addr().is_ipv4()) && nets.iter().any(|n| n.addr().is_ipv6())
        };
        let cluster: Vec<IpNet> = networks.cluster.iter().map(|c| c.cidr).collect();
        for (field, nets) in [
            ("networking.clusterNetwork", &cluster),
            ("networking.machineNetwork", &networks.machine),
        ] {
            if !both(nets) {
                return Err(loaded.field_error(
                    field,
                    "needs an IPv4 and an IPv6 network: the two service networks make the cluster dual-stack (or keep one service network for a single-stack cluster)",
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_parses_and_names_a_rule_used() {
        let table: Table = toml::from_str(TABLE).unwrap();
        assert!(!table.rule.is_empty() && !table.capability.is_empty());
        for row in table
            .rule
            .iter()
            .chain(&table.capability)
            .chain(&table.capability_set)
        {
            let since = minor(&row.since).unwrap();
            if let Some(until) = &row.until {
                assert!(since <= minor(until).unwrap(), "{}", row.name);
            }
            if let Some(from) = &row.in_sets_from {
                assert!(minor(from).is_some(), "{}", row.name);
            }
        }
        for set in &table.capability_set {
            assert!(
                minor(set.name.trim_start_matches('v')).is_some(),
                "{}",
                set.name
            );
        }
        let source = [include_str!("installer_rules.rs"), include_str!("mod.rs")].concat();
        for row in &RULES.rule {
            assert!(
                source.contains(&format!("\"{}\"", row.name)),
                "rule {} is read nowhere",
                row.name
            );
        }
    }

    #[test]
    fn capability_sets_grow_with_the_release() {
        let m = |t: &str| minor(t).unwrap();
        assert!(capability_sets(m("4.10")).is_empty());
        assert_eq!(
            capability_sets(m("4.12")),
            ["None", "v4.11", "v4.12", "vCurrent"]
        );
        assert!(capability_sets(m("5.0")).contains(&"v4.18"));
        // MachineAPI joined the older sets when it became a capability.
        assert!(set_members(m("4.16"), "v4.11").contains(&"MachineAPI"));
        assert!(!set_members(m("4.12"), "v4.11").contains(&"MachineAPI"));
        assert!(!set_members(m("4.16"), "v4.11").contains(&"OperatorLifecycleManager"));
        assert!(set_members(m("5.0"), "vCurrent").contains(&"ClusterAPI"));
        assert!(!set_members(m("5.0"), "v4.18").contains(&"ClusterAPI"));
    }
}
