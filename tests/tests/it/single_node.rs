//! Single-node OpenShift (`bootgen ignition --single-node`, bootstrap in place): the live-ISO
//! config for every supported release checked against `tests/expectations/single-node.toml`,
//! validated by `ignition-validate` and applied by the real Ignition; the refusals; and the
//! rest of bootgen composing with it (arm64, mirrors, holds, debug, compress, patch, inspect,
//! validate, golden view); the post-reboot step run against a stub cluster. bootkube's
//! in-place run itself is in `bootkube_behaviour.rs`.

use std::collections::BTreeMap;
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use bootgen_conformance::{check_applied, ignition_validate, repo, run, BaseRoot, IgnitionView};
use serde::Deserialize;

type TestResult = Result<(), Box<dyn Error>>;

const LIVE_ISO: &str = "bootstrap-in-place-for-live-iso.ign";
const DISK: &str = "/dev/disk/by-id/nvme-eui.0025388b91b1f2a3";

#[derive(Deserialize)]
struct Expectations {
    release: Vec<ReleaseExpectation>,
}

#[derive(Deserialize)]
struct ReleaseExpectation {
    minor: String,
    installer: Vec<String>,
    outputs: Vec<String>,
    cvo_patch: bool,
    etcd_member_dir: bool,
    post_reboot: Vec<String>,
}

fn expectations() -> Expectations {
    let path = repo().join("tests/expectations/single-node.toml");
    toml::from_str(&fs::read_to_string(&path).unwrap()).unwrap()
}

fn fixture() -> PathBuf {
    repo().join("fixtures/install-configs/single-node/edge-arm64.yaml")
}

/// `bootgen ignition` with `args` into `out`; the output, whatever the exit.
fn ignition(out: &Path, args: &[&str]) -> Output {
    bootgen_conformance::bootgen!()
        .arg("ignition")
        .args(args)
        .arg("--output")
        .arg(out)
        .arg("--key-algorithm")
        .arg("ecdsa-p256")
        .output()
        .unwrap()
}

