//! The install-config a bootstrap config stores for the cluster (`cluster-config.yaml`), and
//! what the readers ask of it.

use super::entries::file_text;
use crate::ignition::IgnitionDoc;

/// Where the cluster's install-config is stored in a bootstrap config.
pub const CLUSTER_CONFIG: &str = "/opt/openshift/manifests/cluster-config.yaml";

/// The install-config the cluster stores (`data.install-config` of [`CLUSTER_CONFIG`]); `None`
/// when the config has none or it does not parse.
pub fn stored_install_config(doc: &IgnitionDoc) -> Option<serde_yaml_ng::Value> {
    let text = file_text(doc, CLUSTER_CONFIG)?;
    let manifest: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).ok()?;
    let install_config = manifest.get("data")?.get("install-config")?.as_str()?;
    serde_yaml_ng::from_str(install_config).ok()
}

/// The vCenters a vSphere cluster's stored install-config names (`vcenters[].server`, or the
/// single-vCenter `vCenter`), in its order; empty on any other platform.
pub fn vcenter_servers(doc: &IgnitionDoc) -> Vec<String> {
    let Some(config) = stored_install_config(doc) else {
        return Vec::new();
    };
    let Some(vsphere) = config.get("platform").and_then(|p| p.get("vsphere")) else {
        return Vec::new();
    };
    let mut servers: Vec<String> = vsphere
        .get("vcenters")
        .and_then(|v| v.as_sequence())
        .into_iter()
        .flatten()
        .filter_map(|v| v.get("server")?.as_str().map(str::to_string))
        .chain(
            vsphere
                .get("vCenter")
                .and_then(|v| v.as_str())
                .map(str::to_string),
        )
        .collect();
    servers.dedup();
    servers
}
