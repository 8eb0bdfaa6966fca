//! Cluster networks: CIDR parsing, defaults and the addresses derived from them.

use crate::config::LoadedConfig;
use crate::error::Result;
use crate::release::{Switch, Switches};
use ipnet::IpNet;
use serde::Serialize;
use std::net::IpAddr;

/// `networking.networkType`: the cluster's network plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetworkType {
    /// OVN-Kubernetes (the installer's default from 4.12).
    OvnKubernetes,
    /// OpenShift SDN (the default before), which later releases dropped.
    OpenShiftSdn,
    /// Kuryr, which later releases dropped.
    Kuryr,
    /// Any other name, taken as written: a third party's plugin (the installer takes any
    /// name), or one of OpenShift's in another case (`ovnkubernetes`), which the installer's
    /// rules take as that plugin ([`NetworkType::names`]) and the cluster gets as written.
    Other(String),
}

impl NetworkType {
    /// Whether the installer requires a `hostPrefix` (each node's slice of the pod network)
    /// for this plugin: OpenShift's own; a third party's divides the network itself.
    pub fn takes_host_prefix(&self) -> bool {
        matches!(self, NetworkType::OvnKubernetes | NetworkType::OpenShiftSdn)
    }

    /// The plugins OpenShift ships.
    pub const OPENSHIFT: [NetworkType; 3] = [
        NetworkType::OvnKubernetes,
        NetworkType::OpenShiftSdn,
        NetworkType::Kuryr,
    ];

    /// The plugin the install-config's `written` name is: one of OpenShift's when spelled as
    /// OpenShift spells it, else [`NetworkType::Other`].
    pub fn from_written(written: &str) -> NetworkType {
        NetworkType::OPENSHIFT
            .into_iter()
            .find(|plugin| plugin.as_str() == written)
            .unwrap_or_else(|| NetworkType::Other(written.to_string()))
    }

    /// The name the install-config and the cluster's Network object write.
    pub fn as_str(&self) -> &str {
        match self {
            NetworkType::OvnKubernetes => "OVNKubernetes",
            NetworkType::OpenShiftSdn => "OpenShiftSDN",
            NetworkType::Kuryr => "Kuryr",
            NetworkType::Other(name) => name,
        }
    }

    /// Whether this names OpenShift's `plugin`, in any case, as the installer's rules compare.
    pub fn names(&self, plugin: &NetworkType) -> bool {
        self.as_str().eq_ignore_ascii_case(plugin.as_str())
    }

    /// Whether this names one of the plugins OpenShift ships, in any case.
    pub fn is_openshift(&self) -> bool {
        NetworkType::OPENSHIFT
            .iter()
            .any(|plugin| self.names(plugin))
    }
}

impl std::fmt::Display for NetworkType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for NetworkType {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A pod network.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterNetwork {
    /// The CIDR.
    pub cidr: IpNet,
    /// Per-node prefix length; 0 for a third party's plugin given none
    /// ([`NetworkType::takes_host_prefix`]).
    pub host_prefix: u8,
}

/// Validated networking.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Networks {
    /// The network plugin: the install-config's, else the release's default.
    pub network_type: NetworkType,
    /// Pod networks.
    pub cluster: Vec<ClusterNetwork>,
    /// Service networks; the first decides the primary family.
    pub service: Vec<IpNet>,
    /// Machine networks.
    pub machine: Vec<IpNet>,
    /// The IPv4 join subnet the install-config gives OVN-Kubernetes
    /// (`networking.ovnKubernetesConfig.ipv4.internalJoinSubnet`), where its release reads it.
    pub ovn_ipv4_join_subnet: Option<IpNet>,
}

/// Default pod network.
pub const DEFAULT_CLUSTER_NETWORK: &str = "10.128.0.0/14";
/// Default per-node prefix.
pub const DEFAULT_HOST_PREFIX: u8 = 23;
/// Default service network.
pub const DEFAULT_SERVICE_NETWORK: &str = "172.30.0.0/16";
/// Default machine network.
pub const DEFAULT_MACHINE_NETWORK: &str = "10.0.0.0/16";

/// Parses a CIDR, insisting on the network address (no host bits set).
pub fn parse_cidr(text: &str) -> Result<IpNet, String> {
    let net: IpNet = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a CIDR such as 10.0.0.0/16 or fd00::/48"))?;
    if net.network() != net.addr() {
        return Err(format!(
            "`{text}` has host bits set; did you mean {}?",
            net.trunc()
        ));
    }
    Ok(net)
}

/// The first host address of a network (index 1): the Kubernetes service IP.
pub fn first_host(net: &IpNet) -> Option<IpAddr> {
    match net {
        IpNet::V4(v4) => {
            let base = u32::from(v4.network());
            base.checked_add(1).map(|n| IpAddr::V4(n.into()))
        }
        IpNet::V6(v6) => {
            let base = u128::from(v6.network());
            base.checked_add(1).map(|n| IpAddr::V6(n.into()))
        }
    }
}

impl Networks {
    /// True when the first service network is IPv6 (the node IP is then `::`).
    pub fn ipv6_primary(&self) -> bool {
        matches!(self.service.first(), Some(IpNet::V6(_)))
    }

    /// The first host of each service network, primary first.
    pub fn service_ips(&self) -> Vec<IpAddr> {
        self.service.iter().filter_map(first_host).collect()
    }
}

