//! The installer's rules between the networks of `networking`: overlaps, host prefixes,
//! dual-stack, and the network plugins a release has dropped.

use super::network::{overlaps, NetworkType, Networks};
use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::release::Profile;
use crate::release::{Switch, Switches};
use ipnet::IpNet;

/// OVN-Kubernetes' default internal subnets (join, transit, masquerade), which no network of
/// the cluster may overlap. The first is the IPv4 join subnet, which the install-config can move
/// (`networking.ovnKubernetesConfig.ipv4.internalJoinSubnet`).
const OVN_INTERNAL: &[&str] = &[
    "100.64.0.0/16",
    "100.88.0.0/16",
    "169.254.0.0/17",
    "fd98::/64",
    "fd97::/64",
    "fd69::/112",
];

/// A warning when `networkType` is not one of OpenShift's plugins but nearly spells one: a
/// third-party plugin is legitimate, so the installer takes any name, and a misspelled one
/// leaves the cluster without a network.
pub(crate) fn misspelled_plugin(loaded: &LoadedConfig, networks: &Networks) -> Option<Warning> {
    let plugin = &networks.network_type;
    if plugin.is_openshift() {
        return None;
    }
    let openshift = NetworkType::OPENSHIFT.iter().map(NetworkType::as_str);
    let meant = crate::config::nearest(plugin.as_str(), openshift)?;
    Some(loaded.warning(
        "networking.networkType",
        format!(
            "`{plugin}` is no network plugin of OpenShift (a third party's would be taken as it is): did you mean {meant}?"
        ),
    ))
}

/// When OpenShift dropped its older plugins, from the release table: `Kuryr is gone from 4.15,
/// OpenShiftSDN from 4.16`.
fn gone_from() -> String {
    let mut text = String::new();
    for (plugin, switch) in [
        (NetworkType::Kuryr, Switch::NoKuryr),
        (NetworkType::OpenShiftSdn, Switch::NoOpenshiftSdn),
    ] {
        let Some(minor) = crate::release::first_with(switch) else {
            continue;
        };
        if text.is_empty() {
            text = format!("{plugin} is gone from {minor}");
        } else {
            text.push_str(&format!(", {plugin} from {minor}"));
        }
    }
    text
}