fn ok(output: &Output) {
    assert!(
        output.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Files of the output directory, `auth/` and `tls/` left out.
/// The files the installer would also write (not bootgen's own record of the live-ISO estimate,
/// nor its lock).
fn outputs(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| {
            name != bootgen::output::ISO_ESTIMATE_FILE && name != bootgen::output::LOCK_FILE
        })
        .collect();
    names.sort();
    names
}

fn file_text(view: &IgnitionView, path: &str) -> String {
    let file = view
        .files
        .get(path)
        .unwrap_or_else(|| panic!("{path} is not in the config"));
    String::from_utf8(file.contents.clone().expect("contents")).unwrap()
}

/// The steps the post-reboot script runs: its lines after the last function body that are
/// plain calls.
fn post_reboot_steps(script: &str) -> Vec<String> {
    let tail = script.rsplit_once("\n}\n").map_or(script, |(_, t)| t);
    tail.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

/// Every release: the outputs, coreos-installer's flags, the installed node's Butane config and
/// the post-reboot steps match what that release's installer writes (its files and units are
/// compared with the installer's own config in installer_objects.rs); ignition-validate accepts
/// the configs and the real Ignition writes the live-ISO config exactly as it says.
#[test]
fn every_release_makes_its_installers_live_iso_config() -> TestResult {
    let expected = expectations();
    let minors: Vec<String> = bootgen::release::PROFILES
        .iter()
        .map(|p| p.minor.to_string())
        .collect();
    let covered: Vec<&String> = expected.release.iter().map(|r| &r.minor).collect();
    assert_eq!(
        covered,
        minors.iter().collect::<Vec<_>>(),
        "one row per supported release"
    );
    let mut problems = Vec::new();
    for release in &expected.release {
        let scratch = tempfile::tempdir()?;
        let out = scratch.path().join("out");
        let version = format!("{}.0", release.minor);
        let fixture = fixture();
        let output = ignition(
            &out,
            &[
                "--install-config",
                fixture.to_str().unwrap(),
                "--release-version",
                &version,
            ],
        );
        ok(&output);
        let minor = &release.minor;
        assert_eq!(outputs(&out), release.outputs, "{minor}: output files");
        for name in &release.outputs {
            if name.ends_with(".ign") {
                let (clean, report) = ignition_validate(&out.join(name));
                if !clean {
                    problems.push(format!("{minor}: ignition-validate {name}: {report}"));
                }
            }
        }
        let config = out.join(LIVE_ISO);
        let view = IgnitionView::load(&config)?;
        // coreos-installer: the installer's words, with bootgen's variable for the config
        // (master.ign, unless a static host was chosen: see static_network.rs).
        let install = file_text(&view, "/usr/local/bin/install-to-disk.sh");
        if !install.contains("INSTALL_CONFIG=\"$ASSET_DIR/master.ign\"") {
            problems.push(format!(
                "{minor}: install-to-disk.sh installs another config"
            ));
        }
        let line = install
            .lines()
            .map(str::trim)
            .find(|l| l.starts_with("coreos-installer "))
            .unwrap_or_default()
            .replace("\"$INSTALL_CONFIG\"", "/opt/openshift/master.ign");
        let mut want = vec!["coreos-installer".to_string()];
        want.extend(release.installer.iter().cloned());
        want.push("\"$INSTALLATION_DISK\"".into());
        if line.split_whitespace().collect::<Vec<_>>() != want {
            problems.push(format!(
                "{minor}: coreos-installer line `{line}`, want {want:?}"
            ));
        }
        if !install.contains(&format!("INSTALLATION_DISK='{DISK}'")) {
            problems.push(format!(
                "{minor}: install-to-disk.sh does not install to {DISK}"
            ));
        }
        let fcc = file_text(&view, "/opt/openshift/bootstrap-in-place/master-update.fcc");
        let butane: serde_yaml_ng::Value = serde_yaml_ng::from_str(&fcc)?;
        let files: Vec<&str> = butane["storage"]["files"]
            .as_sequence()
            .unwrap()
            .iter()
            .filter_map(|f| f["path"].as_str())
            .collect();
        if files.contains(&"/opt/openshift/original_cvo_overrides.patch") != release.cvo_patch {
            problems.push(format!("{minor}: master-update.fcc CVO patch: {files:?}"));
        }
        if view
            .files
            .contains_key("/opt/openshift/original_cvo_overrides.patch")
            != release.cvo_patch
        {
            problems.push(format!("{minor}: original_cvo_overrides.patch presence"));
        }
        let member_dir = butane["storage"]["directories"]
            .as_sequence()
            .is_some_and(|d| d.iter().any(|d| d["path"] == "/var/lib/etcd/member"));
        if member_dir != release.etcd_member_dir {
            problems.push(format!("{minor}: etcd member directory: {member_dir}"));
        }
        let post = file_text(
            &view,
            "/opt/openshift/bootstrap-in-place/bootstrap-in-place-post-reboot.sh",
        );
        if post_reboot_steps(&post) != release.post_reboot {
            problems.push(format!(
                "{minor}: post-reboot steps {:?}",
                post_reboot_steps(&post)
            ));
        }
        // The real Ignition writes it all.
        if let Some(root) = BaseRoot::new()
            .seed("/etc/motd", b"Red Hat Enterprise Linux CoreOS\n")
            .apply(&config)?
        {
            problems.extend(
                check_applied(&view, &root)?
                    .into_iter()
                    .map(|p| format!("{minor}: applied: {p}")),
            );
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    Ok(())
}

/// What cannot make a working single node is refused before anything is written, naming the
/// field or flag.
#[test]
fn impossible_single_nodes_are_refused_before_writing() -> TestResult {
    let base = fs::read_to_string(fixture())?;
    let cases: Vec<(&str, String, Vec<&str>, Vec<&str>)> = vec![
        (
            "three control-plane replicas",
            base.replace("  replicas: 1\n", "  replicas: 3\n"),
            vec!["--single-node"],
            vec!["controlPlane.replicas", "line 10", "replicas: 1"],
        ),
        (
            "compute replicas",
            base.replace("  replicas: 0\n", "  replicas: 2\n"),
            vec!["--single-node"],
            vec!["compute[0].replicas", "is 2", "replicas: 0"],
        ),
        (
            "no installation disk",
            base.replace(&format!("  installationDisk: {DISK}\n"), ""),
            vec![],
            vec![
                "bootstrapInPlace.installationDisk",
                "is required",
                "--installation-disk",
            ],
        ),
        (
            "a relative installation disk",
            base.replace(DISK, "sda"),
            vec![],
            vec!["bootstrapInPlace.installationDisk", "`sda`", "/dev/sda"],
        ),
        (
            "a relative --installation-disk",
            base.clone(),
            vec!["--installation-disk", "vda"],
            vec!["--installation-disk", "/dev/vda"],
        ),
        (
            "another platform",
            base.replace("  none: {}", "  baremetal: {}"),
            vec!["--single-node"],
            vec!["platform.baremetal", "not supported"],
        ),
        (
            "an installation disk without a single node",
            base.replace("  replicas: 1\n", "  replicas: 3\n")
                .replace("bootstrapInPlace:\n", "")
                .replace(&format!("  installationDisk: {DISK}\n"), ""),
            vec!["--installation-disk", "/dev/sda"],
            vec!["--installation-disk", "--single-node"],
        ),
    ];
    for (name, yaml, args, fragments) in cases {
        let scratch = tempfile::tempdir()?;
        let config = scratch.path().join("install-config.yaml");
        fs::write(&config, yaml)?;
        let out = scratch.path().join("out");
        let mut all = vec!["--install-config", config.to_str().unwrap()];
        all.extend(args);
        let output = ignition(&out, &all);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        for fragment in fragments {
            assert!(
                stderr.contains(fragment),
                "{name}: no `{fragment}` in: {stderr}"
            );
        }
        assert!(!out.exists(), "{name}: the output directory was created");
    }
    Ok(())
}

/// A bootstrap-machine install-config that happens to carry bootstrapInPlace still makes a
/// bootstrap machine's config, with a warning naming the field; and the two kinds of config never
/// share an output directory.
#[test]
fn the_two_kinds_of_config_do_not_mix() -> TestResult {
    let scratch = tempfile::tempdir()?;
    let config = scratch.path().join("install-config.yaml");
    fs::write(
        &config,
        fs::read_to_string(fixture())?.replace("  replicas: 1\n", "  replicas: 3\n"),
    )?;
    let out = scratch.path().join("out");
    let output = ignition(&out, &["--install-config", config.to_str().unwrap()]);
    ok(&output);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bootstrapInPlace") && stderr.contains("ignored"),
        "{stderr}"
    );
    assert!(out.join("bootstrap.ign").exists() && !out.join(LIVE_ISO).exists());

    let fixture = fixture();
    let output = ignition(&out, &["--install-config", fixture.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bootstrap.ign") && stderr.contains("another --output"),
        "{stderr}"
    );
    assert!(!out.join(LIVE_ISO).exists());
    Ok(())
}

/// One command from nothing: the embedded single-node example with a disk.
#[test]
fn the_embedded_single_node_example_needs_only_a_disk() -> TestResult {
    let scratch = tempfile::tempdir()?;
    let out = scratch.path().join("out");
    let output = ignition(&out, &["--single-node"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--installation-disk"));
    let output = ignition(&out, &["--single-node", "--installation-disk", "/dev/vda"]);
    ok(&output);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("bootgen iso rhcos-live.iso -c") && stdout.contains(LIVE_ISO),
        "{stdout}"
    );
    // The config travels only in the live ISO: its budget is the embed area's, and gzip (which
    // makes the xz-compressed embed bigger) is not recommended.
    for text in [
        stdout.to_string(),
        String::from_utf8_lossy(
            &run(bootgen_conformance::bootgen!()
                .arg("inspect")
                .arg(out.join(LIVE_ISO)))?
            .stdout,
        )
        .into_owned(),
    ] {
        assert!(text.contains("live ISO embed area"), "{text}");
        assert!(
            !text.contains("--compress") && !text.contains("gzip") && !text.contains("AWS"),
            "{text}"
        );
    }
    let view = IgnitionView::load(&out.join(LIVE_ISO))?;
    assert!(file_text(&view, "/usr/local/bin/install-to-disk.sh")
        .contains("INSTALLATION_DISK='/dev/vda'"));
    // The cluster records the disk it was installed to.
    let stored = file_text(&view, "/opt/openshift/manifests/cluster-config.yaml");
    assert!(stored.contains("installationDisk: /dev/vda"), "{stored}");
    Ok(())
}

/// Everything else composes: arm64, a mirror that must never contact the source, holds of
/// bootkube and install-to-disk with debug mode, compression; then inspect, validate --strict,
/// patch and the golden view read it, and the real Ignition applies it.
#[test]
fn single_node_composes_with_the_rest_of_bootgen() -> TestResult {
    let scratch = tempfile::tempdir()?;
    let out = scratch.path().join("out");
    let fixture = fixture();
    let output = ignition(
        &out,
        &[
            "--install-config",
            fixture.to_str().unwrap(),
            "--mirror",
            "quay.io/openshift-release-dev/ocp-release=mirror.lab.example.org:5000/ocp/release",
            "--mirror",
            "quay.io/openshift-release-dev/ocp-v4.0-art-dev=mirror.lab.example.org:5000/ocp/release",
            "--block-source",
            "--debug",
            "--disable-unit",
            "install-to-disk.service",
            "--compress",
        ],
    );
    ok(&output);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("ineffective"), "{stderr}");
    // gzip inside the ISO's xz makes the embedded archive larger: the user is told.
    assert!(
        stderr.contains(
            "warning: --compress: a single node's config travels only inside the live ISO"
        ),
        "{stderr}"
    );
    let config = out.join(LIVE_ISO);
    let (clean, report) = ignition_validate(&config);
    assert!(clean, "{report}");
    let view = IgnitionView::load(&config)?;
    for unit in ["bootkube.service", "install-to-disk.service"] {
        let dropins = &view.units[unit].dropins;
        assert!(
            dropins.contains_key("10-bootgen-hold.conf"),
            "{unit}: {dropins:?}"
        );
    }
    // A hold leaves enablement alone (released, the unit starts at the next boot).
    assert_eq!(view.units["install-to-disk.service"].enabled, Some(true));
    let motd = String::from_utf8(view.files["/etc/motd"].append.concat())?;
    assert!(
        motd.contains("install-to-disk.service") && motd.contains("bootkube-reset.sh"),
        "{motd}"
    );
    let registries = String::from_utf8(
        view.files["/etc/containers/registries.conf"]
            .contents
            .clone()
            .unwrap(),
    )?;
    assert!(registries.contains("mirror.lab.example.org:5000/ocp/release"));
    if let Some(root) = BaseRoot::new()
        .seed("/etc/motd", b"Red Hat Enterprise Linux CoreOS\n")
        .apply(&config)?
    {
        let problems = check_applied(&view, &root)?;
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    let inspect = run(bootgen_conformance::bootgen!().arg("inspect").arg(&config))?;
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(
        text.contains(&format!("installs itself to {DISK}")),
        "{text}"
    );
    assert!(
        text.contains("cb-bootstrap → stop-etcd → master-ignition"),
        "{text}"
    );
    assert!(text.contains("live ISO embed area"), "{text}");
    run(bootgen_conformance::bootgen!()
        .args(["validate", "--strict"])
        .arg(&config))?;

    // patch: the user releases the install-to-disk hold in the config itself.
    let patched = scratch.path().join("patched.ign");
    run(bootgen_conformance::bootgen!()
        .arg("patch")
        .arg(&config)
        .args(["--mask-unit", "zincati.service", "-o"])
        .arg(&patched))?;
    let (clean, report) = ignition_validate(&patched);
    assert!(clean, "{report}");

    // The golden view shows the live-ISO config (not an absent bootstrap.ign) and is stable.
    let golden = run(bootgen_conformance::bootgen!()
        .args(["inspect", "--golden"])
        .arg(&out))?;
    let golden = String::from_utf8(golden.stdout)?;
    assert!(
        golden.contains(&format!("######## {LIVE_ISO}")),
        "{}",
        &golden[..400.min(golden.len())]
    );
    assert!(!golden.contains("######## bootstrap.ign"));
    assert!(golden.contains("/usr/local/bin/install-to-disk.sh"));
    Ok(())
}

/// The single node's Butane config is Butane: every local file it names is one bootkube's
/// stages or the config itself put under /opt/openshift (or the directories mounted beside it).
#[test]
fn master_update_names_only_what_the_node_has() -> TestResult {
    let scratch = tempfile::tempdir()?;
    let out = scratch.path().join("out");
    let fixture = fixture();
    ok(&ignition(
        &out,
        &["--install-config", fixture.to_str().unwrap()],
    ));
    let view = IgnitionView::load(&out.join(LIVE_ISO))?;
    let fcc: serde_yaml_ng::Value = serde_yaml_ng::from_str(&file_text(
        &view,
        "/opt/openshift/bootstrap-in-place/master-update.fcc",
    ))?;
    assert_eq!(fcc["variant"], "fcos");
    assert_eq!(fcc["version"], "1.1.0");
    // Made by bootkube's stages (their outputs in bootkube.sh), or in the config, or mounted.
    let made_on_the_node: BTreeMap<&str, &str> = [
        ("original-master.ign", "master-ignition"),
        ("log-bundle-bootstrap.tar.gz", "master-ignition"),
        ("kubernetes/bootstrap-configs", "the bootstrap configs"),
        (
            "etcd-bootstrap/etc-kubernetes/static-pod-resources/etcd-member/",
            "etcd-bootstrap",
        ),
        (
            "etcd-bootstrap/etc-kubernetes/manifests/etcd-member-pod.yaml",
            "etcd-bootstrap",
        ),
        ("etcd-data", "etcd"),
        (
            "bootstrap-manifests/kube-apiserver-pod.yaml",
            "kube-apiserver-bootstrap",
        ),
        (
            "bootstrap-manifests/kube-controller-manager-pod.yaml",
            "kube-controller-manager-bootstrap",
        ),
        (
            "bootstrap-manifests/kube-scheduler-pod.yaml",
            "kube-scheduler-bootstrap",
        ),
        ("tls/", "the config's tls directory"),
    ]
    .into_iter()
    .collect();
    let mut locals: Vec<String> = vec![fcc["ignition"]["config"]["merge"][0]["local"]
        .as_str()
        .unwrap()
        .to_string()];
    for section in ["trees", "files"] {
        for entry in fcc["storage"][section].as_sequence().unwrap() {
            let local = entry["local"]
                .as_str()
                .or_else(|| entry["contents"]["local"].as_str())
                .unwrap();
            locals.push(local.to_string());
        }
    }
    for local in locals {
        let in_config = view.files.contains_key(&format!("/opt/openshift/{local}"))
            || local
                .strip_prefix("bin/")
                .is_some_and(|b| view.files.contains_key(&format!("/usr/local/bin/{b}")));
        assert!(
            in_config || made_on_the_node.contains_key(local.as_str()),
            "master-update.fcc names {local}, which nothing puts on the node"
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The post-reboot step on the installed node

/// An `oc` that plays the single node's cluster after the reboot: the API answers from its
/// second try; two new certificate requests (and one approved long ago); the node is Ready once
/// both are approved; the bootstrap's leases and config maps exist until deleted; the cluster
/// version becomes available on its second check. Every call goes to STUB_LOG; what changed
/// goes to STUB_STATE.
const STUB_OC: &str = r##"#!/usr/bin/env bash
printf 'oc %s\n' "$*" >>"${STUB_LOG:?}"
state=${STUB_STATE:?}
approved() { grep -qx "$1" "$state/approved" 2>/dev/null; }
csr() {
    if approved "$1"; then
        printf '{"metadata":{"name":"%s"},"status":{"conditions":[{"type":"Approved"}]}}' "$1"
    else
        printf '{"metadata":{"name":"%s"}%s}' "$1" "$2"
    fi
}
case "$1" in
get)
    case "$2" in
    csr)
        if [ "$#" -eq 2 ]; then
            [ -e "$state/api-up" ] && exit 0
            touch "$state/api-up"
            echo "The connection to the server was refused" >&2
            exit 1
        fi
        printf '{"items":[%s,%s,%s]}\n' "$(csr csr-kubelet-client '')" "$(csr csr-kubelet-serving ',"status":{}')" \
            '{"metadata":{"name":"csr-from-the-live-iso"},"status":{"conditions":[{"type":"Approved"}]}}'
        ;;
    nodes)
        if approved csr-kubelet-client && approved csr-kubelet-serving; then echo True; else echo False; fi
        ;;
    configmap)
        if [ "$3" = bootstrap ]; then [ -e "$state/created-configmap-bootstrap" ]; else [ ! -e "$state/deleted-configmap-$5-$3" ]; fi
        ;;
    lease) [ ! -e "$state/deleted-lease-$5-$3" ] ;;
    pods) echo True ;;
    --raw=/readyz) echo ok ;;
    clusterversion)
        if [ -e "$state/cvo-checked" ]; then echo True; else touch "$state/cvo-checked"; echo False; fi
        ;;
    clusteroperators) printf 'etcd False\nnetwork True\n' ;;
    *) echo "stub oc: unexpected $*" >&2; exit 2 ;;
    esac
    ;;
