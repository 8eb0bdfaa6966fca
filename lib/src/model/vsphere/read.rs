//! `platform.vsphere` read: its serde types (`written.rs`) taken in the `vcenters` form
//! (`legacy.rs` upconverts the single-vCenter fields), then checked as the installer checks
//! them, each value named by its field path.

use super::legacy::{upconvert_legacy, Upconverted};
use super::paths::{check_path, check_resource_pool, joined};
use super::written::{Name, Vip, Written, WrittenFailureDomain, WrittenVCenter};
use super::{FailureDomain, Topology, VCenter, VSphereMachinePools, VSpherePlatform};
use super::{AT, KNOWN_KEYS};
use crate::config::{LoadedConfig, Warning};
use crate::error::{Error, Result};
use serde_json::Value;
use std::net::IpAddr;

/// The keys of a vCenter (`vcenters[]`), as `WrittenVCenter` reads them.
pub(super) const VCENTER_KEYS: &[&str] = &["server", "port", "user", "password", "datacenters"];

/// The keys of a failure domain, as `WrittenFailureDomain` reads them.
pub(super) const FAILURE_DOMAIN_KEYS: &[&str] = &[
    "name",
    "region",
    "zone",
    "server",
    "topology",
    "regionType",
    "zoneType",
];

/// The keys of `loadBalancer`, as `WrittenLoadBalancer` reads them.
pub(super) const LOAD_BALANCER_KEYS: &[&str] = &["type"];

/// The keys of a failure domain's topology, as `WrittenTopology` reads them.
pub(super) const TOPOLOGY_KEYS: &[&str] = &[
    "datacenter",
    "computeCluster",
    "networks",
    "datastore",
    "resourcePool",
    "folder",
    "template",
];

/// Reads `platform.vsphere`; an error naming the field for a missing or malformed one.
pub(crate) fn settings(
    loaded: &LoadedConfig,
    value: &Value,
    warnings: &mut Vec<Warning>,
) -> Result<VSpherePlatform> {
    if !value.is_object() {
        return Err(loaded.field_error(AT, "must be a map with vcenters and failureDomains"));
    }
    let written: Written =
        crate::model::section::read(loaded, AT, value, |unknown| refuse_unknown(loaded, unknown))?;
    let Upconverted {
        settings: modern,
        written: single_vcenter_fields,
        generated_failure_domain,
    } = upconvert_legacy(loaded, &written)?;
    let vcenters = modern
        .vcenters
        .iter()
        .enumerate()
        .map(|(i, v)| vcenter(loaded, v, &format!("{AT}.vcenters.{i}")))
        .collect::<Result<Vec<_>>>()?;
    if vcenters.is_empty() {
        return Err(loaded.field_error(
            &format!("{AT}.vcenters"),
            "is required: the vCenter's server, user, password and datacenters",
        ));
    }
    let failure_domains = modern
        .failure_domains
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let at = format!("{AT}.failureDomains.{i}");
            failure_domain(
                loaded,
                v,
                &at,
                &vcenters,
                generated_failure_domain,
                warnings,
            )
        })
        .collect::<Result<Vec<_>>>()?;
    if failure_domains.is_empty() {
        return Err(loaded.field_error(
            &format!("{AT}.failureDomains"),
            "is required: at least one failure domain (name, region, zone, server and its \
             topology: datacenter, computeCluster, networks, datastore)",
        ));
    }
    check_ignored_vm_settings(loaded, &written, warnings)?;
    let api_vips = addresses(loaded, &modern.api_vips, &format!("{AT}.apiVIPs"))?;
    let ingress_vips = addresses(loaded, &modern.ingress_vips, &format!("{AT}.ingressVIPs"))?;
    let single_vcenter_datastore =
        (!single_vcenter_fields.is_empty()).then(|| written.legacy_text("defaultDatastore"));
    Ok(VSpherePlatform {
        vcenters,
        failure_domains,
        api_vips,
        ingress_vips,
        single_vcenter_datastore,
        single_vcenter_fields,
        load_balancer: written
            .load_balancer
            .as_ref()
            .map(|balancer| balancer.0.kind.0.clone()),
        machine_pools: VSphereMachinePools::default(),
        cluster_os_image_named: written
            .cluster_os_image
            .as_ref()
            .is_some_and(|i| !i.0.is_empty()),
    })
}

