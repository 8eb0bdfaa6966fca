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

/// A single node's install-to-disk script: a config with it runs on the live ISO and then
/// installs itself.
const INSTALL_TO_DISK: &str = "/usr/local/bin/install-to-disk.sh";

/// What a single node's /etc/hosts entries reach, and what to do for the installed system.
pub const LIVE_ISO_ONLY: &str = "these /etc/hosts entries reach the live ISO's system only: the installed system boots from the control-plane config the node makes for itself, which does not carry them, so after the reboot the names need DNS records (or a MachineConfig that writes them)";

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
    let live_iso = crate::passes::file_entries(doc)
        .iter()
        .any(|f| f.get("path").and_then(serde_json::Value::as_str) == Some(INSTALL_TO_DISK));
    append_to_file(doc, HOSTS, &text, 0o644)?;
    let mut action = format!("appended: {}", text.trim_end().replace('\n', "; "));
    if live_iso {
        action.push_str(&format!(" ({LIVE_ISO_ONLY})"));
    }
    Ok(vec![Change {
        target: HOSTS.into(),
        action,
    }])
}
