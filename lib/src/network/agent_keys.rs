//! Every key of the agent installer's `agent-config.yaml` and what bootgen does with it, one row
//! a key: carried out, or warned about (bootgen does not do it), or refused. The keys are those
//! of the installer's `pkg/types/agent/agent_config_type.go` in 4.12 to 4.21 (Go reads the
//! `BMC` field, which has no JSON name, by its field name). A key the table lacks is an unknown
//! key, warned about by `hosts::read_document`.

use super::source::Source;
use crate::config::Warning;
use crate::error::Result;

/// What bootgen does with one key of `agent-config.yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyHandling {
    /// bootgen carries it out: how.
    CarriedOut(&'static str),
    /// bootgen does not do what it asks: a warning names the key and says this.
    Warned(&'static str),
    /// bootgen cannot make media that honour it: refused, saying this.
    Refused(&'static str),
}

/// One key: its path (`hosts[].role` for a key of every host), the first release whose agent
/// installer reads it, and what bootgen does with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentConfigKey {
    /// The key's path: `rendezvousIP`, `hosts[].rootDeviceHints.wwn`.
    pub key: &'static str,
    /// The first OpenShift release whose agent installer reads it.
    pub since: &'static str,
    /// What bootgen does with it.
    pub handling: KeyHandling,
}

const fn row(key: &'static str, since: &'static str, handling: KeyHandling) -> AgentConfigKey {
    AgentConfigKey {
        key,
        since,
        handling,
    }
}

use KeyHandling::{CarriedOut, Warned};

/// What a disk hint gets: the host's own install media choose their disk by it.
const HINT: KeyHandling = CarriedOut(
    "the host's install media install to the one disk that matches every hint, chosen on the node before anything is written (a single node's hints must name its installation disk)",
);

/// Every key, top-level first, then a host's.
pub const AGENT_CONFIG_KEYS: &[AgentConfigKey] = &[
    row("apiVersion", "4.12", CarriedOut("read past: bootgen reads v1alpha1 and v1beta1 files alike")),
    row("kind", "4.12", CarriedOut("read past: the file is read as an AgentConfig")),
    row("metadata", "4.12", CarriedOut("read past: it names the document only, as in the agent installer")),
    row(
        "rendezvousIP",
        "4.12",
        Warned("bootgen does not use a rendezvous host: the bootstrap machine bootstraps the cluster, and nothing reads this address"),
    ),
    row(
        "additionalNTPSources",
        "4.12",
        CarriedOut("every node's time sources: the bootstrap's /etc/chrony.conf, and MachineConfigs 50-masters- and 50-workers-chrony-configuration for the cluster's machines"),
    ),
    row(
        "bootArtifactsBaseURL",
        "4.15",
        CarriedOut("the URL the PXE sets are served from, when no PXE base URL is given"),
    ),
    row(
        "minimalISO",
        "4.18",
        Warned("bootgen does not write minimal ISOs: its ISOs carry the root filesystem, so a node needs no network to fetch it"),
    ),
    row("hosts", "4.12", CarriedOut("one entry a machine")),
    row("hosts[].hostname", "4.12", CarriedOut("the node's /etc/hostname")),
    row("hosts[].role", "4.12", CarriedOut("which config and media the host gets: bootstrap, master or worker")),
    row("hosts[].interfaces", "4.12", CarriedOut("the NICs by MAC: each keyfile is bound to its NIC's MAC")),
    row("hosts[].networkConfig", "4.12", CarriedOut("converted to NetworkManager keyfiles on the host's media and configs")),
    row("hosts[].rootDeviceHints", "4.12", CarriedOut("the disk the host's install media install to")),
    row("hosts[].rootDeviceHints.deviceName", "4.12", HINT),
    row("hosts[].rootDeviceHints.hctl", "4.12", HINT),
    row("hosts[].rootDeviceHints.model", "4.12", HINT),
    row("hosts[].rootDeviceHints.vendor", "4.12", HINT),
    row("hosts[].rootDeviceHints.serialNumber", "4.12", HINT),
    row("hosts[].rootDeviceHints.minSizeGigabytes", "4.12", HINT),
    row("hosts[].rootDeviceHints.wwn", "4.12", HINT),
    row("hosts[].rootDeviceHints.wwnWithExtension", "4.12", HINT),
    row("hosts[].rootDeviceHints.wwnVendorExtension", "4.12", HINT),
    row("hosts[].rootDeviceHints.rotational", "4.12", HINT),
    row(
        "hosts[].BMC",
        "4.15",
        Warned("bootgen does not drive hosts through their BMC: boot each host from its media yourself; nothing reads these credentials"),
    ),
];

/// The row of a written key's dotted path (`hosts.2.BMC`), any host's index read as `[]`.
pub(super) fn row_of(dotted: &str) -> Option<&'static AgentConfigKey> {
    let generic: Vec<&str> = dotted
        .split('.')
        .enumerate()
        .map(|(i, part)| match (i, part.parse::<usize>()) {
            (1, Ok(_)) => "[]",
            _ => part,
        })
        .collect();
    let generic = generic.join(".").replacen(".[]", "[]", 1);
    AGENT_CONFIG_KEYS.iter().find(|row| row.key == generic)
}