/// `diskType` and `clusterOSImage`: how openshift-install provisions the disks of the VMs it
/// makes itself, and the image it imports for them. The configs do not carry them (the
/// installer's agent flow ignores them too), beyond whether an image was chosen; a value the
/// installer would refuse is refused, any other is warned of, saying where it belongs.
fn check_ignored_vm_settings(
    loaded: &LoadedConfig,
    written: &Written,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    const DISK_TYPES: [&str; 3] = ["thin", "thick", "eagerZeroedThick"];
    if let Some(disk_type) = written.disk_type.as_ref().filter(|t| !t.0.is_empty()) {
        let field = format!("{AT}.diskType");
        if !DISK_TYPES.contains(&disk_type.0.as_str()) {
            return Err(loaded.field_error(
                &field,
                format!(
                    "`{}` is not a disk type: write one of {}",
                    disk_type.0,
                    DISK_TYPES.join(", ")
                ),
            ));
        }
        warnings.push(loaded.warning(
            &field,
            "ignored: it is how openshift-install provisions the disks of the VMs it makes itself; give your VMs' disks that provisioning when you make them",
        ));
    }
    if written
        .cluster_os_image
        .as_ref()
        .is_some_and(|i| !i.0.is_empty())
    {
        warnings.push(loaded.warning(
            &format!("{AT}.clusterOSImage"),
            "it is the image openshift-install imports to make the VMs itself, so the configs carry only that an image was chosen (releases whose installer says so keep the machine-config operator from updating the MachineSets' boot image); make your VMs from the RHCOS OVA yourself",
        ));
    }
    Ok(())
}

/// The error for the keys below `platform.vsphere` that no field reads: the first in the order
/// the checks meet them (the section's own keys, then each vCenter's, then each failure
/// domain's and its topology's), naming the keys its map takes.
fn refuse_unknown(loaded: &LoadedConfig, unknown: &[String]) -> Error {
    let place = |path: &String| {
        let parts: Vec<&str> = path.split('.').collect();
        let index = parts.get(1).and_then(|i| i.parse::<usize>().ok());
        match parts.as_slice() {
            [_] => (0, 0, KNOWN_KEYS),
            ["vcenters", _, _] => (1, index.unwrap_or(0), VCENTER_KEYS),
            ["failureDomains", _, _] => (2, index.unwrap_or(0), FAILURE_DOMAIN_KEYS),
            ["failureDomains", _, "topology", _] => (2, index.unwrap_or(0), TOPOLOGY_KEYS),
            ["loadBalancer", _] => (0, 0, LOAD_BALANCER_KEYS),
            _ => (3, 0, KNOWN_KEYS),
        }
    };
    let mut ordered: Vec<&String> = unknown.iter().collect();
    // Stable: within one map, the order written.
    ordered.sort_by_key(|path| {
        let (rank, index, _) = place(path);
        (rank, index, path.split('.').count())
    });
    let Some(first) = ordered.first() else {
        return loaded.field_error(AT, "unknown key");
    };
    if let Some(refusal) = crate::config::unsupported_refusal(&format!("{AT}.{first}")) {
        return loaded.field_error(&format!("{AT}.{first}"), refusal);
    }
    let (_, _, known) = place(first);
    loaded.field_error(
        &format!("{AT}.{first}"),
        format!("unknown key; bootgen reads {}", known.join(", ")),
    )
}

/// A required string: an error saying `what` it is when empty.
fn required(loaded: &LoadedConfig, text: &str, field: &str, what: &str) -> Result<String> {
    if text.is_empty() {
        return Err(loaded.field_error(field, format!("is required: {what}")));
    }
    Ok(text.to_string())
}

/// A list of names (datacenters, networks), each non-empty.
fn names(loaded: &LoadedConfig, list: &[Name], field: &str) -> Result<Vec<String>> {
    list.iter()
        .enumerate()
        .map(|(i, Name(name))| match name.trim() {
            "" => Err(loaded.field_error(&format!("{field}.{i}"), "must be a non-empty string")),
            name => Ok(name.to_string()),
        })
        .collect()
}

fn vcenter(loaded: &LoadedConfig, written: &WrittenVCenter, at: &str) -> Result<VCenter> {
    let field = |key: &str| format!("{at}.{key}");
    let server = required(
        loaded,
        &written.server.0,
        &field("server"),
        "the vCenter's host name",
    )?;
    crate::model::fields::check_vcenter_host(&server, true)
        .map_err(|why| loaded.field_error(&field("server"), why))?;
    let user = required(
        loaded,
        &written.user.0,
        &field("user"),
        "the user the cluster signs in as",
    )?;
    // The password is read, never echoed: a message says only that it is missing.
    let password = required(
        loaded,
        &written.password.0,
        &field("password"),
        "that user's password",
    )?;
    let datacenters = names(loaded, &written.datacenters.0, &field("datacenters"))?;
    if datacenters.is_empty() {
        return Err(loaded.field_error(
            &field("datacenters"),
            "is required: the datacenters the cluster uses in this vCenter",
        ));
    }
    Ok(VCenter {
        server,
        port: written.port.0,
        user,
        password,
        datacenters,
    })
}

