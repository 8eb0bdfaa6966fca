//! What a host's `networkConfig` (nmstate YAML) says, read for the checks and the views:
//! its interfaces with their kinds, static addresses and ports, its routes and DNS servers.
//! The conversion to keyfiles is nmstate's (`convert.rs`); this reads only what bootgen
//! judges, and refuses what bootgen does not convert, naming the host and the key.

use super::hosts::HostInterface;
use super::source::Source;
use crate::error::Result;
use serde_yaml_ng::Value;
use std::net::IpAddr;

/// The interface kinds bootgen converts (nmstate's `type`).
pub const CONVERTED_KINDS: &[&str] = &["ethernet", "bond", "vlan", "linux-bridge"];

/// The top-level keys of `networkConfig` bootgen converts.
const CONVERTED_KEYS: &[&str] = &["interfaces", "dns-resolver", "routes", "route-rules"];

/// A host's network as its `networkConfig` states it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct HostNetwork {
    /// The interfaces, in the file's order.
    pub interfaces: Vec<NetInterface>,
    /// The routes.
    pub routes: Vec<Route>,
    /// The DNS servers (`dns-resolver.config.server`).
    pub dns_servers: Vec<String>,
}

/// One interface of `networkConfig`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct NetInterface {
    /// Its name.
    pub name: String,
    /// nmstate's `type`: ethernet, bond, vlan or linux-bridge.
    pub kind: String,
    /// The interfaces it is built on: a bond's or bridge's ports, a VLAN's base.
    pub lower: Vec<String>,
    /// Static addresses of both families.
    pub addresses: Vec<StaticAddress>,
    /// DHCP (or IPv6 autoconfiguration) on for a family.
    pub dynamic: bool,
    /// `mac-address`, normalized: the MAC the interface takes (a keyfile's
    /// `cloned-mac-address`).
    pub mac_address: Option<String>,
}

/// A static address with its prefix.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct StaticAddress {
    /// The address.
    pub ip: IpAddr,
    /// Its prefix length.
    pub prefix: u8,
    /// Where it is written (dotted path in the hosts file), for messages.
    #[serde(skip)]
    pub(super) at: String,
}

/// A route.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Route {
    /// `destination`, e.g. `0.0.0.0/0`.
    pub destination: String,
    /// `next-hop-address`, the gateway.
    pub gateway: Option<IpAddr>,
    /// `next-hop-interface`.
    pub interface: Option<String>,
    /// Where it is written, for messages.
    #[serde(skip)]
    pub(super) at: String,
}

impl HostNetwork {
    /// The first static address it states (its interfaces in the file's order, IPv4 before
    /// IPv6 within one): where the host is reached, e.g. by `ssh`.
    pub fn first_address(&self) -> Option<IpAddr> {
        self.interfaces
            .iter()
            .flat_map(|i| i.addresses.iter())
            .map(|a| a.ip)
            .next()
    }
}

impl StaticAddress {
    /// The subnet the address is in.
    pub fn network(&self) -> Option<ipnet::IpNet> {
        ipnet::IpNet::new(self.ip, self.prefix)
            .ok()
            .map(|n| n.trunc())
    }
}

fn text(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str)
}

fn list(value: Option<&Value>) -> &[Value] {
    value
        .and_then(Value::as_sequence)
        .map_or(&[][..], Vec::as_slice)
}