create) printf '%s\n' "$*" >"$state/created-configmap-$3" ;;
delete) touch "$state/deleted-$2-$5-$3" ;;
patch)
    for arg in "$@"; do
        case "$arg" in --patch-file=*) cp "${arg#--patch-file=}" "$state/cvo-patch" ;; esac
    done
    ;;
adm) shift 3; printf '%s\n' "$@" >>"$state/approved" ;;
*) echo "stub oc: unexpected $*" >&2; exit 2 ;;
esac
"##;

/// A systemctl that records its calls; restarting the kubelet marks it restarted.
const STUB_SYSTEMCTL: &str = r##"#!/usr/bin/env bash
printf 'systemctl %s\n' "$*" >>"${STUB_LOG:?}"
if [ "$*" = "restart kubelet" ]; then touch "${STUB_STATE:?}/kubelet-restarted"; fi
"##;

/// A sleep that returns at once; while it sleeps after a kubelet restart, the cluster's
/// kube-apiserver operator replaces the bootstrap kube-apiserver pod.
const STUB_SLEEP: &str = r##"#!/usr/bin/env bash
if [ -e "${STUB_STATE:?}/kubelet-restarted" ]; then
    printf 'metadata:\n  name: kube-apiserver\n' >"${STUB_POD:?}"
