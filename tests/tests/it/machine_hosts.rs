//! `--add-host` on every machine: the MachineConfigs `99-{master,worker}-bootgen-hosts` in the
//! bootstrap config, judged by the real tools. The real Ignition validator takes their configs
//! and the real Ignition writes them into a root with an image's `/etc/hosts`; the script they
//! carry, shellcheck-clean, run there keeps the entries (once, marked) beside the image's and
//! the cluster's node-resolver lines, and drops an entry the file no longer lists; its unit is
//! enabled and passes `systemd-analyze verify`. An entry for api-int stays on the bootstrap,
//! with a warning; and `bootgen check` says which machines get each name, asking DNS for those
//! the machines must resolve there.

use bootgen::passes::mirrors::machine_hosts;
use bootgen_conformance::loopback::{free_udp_port, start_dns};
use bootgen_conformance::{
    ignition_validate, is_enabled, preset_all, tools_present, BaseRoot, IgnitionView,
};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What an RHCOS image's /etc/hosts holds, and a line the cluster's node resolver adds.
const IMAGE_HOSTS: &str =
    "127.0.0.1   localhost localhost.localdomain\n::1         localhost localhost.localdomain\n";
const RESOLVER_LINE: &str =
    "172.30.0.10 image-registry.openshift-image-registry.svc # openshift-generated-node-resolver\n";

/// The embedded example cluster (`example.example.com`) with a mirror's name and api-int's.
fn generate(dir: &Path) -> (PathBuf, String) {
    let out = dir.join("out");
    let output = bootgen_conformance::bootgen!()
        .args(["ignition", "--key-algorithm", "ecdsa-p256"])
        .args(["--add-host", "127.0.0.1=mirror.lab,registry.lab"])
        .args(["--add-host", "192.0.2.11=api-int.example.example.com"])
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    (out, stderr)
}

#[test]
fn every_machine_keeps_the_entries_in_its_etc_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let (out, stderr) = generate(dir.path());
    assert!(
        stderr.contains("api-int.example.example.com reaches the bootstrap's /etc/hosts only")
            && stderr.contains("add the DNS record api-int.example.example.com"),
        "{stderr}"
    );
    let bootstrap = IgnitionView::load(&out.join("bootstrap.ign")).unwrap();
    for role in ["master", "worker"] {
        let path = machine_hosts::manifest_path(role);
        let file = bootstrap
            .files
            .get(&path)
            .unwrap_or_else(|| panic!("no {path}"));
        let manifest: Value = serde_yaml_ng::from_slice(&file.expected(None)).unwrap();
        assert_eq!(
            manifest["metadata"]["labels"]["machineconfiguration.openshift.io/role"],
            role
        );
        let config = dir.path().join(format!("{role}.ign"));
        fs::write(
            &config,
            serde_json::to_vec(&manifest["spec"]["config"]).unwrap(),
        )
        .unwrap();
        let (valid, report) = ignition_validate(&config);
        assert!(valid, "{role}: {report}");
        let Some(root) = BaseRoot::new()
            .seed(
                "/etc/hosts",
                format!("{IMAGE_HOSTS}{RESOLVER_LINE}").as_bytes(),
            )
            .apply(&config)
            .unwrap()
        else {
            return;
        };
        assert_eq!(
            fs::read_to_string(root.join(machine_hosts::ENTRIES_FILE)).unwrap(),
            "127.0.0.1 mirror.lab registry.lab\n",
            "api-int is held back"
        );
        let script = root.join(machine_hosts::SCRIPT);
        let run = || {
            let output = Command::new("bash")
                .arg(&script)
                .env("BOOTGEN_HOSTS_ROOT", root.path())
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            fs::read_to_string(root.join("/etc/hosts")).unwrap()
        };
        let expected = format!(
            "{IMAGE_HOSTS}{RESOLVER_LINE}127.0.0.1 mirror.lab registry.lab {}\n",
            machine_hosts::MARKER
        );
        assert_eq!(run(), expected, "{role}: the first boot");
        assert_eq!(run(), expected, "{role}: every later boot");
        // An updated MachineConfig that lists another entry: the old one goes.
        fs::write(
            root.join(machine_hosts::ENTRIES_FILE),
            "192.0.2.9 mirror.lab\n",
        )
        .unwrap();
        assert_eq!(
            run(),
            format!(
                "{IMAGE_HOSTS}{RESOLVER_LINE}192.0.2.9 mirror.lab {}\n",
                machine_hosts::MARKER
            )
        );
        if role == "master" {
            // Ignition enables it by preset, which the first boot applies.
            preset_all(root.path()).unwrap();
            assert_eq!(
                is_enabled(root.path(), machine_hosts::UNIT).unwrap(),
                "enabled"
            );
            if tools_present(&["/usr/bin/shellcheck"]) {
                let checked = Command::new("shellcheck").arg(&script).output().unwrap();
                assert!(
                    checked.status.success(),
                    "{}",
                    String::from_utf8_lossy(&checked.stdout)
                );
            }
            bootgen_conformance::verify_units_in(root.path(), &[machine_hosts::UNIT], &[]).unwrap();
        }
    }
}

/// `check` says the mirror's names reach every machine through the MachineConfigs, and asks DNS
/// for api-int, which the machines must resolve there: this DNS server does not know it.
#[test]
fn check_says_which_machines_get_each_name() {
    if !tools_present(&["/usr/sbin/dnsmasq"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = generate(dir.path());
    let dns_port = free_udp_port().unwrap();
    let _dns = start_dns(dir.path(), dns_port, &[]).unwrap();
    let output = bootgen_conformance::bootgen!()
        .arg("check")
        .arg(&out)
        .arg(format!("--dns-server=127.0.0.1:{dns_port}"))
        .args(["--timeout", "1", "--json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let finding = |target: &str| {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["area"] == "hosts" && f["target"] == target)
            .cloned()
            .unwrap_or_else(|| panic!("no hosts finding for {target}: {report:#}"))
    };
    for name in ["mirror.lab", "registry.lab"] {
        let found = finding(&format!("{name} (127.0.0.1)"));
        assert_eq!(found["status"], "pass", "{found:#}");
        assert!(found["what"]
            .as_str()
            .unwrap()
            .contains("99-worker-bootgen-hosts"));
    }
    let api_int = finding("api-int.example.example.com (192.0.2.11)");
    assert_eq!(api_int["status"], "fail", "{api_int:#}");
    assert!(
        api_int["fix"]
            .as_str()
            .unwrap()
            .contains("add the DNS record api-int.example.example.com IN A 192.0.2.11"),
        "{api_int:#}"
    );
}