/// Reads a host's `networkConfig` (at `hosts.<index>.networkConfig`), refusing keys and kinds
/// bootgen does not convert and interfaces the host does not have.
pub(super) fn read(
    source: &Source<'_>,
    index: usize,
    host: &str,
    config: &Value,
    host_interfaces: &[HostInterface],
) -> Result<HostNetwork> {
    let at = format!("hosts.{index}.networkConfig");
    let Some(map) = config.as_mapping() else {
        return Err(source.error(&at, Some(host), "is not a mapping of nmstate settings"));
    };
    for key in map.keys() {
        let key = key.as_str().unwrap_or_default();
        if !CONVERTED_KEYS.contains(&key) {
            return Err(source.error(
                &format!("{at}.{key}"),
                Some(host),
                format!(
                    "bootgen does not convert `{key}` to keyfiles (it converts {})",
                    CONVERTED_KEYS.join(", ")
                ),
            ));
        }
    }
    let mut network = HostNetwork::default();
    let items = list(map.get("interfaces"));
    for (k, item) in items.iter().enumerate() {
        network.interfaces.push(interface(
            source,
            &format!("{at}.interfaces.{k}"),
            host,
            item,
        )?);
    }
    let declared: Vec<&str> = network.interfaces.iter().map(|i| i.name.as_str()).collect();
    for (k, interface) in network.interfaces.iter().enumerate() {
        let known = |name: &str| host_interfaces.iter().any(|i| i.name == name);
        if interface.kind == "ethernet" && !known(&interface.name) {
            return Err(source.error(
                &format!("{at}.interfaces.{k}.name"),
                Some(host),
                format!(
                    "ethernet interface {} is not among the host's interfaces: add it there with its MAC address, or correct the name",
                    interface.name
                ),
            ));
        }
        if let Some(missing) = interface
            .lower
            .iter()
            .find(|lower| !known(lower) && !declared.contains(&lower.as_str()))
        {
            return Err(source.error(
                &format!("{at}.interfaces.{k}"),
                Some(host),
                format!(
                    "{} is built on {missing}, which is neither among the host's interfaces nor in networkConfig",
                    interface.name
                ),
            ));
        }
    }
    let routes = map
        .get("routes")
        .and_then(|r| r.get("config"))
        .map(|c| list(Some(c)))
        .unwrap_or_default();
    for (k, route) in routes.iter().enumerate() {
        let route_at = format!("{at}.routes.config.{k}");
        let gateway = match text(route.get("next-hop-address")) {
            None => None,
            Some(gateway) => Some(gateway.parse::<IpAddr>().map_err(|_| {
                source.error(
                    &format!("{route_at}.next-hop-address"),
                    Some(host),
                    format!("`{gateway}` is not an IP address"),
                )
            })?),
        };
        network.routes.push(Route {
            destination: text(route.get("destination"))
                .unwrap_or_default()
                .to_string(),
            gateway,
            interface: text(route.get("next-hop-interface")).map(str::to_string),
            at: route_at,
        });
    }
    let servers = map
        .get("dns-resolver")
        .and_then(|d| d.get("config"))
        .and_then(|c| c.get("server"));
    for (k, server) in list(servers).iter().enumerate() {
        let server = text(Some(server)).unwrap_or_default();
        if server.parse::<IpAddr>().is_err() {
            return Err(source.error(
                &format!("{at}.dns-resolver.config.server.{k}"),
                Some(host),
                format!("`{server}` is not an IP address"),
            ));
        }
        network.dns_servers.push(server.to_string());
    }
    Ok(network)
}

