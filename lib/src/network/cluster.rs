//! The hosts against the cluster, before anything boots: each static address in a machine
//! network, of a family the cluster has, unique across hosts and no VIP, its gateway in its
//! subnet; DNS servers where nothing else gives them; as many hosts per role as the
//! install-config's replicas; a warning when static hosts leave the bootstrap machine to DHCP.
//! Every error names the host and the field.

use super::{Host, Hosts, Role};
use crate::config::Warning;
use crate::error::Result;
use crate::model::Model;
use std::net::IpAddr;

/// Checks `hosts` against `model`; what the install-config leaves open is a warning.
pub fn check_hosts(hosts: &Hosts, model: &Model) -> Result<Vec<Warning>> {
    let source = hosts.source();
    let mut warnings = Vec::new();
    let single = model.single_node.is_some();
    let vips: Vec<IpAddr> = model
        .platform
        .api_vips()
        .iter()
        .chain(model.platform.ingress_vips())
        .filter_map(|vip| vip.parse().ok())
        .collect();
    let machine = &model.networks.machine;
    let mut seen: Vec<(IpAddr, &Host)> = Vec::new();
    for host in &hosts.hosts {
        let name = Some(host.hostname.as_str());
        let at = |rest: &str| format!("hosts.{}.{rest}", host.index);
        if host.role.is_none() && !(single && hosts.hosts.len() == 1) {
            return Err(source.error(
                &at("role"),
                name,
                "is required where several hosts are listed: bootstrap, master or worker",
            ));
        }
        if single && host.role == Some(Role::Bootstrap) {
            return Err(source.error(
                &at("role"),
                name,
                "a single-node cluster bootstraps in place: it has no bootstrap host",
            ));
        }
        if let (Some(single), Some(hints)) = (&model.single_node, &host.root_device_hints) {
            check_single_node_disk(hosts, host, hints, &single.installation_disk)?;
        }
        for address in host.network.interfaces.iter().flat_map(|i| &i.addresses) {
            let family = if address.ip.is_ipv4() { "IPv4" } else { "IPv6" };
            if !machine
                .iter()
                .any(|n| n.addr().is_ipv4() == address.ip.is_ipv4())
            {
                return Err(source.error(
                    &address.at,
                    name,
                    format!(
                        "{} is an {family} address, and the cluster has no {family} machine network (networking.machineNetwork): a host of this family needs a cluster of it",
                        address.ip
                    ),
                ));
            }
            if !machine.iter().any(|n| n.contains(&address.ip)) {
                let list: Vec<String> = machine.iter().map(ToString::to_string).collect();
                return Err(source.error(
                    &address.at,
                    name,
                    format!(
                        "{} is in no machine network ({})",
                        address.ip,
                        list.join(", ")
                    ),
                ));
            }
            if vips.contains(&address.ip) {
                return Err(source.error(
                    &address.at,
                    name,
                    format!("{} is one of the cluster's VIPs (platform.vsphere.apiVIPs/ingressVIPs): a host may not take it", address.ip),
                ));
            }
            if let Some((_, other)) = seen.iter().find(|(ip, _)| *ip == address.ip) {
                let why =
                    if host.role == Some(Role::Bootstrap) || other.role == Some(Role::Bootstrap) {
                        " (the bootstrap host and a control-plane host run at the same time)"
                    } else {
                        ""
                    };
                return Err(source.error(
                    &address.at,
                    name,
                    format!(
                        "{} is also host {}'s address{why}: each address belongs to one host",
                        address.ip, other.hostname
                    ),
                ));
            }
            seen.push((address.ip, host));
        }
        check_gateways(hosts, host)?;
        let dynamic = host.network.interfaces.iter().any(|i| i.dynamic);
        let configured = !host.network.interfaces.is_empty();
        if configured && !dynamic && host.network.dns_servers.is_empty() {
            return Err(source.error(
                &at("networkConfig.dns-resolver.config.server"),
                name,
                "no DNS server: every interface is static, so no DHCP gives one; list the servers under dns-resolver.config.server",
            ));
        }
    }
    let has_bootstrap = hosts.hosts.iter().any(|h| h.role == Some(Role::Bootstrap));
    let static_hosts: Vec<&str> = hosts
        .hosts
        .iter()
        .filter(|h| h.network.interfaces.iter().any(|i| !i.addresses.is_empty()))
        .map(|h| h.hostname.as_str())
        .collect();
    if !single && !has_bootstrap && !static_hosts.is_empty() {
        warnings.push(source.warning(
            "hosts",
            format!(
                "no host has role: bootstrap, and {} have static addresses: the bootstrap machine will use DHCP (list it as a host with role: bootstrap and its networkConfig to give it a static address)",
                static_hosts.join(", ")
            ),
        ));
    }
    let count = |role: Role| {
        hosts
            .hosts
            .iter()
            .filter(|h| h.role.unwrap_or(Role::Master) == role)
            .count() as u32
    };
    let compute: u32 = model.compute.iter().map(|p| p.replicas).sum();
    let compute_written = model.compute.iter().any(|p| p.replicas_written);
    for (role, wanted, written, field) in [
        (
            Role::Master,
            model.control_plane.replicas,
            model.control_plane.replicas_written,
            "controlPlane.replicas",
        ),
        (Role::Worker, compute, compute_written, "compute[].replicas"),
    ] {
        let listed = count(role);
        if listed == wanted {
            continue;
        }
        let message = format!(
            "{listed} host(s) with role {}, and the install-config's {field} is {wanted}",
            role.name()
        );
        if written {
            return Err(source.error("hosts", None, message));
        }
        warnings.push(source.warning(
            "hosts",
            format!("{message} (its default: the install-config leaves it open)"),
        ));
    }
    Ok(warnings)
}