fi
"##;

/// After the reboot the installed node's bootkube.service runs the post-reboot script. Run for
/// every release against a stub cluster, it waits for the API, signals the end of the bootstrap
/// and gives back the user's CVO overrides and the bootstrap's leases where that release does,
/// approves exactly the node's pending certificate requests, restarts the kubelet twice (the
/// second time once the bootstrap kube-apiserver pod is gone), waits for the cluster version,
/// and removes the bootstrap's secrets and tools, leaving the node's own files.
#[test]
fn post_reboot_step_finishes_the_bootstrap_on_the_installed_node() -> TestResult {
    let expected = expectations();
    for release in &expected.release {
        let minor = &release.minor;
        let loaded = bootgen::config::load_default_single_node()?;
        let mut options = bootgen_conformance::quick_options(Some(&format!("{minor}.0")));
        options.model.installation_disk = Some(DISK.into());
        let generated = bootgen::generate(&loaded, &options)?;
        let view = IgnitionView::parse(&generated.bootstrap.to_bytes())?;
        let script = file_text(
            &view,
            "/opt/openshift/bootstrap-in-place/bootstrap-in-place-post-reboot.sh",
        );

        // The installed node as master-update.fcc leaves it.
        let node = tempfile::tempdir()?;
        let root = node.path();
        let node_file = |path: &str, text: &str| {
            let full = root.join(path.trim_start_matches('/'));
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, text).unwrap();
        };
        let bootstrap_paths = [
            "/etc/kubernetes/bootstrap-configs/kube-apiserver-config.yaml",
            "/etc/kubernetes/bootstrap-secrets/kubeconfig",
            "/etc/kubernetes/bootstrap-manifests/kube-apiserver-pod.yaml",
            "/usr/local/bin/installer-gather.sh",
            "/usr/local/bin/installer-masters-gather.sh",
            "/var/log/log-bundle-bootstrap.tar.gz",
            "/opt/openshift/original_cvo_overrides.patch",
        ];
        for path in bootstrap_paths {
            node_file(path, &format!("{path} of the bootstrap\n"));
        }
        let cvo_patch = view
            .files
            .get("/opt/openshift/original_cvo_overrides.patch")
            .and_then(|f| f.contents.clone())
            .map(|c| String::from_utf8(c).unwrap());
        if let Some(patch) = &cvo_patch {
            node_file("/opt/openshift/original_cvo_overrides.patch", patch);
        }
        let pod = "/etc/kubernetes/manifests/kube-apiserver-pod.yaml";
        node_file(pod, "metadata:\n  name: bootstrap-kube-apiserver\n");
        let kept = [
            "/etc/kubernetes/kubelet.conf",
            "/usr/local/bin/node-tool.sh",
        ];
        for path in kept {
            node_file(path, "the node's own\n");
        }
        node_file("/usr/local/bin/bootstrap-in-place-post-reboot.sh", &script);

        let stubs = node.path().join("stub-bin");
        bootgen_conformance::write_file(&stubs.join("oc"), STUB_OC, 0o755)?;
        bootgen_conformance::write_file(&stubs.join("systemctl"), STUB_SYSTEMCTL, 0o755)?;
        bootgen_conformance::write_file(&stubs.join("sleep"), STUB_SLEEP, 0o755)?;
        let state = node.path().join("stub-state");
        fs::create_dir_all(&state)?;
        let log = node.path().join("stub.log");
        let output = std::process::Command::new("bash")
            .arg(root.join("usr/local/bin/bootstrap-in-place-post-reboot.sh"))
            .env_clear()
            .env("PATH", format!("{}:/usr/bin:/bin", stubs.display()))
            .env("POST_REBOOT_ROOT", root)
            .env("POST_REBOOT_RETRY_DELAY", "0")
            .env("STUB_LOG", &log)
            .env("STUB_STATE", &state)
            .env("STUB_POD", root.join(pod.trim_start_matches('/')))
            .output()?;
        ok(&output);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let calls: Vec<String> = fs::read_to_string(&log)?
            .lines()
            .map(String::from)
            .collect();
        let position = |call: &str| {
            calls
                .iter()
                .position(|c| c.starts_with(call))
                .unwrap_or_else(|| panic!("{minor}: `{call}` never ran:\n{}", calls.join("\n")))
        };

        // The API is waited for; the node's two new requests are approved, the old one is not.
        assert!(
            stdout.contains("waiting for the API server"),
            "{minor}: {stdout}"
        );
        let approved = fs::read_to_string(state.join("approved"))?;
        assert_eq!(
            approved.lines().collect::<Vec<_>>(),
            ["csr-kubelet-client", "csr-kubelet-serving"],
            "{minor}"
        );
        assert!(stdout.contains("the node is Ready"), "{minor}: {stdout}");

        // The end of the bootstrap and the user's overrides, in the releases that do it.
        let signals = release
            .post_reboot
            .iter()
            .any(|s| s == "signal_bootstrap_complete");
        let created = fs::read_to_string(state.join("created-configmap-bootstrap")).ok();
        assert_eq!(
            created.as_deref(),
            signals.then_some(
                "create configmap bootstrap --namespace kube-system --from-literal status=complete\n"
            ),
            "{minor}"
        );
        let restored = fs::read_to_string(state.join("cvo-patch")).ok();
        if release
            .post_reboot
            .iter()
            .any(|s| s == "restore_cvo_overrides")
        {
            assert!(
                cvo_patch.is_some(),
                "{minor}: no overrides patch to restore"
            );
            assert_eq!(restored, cvo_patch, "{minor}: the patch restored");
        } else {
            assert_eq!(restored, None, "{minor}");
        }
        let leases = release
            .post_reboot
            .iter()
            .any(|s| s.starts_with("release_lease"));
        for (namespace, name) in [
            ("openshift-cluster-version", "version"),
            ("kube-system", "cluster-policy-controller-lock"),
        ] {
            for kind in ["lease", "configmap"] {
                assert_eq!(
                    state
                        .join(format!("deleted-{kind}-{namespace}-{name}"))
                        .exists(),
                    leases,
                    "{minor}: {kind} {namespace}/{name}"
                );
            }
        }

        // Kubelet restarts after the approvals, the second once the bootstrap pod is gone;
        // the cluster version is awaited (naming operators not yet available) before cleaning.
        let systemctl: Vec<&String> = calls
            .iter()
            .filter(|c| c.starts_with("systemctl"))
            .collect();
        assert_eq!(
            systemctl,
            [
                "systemctl daemon-reload",
                "systemctl restart kubelet",
                "systemctl restart kubelet",
                "systemctl disable bootkube.service"
            ],
            "{minor}"
        );
        assert!(position("oc adm certificate approve") < position("systemctl restart kubelet"));
        assert!(position("systemctl restart kubelet") < position("oc get clusterversion"));
        assert!(position("oc get clusterversion") < position("systemctl disable"));
        assert!(stdout.contains("etcd False"), "{minor}: {stdout}");
        assert!(!stdout.contains("network True"), "{minor}: {stdout}");

        // The bootstrap's secrets and tools are gone; the node's own files stay.
        for path in bootstrap_paths {
            assert!(
                !root.join(path.trim_start_matches('/')).exists(),
                "{minor}: {path} left behind"
            );
        }
        assert!(!root.join("opt/openshift").exists(), "{minor}");
        for path in kept.iter().chain([&pod]) {
            assert!(
                root.join(path.trim_start_matches('/')).exists(),
                "{minor}: {path} removed"
            );
        }
    }
    Ok(())
}
