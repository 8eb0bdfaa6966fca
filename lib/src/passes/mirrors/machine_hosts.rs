//! `--add-host` for the cluster's machines, not only the bootstrap: the control-plane and
//! compute machines pull from the same mirror at their first boot. The machine-config operator
//! cannot own `/etc/hosts` (the cluster's node resolver rewrites it every minute, which the
//! operator would take for drift), so the MachineConfigs `99-master-bootgen-hosts` and
//! `99-worker-bootgen-hosts` write the entries to a file of their own with a unit that keeps
//! them in `/etc/hosts` at every boot, before the machine pulls anything. A single node's
//! installed system gets them the same way.
//!
//! An entry for `api-int` cannot reach those machines this way: they resolve it to fetch
//! their first config from the machine-config server, before any MachineConfig is on disk. It
//! stays on the bootstrap, and a warning names the DNS record the machines need.

use super::options::HostEntry;
use serde_json::json;

/// The entries, a hosts line each, on every control-plane and compute machine.
pub const ENTRIES_FILE: &str = "/etc/bootgen/hosts";
/// The script that keeps them in `/etc/hosts`.
pub const SCRIPT: &str = "/usr/local/bin/bootgen-add-hosts.sh";
/// The unit that runs it at boot.
pub const UNIT: &str = "bootgen-add-hosts.service";
/// What marks the lines the script keeps in `/etc/hosts`.
pub const MARKER: &str = "# bootgen-add-host";
/// The script's text.
pub const SCRIPT_TEXT: &str = include_str!("add-hosts.sh");

/// The MachineConfig of `role` (`master`, `worker`), as its path in the bootstrap config.
pub fn manifest_path(role: &str) -> String {
    format!("/opt/openshift/openshift/99-{role}-bootgen-hosts.yaml")
}

/// The unit: after the file systems, before the network is online and before anything pulls
/// an image (CRI-O, the kubelet, the machine-config daemon's first boot and OS pull).
pub fn unit_text() -> String {
    format!(
        "[Unit]
Description=Keep the cluster's /etc/hosts entries (bootgen --add-host)
ConditionPathExists={ENTRIES_FILE}
After=local-fs.target
Before=network-online.target crio.service kubelet.service machine-config-daemon-firstboot.service machine-config-daemon-pull.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart={SCRIPT}

[Install]
WantedBy=multi-user.target
"
    )
}

/// The entries the machines can use, and the names held back: those naming `api_int_host`
/// (case-insensitive), which they resolve before any config of theirs arrives.
pub fn for_machines(entries: &[HostEntry], api_int_host: &str) -> (Vec<HostEntry>, Vec<String>) {
    let mut kept = Vec::new();
    let mut held = Vec::new();
    for entry in entries {
        let (api, names): (Vec<String>, Vec<String>) = entry
            .names
            .iter()
            .cloned()
            .partition(|n| n.eq_ignore_ascii_case(api_int_host));
        held.extend(api);
        if !names.is_empty() {
            kept.push(HostEntry {
                ip: entry.ip,
                names,
            });
        }
    }
    (kept, held)
}

/// The MachineConfigs that give `entries` to the control-plane and compute machines, as (the
/// bootstrap config's path, YAML); none without entries.
pub fn manifests(entries: &[HostEntry]) -> Vec<(String, String)> {
    if entries.is_empty() {
        return Vec::new();
    }
    let lines: String = entries.iter().map(HostEntry::line).collect();
    let file = |path: &str, text: &str, mode: u32| {
        json!({
            "contents": {"source": crate::ignition::dataurl::encode(text.as_bytes())},
            "mode": mode,
            "overwrite": true,
            "path": path,
        })
    };
    ["master", "worker"]
        .into_iter()
        .map(|role| {
            let manifest = json!({
                "apiVersion": "machineconfiguration.openshift.io/v1",
                "kind": "MachineConfig",
                "metadata": {
                    "labels": {"machineconfiguration.openshift.io/role": role},
                    "name": format!("99-{role}-bootgen-hosts"),
                },
                "spec": {"config": {
                    "ignition": {"version": "3.2.0"},
                    "storage": {"files": [
                        file(ENTRIES_FILE, &lines, 0o644),
                        file(SCRIPT, SCRIPT_TEXT, 0o755),
                    ]},
                    "systemd": {"units": [
                        {"name": UNIT, "enabled": true, "contents": unit_text()},
                    ]},
                }},
            });
            let yaml = serde_yaml_ng::to_string(&manifest).unwrap_or_default();
            (manifest_path(role), yaml)
        })
        .collect()
}

/// The hosts lines a MachineConfig of [`manifests`] gives the machines (empty for anything
/// else): its config read as any Ignition config is.
pub fn entries_of_manifest(yaml: &str) -> Vec<String> {
    let Ok(manifest) = serde_yaml_ng::from_str::<serde_json::Value>(yaml) else {
        return Vec::new();
    };
    let Some(config) = manifest.pointer("/spec/config") else {
        return Vec::new();
    };
    let Ok(doc) =
        crate::ignition::IgnitionDoc::parse(&config.to_string().into_bytes(), "MachineConfig")
    else {
        return Vec::new();
    };
    crate::ignition::read::file_text(&doc, ENTRIES_FILE)
        .map(|text| text.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(text: &str) -> HostEntry {
        HostEntry::parse(text).unwrap()
    }

    #[test]
    fn api_int_is_held_back_and_every_other_name_reaches_the_machines() {
        let entries = [
            entry("192.0.2.9=mirror.lab,registry.lab"),
            entry("192.0.2.10=API-INT.ocp.example.com,lb.lab"),
            entry("192.0.2.11=api-int.ocp.example.com"),
        ];
        let (kept, held) = for_machines(&entries, "api-int.ocp.example.com");
        let lines: Vec<String> = kept.iter().map(HostEntry::line).collect();
        assert_eq!(
            lines,
            ["192.0.2.9 mirror.lab registry.lab\n", "192.0.2.10 lb.lab\n"]
        );
        assert_eq!(held, ["API-INT.ocp.example.com", "api-int.ocp.example.com"]);
    }

    #[test]
    fn each_pool_gets_the_entries_the_script_and_its_unit() {
        let entries = [entry("192.0.2.9=mirror.lab")];
        let manifests = manifests(&entries);
        let paths: Vec<&str> = manifests.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/opt/openshift/openshift/99-master-bootgen-hosts.yaml",
                "/opt/openshift/openshift/99-worker-bootgen-hosts.yaml"
            ]
        );
        assert_eq!(
            entries_of_manifest(&manifests[1].1),
            ["192.0.2.9 mirror.lab"]
        );
        assert!(super::manifests(&[]).is_empty());
        assert!(entries_of_manifest("kind: ConfigMap\n").is_empty());
    }
}