/// The rules between networks: no overlaps (machine and cluster, machine and service, the
/// cluster networks among themselves, OVN-Kubernetes' internal subnets), one hostPrefix for the
/// IPv4 cluster networks and 64 for IPv6 ones, both families in every list of a dual-stack
/// cluster, and no network plugin the release has dropped.
pub(crate) fn check_networks(
    loaded: &LoadedConfig,
    profile: &Profile,
    switches: &Switches,
    networks: &Networks,
) -> Result<()> {
    let plugin = &networks.network_type;
    let dropped = (switches.has(Switch::NoOpenshiftSdn)
        && plugin.names(&NetworkType::OpenShiftSdn))
        || (switches.has(Switch::NoKuryr) && plugin.names(&NetworkType::Kuryr));
    if dropped {
        return Err(loaded.field_error(
            "networking.networkType",
            format!(
                "`{plugin}` is not a network plugin of OpenShift {} ({}): write `networkType: OVNKubernetes`",
                profile.minor,
                gone_from()
            ),
        ));
    }
    // Where OpenShiftSDN is still a plugin, it carries IPv4 only, and from 4.11 not on a
    // single node.
    if plugin.names(&NetworkType::OpenShiftSdn) {
        let ipv6 = networks
            .cluster
            .iter()
            .map(|c| &c.cidr)
            .chain(&networks.service)
            .chain(&networks.machine)
            .any(|n| n.addr().is_ipv6());
        let why = if ipv6 {
            Some("carries IPv4 only, and this cluster has IPv6 networks")
        } else if switches.has(Switch::SingleNodeOvn) {
            Some("does not run on a single node bootstrapping in place")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(loaded.field_error(
                "networking.networkType",
                format!("OpenShiftSDN {why}: write `networkType: OVNKubernetes`"),
            ));
        }
    }
    let cluster_cidrs: Vec<IpNet> = networks.cluster.iter().map(|c| c.cidr).collect();
    for (list, tail, nets) in [
        ("networking.machineNetwork", ".cidr", &networks.machine),
        ("networking.serviceNetwork", "", &networks.service),
        ("networking.clusterNetwork", ".cidr", &cluster_cidrs),
    ] {
        if let Some(i) = nets.iter().position(|n| n.addr().is_unspecified()) {
            return Err(loaded.field_error(
                &format!("{list}.{i}{tail}"),
                format!(
                    "{} is every address, not a network: write the range the {} really use",
                    nets[i],
                    if list.ends_with("machineNetwork") {
                        "machines"
                    } else {
                        "cluster's pods or services"
                    }
                ),
            ));
        }
    }
    // Kubernetes' limits on the service network's size.
    for (i, service) in networks.service.iter().enumerate() {
        let (smallest, suggestion) = if service.addr().is_ipv4() {
            (12, 16)
        } else {
            (108, 112)
        };
        if service.prefix_len() < smallest {
            return Err(loaded.field_error(
                &format!("networking.serviceNetwork.{i}"),
                format!(
                    "{service} is larger than a service network can be (/{smallest} at most): use a /{suggestion}"
                ),
            ));
        }
    }
    let written = loaded.config.networking.clone().unwrap_or_default();
    for (i, (entry, cluster)) in written
        .cluster_network
        .iter()
        .zip(&networks.cluster)
        .enumerate()
    {
        let field = format!("networking.clusterNetwork.{i}.hostPrefix");
        if entry.host_prefix.is_none() && networks.network_type.takes_host_prefix() {
            return Err(loaded.field_error(
                &format!("networking.clusterNetwork.{i}"),
                format!(
                    "has no hostPrefix: write the prefix of each node's slice of {}, e.g. `hostPrefix: {}`",
                    cluster.cidr,
                    if cluster.cidr.addr().is_ipv6() { 64 } else { 23 }
                ),
            ));
        }
        if cluster.cidr.addr().is_ipv6() && cluster.host_prefix != 64 && cluster.host_prefix != 0 {
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
            if switches.has(Switch::OneIpv4HostPrefix) {
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
    if plugin.names(&NetworkType::OvnKubernetes) && switches.has(Switch::OvnInternalSubnets) {
        // A join subnet moved elsewhere is checked as its own field (`ovn::join_subnet`).
        let moved = usize::from(networks.ovn_ipv4_join_subnet.is_some());
        let internal: Vec<IpNet> = OVN_INTERNAL[moved..]
            .iter()
            .filter_map(|n| n.parse().ok())
            .collect();
        let join = OVN_INTERNAL[0];
        let movable = switches.has(Switch::OvnKubernetesConfig);
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
                    let or_move = if movable && hit.to_string() == join {
                        " (or move OVN-Kubernetes' join subnet with networking.ovnKubernetesConfig.ipv4.internalJoinSubnet)"
                    } else {
                        ""
                    };
                    return Err(loaded.field_error(
                        &format!("{list}.{}", tail.replace("{i}", &i.to_string())),
                        format!("{net} overlaps {hit}, which OVN-Kubernetes uses inside the cluster: choose another range{or_move}"),
                    ));
                }
            }
        }
    }
    // Before 4.21 a dual-stack cluster on platform none lists IPv4 first everywhere.
    if switches.has(Switch::Ipv4FirstInDualStack) {
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
    fn refusal(version: &str, networking: &str) -> String {
        let text = format!(
            "{}networking:\n{networking}",
            super::super::MINIMAL_INSTALL_CONFIG
        );
        super::super::refusal(&text, version)
    }

    /// From 4.11 a single node defaults to OVNKubernetes and refuses OpenShiftSDN.
    #[test]
    fn a_single_node_gets_ovn_from_4_11() {
        let text = |network: &str| {
            format!(
                "apiVersion: v1\nmetadata:\n  name: sno\nbaseDomain: example.com\nplatform:\n  none: {{}}\npullSecret: '{{\"auths\":{{\"r\":{{\"auth\":\"eDp5\"}}}}}}'\ncontrolPlane:\n  replicas: 1\ncompute:\n- name: worker\n  replicas: 0\nbootstrapInPlace:\n  installationDisk: /dev/sda\n{network}"
            )
        };
        let plugin = |version: &str| {
            let loaded = crate::config::parse(&text(""), "install-config.yaml").unwrap();
            let options = super::super::ModelOptions {
                release_version: Some(version.into()),
                ..Default::default()
            };
            super::super::Model::new(&loaded, &options)
                .unwrap()
                .networks
                .network_type
        };
        assert_eq!(plugin("4.10.0"), super::NetworkType::OpenShiftSdn);
        assert_eq!(plugin("4.11.0"), super::NetworkType::OvnKubernetes);
        let sdn = "networking:\n  networkType: OpenShiftSDN\n";
        assert_eq!(super::super::refusal(&text(sdn), "4.10.0"), "");
        let refused = super::super::refusal(&text(sdn), "4.12.0");
        assert!(
            refused.contains("does not run on a single node"),
            "{refused}"
        );
    }

    #[test]
    fn network_rules_follow_the_release() {
        let sdn = refusal("4.16.0", "  networkType: OpenShiftSDN\n");
        assert!(
            sdn.contains("`networking.networkType` (line 9)")
                && sdn.contains("write `networkType: OVNKubernetes`"),
            "{sdn}"
        );
        assert_eq!(refusal("4.15.0", "  networkType: OpenShiftSDN\n"), "");
        let join = "  machineNetwork:\n  - cidr: 100.64.0.0/24\n";
        assert!(refusal("4.22.0", join).contains("`networking.machineNetwork[0].cidr` (line 10)"));
        assert_eq!(refusal("4.16.0", join), "");
        let no_prefix = refusal("4.22.0", "  clusterNetwork:\n  - cidr: 10.128.0.0/14\n");
        assert!(
            no_prefix.contains("`networking.clusterNetwork[0]` (line 10)")
                && no_prefix.contains("hostPrefix: 23"),
            "{no_prefix}"
        );
        // A third party's plugin divides the pod network itself: no hostPrefix needed (nor
        // IPv6's 64), in every release.
        for version in ["4.12.0", "4.16.0", "4.22.0"] {
            let calico = "  networkType: Calico\n  clusterNetwork:\n  - cidr: 10.128.0.0/14\n";
            assert_eq!(refusal(version, calico), "", "{version}");
        }
        let v6_first = "  clusterNetwork:\n  - cidr: fd01::/48\n    hostPrefix: 64\n  - cidr: 10.128.0.0/14\n    hostPrefix: 23\n  serviceNetwork:\n  - 172.30.0.0/16\n  - fd02::/112\n  machineNetwork:\n  - cidr: 192.0.2.0/24\n  - cidr: fd00::/48\n";
        assert!(refusal("4.16.0", v6_first).contains("put the IPv4 network first"));
        assert_eq!(refusal("4.21.0", v6_first), "");
    }
}