impl Networks {
    /// The install-config's networks after defaults, each CIDR checked, with the network
    /// plugin the release's installer defaults to; an error naming the field at fault.
    pub(crate) fn read(loaded: &LoadedConfig, switches: &Switches) -> Result<Networks> {
        let raw = loaded.config.networking.clone().unwrap_or_default();
        let parse =
            |field: String, text: &str| parse_cidr(text).map_err(|m| loaded.field_error(&field, m));
        // The installer's default changed in 4.12, for a single node in 4.11.
        let network_type = match raw.network_type.as_deref() {
            Some(written) => NetworkType::from_written(written),
            None if switches.has(Switch::DefaultNetworkOvn)
                || switches.has(Switch::SingleNodeOvn) =>
            {
                NetworkType::OvnKubernetes
            }
            None => NetworkType::OpenShiftSdn,
        };
        let mut cluster = Vec::new();
        for (i, entry) in raw.cluster_network.iter().enumerate() {
            let cidr = parse(format!("networking.clusterNetwork.{i}.cidr"), &entry.cidr)?;
            let host_prefix = match entry.host_prefix {
                // A third party's plugin divides the pod network itself: no hostPrefix (0, which
                // the network objects leave out).
                None | Some(0) if !network_type.takes_host_prefix() => 0,
                Some(prefix) => prefix,
                None if cidr.addr().is_ipv6() => 64,
                None => DEFAULT_HOST_PREFIX,
            };
            let checked = network_type.takes_host_prefix() || host_prefix != 0;
            if checked && (host_prefix < cidr.prefix_len() || host_prefix > cidr.max_prefix_len()) {
                return Err(loaded.field_error(
                    &format!("networking.clusterNetwork.{i}.hostPrefix"),
                    format!(
                        "{host_prefix} must lie between the network's prefix /{} and /{}",
                        cidr.prefix_len(),
                        cidr.max_prefix_len()
                    ),
                ));
            }
            cluster.push(ClusterNetwork { cidr, host_prefix });
        }
        if cluster.is_empty() {
            cluster.push(ClusterNetwork {
                cidr: parse_cidr(DEFAULT_CLUSTER_NETWORK)
                    .map_err(|m| loaded.field_error("networking", m))?,
                host_prefix: DEFAULT_HOST_PREFIX,
            });
        }
        let mut service = Vec::new();
        for (i, text) in raw.service_network.iter().enumerate() {
            service.push(parse(format!("networking.serviceNetwork.{i}"), text)?);
        }
        if service.is_empty() {
            service.push(
                parse_cidr(DEFAULT_SERVICE_NETWORK)
                    .map_err(|m| loaded.field_error("networking", m))?,
            );
        }
        if service.len() > 2
            || (service.len() == 2 && service[0].addr().is_ipv6() == service[1].addr().is_ipv6())
        {
            return Err(loaded.field_error(
                "networking.serviceNetwork",
                "takes one network, or two of different families (dual-stack)",
            ));
        }
        let mut machine = Vec::new();
        for (i, entry) in raw.machine_network.iter().enumerate() {
            machine.push(parse(
                format!("networking.machineNetwork.{i}.cidr"),
                &entry.cidr,
            )?);
        }
        if machine.is_empty() {
            machine.push(
                parse_cidr(DEFAULT_MACHINE_NETWORK)
                    .map_err(|m| loaded.field_error("networking", m))?,
            );
        }
        for (si, s) in service.iter().enumerate() {
            for (ci, c) in cluster.iter().enumerate() {
                if overlaps(s, &c.cidr) {
                    return Err(loaded.field_error(
                    &format!("networking.clusterNetwork.{ci}.cidr"),
                    format!(
                        "{} overlaps serviceNetwork[{si}] {s}: pods and services need separate ranges",
                        c.cidr
                    ),
                ));
                }
            }
        }
        Ok(Networks {
            network_type,
            cluster,
            service,
            machine,
            // Read with its rules by `ovn::join_subnet`.
            ovn_ipv4_join_subnet: None,
        })
    }
}

/// Two networks share addresses.
pub fn overlaps(a: &IpNet, b: &IpNet) -> bool {
    a.contains(&b.network()) || b.contains(&a.network())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_host_of_v4_and_v6() {
        let v4 = parse_cidr("172.30.0.0/16").unwrap();
        assert_eq!(first_host(&v4).unwrap().to_string(), "172.30.0.1");
        let v6 = parse_cidr("fd02::/112").unwrap();
        assert_eq!(first_host(&v6).unwrap().to_string(), "fd02::1");
    }

    #[test]
    fn rejects_host_bits_and_garbage() {
        assert!(parse_cidr("172.30.0.1/16")
            .unwrap_err()
            .contains("172.30.0.0/16"));
        assert!(parse_cidr("300.1.1.1/8").is_err());
        assert!(parse_cidr("10.0.0.0").is_err());
    }

    /// A plugin's name reaches the cluster as written, and the installer's rules know
    /// OpenShift's plugins in any case.
    #[test]
    fn network_types_keep_their_spelling() {
        let lower = NetworkType::from_written("ovnkubernetes");
        assert_eq!(lower.as_str(), "ovnkubernetes");
        assert!(lower.names(&NetworkType::OvnKubernetes) && lower.is_openshift());
        assert_eq!(
            NetworkType::from_written("OpenShiftSDN"),
            NetworkType::OpenShiftSdn
        );
        let calico = NetworkType::from_written("Calico");
        assert_eq!(calico, NetworkType::Other("Calico".into()));
        assert!(!calico.is_openshift());
        assert_eq!(serde_json::to_value(&calico).unwrap(), "Calico");
    }

    #[test]
    fn detects_overlap() {
        let a = parse_cidr("10.128.0.0/14").unwrap();
        let b = parse_cidr("10.130.0.0/16").unwrap();
        let c = parse_cidr("172.30.0.0/16").unwrap();
        assert!(overlaps(&a, &b));
        assert!(!overlaps(&a, &c));
    }
}
