//! The vSphere platform as the cluster stores it (`cluster-config-v1`).

use super::{FailureDomain, VSpherePlatform};
use crate::release::{Switch, Switches};

/// A vSphere platform as the cluster stores it: each vCenter's server and datacenters only, with
/// an empty user and password (the credentials live in their Secret), and the DNS records
/// default the release's installer writes out.
pub(crate) fn store(
    vsphere: &mut serde_json::Map<String, serde_json::Value>,
    read: &VSpherePlatform,
    switches: &Switches,
) {
    use serde_json::{json, Value};
    // A setting the release's installer does not know (or a `null`) is not stored.
    if read.load_balancer.is_none() {
        vsphere.remove("loadBalancer");
    }
    if let Some(Value::Array(domains)) = vsphere.get_mut("failureDomains") {
        for (domain, fd) in domains.iter_mut().zip(&read.failure_domains) {
            if let Value::Object(domain) = domain {
                for (key, kind) in [("regionType", &fd.region_type), ("zoneType", &fd.zone_type)] {
                    if kind.is_empty() {
                        domain.remove(key);
                    }
                }
            }
        }
    }
    // The single-vCenter fields are stored as read: without their credentials, and with the
    // vCenter, failure domain and VIP lists they stand for written out beside them.
    let single_vcenter_objects =
        read.single_vcenter_datastore.is_some() && !switches.has(Switch::VsphereFailureDomains);
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
            if switches.has(Switch::VsphereVipLists)
                && !vips.is_empty()
                && !vsphere.contains_key(key)
            {
                vsphere.insert(key.into(), json!(vips));
            }
            // A pair the release put IPv4 first is stored so, as written otherwise.
            if let Some(Value::Array(written)) = vsphere.get_mut(key) {
                let in_read_order = |a: &Value, b: &Value| {
                    a.as_str()
                        .and_then(|a| a.trim().parse::<std::net::IpAddr>().ok())
                        == vips.first().and_then(|v| v.parse().ok())
                        && b.as_str()
                            .and_then(|b| b.trim().parse::<std::net::IpAddr>().ok())
                            == vips.get(1).and_then(|v| v.parse().ok())
                };
                if let [a, b] = written.as_mut_slice() {
                    if !in_read_order(a, b) && in_read_order(b, a) {
                        std::mem::swap(a, b);
                    }
                }
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
                // Paths the release's installer cleans are stored cleaned.
                if switches.has(Switch::VspherePathsCleaned) {
                    for (key, path) in [
                        ("resourcePool", &fd.topology.resource_pool),
                        ("template", &fd.topology.template),
                    ] {
                        if topology.contains_key(key) {
                            topology.insert(key.into(), json!(path));
                        }
                    }
                }
                // A field the release's installer does not know is not stored.
                if !switches.has(Switch::VsphereTemplate) {
                    topology.remove("template");
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
                let separator = if switches.has(Switch::VsphereResourcePoolDoubleSlash) {
                    "//"
                } else {
                    "/"
                };
                topology["resourcePool"] = json!(format!("{cluster}{separator}Resources"));
            }
        }
    }
    if switches.has(Switch::VsphereDnsRecordsTypeDefault) && !vsphere.contains_key("dnsRecordsType")
    {
        vsphere.insert("dnsRecordsType".into(), json!("Internal"));
    }
}

/// Every pool's `platform.vsphere` (and `defaultMachinePlatform`) as the installer stores it:
/// its Go type written out, zero values included, the fields the release does not have dropped;
/// a pool's missing zones are its failure domains' names, as the installer's check of the pool
/// (not of the default platform) fills them in.
pub(crate) fn store_pools(
    stored: &mut crate::config::InstallConfig,
    read: &VSpherePlatform,
    switches: &Switches,
) {
    let names: Vec<&str> = read
        .failure_domains
        .iter()
        .map(|fd| fd.name.as_str())
        .collect();
    let fill = switches
        .has(Switch::VsphereFailureDomains)
        .then_some(&names[..]);
    let pools = stored
        .control_plane
        .iter_mut()
        .chain(stored.compute.iter_mut())
        .filter_map(|pool| pool.platform.as_mut())
        .filter_map(|platform| platform.get_mut("vsphere"));
    for pool in pools {
        store_pool(pool, switches, fill);
    }
    if let Some(defaults) = stored
        .platform
        .as_mut()
        .and_then(|p| p.get_mut("vsphere"))
        .and_then(|v| v.get_mut("defaultMachinePlatform"))
    {
        store_pool(defaults, switches, None);
    }
}

fn store_pool(pool: &mut serde_json::Value, switches: &Switches, zones: Option<&[&str]>) {
    use serde_json::{json, Value};
    let Value::Object(map) = pool else {
        return;
    };
    for (key, feature) in [
        ("zones", Switch::VspherePoolZones),
        ("dataDisks", Switch::VspherePoolDataDisks),
    ] {
        if !switches.has(feature) {
            map.remove(key);
        }
    }
    for key in ["cpus", "coresPerSocket", "memoryMB"] {
        if map.get(key).is_none_or(Value::is_null) {
            map.insert(key.into(), json!(0));
        }
    }
    let disk = map
        .get("osDisk")
        .and_then(|d| d.get("diskSizeGB"))
        .cloned()
        .filter(|v| !v.is_null())
        .unwrap_or(json!(0));
    map.insert("osDisk".into(), json!({ "diskSizeGB": disk }));
    let empty = |v: Option<&Value>| v.is_none_or(|v| v.as_array().is_none_or(Vec::is_empty));
    if empty(map.get("zones")) {
        match zones {
            Some(names) if switches.has(Switch::VspherePoolZones) && !names.is_empty() => {
                map.insert("zones".into(), json!(names));
            }
            _ => {
                map.remove("zones");
            }
        }
    }
    if switches.has(Switch::VspherePoolDataDisks) && empty(map.get("dataDisks")) {
        if switches.has(Switch::VspherePoolDataDisksStoredNull) {
            map.insert("dataDisks".into(), Value::Null);
        } else {
            map.remove("dataDisks");
        }
    }
}

/// A failure domain as the install-config writes it.
fn installer_failure_domain(fd: &FailureDomain) -> serde_json::Value {
    let t = &fd.topology;
    // A failure domain made from single-vCenter fields without `network` holds that empty
    // network, as the installer's conversion makes it.
    let networks = if t.networks.is_empty() {
        vec![String::new()]
    } else {
        t.networks.clone()
    };
    let mut topology = serde_json::json!({
        "datacenter": t.datacenter,
        "networks": networks,
        "datastore": t.datastore,
    });
    for (key, value) in [
        ("computeCluster", &t.compute_cluster),
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
