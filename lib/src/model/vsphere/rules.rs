//! The vSphere rules that need more than the platform's own fields: the VIPs against the
//! machine networks, and the machines' architectures.

use super::{VSpherePlatform, AT};
use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use std::net::IpAddr;

/// The installer's VIP rules: both kinds or neither, one address or two (an IPv4 and an IPv6
/// one), and the API's apart from the ingress'. A VIP outside every machine network is only a
/// warning, as the installer checks none: the nodes cannot hold it, so the cluster will not
/// come up.
pub(crate) fn check_vips(
    loaded: &LoadedConfig,
    vsphere: &VSpherePlatform,
    machine_networks: &[ipnet::IpNet],
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    let api = format!("{AT}.apiVIPs");
    let ingress = format!("{AT}.ingressVIPs");
    let both = "give both, or neither when a load balancer of your own serves the API and ingress";
    match (vsphere.api_vips.is_empty(), vsphere.ingress_vips.is_empty()) {
        (true, true) => return Ok(()),
        (false, true) => {
            return Err(loaded.field_error(&ingress, format!("is required with apiVIPs: {both}")))
        }
        (true, false) => {
            return Err(loaded.field_error(&api, format!("is required with ingressVIPs: {both}")))
        }
        (false, false) => {}
    }
    for (field, vips) in [(&api, &vsphere.api_vips), (&ingress, &vsphere.ingress_vips)] {
        if vips.len() > 2 {
            return Err(loaded.field_error(
                field,
                "takes one address, or two (one IPv4 and one IPv6) on a dual-stack cluster",
            ));
        }
        let ips: Vec<IpAddr> = vips.iter().filter_map(|v| v.parse().ok()).collect();
        if let [a, b] = ips.as_slice() {
            if a.is_ipv4() == b.is_ipv4() {
                return Err(loaded.field_error(
                    &format!("{field}.1"),
                    "must be of the other IP family than the first: a dual-stack cluster has one \
                     IPv4 and one IPv6 VIP",
                ));
            }
        }
        for (i, ip) in ips.iter().enumerate() {
            if !machine_networks.iter().any(|n| n.contains(ip)) {
                let networks: Vec<String> =
                    machine_networks.iter().map(ToString::to_string).collect();
                warnings.push(loaded.warning(
                    &format!("{field}.{i}"),
                    format!(
                        "`{ip}` is outside every machine network ({}): the control-plane nodes \
                         cannot hold it",
                        networks.join(", ")
                    ),
                ));
            }
        }
    }
    for (i, vip) in vsphere.api_vips.iter().enumerate() {
        if vsphere.ingress_vips.contains(vip) {
            return Err(loaded.field_error(
                &format!("{api}.{i}"),
                format!(
                    "`{vip}` is also an ingress VIP: the API and ingress need their own addresses"
                ),
            ));
        }
    }
    Ok(())
}

/// vSphere runs amd64 machines only: RHCOS has no vSphere image for other architectures.
pub(crate) fn check_architectures(
    loaded: &LoadedConfig,
    control_plane: &crate::model::Pool,
    compute: &[crate::model::Pool],
) -> Result<()> {
    let pools = std::iter::once(("controlPlane".to_string(), control_plane)).chain(
        compute
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("compute.{i}"), p)),
    );
    for (at, pool) in pools {
        if pool.architecture != crate::model::Arch::Amd64 && pool.replicas > 0 {
            return Err(loaded.field_error(
                &format!("{at}.architecture"),
                format!(
                    "`{}`: vSphere machines are amd64 only (RHCOS has no vSphere image for {})",
                    pool.architecture, pool.architecture
                ),
            ));
        }
    }
    Ok(())
}
