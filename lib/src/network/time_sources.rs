//! The nodes' time sources (`additionalNTPSources`): a disconnected cluster has no time
//! source but these, and its certificates (24 hours at first) fail on clocks that drift. Every
//! node gets the same chrony configuration: the bootstrap (and a single node's live system)
//! in its own config, the control-plane and compute machines through MachineConfigs named and
//! shaped as the agent installer's install writes them (`50-masters-chrony-configuration`,
//! `50-workers-chrony-configuration`, in the cluster's `openshift/` manifests).

use super::source::Source;
use crate::error::Result;
use serde_json::json;
use std::net::IpAddr;

/// Where chrony reads its configuration on a node.
pub const CHRONY_CONF: &str = "/etc/chrony.conf";

/// The directory of the bootstrap config that holds the cluster's own manifests.
const OPENSHIFT_MANIFESTS: &str = "/opt/openshift/openshift";

/// Reads `additionalNTPSources`: each a host name or an IP address, none twice.
pub(super) fn read(source: &Source<'_>, written: &[String]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for (index, name) in written.iter().enumerate() {
        let at = format!("additionalNTPSources.{index}");
        let is_address = name.parse::<IpAddr>().is_ok();
        if !is_address && !super::is_host_name(&name.to_ascii_lowercase()) {
            return Err(source.error(
                &at,
                None,
                format!("`{name}` is not an NTP server: give its host name (ntp.example.com) or its address (192.0.2.5)"),
            ));
        }
        if out.iter().any(|seen| seen.eq_ignore_ascii_case(name)) {
            return Err(source.error(&at, None, format!("{name} is listed twice")));
        }
        out.push(name.clone());
    }
    Ok(out)
}

/// The chrony configuration of every node: the sources, each asked at once when chronyd
/// starts (`iburst`), then what RHCOS's own configuration keeps (the sources DHCP gives, the
/// drift file, stepping a clock far off in the first updates, the hardware clock kept in
/// sync, the log directory).
pub fn chrony_conf(sources: &[String]) -> String {
    let mut text = String::from(
        "# Written by bootgen: the time sources of the hosts file's additionalNTPSources.\n",
    );
    for name in sources {
        text.push_str(&format!("server {name} iburst\n"));
    }
    text.push_str(
        "sourcedir /run/chrony-dhcp\ndriftfile /var/lib/chrony/drift\nmakestep 1.0 3\nrtcsync\nlogdir /var/log/chrony\n",
    );
    text
}

/// The MachineConfigs that give the control-plane and compute machines [`chrony_conf`], as
/// (the bootstrap config's path, YAML).
pub fn time_source_manifests(sources: &[String]) -> Vec<(String, String)> {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(chrony_conf(sources));
    ["master", "worker"]
        .into_iter()
        .map(|role| {
            let name = format!("50-{role}s-chrony-configuration");
            let manifest = json!({
                "apiVersion": "machineconfiguration.openshift.io/v1",
                "kind": "MachineConfig",
                "metadata": {
                    "labels": {"machineconfiguration.openshift.io/role": role},
                    "name": name,
                },
                "spec": {"config": {
                    "ignition": {"version": "3.1.0"},
                    "storage": {"files": [{
                        "contents": {"source": format!("data:text/plain;charset=utf-8;base64,{encoded}")},
                        "mode": 0o644,
                        "overwrite": true,
                        "path": CHRONY_CONF,
                    }]},
                }},
            });
            let yaml = serde_yaml_ng::to_string(&manifest).unwrap_or_default();
            (format!("{OPENSHIFT_MANIFESTS}/{name}.yaml"), yaml)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> std::result::Result<Vec<String>, String> {
        let source = Source {
            name: "agent-config.yaml",
            text,
        };
        let document: Vec<String> = serde_yaml_ng::from_str::<serde_yaml_ng::Value>(text)
            .unwrap()
            .get("additionalNTPSources")
            .and_then(|v| serde_yaml_ng::from_value(v.clone()).ok())
            .unwrap_or_default();
        read(&source, &document).map_err(|e| e.to_string())
    }

    #[test]
    fn names_and_addresses_are_taken_and_anything_else_is_named() {
        assert_eq!(
            read_text("additionalNTPSources:\n- NTP1.lab.example\n- 192.0.2.5\n- fd00::5\n")
                .unwrap(),
            ["NTP1.lab.example", "192.0.2.5", "fd00::5"]
        );
        let bad = read_text("additionalNTPSources:\n- ntp.lab\n- 'ntp.lab iburst'\n").unwrap_err();
        assert!(
            bad.contains("additionalNTPSources[1]") && bad.contains("line 3"),
            "{bad}"
        );
        let twice = read_text("additionalNTPSources:\n- ntp.lab\n- NTP.lab\n").unwrap_err();
        assert!(twice.contains("listed twice"), "{twice}");
    }

    #[test]
    fn each_pool_gets_its_role_and_the_same_chrony_conf() {
        let sources = vec!["ntp.lab".to_string(), "192.0.2.5".to_string()];
        let manifests = time_source_manifests(&sources);
        let names: Vec<&str> = manifests.iter().map(|(path, _)| path.as_str()).collect();
        assert_eq!(
            names,
            [
                "/opt/openshift/openshift/50-masters-chrony-configuration.yaml",
                "/opt/openshift/openshift/50-workers-chrony-configuration.yaml"
            ]
        );
        let worker: serde_yaml_ng::Value = serde_yaml_ng::from_str(&manifests[1].1).unwrap();
        assert_eq!(
            worker["metadata"]["labels"]["machineconfiguration.openshift.io/role"],
            "worker"
        );
        let file = &worker["spec"]["config"]["storage"]["files"][0];
        let source = file["contents"]["source"].as_str().unwrap();
        let decoded = crate::ignition::dataurl::decode(source, None).unwrap();
        assert_eq!(String::from_utf8(decoded).unwrap(), chrony_conf(&sources));
        assert!(chrony_conf(&sources).contains("server ntp.lab iburst\nserver 192.0.2.5 iburst\n"));
    }
}
