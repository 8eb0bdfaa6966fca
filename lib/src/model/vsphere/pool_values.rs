//! A vSphere pool's settings as written (a leaf: the reading, checking and merging modules all
//! use them), and the values of its fields, read with the installer's types: whole numbers,
//! `osDisk`, `zones` and `dataDisks`, each refused naming its field when it has the wrong shape.

use crate::config::LoadedConfig;
use crate::error::Result;
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

/// A whole number from 0 (unset) to `max`; negative numbers pass, for the pool's checks to
/// refuse with the installer's reason.
pub(super) fn whole(loaded: &LoadedConfig, value: &Value, field: &str, max: i64) -> Result<i64> {
    match value {
        Value::Null => Ok(0),
        Value::Number(n) => n
            .as_i64()
            .filter(|v| *v <= max && *v >= -max)
            .ok_or_else(|| {
                loaded.field_error(field, format!("must be a whole number up to {max}"))
            }),
        _ => Err(loaded.field_error(field, "must be a whole number")),
    }
}

pub(super) fn os_disk(loaded: &LoadedConfig, value: &Value, at: &str) -> Result<i64> {
    match value {
        Value::Null => Ok(0),
        Value::Object(map) => {
            if let Some(key) = map.keys().find(|k| *k != "diskSizeGB") {
                return Err(loaded.field_error(
                    &format!("{at}.{key}"),
                    "unknown key; osDisk takes diskSizeGB",
                ));
            }
            match map.get("diskSizeGB") {
                Some(size) => whole(loaded, size, &format!("{at}.diskSizeGB"), i32::MAX.into()),
                None => Ok(0),
            }
        }
        _ => Err(loaded.field_error(at, "must be a map: `osDisk: {diskSizeGB: 120}`")),
    }
}

pub(super) fn zones(loaded: &LoadedConfig, value: &Value, at: &str) -> Result<Vec<String>> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                item.as_str().map(str::to_string).ok_or_else(|| {
                    loaded.field_error(&format!("{at}.{i}"), "must be a failure domain's name")
                })
            })
            .collect(),
        _ => Err(loaded.field_error(at, "must be a list of failure domains' names")),
    }
}

pub(super) fn data_disks(
    loaded: &LoadedConfig,
    value: &Value,
    at: &str,
) -> Result<Vec<WrittenDisk>> {
    let items = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items,
        _ => return Err(loaded.field_error(at, "must be a list of disks")),
    };
    let mut disks = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let disk_at = format!("{at}.{i}");
        let Value::Object(map) = item else {
            return Err(loaded.field_error(&disk_at, "must be a map: name, sizeGiB"));
        };
        if let Some(key) = map
            .keys()
            .find(|k| !["name", "sizeGiB", "provisioningMode"].contains(&k.as_str()))
        {
            return Err(loaded.field_error(
                &format!("{disk_at}.{key}"),
                "unknown key; a data disk takes name, sizeGiB, provisioningMode",
            ));
        }
        let text = |key: &str| -> Result<String> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(String::new()),
                Some(Value::String(s)) => Ok(s.clone()),
                Some(_) => Err(loaded.field_error(&format!("{disk_at}.{key}"), "must be a string")),
            }
        };
        let size = match map.get("sizeGiB") {
            Some(size) => whole(loaded, size, &format!("{disk_at}.sizeGiB"), i32::MAX.into())?,
            None => 0,
        };
        disks.push(WrittenDisk {
            name: text("name")?,
            size_gib: size,
            provisioning_mode: text("provisioningMode")?,
        });
    }
    Ok(disks)
}
