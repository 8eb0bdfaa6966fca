//! `networking.ovnKubernetesConfig`: OVN-Kubernetes' settings, whose one field is
//! `ipv4.internalJoinSubnet`, the subnet OVN-Kubernetes joins its routers with in place of its
//! default 100.64.0.0/16. Checked as the installer checks it; the network operator's config
//! (`cluster-network-03-config.yml`) carries it to the cluster.

use super::network::{overlaps, parse_cidr, NetworkType, Networks};
use super::unknown_fields::{ignored_by_release, NotInRelease};
use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::release::{first_with, Profile, Switch, Switches};
use ipnet::IpNet;

/// The field the join subnet is written in, as the installer names it.
pub(crate) const JOIN_SUBNET_FIELD: &str = "networking.ovnKubernetesConfig.ipv4.internalJoinSubnet";

/// Addresses of the join subnet OVN-Kubernetes keeps for itself: the network, the gateway and
/// the broadcast address.
const RESERVED_ADDRESSES: u64 = 3;

/// The IPv4 join subnet the install-config gives OVN-Kubernetes, checked against `networks`;
/// `None` when it gives none, or its release's installer does not read the section (ignored,
/// said in a warning; 4.10's and 4.11's have refused it before).
pub(crate) fn join_subnet(
    loaded: &LoadedConfig,
    profile: &Profile,
    switches: &Switches,
    networks: &Networks,
    warnings: &mut Vec<Warning>,
) -> Result<Option<IpNet>> {
    let Some(config) = loaded
        .config
        .networking
        .as_ref()
        .and_then(|n| n.ovn_kubernetes_config.as_ref())
    else {
        return Ok(None);
    };
    if !switches.has(Switch::OvnKubernetesConfig) {
        ignored_by_release(
            loaded,
            profile.minor,
            &NotInRelease {
                field: "networking.ovnKubernetesConfig",
                arrived: first_with(Switch::OvnKubernetesConfig),
                consequence: ", so OVN-Kubernetes keeps its default internal subnets",
            },
            warnings,
        );
        return Ok(None);
    }
    let plugin = &networks.network_type;
    if !plugin.names(&NetworkType::OvnKubernetes) {
        return Err(loaded.field_error(
            "networking.networkType",
            format!(
                "`{plugin}`: ovnKubernetesConfig may only be specified with the OVNKubernetes networkType; remove networking.ovnKubernetesConfig or write `networkType: OVNKubernetes`"
            ),
        ));
    }
    let Some(written) = config
        .ipv4
        .as_ref()
        .and_then(|v4| v4.internal_join_subnet.as_deref())
    else {
        return Ok(None);
    };
    let join = parse_cidr(written).map_err(|m| loaded.field_error(JOIN_SUBNET_FIELD, m))?;
    check(loaded, &join, networks)?;
    Ok(Some(join))
}

