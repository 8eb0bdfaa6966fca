//! `platform: vsphere`: the vCenters and failure domains of the install-config, read and checked
//! as the installer checks them, and the VIPs, checked against the machine networks.
//!
//! bootgen reads the form of 4.13 on (`vcenters` and `failureDomains`), and the older
//! single-vCenter fields as the installers of 4.13 on read them: as one vCenter and one failure
//! domain named `generated-failure-domain`.

use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use legacy::upconvert_legacy;
use paths::{check_path, check_resource_pool, joined};
use serde::Serialize;
use serde_json::Value;
use std::net::IpAddr;

mod form;
mod legacy;
mod paths;
mod pool_checks;
#[cfg(test)]
mod pool_tests;
mod pool_values;
mod pools;
mod rules;
mod stored;

pub(crate) use form::check_form;
pub(crate) use legacy::deprecation_warning;
pub(crate) use pools::{later_pool_fields, machine_pools};
pub use pools::{DataDisk, VSphereMachinePool, VSphereMachinePools};
pub(crate) use rules::{check_architectures, check_vips};
pub(crate) use stored::{store, store_pools};

/// Where the keys below live, for messages.
const AT: &str = "platform.vsphere";

/// The keys bootgen reads under `platform.vsphere`.
const KNOWN_KEYS: &[&str] = &[
    "vcenters",
    "failureDomains",
    "apiVIPs",
    "ingressVIPs",
    "defaultMachinePlatform",
];

/// The single-vCenter keys of installers before 4.13, and what replaces each.
const LEGACY_KEYS: &[(&str, &str)] = &[
    ("vCenter", "vcenters[].server"),
    ("username", "vcenters[].user"),
    ("password", "vcenters[].password"),
    (
        "datacenter",
        "vcenters[].datacenters and failureDomains[].topology.datacenter",
    ),
    ("defaultDatastore", "failureDomains[].topology.datastore"),
    ("cluster", "failureDomains[].topology.computeCluster"),
    ("network", "failureDomains[].topology.networks"),
    ("folder", "failureDomains[].topology.folder"),
    ("resourcePool", "failureDomains[].topology.resourcePool"),
    ("apiVIP", "apiVIPs"),
    ("ingressVIP", "ingressVIPs"),
];

/// A vCenter the cluster talks to (`vcenters[]`). Its credentials go only into the cloud
/// credentials Secret and `metadata.json`, never into a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct VCenter {
    /// Host name or address of the vCenter.
    pub server: String,
    /// Its HTTPS port; 0 when the install-config leaves it out (the cluster's components then
    /// use 443, and some manifests leave the port out as the installer does).
    pub port: u16,
    /// The user the cluster signs in as.
    pub user: String,
    /// That user's password.
    pub password: String,
    /// The datacenters the cluster uses in this vCenter.
    pub datacenters: Vec<String>,
}

/// Where in vSphere a failure domain puts machines (`failureDomains[].topology`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Topology {
    /// Datacenter name.
    pub datacenter: String,
    /// Compute cluster path, `/<datacenter>/host/<cluster>`.
    pub compute_cluster: String,
    /// Port group names; the first is the machines' network.
    pub networks: Vec<String>,
    /// Datastore path, `/<datacenter>/datastore/<datastore>`.
    pub datastore: String,
    /// Resource pool path; `""`: the cluster's root pool.
    pub resource_pool: String,
    /// VM folder path; `""`: one named after the cluster.
    pub folder: String,
    /// The RHCOS template's path, when the user made it; `""`: the installer's name for it.
    pub template: String,
}

/// A failure domain (`failureDomains[]`): a region and zone of one vCenter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct FailureDomain {
    /// Its name.
    pub name: String,
    /// The region tag.
    pub region: String,
    /// The zone tag.
    pub zone: String,
    /// The vCenter it is in (one of `vcenters[].server`).
    pub server: String,
    /// Where its machines go.
    pub topology: Topology,
}

/// `platform.vsphere`, read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct VSpherePlatform {
    /// The vCenters.
    pub vcenters: Vec<VCenter>,
    /// The failure domains, in the install-config's order.
    pub failure_domains: Vec<FailureDomain>,
    /// The API's virtual IPs (none for a cluster with its own load balancer).
    pub api_vips: Vec<String>,
    /// The ingress virtual IPs.
    pub ingress_vips: Vec<String>,
    /// The datastore as the single-vCenter field `defaultDatastore` wrote it (a name or a path),
    /// when the platform was given in those fields; `None` otherwise. The 4.12 installer wrote
    /// its objects from those fields as they were.
    pub single_vcenter_datastore: Option<String>,
    /// The single-vCenter fields the install-config wrote (`vCenter`, `username`, ...); empty
    /// for the `vcenters` form.
    pub single_vcenter_fields: Vec<String>,
    /// Each pool's machines (size, disks, failure domains), merged with
    /// `defaultMachinePlatform` and the installer's defaults once the release is known.
    pub machine_pools: VSphereMachinePools,
}

