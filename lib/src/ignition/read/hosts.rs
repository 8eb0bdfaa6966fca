//! The names a config maps in the node's `/etc/hosts`.

use super::file_entries;
use crate::ignition::{dataurl, IgnitionDoc};
use serde_json::Value;

/// The node's hosts file.
pub const HOSTS: &str = "/etc/hosts";

/// Every line the config writes to /etc/hosts (contents and appends), decoded where inline.
pub fn configured_lines(doc: &IgnitionDoc) -> Vec<String> {
    let Some(entry) = file_entries(doc)
        .into_iter()
        .find(|f| f.get("path").and_then(Value::as_str) == Some(HOSTS))
    else {
        return Vec::new();
    };
    let resources = entry.get("contents").into_iter().chain(
        entry
            .get("append")
            .and_then(Value::as_array)
            .into_iter()
            .flatten(),
    );
    resources
        .filter_map(|r| {
            let source = r.get("source")?.as_str()?;
            let compression = r.get("compression").and_then(Value::as_str);
            dataurl::decode(source, compression).ok()
        })
        .flat_map(|bytes| {
            String::from_utf8_lossy(&bytes)
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// True when a hosts line maps `name` (its first field is the address, the rest are names).
pub fn maps_name(lines: &[String], name: &str) -> bool {
    lines.iter().any(|line| {
        let line = line.split('#').next().unwrap_or_default();
        line.split_whitespace()
            .skip(1)
            .any(|n| n.eq_ignore_ascii_case(name))
    })
}
