//! vSphere machine-pool settings (`platform.vsphere` of `controlPlane` and each `compute` pool,
//! and `platform.vsphere.defaultMachinePlatform`), read with the fields the release's installer
//! has and merged as it merges them: its defaults, then the default machine platform's non-zero
//! values, then the pool's own.

use super::pool_checks::check_pool;
use super::pool_values::{PoolFields, Written};
use super::VSpherePlatform;
use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::model::unknown_fields::{ignored_by_release, NotInRelease};
use crate::release::{Profile, Switch, Switches};
use serde::Serialize;
use serde_json::Value;

/// Where the default machine platform lives.
const DEFAULTS_AT: &str = "platform.vsphere.defaultMachinePlatform";

/// The keys of a vSphere pool, and the switch saying which releases' installers have each
/// (`None`: every release's).
const POOL_KEYS: &[(&str, Option<Switch>)] = &[
    ("cpus", None),
    ("coresPerSocket", None),
    ("memoryMB", None),
    ("osDisk", None),
    ("zones", Some(Switch::VspherePoolZones)),
    ("dataDisks", Some(Switch::VspherePoolDataDisks)),
];

/// A disk a vSphere machine has besides its OS disk (`dataDisks[]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DataDisk {
    /// Its name, unique in the machine.
    pub name: String,
    /// Its size in GiB.
    pub size_gib: u32,
    /// `Thin`, `Thick` or `EagerlyZeroed`; `""`: the datastore's default.
    pub provisioning_mode: String,
}

/// The machines of one vSphere pool: their size, disks and failure domains, merged.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct VSphereMachinePool {
    /// vCPUs.
    pub cpus: u32,
    /// Cores per socket.
    pub cores_per_socket: u32,
    /// Memory in MiB.
    pub memory_mib: u64,
    /// The OS disk in GiB.
    pub disk_gib: u32,
    /// The failure domains (by name) the pool's machines go to, in turn; empty: every failure
    /// domain, in the install-config's order.
    pub zones: Vec<String>,
    /// Disks besides the OS disk.
    pub data_disks: Vec<DataDisk>,
}

/// Every pool's vSphere machines: the control plane's, and each compute pool's in the model's
/// order (the installer's default pool included).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct VSphereMachinePools {
    /// The control plane's.
    pub control_plane: VSphereMachinePool,
    /// Each compute pool's.
    pub compute: Vec<VSphereMachinePool>,
}

/// Reads, checks and merges every pool's vSphere settings. `compute_pools` is the number of
/// compute pools the model has (one, the installer's default, when none is written).
pub(crate) fn machine_pools(
    loaded: &LoadedConfig,
    vsphere: &VSpherePlatform,
    compute_pools: usize,
    profile: &Profile,
    switches: &Switches,
    warnings: &mut Vec<Warning>,
) -> Result<VSphereMachinePools> {
    let ic = &loaded.config;
    let defaults_value = ic
        .platform
        .as_ref()
        .and_then(|p| p.get("vsphere"))
        .and_then(|v| v.get("defaultMachinePlatform"));
    let release = Release {
        profile,
        switches,
        vsphere,
    };
    let defaults = read(loaded, defaults_value, DEFAULTS_AT, &release, warnings)?;
    let pool_value = |pool: Option<&crate::config::MachinePool>| {
        pool.and_then(|p| p.platform.as_ref())
            .and_then(|p| p.get("vsphere"))
            .cloned()
    };
    let control_plane = read(
        loaded,
        pool_value(ic.control_plane.as_ref()).as_ref(),
        "controlPlane.platform.vsphere",
        &release,
        warnings,
    )?;
    let mut compute = Vec::new();
    for i in 0..compute_pools {
        let written = read(
            loaded,
            pool_value(ic.compute.get(i)).as_ref(),
            &format!("compute.{i}.platform.vsphere"),
            &release,
            warnings,
        )?;
        let base = if switches.has(Switch::VsphereComputeSizeOfControlPlane) {
            DEFAULT
        } else {
            SMALL_COMPUTE
        };
        compute.push(merge(base, &defaults, &with_zones(written, &release)));
    }
    Ok(VSphereMachinePools {
        control_plane: merge(DEFAULT, &defaults, &with_zones(control_plane, &release)),
        compute,
    })
}

/// A pool that writes `platform.vsphere` without zones, with every failure domain's name as its
/// zones: the installer's check of the pool fills them in before the pool is merged, so its
/// machines go to every failure domain even where `defaultMachinePlatform` names zones.
fn with_zones(mut pool: Written, release: &Release<'_>) -> Written {
    if pool.present && pool.zones.is_empty() && release.switches.has(Switch::VsphereFailureDomains)
    {
        pool.zones = (release.vsphere.failure_domains.iter())
            .map(|fd| fd.name.clone())
            .collect();
    }
    pool
}

/// The release a pool is read for.
struct Release<'a> {
    profile: &'a Profile,
    switches: &'a Switches,
    vsphere: &'a VSpherePlatform,
}

/// The installer's size for control-plane machines, and compute machines from 4.11: 4 vCPUs on
/// one socket, 16 GiB, 120 GiB.
const DEFAULT: (u32, u32, u64, u32) = (4, 4, 16384, 120);

/// Compute machines before 4.11: 2 vCPUs on one socket, 8 GiB, 120 GiB.
const SMALL_COMPUTE: (u32, u32, u64, u32) = (2, 2, 8192, 120);