impl VSpherePlatform {
    /// Whether the cluster keeps its API and ingress addresses itself (keepalived on the nodes).
    pub fn has_vips(&self) -> bool {
        !self.api_vips.is_empty()
    }
}

/// Reads `platform.vsphere`; an error naming the field for a missing or malformed one.
pub(crate) fn settings(
    loaded: &LoadedConfig,
    value: &Value,
    warnings: &mut Vec<Warning>,
) -> Result<VSpherePlatform> {
    let Some(map) = value.as_object() else {
        return Err(loaded.field_error(AT, "must be a map with vcenters and failureDomains"));
    };
    for key in map.keys() {
        if !KNOWN_KEYS.contains(&key.as_str()) && !LEGACY_KEYS.iter().any(|(k, _)| k == key) {
            return Err(loaded.field_error(
                &format!("{AT}.{key}"),
                format!("unknown key; bootgen reads {}", KNOWN_KEYS.join(", ")),
            ));
        }
    }
    let upconverted;
    let legacy = value;
    let mut single_vcenter_fields = Vec::new();
    let (map, upconverted_from) = match upconvert_legacy(loaded, map)? {
        Some(legacy::Upconverted { settings, written }) => {
            upconverted = settings;
            single_vcenter_fields = written;
            (&upconverted, Some(legacy))
        }
        None => (map, None),
    };
    let vcenters = list(loaded, map.get("vcenters"), &format!("{AT}.vcenters"))?
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
    let failure_domains = list(
        loaded,
        map.get("failureDomains"),
        &format!("{AT}.failureDomains"),
    )?
    .iter()
    .enumerate()
    .map(|(i, v)| {
        let at = format!("{AT}.failureDomains.{i}");
        failure_domain(loaded, v, &at, &vcenters, warnings)
    })
    .collect::<Result<Vec<_>>>()?;
    if failure_domains.is_empty() {
        return Err(loaded.field_error(
            &format!("{AT}.failureDomains"),
            "is required: at least one failure domain (name, region, zone, server and its \
             topology: datacenter, computeCluster, networks, datastore)",
        ));
    }
    let api_vips = addresses(loaded, map.get("apiVIPs"), &format!("{AT}.apiVIPs"))?;
    let ingress_vips = addresses(loaded, map.get("ingressVIPs"), &format!("{AT}.ingressVIPs"))?;
    let single_vcenter_datastore = upconverted_from
        .map(|legacy| text(loaded, legacy, "defaultDatastore", AT))
        .transpose()?;
    Ok(VSpherePlatform {
        vcenters,
        failure_domains,
        api_vips,
        ingress_vips,
        single_vcenter_datastore,
        single_vcenter_fields,
        machine_pools: VSphereMachinePools::default(),
    })
}

fn list<'a>(loaded: &LoadedConfig, value: Option<&'a Value>, field: &str) -> Result<&'a [Value]> {
    match value {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(loaded.field_error(field, "must be a list")),
    }
}

/// A string field; `""` when absent.
fn text(loaded: &LoadedConfig, value: &Value, key: &str, at: &str) -> Result<String> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.trim().to_string()),
        Some(_) => Err(loaded.field_error(&format!("{at}.{key}"), "must be a string")),
    }
}

fn required_text(
    loaded: &LoadedConfig,
    value: &Value,
    key: &str,
    at: &str,
    what: &str,
) -> Result<String> {
    let found = text(loaded, value, key, at)?;
    if found.is_empty() {
        return Err(loaded.field_error(&format!("{at}.{key}"), format!("is required: {what}")));
    }
    Ok(found)
}

fn strings(loaded: &LoadedConfig, value: &Value, key: &str, at: &str) -> Result<Vec<String>> {
    let field = format!("{at}.{key}");
    list(loaded, value.get(key), &field)?
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            _ => Err(loaded.field_error(&format!("{field}.{i}"), "must be a non-empty string")),
        })
        .collect()
}

fn vcenter(loaded: &LoadedConfig, value: &Value, at: &str) -> Result<VCenter> {
    check_keys(
        loaded,
        value,
        at,
        &["server", "port", "user", "password", "datacenters"],
    )?;
    let server = required_text(loaded, value, "server", at, "the vCenter's host name")?;
    let port = match value.get("port") {
        None | Some(Value::Null) => 0,
        Some(v) => v
            .as_u64()
            .and_then(|p| u16::try_from(p).ok())
            .filter(|p| *p > 0)
            .ok_or_else(|| {
                loaded.field_error(&format!("{at}.port"), "must be a port number, 1 to 65535")
            })?,
    };
    let user = required_text(
        loaded,
        value,
        "user",
        at,
        "the user the cluster signs in as",
    )?;
    // The password is read, never echoed: a message says only that it is missing.
    let password = required_text(loaded, value, "password", at, "that user's password")?;
    let datacenters = strings(loaded, value, "datacenters", at)?;
    if datacenters.is_empty() {
        return Err(loaded.field_error(
            &format!("{at}.datacenters"),
            "is required: the datacenters the cluster uses in this vCenter",
        ));
    }
    Ok(VCenter {
        server,
        port,
        user,
        password,
        datacenters,
    })
}

