//! The dimensions a row of the release table can be limited to (flow, platform, distribution,
//! a switch or an opt-in), the install-config conditions of file rows, and the file and unit rows
//! themselves: what the table (`table.rs`), the profiles (`profile.rs`) and a node's profile
//! (`node_profile.rs`) all speak of. It imports none of them.

use super::switch::{Switch, Switches};
use serde::{Deserialize, Serialize};

/// How the cluster bootstraps: some stages and switches hold for only one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flow {
    /// A separate bootstrap machine that hands over to the control plane.
    #[default]
    Cluster,
    /// A single node that bootstraps from the live ISO and installs itself to disk.
    InPlace,
}

/// The install-config platform the node is made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Platform {
    /// `platform: none`: user-provisioned machines, no cloud integration.
    #[default]
    None,
    /// `platform: external`: infrastructure the installer does not know, integrated by its own
    /// cloud controller manager (OCI and others).
    External,
    /// `platform: vsphere`: VMs in vCenter, with the vSphere cloud provider and storage.
    #[serde(rename = "vsphere")]
    VSphere,
}

impl Platform {
    /// Every platform bootgen supports.
    pub const ALL: &'static [Platform] = &[Platform::None, Platform::External, Platform::VSphere];

    /// The install-config key, e.g. `none`.
    pub fn name(self) -> &'static str {
        match self {
            Platform::None => "none",
            Platform::External => "external",
            Platform::VSphere => "vsphere",
        }
    }

    /// The Infrastructure object's platform type, e.g. `None`.
    pub fn infrastructure_type(self) -> &'static str {
        match self {
            Platform::None => "None",
            Platform::External => "External",
            Platform::VSphere => "VSphere",
        }
    }

    /// Whether a machine pool on this platform takes settings of its own under the pool's
    /// `platform.<name>` (vSphere's zones, disks, CPUs and memory). Elsewhere a pool's
    /// `platform` may hold only `none: {}`, which says nothing.
    pub fn has_pool_settings(self) -> bool {
        match self {
            Platform::VSphere => true,
            Platform::None | Platform::External => false,
        }
    }

    /// The platform the install-config key `name` names, when bootgen supports it.
    pub fn from_name(name: &str) -> Option<Platform> {
        Platform::ALL.iter().copied().find(|p| p.name() == name)
    }
}

impl std::fmt::Display for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The OpenShift distribution the payload belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Distribution {
    /// OpenShift Container Platform (RHCOS payloads).
    #[default]
    Ocp,
    /// OKD, the community distribution (CentOS Stream CoreOS payloads, `quay.io/okd/scos-release`),
    /// as the installer built with the `scos` tag makes it.
    Okd,
}

impl Distribution {
    /// Every distribution bootgen knows.
    pub const ALL: &'static [Distribution] = &[Distribution::Ocp, Distribution::Okd];

    /// The name options and the table use, e.g. `okd`.
    pub fn name(self) -> &'static str {
        match self {
            Distribution::Ocp => "ocp",
            Distribution::Okd => "okd",
        }
    }

    /// What people call it: `OpenShift`, `OKD`.
    pub fn label(self) -> &'static str {
        match self {
            Distribution::Ocp => "OpenShift",
            Distribution::Okd => "OKD",
        }
    }

    /// The distribution `name` names (`ocp`, `okd`; any case).
    pub fn from_name(name: &str) -> Option<Distribution> {
        Distribution::ALL
            .iter()
            .copied()
            .find(|d| d.name().eq_ignore_ascii_case(name))
    }
}

impl std::str::FromStr for Distribution {
    type Err = String;

    fn from_str(text: &str) -> Result<Distribution, String> {
        Distribution::from_name(text).ok_or_else(|| {
            let names: Vec<&str> = Distribution::ALL.iter().map(|d| d.name()).collect();
            format!("`{text}` is not a distribution; use {}", names.join(" or "))
        })
    }
}

impl std::fmt::Display for Distribution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a node sits among the table's dimensions other than the release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct Dimensions {
    /// Bootstrap machine or single node.
    pub flow: Flow,
    /// The platform.
    pub platform: Platform,
    /// The distribution.
    pub distribution: Distribution,
}