fn interface(source: &Source<'_>, at: &str, host: &str, item: &Value) -> Result<NetInterface> {
    let Some(name) = text(item.get("name")).filter(|n| !n.is_empty()) else {
        return Err(source.error(&format!("{at}.name"), Some(host), "is required"));
    };
    if !super::hosts::is_interface_name(name) {
        return Err(source.error(
            &format!("{at}.name"),
            Some(host),
            format!(
                "`{name}` is not an interface name: {}",
                super::hosts::INTERFACE_NAME_RULE
            ),
        ));
    }
    // nmstate's offline conversion takes an interface without a type for ethernet.
    let kind = text(item.get("type")).unwrap_or("ethernet");
    if !CONVERTED_KINDS.contains(&kind) {
        return Err(source.error(
            &format!("{at}.type"),
            Some(host),
            format!(
                "bootgen does not convert `{kind}` interfaces (it converts {})",
                CONVERTED_KINDS.join(", ")
            ),
        ));
    }
    let lower: Vec<String> = match kind {
        "bond" => {
            let aggregation = item.get("link-aggregation");
            let ports = aggregation
                .and_then(|a| a.get("port").or_else(|| a.get("ports")))
                .or_else(|| aggregation.and_then(|a| a.get("slaves")));
            list(ports)
                .iter()
                .filter_map(|p| p.as_str().map(str::to_string))
                .collect()
        }
        "linux-bridge" => list(item.get("bridge").and_then(|b| b.get("port")))
            .iter()
            .filter_map(|p| text(p.get("name")).map(str::to_string))
            .collect(),
        "vlan" => text(item.get("vlan").and_then(|v| v.get("base-iface")))
            .map(str::to_string)
            .into_iter()
            .collect(),
        _ => Vec::new(),
    };
    if kind == "vlan" {
        let id = item.get("vlan").and_then(|v| v.get("id"));
        // NetworkManager takes 0 to 4094 (4095 is reserved); it drops or refuses the rest.
        if id.and_then(Value::as_u64).is_none_or(|id| id > MAX_VLAN_ID) {
            let why = match id {
                None => format!("is required: the VLAN ID, 0 to {MAX_VLAN_ID}"),
                Some(v) => format!(
                    "`{}` is not a VLAN ID: 0 to {MAX_VLAN_ID}",
                    serde_yaml_ng::to_string(v).unwrap_or_default().trim()
                ),
            };
            return Err(source.error(&format!("{at}.vlan.id"), Some(host), why));
        }
    }
    let mac_address = match item.get("mac-address") {
        None => None,
        Some(value) => {
            let written = text(Some(value)).unwrap_or_default();
            Some(super::hosts::normalize_mac(written).ok_or_else(|| {
                source.error(
                    &format!("{at}.mac-address"),
                    Some(host),
                    format!("`{written}` is not a MAC address such as 52:54:00:12:34:56"),
                )
            })?)
        }
    };
    let mut addresses = Vec::new();
    let mut dynamic = false;
    for family in ["ipv4", "ipv6"] {
        let Some(settings) = item.get(family) else {
            continue;
        };
        if settings.get("enabled").and_then(Value::as_bool) == Some(false) {
            continue;
        }
        let on = |key: &str| settings.get(key).and_then(Value::as_bool) == Some(true);
        dynamic |= on("dhcp") || on("autoconf");
        for (k, address) in list(settings.get("address")).iter().enumerate() {
            let address_at = format!("{at}.{family}.address.{k}");
            let written = text(address.get("ip")).unwrap_or_default();
            let ip: IpAddr = written.parse().map_err(|_| {
                source.error(
                    &format!("{address_at}.ip"),
                    Some(host),
                    format!("`{written}` is not an IP address"),
                )
            })?;
            let fits = matches!(
                (family, ip),
                ("ipv4", IpAddr::V4(_)) | ("ipv6", IpAddr::V6(_))
            );
            let max = if ip.is_ipv4() { 32 } else { 128 };
            let prefix = address
                .get("prefix-length")
                .and_then(Value::as_u64)
                .filter(|p| *p <= max);
            let Some(prefix) = prefix.filter(|p| fits && *p > 0) else {
                return Err(source.error(
                    &address_at,
                    Some(host),
                    format!("`{written}` needs a prefix-length of 1 to {max} and belongs under its own family's `address`"),
                ));
            };
            if let Some(why) = reserved_in_subnet(ip, prefix as u8) {
                return Err(source.error(
                    &format!("{address_at}.ip"),
                    Some(host),
                    format!("`{written}/{prefix}` is {why}, which no host can take"),
                ));
            }
            addresses.push(StaticAddress {
                ip,
                prefix: prefix as u8,
                at: format!("{address_at}.ip"),
            });
        }
    }
    Ok(NetInterface {
        name: name.to_string(),
        kind: kind.to_string(),
        lower,
        addresses,
        dynamic,
        mac_address,
    })
}

/// The highest VLAN ID NetworkManager takes.
const MAX_VLAN_ID: u64 = 4094;

/// What an IPv4 address is when it is its subnet's network or broadcast address (subnets of
/// more than two addresses: a /31 or /32 has neither).
fn reserved_in_subnet(ip: IpAddr, prefix: u8) -> Option<&'static str> {
    let IpAddr::V4(v4) = ip else {
        return None;
    };
    let net = ipnet::Ipv4Net::new(v4, prefix).ok()?;
    if prefix >= 31 {
        return None;
    }
    if v4 == net.network() {
        Some("the network address of its subnet")
    } else if v4 == net.broadcast() {
        Some("the broadcast address of its subnet")
    } else {
        None
    }
}
