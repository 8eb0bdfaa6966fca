//! The vSphere platform as the cluster stores it (`cluster-config-v1`).

use super::{FailureDomain, VSpherePlatform};
use crate::release::{Feature, FeatureSet};

/// A vSphere platform as the cluster stores it: each vCenter's server and datacenters only, with
/// an empty user and password (the credentials live in their Secret), and the DNS records
/// default the release's installer writes out.
pub(crate) fn store(
    vsphere: &mut serde_json::Map<String, serde_json::Value>,
    read: &VSpherePlatform,
    features: &FeatureSet,
) {
    use serde_json::{json, Value};
    // The single-vCenter fields are stored as read: without their credentials, and with the
    // vCenter, failure domain and VIP lists they stand for written out beside them.
    let single_vcenter_objects =
        read.single_vcenter_datastore.is_some() && !features.has(Feature::VsphereFailureDomains);
    {
        // The 4.12 installer kept the single-vCenter fields as they were, credentials blanked;
        // later ones drop the credentials.
        if single_vcenter_objects {
            vsphere.insert("username".into(), json!(""));
            vsphere.insert("password".into(), json!(""));
        } else {
            vsphere.remove("username");
            vsphere.remove("password");
        }
        // Before 4.12 the installer knew one VIP of each kind, and stored only that.
        for (key, vips) in [
            ("apiVIPs", &read.api_vips),
            ("ingressVIPs", &read.ingress_vips),
        ] {
            if features.has(Feature::VsphereVipLists)
                && !vips.is_empty()
                && !vsphere.contains_key(key)
            {
                vsphere.insert(key.into(), json!(vips));
            }
        }
        if single_vcenter_objects {
            return;
        }
        if !vsphere.contains_key("vcenters") {
            vsphere.insert("vcenters".into(), json!(read.vcenters));
        }
        if !vsphere.contains_key("failureDomains") {
            let domains: Vec<Value> = read
                .failure_domains
                .iter()
                .map(installer_failure_domain)
                .collect();
            vsphere.insert("failureDomains".into(), json!(domains));
        }
    }
    // Names given where paths belong are stored as the paths they were read as.
    if let Some(Value::Array(domains)) = vsphere.get_mut("failureDomains") {
        for (domain, fd) in domains.iter_mut().zip(&read.failure_domains) {
            if let Some(Value::Object(topology)) = domain.get_mut("topology") {
                for (key, path) in [
                    ("computeCluster", &fd.topology.compute_cluster),
                    ("datastore", &fd.topology.datastore),
                    ("folder", &fd.topology.folder),
                ] {
                    if topology.contains_key(key) {
                        topology.insert(key.into(), json!(path));
                    }
                }
            }
        }
    }
    if let Some(Value::Array(vcenters)) = vsphere.get_mut("vcenters") {
        for vcenter in vcenters.iter_mut() {
            *vcenter = json!({
                "server": vcenter.get("server").cloned().unwrap_or(Value::Null),
                "user": "",
                "password": "",
                "datacenters": vcenter.get("datacenters").cloned().unwrap_or(json!([])),
            });
        }
    }
    // The installer stores each failure domain's resource pool with its default written out.
    if let Some(Value::Array(domains)) = vsphere.get_mut("failureDomains") {
        for topology in domains.iter_mut().filter_map(|d| d.get_mut("topology")) {
            let pool = topology
                .get("resourcePool")
                .and_then(Value::as_str)
                .unwrap_or("");
            let cluster = topology
                .get("computeCluster")
                .and_then(Value::as_str)
                .unwrap_or("");
            if pool.is_empty() && !cluster.is_empty() {
                let separator = if features.has(Feature::VsphereResourcePoolDoubleSlash) {
                    "//"
                } else {
                    "/"
                };
                topology["resourcePool"] = json!(format!("{cluster}{separator}Resources"));
            }
        }
    }
    if features.has(Feature::VsphereDnsRecordsTypeDefault)
        && !vsphere.contains_key("dnsRecordsType")
    {
        vsphere.insert("dnsRecordsType".into(), json!("Internal"));
    }
}

/// A failure domain as the install-config writes it.
fn installer_failure_domain(fd: &FailureDomain) -> serde_json::Value {
    let t = &fd.topology;
    let mut topology = serde_json::json!({
        "datacenter": t.datacenter,
        "computeCluster": t.compute_cluster,
        "networks": t.networks,
        "datastore": t.datastore,
    });
    for (key, value) in [
        ("resourcePool", &t.resource_pool),
        ("folder", &t.folder),
        ("template", &t.template),
    ] {
        if !value.is_empty() {
            topology[key] = serde_json::json!(value);
        }
    }
    serde_json::json!({
        "name": fd.name,
        "region": fd.region,
        "zone": fd.zone,
        "server": fd.server,
        "topology": topology,
    })
}