fn failure_domain(
    loaded: &LoadedConfig,
    written: &WrittenFailureDomain,
    at: &str,
    vcenters: &[VCenter],
    generated: bool,
    warnings: &mut Vec<Warning>,
) -> Result<FailureDomain> {
    let field = |key: &str| format!("{at}.{key}");
    let name = required(
        loaded,
        &written.name.0,
        &field("name"),
        "the failure domain's name",
    )?;
    let region = required(
        loaded,
        &written.region.0,
        &field("region"),
        "the region tag of the failure domain",
    )?;
    let zone = required(
        loaded,
        &written.zone.0,
        &field("zone"),
        "the zone tag of the failure domain",
    )?;
    let server = required(
        loaded,
        &written.server.0,
        &field("server"),
        "one of vcenters[].server",
    )?;
    if !vcenters.iter().any(|v| v.server == server) {
        return Err(loaded.field_error(
            &field("server"),
            format!("`{server}` is not one of the vcenters' servers"),
        ));
    }
    let at_topology = field("topology");
    let topology = &written.topology.0;
    let in_topology = |key: &str| format!("{at_topology}.{key}");
    let datacenter = required(
        loaded,
        &topology.datacenter.0,
        &in_topology("datacenter"),
        "the datacenter",
    )?;
    // A failure domain made from the single-vCenter fields may name no compute cluster and no
    // network: machines the user makes say theirs (see `rules::check_legacy_placement`).
    let compute_cluster = if generated {
        topology.compute_cluster.0.clone()
    } else {
        required(
            loaded,
            &topology.compute_cluster.0,
            &in_topology("computeCluster"),
            "the compute cluster's path, /<datacenter>/host/<cluster>",
        )?
    };
    let as_path = |value: String, key: &str, kind: &str, warnings: &mut Vec<Warning>| {
        joined(
            loaded,
            warnings,
            value,
            &at_topology,
            key,
            &datacenter,
            kind,
        )
    };
    let compute_cluster = as_path(compute_cluster, "computeCluster", "host", warnings);
    if !compute_cluster.is_empty() {
        check_path(
            loaded,
            &compute_cluster,
            &in_topology("computeCluster"),
            &datacenter,
            "host",
            "compute cluster",
        )?;
    }
    let networks = names(loaded, &topology.networks.0, &in_topology("networks"))?;
    if networks.is_empty() && !generated {
        return Err(loaded.field_error(
            &in_topology("networks"),
            "is required: the port group of the machines' network",
        ));
    }
    let datastore = required(
        loaded,
        &topology.datastore.0,
        &in_topology("datastore"),
        "the datastore's path, /<datacenter>/datastore/<datastore>",
    )?;
    let datastore = as_path(datastore, "datastore", "datastore", warnings);
    check_path(
        loaded,
        &datastore,
        &in_topology("datastore"),
        &datacenter,
        "datastore",
        "datastore",
    )?;
    let folder = as_path(topology.folder.0.clone(), "folder", "vm", warnings);
    if !folder.is_empty() {
        check_path(
            loaded,
            &folder,
            &in_topology("folder"),
            &datacenter,
            "vm",
            "folder",
        )?;
    }
    let resource_pool = topology.resource_pool.0.clone();
    if !resource_pool.is_empty() {
        check_resource_pool(
            loaded,
            &resource_pool,
            &in_topology("resourcePool"),
            &datacenter,
            &compute_cluster,
        )?;
    }
    Ok(FailureDomain {
        name,
        region,
        zone,
        server,
        topology: Topology {
            datacenter,
            compute_cluster,
            networks,
            datastore,
            resource_pool,
            folder,
            template: topology.template.0.clone(),
        },
        region_type: written.region_type.0.clone(),
        zone_type: written.zone_type.0.clone(),
    })
}

fn addresses(loaded: &LoadedConfig, vips: &[Vip], field: &str) -> Result<Vec<String>> {
    vips.iter()
        .enumerate()
        .map(|(i, Vip(vip))| {
            vip.trim()
                .parse::<IpAddr>()
                .map(|ip| ip.to_string())
                .map_err(|_| loaded.field_error(&format!("{field}.{i}"), "must be an IP address"))
        })
        .collect()
}
