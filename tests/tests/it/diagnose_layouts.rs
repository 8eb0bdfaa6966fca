//! `bootgen diagnose` on bundles in the installer's own layout (as `openshift-install gather
//! bootstrap` combines them: `log-bundle-ID/` with `bootstrap/`, `serial/`, `rendered-assets/`,
//! journals in `--output=short`), unpacked directories, and hostile or damaged bundles: a path
//! leaving the bundle, a huge file, garbage JSON, an archive bomb, a truncated archive. Each gets
//! a clear error or a partial report; nothing crashes and nothing is written anywhere.

use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::process::Output;

use flate2::write::GzEncoder;
use flate2::Compression;
use serde_json::Value;

/// A tar.gz written entry by entry: (name, contents, mtime).
fn archive(entries: &[(&str, &[u8], u64)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
    for (name, contents, mtime) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(contents.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(*mtime);
        header.set_entry_type(tar::EntryType::Regular);
        // Written raw: the tar crate refuses `..` and absolute names, which is what some tests need.
        let gnu = header.as_gnu_mut().unwrap();
        gnu.name[..name.len()].copy_from_slice(name.as_bytes());
        header.set_cksum();
        builder.append(&header, *contents).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

fn diagnose(path: &Path, cwd: &Path) -> (Output, Option<Value>) {
    let output = bootgen_conformance::bootgen!()
        .args(["diagnose", "--json"])
        .arg(path)
        .current_dir(cwd)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&output.stdout).ok();
    (output, report)
}

/// Records as the installer's `bootstrap-service-record.sh` writes them.
const INSTALLER_BOOTKUBE: &str = r#"[
  {"timestamp": "2026-01-01T01:00:00Z", "phase": "service start"},
  {"timestamp": "2026-01-01T01:00:01Z", "phase": "stage start", "stage": "cb-bootstrap"}
]"#;
const INSTALLER_RELEASE: &str = r#"[
  {"timestamp": "2026-01-01T00:59:00Z", "phase": "service start"},
  {"timestamp": "2026-01-01T00:59:30Z", "phase": "service end", "result": "success"}
]"#;

/// A control-plane machine's console (the installer's `serial/` logs): Ignition never gets its
/// config from the machine-config server.
const MASTER_CONSOLE: &str = "[   12.000000] ignition[800]: GET https://api-int.ostest.example.com:22623/config/master: attempt #40\n\
[   12.100000] ignition[800]: GET error: Get \"https://api-int.ostest.example.com:22623/config/master\": dial tcp 192.0.2.10:22623: connect: connection refused\n";

fn installer_bundle() -> Vec<u8> {
    let journal = "Jan 01 01:00:01 bootstrap bootkube.sh[2001]: Starting cluster-bootstrap...\n\
                   Jan 01 01:30:00 bootstrap bootkube.sh[2001]: Waiting for the control plane to join...\n";
    archive(&[
        (
            "log-bundle-20260101013000/bootstrap/services/bootkube.json",
            INSTALLER_BOOTKUBE.as_bytes(),
            0,
        ),
        (
            "log-bundle-20260101013000/bootstrap/services/release-image.json",
            INSTALLER_RELEASE.as_bytes(),
            0,
        ),
        (
            "log-bundle-20260101013000/bootstrap/journals/bootkube.log",
            journal.as_bytes(),
            0,
        ),
        (
            "log-bundle-20260101013000/rendered-assets/openshift/etcd-bootstrap.done",
            b"",
            1_767_229_260,
        ),
        (
            "log-bundle-20260101013000/serial/ostest-master-0-console.log",
            MASTER_CONSOLE.as_bytes(),
            0,
        ),
        (
            "log-bundle-20260101013000/clusterapi/ostest-master-0.yaml",
            b"kind: Machine\n",
            0,
        ),
    ])
}

#[test]
fn the_installers_combined_bundle_is_diagnosed() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("log-bundle-20260101013000.tar.gz");
    fs::write(&bundle, installer_bundle()).unwrap();
    let (output, report) = diagnose(&bundle, dir.path());
    let report = report.unwrap();
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    let failure = &report["failure"];
    assert_eq!(
        failure["cause"], "machine-config-server-unreachable",
        "{report:#}"
    );
    assert_eq!(
        failure["what"],
        "bootkube.service never finished: stage cb-bootstrap did not end"
    );
    let evidence = failure["evidence"].as_array().unwrap();
    assert_eq!(evidence[0]["file"], "serial/ostest-master-0-console.log");
    assert_eq!(evidence[0]["line"], 2);
    // The marker's time is its archive entry's mtime.
    let timeline = report["timeline"].as_array().unwrap();
    assert!(
        timeline
            .iter()
            .any(|e| e["what"] == "etcd-bootstrap.done written"
                && e["time"] == "2026-01-01T01:01:00Z"),
        "{report:#}"
    );
}