/// What a file row needs of the install-config besides its release, flow and opt-ins: a typed
/// predicate that the assets step evaluates on the template context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Condition {
    /// An additional trust bundle is given.
    TrustBundle,
    /// An SSH key is given.
    SshKey,
    /// `fips: true`.
    Fips,
    /// The control-plane pool has hyperthreading `Disabled`.
    ControlPlaneHyperthreadingOff,
    /// The first compute pool (the installer's worker machine configs follow it) has
    /// hyperthreading `Disabled`.
    WorkerHyperthreadingOff,
    /// Dual stack: two service networks (an IPv4 and an IPv6 one).
    DualStack,
    /// A `featureSet` is set.
    FeatureSet,
    /// The platform writes a ControlPlaneMachineSet (`platform.vsphere.control_plane_machine_set`:
    /// a control plane of several machines, the machine manifests not left out).
    ControlPlaneMachineSet,
    /// `networking.ovnKubernetesConfig.ipv4.internalJoinSubnet` is set.
    OvnJoinSubnet,
    /// The platform's machines boot an image the user names (`platform.vsphere.boot_image_named`:
    /// `clusterOSImage` or a failure domain's `topology.template`).
    BootImageNamed,
}

/// A file row rendered once per item rather than once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Each {
    /// One file per ImageContentSourcePolicy of the context's `mirror_manifests` (none, one,
    /// or one per mirrored source), at the entry's path.
    ImageContentSourcePolicy,
    /// One file per ImageDigestMirrorSet of the context's `mirror_manifests`.
    ImageDigestMirrorSet,
    /// One file per control-plane Machine of the platform (`platform.vsphere`'s
    /// `control_plane_machines`), numbered from 0, with the item as `machine`.
    ControlPlaneMachine,
    /// One file per compute MachineSet of the platform, numbered from 0, with the item as
    /// `machine_set`.
    ComputeMachineSet,
}

impl Each {
    /// The Kubernetes kind of the items.
    pub fn kind(self) -> &'static str {
        match self {
            Each::ImageContentSourcePolicy => "ImageContentSourcePolicy",
            Each::ImageDigestMirrorSet => "ImageDigestMirrorSet",
            Each::ControlPlaneMachine => "Machine",
            Each::ComputeMachineSet => "MachineSet",
        }
    }
}

/// When a file is rendered relative to the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// With the other files.
    #[default]
    Normal,
    /// Once every manifest (the user's included) is known: it lists their objects.
    AfterManifests,
}

/// A file a node can get: one `[[file]]` row of the release table, resolved for a release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct NodeFile {
    /// Absolute path on the node.
    pub path: String,
    /// Permission bits.
    pub mode: u32,
    /// Appended to the OS's own file rather than replacing it.
    pub append: bool,
    /// The embedded template (a path under `templates/`).
    pub template: String,
    /// What it needs of the install-config; `None`: nothing.
    pub when: Option<Condition>,
    /// Rendered once per item; `None`: once.
    pub each: Option<Each>,
    /// When it is rendered.
    pub order: Order,
    #[serde(skip)]
    pub(crate) scope: Scope,
}

impl NodeFile {
    /// The path of item `index` of `count` when the items are numbered files (one
    /// ImageContentSourcePolicy per install-config entry, as installers before 4.14 write them): the row's path
    /// with `-<index>` before its extension, zero-padded to the digits of `count`.
    pub fn numbered_path(&self, index: usize, count: usize) -> String {
        let width = count.to_string().len();
        let (stem, extension) = self.path.rsplit_once('.').unwrap_or((&self.path, ""));
        format!("{stem}-{index:0width$}.{extension}")
    }
}

/// A unit a node can get: one `[[unit]]` row, resolved for a release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct NodeUnit {
    /// The unit name, e.g. `kubelet.service`.
    pub name: String,
    /// Enabled through Ignition's preset; otherwise left alone (pulled in by other units).
    pub enabled: bool,
    /// The template directory of the unit and its drop-ins (e.g. `units/kubelet.service`).
    pub template_dir: String,
    #[serde(skip)]
    pub(crate) scope: Scope,
}

/// The dimensions a row (or the overlay it belongs to) is limited to; `None`: every value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Scope {
    pub flow: Option<Flow>,
    pub platform: Option<Platform>,
    pub distribution: Option<Distribution>,
    pub switch: Option<Switch>,
    pub opt_in: Option<String>,
}

impl Scope {
    /// Whether a node at `dims`, with `switches` on and the opt-ins `chosen`, falls inside.
    pub fn admits(&self, dims: Dimensions, switches: &Switches, chosen: &[String]) -> bool {
        self.flow.is_none_or(|f| f == dims.flow)
            && self.platform.is_none_or(|p| p == dims.platform)
            && self.distribution.is_none_or(|d| d == dims.distribution)
            && self.switch.is_none_or(|f| switches.has(f))
            && self.opt_in.as_ref().is_none_or(|g| chosen.contains(g))
    }
}
