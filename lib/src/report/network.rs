//! The static network a config places, for `bootgen inspect`: each NetworkManager keyfile in
//! `/etc/NetworkManager/system-connections/` (or staged for the MAC selection under
//! `/etc/bootgen/network/HOST/`) with its interface, addresses, gateways and DNS servers.
//! Never a secret: only those settings are read.

use serde::Serialize;
use std::fmt;

const KEYFILE_DIR: &str = "/etc/NetworkManager/system-connections/";
const STAGE_DIR: &str = "/etc/bootgen/network/";

/// One NetworkManager profile of a config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct NetworkSummary {
    /// The host it is staged for (the node keeps it when that host's MAC is present), or
    /// `None` for a profile of the node the config is for.
    pub host: Option<String>,
    /// The keyfile's path on the node.
    pub path: String,
    /// `connection.interface-name`.
    pub interface: Option<String>,
    /// `ethernet.mac-address`: the NIC it is for, whatever the kernel names it.
    pub mac_address: Option<String>,
    /// `connection.type` (`ethernet` for its long name `802-3-ethernet`).
    pub kind: String,
    /// The bond or bridge it is a port of (`connection.controller`, or `master` before).
    pub controller: Option<String>,
    /// Static addresses with their prefix, IPv4 then IPv6.
    pub addresses: Vec<String>,
    /// The gateways of its routes and `gateway=` settings.
    pub gateways: Vec<String>,
    /// DNS servers.
    pub dns: Vec<String>,
}

/// The profile at `path`, when it is a keyfile a node reads (or a staged one).
pub(crate) fn network_of(path: &str, contents: &[u8]) -> Option<NetworkSummary> {
    if !path.ends_with(".nmconnection") {
        return None;
    }
    let host = if path.starts_with(KEYFILE_DIR) {
        None
    } else {
        let rest = path.strip_prefix(STAGE_DIR)?;
        Some(rest.split('/').next()?.to_string())
    };
    let text = std::str::from_utf8(contents).ok()?;
    let groups = crate::network::parse_groups(text).ok()?;
    let get = |group: &str, key: &str| {
        groups
            .iter()
            .find(|(g, _)| g == group)
            .and_then(|(_, pairs)| pairs.iter().find(|(k, _)| k == key))
            .map(|(_, v)| v.clone())
    };
    let mut summary = NetworkSummary {
        host,
        path: path.to_string(),
        interface: get("connection", "interface-name"),
        mac_address: get("ethernet", "mac-address"),
        kind: match get("connection", "type").unwrap_or_default().as_str() {
            "802-3-ethernet" => "ethernet".to_string(),
            other => other.to_string(),
        },
        controller: get("connection", "controller").or_else(|| get("connection", "master")),
        addresses: Vec::new(),
        gateways: Vec::new(),
        dns: Vec::new(),
    };
    for family in ["ipv4", "ipv6"] {
        let Some((_, pairs)) = groups.iter().find(|(g, _)| g == family) else {
            continue;
        };
        for (key, value) in pairs {
            let numbered = |stem: &str| {
                key.strip_prefix(stem)
                    .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            };
            if numbered("address") {
                // `address1=192.0.2.5/24,192.0.2.1`: the address, then an optional gateway.
                let mut parts = value.split(',');
                summary.addresses.extend(parts.next().map(str::to_string));
                summary.gateways.extend(parts.next().map(str::to_string));
            } else if numbered("route") {
                // `route1=0.0.0.0/0,192.0.2.1,100`: destination, next hop, metric.
                summary
                    .gateways
                    .extend(value.split(',').nth(1).map(str::to_string));
            } else if key == "gateway" {
                summary.gateways.push(value.clone());
            } else if key == "dns" {
                summary.dns.extend(
                    value
                        .split([';', ','])
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                );
            }
        }
    }
    summary.gateways.retain(|g| !g.is_empty());
    summary.gateways.dedup();
    Some(summary)
}

impl fmt::Display for NetworkSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |items: &[String]| {
            if items.is_empty() {
                "-".to_string()
            } else {
                items.join(",")
            }
        };
        let addresses = match &self.controller {
            Some(controller) if self.addresses.is_empty() => format!("(port of {controller})"),
            _ => list(&self.addresses),
        };
        write!(
            f,
            "{:<12} {:<17} {:<10} {:<36} {:<20} {}",
            self.host.as_deref().unwrap_or("this node"),
            // A profile matched by MAC names no interface: the MAC says which NIC it is.
            self.interface
                .as_deref()
                .or(self.mac_address.as_deref())
                .unwrap_or("-"),
            self.kind,
            addresses,
            list(&self.gateways),
            list(&self.dns)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keyfile_shows_its_interface_addresses_gateway_and_dns() {
        let text = b"[connection]\nid=eno1\ntype=ethernet\ninterface-name=eno1\n\n[wifi-security]\npsk=Secret1\n\n[ipv4]\naddress0=192.168.111.10/24\ndns=192.168.111.1;\nmethod=manual\nroute0=0.0.0.0/0,192.168.111.1,0\n\n[ipv6]\naddress1=fd00::5/64,fd00::1\nmethod=manual\n";
        let shown = network_of("/etc/bootgen/network/master-0/eno1.nmconnection", text).unwrap();
        assert_eq!(shown.host.as_deref(), Some("master-0"));
        assert_eq!(shown.addresses, ["192.168.111.10/24", "fd00::5/64"]);
        assert_eq!(shown.gateways, ["192.168.111.1", "fd00::1"]);
        assert_eq!(shown.dns, ["192.168.111.1"]);
        assert!(!shown.to_string().contains("Secret1"));
        assert!(network_of("/etc/motd", text).is_none());
        assert!(network_of(
            "/etc/NetworkManager/system-connections/eno1.nmconnection",
            text
        )
        .is_some_and(|s| s.host.is_none()));
        let port = network_of(
            "/etc/NetworkManager/system-connections/eno2.nmconnection",
            b"[connection]\ntype=802-3-ethernet\ninterface-name=eno2\nmaster=bond0\n",
        )
        .unwrap();
        assert_eq!(port.kind, "ethernet");
        assert!(port.to_string().contains("(port of bond0)"), "{port}");
        let by_mac = network_of(
            "/etc/NetworkManager/system-connections/eno2.nmconnection",
            b"[connection]\ntype=802-3-ethernet\nmaster=bond0\n\n[ethernet]\nmac-address=02:00:00:00:01:02\n",
        )
        .unwrap();
        assert_eq!(by_mac.mac_address.as_deref(), Some("02:00:00:00:01:02"));
        assert!(
            by_mac.to_string().contains(" 02:00:00:00:01:02 "),
            "{by_mac}"
        );
    }
}
