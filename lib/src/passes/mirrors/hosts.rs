//! `/etc/hosts` lines for mirror names, as an Ignition append so the node's own lines stay.

use super::options::HostEntry;
use crate::error::Result;
use crate::ignition::read::{configured_lines, HOSTS};
use crate::ignition::IgnitionDoc;
use crate::passes::doc_edit::append_to_file;
use crate::passes::Change;

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