/// A single node installs itself to the installation disk (`bootstrapInPlace.installationDisk`
/// or the option that overrides it), whatever its media: hints that could choose another disk
/// are refused, naming both.
fn check_single_node_disk(
    hosts: &Hosts,
    host: &Host,
    hints: &super::RootDeviceHints,
    installation_disk: &str,
) -> Result<()> {
    let at = |key: &str| format!("hosts.{}.rootDeviceHints.{key}", host.index);
    if let Some(written) = hints.device_name.as_deref() {
        if written != installation_disk {
            return Err(hosts.source().error(
                &at("deviceName"),
                Some(&host.hostname),
                format!("is {written}, and the single node's installation disk (bootstrapInPlace.installationDisk, or the option that overrides it) is {installation_disk}: give the same disk in both"),
            ));
        }
    }
    if let Some((key, value)) = hints
        .given()
        .into_iter()
        .find(|(key, _)| *key != "deviceName")
    {
        return Err(hosts.source().error(
            &at(key),
            Some(&host.hostname),
            format!("{key}={value} cannot choose a single node's disk: it installs itself to its installation disk ({installation_disk}); write that disk's path as rootDeviceHints.deviceName and bootstrapInPlace.installationDisk"),
        ));
    }
    Ok(())
}

/// Each route's gateway lies in a subnet of the host's static addresses of its family (on its
/// interface, when the route names one that has static addresses).
fn check_gateways(hosts: &Hosts, host: &Host) -> Result<()> {
    for route in &host.network.routes {
        let Some(gateway) = route.gateway else {
            continue;
        };
        // An unspecified next hop (`0.0.0.0`, `::`) is a direct route, not a gateway; an IPv6
        // link-local one (fe80::/10) is on every link, reached through its interface.
        let link_local = matches!(gateway, IpAddr::V6(v6) if v6.segments()[0] & 0xffc0 == 0xfe80);
        if gateway.is_unspecified() || link_local {
            continue;
        }
        let own = host
            .network
            .interfaces
            .iter()
            .flat_map(|i| &i.addresses)
            .any(|a| a.ip == gateway);
        if own {
            return Err(hosts.source().error(
                &format!("{}.next-hop-address", route.at),
                Some(&host.hostname),
                format!("gateway {gateway} is the host's own address: a route goes through another machine"),
            ));
        }
        let on_interface: Vec<_> = host
            .network
            .interfaces
            .iter()
            .filter(|i| route.interface.as_deref().is_none_or(|n| n == i.name))
            .flat_map(|i| &i.addresses)
            .filter(|a| a.ip.is_ipv4() == gateway.is_ipv4())
            .collect();
        if on_interface.is_empty() {
            continue;
        }
        if !on_interface
            .iter()
            .any(|a| a.network().is_some_and(|n| n.contains(&gateway)))
        {
            let subnets: Vec<String> = on_interface
                .iter()
                .filter_map(|a| a.network())
                .map(|n| n.to_string())
                .collect();
            return Err(hosts.source().error(
                &format!("{}.next-hop-address", route.at),
                Some(&host.hostname),
                format!(
                    "gateway {gateway} is outside the subnet of its interface's address ({}): the host could not reach it",
                    subnets.join(", ")
                ),
            ));
        }
    }
    Ok(())
}
