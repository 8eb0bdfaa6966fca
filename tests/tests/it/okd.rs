//! OKD: the payload chooses the distribution (its tag, its repository, the mirror it is pulled
//! through) or `--distribution` does when nothing says it; an option that contradicts the
//! payload is refused. OKD's node differs from OpenShift's where OKD's installer makes it differ
//! (checked object by object against that installer in installer_objects.rs); here the parts a
//! user sees and the scripts that only OKD runs, under stubs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::lab::Lab;
use bootgen_conformance::{run, write_file, IgnitionView};
use serde_yaml_ng::Value;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

const OKD_4_16: &str = "quay.io/okd/scos-release:4.16.0-okd-scos.0";
const DIGEST: &str = "sha256:5e1f8c0b0a7d4e3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6b5a";

/// The lab cluster under `okd.example.com`, with `tail`; its pull secret is a placeholder, as
/// OKD's images are public.
fn install_config(dir: &Path, tail: &str) -> std::path::PathBuf {
    let text = Lab {
        base_domain: "okd.example.com",
        tail,
        ..Lab::default()
    }
    .install_config();
    let path = dir.join("install-config.yaml");
    fs::write(&path, text).unwrap();
    path
}

/// `bootgen ignition` for the install-config in `dir`, with `args`, into `dir/out`.
fn ignition(dir: &Path, args: &[&str]) -> Output {
    bootgen_conformance::bootgen!()
        .args([
            "ignition",
            "--key-algorithm",
            "ecdsa-p256",
            "--install-config",
        ])
        .arg(dir.join("install-config.yaml"))
        .args(args)
        .arg("--output")
        .arg(dir.join("out"))
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn file(view: &IgnitionView, path: &str) -> String {
    let entry = view
        .files
        .get(path)
        .unwrap_or_else(|| panic!("{path} is not on the node"));
    text(entry.contents.as_deref().unwrap_or_default())
}

/// The ClusterVersion's update channel and graph.
fn channel_and_upstream(view: &IgnitionView) -> (String, Option<String>) {
    let cv: Value =
        serde_yaml_ng::from_str(&file(view, "/opt/openshift/manifests/cvo-overrides.yaml"))
            .unwrap();
    (
        cv["spec"]["channel"].as_str().unwrap().to_string(),
        cv["spec"]["upstream"].as_str().map(str::to_string),
    )
}

/// What `bootgen inspect` says a config was made for.
fn made_for(config: &Path) -> String {
    let output = run(bootgen_conformance::bootgen!().arg("inspect").arg(config)).unwrap();
    text(&output.stdout)
        .lines()
        .find(|l| l.starts_with("made for "))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn an_okd_payload_makes_okds_node() {
    let dir = tempfile::tempdir().unwrap();
    install_config(dir.path(), "");
    let output = ignition(dir.path(), &["--release-image", OKD_4_16]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("OKD release"),
        "{}",
        text(&output.stdout)
    );
    let config = dir.path().join("out/bootstrap.ign");
    let okd = IgnitionView::load(&config).unwrap();
    assert_eq!(
        channel_and_upstream(&okd),
        (
            "stable-scos-4".to_string(),
            Some("https://amd64.origin.releases.ci.openshift.org/graph".to_string())
        )
    );
    // OKD's installer keeps a template for a subscription-content Secret but never writes it.
    assert!(!okd
        .files
        .contains_key("/opt/openshift/openshift/90-okd-sca-pull-disable.yaml"));
    // 4.16: the pivot runs before bootkube and the kubelet, and CRI-O's configuration needs it.
    let pivot = okd.units["release-image-pivot.service"]
        .contents
        .clone()
        .unwrap_or_default();
    assert!(
        pivot.contains("ExecStart=/usr/local/bin/bootstrap-pivot.sh"),
        "{pivot}"
    );
    assert!(
        pivot.contains("Before=bootkube.service kubelet.service"),
        "{pivot}"
    );
    let crio = okd.units["crio-configure.service"]
        .contents
        .clone()
        .unwrap();
    assert!(
        crio.contains("Requires=release-image-pivot.service"),
        "{crio}"
    );
    assert!(!okd.units.contains_key("systemd-journal-gatewayd.socket"));
    assert!(!okd.units.contains_key("chown-gatewayd-key.service"));
    assert!(made_for(&config).starts_with("made for OKD 4.16.0-okd-scos.0"));

    // The same install-config with OpenShift's payload: OpenShift's node.
    let ocp_dir = tempfile::tempdir().unwrap();
    install_config(ocp_dir.path(), "");
    let output = ignition(ocp_dir.path(), &["--release-version", "4.16.0"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let config = ocp_dir.path().join("out/bootstrap.ign");
    let ocp = IgnitionView::load(&config).unwrap();
    assert_eq!(
        channel_and_upstream(&ocp),
        ("stable-4.16".to_string(), None)
    );
    assert_eq!(
        ocp.units["release-image-pivot.service"].contents.as_deref(),
        Some("")
    );
    assert!(ocp.units.contains_key("systemd-journal-gatewayd.socket"));
    assert!(made_for(&config).starts_with("made for OpenShift 4.16.0"));
}

#[test]
fn the_distribution_comes_from_the_payload_or_the_option() {
    let channel_of = |dir: &Path| {
        let view = IgnitionView::load(&dir.join("out/bootstrap.ign")).unwrap();
        channel_and_upstream(&view).0
    };
    // OKD's repository by digest (the version from --release-version, as for any digest).
    let by_digest = tempfile::tempdir().unwrap();
    install_config(by_digest.path(), "");
    let image = format!("quay.io/okd/scos-release@{DIGEST}");
    let output = ignition(
        by_digest.path(),
        &["--release-image", &image, "--release-version", "4.17.0"],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(channel_of(by_digest.path()), "stable-scos-4");

    // A digest on a mirror says nothing: OpenShift unless --distribution says OKD.
    let mirrored = format!("mirror.lab.example.com:5000/okd4/release@{DIGEST}");
    let plain = tempfile::tempdir().unwrap();
    install_config(plain.path(), "");
    let output = ignition(
        plain.path(),
        &["--release-image", &mirrored, "--release-version", "4.17.0"],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(channel_of(plain.path()), "stable-4.17");
    let asked = tempfile::tempdir().unwrap();
    install_config(asked.path(), "");
    let output = ignition(
        asked.path(),
        &[
            "--release-image",
            &mirrored,
            "--release-version",
            "4.17.0",
            "--distribution",
            "okd",
        ],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(channel_of(asked.path()), "stable-scos-4");

    // Through a mirror the install-config maps OKD's repository to.
    let through = tempfile::tempdir().unwrap();
    install_config(
        through.path(),
        "imageDigestSources:\n- source: quay.io/okd/scos-release\n  mirrors:\n  - mirror.lab.example.com:5000/okd4/release\n",
    );
    let output = ignition(
        through.path(),
        &["--release-image", &mirrored, "--release-version", "4.17.0"],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(channel_of(through.path()), "stable-scos-4");
}

#[test]
fn a_distribution_the_payload_contradicts_is_refused_and_nothing_is_written() {
    let refused = |args: &[&str], says: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        install_config(dir.path(), "");
        let output = ignition(dir.path(), args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        for word in says {
            assert!(stderr.contains(word), "{args:?}: `{word}` not in: {stderr}");
        }
        assert!(!stderr.contains("aWQ6cGFzcwo="), "{stderr}");
        assert!(!dir.path().join("out").exists(), "{args:?}: output written");
    };
    let ocp = "quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64";
    refused(
        &["--release-image", ocp, "--distribution", "okd"],
        &["--distribution", ocp, "OpenShift payload, not OKD"],
    );
    refused(
        &["--release-image", OKD_4_16, "--distribution", "ocp"],
        &["--distribution", OKD_4_16, "OKD payload, not OpenShift"],
    );
    // OKD's tags carry a build number no version names: the payload must be given.
    refused(
        &["--release-version", "4.16.0", "--distribution", "okd"],
        &[
            "--distribution",
            "quay.io/okd/scos-release:4.16.0-okd-scos.0",
        ],
    );
    // Before 4.12 the installer had no scos build: the payload is at fault when it said OKD,
    // --distribution when that asked for it.
    refused(
        &[
            "--release-image",
            "quay.io/okd/scos-release:4.11.0-okd-scos.0",
        ],
        &["error: --release-image: OKD 4.11", "4.12"],
    );
    refused(
        &["--release-version", "4.11.0", "--distribution", "okd"],
        &["error: --distribution: OKD 4.11", "4.12"],
    );
    refused(&["--distribution", "fcos"], &["fcos", "ocp or okd"]);
    // OKD on Fedora CoreOS (before OKD moved to CentOS Stream) is not made as if it were OCP.
    refused(
        &[
            "--release-image",
            "quay.io/openshift/okd:4.15.0-0.okd-2024-03-10-010116",
        ],
        &[
            "--release-image",
            "Fedora CoreOS",
            "quay.io/okd/scos-release",
        ],
    );
}

/// A node under stubs for one of OKD's scripts: the script's absolute paths moved into a
/// scratch root, `image_for` answering for the payload, and podman, rpm-ostree and systemctl
/// logging what they are asked.
struct PivotNode {
    dir: tempfile::TempDir,
}

impl PivotNode {
    fn new(view: &IgnitionView, os_id: &str) -> PivotNode {
        let node = PivotNode {
            dir: tempfile::tempdir().unwrap(),
        };
        let root = node.root();
        let moved = |script: &str| {
            script
                .replace(
                    "/usr/local/bin/",
                    &format!("{}/usr/local/bin/", root.display()),
                )
                .replace("/etc/", &format!("{}/etc/", root.display()))
                .replace(
                    "/opt/openshift/",
                    &format!("{}/opt/openshift/", root.display()),
                )
                .replace("/run/", &format!("{}/run/", root.display()))
        };
        for name in ["bootstrap-pivot.sh", "bootstrap-service-record.sh"] {
            let path = format!("/usr/local/bin/{name}");
            write_file(&root.join(&path[1..]), moved(&file(view, &path)), 0o755).unwrap();
        }
        write_file(
            &root.join("usr/local/bin/release-image.sh"),
            "image_for() { echo \"quay.example/okd/payload-$1@sha256:2222\"; }\n",
            0o644,
        )
        .unwrap();
        write_file(
            &root.join("etc/os-release"),
            format!("ID={os_id}\nPRETTY_NAME=\"{os_id} CoreOS\"\n"),
            0o644,
        )
        .unwrap();
        write_file(&root.join("etc/containers/registries.conf"), "", 0o600).unwrap();
        fs::create_dir_all(root.join("opt/openshift")).unwrap();
        for tool in ["podman", "rpm-ostree", "systemctl"] {
            write_file(
                &root.join("bin").join(tool),
                format!("#!/bin/sh\necho \"{tool} $*\" >>\"$STUB_LOG\"\n"),
                0o755,
            )
            .unwrap();
        }
        node
    }

    fn root(&self) -> std::path::PathBuf {
        self.dir.path().to_path_buf()
    }

    fn run(&self) -> (Output, String) {
        let root = self.root();
        let log = root.join("stub.log");
        let output = Command::new("bash")
            .arg(root.join("usr/local/bin/bootstrap-pivot.sh"))
            .env_clear()
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", root.join("bin").display()),
            )
            .env("STUB_LOG", &log)
            .env(
                "SERVICE_RECORDS_DIR",
                format!("{}/", root.join("records").display()),
            )
            .output()
            .unwrap();
        let calls = fs::read_to_string(&log).unwrap_or_default();
        fs::write(&log, "").unwrap();
        (output, calls)
    }
}

fn okd_view(version: &str) -> IgnitionView {
    let dir = tempfile::tempdir().unwrap();
    install_config(dir.path(), "");
    let image = format!("quay.io/okd/scos-release:{version}-okd-scos.0");
    let output = ignition(dir.path(), &["--release-image", &image]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    IgnitionView::load(&dir.path().join("out/bootstrap.ign")).unwrap()
}

/// Until 4.18 OKD rebases the boot image onto the payload's node image once, and reboots; from
/// 4.14 a CentOS Stream CoreOS boot image is kept, as OKD's installer does.
#[test]
fn the_okd_pivot_rebases_once_onto_the_payloads_node_image() {
    // 4.12: always rebased, onto centos-stream-coreos-9.
    let node = PivotNode::new(&okd_view("4.12.0"), "centos");
    let (output, calls) = node.run();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let image = "quay.example/okd/payload-centos-stream-coreos-9@sha256:2222";
    assert!(
        calls.contains(&format!("podman pull --quiet {image}")),
        "{calls}"
    );
    assert!(
        calls.contains(&format!(
            "rpm-ostree rebase --experimental ostree-unverified-registry:{image}"
        )),
        "{calls}"
    );
    assert!(calls.ends_with("systemctl reboot\n"), "{calls}");
    assert!(node.root().join("opt/openshift/.pivot-done").exists());
    let conf = fs::metadata(node.root().join("etc/containers/registries.conf")).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&conf.permissions()) & 0o777,
        0o644
    );
    let records =
        fs::read_to_string(node.root().join("records/bootstrap-pivot.json")).unwrap_or_default();
    assert!(records.contains("rebase-to-okd-os-image"), "{records}");
    // After the reboot: nothing again.
    let (output, calls) = node.run();
    assert!(output.status.success());
    assert_eq!(calls, "", "rebased twice");

    // 4.16: a CentOS Stream CoreOS boot image stays; another one is rebased onto stream-coreos.
    let view = okd_view("4.16.0");
    let (output, calls) = PivotNode::new(&view, "centos").run();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(calls, "", "a CentOS Stream CoreOS boot image was rebased");
    let (output, calls) = PivotNode::new(&view, "fedora").run();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        calls.contains(
            "ostree-unverified-registry:quay.example/okd/payload-stream-coreos@sha256:2222"
        ),
        "{calls}"
    );
    // 4.19 on: no pivot at all.
    let later = okd_view("4.19.0");
    assert!(!later
        .files
        .contains_key("/usr/local/bin/bootstrap-pivot.sh"));
    assert!(!later.units.contains_key("release-image-pivot.service"));
}

/// The node image a boot image without OpenShift's content overlays: OKD's by its own name
/// (4.19 to 4.21), and from 4.22 its one OS stream, centos-10, with no OSImageStream manifest.
#[test]
fn okd_overlays_its_own_node_image() {
    let resolve = |view: &IgnitionView| {
        let script = file(view, "/usr/local/bin/node-image-pull.sh");
        let start = script.find("resolve_node_image() {").unwrap();
        let end = start + script[start..].find("\n}\n").unwrap() + 3;
        script[start..end].to_string()
    };
    let function = resolve(&okd_view("4.21.0"));
    let program = format!(
        "set -euo pipefail\nimage_for() {{ echo \"quay.example/payload/$1@sha256:2222\"; }}\n{function}\nresolve_node_image\n"
    );
    let output = Command::new("bash")
        .args(["-c", &program])
        .env_clear()
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout).trim(),
        "quay.example/payload/stream-coreos@sha256:2222"
    );
    let five = okd_view("5.0.0");
    let function = resolve(&five);
    assert!(
        function.contains("--osimagestream-name 'centos-10'"),
        "{function}"
    );
    assert!(!five
        .files
        .contains_key("/opt/openshift/openshift/99_osimagestream.yaml"));
    let stored = file(&five, "/opt/openshift/manifests/cluster-config.yaml");
    assert!(stored.contains("osImageStream: centos-10"), "{stored}");
}

#[test]
fn bootgen_releases_shows_okd() {
    let list = run(bootgen_conformance::bootgen!().arg("releases")).unwrap();
    let list = text(&list.stdout);
    let row = |minor: &str| {
        list.lines()
            .find(|l| l.split_whitespace().next() == Some(minor))
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        row("4.11").contains(" ocp ") && !row("4.11").contains("okd"),
        "{list}"
    );
    assert!(row("4.12").contains("ocp okd"), "{list}");
    let one = run(bootgen_conformance::bootgen!().args(["releases", "4.16"])).unwrap();
    let one = text(&one.stdout);
    assert!(
        one.contains("OKD payloads quay.io/okd/scos-release, channel stable-scos-4")
            && one.contains("node image stream-coreos"),
        "{one}"
    );
    let diff = run(bootgen_conformance::bootgen!().args(["releases", "4.11", "4.12"])).unwrap();
    assert!(
        text(&diff.stdout).contains("OKD: made from here on"),
        "{}",
        text(&diff.stdout)
    );
    // OKD's own switches are compared too: the pivot ends with 4.18. OpenShift's changes are
    // listed once, unprefixed, not again for OKD.
    let diff = run(bootgen_conformance::bootgen!().args(["releases", "4.18", "4.19"])).unwrap();
    let diff = text(&diff.stdout);
    assert!(diff.contains("  OKD: okd_pivot: no\n"), "{diff}");
    assert!(
        diff.contains("  mcs_ca: yes\n") && !diff.contains("OKD: mcs_ca"),
        "{diff}"
    );
}

/// OKD's node of every release that has one leaves nothing to warn about: no warning (the
/// unit lint's included) and `--strict` passes, the placeholder pull secret included.
#[test]
fn every_okd_release_generates_under_strict() {
    for profile in bootgen::release::PROFILES.iter() {
        if profile
            .distribution(bootgen::release::Distribution::Okd)
            .is_none()
        {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        install_config(dir.path(), "");
        let image = format!("quay.io/okd/scos-release:{}.0-okd-scos.0", profile.minor);
        let output = ignition(dir.path(), &["--release-image", &image, "--strict"]);
        let stderr = text(&output.stderr);
        // A release still in development says so, and nothing else.
        let development = format!("warning: OKD {} is still in development", profile.minor);
        let warnings: Vec<&str> = stderr
            .lines()
            .filter(|l| l.contains("warning"))
            .filter(|l| !(profile.development && l.starts_with(&development)))
            .collect();
        assert!(
            output.status.success() && warnings.is_empty(),
            "OKD {}: {stderr}",
            profile.minor
        );
    }
}
