//! `/etc/hosts` lines for mirror names, as an Ignition append so the node's own lines stay.

use super::options::HostEntry;
use crate::error::Result;
use crate::ignition::{dataurl, IgnitionDoc};
use crate::passes::doc_edit::{append_to_file, file_entries};
use crate::passes::Change;
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

/// Appends the entries the config does not have yet, in one fragment.
pub fn apply(doc: &mut IgnitionDoc, entries: &[HostEntry]) -> Result<Vec<Change>> {
    let existing = configured_lines(doc);
    let normalized = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
    let have: Vec<String> = existing.iter().map(|l| normalized(l)).collect();
    let mut text = String::new();
    for entry in entries {
        let line = entry.line();
        if have.contains(&normalized(&line)) || text.contains(&line) {
            continue;
        }
        text.push_str(&line);
    }
    if text.is_empty() {
        return Ok(Vec::new());
    }
    append_to_file(doc, HOSTS, &text, 0o644)?;
    Ok(vec![Change {
        target: HOSTS.into(),
        action: format!("appended: {}", text.trim_end().replace('\n', "; ")),
    }])
}
