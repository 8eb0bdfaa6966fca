//! A vSphere pool's settings as written (a leaf: the reading, checking and merging modules all
//! use them), read with serde types: whole numbers, `osDisk`, `zones` and `dataDisks`, each
//! refused naming its field when it has the wrong shape.

use crate::config::LoadedConfig;
use crate::error::Result;
use crate::model::section::{self, string, List, Object, Shape};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// One pool's settings as written; 0 or empty where not written, as the installer's merging
/// passes over zero values.
#[derive(Debug, Clone, Default)]
pub(super) struct Written {
    /// The pool writes `platform.vsphere` (even `{}`).
    pub present: bool,
    pub cpus: i64,
    pub cores_per_socket: i64,
    pub memory_mib: i64,
    pub disk_gib: i64,
    pub zones: Vec<String>,
    pub data_disks: Vec<WrittenDisk>,
}

/// A data disk as written.
#[derive(Debug, Clone, Default)]
pub(super) struct WrittenDisk {
    pub name: String,
    pub size_gib: i64,
    pub provisioning_mode: String,
}

/// A pool's fields as written, in serde types: those its release's installer has (the caller
/// leaves the others out), each value of the right shape; the numbers' ranges are checked in
/// [`PoolFields::written`], where each field's path is known.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct PoolFields {
    cpus: Whole,
    cores_per_socket: Whole,
    #[serde(rename = "memoryMB")]
    memory_mb: Whole,
    os_disk: Object<OsDisk, OsDiskShape>,
    zones: List<Zone, ZonesShape>,
    data_disks: List<Object<Disk, DiskShape>, DisksShape>,
}

/// `osDisk`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct OsDisk {
    #[serde(rename = "diskSizeGB")]
    disk_size_gb: Whole,
}

/// A data disk (`dataDisks[]`).
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Disk {
    name: DiskText,
    #[serde(rename = "sizeGiB")]
    size_gib: Whole,
    provisioning_mode: DiskText,
}

/// The keys of `osDisk`, and of a data disk, as the types above read them.
const OS_DISK_KEYS: &[&str] = &["diskSizeGB"];
const DISK_KEYS: &[&str] = &["name", "sizeGiB", "provisioningMode"];

#[derive(Debug, Default)]
struct OsDiskShape;
impl Shape for OsDiskShape {
    const MUST: &'static str = "must be a map: `osDisk: {diskSizeGB: 120}`";
}
#[derive(Debug, Default)]
struct ZonesShape;
impl Shape for ZonesShape {
    const MUST: &'static str = "must be a list of failure domains' names";
}
#[derive(Debug, Default)]
struct DisksShape;
impl Shape for DisksShape {
    const MUST: &'static str = "must be a list of disks";
}
#[derive(Debug, Default)]
struct DiskShape;
impl Shape for DiskShape {
    const MUST: &'static str = "must be a map: name, sizeGiB";
}

/// A number as written: unset (null or left out), or a number, whole or not; anything else
/// "must be a whole number".
#[derive(Debug, Clone, Copy, Default)]
enum Whole {
    #[default]
    Unset,
    /// The number, when it is a whole number that fits in 64 bits.
    Number(Option<i64>),
}

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Null => Ok(Whole::Unset),
            Value::Number(n) => Ok(Whole::Number(n.as_i64())),
            _ => Err(serde::de::Error::custom("must be a whole number")),
        }
    }
}

/// A failure domain's name in `zones`.
#[derive(Debug, Default)]
struct Zone(String);

impl<'de> Deserialize<'de> for Zone {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        match string(deserializer, "must be a failure domain's name")? {
            Some(zone) => Ok(Zone(zone)),
            None => Err(serde::de::Error::custom("must be a failure domain's name")),
        }
    }
}

/// A data disk's string field, untrimmed; `""` when null or left out.
#[derive(Debug, Default)]
struct DiskText(String);

impl<'de> Deserialize<'de> for DiskText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        Ok(DiskText(
            string(deserializer, "must be a string")?.unwrap_or_default(),
        ))
    }
}

/// The number from 0 (unset) to `max`; negative numbers pass, for the pool's checks to refuse
/// with the installer's reason.
fn whole(loaded: &LoadedConfig, value: Whole, field: &str, max: i64) -> Result<i64> {
    match value {
        Whole::Unset => Ok(0),
        Whole::Number(n) => n.filter(|v| *v <= max && *v >= -max).ok_or_else(|| {
            loaded.field_error(field, format!("must be a whole number up to {max}"))
        }),
    }
}

impl PoolFields {
    /// Reads the pool at `at` from `value` (a map holding only the keys its release has).
    pub(super) fn read(loaded: &LoadedConfig, at: &str, value: &Value) -> Result<PoolFields> {
        section::read(loaded, at, value, |unknown| {
            let key = unknown.first().map_or("", String::as_str);
            let message = if key.starts_with("osDisk.") {
                format!("unknown key; osDisk takes {}", OS_DISK_KEYS.join(", "))
            } else {
                format!("unknown key; a data disk takes {}", DISK_KEYS.join(", "))
            };
            loaded.field_error(&format!("{at}.{key}"), message)
        })
    }

    /// The settings, each number in its range.
    pub(super) fn written(self, loaded: &LoadedConfig, at: &str) -> Result<Written> {
        let field = |key: &str| format!("{at}.{key}");
        let int = i64::from(i32::MAX);
        let data_disks = self
            .data_disks
            .0
            .into_iter()
            .enumerate()
            .map(|(i, disk)| {
                let Disk {
                    name,
                    size_gib,
                    provisioning_mode,
                } = disk.0;
                Ok(WrittenDisk {
                    name: name.0,
                    size_gib: whole(
                        loaded,
                        size_gib,
                        &field(&format!("dataDisks.{i}.sizeGiB")),
                        int,
                    )?,
                    provisioning_mode: provisioning_mode.0,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Written {
            present: true,
            cpus: whole(loaded, self.cpus, &field("cpus"), int)?,
            cores_per_socket: whole(loaded, self.cores_per_socket, &field("coresPerSocket"), int)?,
            memory_mib: whole(loaded, self.memory_mb, &field("memoryMB"), i64::MAX)?,
            disk_gib: whole(
                loaded,
                self.os_disk.0.disk_size_gb,
                &field("osDisk.diskSizeGB"),
                int,
            )?,
            zones: self.zones.0.into_iter().map(|Zone(z)| z).collect(),
            data_disks,
        })
    }
}