#[test]
fn an_unpacked_bundle_directory_gives_the_same_diagnosis() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("bundle.tar.gz");
    fs::write(&bundle, installer_bundle()).unwrap();
    let unpacked = dir.path().join("unpacked");
    fs::create_dir(&unpacked).unwrap();
    tar::Archive::new(flate2::read::GzDecoder::new(
        &fs::read(&bundle).unwrap()[..],
    ))
    .unpack(&unpacked)
    .unwrap();
    let (_, from_archive) = diagnose(&bundle, dir.path());
    let (output, from_dir) = diagnose(&unpacked, dir.path());
    assert_eq!(output.status.code(), Some(1));
    let (a, b) = (from_archive.unwrap(), from_dir.unwrap());
    assert_eq!(a["failure"], b["failure"]);
}

#[test]
fn paths_leaving_the_bundle_are_skipped_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    fs::create_dir(&work).unwrap();
    let bundle = dir.path().join("evil.tar.gz");
    fs::write(
        &bundle,
        archive(&[
            ("../../escaped.json", b"[]", 0),
            ("/tmp/bootgen-absolute-escape.json", b"[]", 0),
            (
                "log-bundle-1/bootstrap/services/release-image.json",
                INSTALLER_RELEASE.as_bytes(),
                0,
            ),
        ]),
    )
    .unwrap();
    let (output, report) = diagnose(&bundle, &work);
    let report = report.unwrap();
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("../../escaped.json") && notes.contains("leaves the bundle"),
        "{notes}"
    );
    assert!(notes.contains("an absolute path"), "{notes}");
    assert_eq!(fs::read_dir(&work).unwrap().count(), 0);
    assert!(!dir.path().join("escaped.json").exists());
    assert!(!Path::new("/tmp/bootgen-absolute-escape.json").exists());
}

#[test]
fn garbage_json_is_named_and_the_rest_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("b.tar.gz");
    let journal = "2026-01-01T01:00:00+0000 bootstrap podman[9]: Error: initializing source docker://quay.io/a/b@sha256:1: unauthorized: authentication required\n";
    fs::write(
        &bundle,
        archive(&[
            (
                "log-bundle-1/bootstrap/services/release-image.json",
                b"{\"phase\": [garbage",
                0,
            ),
            (
                "log-bundle-1/bootstrap/journals/release-image.log",
                journal.as_bytes(),
                0,
            ),
            (
                "log-bundle-1/failed-units.txt",
                "\u{25cf} release-image.service loaded failed failed Download the release image\n"
                    .as_bytes(),
                0,
            ),
        ]),
    )
    .unwrap();
    let (output, report) = diagnose(&bundle, dir.path());
    let report = report.unwrap();
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert!(
        report["notes"]
            .to_string()
            .contains("bootstrap/services/release-image.json: not a JSON array"),
        "{report:#}"
    );
    assert_eq!(report["failure"]["what"], "release-image.service failed");
    assert_eq!(report["failure"]["cause"], "pull-unauthorized");
}

#[test]
fn a_huge_file_without_newlines_is_read_in_bounded_lines() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("huge.tar.gz");
    let mut huge = vec![b'x'; 64 << 20];
    huge.extend_from_slice(b"\nError: no space left on device\n");
    fs::write(
        &bundle,
        archive(&[
            (
                "log-bundle-1/bootstrap/services/release-image.json",
                INSTALLER_RELEASE.as_bytes(),
                0,
            ),
            ("log-bundle-1/bootstrap/journals/crio.log", &huge, 0),
        ]),
    )
    .unwrap();
    let (output, report) = diagnose(&bundle, dir.path());
    let report = report.unwrap();
    // Nothing failed in the records; the full disk is not taken for a failure on its own.
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert!(report.to_string().len() < 1 << 20, "the report stays small");
}

#[test]
fn not_a_bundle_is_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("notes.tar.gz");
    fs::write(&bundle, b"this is not gzip").unwrap();
    let (output, _) = diagnose(&bundle, dir.path());
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("notes.tar.gz") && stderr.contains("not a readable log bundle"),
        "{stderr}"
    );
    let (output, _) = diagnose(&dir.path().join("missing.tar.gz"), dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("missing.tar.gz"));
    // --now is for --node: with a bundle it would go unused, so it is bad usage.
    let output = bootgen_conformance::bootgen!()
        .args(["diagnose", "--now", "2026-01-01T00:00:00Z"])
        .arg(&bundle)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--now is for --node"));
}

