//! `--debug`: bootkube held, kubelet louder, and /etc/motd saying exactly what to do next.

use super::doc_edit::{append_to_file, set_file_text};
use super::units::{HOLD_DIR, RELEASE_SCRIPT};
use super::Change;
use crate::error::Result;
use crate::ignition::read::file_text;
use crate::ignition::IgnitionDoc;

/// kubelet `--v` under `--debug`.
pub const DEBUG_KUBELET_VERBOSITY: u32 = 4;

const KUBELET_SCRIPT: &str = "/usr/local/bin/kubelet.sh";

/// The bootkube reset tool bootgen's own configs ship.
const RESET_SCRIPT: &str = "/usr/local/bin/bootkube-reset.sh";
/// A single node's installer: its presence makes the config a bootstrap-in-place one.
const INSTALL_TO_DISK: &str = "/usr/local/bin/install-to-disk.sh";
/// The progress-record library; where it is, services write `/var/log/openshift/*.json`.
const RECORD_LIBRARY: &str = "/usr/local/bin/bootstrap-service-record.sh";

/// The unit that runs [`INSTALL_TO_DISK`].
const INSTALL_TO_DISK_UNIT: &str = "install-to-disk.service";

/// The motd the debug pass appends to.
const MOTD: &str = "/etc/motd";

/// Every file the debug pass reads or changes.
pub(super) const READS: [&str; 5] = [
    KUBELET_SCRIPT,
    RESET_SCRIPT,
    RECORD_LIBRARY,
    MOTD,
    INSTALL_TO_DISK,
];

/// The motd text for a debug bootstrap. It names only tools the config has (`has` tells
/// whether a path is in the config): a config made by another tool may have no reset script
/// and no progress records.
/// `held` are the units held by their own hold, `with_bootkube` the units held with bootkube
/// (they require it).
pub fn debug_motd(held: &[String], with_bootkube: &[String], has: &dyn Fn(&str) -> bool) -> String {
    let mut text = String::from(
        "\n*** bootgen debug mode ***\n\
         bootkube.service is held: it does not start by itself.\n\
         \n\
         Run bootkube by hand, tracing every command (one line to copy):\n\
         \x20 cd /opt/openshift && sudo bash -x /usr/local/bin/bootkube.sh 2>&1 | tee /tmp/bootkube.log\n\
         Or release the hold and let systemd run it:\n\
         \x20 sudo /usr/local/bin/bootgen-release bootkube.service\n\
         \x20 journalctl -b -f -u release-image.service -u bootkube.service\n",
    );
    if has(RECORD_LIBRARY) {
        text.push_str(
            "\nProgress records (one JSON list per service): /var/log/openshift/*.json\n\
             \x20 jq -c '.[] | [.timestamp, .stage, .phase, .result]' /var/log/openshift/bootkube.json\n",
        );
    }
    if has(RESET_SCRIPT) {
        text.push_str(
            "\nStage markers: /opt/openshift/*.done\n\
             Reset from a stage and run it again:\n\
             \x20 sudo /usr/local/bin/bootkube-reset.sh --list\n\
             \x20 sudo /usr/local/bin/bootkube-reset.sh STAGE   (or: all)\n",
        );
    } else {
        text.push_str(
            "\nStage markers: /opt/openshift/*.done (bootkube skips a stage whose marker exists)\n",
        );
    }
    let installer_held_with_bootkube = with_bootkube.iter().any(|u| u == INSTALL_TO_DISK_UNIT);
    if has(INSTALL_TO_DISK) && installer_held_with_bootkube {
        text.push_str(&format!(
            "\nSingle node: install-to-disk.service requires bootkube and is held with it, so the\n\
             node stays on the live ISO. Once bootkube has finished (by hand or released),\n\
             \x20 sudo {RELEASE_SCRIPT} bootkube.service\n\
             starts it: it writes RHCOS and /opt/openshift/master.ign to the installation disk and\n\
             reboots. Follow it with:\n\
             \x20 journalctl -b -f -u install-to-disk.service\n",
        ));
    } else if has(INSTALL_TO_DISK) {
        text.push_str(
            "\nSingle node: install-to-disk.service waits for bootkube to finish, then writes RHCOS\n\
             and /opt/openshift/master.ign to the installation disk and reboots. Follow it with:\n\
             \x20 journalctl -b -f -u install-to-disk.service\n",
        );
        if !held.iter().any(|u| u == INSTALL_TO_DISK_UNIT) {
            text.push_str(
                "To stay on the live ISO, make the config with install-to-disk.service held as well.\n",
            );
        }
    }
    let others: Vec<&String> = held.iter().filter(|u| *u != "bootkube.service").collect();
    if !others.is_empty() {
        text.push_str(&format!(
            "\nAlso held (release with sudo {RELEASE_SCRIPT} UNIT):\n"
        ));
        for unit in others {
            text.push_str(&format!("  {unit}  (hold file {HOLD_DIR}/{unit})\n"));
        }
    }
    text
}

