//! Cluster networks: CIDR parsing, defaults and the addresses derived from them.

use ipnet::IpNet;
use serde::Serialize;
use std::net::IpAddr;

/// A pod network.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterNetwork {
    /// The CIDR.
    pub cidr: IpNet,
    /// Per-node prefix length.
    pub host_prefix: u8,
}

/// Validated networking.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Networks {
    /// `OVNKubernetes` unless the user said otherwise.
    pub network_type: String,
    /// Pod networks.
    pub cluster: Vec<ClusterNetwork>,
    /// Service networks; the first decides the primary family.
    pub service: Vec<IpNet>,
    /// Machine networks.
    pub machine: Vec<IpNet>,
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

    #[test]
    fn detects_overlap() {
        let a = parse_cidr("10.128.0.0/14").unwrap();
        let b = parse_cidr("10.130.0.0/16").unwrap();
        let c = parse_cidr("172.30.0.0/16").unwrap();
        assert!(overlaps(&a, &b));
        assert!(!overlaps(&a, &c));
    }
}
