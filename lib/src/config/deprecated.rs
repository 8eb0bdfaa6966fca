//! The deprecated networking fields the installer still takes (a running cluster's stored
//! install-config may hold them: 4.13's wrote `clusterNetworks` with `hostSubnetLength`),
//! upconverted as every release's installer does before it reads the config: each current
//! field left empty is filled from its deprecated one, and the user is told which field to use.

use super::types::ClusterNetwork;
use super::LoadedConfig;

/// Fills the current networking fields from the deprecated ones, with a warning for each
/// deprecated field used.
pub(super) fn upconvert(loaded: &mut LoadedConfig) {
    let Some(mut networking) = loaded.config.networking.take() else {
        return;
    };
    let mut said = Vec::new();
    if networking.cluster_network.is_empty() && !networking.deprecated_cluster_networks.is_empty() {
        networking.cluster_network = networking.deprecated_cluster_networks.clone();
        said.push(("networking.clusterNetworks", "networking.clusterNetwork"));
    }
    if networking.machine_network.is_empty() {
        if let Some(cidr) = &networking.deprecated_machine_cidr {
            networking.machine_network = vec![super::types::MachineNetwork { cidr: cidr.clone() }];
            said.push(("networking.machineCIDR", "networking.machineNetwork"));
        }
    }
    if networking.service_network.is_empty() {
        if let Some(cidr) = &networking.deprecated_service_cidr {
            networking.service_network = vec![cidr.clone()];
            said.push(("networking.serviceCIDR", "networking.serviceNetwork"));
        }
    }
    if networking
        .network_type
        .as_deref()
        .unwrap_or_default()
        .is_empty()
    {
        if let Some(kind) = &networking.deprecated_type {
            networking.network_type = Some(kind.clone());
            said.push(("networking.type", "networking.networkType"));
        }
    }
    let from_deprecated_list = said
        .iter()
        .any(|(old, _)| *old == "networking.clusterNetworks");
    let list = if from_deprecated_list {
        "clusterNetworks"
    } else {
        "clusterNetwork"
    };
    for (i, entry) in networking.cluster_network.iter_mut().enumerate() {
        if let Some(prefix) = host_prefix_of(entry) {
            entry.host_prefix = Some(prefix);
            let field = format!("networking.{list}.{i}.hostSubnetLength");
            loaded.warnings.push(loaded.warning(
                &field,
                format!("deprecated: read as hostPrefix {prefix} (the address size less hostSubnetLength); write `hostPrefix: {prefix}` instead"),
            ));
        }
    }
    // The installer's current list is the deprecated one itself, not a copy, so the cluster's
    // stored install-config shows the prefix in both.
    if from_deprecated_list {
        networking.deprecated_cluster_networks = networking.cluster_network.clone();
    }
    for (old, new) in said {
        loaded.warnings.push(loaded.warning(
            old,
            format!("deprecated: read as `{new}`, which the installer reads it as; write that field instead"),
        ));
    }
    loaded.config.networking = Some(networking);
}

/// The `hostPrefix` a deprecated `hostSubnetLength` stands for, when only that is given: the
/// address size (32 or 128) less it, as the installer converts it.
fn host_prefix_of(entry: &ClusterNetwork) -> Option<u8> {
    if entry.host_prefix.is_some_and(|p| p != 0) {
        return None;
    }
    let length = entry.host_subnet_length.filter(|l| *l != 0)?;
    let bits: u8 = if entry.cidr.contains(':') { 128 } else { 32 };
    bits.checked_sub(length)
}

#[cfg(test)]
mod tests {
    use crate::config::parse;

    /// Networking as a 4.13 cluster's `cluster-config-v1` holds it.
    const STORED_4_13: &str = "apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: old\nnetworking:\n  clusterNetworks:\n  - cidr: 10.128.0.0/14\n    hostSubnetLength: 9\n  machineCIDR: 192.168.10.0/24\n  serviceCIDR: 172.30.0.0/16\n  type: OVNKubernetes\nplatform:\n  none: {}\npullSecret: '{\"auths\":{}}'\n";

    #[test]
    fn deprecated_networking_is_read_as_the_installer_reads_it() {
        let loaded = parse(STORED_4_13, "cluster-config-v1.yaml").unwrap();
        let networking = loaded.config.networking.clone().unwrap();
        assert_eq!(networking.cluster_network[0].cidr, "10.128.0.0/14");
        assert_eq!(networking.cluster_network[0].host_prefix, Some(23));
        assert_eq!(networking.cluster_network[0].host_subnet_length, Some(9));
        assert_eq!(
            networking.deprecated_cluster_networks,
            networking.cluster_network
        );
        assert_eq!(networking.machine_network[0].cidr, "192.168.10.0/24");
        assert_eq!(networking.service_network, vec!["172.30.0.0/16"]);
        assert_eq!(networking.network_type.as_deref(), Some("OVNKubernetes"));
        let said: Vec<String> = loaded.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(said.len(), 5, "{said:#?}");
        assert!(
            said.iter().any(
                |w| w.contains("networking.clusterNetworks[0].hostSubnetLength")
                    && w.contains("hostPrefix: 23")
            ),
            "{said:#?}"
        );
        assert!(
            said.iter().any(|w| w.contains("networking.machineCIDR")
                && w.contains("`networking.machineNetwork`")),
            "{said:#?}"
        );
    }

    #[test]
    fn current_fields_win_over_deprecated_ones() {
        let text = STORED_4_13.replace(
            "  type: OVNKubernetes\n",
            "  type: OpenShiftSDN\n  networkType: OVNKubernetes\n  serviceNetwork:\n  - 172.31.0.0/16\n",
        );
        let loaded = parse(&text, "install-config.yaml").unwrap();
        let networking = loaded.config.networking.unwrap();
        assert_eq!(networking.network_type.as_deref(), Some("OVNKubernetes"));
        assert_eq!(networking.service_network, vec!["172.31.0.0/16"]);
    }
}