/// Raises kubelet's `--v` in kubelet.sh (when the config has one) and appends the motd.
pub(super) fn apply_debug(doc: &mut IgnitionDoc, held: &[String]) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    if let Some(script) = file_text(doc, KUBELET_SCRIPT) {
        let louder = raise_verbosity(&script);
        if louder != script {
            set_file_text(doc, KUBELET_SCRIPT, &louder, 0o555)?;
            changes.push(Change {
                target: KUBELET_SCRIPT.into(),
                action: format!("kubelet --v raised to {DEBUG_KUBELET_VERBOSITY}"),
            });
        }
    }
    let with_bootkube = super::units::units_needing(doc, "bootkube.service");
    let motd = debug_motd(held, &with_bootkube, &|path| file_text(doc, path).is_some());
    append_to_file(doc, MOTD, &motd, 0o644)?;
    changes.push(Change {
        target: MOTD.into(),
        action: "debug instructions appended".into(),
    });
    Ok(changes)
}

/// Rewrites every `--v=N` below the debug level.
fn raise_verbosity(script: &str) -> String {
    let mut out = String::with_capacity(script.len());
    let mut rest = script;
    while let Some(pos) = rest.find("--v=") {
        let (before, after) = rest.split_at(pos + 4);
        out.push_str(before);
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        match digits.parse::<u32>() {
            Ok(n) if n < DEBUG_KUBELET_VERBOSITY => {
                out.push_str(&DEBUG_KUBELET_VERBOSITY.to_string())
            }
            _ => out.push_str(&digits),
        }
        rest = &after[digits.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raises_only_lower_verbosity() {
        assert_eq!(raise_verbosity("kubelet --v=2 \\\n"), "kubelet --v=4 \\\n");
        assert_eq!(raise_verbosity("--v=6"), "--v=6");
        assert_eq!(raise_verbosity("--v=${V}"), "--v=${V}");
    }

    #[test]
    fn motd_names_the_commands_the_config_has() {
        let held = [
            "bootkube.service".to_string(),
            "kubelet.service".to_string(),
        ];
        let text = debug_motd(&held, &[], &|_| true);
        assert!(text.contains("\n  cd /opt/openshift && sudo bash -x /usr/local/bin/bootkube.sh"));
        assert!(text.contains("bootgen-release bootkube.service"));
        assert!(text.contains("/var/log/openshift"));
        assert!(text.contains("bootkube-reset.sh"));
        assert!(text.contains("kubelet.service"));
        // An installer-made config: no reset tool, no progress records.
        let bare = debug_motd(&held, &[], &|_| false);
        assert!(!bare.contains("bootkube-reset.sh"), "{bare}");
        assert!(!bare.contains("/var/log/openshift"), "{bare}");
        assert!(bare.contains("cd /opt/openshift && sudo bash -x"));
    }

    /// On a single node whose installer requires bootkube, the installer is held with it: the
    /// motd says the node stays on the live ISO and what starts the install.
    #[test]
    fn motd_says_when_the_single_node_installer_waits_for_the_release() {
        let held = ["bootkube.service".to_string()];
        let with = [INSTALL_TO_DISK_UNIT.to_string()];
        let text = debug_motd(&held, &with, &|_| true);
        assert!(
            text.contains("held with it, so the\nnode stays on the live ISO")
                && text.contains("sudo /usr/local/bin/bootgen-release bootkube.service\nstarts it"),
            "{text}"
        );
        let text = debug_motd(&held, &[], &|_| true);
        assert!(text.contains("waits for bootkube to finish"), "{text}");
        assert!(text.contains("To stay on the live ISO"), "{text}");
    }
}
