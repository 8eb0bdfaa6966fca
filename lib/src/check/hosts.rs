//! The nodes that have static addresses, read from the configs that place them: a config's own
//! keyfiles with its `/etc/hostname` (a lone bootstrap host, `hosts/HOST.ign`), and the hosts
//! staged for the MAC selection (`/etc/bootgen/network/HOST/`). DNS must give each its address.

use crate::ignition::read::{file_entries, file_text};
use crate::ignition::IgnitionDoc;
use crate::report::network::network_of;
use serde_json::Value;
use std::collections::BTreeMap;
use std::net::IpAddr;

/// A node with static addresses, and the config that gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticHost {
    /// Its host name as the config sets it.
    pub name: String,
    /// Its static addresses, without prefix.
    pub addresses: Vec<IpAddr>,
    /// The config that places them.
    pub config: String,
}

/// The hosts with static addresses `doc` (read from `config`) places.
pub(crate) fn static_hosts(doc: &IgnitionDoc, config: &str) -> Vec<StaticHost> {
    let own_name = file_text(doc, "/etc/hostname").map(|name| name.trim().to_string());
    let mut by_host: BTreeMap<String, Vec<IpAddr>> = BTreeMap::new();
    for entry in file_entries(doc) {
        let Some(path) = entry.get("path").and_then(Value::as_str) else {
            continue;
        };
        let Some(contents) = file_text(doc, path) else {
            continue;
        };
        let Some(summary) = network_of(path, contents.as_bytes()) else {
            continue;
        };
        let Some(host) = summary.host.or_else(|| own_name.clone()) else {
            continue;
        };
        let addresses = by_host.entry(host).or_default();
        for address in &summary.addresses {
            let ip = address.split('/').next().unwrap_or_default();
            if let Ok(ip) = ip.parse::<IpAddr>() {
                if !addresses.contains(&ip) {
                    addresses.push(ip);
                }
            }
        }
    }
    by_host
        .into_iter()
        .filter(|(name, addresses)| !name.is_empty() && !addresses.is_empty())
        .map(|(name, addresses)| StaticHost {
            name,
            addresses,
            config: config.to_string(),
        })
        .collect()
}