#[test]
fn a_truncated_bundle_gives_a_partial_report() {
    let dir = tempfile::tempdir().unwrap();
    let journal =
        "2026-01-01T01:00:00+0000 bootstrap kubelet[1]: a line of the journal\n".repeat(20_000);
    let names: Vec<String> = (0..20)
        .map(|i| format!("log-bundle-1/bootstrap/journals/u{i}.log"))
        .collect();
    let mut entries: Vec<(&str, &[u8], u64)> = vec![(
        "log-bundle-1/bootstrap/services/bootkube.json",
        INSTALLER_BOOTKUBE.as_bytes(),
        0,
    )];
    entries.extend(names.iter().map(|n| (n.as_str(), journal.as_bytes(), 0)));
    let full = archive(&entries);
    let bundle = dir.path().join("cut.tar.gz");
    fs::write(&bundle, &full[..full.len() / 2]).unwrap();
    let (output, report) = diagnose(&bundle, dir.path());
    let report = report.unwrap();
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("cut.tar.gz: cannot read bootstrap/journals/u"),
        "{notes}"
    );
    // What came before the cut is reported: the records, where bootkube had not finished when
    // the bundle was gathered, which is the failure, with no known cause.
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert_eq!(
        report["failure"]["what"],
        "bootkube.service never finished: stage cb-bootstrap did not end"
    );
    assert!(report["failure"]["cause"].is_null(), "{report:#}");
    assert!(!report["timeline"].as_array().unwrap().is_empty());
}

/// Stopped inside its first entry, not after it; with no failure found in what was read, the
/// bundle is refused as damaged rather than called healthy.
#[test]
fn an_archive_bomb_stops_inside_its_first_entry() {
    // 256 MiB of zeros compress to a few hundred KiB: far beyond any log's ratio.
    let limits = bootgen::diagnose::Limits {
        ratio_applies_after: 32 << 20,
        ..Default::default()
    };
    let zeros = vec![0u8; 256 << 20];
    let mut builder = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::best()));
    for i in 0..3 {
        let mut header = tar::Header::new_gnu();
        header.set_size(zeros.len() as u64);
        header.set_mode(0o644);
        builder
            .append_data(
                &mut header,
                format!("log-bundle-1/bootstrap/journals/z{i}.log"),
                &zeros[..],
            )
            .unwrap();
    }
    let bomb = builder.into_inner().unwrap().finish().unwrap();
    let err = bootgen::diagnose::diagnose_archive(&bomb[..], "bomb.tar.gz", &limits)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("bomb.tar.gz: damaged: bootstrap/journals/z0.log")
            && err.contains("archive bomb"),
        "{err}"
    );
}

#[test]
fn a_symlink_in_a_directory_bundle_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside.log");
    let mut file = fs::File::create(&outside).unwrap();
    writeln!(file, "Error: no space left on device").unwrap();
    let bundle = dir.path().join("bundle");
    fs::create_dir_all(bundle.join("bootstrap/journals")).unwrap();
    fs::create_dir_all(bundle.join("bootstrap/services")).unwrap();
    fs::write(
        bundle.join("bootstrap/services/release-image.json"),
        INSTALLER_RELEASE,
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, bundle.join("bootstrap/journals/crio.log")).unwrap();
    // A FIFO (which would block a read) is skipped and said too.
    let fifo = bundle.join("bootstrap/journals/kubelet.log");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let (output, report) = diagnose(&bundle, dir.path());
    let report = report.unwrap();
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    let notes = report["notes"].to_string();
    assert!(notes.contains("a symbolic link"), "{report:#}");
    assert!(
        notes.contains("skipped bootstrap/journals/kubelet.log: not a regular file"),
        "{report:#}"
    );
}

/// The installer's bootkube records when the machine-config server was set up and
/// cluster-bootstrap then waited.
const INSTALLER_BOOTKUBE_WAITING: &str = r#"[
  {"timestamp": "2026-01-01T01:00:00Z", "phase": "service start"},
  {"timestamp": "2026-01-01T01:02:00Z", "phase": "stage start", "stage": "mco-bootstrap"},
  {"timestamp": "2026-01-01T01:02:39Z", "phase": "stage end", "stage": "mco-bootstrap", "result": "success"},
  {"timestamp": "2026-01-01T01:03:10Z", "phase": "stage start", "stage": "cb-bootstrap"}
]"#;

