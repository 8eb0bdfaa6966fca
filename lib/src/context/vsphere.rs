//! The context's `platform.vsphere`: the install-config's vCenters and failure domains with the
//! installer's defaults resolved (folders, resource pools, template names), the machines the
//! machine API manifests describe, and their sizes.

use crate::model::{cleaned_path, DataDisk, FailureDomain, Model, VCenter, VSphereMachinePool};
use crate::release::Switch;
use serde::Serialize;

/// A machine's size and disks: its pool's settings merged with `defaultMachinePlatform` and
/// the installer's defaults.
#[derive(Debug, Clone, Serialize)]
pub struct MachineSize {
    /// vCPUs.
    pub cpus: u32,
    /// Cores per socket.
    pub cores_per_socket: u32,
    /// Memory in MiB.
    pub memory_mib: u64,
    /// The OS disk in GiB.
    pub disk_gib: u32,
    /// Disks besides the OS disk (written only when there are some, as the installer does).
    pub data_disks: Vec<DataDisk>,
}

impl MachineSize {
    fn of(pool: &VSphereMachinePool) -> MachineSize {
        MachineSize {
            cpus: pool.cpus,
            cores_per_socket: pool.cores_per_socket,
            memory_mib: pool.memory_mib,
            disk_gib: pool.disk_gib,
            data_disks: pool.data_disks.clone(),
        }
    }
}

/// A failure domain with what the installer derives for it.
#[derive(Debug, Clone, Serialize)]
pub struct FailureDomainContext {
    /// The failure domain as the install-config says it (its `topology` included).
    #[serde(flatten)]
    pub domain: FailureDomain,
    /// The VM folder: the install-config's, or `/<datacenter>/vm/<infraID>`.
    pub folder: String,
    /// The machines' VM folder: `folder`, with the default cleaned from 4.16 as that
    /// installer cleans it (`datacenter: /dc1` gives `/dc1/vm/<infraID>`; its INI keeps
    /// `//dc1/vm/<infraID>`).
    pub machine_folder: String,
    /// The resource pool: the install-config's, or the compute cluster's root pool; empty
    /// when it names no compute cluster (the Infrastructure and the INI then leave it out).
    pub resource_pool: String,
    /// The machines' resource pool: `resource_pool`, else the installer's join of an empty
    /// compute cluster with `Resources`.
    pub machine_resource_pool: String,
    /// The name of the RHCOS template machines are cloned from.
    pub template_name: String,
    /// Its inventory path, `/<datacenter>/vm/<template name>`.
    pub template_path: String,
}

/// A control-plane Machine.
#[derive(Debug, Clone, Serialize)]
pub struct MachineItem {
    /// `<infraID>-master-<index>`.
    pub name: String,
    /// The failure domain it is spread to.
    pub failure_domain: FailureDomainContext,
    /// Its size and disks.
    pub size: MachineSize,
}

/// A compute MachineSet.
#[derive(Debug, Clone, Serialize)]
pub struct MachineSetItem {
    /// `<infraID>-<pool>-<index>`.
    pub name: String,
    /// The pool's role (`worker`).
    pub role: String,
    /// Its share of the pool's replicas.
    pub replicas: u32,
    /// Its failure domain.
    pub failure_domain: FailureDomainContext,
    /// Its machines' size and disks.
    pub size: MachineSize,
}

/// The context's `platform.vsphere`.
#[derive(Debug, Clone, Serialize)]
pub struct VSphereContext {
    /// The vCenters, credentials included (for the credentials Secret only).
    pub vcenters: Vec<VCenter>,
    /// The failure domains, resolved.
    pub failure_domains: Vec<FailureDomainContext>,
    /// API VIPs (empty without).
    pub api_vips: Vec<String>,
    /// Ingress VIPs (empty without).
    pub ingress_vips: Vec<String>,
    /// Each VIP as a network of one address (`/32`, `/128`), API's first.
    pub vip_networks: Vec<String>,
    /// The load balancer type the install-config states (only the default,
    /// OpenShiftManagedDefault, is taken), recorded in the Infrastructure's status; `None` when
    /// not stated.
    pub load_balancer: Option<String>,
    /// The control-plane Machines, spread over the pool's zones (else every failure domain)
    /// in turn.
    pub control_plane_machines: Vec<MachineItem>,
    /// One compute MachineSet per zone of its pool (else per failure domain).
    pub compute_machine_sets: Vec<MachineSetItem>,
    /// The failure domains the control-plane machines are in, each once, in the machines'
    /// order (the ControlPlaneMachineSet's).
    pub control_plane_failure_domains: Vec<String>,
    /// The ControlPlaneMachineSet, when the release writes one: for a control plane of several
    /// machines (none with the machine manifests left out).
    pub control_plane_machine_set: bool,
    /// The platform was given in the single-vCenter fields to a release whose installer wrote
    /// its objects from them as they were (4.12): no failure domains in the Infrastructure
    /// object, the in-tree INI layout, one template and MachineSet for the cluster.
    pub single_vcenter_objects: bool,
    /// The control-plane machines' size and disks.
    pub control_plane_size: MachineSize,
    /// The machines boot an image the user names (`clusterOSImage` or a failure domain's
    /// template), which the machine-config operator is then told to leave alone.
    pub boot_image_named: bool,
}