/// The written keys bootgen does not carry out: a warning for each, naming it and its line;
/// the first refused one refused.
pub(super) fn not_carried_out(source: &Source<'_>, host_count: usize) -> Result<Vec<Warning>> {
    let mut warnings = Vec::new();
    for row in AGENT_CONFIG_KEYS {
        let paths: Vec<String> = match row.key.strip_prefix("hosts[].") {
            Some(rest) => (0..host_count)
                .map(|i| format!("hosts.{i}.{rest}"))
                .collect(),
            None => vec![row.key.to_string()],
        };
        for path in paths.iter().filter(|p| source.has(p)) {
            match row.handling {
                KeyHandling::CarriedOut(_) => {}
                KeyHandling::Warned(why) => warnings.push(source.warning(path, why)),
                KeyHandling::Refused(why) => return Err(source.error(path, None, why)),
            }
        }
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_has_one_row() {
        let mut keys: Vec<&str> = AGENT_CONFIG_KEYS.iter().map(|r| r.key).collect();
        keys.sort_unstable();
        let before = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), before, "a key listed twice");
    }

    #[test]
    fn written_paths_find_their_rows_whatever_the_hosts_index() {
        assert_eq!(row_of("rendezvousIP").map(|r| r.key), Some("rendezvousIP"));
        assert_eq!(row_of("hosts.0.BMC").map(|r| r.key), Some("hosts[].BMC"));
        assert_eq!(
            row_of("hosts.12.rootDeviceHints.wwn").map(|r| r.key),
            Some("hosts[].rootDeviceHints.wwn")
        );
        assert!(row_of("hosts.0.bmc.password").is_none());
        assert!(row_of("rendezvousIp").is_none());
        assert!(row_of("hostz").is_none());
    }

    #[test]
    fn keys_bootgen_does_not_carry_out_are_warned_about_by_name_and_line() {
        let text = "apiVersion: v1beta1\nkind: AgentConfig\nadditionalNTPSources:\n- ntp.example\nminimalISO: true\nhosts:\n- hostname: a\n  rootDeviceHints:\n    deviceName: /dev/sda\n- hostname: b\n  rootDeviceHints:\n    serialNumber: S1\n  BMC:\n    username: u\n    password: secret-pw\n";
        let source = Source {
            name: "agent-config.yaml",
            text,
        };
        let warnings = not_carried_out(&source, 2).unwrap();
        let said: Vec<(String, Option<usize>)> =
            warnings.iter().map(|w| (w.field.clone(), w.line)).collect();
        assert_eq!(
            said,
            [
                ("minimalISO".to_string(), Some(5)),
                ("hosts[1].BMC".to_string(), Some(13)),
            ]
        );
        assert!(warnings[0]
            .message
            .contains("bootgen does not write minimal ISOs"));
        assert!(warnings.iter().all(|w| !w.message.contains("secret-pw")));
    }
}