/// The installer's rules for a join subnet: an IPv4 network (its size check knows no other),
/// an address given, apart from every cluster, machine and service network, and large enough
/// for an address per node the IPv4 cluster networks can hold, besides the reserved ones.
fn check(loaded: &LoadedConfig, join: &IpNet, networks: &Networks) -> Result<()> {
    let refuse = |message: String| Err(loaded.field_error(JOIN_SUBNET_FIELD, message));
    if join.addr().is_ipv6() {
        return refuse(format!(
            "{join} is an IPv6 network: internalJoinSubnet takes an IPv4 one (OVN-Kubernetes keeps its IPv6 join subnet)"
        ));
    }
    if join.addr().is_unspecified() {
        return refuse(format!(
            "{join}: address must be specified; write the network OVN-Kubernetes may use, e.g. 100.65.0.0/16"
        ));
    }
    let cluster = networks.cluster.iter().map(|c| ("clusterNetwork", &c.cidr));
    let machine = networks.machine.iter().map(|m| ("machineNetwork", m));
    let service = networks.service.iter().map(|s| ("serviceNetwork", s));
    for (list, net) in cluster.chain(machine).chain(service) {
        if overlaps(join, net) {
            return refuse(format!(
                "{join} must not overlap with {list} {net}: choose a range no network of the cluster uses"
            ));
        }
    }
    let nodes: u64 = networks
        .cluster
        .iter()
        .filter(|c| c.cidr.addr().is_ipv4())
        .map(|c| 1u64 << (c.host_prefix.saturating_sub(c.cidr.prefix_len()).min(32)))
        .sum();
    let addresses = 1u64 << (32 - u32::from(join.prefix_len().min(32)));
    if nodes + RESERVED_ADDRESSES >= addresses {
        let fits = (0..=32u8)
            .rev()
            .find(|p| nodes + RESERVED_ADDRESSES < 1u64 << (32 - u32::from(*p)))
            .unwrap_or(0);
        return refuse(format!(
            "{join} is not large enough for the maximum number of nodes which can be supported by ClusterNetwork ({nodes} nodes, and {RESERVED_ADDRESSES} addresses reserved): use a /{fits} or larger"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::refusal;

    fn config(networking: &str) -> String {
        format!(
            "{}networking:\n{networking}",
            super::super::MINIMAL_INSTALL_CONFIG
        )
    }

    fn join(subnet: &str) -> String {
        format!("  ovnKubernetesConfig:\n    ipv4:\n      internalJoinSubnet: {subnet}\n")
    }

    /// What the model makes of the join subnet on `version`: the subnet, or the refusal.
    fn subnet(version: &str, networking: &str) -> Result<Option<String>, String> {
        let loaded = crate::config::parse(&config(networking), "install-config.yaml")
            .map_err(|e| e.to_string())?;
        let options = super::super::ModelOptions {
            release_version: Some(version.into()),
            ..Default::default()
        };
        super::super::Model::new(&loaded, &options)
            .map(|m| m.networks.ovn_ipv4_join_subnet.map(|n| n.to_string()))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_join_subnet_is_read_from_the_release_that_knows_it() {
        for version in ["4.18.0", "4.19.1", "4.22.0", "5.0.0"] {
            assert_eq!(
                subnet(version, &join("100.99.0.0/16")),
                Ok(Some("100.99.0.0/16".into())),
                "{version}"
            );
        }
        // 4.17's installer ignores the section, 4.11's refuses it.
        assert_eq!(subnet("4.17.0", &join("100.99.0.0/16")), Ok(None));
        let strict = refusal(&config(&join("100.99.0.0/16")), "4.11.0");
        assert!(
            strict.contains("`networking.ovnKubernetesConfig` (line 9)")
                && strict.contains("arrived in 4.18"),
            "{strict}"
        );
    }

    #[test]
    fn the_installers_rules_for_a_join_subnet() {
        let field = "`networking.ovnKubernetesConfig.ipv4.internalJoinSubnet` (line 11)";
        let refused = |networking: &str, words: &str| {
            let message = subnet("4.18.0", networking).unwrap_err();
            assert!(
                message.contains(field) && message.contains(words),
                "{words}: {message}"
            );
        };
        refused(
            &join("10.128.0.0/16"),
            "must not overlap with clusterNetwork 10.128.0.0/14",
        );
        refused(
            &join("10.0.0.0/24"),
            "must not overlap with machineNetwork 10.0.0.0/16",
        );
        refused(
            &join("172.30.0.0/24"),
            "must not overlap with serviceNetwork 172.30.0.0/16",
        );
        // 10.128.0.0/14 with /23 per node holds 512 nodes: a /23 has 512 addresses, 3 reserved.
        refused(&join("100.99.0.0/23"), "not large enough");
        refused(&join("100.99.0.0/23"), "use a /22 or larger");
        assert_eq!(
            subnet("4.18.0", &join("100.99.0.0/22")),
            Ok(Some("100.99.0.0/22".into()))
        );
        refused(&join("fd99::/64"), "takes an IPv4 one");
        refused(&join("100.99.0.1/16"), "did you mean 100.99.0.0/16?");
        let other = subnet(
            "4.18.0",
            &format!("  networkType: Calico\n{}", join("100.99.0.0/16")),
        )
        .unwrap_err();
        assert!(
            other.contains("`networking.networkType` (line 9)")
                && other.contains("`Calico`: ovnKubernetesConfig may only be specified with the OVNKubernetes networkType"),
            "{other}"
        );
    }

    /// From 4.19 no network may overlap OVN-Kubernetes' default join subnet, unless the
    /// install-config moves the join subnet elsewhere.
    #[test]
    fn a_moved_join_subnet_frees_the_default_one() {
        let machines = "  machineNetwork:\n  - cidr: 100.64.0.0/24\n";
        let refused = subnet("4.19.0", machines).unwrap_err();
        assert!(
            refused.contains("`networking.machineNetwork[0].cidr`")
                && refused.contains("100.64.0.0/16")
                && refused.contains("internalJoinSubnet"),
            "{refused}"
        );
        let moved = format!("{machines}{}", join("100.99.0.0/16"));
        assert_eq!(subnet("4.19.0", &moved), Ok(Some("100.99.0.0/16".into())));
        // The transit subnet cannot be moved through the install-config.
        let transit = "  machineNetwork:\n  - cidr: 100.88.0.0/24\n";
        assert!(subnet("4.19.0", &format!("{transit}{}", join("100.99.0.0/16"))).is_err());
    }

    #[test]
    fn a_proxy_inside_the_join_subnet_is_refused() {
        let text = format!(
            "{}proxy:\n  httpProxy: http://100.99.0.10:3128\n",
            config(&join("100.99.0.0/16"))
        );
        let refused = refusal(&text, "4.18.0");
        assert!(
            refused.contains("`proxy.httpProxy`") && refused.contains("100.99.0.0/16"),
            "{refused}"
        );
        assert_eq!(refusal(&text, "4.17.0"), "");
    }
}