/// The context's `platform.vsphere` for `model`; `None` on other platforms.
pub fn context(model: &Model, infra_id: &str) -> Option<VSphereContext> {
    let vsphere = model.platform.vsphere()?;
    let by_failure_domain_name = model.switches.has(Switch::VsphereTemplatePerFailureDomain);
    let double_slash = model.switches.has(Switch::VsphereResourcePoolDoubleSlash);
    let paths_cleaned = model.switches.has(Switch::VspherePathsCleaned);
    let single_vcenter_objects = vsphere.single_vcenter_datastore.is_some()
        && !model.switches.has(Switch::VsphereFailureDomains);
    let domains: Vec<FailureDomainContext> = vsphere
        .failure_domains
        .iter()
        .map(|fd| {
            let topology = &fd.topology;
            let template_name = if single_vcenter_objects {
                format!("{infra_id}-rhcos")
            } else if by_failure_domain_name {
                format!("{infra_id}-rhcos-{}", fd.name)
            } else {
                format!("{infra_id}-rhcos-{}-{}", fd.region, fd.zone)
            };
            let template_path = format!("/{}/vm/{template_name}", topology.datacenter);
            let resource_pool = match (
                non_empty(&topology.resource_pool),
                non_empty(&topology.compute_cluster),
            ) {
                (Some(pool), _) => pool,
                (None, Some(cluster)) => {
                    let separator = if double_slash { "//" } else { "/" };
                    format!("{cluster}{separator}Resources")
                }
                (None, None) => String::new(),
            };
            // Without a compute cluster the installer joins none: before 4.13 into
            // `/<datacenter>/host//Resources`, from 4.13 into `/Resources`.
            let machine_resource_pool = match (resource_pool.is_empty(), single_vcenter_objects) {
                (false, _) => resource_pool.clone(),
                (true, true) => format!("/{}/host//Resources", topology.datacenter),
                (true, false) => "/Resources".to_string(),
            };
            let mut domain = fd.clone();
            if let (true, Some(datastore)) =
                (single_vcenter_objects, &vsphere.single_vcenter_datastore)
            {
                domain.topology.datastore = datastore.clone();
            }
            let folder = non_empty(&topology.folder)
                .unwrap_or_else(|| format!("/{}/vm/{infra_id}", topology.datacenter));
            let machine_folder = if topology.folder.is_empty() && paths_cleaned {
                cleaned_path(&folder)
            } else {
                folder.clone()
            };
            FailureDomainContext {
                folder,
                machine_folder,
                resource_pool,
                machine_resource_pool,
                template_name: non_empty(&topology.template).unwrap_or(template_name),
                template_path: non_empty(&topology.template).unwrap_or(template_path),
                domain,
            }
        })
        .collect();
    let machines = !model.without_machine_manifests;
    let pools = &vsphere.machine_pools;
    // The failure domains a pool's machines go to in turn: its zones, else every domain's name.
    // The installer looks a name up in a map filled in order, so where a release takes a name
    // twice (before 4.16) the name is its last failure domain.
    let chosen = |zones: &[String]| -> Vec<FailureDomainContext> {
        let names: Vec<&String> = match zones.is_empty() {
            true => domains.iter().map(|d| &d.domain.name).collect(),
            false => zones.iter().collect(),
        };
        names
            .into_iter()
            .filter_map(|zone| {
                domains
                    .iter()
                    .rev()
                    .find(|d| d.domain.name == *zone)
                    .cloned()
            })
            .collect()
    };
    let control_plane_domains = chosen(&pools.control_plane.zones);
    let control_plane_size = MachineSize::of(&pools.control_plane);
    let control_plane_machines: Vec<MachineItem> = (0..model.control_plane.replicas as usize)
        .filter(|_| machines && !control_plane_domains.is_empty())
        .map(|i| MachineItem {
            name: format!("{infra_id}-master-{i}"),
            failure_domain: control_plane_domains[i % control_plane_domains.len()].clone(),
            size: control_plane_size.clone(),
        })
        .collect();
    let mut control_plane_failure_domains: Vec<String> = Vec::new();
    for machine in &control_plane_machines {
        let name = &machine.failure_domain.domain.name;
        if !control_plane_failure_domains.contains(name) {
            control_plane_failure_domains.push(name.clone());
        }
    }
    let mut compute_machine_sets = Vec::new();
    let default_pool = VSphereMachinePool::default();
    for (p, pool) in model.compute.iter().enumerate().filter(|_| machines) {
        let settings = pools.compute.get(p).unwrap_or(&default_pool);
        let pool_domains = chosen(&settings.zones);
        let count = pool_domains.len() as u32;
        for (i, domain) in pool_domains.into_iter().enumerate() {
            let i = i as u32;
            // The replicas split evenly, the first domains taking one more of the remainder.
            let replicas = pool.replicas / count + u32::from(i < pool.replicas % count);
            compute_machine_sets.push(MachineSetItem {
                name: if single_vcenter_objects {
                    format!("{infra_id}-{}", pool.name)
                } else {
                    format!("{infra_id}-{}-{i}", pool.name)
                },
                role: pool.name.clone(),
                replicas,
                failure_domain: domain,
                size: MachineSize::of(settings),
            });
        }
    }
    let vip_networks = vsphere
        .api_vips
        .iter()
        .chain(&vsphere.ingress_vips)
        .map(|vip| {
            let bits = if vip.contains(':') { 128 } else { 32 };
            format!("{vip}/{bits}")
        })
        .collect();
    Some(VSphereContext {
        vcenters: vsphere.vcenters.clone(),
        failure_domains: domains,
        api_vips: vsphere.api_vips.clone(),
        ingress_vips: vsphere.ingress_vips.clone(),
        vip_networks,
        load_balancer: vsphere.load_balancer.clone(),
        control_plane_machines,
        compute_machine_sets,
        single_vcenter_objects,
        control_plane_machine_set: machines
            && model.control_plane.replicas > 1
            && model.switches.has(Switch::VsphereControlPlaneMachineSet),
        control_plane_size,
        control_plane_failure_domains,
        boot_image_named: vsphere.boot_image_named(),
    })
}

fn non_empty(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_string())
}
