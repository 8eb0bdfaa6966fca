//! `platform: vsphere`: the vCenters and failure domains of the install-config, read and checked
//! as the installer checks them, and the VIPs, checked against the machine networks.
//!
//! bootgen reads the form of 4.13 on (`vcenters` and `failureDomains`), and the older
//! single-vCenter fields as the installers of 4.13 on read them: as one vCenter and one failure
//! domain named `generated-failure-domain`.

use serde::Serialize;

mod form;
mod legacy;
mod paths;
mod pool_checks;
#[cfg(test)]
mod pool_tests;
mod pool_values;
mod pools;
mod read;
#[cfg(test)]
mod read_tests;
mod rules;
mod stated_defaults;
mod stored;
mod written;

pub(crate) use form::{check_form, clean_paths, ignore_unknown_template};
pub(crate) use legacy::deprecation_warning;
pub(crate) use paths::cleaned as cleaned_path;
pub(crate) use pools::{later_pool_fields, machine_pools};
pub use pools::{DataDisk, VSphereMachinePool, VSphereMachinePools};
pub(crate) use read::settings;
pub(crate) use rules::{
    check_architectures, check_failure_domains, check_legacy_paths, check_legacy_placement,
    check_multiples, check_vcenter_servers, settle_vips,
};
pub(crate) use stated_defaults::settle_stated_defaults;
pub(crate) use stored::{store, store_pools};

/// Where the keys below live, for messages.
const AT: &str = "platform.vsphere";

/// The keys bootgen reads under `platform.vsphere` (`written::Written`'s fields, with the
/// single-vCenter ones below).
const KNOWN_KEYS: &[&str] = &[
    "vcenters",
    "failureDomains",
    "apiVIPs",
    "ingressVIPs",
    "defaultMachinePlatform",
    "diskType",
    "clusterOSImage",
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
/// credentials Secret and `metadata.json`, never into a message (nor its `Debug`).
#[derive(Clone, PartialEq, Eq, Serialize)]
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

impl std::fmt::Debug for VCenter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VCenter")
            .field("server", &self.server)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("password", &"<redacted>")
            .field("datacenters", &self.datacenters)
            .finish()
    }
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
    /// `regionType` as written; `""` when left out (the default, Datacenter). Only the
    /// defaults are taken (`stated_defaults.rs`).
    pub region_type: String,
    /// `zoneType` as written; `""` when left out (the default, ComputeCluster).
    pub zone_type: String,
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
    /// `loadBalancer.type` as written (`None`: no `loadBalancer`). Only the default,
    /// OpenShiftManagedDefault, is taken (`stated_defaults.rs`); the installer records a stated
    /// one in the Infrastructure's status.
    pub load_balancer: Option<String>,
    /// Each pool's machines (size, disks, failure domains), merged with
    /// `defaultMachinePlatform` and the installer's defaults once the release is known.
    pub machine_pools: VSphereMachinePools,
    /// `clusterOSImage` was given: the machines boot an image of the user's choosing.
    pub cluster_os_image_named: bool,
}

impl VSpherePlatform {
    /// Whether the cluster keeps its API and ingress addresses itself (keepalived on the nodes).
    pub fn has_vips(&self) -> bool {
        !self.api_vips.is_empty()
    }

    /// Whether the user names the image the machines boot (`clusterOSImage`, or a failure
    /// domain's `topology.template`), so that no operator should swap it for the release's.
    pub fn boot_image_named(&self) -> bool {
        self.cluster_os_image_named
            || self
                .failure_domains
                .iter()
                .any(|fd| !fd.topology.template.is_empty())
    }
}
