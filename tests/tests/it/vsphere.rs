//! vSphere: what a user installing on vSphere by hand sees and the node runs. The node's files
//! and objects are checked against each release's installer in installer_objects.rs and the
//! install-config rules in installer_mistakes.rs; here the credentials' paths through bootgen,
//! the CLI's refusals, what `inspect` says, and the NetworkManager dispatcher script run for real
//! (in a mount namespace of its own, with stubs for systemctl, logger and vmtoolsd).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::{is_root, repo, run, write_file, IgnitionView};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The fixture's vCenter password (made up), which may appear only where it must.
const PASSWORD: &str = "fixture-vcenter-password";
const DISPATCHER: &str = "/etc/NetworkManager/dispatcher.d/30-local-dns-prepender";

fn fixture() -> PathBuf {
    repo().join("fixtures/install-configs/valid/vsphere.yaml")
}

/// `bootgen ignition` for `config` with `args` into `out`.
fn ignition(config: &Path, out: &Path, args: &[&str]) -> Output {
    bootgen_conformance::bootgen!()
        .args([
            "ignition",
            "--key-algorithm",
            "ecdsa-p256",
            "--install-config",
        ])
        .arg(config)
        .args(args)
        .arg("--output")
        .arg(out)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The fixture without its VIPs: a cluster behind a load balancer of the user's own.
fn without_vips(dir: &Path) -> PathBuf {
    let yaml = fs::read_to_string(fixture()).unwrap();
    let cut = yaml.find("    apiVIPs:").unwrap();
    let end = yaml.find("pullSecret:").unwrap();
    let path = dir.join("install-config.yaml");
    fs::write(&path, format!("{}{}", &yaml[..cut], &yaml[end..])).unwrap();
    path
}

/// Case `i` of a table: `config_text` written to `dir/install-config-<i>.yaml`, generated for
/// `version` into `dir/out-<i>`; the output, what bootgen printed on standard error, and the
/// output directory.
fn run_case(dir: &Path, i: usize, config_text: &str, version: &str) -> (Output, String, PathBuf) {
    let config = dir.join(format!("install-config-{i}.yaml"));
    fs::write(&config, config_text).unwrap();
    let out = dir.join(format!("out-{i}"));
    let output = ignition(&config, &out, &["--release-version", version]);
    let stderr = text(&output.stderr);
    (output, stderr, out)
}

/// Every file under `dir` (its path relative to `dir`), with its bytes.
fn all_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    bootgen_conformance::dir_contents(dir)
        .unwrap()
        .into_iter()
        .map(|(path, (_, bytes))| (path, bytes))
        .collect()
}

