//! The vSphere rules that need more than the platform's own fields: the VIPs against the
//! machine networks, the machines' architectures, and more than one vCenter or network where
//! the release's feature set allows it.

use super::{VSpherePlatform, AT};
use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::model::CustomFeatureGates;
use crate::release::{Switch, Switches};
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

/// More than one vCenter, or more than one network in a failure domain, as the release's
/// installer takes them: refused outright (one vCenter until 4.16, one network per failure
/// domain in 4.16 and 4.17), allowed only with the feature gate a preview feature set turns on
/// (`VSphereMultiVCenters` in 4.17, `VSphereMultiNetworks` in 4.18), then allowed by default
/// (at most ten networks).
pub(crate) fn check_multiples(
    loaded: &LoadedConfig,
    vsphere: &VSpherePlatform,
    switches: &Switches,
    feature_set: &str,
    custom_gates: &CustomFeatureGates,
) -> Result<()> {
    let gate_on = |gate: &str| {
        matches!(feature_set, "TechPreviewNoUpgrade" | "DevPreviewNoUpgrade")
            || (feature_set == "CustomNoUpgrade" && custom_gates.enabled.iter().any(|g| g == gate))
    };
    let preview = |gate: &str| {
        format!("set featureSet TechPreviewNoUpgrade (or CustomNoUpgrade with featureGates [{gate}=true]), which cannot be upgraded")
    };
    // The first release that takes several, from the release table.
    let first_taking = |switch: Switch| {
        let vsphere = crate::release::Dimensions {
            platform: crate::release::Platform::VSphere,
            ..Default::default()
        };
        crate::release::first_release(|p| p.switches(vsphere).has(switch)).map_or_else(
            || "a later release".to_string(),
            |m| format!("OpenShift {m} or later"),
        )
    };
    let vcenters = vsphere.vcenters.len();
    if vcenters > 1 {
        let field = format!("{AT}.vcenters");
        if switches.has(Switch::VsphereOneVcenter) {
            return Err(loaded.field_error(
                &field,
                format!("lists {vcenters} vCenters, and this release's installer takes one: list one, or choose {}", first_taking(Switch::VsphereMultiVcentersGated)),
            ));
        }
        let gate = "VSphereMultiVCenters";
        if switches.has(Switch::VsphereMultiVcentersGated) && !gate_on(gate) {
            return Err(loaded.field_error(
                &field,
                format!("lists {vcenters} vCenters, which this release's installer takes only with the {gate} preview feature: {}", preview(gate)),
            ));
        }
    }
    for (i, domain) in vsphere.failure_domains.iter().enumerate() {
        let networks = domain.topology.networks.len();
        let field = format!("{AT}.failureDomains[{i}].topology.networks");
        if networks > 1 && switches.has(Switch::VsphereOneNetwork) {
            return Err(loaded.field_error(
                &field,
                format!("lists {networks} networks, and this release's installer takes one a failure domain: list one, or choose {}", first_taking(Switch::VsphereMultiNetworksGated)),
            ));
        }
        let gate = "VSphereMultiNetworks";
        if networks > 1 && switches.has(Switch::VsphereMultiNetworksGated) && !gate_on(gate) {
            return Err(loaded.field_error(
                &field,
                format!("lists {networks} networks, which this release's installer takes only with the {gate} preview feature: {}", preview(gate)),
            ));
        }
        if networks > MAX_NETWORKS && switches.has(Switch::VsphereMultiNetworks) {
            return Err(loaded.field_error(
                &field,
                format!("lists {networks} networks; a machine takes at most {MAX_NETWORKS}"),
            ));
        }
    }
    Ok(())
}

/// The networks a failure domain may list where several are allowed.
const MAX_NETWORKS: usize = 10;

/// The single-vCenter `cluster` and `network`, which machines the user makes may do without
/// (the installer's "legacy UPI"): installers from 4.13 (`vsphere_failure_domains`) take both,
/// neither, or a cluster alone (its failure domain then has an empty network), and refuse a
/// network without a cluster; earlier ones take any of them.
pub(crate) fn check_legacy_placement(
    loaded: &LoadedConfig,
    vsphere: &VSpherePlatform,
    switches: &Switches,
) -> Result<()> {
    if !switches.has(Switch::VsphereFailureDomains) {
        return Ok(());
    }
    // Only a failure domain made from the single-vCenter fields can lack a compute cluster.
    let network_without_cluster = vsphere
        .failure_domains
        .iter()
        .any(|fd| fd.topology.compute_cluster.is_empty() && !fd.topology.networks.is_empty());
    if network_without_cluster {
        return Err(loaded.field_error(
            &format!("{AT}.cluster"),
            format!("is required with `network` by this release's installer (which reports it as {AT}.failureDomains.topology.computeCluster, of the failure domain it makes from these fields): name the compute cluster, or leave out both for machines you make yourself"),
        ));
    }
    Ok(())
}

/// The single-vCenter `folder` and `resourcePool` as installers until 4.12 take them: absolute
/// paths under the datacenter (`/DC/vm/...`) and the cluster (`/DC/host/CLUSTER/Resources/...`).
/// Later installers join a bare name into that path, as bootgen reads it; these refused it.
pub(crate) fn check_legacy_paths(loaded: &LoadedConfig, switches: &Switches) -> Result<()> {
    if !switches.has(Switch::VsphereLegacyPathsAbsolute) {
        return Ok(());
    }
    let vsphere = loaded
        .config
        .platform
        .as_ref()
        .and_then(|p| p.get("vsphere"))
        .and_then(|v| v.as_object());
    let text = |key: &str| {
        vsphere
            .and_then(|v| v.get(key))
            .and_then(|v| v.as_str())
            .unwrap_or_default()
    };
    let (datacenter, cluster) = (text("datacenter"), text("cluster"));
    for (key, prefix) in [
        ("folder", format!("/{datacenter}/vm/")),
        (
            "resourcePool",
            format!("/{datacenter}/host/{cluster}/Resources/"),
        ),
    ] {
        let value = text(key);
        if !value.is_empty() && !value.starts_with(&prefix) {
            return Err(loaded.field_error(
                &format!("{AT}.{key}"),
                format!("`{value}` is not an absolute path under {prefix}, which this release's installer requires: write {prefix}..."),
            ));
        }
    }
    Ok(())
}
