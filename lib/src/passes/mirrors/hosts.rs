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

/// The address a hosts line gives `name` (case-insensitive), if it names it.
fn address_of(line: &str, name: &str) -> Option<std::net::IpAddr> {
    let line = line.split('#').next().unwrap_or_default();
    let mut fields = line.split_whitespace();
    let ip = fields.next()?.parse().ok()?;
    fields.any(|n| n.eq_ignore_ascii_case(name)).then_some(ip)
}

/// Refuses an entry that gives a name another address than the config's lines or an earlier
/// entry give it: the resolver takes the first line, so the later one would do nothing.
fn refuse_conflicts(existing: &[String], entries: &[HostEntry]) -> Result<()> {
    let mut lines: Vec<String> = existing.to_vec();
    for entry in entries {
        for name in &entry.names {
            let earlier = lines.iter().find_map(|l| address_of(l, name));
            if let Some(ip) = earlier.filter(|ip| *ip != entry.ip) {
                return Err(crate::error::InvalidValue(format!(
                    "`{}={name}`: {name} is already {ip} in the node's /etc/hosts, and the first line naming it wins; give one address for it",
                    entry.ip
                ))
                .for_option(crate::error::OptionField::AddHost));
            }
        }
        lines.push(entry.line());
    }
    Ok(())
}

/// Appends the entries the config does not have yet, in one fragment; an entry that gives a
/// name another address than it has is refused.
pub fn apply(doc: &mut IgnitionDoc, entries: &[HostEntry]) -> Result<Vec<Change>> {
    let existing = configured_lines(doc);
    refuse_conflicts(&existing, entries)?;
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
    // A single node's config that carries the entries' MachineConfigs gives them to the
    // installed system too.
    let has = |path: &str| {
        crate::passes::file_entries(doc)
            .iter()
            .any(|f| f.get("path").and_then(serde_json::Value::as_str) == Some(path))
    };
    let live_iso = has(INSTALL_TO_DISK) && !has(&super::machine_hosts::manifest_path("master"));
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn entry(text: &str) -> HostEntry {
        HostEntry::parse(text).unwrap()
    }

    #[test]
    fn a_name_given_two_addresses_is_refused_naming_both() {
        let existing = vec!["10.0.0.9 mirror.local # ours".to_string()];
        let error = refuse_conflicts(&existing, &[entry("10.9.9.9=MIRROR.local")])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("10.9.9.9") && error.contains("10.0.0.9"),
            "{error}"
        );
        let twice = [entry("10.0.0.1=a.local"), entry("10.0.0.2=b.local,a.local")];
        assert!(refuse_conflicts(&[], &twice).is_err());
        let agreeing = [entry("10.0.0.9=mirror.local,m")];
        assert!(refuse_conflicts(&existing, &agreeing).is_ok());
    }
}
