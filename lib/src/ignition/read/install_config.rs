//! The install-config a bootstrap config stores for the cluster (`cluster-config.yaml`), and
//! what the readers ask of it.

use super::entries::file_text;
use crate::ignition::IgnitionDoc;

/// Where the cluster's install-config is stored in a bootstrap config.
pub const CLUSTER_CONFIG: &str = "/opt/openshift/manifests/cluster-config.yaml";

/// The install-config the cluster stores (`data.install-config` of [`CLUSTER_CONFIG`]); `None`
/// when the config has none or it does not parse.
pub fn stored_install_config(doc: &IgnitionDoc) -> Option<serde_yaml_ng::Value> {
    parse_stored(&file_text(doc, CLUSTER_CONFIG)?)
}

/// The install-config inside the text of a `cluster-config.yaml` manifest.
fn parse_stored(text: &str) -> Option<serde_yaml_ng::Value> {
    let manifest: serde_yaml_ng::Value = crate::config::depth::from_str(text).ok()?;
    let install_config = manifest.get("data")?.get("install-config")?.as_str()?;
    crate::config::depth::from_str(install_config).ok()
}

/// A vSphere platform as the stored install-config writes it, in either form: the `vcenters`
/// and `failureDomains` of 4.13 on, or the single-vCenter fields (`vCenter`, `apiVIP`, ...).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredVSphere {
    /// The vCenters' servers, in order (`vcenters[].server`, or `vCenter`).
    pub servers: Vec<String>,
    /// How many failure domains it lists (0 in the single-vCenter form).
    pub failure_domains: usize,
    /// The API VIPs (`apiVIPs`, or `apiVIP`).
    pub api_vips: Vec<String>,
    /// The ingress VIPs (`ingressVIPs`, or `ingressVIP`).
    pub ingress_vips: Vec<String>,
}

/// The vSphere platform of `settings` (the value of `platform.vsphere`).
pub fn stored_vsphere(settings: &serde_yaml_ng::Value) -> StoredVSphere {
    let text = |key: &str| {
        settings
            .get(key)
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    let list = |key: &str| -> Vec<&serde_yaml_ng::Value> {
        settings
            .get(key)
            .and_then(|v| v.as_sequence())
            .map(|items| items.iter().collect())
            .unwrap_or_default()
    };
    // A list, or else its single-vCenter field.
    let strings = |plural: &str, single: &str| -> Vec<String> {
        let listed: Vec<String> = list(plural)
            .into_iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        if listed.is_empty() {
            text(single).into_iter().collect()
        } else {
            listed
        }
    };
    let mut servers: Vec<String> = list("vcenters")
        .into_iter()
        .filter_map(|v| v.get("server")?.as_str().map(str::to_string))
        .chain(text("vCenter"))
        .collect();
    servers.dedup();
    StoredVSphere {
        servers,
        failure_domains: list("failureDomains").len(),
        api_vips: strings("apiVIPs", "apiVIP"),
        ingress_vips: strings("ingressVIPs", "ingressVIP"),
    }
}

/// The vCenters a vSphere cluster's stored install-config names, in its order; empty on any
/// other platform.
pub fn vcenter_servers(doc: &IgnitionDoc) -> Vec<String> {
    // Every generation's pre-flight asks; most configs are not vSphere's, so the two YAML
    // parses are skipped unless the text could hold one.
    file_text(doc, CLUSTER_CONFIG)
        .filter(|text| text.contains("vsphere"))
        .and_then(|text| parse_stored(&text))
        .and_then(|config| config.get("platform")?.get("vsphere").map(stored_vsphere))
        .map(|vsphere| vsphere.servers)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn read(yaml: &str) -> StoredVSphere {
        stored_vsphere(&serde_yaml_ng::from_str(yaml).unwrap())
    }

    #[test]
    fn both_forms_of_the_vsphere_platform_are_read() {
        let listed = read(
            "vcenters:\n- server: vc1.example.com\n- server: vc2.example.com\nfailureDomains:\n- name: a\n- name: b\napiVIPs: [10.0.0.5]\ningressVIPs: [10.0.0.6]\n",
        );
        assert_eq!(listed.servers, ["vc1.example.com", "vc2.example.com"]);
        assert_eq!(listed.failure_domains, 2);
        assert_eq!(listed.api_vips, ["10.0.0.5"]);
        assert_eq!(listed.ingress_vips, ["10.0.0.6"]);
        // The single-vCenter fields: one vCenter, no failure domains, one VIP of each kind.
        let single = read(
            "vCenter: vc.example.com\ndatacenter: dc1\napiVIP: 10.0.0.5\ningressVIP: 10.0.0.6\n",
        );
        assert_eq!(single.servers, ["vc.example.com"]);
        assert_eq!(single.failure_domains, 0);
        assert_eq!(single.api_vips, ["10.0.0.5"]);
        assert_eq!(single.ingress_vips, ["10.0.0.6"]);
        // A vCenter written both ways (4.12 stores the fields it upconverted beside the lists)
        // counts once.
        let both = read("vCenter: vc.example.com\nvcenters:\n- server: vc.example.com\n");
        assert_eq!(both.servers, ["vc.example.com"]);
        assert_eq!(read("{}"), StoredVSphere::default());
    }
}