/// The bootstrap machine-config server's container log as the installer gathers it (`crictl
/// logs`), started at 01:02:40.
const MCS_LOG: &str = "I0101 01:02:40.512345       1 bootstrap.go:47] Version: v4.16.0-202512180000.p0.g1a2b3c4.assembly.stream.el9 (1a2b3c4d5e6f7a8b)\n\
I0101 01:02:40.514001       1 api.go:65] Launching server on :22624\n\
I0101 01:02:40.514107       1 api.go:65] Launching server on :22623\n";

/// An installer's bundle of a bootstrap waiting for the control plane, gathered at 01:30
/// (the time of its entries), with `masters` as the API's list of control-plane nodes.
fn installer_waiting_bundle(masters: &[u8]) -> Vec<u8> {
    installer_waiting_bundle_with(masters, "Pending")
}

/// The same, with cluster-bootstrap's last word on the cluster-version operator.
fn installer_waiting_bundle_with(masters: &[u8], cvo_state: &str) -> Vec<u8> {
    let gathered = 1_767_231_000;
    let journal = format!("Jan 01 01:03:10 bootstrap bootkube.sh[2001]: Starting temporary bootstrap control plane...\n\
                   Jan 01 01:04:30 bootstrap bootkube.sh[2001]: \tPod Status:openshift-kube-apiserver/kube-apiserver\tDoesNotExist\n\
                   Jan 01 01:04:30 bootstrap bootkube.sh[2001]: \tPod Status:openshift-cluster-version/cluster-version-operator\t{cvo_state}\n");
    let infrastructure = "apiVersion: config.openshift.io/v1\nkind: Infrastructure\nmetadata:\n  name: cluster\nstatus:\n  apiServerInternalURI: https://api-int.ostest.example.com:6443\n  apiServerURL: https://api.ostest.example.com:6443\n";
    archive(&[
        (
            "log-bundle-1/bootstrap/services/bootkube.json",
            INSTALLER_BOOTKUBE_WAITING.as_bytes(),
            gathered,
        ),
        (
            "log-bundle-1/bootstrap/journals/bootkube.log",
            journal.as_bytes(),
            gathered,
        ),
        (
            "log-bundle-1/bootstrap/containers/machine-config-server-7c8d9e0f1a2b.log",
            MCS_LOG.as_bytes(),
            gathered,
        ),
        (
            "log-bundle-1/rendered-assets/openshift/manifests/cluster-infrastructure-02-config.yml",
            infrastructure.as_bytes(),
            1_767_229_000,
        ),
        ("log-bundle-1/resources/masters.list", masters, gathered),
    ])
}

#[test]
fn the_installers_layout_shows_masters_that_never_reached_22623() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("log-bundle-1.tar.gz");
    fs::write(&bundle, installer_waiting_bundle(b"")).unwrap();
    let (output, report) = diagnose(&bundle, dir.path());
    let report = report.unwrap();
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    let failure = &report["failure"];
    assert_eq!(
        failure["cause"], "machine-config-server-unreachable",
        "{report:#}"
    );
    // No date file in the installer's bundle: the server's log was read at the gather, 01:30.
    let sentence = failure["sentence"].as_str().unwrap();
    assert!(sentence.contains("in the 27 minutes"), "{sentence}");
    let evidence = failure["evidence"].as_array().unwrap();
    assert!(
        evidence.iter().any(|e| e["file"]
            == "bootstrap/containers/machine-config-server-7c8d9e0f1a2b.log"
            && e["line"] == 3),
        "{report:#}"
    );
    let fix = failure["fix"].as_str().unwrap();
    assert!(
        fix.contains("https://api-int.ostest.example.com:22623/config/master"),
        "{fix}"
    );
    assert_eq!(failure["other_causes"], Value::Array(Vec::new()));
}

#[test]
fn a_ready_cluster_version_operator_does_not_hide_masters_that_never_reached_22623() {
    // The operator runs on the bootstrap node itself: its being ready is no control-plane machine.
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("log-bundle-1.tar.gz");
    fs::write(&bundle, installer_waiting_bundle_with(b"", "Ready")).unwrap();
    let (output, report) = diagnose(&bundle, dir.path());
    let report = report.unwrap();
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert_eq!(
        report["failure"]["cause"], "machine-config-server-unreachable",
        "{report:#}"
    );
}