#[test]
fn the_vcenter_password_is_only_where_the_cluster_needs_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let made = ignition(&fixture(), &out, &[]);
    assert!(made.status.success(), "{}", text(&made.stderr));
    let mut printed = text(&made.stdout) + &text(&made.stderr);
    for command in [&["inspect"][..], &["inspect", "--objects"], &["validate"]] {
        let output = run(bootgen_conformance::bootgen!()
            .args(command)
            .arg(out.join("bootstrap.ign")))
        .unwrap();
        printed += &(text(&output.stdout) + &text(&output.stderr));
    }
    assert!(
        !printed.contains(PASSWORD),
        "a command printed the password"
    );

    // On the node: only the credentials Secret holds it (base64, as a Secret's data is), 0600.
    let view = IgnitionView::load(&out.join("bootstrap.ign")).unwrap();
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(PASSWORD);
    let holding: Vec<(&String, u32)> = view
        .files
        .iter()
        .filter(|(_, f)| {
            let bytes = f.expected(None);
            let t = text(&bytes);
            t.contains(PASSWORD) || t.contains(&encoded)
        })
        .map(|(path, f)| (path, f.mode))
        .collect();
    assert_eq!(
        holding,
        [(
            &"/opt/openshift/openshift/99_cloud-creds-secret.yaml".to_string(),
            0o600
        )]
    );
    // The stored install-config keeps the vCenter, not its credentials.
    let stored = text(&view.files["/opt/openshift/manifests/cluster-config.yaml"].expected(None));
    assert!(
        stored.contains("vcenter.lab.example.org") && !stored.contains("installer@vsphere.local")
    );

    // Beside the configs: metadata.json (for `destroy cluster`), and it is 0600 then.
    let beside: Vec<String> = all_files(&out)
        .into_iter()
        .filter(|(path, bytes)| path != "bootstrap.ign" && text(bytes).contains(PASSWORD))
        .map(|(path, _)| path)
        .collect();
    assert_eq!(beside, ["metadata.json"]);
    let mode = fs::metadata(out.join("metadata.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let metadata: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("metadata.json")).unwrap()).unwrap();
    assert_eq!(
        metadata["vsphere"]["VCenters"][0]["vCenter"],
        "vcenter.lab.example.org"
    );
}

#[test]
fn mistakes_are_refused_naming_the_field_and_writing_nothing() {
    let fixture_text = fs::read_to_string(fixture()).unwrap();
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "no vCenter",
            "    vcenters:\n    - server: vcenter.lab.example.org\n      user: installer@vsphere.local\n      password: fixture-vcenter-password\n      datacenters:\n      - dc1\n",
            "",
            "platform.vsphere.vcenters",
        ),
        (
            "no datacenter",
            "      datacenters:\n      - dc1\n",
            "",
            "platform.vsphere.vcenters[0].datacenters",
        ),
        (
            "no password",
            "      password: fixture-vcenter-password\n",
            "",
            "platform.vsphere.vcenters[0].password",
        ),
        (
            "an IPv4 pair of API VIPs",
            "    - 10.0.0.5\n    ingressVIPs:",
            "    - 10.0.0.5\n    - 10.0.0.7\n    ingressVIPs:",
            "platform.vsphere.apiVIPs[1]",
        ),
        (
            "the API VIP as ingress VIP",
            "    - 10.0.0.6\n",
            "    - 10.0.0.5\n",
            "platform.vsphere.apiVIPs[0]",
        ),
        (
            "an API VIP without an ingress VIP",
            "    ingressVIPs:\n    - 10.0.0.6\n",
            "",
            "platform.vsphere.ingressVIPs",
        ),
        (
            "a datastore in another datacenter",
            "/dc1/datastore/rack1-ssd",
            "/dc9/datastore/rack1-ssd",
            "platform.vsphere.failureDomains[0].topology.datastore",
        ),
        (
            "CPUs not a multiple of cores per socket",
            "- name: worker\n  replicas: 3\n",
            "- name: worker\n  replicas: 3\n  platform:\n    vsphere: {cpus: 6, coresPerSocket: 4}\n",
            "compute[0].platform.vsphere.cpus",
        ),
        (
            "a negative memory size",
            "  replicas: 3\ncompute:",
            "  replicas: 3\n  platform:\n    vsphere:\n      memoryMB: -1024\ncompute:",
            "controlPlane.platform.vsphere.memoryMB",
        ),
        (
            "a negative OS disk by default",
            "    vcenters:\n",
            "    defaultMachinePlatform:\n      osDisk: {diskSizeGB: -1}\n    vcenters:\n",
            "platform.vsphere.defaultMachinePlatform.osDisk.diskSizeGB",
        ),
        (
            "a zone that names no failure domain",
            "- name: worker\n  replicas: 3\n",
            "- name: worker\n  replicas: 3\n  platform:\n    vsphere:\n      zones: [rack1, rack3]\n",
            "compute[0].platform.vsphere.zones[1]",
        ),
        (
            "a data disk without a size",
            "- name: worker\n  replicas: 3\n",
            "- name: worker\n  replicas: 3\n  platform:\n    vsphere:\n      dataDisks:\n      - name: logs\n",
            "compute[0].platform.vsphere.dataDisks[0].sizeGiB",
        ),
        (
            "a disk type vSphere has not",
            "    vcenters:\n",
            "    diskType: thinn\n    vcenters:\n",
            "platform.vsphere.diskType",
        ),
        (
            "a load balancer of the user's own, which bootgen does not set up",
            "    vcenters:\n",
            "    loadBalancer:\n      type: UserManaged\n    vcenters:\n",
            "platform.vsphere.loadBalancer.type",
        ),
        (
            "tags on a failure domain's machines",
            "        datastore: /dc1/datastore/rack1-ssd\n",
            "        datastore: /dc1/datastore/rack1-ssd\n        tagIDs: [urn:vmomi:InventoryServiceTag:5736bf56-49f5-4667-b38c-b97e09dc9578:GLOBAL]\n",
            "platform.vsphere.failureDomains[0].topology.tagIDs",
        ),
        (
            "a deprecated apiVIP that apiVIPs leaves out",
            "    apiVIPs:\n",
            "    apiVIP: 10.0.0.9\n    apiVIPs:\n",
            "platform.vsphere.apiVIP",
        ),
        (
            "the CloudCredential capability left out",
            "pullSecret:",
            "capabilities:\n  baselineCapabilitySet: None\n  additionalEnabledCapabilities: [Ingress, CloudControllerManager]\npullSecret:",
            "capabilities",
        ),
        (
            "the CloudControllerManager capability left out",
            "pullSecret:",
            "capabilities:\n  baselineCapabilitySet: None\n  additionalEnabledCapabilities: [Ingress, CloudCredential]\npullSecret:",
            "capabilities",
        ),
        (
            "arm64 machines",
            "  replicas: 3\ncompute:\n- name: worker\n  replicas: 3\n",
            "  replicas: 3\n  architecture: arm64\ncompute:\n- name: worker\n  replicas: 3\n  architecture: arm64\n",
            "controlPlane.architecture",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (what, from, to, field) in cases {
        assert!(
            fixture_text.contains(from),
            "{what}: the fixture has no {from:?}"
        );
        let config = dir.path().join("install-config.yaml");
        fs::write(&config, fixture_text.replacen(from, to, 1)).unwrap();
        let out = dir.path().join("out");
        let output = ignition(&config, &out, &["--release-version", "4.20.0"]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{what}: {stderr}");
        assert!(
            stderr.contains(&format!("`{field}`")) && stderr.contains("install-config.yaml"),
            "{what}: the error should name {field}: {stderr}"
        );
        assert!(
            !stderr.contains(PASSWORD),
            "{what}: the password in the message"
        );
        assert!(!out.exists(), "{what}: output written");
    }
    // A vCenter outside the release: 4.12's installer took only the single-vCenter fields.
    let out = dir.path().join("out");
    let output = ignition(&fixture(), &out, &["--release-version", "4.12.0"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("`platform.vsphere.vCenter`")
            && stderr.contains("not `vcenters`")
            && stderr.contains("4.13"),
        "{stderr}"
    );
}

#[test]
fn a_vip_outside_the_machine_networks_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("install-config.yaml");
    let yaml = fs::read_to_string(fixture()).unwrap();
    fs::write(
        &config,
        yaml.replacen("    - 10.0.0.5\n", "    - 10.9.0.5\n", 1),
    )
    .unwrap();
    let output = ignition(&config, &dir.path().join("out"), &[]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("platform.vsphere.apiVIPs[0]")
            && stderr.contains("outside every machine network (10.0.0.0/24)"),
        "{stderr}"
    );
}

#[test]
fn inspect_says_the_platform_and_its_vcenter() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    assert!(ignition(&fixture(), &out, &[]).status.success());
    let output = run(bootgen_conformance::bootgen!()
        .arg("inspect")
        .arg(out.join("bootstrap.ign")))
    .unwrap();
    let said = text(&output.stdout);
    let line = said
        .lines()
        .find(|l| l.starts_with("platform "))
        .unwrap_or_default();
    assert!(
        line.contains("vsphere")
            && line.contains("vcenter.lab.example.org")
            && line.contains("2 failure domains")
            && line.contains("API VIP 10.0.0.5")
            && line.contains("ingress VIP 10.0.0.6"),
        "{said}"
    );
}

/// The node's dispatcher script, as `config` carries it.
fn dispatcher_of(config: &Path) -> Vec<u8> {
    let view = IgnitionView::load(config).unwrap();
    let entry = &view.files[DISPATCHER];
    assert_eq!(entry.mode, 0o555);
    entry.expected(None)
}

/// Runs `script` with `args` where /etc and /run are the test's own (an overlay of /etc, a
/// tmpfs on /run), NetworkManager's resolv.conf and the node's resolv.conf as given, and
/// stubs first on PATH; returns the node's resolv.conf and the stubs' log after each run.
fn run_dispatcher(
    dir: &Path,
    script: &[u8],
    runs: &[&[&str]],
    resolved_enabled: bool,
) -> Vec<(String, String)> {
    let stubs = dir.join("stubs");
    let log = dir.join("calls.log");
    let enabled = if resolved_enabled { 0 } else { 1 };
    write_file(
        &stubs.join("systemctl"),
        format!(
            "#!/bin/sh\necho \"systemctl $*\" >>{log}\ncase \"$*\" in *is-enabled*) exit {enabled} ;; esac\n",
            log = log.display()
        ),
        0o755,
    )
    .unwrap();
    write_file(
        &stubs.join("logger"),
        format!("#!/bin/sh\necho \"logger $*\" >>{}\n", log.display()),
        0o755,
    )
    .unwrap();
    write_file(
        &stubs.join("vmtoolsd"),
        "#!/bin/sh\necho lab.example.org\n",
        0o755,
    )
    .unwrap();
    write_file(&dir.join("dispatcher"), script, 0o755).unwrap();
    for sub in ["upper", "work", "results"] {
        fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let mut steps = String::new();
    for (i, args) in runs.iter().enumerate() {
        steps += &format!(
            "bash {d}/dispatcher {args} || echo \"exit $?\" >>{log}\n\
             cp /etc/resolv.conf {d}/results/{i}.conf 2>/dev/null || : >{d}/results/{i}.conf\n\
             cat /etc/systemd/resolved.conf.d/*.conf >>{d}/results/{i}.conf 2>/dev/null\n\
             cp {log} {d}/results/{i}.log 2>/dev/null || : >{d}/results/{i}.log\n",
            d = dir.display(),
            args = args.join(" "),
            log = log.display(),
        );
    }
    let script = format!(
        "set -e\n\
         mount -t overlay overlay -o lowerdir=/etc,upperdir={d}/upper,workdir={d}/work /etc\n\
         mount -t tmpfs tmpfs /run\n\
         mkdir -p /run/NetworkManager\n\
         printf '# Generated by NetworkManager\\nsearch lab.example.org\\nnameserver 198.51.100.53\\n' >/run/NetworkManager/resolv.conf\n\
         rm -f /etc/resolv.conf\n\
         printf 'nameserver 198.51.100.53\\n' >/etc/resolv.conf\n\
         export PATH={stubs}:$PATH\n\
         set +e\n{steps}",
        d = dir.display(),
        stubs = stubs.display(),
    );
    let output = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    (0..runs.len())
        .map(|i| {
            let read = |ext: &str| {
                fs::read_to_string(dir.join(format!("results/{i}.{ext}"))).unwrap_or_default()
            };
            (read("conf"), read("log"))
        })
        .collect()
}

#[test]
fn with_vips_the_node_asks_its_own_dns_server_first() {
    if !is_root() {
        eprintln!("SKIPPED: the dispatcher runs in a mount namespace, which needs root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    assert!(ignition(&fixture(), &out, &[]).status.success());
    let script = dispatcher_of(&out.join("bootstrap.ign"));
    let work = dir.path().join("run");
    let results = run_dispatcher(
        &work,
        &script,
        &[&["ens192", "up"], &["ens192", "up"], &["ens192", "down"]],
        false,
    );
    let (after_up, log_up) = &results[0];
    let nameservers: Vec<&str> = after_up
        .lines()
        .filter(|l| l.starts_with("nameserver"))
        .collect();
    assert_eq!(
        nameservers,
        ["nameserver 127.0.0.1", "nameserver 198.51.100.53"],
        "{after_up}"
    );
    assert!(after_up.contains("search lab.example.org"), "{after_up}");
    assert_eq!(log_up.matches("logger").count(), 1, "{log_up}");
    // Run again: nothing to change, so nothing is written or logged.
    let (again, log_again) = &results[1];
    assert_eq!(again, after_up);
    assert_eq!(log_again.matches("logger").count(), 1, "{log_again}");
    // Events other than up and DHCP or DNS changes leave the file alone.
    assert_eq!(&results[2].0, after_up);
    assert!(!log_again.contains("exit "), "{log_again}");

    // With systemd-resolved the script gives it the local server for the guest's domain.
    let resolved = run_dispatcher(
        &dir.path().join("resolved"),
        &script,
        &[&["ens192", "up"]],
        true,
    );
    let (conf, log) = &resolved[0];
    assert!(
        conf.contains("DNS=127.0.0.1") && conf.contains("Domains=lab.example.org"),
        "{conf}"
    );
    assert!(
        log.contains("systemctl try-restart systemd-resolved"),
        "{log}"
    );
}

#[test]
fn without_vips_the_dispatcher_leaves_dns_alone() {
    if !is_root() {
        eprintln!("SKIPPED: the dispatcher runs in a mount namespace, which needs root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = without_vips(dir.path());
    let out = dir.path().join("out");
    let made = ignition(&config, &out, &[]);
    assert!(made.status.success(), "{}", text(&made.stderr));
    let view = IgnitionView::load(&out.join("bootstrap.ign")).unwrap();
    let nm = text(&view.files["/etc/NetworkManager/conf.d/99-vsphere.conf"].expected(None));
    assert!(!nm.contains("rc-manager"), "{nm}");
    let script = dispatcher_of(&out.join("bootstrap.ign"));
    let results = run_dispatcher(
        &dir.path().join("run"),
        &script,
        &[&["ens192", "up"]],
        false,
    );
    assert_eq!(results[0].0, "nameserver 198.51.100.53\n");
    assert_eq!(results[0].1, "");
}

#[test]
fn machine_manifests_are_left_out_for_machines_the_user_makes() {
    let dir = tempfile::tempdir().unwrap();
    let machine_files = |view: &IgnitionView| -> Vec<String> {
        view.files
            .keys()
            .filter(|p| {
                p.contains("cluster-api_master-machines")
                    || p.contains("machineset")
                    || p.contains("control-plane-machine-set")
            })
            .cloned()
            .collect()
    };
    let with = dir.path().join("with");
    assert!(ignition(&fixture(), &with, &[]).status.success());
    let view = IgnitionView::load(&with.join("bootstrap.ign")).unwrap();
    // Three control-plane Machines spread over the two failure domains, one MachineSet per
    // domain (the three workers split 2 + 1), and the ControlPlaneMachineSet.
    assert_eq!(
        machine_files(&view).len(),
        3 + 2 + 1,
        "{:?}",
        machine_files(&view)
    );
    let replicas: Vec<u64> = (0..2)
        .map(|i| {
            let path = format!(
                "/opt/openshift/openshift/99_openshift-cluster-api_worker-machineset-{i}.yaml"
            );
            let set: serde_yaml_ng::Value =
                serde_yaml_ng::from_slice(&view.files[&path].expected(None)).unwrap();
            set["spec"]["replicas"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(replicas, [2, 1]);

    let without = dir.path().join("without");
    let made = ignition(&fixture(), &without, &["--without-machine-manifests"]);
    assert!(made.status.success(), "{}", text(&made.stderr));
    let view = IgnitionView::load(&without.join("bootstrap.ign")).unwrap();
    assert_eq!(machine_files(&view), Vec::<String>::new());
    // The rest of the platform stays: the cloud provider's config and credentials.
    assert!(view
        .files
        .contains_key("/opt/openshift/manifests/cloud-provider-config.yaml"));
    assert!(view
        .files
        .contains_key("/opt/openshift/openshift/99_cloud-creds-secret.yaml"));
}

#[test]
fn the_single_vcenter_fields_are_called_deprecated_only_where_vcenters_exists() {
    let legacy =
        repo().join("tests/expectations/installer/cases/vsphere-legacy/install-config.yaml");
    let dir = tempfile::tempdir().unwrap();
    for (release, deprecated) in [
        ("4.10.0", false),
        ("4.12.0", false),
        ("4.13.0", true),
        ("4.22.0", true),
    ] {
        let out = dir.path().join(release);
        let made = ignition(&legacy, &out, &["--release-version", release]);
        let stderr = text(&made.stderr);
        assert!(made.status.success(), "{release}: {stderr}");
        assert_eq!(
            stderr.contains("`platform.vsphere.vCenter`: the single-vCenter fields are deprecated"),
            deprecated,
            "{release}: {stderr}"
        );
    }
}

#[test]
fn the_pre_flight_says_whether_the_vcenter_resolves() {
    let dir = tempfile::tempdir().unwrap();
    let fixture_text = fs::read_to_string(fixture()).unwrap();
    // `.invalid` never resolves (RFC 6761); `localhost` always does; an address needs no lookup.
    for (server, said, warned) in [
        ("vcenter.bootgen.invalid", "name unresolved", true),
        ("localhost", "name resolves here", false),
        ("10.0.0.20", "name an IP address", false),
    ] {
        let config = dir.path().join("install-config.yaml");
        fs::write(
            &config,
            fixture_text.replace("vcenter.lab.example.org", server),
        )
        .unwrap();
        let out = dir.path().join(server);
        let made = ignition(&config, &out, &[]);
        let stderr = text(&made.stderr);
        assert!(made.status.success(), "{server}: {stderr}");
        assert!(
            stderr.contains(&format!("pre-flight: vCenter {server}: {said}")),
            "{server}: {stderr}"
        );
        assert_eq!(
            stderr.contains(&format!("vCenter {server}: the name does not resolve here")),
            warned,
            "{server}: {stderr}"
        );
        // Under --strict the warning stops the run, and nothing is written.
        let strict = dir.path().join(format!("{server}-strict"));
        let made = ignition(&config, &strict, &["--strict"]);
        assert_eq!(
            made.status.success(),
            !warned,
            "{server}: {}",
            text(&made.stderr)
        );
        assert_eq!(strict.exists(), !warned);
    }
}

/// The fixture with `from` replaced by `to`, generated for `version` into `dir/out-<version>`;
/// the bootstrap config's view and what bootgen printed on standard error.
fn generate_changed(dir: &Path, from: &str, to: &str, version: &str) -> (IgnitionView, String) {
    let fixture_text = fs::read_to_string(fixture()).unwrap();
    assert!(fixture_text.contains(from), "the fixture has no {from:?}");
    let config = dir.join(format!("install-config-{version}.yaml"));
    fs::write(&config, fixture_text.replacen(from, to, 1)).unwrap();
    let out = dir.join(format!("out-{version}"));
    let made = ignition(&config, &out, &["--release-version", version]);
    let stderr = text(&made.stderr);
    assert!(made.status.success(), "{version}: {stderr}");
    (
        IgnitionView::load(&out.join("bootstrap.ign")).unwrap(),
        stderr,
    )
}

/// The machine objects of a generated config: the control-plane Machines, the MachineSets and
/// the ControlPlaneMachineSet (when there is one), parsed.
struct MachineObjects {
    machines: Vec<serde_yaml_ng::Value>,
    machine_sets: Vec<serde_yaml_ng::Value>,
    control_plane_set: Option<serde_yaml_ng::Value>,
}

fn machine_objects(view: &IgnitionView) -> MachineObjects {
    let parse = |path: &String| -> serde_yaml_ng::Value {
        serde_yaml_ng::from_slice(&view.files[path].expected(None)).unwrap()
    };
    let matching = |part: &str| -> Vec<serde_yaml_ng::Value> {
        view.files
            .keys()
            .filter(|p| p.contains(part))
            .map(parse)
            .collect()
    };
    MachineObjects {
        machines: matching("cluster-api_master-machines"),
        machine_sets: matching("worker-machineset"),
        control_plane_set: matching("control-plane-machine-set").into_iter().next(),
    }
}

/// An object's provider spec (a Machine's, a MachineSet's template's or the CPMS template's).
fn provider_spec(object: &serde_yaml_ng::Value) -> &serde_yaml_ng::Value {
    let spec = &object["spec"];
    if object["kind"] == "Machine" {
        &spec["providerSpec"]["value"]
    } else if object["kind"] == "MachineSet" {
        &spec["template"]["spec"]["providerSpec"]["value"]
    } else {
        &spec["template"]["machines_v1beta1_machine_openshift_io"]["spec"]["providerSpec"]["value"]
    }
}

/// (numCPUs, numCoresPerSocket, memoryMiB, diskGiB) of an object's provider spec.
fn size_of(object: &serde_yaml_ng::Value) -> (u64, u64, u64, u64) {
    let spec = provider_spec(object);
    let number = |key: &str| spec[key].as_u64().unwrap();
    (
        number("numCPUs"),
        number("numCoresPerSocket"),
        number("memoryMiB"),
        number("diskGiB"),
    )
}

/// The datastore (standing for the failure domain) of an object's provider spec.
fn datastore_of(object: &serde_yaml_ng::Value) -> String {
    provider_spec(object)["workspace"]["datastore"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn the_reported_pool_settings_size_every_machine_object() {
    // Issue 36: vSphere pool settings were refused as settings of another platform.
    let dir = tempfile::tempdir().unwrap();
    let pools = "controlPlane:\n  name: master\n  replicas: 3\n  platform: {vsphere: {cpus: 8, memoryMB: 16384}}\ncompute: [{name: worker, replicas: 2, platform: {vsphere: {cpus: 8, memoryMB: 16384}}}]\n";
    let from =
        "controlPlane:\n  name: master\n  replicas: 3\ncompute:\n- name: worker\n  replicas: 3\n";
    for version in ["4.16.0", "4.20.0"] {
        let (view, _) = generate_changed(dir.path(), from, pools, version);
        let objects = machine_objects(&view);
        assert_eq!(objects.machines.len(), 3, "{version}");
        assert_eq!(objects.machine_sets.len(), 2, "{version}");
        let cpms = objects.control_plane_set.as_ref().unwrap();
        for object in objects
            .machines
            .iter()
            .chain(&objects.machine_sets)
            .chain([cpms])
        {
            assert_eq!(size_of(object), (8, 4, 16384, 120), "{version}: {object:?}");
        }
    }
    // `vsphere: {}` is accepted, and leaves the installer's sizes.
    let empty = "controlPlane:\n  name: master\n  replicas: 3\n  platform:\n    vsphere: {}\n";
    let other = tempfile::tempdir().unwrap();
    let (view, _) = generate_changed(
        other.path(),
        "controlPlane:\n  name: master\n  replicas: 3\n",
        empty,
        "4.16.0",
    );
    for machine in machine_objects(&view).machines {
        assert_eq!(size_of(&machine), (4, 4, 16384, 120));
    }
}

#[test]
fn the_default_machine_platform_is_merged_under_each_pool() {
    let dir = tempfile::tempdir().unwrap();
    let (view, _) = generate_changed(
        dir.path(),
        "- name: worker\n  replicas: 3\n",
        "- name: worker\n  replicas: 3\n  platform:\n    vsphere: {cpus: 8, coresPerSocket: 2}\n",
        "4.20.0",
    );
    let objects = machine_objects(&view);
    assert_eq!(size_of(&objects.machine_sets[0]), (8, 2, 16384, 120));
    let fixture_text = fs::read_to_string(fixture()).unwrap();
    let with_defaults = fixture_text
        .replacen(
            "- name: worker\n  replicas: 3\n",
            "- name: worker\n  replicas: 3\n  platform:\n    vsphere: {cpus: 8, coresPerSocket: 2}\n",
            1,
        )
        .replacen(
            "    vcenters:\n",
            "    defaultMachinePlatform:\n      cpus: 16\n      memoryMB: 65536\n      osDisk: {diskSizeGB: 200}\n      zones: [rack2]\n    vcenters:\n",
            1,
        );
    let config = dir.path().join("defaults.yaml");
    fs::write(&config, with_defaults).unwrap();
    let out = dir.path().join("defaults");
    let made = ignition(&config, &out, &["--release-version", "4.20.0"]);
    assert!(made.status.success(), "{}", text(&made.stderr));
    let objects = machine_objects(&IgnitionView::load(&out.join("bootstrap.ign")).unwrap());
    // The pool's own values win; the rest come from defaultMachinePlatform.
    for set in &objects.machine_sets {
        assert_eq!(size_of(set), (8, 2, 65536, 200));
    }
    for machine in objects.machines.iter().chain(&objects.control_plane_set) {
        assert_eq!(size_of(machine), (16, 4, 65536, 200));
    }
    // The control plane writes no vsphere settings: its machines go to the default zones. The
    // compute pool writes some without zones, which the installer's check of the pool fills in
    // with every failure domain before merging: a MachineSet in each.
    let rack2 = "/dc1/datastore/rack2-ssd";
    assert!(objects.machines.iter().all(|m| datastore_of(m) == rack2));
    let mut placed: Vec<String> = objects.machine_sets.iter().map(datastore_of).collect();
    placed.sort();
    assert_eq!(placed, ["/dc1/datastore/rack1-ssd", rack2]);
}

#[test]
fn zones_choose_the_failure_domains_of_a_pools_machines() {
    let dir = tempfile::tempdir().unwrap();
    let (view, _) = generate_changed(
        dir.path(),
        "  replicas: 3\ncompute:\n- name: worker\n  replicas: 3\n",
        "  replicas: 3\n  platform:\n    vsphere:\n      zones: [rack2]\ncompute:\n- name: worker\n  replicas: 3\n  platform:\n    vsphere:\n      zones: [rack2, rack1]\n",
        "4.20.0",
    );
    let objects = machine_objects(&view);
    // Every control-plane machine in rack2, and the CPMS spread over rack2 only.
    let rack2 = "/dc1/datastore/rack2-ssd";
    assert!(objects.machines.iter().all(|m| datastore_of(m) == rack2));
    let cpms = objects.control_plane_set.unwrap();
    let domains = &cpms["spec"]["template"]["machines_v1beta1_machine_openshift_io"]
        ["failureDomains"]["vsphere"];
    assert_eq!(
        serde_yaml_ng::to_string(domains).unwrap(),
        "- name: rack2\n"
    );
    // One MachineSet per zone, in the zones' order: rack2 takes the remainder's extra one.
    let mut sets = objects.machine_sets;
    sets.sort_by_key(|s| s["metadata"]["name"].as_str().unwrap().to_string());
    let placed: Vec<(String, u64)> = sets
        .iter()
        .map(|s| (datastore_of(s), s["spec"]["replicas"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        placed,
        [
            (rack2.to_string(), 2),
            ("/dc1/datastore/rack1-ssd".to_string(), 1)
        ]
    );
}

#[test]
fn data_disks_are_written_where_the_release_has_them() {
    let dir = tempfile::tempdir().unwrap();
    let from = "- name: worker\n  replicas: 3\n";
    let to = "- name: worker\n  replicas: 3\n  platform:\n    vsphere:\n      dataDisks:\n      - {name: logs, sizeGiB: 50, provisioningMode: Thin}\n";
    let (view, _) = generate_changed(dir.path(), from, to, "4.20.0");
    for set in machine_objects(&view).machine_sets {
        let disks = &provider_spec(&set)["dataDisks"];
        assert_eq!(disks[0]["name"], "logs");
        assert_eq!(disks[0]["sizeGiB"].as_u64(), Some(50));
        assert_eq!(disks[0]["provisioningMode"], "Thin");
    }
    // 4.16's installer has no data disks: it ignores the field, and bootgen says so.
    let (view, stderr) = generate_changed(dir.path(), from, to, "4.16.0");
    assert!(
        stderr.contains("compute[0].platform.vsphere.dataDisks")
            && stderr.contains("ignored")
            && stderr.contains("4.19"),
        "{stderr}"
    );
    for set in machine_objects(&view).machine_sets {
        assert!(provider_spec(&set).get("dataDisks").is_none(), "{set:?}");
    }
    // 4.11's installer refuses a field it does not know (zones arrived in 4.12).
    let config = dir.path().join("zones.yaml");
    let fixture_text = fs::read_to_string(fixture()).unwrap();
    let zones = "- name: worker\n  replicas: 3\n  platform:\n    vsphere:\n      zones: [rack1]\n";
    fs::write(&config, fixture_text.replacen(from, zones, 1)).unwrap();
    let out = dir.path().join("out-4.11");
    let made = ignition(&config, &out, &["--release-version", "4.11.0"]);
    let stderr = text(&made.stderr);
    assert_eq!(made.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("`compute[0].platform.vsphere.zones`") && stderr.contains("4.12"),
        "{stderr}"
    );
    assert!(!out.exists());
}

/// `diff --objects` of two output directories compares `metadata.json` and the admin
/// kubeconfig too: two runs of one cluster are the same objects (their per-run IDs
/// placeholders), and a changed vCenter user is named; the password never is.
#[test]
fn objects_of_two_directories_take_in_metadata_and_the_kubeconfig() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two, other) = (
        dir.path().join("one"),
        dir.path().join("two"),
        dir.path().join("other"),
    );
    let renamed = dir.path().join("renamed.yaml");
    fs::write(
        &renamed,
        fs::read_to_string(fixture())
            .unwrap()
            .replace("installer@vsphere.local", "other@vsphere.local"),
    )
    .unwrap();
    for (config, out) in [(fixture(), &one), (fixture(), &two), (renamed, &other)] {
        let made = ignition(&config, out, &[]);
        assert!(made.status.success(), "{}", text(&made.stderr));
    }
    let diff = |a: &Path, b: &Path| {
        bootgen_conformance::bootgen!()
            .args(["diff", "--objects"])
            .arg(a)
            .arg(b)
            .output()
            .unwrap()
    };
    let same = diff(&one, &two);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stdout));
    let changed = diff(&one, &other);
    let said = text(&changed.stdout);
    assert_eq!(changed.status.code(), Some(1), "{said}");
    assert!(
        said.contains("~ file metadata.json:") && said.contains("\"other@vsphere.local\""),
        "{said}"
    );
    assert!(!said.contains(PASSWORD), "{said}");
}

/// A dual-stack vSphere cluster's nodes take both addresses by DHCP: the installer adds the
/// `ip=dhcp,dhcp6` machine configs on vSphere from 4.14 (on every platform from 4.20), and
/// never before.
#[test]
fn dual_stack_machines_take_both_addresses_by_dhcp_from_4_14() {
    let dir = tempfile::tempdir().unwrap();
    let from = "networking:\n  machineNetwork:\n  - cidr: 10.0.0.0/24\n";
    let to = "networking:\n  networkType: OVNKubernetes\n  clusterNetwork:\n  - cidr: 10.128.0.0/14\n    hostPrefix: 23\n  - cidr: fd01::/48\n    hostPrefix: 64\n  serviceNetwork:\n  - 172.30.0.0/16\n  - fd02::/112\n  machineNetwork:\n  - cidr: 10.0.0.0/24\n  - cidr: fd00::/64\n";
    let dual_vips = |yaml: String| {
        yaml.replace("    - 10.0.0.5\n", "    - 10.0.0.5\n    - fd00::5\n")
            .replace("    - 10.0.0.6\n", "    - 10.0.0.6\n    - fd00::6\n")
    };
    let config = dir.path().join("dual.yaml");
    let fixture_text = fs::read_to_string(fixture()).unwrap();
    assert!(fixture_text.contains(from));
    fs::write(&config, dual_vips(fixture_text.replacen(from, to, 1))).unwrap();
    for (version, expected) in [
        ("4.13.0", false),
        ("4.14.0", true),
        ("4.16.0", true),
        ("4.19.0", true),
        ("4.20.0", true),
    ] {
        let out = dir.path().join(format!("out-{version}"));
        let made = ignition(&config, &out, &["--release-version", version]);
        assert!(made.status.success(), "{version}: {}", text(&made.stderr));
        let view = IgnitionView::load(&out.join("bootstrap.ign")).unwrap();
        for role in ["master", "worker"] {
            let path = format!(
                "/opt/openshift/openshift/99_openshift-machineconfig_99-dual-stack-{role}.yaml"
            );
            assert_eq!(
                view.files.contains_key(&path),
                expected,
                "{version}: {path}"
            );
            if expected {
                let config: serde_yaml_ng::Value =
                    serde_yaml_ng::from_slice(&view.files[&path].expected(None)).unwrap();
                assert_eq!(config["spec"]["kernelArguments"][0], "ip=dhcp,dhcp6");
                assert_eq!(
                    config["metadata"]["labels"]["machineconfiguration.openshift.io/role"],
                    role
                );
            }
        }
    }
}

/// The capabilities a platform cannot do without, release by release as each installer
/// decides: CloudCredential off platform none from 4.15, CloudControllerManager on vSphere and
/// on an external platform running its provider's own from 4.16.
#[test]
fn the_cloud_capabilities_are_needed_from_the_release_that_checks_them() {
    let dir = tempfile::tempdir().unwrap();
    let fixture_text = fs::read_to_string(fixture()).unwrap();
    let external =
        fs::read_to_string(repo().join("fixtures/install-configs/valid/external.yaml")).unwrap();
    let with = |text: &str, enabled: &str| {
        text.replacen(
            "pullSecret:",
            &format!("capabilities:\n  baselineCapabilitySet: None\n  additionalEnabledCapabilities: [{enabled}]\npullSecret:"),
            1,
        )
    };
    // The fixture's provider runs its own cloud controller manager; without it, none runs.
    let external_ccm = external.clone();
    assert!(external_ccm.contains("    cloudControllerManager: External\n"));
    let external = external.replacen("    cloudControllerManager: External\n", "", 1);
    let cases = [
        // 4.14 knows neither capability, and checks nothing.
        (with(&fixture_text, "MachineAPI"), "4.14.0", true),
        // 4.15 knows CloudCredential (not yet Ingress or CloudControllerManager).
        (with(&fixture_text, "MachineAPI"), "4.15.0", false),
        (with(&fixture_text, "CloudCredential"), "4.15.0", true),
        (
            with(&fixture_text, "Ingress, CloudCredential"),
            "4.16.0",
            false,
        ),
        (with(&external, "Ingress"), "4.16.0", false),
        (with(&external, "Ingress, CloudCredential"), "4.16.0", true),
        (
            with(&external_ccm, "Ingress, CloudCredential"),
            "4.16.0",
            false,
        ),
        (
            with(
                &external_ccm,
                "Ingress, CloudCredential, CloudControllerManager",
            ),
            "4.21.0",
            true,
        ),
    ];
    for (i, (text, version, accepted)) in cases.iter().enumerate() {
        let (output, stderr, out) = run_case(dir.path(), i, text, version);
        if *accepted {
            assert!(output.status.success(), "case {i} ({version}): {stderr}");
        } else {
            assert_eq!(
                output.status.code(),
                Some(1),
                "case {i} ({version}): {stderr}"
            );
            assert!(
                stderr.contains("`capabilities`") && stderr.contains("capability"),
                "case {i}: {stderr}"
            );
            assert!(!out.exists());
        }
    }
}

/// More than one vCenter, or more than one network in a failure domain, release by release
/// as each installer takes them: refused, then behind a preview feature gate, then allowed.
#[test]
fn several_vcenters_and_networks_are_taken_where_the_release_takes_them() {
    let dir = tempfile::tempdir().unwrap();
    let fixture_text = fs::read_to_string(fixture()).unwrap();
    let two_vcenters = fixture_text.replacen(
        "    failureDomains:\n",
        "    - server: vcenter2.lab.example.org\n      user: installer@vsphere.local\n      password: fixture-vcenter-password\n      datacenters:\n      - dc2\n    failureDomains:\n",
        1,
    );
    let two_networks = fixture_text.replacen(
        "        networks:\n        - VM Network\n",
        "        networks:\n        - VM Network\n        - Storage Network\n",
        1,
    );
    let eleven: String = (0..11).map(|n| format!("        - net{n}\n")).collect();
    let eleven_networks = fixture_text.replacen(
        "        networks:\n        - VM Network\n",
        &format!("        networks:\n{eleven}"),
        1,
    );
    let preview = |text: &str| {
        text.replacen(
            "pullSecret:",
            "featureSet: TechPreviewNoUpgrade\npullSecret:",
            1,
        )
    };
    let vcenters = "`platform.vsphere.vcenters`";
    let networks = "`platform.vsphere.failureDomains[0].topology.networks`";
    let cases: Vec<(String, &str, Option<&str>)> = vec![
        (two_vcenters.clone(), "4.16.0", Some(vcenters)),
        (two_vcenters.clone(), "4.17.0", Some(vcenters)),
        (preview(&two_vcenters), "4.17.0", None),
        (two_vcenters.clone(), "4.18.0", None),
        (two_networks.clone(), "4.15.0", None),
        (two_networks.clone(), "4.17.0", Some(networks)),
        (two_networks.clone(), "4.18.0", Some(networks)),
        (preview(&two_networks), "4.18.0", None),
        (two_networks.clone(), "4.19.0", None),
        (eleven_networks, "4.20.0", Some(networks)),
    ];
    for (i, (config_text, version, refused)) in cases.iter().enumerate() {
        let (output, stderr, out) = run_case(dir.path(), i, config_text, version);
        match refused {
            None => assert!(output.status.success(), "case {i} ({version}): {stderr}"),
            Some(field) => {
                assert_eq!(
                    output.status.code(),
                    Some(1),
                    "case {i} ({version}): {stderr}"
                );
                assert!(stderr.contains(field), "case {i}: {stderr}");
                assert!(!out.exists());
                // Refused outright: the message names the first release that takes them.
                let first = match (i, *version) {
                    (0, _) => Some("OpenShift 4.17 or later"),
                    (5, "4.17.0") => Some("OpenShift 4.18 or later"),
                    _ => None,
                };
                if let Some(first) = first {
                    assert!(stderr.contains(first), "case {i}: {stderr}");
                }
            }
        }
    }
}

/// A deprecated `apiVIP` that `apiVIPs` also lists is taken, as the installer takes it (with
/// the deprecation warning); one it leaves out is refused (the mistakes above).
#[test]
fn a_deprecated_vip_that_agrees_with_the_list_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    let fixture_text = fs::read_to_string(fixture()).unwrap();
    let config = dir.path().join("install-config.yaml");
    fs::write(
        &config,
        fixture_text.replacen("    apiVIPs:\n", "    apiVIP: 10.0.0.5\n    apiVIPs:\n", 1),
    )
    .unwrap();
    let out = dir.path().join("out");
    let output = ignition(&config, &out, &["--release-version", "4.20.0"]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("deprecated") && stderr.contains("apiVIP"),
        "{stderr}"
    );
}

/// Settings of the VMs openshift-install makes itself (`diskType`, as the UPI documentation's
/// example has it, and `clusterOSImage`) are taken and said to be ignored: the configs carry
/// neither. An installer setting bootgen does not carry out is refused as such, not as an
/// unknown key.
#[test]
fn settings_of_the_installers_own_vms_are_ignored_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let fixture_text = fs::read_to_string(fixture()).unwrap();
    let config = dir.path().join("install-config.yaml");
    fs::write(
        &config,
        fixture_text.replacen(
            "    vcenters:\n",
            "    diskType: thin\n    clusterOSImage: http://192.0.2.9/rhcos-vmware.ova\n    vcenters:\n",
            1,
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let output = ignition(&config, &out, &["--release-version", "4.16.0"]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    for field in [
        "`platform.vsphere.diskType`",
        "`platform.vsphere.clusterOSImage`",
    ] {
        assert!(
            stderr.contains(field) && stderr.contains("ignored"),
            "{field}: {stderr}"
        );
    }
    fs::write(
        &config,
        fixture_text.replacen(
            "    vcenters:\n",
            "    hosts:\n    - role: bootstrap\n    vcenters:\n",
            1,
        ),
    )
    .unwrap();
    let output = ignition(&config, &dir.path().join("out-hosts"), &[]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("`platform.vsphere.hosts`")
            && stderr.contains("bootgen does not support it")
            && stderr.contains("--hosts"),
        "{stderr}"
    );
}

/// The single-vCenter `folder` and `resourcePool` as each installer takes them: until 4.12
/// absolute paths under the datacenter (and the cluster), from 4.13 also a bare name, joined.
#[test]
fn single_vcenter_paths_are_absolute_until_4_12() {
    let dir = tempfile::tempdir().unwrap();
    let fixture_text = fs::read_to_string(fixture()).unwrap();
    let start = fixture_text.find("platform:\n").unwrap();
    let end = fixture_text.find("pullSecret:").unwrap();
    let legacy = |extra: &str| {
        format!(
            "{}platform:\n  vsphere:\n    vCenter: vcenter.lab.example.org\n    username: installer@vsphere.local\n    password: fixture-vcenter-password\n    datacenter: dc1\n    defaultDatastore: ds1\n    cluster: rack1\n    network: VM Network\n{extra}{}",
            &fixture_text[..start],
            &fixture_text[end..]
        )
    };
    let cases = [
        (
            "    folder: openshift\n",
            "4.12.0",
            Some("platform.vsphere.folder"),
        ),
        ("    folder: openshift\n", "4.13.0", None),
        ("    folder: /dc1/vm/openshift\n", "4.12.0", None),
        (
            "    resourcePool: /dc1/host/rack1/pool1\n",
            "4.12.0",
            Some("platform.vsphere.resourcePool"),
        ),
        (
            "    resourcePool: /dc1/host/rack1/Resources/pool1\n",
            "4.12.0",
            None,
        ),
    ];
    for (i, (extra, version, refused)) in cases.iter().enumerate() {
        let (output, stderr, _) = run_case(dir.path(), i, &legacy(extra), version);
        match refused {
            None => assert!(output.status.success(), "case {i} ({version}): {stderr}"),
            Some(field) => {
                assert_eq!(output.status.code(), Some(1), "case {i}: {stderr}");
                assert!(
                    stderr.contains(&format!("`{field}`")) && stderr.contains("absolute"),
                    "case {i}: {stderr}"
                );
            }
        }
    }
}
