//! `platform.vsphere` as the install-config writes it, in serde types: the `vcenters` form and
//! the single-vCenter fields of older installers side by side, each value of the right shape
//! (what each must be is said in its error), nothing checked or defaulted yet.

use super::super::section::{string, written, List, Object, Text};
use serde::{Deserialize, Deserializer};

/// `platform.vsphere`. A field written, even empty, is `Some`: the single-vCenter fields are
/// upconverted only where the `vcenters` form is not written at all.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Written {
    #[serde(default, deserialize_with = "written")]
    pub vcenters: Option<List<Object<WrittenVCenter>>>,
    #[serde(default, deserialize_with = "written")]
    pub failure_domains: Option<List<Object<WrittenFailureDomain>>>,
    #[serde(default, rename = "apiVIPs", deserialize_with = "written")]
    pub api_vips: Option<List<Vip>>,
    #[serde(default, rename = "ingressVIPs", deserialize_with = "written")]
    pub ingress_vips: Option<List<Vip>>,
    #[serde(default, rename = "loadBalancer", deserialize_with = "written")]
    pub load_balancer: Option<Object<WrittenLoadBalancer>>,
    /// The pools' defaults, read with the pools' own settings (`pools.rs`).
    #[serde(default, rename = "defaultMachinePlatform")]
    _default_machine_platform: Option<ReadWithPools>,
    // Settings of the VMs openshift-install makes itself, which bootgen checks and ignores.
    #[serde(default, rename = "diskType", deserialize_with = "written")]
    pub disk_type: Option<Text>,
    #[serde(default, rename = "clusterOSImage", deserialize_with = "written")]
    pub cluster_os_image: Option<Text>,
    // The single-vCenter fields (not flattened: serde would then pass over unknown keys).
    #[serde(default, rename = "vCenter", deserialize_with = "written")]
    pub v_center: Option<Text>,
    #[serde(default, deserialize_with = "written")]
    pub username: Option<Text>,
    #[serde(default, deserialize_with = "written")]
    pub password: Option<Text>,
    #[serde(default, deserialize_with = "written")]
    pub datacenter: Option<Text>,
    #[serde(default, rename = "defaultDatastore", deserialize_with = "written")]
    pub default_datastore: Option<Text>,
    #[serde(default, deserialize_with = "written")]
    pub cluster: Option<Text>,
    #[serde(default, deserialize_with = "written")]
    pub network: Option<Text>,
    #[serde(default, deserialize_with = "written")]
    pub folder: Option<Text>,
    #[serde(default, rename = "resourcePool", deserialize_with = "written")]
    pub resource_pool: Option<Text>,
    #[serde(default, rename = "apiVIP", deserialize_with = "written")]
    pub api_vip: Option<Text>,
    #[serde(default, rename = "ingressVIP", deserialize_with = "written")]
    pub ingress_vip: Option<Text>,
}

impl Written {
    /// The single-vCenter field of the install-config key `key` (one of `LEGACY_KEYS`).
    pub fn field(&self, key: &str) -> Option<&Text> {
        match key {
            "vCenter" => self.v_center.as_ref(),
            "username" => self.username.as_ref(),
            "password" => self.password.as_ref(),
            "datacenter" => self.datacenter.as_ref(),
            "defaultDatastore" => self.default_datastore.as_ref(),
            "cluster" => self.cluster.as_ref(),
            "network" => self.network.as_ref(),
            "folder" => self.folder.as_ref(),
            "resourcePool" => self.resource_pool.as_ref(),
            "apiVIP" => self.api_vip.as_ref(),
            "ingressVIP" => self.ingress_vip.as_ref(),
            _ => None,
        }
    }

    /// The single-vCenter field's text; `""` when not written.
    pub fn legacy_text(&self, key: &str) -> String {
        self.field(key).map(|t| t.0.clone()).unwrap_or_default()
    }
}

/// A vCenter (`vcenters[]`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(super) struct WrittenVCenter {
    pub server: Text,
    pub port: Port,
    pub user: Text,
    pub password: Text,
    pub datacenters: List<Name>,
}

/// A failure domain (`failureDomains[]`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct WrittenFailureDomain {
    pub name: Text,
    pub region: Text,
    pub zone: Text,
    pub server: Text,
    pub topology: Object<WrittenTopology>,
    pub region_type: Text,
    pub zone_type: Text,
}

/// `loadBalancer`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(super) struct WrittenLoadBalancer {
    #[serde(rename = "type")]
    pub kind: Text,
}

/// A failure domain's `topology`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct WrittenTopology {
    pub datacenter: Text,
    pub compute_cluster: Text,
    pub networks: List<Name>,
    pub datastore: Text,
    pub resource_pool: Text,
    pub folder: Text,
    pub template: Text,
}

/// A vCenter's port; 0 when null or left out.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Port(pub u16);

impl<'de> Deserialize<'de> for Port {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::Null => Ok(Port(0)),
            value => value
                .as_u64()
                .and_then(|p| u16::try_from(p).ok())
                .filter(|p| *p > 0)
                .map(Port)
                .ok_or_else(|| serde::de::Error::custom("must be a port number, 1 to 65535")),
        }
    }
}

/// An item of a list of names (datacenters, networks), as written; its emptiness is checked
/// where the list is read, so that an upconverted single-vCenter field is checked alike.
#[derive(Debug, Clone, Default)]
pub(super) struct Name(pub String);

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match string(deserializer, "must be a non-empty string")? {
            Some(name) => Ok(Name(name)),
            None => Err(serde::de::Error::custom("must be a non-empty string")),
        }
    }
}

/// A virtual IP as written; parsed where the list is read, for the same reason as [`Name`].
#[derive(Debug, Clone, Default)]
pub(super) struct Vip(pub String);

impl<'de> Deserialize<'de> for Vip {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match string(deserializer, "must be an IP address")? {
            Some(vip) => Ok(Vip(vip)),
            None => Err(serde::de::Error::custom("must be an IP address")),
        }
    }
}

/// A value read elsewhere: taken whole here, so that its keys are not unknown to this section.
#[derive(Debug, Default)]
pub(super) struct ReadWithPools;

impl<'de> Deserialize<'de> for ReadWithPools {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_json::Value::deserialize(deserializer).map(|_| ReadWithPools)
    }
}