/// `base`, then the default machine platform's non-zero values, then the pool's.
fn merge(base: (u32, u32, u64, u32), defaults: &Written, pool: &Written) -> VSphereMachinePool {
    let pick = |own: i64, default: i64, base: u64| -> u64 {
        [own, default]
            .into_iter()
            .find(|v| *v > 0)
            .map_or(base, |v| v as u64)
    };
    let small = |own: i64, default: i64, base: u32| -> u32 {
        u32::try_from(pick(own, default, u64::from(base))).unwrap_or(base)
    };
    let (cpus, cores, memory, disk) = base;
    let zones = if pool.zones.is_empty() {
        &defaults.zones
    } else {
        &pool.zones
    };
    let disks = if pool.data_disks.is_empty() {
        &defaults.data_disks
    } else {
        &pool.data_disks
    };
    VSphereMachinePool {
        cpus: small(pool.cpus, defaults.cpus, cpus),
        cores_per_socket: small(pool.cores_per_socket, defaults.cores_per_socket, cores),
        memory_mib: pick(pool.memory_mib, defaults.memory_mib, memory),
        disk_gib: small(pool.disk_gib, defaults.disk_gib, disk),
        zones: zones.clone(),
        data_disks: disks
            .iter()
            .map(|d| DataDisk {
                name: d.name.clone(),
                size_gib: u32::try_from(d.size_gib).unwrap_or(0),
                provisioning_mode: d.provisioning_mode.clone(),
            })
            .collect(),
    }
}

/// One pool's settings at `at`, checked; the fields its release's installer does not have
/// refused or ignored as that installer does.
fn read(
    loaded: &LoadedConfig,
    value: Option<&Value>,
    at: &str,
    release: &Release<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Written> {
    let map = match value {
        None | Some(Value::Null) => return Ok(Written::default()),
        Some(Value::Object(map)) => map,
        Some(_) => return Err(loaded.field_error(at, "must be a map")),
    };
    let names: Vec<&str> = POOL_KEYS.iter().map(|(k, _)| *k).collect();
    // The keys the release's installer has, read with their types; the others refused or
    // ignored as that installer does, in the order written.
    let mut known = map.clone();
    for key in map.keys() {
        let Some((_, arrived)) = POOL_KEYS.iter().find(|(k, _)| k == key) else {
            return Err(loaded.field_error(
                &format!("{at}.{key}"),
                format!("unknown key; a vSphere pool takes {}", names.join(", ")),
            ));
        };
        if let Some(switch) = arrived {
            if !release.switches.has(*switch) {
                refuse_or_ignore(loaded, &format!("{at}.{key}"), *switch, release, warnings)?;
                known.remove(key);
            }
        }
    }
    let written = PoolFields::read(loaded, at, &Value::Object(known))?.written(loaded, at)?;
    if !written.zones.is_empty() && !release.switches.has(Switch::VsphereFailureDomains) {
        return Err(loaded.field_error(
            &format!("{at}.zones"),
            format!(
                "names failure domains, which the OpenShift {} installer takes only with \
                 TechPreviewNoUpgrade{}; remove it",
                release.profile.minor,
                crate::release::first_with(Switch::VsphereFailureDomains)
                    .map_or_else(String::new, |minor| format!(" (they arrived in {minor})"))
            ),
        ));
    }
    check_pool(
        loaded,
        &written,
        at,
        release.vsphere,
        release.switches.has(Switch::VspherePoolCoresRule),
        release.switches.has(Switch::VspherePoolZonesOnce),
    )?;
    Ok(written)
}

/// A field the release's installer does not have: refused where it refuses unknown fields
/// (`refuse_first_unknown` has normally done so already), else ignored with a warning.
fn refuse_or_ignore(
    loaded: &LoadedConfig,
    field: &str,
    switch: Switch,
    release: &Release<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    let arrived = crate::release::first_with(switch);
    if release.switches.has(Switch::UnknownFieldsRefused) {
        return Err(loaded.field_error(
            field,
            format!(
                "the OpenShift {} installer does not know this field{} and refuses an \
                 install-config that has it; remove it",
                release.profile.minor,
                super::super::unknown_fields::arrived_text(arrived)
            ),
        ));
    }
    ignored_by_release(
        loaded,
        release.profile.minor,
        &NotInRelease {
            field,
            arrived,
            consequence: ", so the pool's machines do not get it",
        },
        warnings,
    );
    Ok(())
}

/// The pool fields the install-config writes that its release's installer does not have, with
/// the switch that says which releases have them (for `refuse_first_unknown`).
pub(crate) fn later_pool_fields(
    loaded: &LoadedConfig,
    switches: &Switches,
) -> Vec<(String, Switch)> {
    let ic = &loaded.config;
    let mut places = vec![(DEFAULTS_AT.to_string(), {
        ic.platform
            .as_ref()
            .and_then(|p| p.get("vsphere"))
            .and_then(|v| v.get("defaultMachinePlatform"))
            .cloned()
    })];
    let pool = |p: &crate::config::MachinePool| {
        p.platform.as_ref().and_then(|p| p.get("vsphere")).cloned()
    };
    places.push((
        "controlPlane.platform.vsphere".into(),
        ic.control_plane.as_ref().and_then(pool),
    ));
    for (i, p) in ic.compute.iter().enumerate() {
        places.push((format!("compute.{i}.platform.vsphere"), pool(p)));
    }
    let mut unknown = Vec::new();
    for (at, value) in places {
        let Some(Value::Object(map)) = value else {
            continue;
        };
        for (key, arrived) in POOL_KEYS {
            if let (true, Some(switch)) = (map.contains_key(*key), arrived) {
                if !switches.has(*switch) {
                    unknown.push((format!("{at}.{key}"), *switch));
                }
            }
        }
    }
    unknown
}
