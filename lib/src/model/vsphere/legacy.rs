//! The single-vCenter fields of installers before 4.13 (`vCenter`, `username`, `datacenter`,
//! `defaultDatastore`, ...), read as one vCenter and one failure domain.

use super::{text, AT, LEGACY_KEYS};
use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use serde_json::Value;

/// Single-vCenter fields read in the `vcenters` form.
pub(super) struct Upconverted {
    /// `platform.vsphere` in the `vcenters` form.
    pub settings: serde_json::Map<String, Value>,
    /// The single-vCenter fields that were written.
    pub written: Vec<String>,
}

/// The single-vCenter fields read as the installers of 4.13 on read them: a vCenter of their own
/// when `vcenters` is not given (port 443), a failure domain `generated-failure-domain` (region
/// `generated-region`, zone `generated-zone`) when `failureDomains` is not, names joined into
/// paths under the datacenter, and `apiVIP`/`ingressVIP` as one-address lists. `None` when none
/// of them is written; else the map in the `vcenters` form and the fields that were written.
pub(super) fn upconvert_legacy(
    loaded: &LoadedConfig,
    map: &serde_json::Map<String, Value>,
) -> Result<Option<Upconverted>> {
    let written: Vec<&str> = LEGACY_KEYS
        .iter()
        .map(|(k, _)| *k)
        .filter(|k| map.contains_key(*k))
        .collect();
    if written.is_empty() {
        return Ok(None);
    }
    let legacy = Value::Object(map.clone());
    let field = |key: &str| text(loaded, &legacy, key, AT);
    let mut modern = map.clone();
    for key in &written {
        modern.remove(*key);
    }
    let datacenter = field("datacenter")?;
    if !map.contains_key("vcenters") {
        let server = field("vCenter")?;
        for (key, what) in [
            ("vCenter", "the vCenter's host name"),
            ("username", "the user the cluster signs in as"),
            ("password", "that user's password"),
            ("datacenter", "the datacenter"),
        ] {
            if field(key)?.is_empty() {
                return Err(
                    loaded.field_error(&format!("{AT}.{key}"), format!("is required: {what}"))
                );
            }
        }
        modern.insert(
            "vcenters".into(),
            serde_json::json!([{
                "server": server,
                "user": field("username")?,
                "password": field("password")?,
                "port": 443,
                "datacenters": [datacenter],
            }]),
        );
    }
    if !map.contains_key("failureDomains") {
        let server = match modern
            .get("vcenters")
            .and_then(|v| v.get(0))
            .and_then(|v| v.get("server"))
        {
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        };
        let join = |key: &str, kind: &str| -> Result<String> {
            let value = field(key)?;
            Ok(if value.is_empty() || value.starts_with('/') {
                value
            } else {
                format!("/{datacenter}/{kind}/{value}")
            })
        };
        for (key, what) in [
            ("datacenter", "the datacenter"),
            ("defaultDatastore", "the datastore"),
            ("cluster", "the compute cluster"),
        ] {
            if field(key)?.is_empty() {
                return Err(
                    loaded.field_error(&format!("{AT}.{key}"), format!("is required: {what}"))
                );
            }
        }
        let mut topology = serde_json::json!({
            "datacenter": datacenter,
            "computeCluster": join("cluster", "host")?,
            "datastore": join("defaultDatastore", "datastore")?,
            "networks": [field("network")?],
        });
        for (key, value) in [
            ("folder", join("folder", "vm")?),
            ("resourcePool", field("resourcePool")?),
        ] {
            if !value.is_empty() {
                topology[key] = Value::String(value);
            }
        }
        modern.insert(
            "failureDomains".into(),
            serde_json::json!([{
                "name": "generated-failure-domain",
                "region": "generated-region",
                "zone": "generated-zone",
                "server": server,
                "topology": topology,
            }]),
        );
    }
    for (old, new) in [("apiVIP", "apiVIPs"), ("ingressVIP", "ingressVIPs")] {
        let vip = field(old)?;
        if !vip.is_empty() && !map.contains_key(new) {
            modern.insert(new.into(), serde_json::json!([vip]));
        }
    }
    Ok(Some(Upconverted {
        settings: modern,
        written: written.iter().map(|k| k.to_string()).collect(),
    }))
}

/// The warning for a release that takes the `vcenters` form (4.13 on): the single-vCenter
/// fields `written` are deprecated there, and what to write instead of each. Before 4.13 they
/// are the only form, and nothing is said.
pub(crate) fn deprecation_warning(loaded: &LoadedConfig, written: &[String]) -> Option<Warning> {
    let first = written.first()?;
    let instead: Vec<String> = written
        .iter()
        .filter_map(|k| LEGACY_KEYS.iter().find(|(l, _)| l == k))
        .map(|(k, instead)| format!("{k} → {instead}"))
        .collect();
    Some(loaded.warning(
        &format!("{AT}.{first}"),
        format!(
            "the single-vCenter fields are deprecated; read as the installer reads them ({})",
            instead.join(", ")
        ),
    ))
}