fn failure_domain(
    loaded: &LoadedConfig,
    value: &Value,
    at: &str,
    vcenters: &[VCenter],
    warnings: &mut Vec<Warning>,
) -> Result<FailureDomain> {
    check_keys(
        loaded,
        value,
        at,
        &["name", "region", "zone", "server", "topology"],
    )?;
    let name = required_text(loaded, value, "name", at, "the failure domain's name")?;
    let region = required_text(
        loaded,
        value,
        "region",
        at,
        "the region tag of the failure domain",
    )?;
    let zone = required_text(
        loaded,
        value,
        "zone",
        at,
        "the zone tag of the failure domain",
    )?;
    let server = required_text(loaded, value, "server", at, "one of vcenters[].server")?;
    if !vcenters.iter().any(|v| v.server == server) {
        return Err(loaded.field_error(
            &format!("{at}.server"),
            format!("`{server}` is not one of the vcenters' servers"),
        ));
    }
    let at_topology = format!("{at}.topology");
    let empty = Value::Null;
    let topology = value.get("topology").unwrap_or(&empty);
    check_keys(
        loaded,
        topology,
        &at_topology,
        &[
            "datacenter",
            "computeCluster",
            "networks",
            "datastore",
            "resourcePool",
            "folder",
            "template",
        ],
    )?;
    let datacenter = required_text(
        loaded,
        topology,
        "datacenter",
        &at_topology,
        "the datacenter",
    )?;
    let compute_cluster = required_text(
        loaded,
        topology,
        "computeCluster",
        &at_topology,
        "the compute cluster's path, /<datacenter>/host/<cluster>",
    )?;
    let compute_cluster = joined(
        loaded,
        warnings,
        compute_cluster,
        &at_topology,
        "computeCluster",
        &datacenter,
        "host",
    );
    check_path(
        loaded,
        &compute_cluster,
        &format!("{at_topology}.computeCluster"),
        &datacenter,
        "host",
        "compute cluster",
    )?;
    let networks = strings(loaded, topology, "networks", &at_topology)?;
    if networks.is_empty() {
        return Err(loaded.field_error(
            &format!("{at_topology}.networks"),
            "is required: the port group of the machines' network",
        ));
    }
    let datastore = required_text(
        loaded,
        topology,
        "datastore",
        &at_topology,
        "the datastore's path, /<datacenter>/datastore/<datastore>",
    )?;
    let datastore = joined(
        loaded,
        warnings,
        datastore,
        &at_topology,
        "datastore",
        &datacenter,
        "datastore",
    );
    check_path(
        loaded,
        &datastore,
        &format!("{at_topology}.datastore"),
        &datacenter,
        "datastore",
        "datastore",
    )?;
    let folder = text(loaded, topology, "folder", &at_topology)?;
    let folder = joined(
        loaded,
        warnings,
        folder,
        &at_topology,
        "folder",
        &datacenter,
        "vm",
    );
    if !folder.is_empty() {
        check_path(
            loaded,
            &folder,
            &format!("{at_topology}.folder"),
            &datacenter,
            "vm",
            "folder",
        )?;
    }
    let resource_pool = text(loaded, topology, "resourcePool", &at_topology)?;
    if !resource_pool.is_empty() {
        check_resource_pool(
            loaded,
            &resource_pool,
            &format!("{at_topology}.resourcePool"),
            &datacenter,
            &compute_cluster,
        )?;
    }
    let template = text(loaded, topology, "template", &at_topology)?;
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
            template,
        },
    })
}

fn check_keys(loaded: &LoadedConfig, value: &Value, at: &str, known: &[&str]) -> Result<()> {
    match value {
        Value::Null => Ok(()),
        Value::Object(map) => match map.keys().find(|k| !known.contains(&k.as_str())) {
            Some(key) => Err(loaded.field_error(
                &format!("{at}.{key}"),
                format!("unknown key; bootgen reads {}", known.join(", ")),
            )),
            None => Ok(()),
        },
        _ => Err(loaded.field_error(at, "must be a map")),
    }
}

fn addresses(loaded: &LoadedConfig, value: Option<&Value>, field: &str) -> Result<Vec<String>> {
    list(loaded, value, field)?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.as_str()
                .and_then(|s| s.trim().parse::<IpAddr>().ok())
                .map(|ip| ip.to_string())
                .ok_or_else(|| loaded.field_error(&format!("{field}.{i}"), "must be an IP address"))
        })
        .collect()
}