#[test]
fn a_bootstrap_waiting_for_pods_without_error_lines_shows_their_states() {
    let gathered = 1_767_231_000;
    let journal = "Jan 01 01:04:30 bootstrap bootkube.sh[2001]: \tPod Status:openshift-kube-apiserver/kube-apiserver\tDoesNotExist\n\
                   Jan 01 01:04:30 bootstrap bootkube.sh[2001]: \tPod Status:openshift-kube-scheduler/openshift-kube-scheduler\tDoesNotExist\n\
                   Jan 01 01:09:30 bootstrap bootkube.sh[2001]: \tPod Status:openshift-kube-apiserver/kube-apiserver\tDoesNotExist\n";
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("log-bundle-1.tar.gz");
    let bytes = archive(&[
        (
            "log-bundle-1/bootstrap/services/bootkube.json",
            INSTALLER_BOOTKUBE.as_bytes(),
            gathered,
        ),
        (
            "log-bundle-1/bootstrap/journals/bootkube.log",
            journal.as_bytes(),
            gathered,
        ),
    ]);
    fs::write(&bundle, bytes).unwrap();
    let (output, report) = diagnose(&bundle, dir.path());
    let report = report.unwrap();
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    let failure = &report["failure"];
    assert!(failure["cause"].is_null(), "{report:#}");
    let sentence = failure["sentence"].as_str().unwrap();
    assert!(!sentence.contains("error lines are below"), "{sentence}");
    // The latest line of each pod, with its place in the bundle.
    let lines: Vec<u64> = failure["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [3, 2], "{report:#}");
    let text = bootgen_conformance::bootgen!()
        .arg("diagnose")
        .arg(&bundle)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("bootstrap/journals/bootkube.log:3:"),
        "{text}"
    );
}

#[test]
fn in_the_installers_layout_a_listed_master_reached_22623() {
    // The API lists a control-plane node: it got its config, so the server's silence in its
    // (perhaps restarted) log proves nothing.
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("log-bundle-1.tar.gz");
    fs::write(&bundle, installer_waiting_bundle(b"ostest-master-0\n")).unwrap();
    let (output, report) = diagnose(&bundle, dir.path());
    let report = report.unwrap();
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert!(report["failure"]["cause"].is_null(), "{report:#}");
}

#[test]
fn the_installers_layout_shows_pending_csrs_in_a_masters_kubelet_log() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("log-bundle-1.tar.gz");
    // journalctl --output=short, as the installer's masters gather writes it.
    let kubelet = "Jan 01 01:12:01 ostest-master-0 kubenswrapper[1900]: I0101 01:12:01.118930    1900 certificate_manager.go:356] kubernetes.io/kube-apiserver-client-kubelet: Rotating certificates\n\
                   Jan 01 01:27:01 ostest-master-0 kubenswrapper[1900]: E0101 01:27:01.119407    1900 certificate_manager.go:562] kubernetes.io/kube-apiserver-client-kubelet: Certificate request was not signed: timed out waiting for the condition\n";
    // oc get csr -o json: a request with no status is neither approved nor denied.
    let csrs = "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\n            \"apiVersion\": \"certificates.k8s.io/v1\",\n            \"kind\": \"CertificateSigningRequest\",\n            \"metadata\": {\n                \"name\": \"csr-8vnps\"\n            },\n            \"spec\": {\n                \"signerName\": \"kubernetes.io/kube-apiserver-client-kubelet\",\n                \"username\": \"system:serviceaccount:openshift-machine-config-operator:node-bootstrapper\"\n            },\n            \"status\": {}\n        }\n    ],\n    \"kind\": \"List\"\n}\n";
    fs::write(
        &bundle,
        archive(&[
            (
                "log-bundle-1/bootstrap/services/bootkube.json",
                INSTALLER_BOOTKUBE.as_bytes(),
                0,
            ),
            (
                "log-bundle-1/control-plane/192.0.2.21/journals/kubelet.log",
                kubelet.as_bytes(),
                0,
            ),
            ("log-bundle-1/resources/csr.json", csrs.as_bytes(), 0),
        ]),
    )
    .unwrap();
    let (output, report) = diagnose(&bundle, dir.path());
    let report = report.unwrap();
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    let failure = &report["failure"];
    assert_eq!(failure["cause"], "csr-pending", "{report:#}");
    let evidence = failure["evidence"].as_array().unwrap();
    for (file, line) in [
        ("control-plane/192.0.2.21/journals/kubelet.log", 2),
        ("resources/csr.json", 14),
    ] {
        assert!(
            evidence
                .iter()
                .any(|e| e["file"] == file && e["line"] == line),
            "no {file}:{line} in {report:#}"
        );
    }
    assert!(failure["fix"]
        .as_str()
        .unwrap()
        .contains("oc adm certificate approve"));
}
