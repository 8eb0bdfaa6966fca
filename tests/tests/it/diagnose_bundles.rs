//! `bootgen diagnose` on log bundles made the way real ones are: bootgen's real
//! `installer-gather.sh` run against a scripted failing node (`failing_node`), whose service
//! records come from bootgen's real `bootstrap-service-record.sh` and whose journals and
//! container logs carry the messages the failing component prints. One node per cause, each
//! diagnosed from its bundle and again with `--node` on the node's own files and stub tools, and
//! each yielding its cause alone: no other cause may find evidence in it (none steals another's
//! case).

use std::path::{Path, PathBuf};
use std::process::Output;

use bootgen_conformance::failing_node::scenes::{line_at, waiting_for_the_control_plane};
use bootgen_conformance::failing_node::FailingNode;
use serde_json::Value;

/// A journal line as `journalctl --output=short-iso` prints it.
fn line(ident: &str, message: &str) -> String {
    line_at("01:05:00", ident, message)
}

fn diagnose(bundle: &Path) -> (Output, Value) {
    let output = bootgen_conformance::bootgen!()
        .args(["diagnose", "--json"])
        .arg(bundle)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "no JSON ({err}): {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output, report)
}

/// What a diagnosis must say: its cause, a fragment of the sentence, the file of some
/// evidence, a fragment of the fix.
struct Expect<'a> {
    cause: &'a str,
    sentence: &'a str,
    evidence_in: &'a str,
    fix: &'a str,
}

fn check(node: &FailingNode, expect: &Expect<'_>) -> Value {
    let bundle = node.gather("20260101011000").unwrap();
    let (output, report) = diagnose(&bundle);
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    let failure = &report["failure"];
    assert_eq!(failure["cause"], expect.cause, "{report:#}");
    let sentence = failure["sentence"].as_str().unwrap();
    assert!(sentence.contains(expect.sentence), "{sentence}");
    let evidence = failure["evidence"].as_array().unwrap();
    assert!(
        evidence
            .iter()
            .any(|e| e["file"].as_str().unwrap().contains(expect.evidence_in)
                && e["line"].as_u64().unwrap() >= 1),
        "no evidence in {}: {report:#}",
        expect.evidence_in
    );
    let fix = failure["fix"].as_str().unwrap();
    assert!(fix.contains(expect.fix), "{fix}");
    // Its cause alone: no other cause found evidence in this bundle.
    assert_eq!(
        failure["other_causes"],
        Value::Array(Vec::new()),
        "{report:#}"
    );
    // The node itself, read where it lies, gives the same cause.
    let (output, on_node) = diagnose_node(node);
    assert_eq!(output.status.code(), Some(1), "{on_node:#}");
    assert_eq!(on_node["failure"]["cause"], expect.cause, "{on_node:#}");
    report
}

/// A node whose release image pull fails with `message` in release-image.service's journal.
fn release_pull_fails(message: &str) -> FailingNode {
    FailingNode::new(None)
        .unwrap()
        .journal(
            "release-image.service",
            &line("release-image-download.sh[1201]", &format!(
                "Pull of release image quay.io/openshift-release-dev/ocp-release@sha256:4f1e failed (attempt 3): {message}"
            )),
        )
        .unwrap()
        .journal("release-image.service", &line("release-image-download.sh[1201]", "Giving up after 3 attempts."))
        .unwrap()
        .service("release-image", "record_service_stage_start pull-release-image\nexit 1")
        .unwrap()
        .failed_unit("release-image.service")
        .unwrap()
}

/// A node whose bootkube failed in `stage` after the earlier ones, with `journal` in its
/// journal.
fn bootkube_fails(stage: &str, journal: &str) -> FailingNode {
    FailingNode::release_pulled()
        .unwrap()
        .journal("bootkube.service", journal)
        .unwrap()
        .service(
            "bootkube",
            &format!(
                "record_service_stage_start openshift-manifests\nrecord_service_stage_success\n\
                 record_service_stage_start {stage}\nexit 1"
            ),
        )
        .unwrap()
        .file("/opt/openshift/openshift-manifests.done", "")
        .unwrap()
        .failed_unit("bootkube.service")
        .unwrap()
}

#[test]
fn pull_refused_names_the_registry() {
    let node = release_pull_fails(
        "Error: initializing source docker://quay.io/openshift-release-dev/ocp-release@sha256:4f1e: reading manifest sha256:4f1e in quay.io/openshift-release-dev/ocp-release: unauthorized: access to the requested resource is not authorized",
    );
    let report = check(
        &node,
        &Expect {
            cause: "pull-unauthorized",
            sentence: "quay.io",
            evidence_in: "release-image",
            fix: "--registry-auth",
        },
    );
    let failure = &report["failure"];
    assert_eq!(failure["service"], "release-image");
    assert_eq!(failure["stage"], "pull-release-image");
    // The timeline has the records of both the stage and the service.
    let timeline = report["timeline"].as_array().unwrap();
    assert!(timeline
        .iter()
        .any(|e| e["what"] == "stage pull-release-image ended: failure"));
}

#[test]
fn mirror_ca_missing() {
    let node = release_pull_fails(
        "Error: initializing source docker://mirror.lab:8443/ocp/release@sha256:4f1e: pinging container registry mirror.lab:8443: Get \"https://mirror.lab:8443/v2/\": tls: failed to verify certificate: x509: certificate signed by unknown authority",
    );
    check(
        &node,
        &Expect {
            cause: "unknown-authority",
            sentence: "mirror.lab",
            evidence_in: "release-image",
            fix: "--trust-bundle",
        },
    );
}

#[test]
fn mirror_name_does_not_resolve() {
    let node = release_pull_fails(
        "Error: initializing source docker://mirror.lab:8443/ocp/release@sha256:4f1e: pinging container registry mirror.lab:8443: Get \"https://mirror.lab:8443/v2/\": dial tcp: lookup mirror.lab on 192.0.2.53:53: no such host",
    );
    check(
        &node,
        &Expect {
            cause: "name-resolution",
            sentence: "mirror.lab ",
            evidence_in: "release-image",
            fix: "--add-host <ip>=mirror.lab",
        },
    );
}

#[test]
fn api_int_does_not_resolve() {
    let node = bootkube_fails(
        "resolve-api-int-url",
        &(line(
            "bootkube.sh[2001]",
            "api-int.ostest.example.com does not resolve yet (attempt 60)",
        ) + &line(
            "bootkube.sh[2001]",
            "lookup api-int.ostest.example.com on 192.0.2.53:53: no such host",
        )),
    );
    check(
        &node,
        &Expect {
            cause: "name-resolution",
            sentence: "api-int.ostest.example.com",
            evidence_in: "bootkube",
            fix: "api-int.ostest.example.com",
        },
    );
}

#[test]
fn tag_from_a_blocked_source() {
    let node = release_pull_fails(
        "Error: initializing source docker://quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64: registry quay.io/openshift-release-dev/ocp-release is blocked in /etc/containers/registries.conf or /etc/containers/registries.conf.d",
    );
    check(
        &node,
        &Expect {
            cause: "tag-from-blocked-source",
            sentence: "quay.io",
            evidence_in: "release-image",
            fix: "@sha256:",
        },
    );
}

#[test]
fn payload_of_another_architecture() {
    let message = "Release image architecture mismatch: quay.io/openshift-release-dev/ocp-release@sha256:4f1e is a single-architecture arm64 payload, but this host is amd64 (the config was generated for amd64). Its containers cannot run here.";
    let node = FailingNode::new(None)
        .unwrap()
        .service(
            "release-image",
            &format!(
                "record_service_stage_start pull-release-image\nrecord_service_stage_success\n\
                 record_service_stage_start image-metadata-arches-match\n\
                 record_service_stage_failure '{message}'\nexit 1"
            ),
        )
        .unwrap();
    check(
        &node,
        &Expect {
            cause: "architecture-mismatch",
            sentence: "another CPU architecture",
            evidence_in: "bootstrap/services/release-image.json",
            fix: "--arch",
        },
    );
}

#[test]
fn exec_format_error_in_a_container() {
    let node = bootkube_fails(
        "cvo-bootstrap",
        &line("bootkube.sh[2001]", "Rendering Cluster Version Operator Manifests..."),
    )
    .podman_container(
        "cvo-render",
        "5e6f7a8b9c0d",
        "{\"msg\":\"exec container process `/usr/bin/cluster-version-operator`: Exec format error\",\"level\":\"error\"}\n",
    )
    .unwrap();
    check(
        &node,
        &Expect {
            cause: "architecture-mismatch",
            sentence: "exec format error",
            evidence_in: "bootstrap/pods/cvo-render-5e6f7a8b9c0d.log",
            fix: "--release-image",
        },
    );
}

#[test]
fn operator_rejects_a_render_flag() {
    let node = bootkube_fails(
        "etcd-bootstrap",
        &(line("bootkube.sh[2001]", "Rendering CEO Manifests...")
            + &line("bootkube.sh[2001]", "Error: unknown flag: --cluster-configmap-file")),
    )
    .podman_container(
        "etcd-render",
        "0f1e2d3c4b5a",
        "Error: unknown flag: --cluster-configmap-file\nUsage:\n  cluster-etcd-operator render [flags]\n",
    )
    .unwrap();
    check(
        &node,
        &Expect {
            cause: "unknown-flag",
            sentence: "--cluster-configmap-file",
            evidence_in: "bootkube",
            fix: "oc adm release info",
        },
    );
}

/// A node where `unit` failed to start after printing `own_line`, and systemd said so (its
/// unit's `description`), while bootkube was still waiting for etcd.
fn runtime_unit_fails(unit: &str, own_line: &str, description: &str) -> FailingNode {
    let journal = own_line.to_string()
        + &line(
            "systemd[1]",
            &format!("{unit}: Main process exited, code=exited, status=1/FAILURE"),
        )
        + &line(
            "systemd[1]",
            &format!("{unit}: Failed with result 'exit-code'."),
        )
        + &line("systemd[1]", &format!("Failed to start {description}."));
    FailingNode::release_pulled()
        .unwrap()
        .journal(unit, &journal)
        .unwrap()
        .failed_unit(unit)
        .unwrap()
        // Still waiting when the node was gathered: killed, so no EXIT trap closes the run.
        .service(
            "bootkube",
            "record_service_stage_start wait-for-etcd\nkill -KILL $$",
        )
        .unwrap()
}

/// What the diagnosis of [`runtime_unit_fails`] must say.
fn check_runtime_unit(node: &FailingNode, unit: &str) {
    let fix = format!("journalctl -b -u {unit}");
    let report = check(
        node,
        &Expect {
            cause: "runtime-failed",
            sentence: unit,
            // The same lines are in bootstrap/journals/; evidence is kept once, first seen.
            evidence_in: &format!("unit-status/{unit}.log"),
            fix: &fix,
        },
    );
    assert_eq!(report["failure"]["what"], format!("{unit} failed"));
}

#[test]
fn crio_does_not_start() {
    let node = runtime_unit_fails(
        "crio.service",
        &line(
            "crio[1500]",
            "time=\"2026-01-01 01:05:00Z\" level=fatal msg=\"validating runtime config: invalid conmon path\"",
        ),
        "Container Runtime Interface for OCI (CRI-O)",
    );
    check_runtime_unit(&node, "crio.service");
}

#[test]
fn kubelet_does_not_start() {
    let node = runtime_unit_fails(
        "kubelet.service",
        &line(
            "kubenswrapper[1800]",
            "E0101 01:05:00.000000    1800 run.go:74] \"command failed\" err=\"failed to run Kubelet: failed to construct kubelet dependencies: unable to load client CA file /etc/kubernetes/kubelet-ca.crt: open /etc/kubernetes/kubelet-ca.crt: no such file or directory\"",
        ),
        "Kubernetes Kubelet",
    );
    check_runtime_unit(&node, "kubelet.service");
}

#[test]
fn etcd_without_quorum() {
    let node = bootkube_fails(
        "wait-for-etcd",
        &line("bootkube.sh[2001]", "Waiting for etcd cluster..."),
    )
    .crio_container(
        "etcd",
        "9a8b7c6d5e4f",
        "{\"level\":\"warn\",\"ts\":\"2026-01-01T01:05:00.000Z\",\"caller\":\"rafthttp/probing_status.go:68\",\"msg\":\"prober detected unhealthy status\",\"round-tripper-name\":\"ROUND_TRIPPER_RAFT_MESSAGE\",\"remote-peer-id\":\"2c5b4d\",\"rtt\":\"0s\",\"error\":\"dial tcp 192.0.2.11:2380: connect: connection refused\"}\n\
         {\"level\":\"warn\",\"ts\":\"2026-01-01T01:05:07.000Z\",\"caller\":\"etcdserver/server.go:2104\",\"msg\":\"failed to publish local member to cluster through raft\",\"error\":\"etcdserver: request timed out\"}\n",
    )
    .unwrap();
    check(
        &node,
        &Expect {
            cause: "etcd-unhealthy",
            sentence: "quorum",
            evidence_in: "bootstrap/containers/etcd-9a8b7c6d5e4f.log",
            fix: "crictl",
        },
    );
}

/// etcd told to listen on an IP the node does not have exits at once: the address is named,
/// and the fix checks the node's addresses against what etcd advertises.
#[test]
fn etcd_listens_on_an_address_the_node_lacks() {
    let node = bootkube_fails(
        "wait-for-etcd",
        &line("bootkube.sh[2001]", "Waiting for etcd cluster..."),
    )
    .crio_container(
        "etcd",
        "4e5f6a7b8c9d",
        "{\"level\":\"info\",\"ts\":\"2026-01-01T01:04:59.000Z\",\"caller\":\"embed/etcd.go:127\",\"msg\":\"configuring peer listeners\",\"listen-peer-urls\":[\"https://192.0.2.99:2380\"]}\n\
         {\"level\":\"fatal\",\"ts\":\"2026-01-01T01:05:00.000Z\",\"caller\":\"etcdmain/etcd.go:204\",\"msg\":\"discovery failed\",\"error\":\"listen tcp 192.0.2.99:2380: bind: cannot assign requested address\",\"stacktrace\":\"go.etcd.io/etcd/server/v3/etcdmain.startEtcdOrProxyV2\\n\\tgo.etcd.io/etcd/server/v3/etcdmain/etcd.go:204\"}\n",
    )
    .unwrap();
    let report = check(
        &node,
        &Expect {
            cause: "etcd-address-not-local",
            sentence: "etcd cannot listen on 192.0.2.99:2380",
            evidence_in: "bootstrap/containers/etcd-4e5f6a7b8c9d.log",
            fix: "grep -n '192.0.2.99' /etc/kubernetes/manifests/etcd-member-pod.yaml",
        },
    );
    let fix = report["failure"]["fix"].as_str().unwrap();
    assert!(
        fix.contains("ip -brief address") && fix.contains("machineNetwork"),
        "{fix}"
    );
}

/// A node whose bootkube failed while cluster-bootstrap found nothing on 6443.
fn api_refused_to_cluster_bootstrap() -> FailingNode {
    bootkube_fails(
        "cb-bootstrap",
        &line("bootkube.sh[2001]", "Starting cluster-bootstrap..."),
    )
    .podman_container(
        "cluster-bootstrap",
        "1a2b3c4d5e6f",
        "Starting temporary bootstrap control plane...\n\
         E0101 01:05:00.000000       1 reflector.go:140] failed to list *v1.Pod: Get \"https://localhost:6443/api/v1/pods\": dial tcp [::1]:6443: connect: connection refused\n",
    )
    .unwrap()
}

#[test]
fn api_never_answers() {
    let node = api_refused_to_cluster_bootstrap();
    check(
        &node,
        &Expect {
            cause: "api-unreachable",
            sentence: "6443",
            evidence_in: "bootstrap/pods/cluster-bootstrap-1a2b3c4d5e6f.log",
            fix: "kube-apiserver",
        },
    );
}

/// The bootstrap kube-apiserver exits at start (here on a certificate file it cannot open), the
/// kubelet restarts it with back-off, and cluster-bootstrap finds nothing on 6443: the crash is
/// the cause, named with the container and its last error (credentials hidden), not the port.
#[test]
fn api_server_container_crashes() {
    let fatal = "E0101 01:05:00.000000       1 run.go:72] \"command failed\" err=\"failed to create etcd client for https://root:Etcd-S3cret@localhost:2379: open /etc/kubernetes/bootstrap-secrets/etcd-client.crt: no such file or directory\"";
    let node = api_refused_to_cluster_bootstrap()
        .crio_container(
        "kube-apiserver",
        "7c8d9e0f1a2b",
        &format!("I0101 01:04:59.000000       1 server.go:150] Version: v1.31.1\n{fatal}\n"),
    )
    .unwrap()
    .journal(
        "kubelet.service",
        &line(
            "kubenswrapper[1800]",
            "E0101 01:05:40.000000    1800 pod_workers.go:1301] \"Error syncing pod, skipping\" err=\"failed to \\\"StartContainer\\\" for \\\"kube-apiserver\\\" with CrashLoopBackOff: \\\"back-off 40s restarting failed container=kube-apiserver pod=bootstrap-kube-apiserver-bootstrap_kube-system(0a1b2c)\\\"\" pod=\"kube-system/bootstrap-kube-apiserver-bootstrap\"",
        ),
    )
    .unwrap();
    let report = check(
        &node,
        &Expect {
            cause: "api-server-crashed",
            sentence: "The kube-apiserver container exited with an error",
            evidence_in: "bootstrap/containers/kube-apiserver-7c8d9e0f1a2b.log",
            fix: "crictl ps -a --name '^kube-apiserver$'",
        },
    );
    let failure = &report["failure"];
    let sentence = failure["sentence"].as_str().unwrap();
    assert!(
        sentence.contains(
            "open /etc/kubernetes/bootstrap-secrets/etcd-client.crt: no such file or directory"
        ),
        "{sentence}"
    );
    assert!(!report.to_string().contains("Etcd-S3cret"), "{report:#}");
    assert!(
        failure["fix"].as_str().unwrap().contains("crictl logs"),
        "{failure:#}"
    );
}

#[test]
fn csrs_left_pending() {
    let csr = "apiVersion: v1\nitems:\n- apiVersion: certificates.k8s.io/v1\n  kind: CertificateSigningRequest\n  metadata:\n    name: csr-8vnps\n  spec:\n    signerName: kubernetes.io/kube-apiserver-client-kubelet\n    username: system:serviceaccount:openshift-machine-config-operator:node-bootstrapper\n  status: {}\nkind: List\n";
    let node = bootkube_fails(
        "cb-bootstrap",
        &line(
            "bootkube.sh[2001]",
            "Waiting for the control plane to join...",
        ),
    )
    .file(
        "/tmp/artifacts-api-server-temp/certificatesigningrequests.yaml",
        csr,
    )
    .unwrap();
    check(
        &node,
        &Expect {
            cause: "csr-pending",
            sentence: "pending",
            evidence_in: "resources/certificatesigningrequests.yaml",
            fix: "oc adm certificate approve",
        },
    );
}

/// The API still answers when the gather runs (and when `--node` asks it): the CSRs come from
/// the live API, not from cluster-bootstrap's dump.
#[test]
fn csrs_left_pending_in_the_live_api() {
    let csr = "apiVersion: v1\nitems:\n- apiVersion: certificates.k8s.io/v1\n  kind: CertificateSigningRequest\n  metadata:\n    name: csr-2kq7x\n  spec:\n    signerName: kubernetes.io/kube-apiserver-client-kubelet\n    username: system:serviceaccount:openshift-machine-config-operator:node-bootstrapper\n  status: {}\nkind: List\n";
    let node = bootkube_fails(
        "cb-bootstrap",
        &line(
            "bootkube.sh[2001]",
            "Waiting for the control plane to join...",
        ),
    )
    .api_resource("csr", csr)
    .unwrap();
    check(
        &node,
        &Expect {
            cause: "csr-pending",
            sentence: "pending",
            evidence_in: "resources/csr.yaml",
            fix: "oc adm certificate approve",
        },
    );
    // On the node, the evidence is the API's answer too.
    let (_, on_node) = diagnose_node(&node);
    assert!(
        on_node["failure"]["evidence"]
            .to_string()
            .contains("resources/csr.yaml"),
        "{on_node:#}"
    );
    // Without the API's answer there is no evidence of it: the same node with the API down
    // is not said to have pending CSRs.
    let silent = bootkube_fails(
        "cb-bootstrap",
        &line(
            "bootkube.sh[2001]",
            "Waiting for the control plane to join...",
        ),
    );
    let (_, on_node) = diagnose_node(&silent);
    assert_ne!(on_node["failure"]["cause"], "csr-pending", "{on_node:#}");
}

#[test]
fn certificate_expired() {
    let node = bootkube_fails(
        "cb-bootstrap",
        &line(
            "bootkube.sh[2001]",
            "Error: Get \"https://localhost:6443/api?timeout=32s\": tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-01-03T01:05:00Z is after 2026-01-02T01:00:00Z",
        ),
    );
    check(
        &node,
        &Expect {
            cause: "certificate-expired",
            sentence: "is after 2026-01-02T01:00:00Z",
            evidence_in: "bootkube",
            fix: "--renew-expired",
        },
    );
}

#[test]
fn clock_behind() {
    let node = bootkube_fails(
        "cb-bootstrap",
        &line(
            "bootkube.sh[2001]",
            "Error: Get \"https://localhost:6443/api?timeout=32s\": tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2025-12-31T23:00:00Z is before 2026-01-01T01:00:00Z",
        ),
    );
    check(
        &node,
        &Expect {
            cause: "certificate-not-yet-valid",
            sentence: "clock",
            evidence_in: "bootkube",
            fix: "chronyc",
        },
    );
}

#[test]
fn disk_full() {
    let node = release_pull_fails(
        "Error: writing blob: storing blob to file \"/var/tmp/storage2841/1\": write /var/tmp/storage2841/1: no space left on device",
    );
    check(
        &node,
        &Expect {
            cause: "disk-full",
            sentence: "full",
            evidence_in: "release-image",
            fix: "df -h",
        },
    );
}

#[test]
fn held_unit_never_released() {
    let node = FailingNode::release_pulled().unwrap()
        .journal(
            "bootkube.service",
            &line(
                "systemd[1]",
                "bootkube.service was skipped because of an unmet condition check (ConditionPathExists=!/etc/bootgen/hold/bootkube.service).",
            ),
        )
        .unwrap();
    let report = check(
        &node,
        &Expect {
            cause: "unit-held",
            sentence: "bootkube.service",
            evidence_in: "bootstrap/journals/bootkube.log",
            fix: "bootgen-release bootkube.service",
        },
    );
    assert_eq!(report["failure"]["what"], "bootkube.service never started");
}

#[test]
fn unknown_failure_gets_the_timeline_and_last_error_lines() {
    let node = bootkube_fails(
        "mco-bootstrap",
        &(line("bootkube.sh[2001]", "Rendering MCO manifests...")
            + &line("bootkube.sh[2001]", "F0101 01:05:00.000000 1 render.go:77] error: the payload's machine-config image is not a valid reference")),
    );
    let bundle = node.gather("20260101011000").unwrap();
    let (output, report) = diagnose(&bundle);
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    let failure = &report["failure"];
    assert!(failure["cause"].is_null(), "{report:#}");
    assert_eq!(
        failure["what"],
        "bootkube.service failed in stage mco-bootstrap"
    );
    let last = failure["last_errors"].as_array().unwrap();
    assert!(
        last.iter().any(|e| e["text"]
            .as_str()
            .unwrap()
            .contains("not a valid reference")),
        "{report:#}"
    );
    assert!(!report["timeline"].as_array().unwrap().is_empty());
}

#[test]
fn a_successful_bootstrap_has_no_failure() {
    let node = FailingNode::release_pulled()
        .unwrap()
        .service(
            "bootkube",
            "record_service_stage_start openshift-manifests\nrecord_service_stage_success",
        )
        .unwrap()
        .file("/opt/openshift/openshift-manifests.done", "")
        .unwrap()
        .file("/opt/openshift/.bootkube.done", "")
        .unwrap();
    let bundle = node.gather("20260101011000").unwrap();
    let (output, report) = diagnose(&bundle);
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert!(report["failure"].is_null());
    let timeline = report["timeline"].as_array().unwrap();
    assert!(
        timeline
            .iter()
            .any(|e| e["what"] == "openshift-manifests.done written"),
        "{report:#}"
    );
    // The text report says so too.
    let text = bootgen_conformance::bootgen!()
        .arg("diagnose")
        .arg(&bundle)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&text.stdout).contains("No failure found."));
}

/// `bootgen diagnose --node` on the node itself: the same node, read where it lies.
fn diagnose_node(node: &FailingNode) -> (Output, Value) {
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.args(["diagnose", "--node", "--json"]).env_clear();
    for (key, value) in node.node_env() {
        cmd.env(key, value);
    }
    let output = cmd.output().unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "no JSON ({err}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output, report)
}

#[test]
fn on_the_node_the_same_causes_are_named() {
    let pull = release_pull_fails(
        "Error: initializing source docker://quay.io/openshift-release-dev/ocp-release@sha256:4f1e: reading manifest sha256:4f1e in quay.io/openshift-release-dev/ocp-release: unauthorized: access to the requested resource is not authorized",
    );
    let (output, report) = diagnose_node(&pull);
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert_eq!(
        report["failure"]["cause"], "pull-unauthorized",
        "{report:#}"
    );
    assert_eq!(report["failure"]["stage"], "pull-release-image");

    let etcd = bootkube_fails("wait-for-etcd", &line("bootkube.sh[2001]", "Waiting for etcd cluster..."))
        .crio_container(
            "etcd",
            "9a8b7c6d5e4f",
            "{\"level\":\"warn\",\"msg\":\"failed to publish local member to cluster through raft\",\"error\":\"etcdserver: request timed out\"}\n",
        )
        .unwrap();
    let (output, report) = diagnose_node(&etcd);
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert_eq!(report["failure"]["cause"], "etcd-unhealthy", "{report:#}");
    let evidence = report["failure"]["evidence"].to_string();
    assert!(
        evidence.contains("bootstrap/containers/etcd-9a8b7c6d5e4f.log"),
        "{evidence}"
    );
    // The .done marker, dated by its mtime.
    let timeline = report["timeline"].to_string();
    assert!(
        timeline.contains("openshift-manifests.done written"),
        "{timeline}"
    );
}

/// The bundle of a single node after its reboot, which carries the pre-reboot bundle `before`
/// in /var/log (bootstrap-in-place.sh gathers it with the ID "bootstrap"), with the node it
/// lies in (its directory goes with it).
fn gathered_after_the_reboot(before: &Path) -> (FailingNode, PathBuf) {
    let after = FailingNode::new(None).unwrap();
    std::fs::copy(
        before,
        after.node_path("/var/log/log-bundle-bootstrap.tar.gz"),
    )
    .unwrap();
    let bundle = after.gather("20260101020000").unwrap();
    (after, bundle)
}

#[test]
fn a_single_node_after_its_reboot_shows_the_pre_reboot_failure() {
    let failed = release_pull_fails(
        "Error: initializing source docker://quay.io/openshift-release-dev/ocp-release@sha256:4f1e: reading manifest sha256:4f1e in quay.io/openshift-release-dev/ocp-release: unauthorized: authentication required",
    );
    let (_node, bundle) = gathered_after_the_reboot(&failed.gather("bootstrap").unwrap());
    let (output, report) = diagnose(&bundle);
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    let failure = &report["failure"];
    assert_eq!(
        failure["what"],
        "release-image.service (before the reboot) failed in stage pull-release-image"
    );
    assert_eq!(failure["cause"], "pull-unauthorized");
    assert!(
        failure["evidence"]
            .to_string()
            .contains("log-bundle-bootstrap/"),
        "{report:#}"
    );
}

/// A bundle is gathered because the bootstrap did not complete: a node whose release image was
/// pulled but whose bootkube never ran (nothing started it: the units that want it were held or
/// masked) failed there, and says so instead of "No failure found".
#[test]
fn a_bootkube_that_never_started_is_the_failure() {
    let node = FailingNode::release_pulled().unwrap();
    let bundle = node.gather("20260101011000").unwrap();
    let (output, report) = diagnose(&bundle);
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert_eq!(
        report["failure"]["what"], "bootkube.service never started",
        "{report:#}"
    );
}

/// A single node's pre-reboot bundle is gathered inside bootkube's master-ignition stage, in
/// every install: a healthy one has that stage open and install-to-disk waiting, which is no
/// failure, alone or inside the installed node's bundle.
#[test]
fn a_single_nodes_pre_reboot_bundle_is_gathered_mid_stage_on_purpose() {
    let node = FailingNode::release_pulled()
        .unwrap()
        .service(
            "bootkube",
            "record_service_stage_start openshift-manifests\nrecord_service_stage_success\nrecord_service_stage_start master-ignition\nkill -KILL $$",
        )
        .unwrap()
        .service(
            "install-to-disk",
            "record_service_stage_start wait-for-bootkube\nkill -KILL $$",
        )
        .unwrap();
    let before = node.gather("bootstrap").unwrap();
    let (output, report) = diagnose(&before);
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert!(report["failure"].is_null(), "{report:#}");

    let (_node, bundle) = gathered_after_the_reboot(&before);
    let (_, report) = diagnose(&bundle);
    assert!(
        !report["failure"]["what"]
            .as_str()
            .unwrap_or_default()
            .contains("master-ignition"),
        "{report:#}"
    );
}

#[test]
fn on_the_node_a_busy_service_is_not_a_failure() {
    // bootkube is waiting with nothing wrong in sight: a bundle of this node would count it
    // (bundles are gathered because the bootstrap did not complete), the node itself does not.
    let node = FailingNode::release_pulled()
        .unwrap()
        .journal(
            "bootkube.service",
            &line(
                "bootkube.sh[2001]",
                "Waiting for the control plane to join...",
            ),
        )
        .unwrap()
        .service(
            "bootkube",
            "record_service_stage_start cb-bootstrap\nkill -KILL $$",
        )
        .unwrap();
    let (output, report) = diagnose_node(&node);
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert!(
        report["notes"]
            .to_string()
            .contains("bootkube.service is still running (stage cb-bootstrap)"),
        "{report:#}"
    );
    let bundle = node.gather("20260101011000").unwrap();
    let (output, report) = diagnose(&bundle);
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert_eq!(
        report["failure"]["what"],
        "bootkube.service never finished: stage cb-bootstrap did not end"
    );
}

/// The control-plane hosts the gather is told of.
const MASTERS: [&str; 3] = ["192.0.2.21", "192.0.2.22", "192.0.2.23"];

#[test]
fn control_plane_never_reaches_the_machine_config_server() {
    // Nothing asked the server for a config in the 37 minutes to the gather, while
    // cluster-bootstrap waited for control-plane pods; the masters, stuck in Ignition, do not
    // answer SSH either.
    let node = waiting_for_the_control_plane("", "2026-01-01T01:40:00Z").unwrap();
    let bundle = node.gather_from("20260101014000", &MASTERS).unwrap();
    let (output, report) = diagnose(&bundle);
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
    let sentence = failure["sentence"].as_str().unwrap();
    assert!(
        sentence.contains("never reached") && sentence.contains("in the 37 minutes"),
        "{sentence}"
    );
    let api_int = node.api_int_host();
    assert!(sentence.contains(api_int), "{sentence}");
    // The server's own line that it serves on 22623, and cluster-bootstrap still waiting (in
    // bootkube's journal, which comes first as the failing service's own).
    let evidence = failure["evidence"].as_array().unwrap();
    assert!(
        evidence.iter().any(|e| e["file"]
            == "bootstrap/containers/machine-config-server-7c8d9e0f1a2b.log"
            && e["line"] == 3),
        "{report:#}"
    );
    assert!(
        evidence
            .iter()
            .any(|e| e["file"] == "bootstrap/journals/bootkube.log"
                && e["text"].as_str().unwrap().contains("\tPod Status:")),
        "{report:#}"
    );
    let fix = failure["fix"].as_str().unwrap();
    assert!(
        fix.contains(&format!("dig +short {api_int} &&"))
            && fix.contains(&format!(
                "curl -k -o /dev/null -w '%{{http_code}}\\n' https://{api_int}:22623/config/master"
            )),
        "{fix}"
    );
    assert_eq!(
        failure["other_causes"],
        Value::Array(Vec::new()),
        "{report:#}"
    );
    // On the node, at the same time, the same.
    let (output, on_node) = diagnose_node(&node);
    assert_eq!(output.status.code(), Some(1), "{on_node:#}");
    assert_eq!(
        on_node["failure"]["cause"], "machine-config-server-unreachable",
        "{on_node:#}"
    );
    assert!(
        on_node["failure"]["sentence"]
            .as_str()
            .unwrap()
            .contains("in the 37 minutes"),
        "{on_node:#}"
    );
}

#[test]
fn a_machine_config_server_silent_for_minutes_only_is_no_cause() {
    // Three minutes after the server started: the masters may still be booting.
    let node = waiting_for_the_control_plane("", "2026-01-01T01:05:40Z").unwrap();
    let bundle = node.gather("20260101010540").unwrap();
    let (output, report) = diagnose(&bundle);
    // The bundle still counts bootkube, which had not finished, as the failure: with no cause.
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert!(report["failure"]["cause"].is_null(), "{report:#}");
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("served no config yet, 3 minutes after it started"),
        "{notes}"
    );
    // On the node, bootkube is busy: no failure, the same note. `--now` is the node's clock.
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.args([
        "diagnose",
        "--node",
        "--json",
        "--now",
        "2026-01-01T01:05:40Z",
    ])
    .env_clear();
    for (key, value) in node.node_env() {
        if key != "SOURCE_DATE_EPOCH" {
            cmd.env(key, value);
        }
    }
    let output = cmd.output().unwrap();
    let on_node: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{on_node:#}");
    assert!(
        on_node["notes"]
            .to_string()
            .contains("served no config yet, 3 minutes after it started"),
        "{on_node:#}"
    );
}

/// The kubelet of a control-plane host that got its config and asked for its client
/// certificate, which nobody approved (the certificate manager gives up after 15 minutes).
fn kubelet_waiting_for_its_certificate() -> String {
    let ident = "kubenswrapper[1900]";
    line_at("01:12:01", ident, "I0101 01:12:01.104412    1900 server.go:837] \"Client rotation is on, will bootstrap in background\"")
        + &line_at("01:12:01", ident, "I0101 01:12:01.118930    1900 certificate_manager.go:356] kubernetes.io/kube-apiserver-client-kubelet: Rotating certificates")
        + &line_at("01:12:09", ident, "E0101 01:12:09.512077    1900 kubelet.go:2448] \"Error getting node\" err=\"node \\\"master-0\\\" not found\"")
        + &line_at("01:27:01", ident, "E0101 01:27:01.119407    1900 certificate_manager.go:562] kubernetes.io/kube-apiserver-client-kubelet: Certificate request was not signed: timed out waiting for the condition")
}

#[test]
fn csrs_left_pending_on_a_control_plane_host() {
    // The masters reached the machine-config server (it served them), their kubelets asked for
    // certificates, and nobody approved them: reached 22623, failed later.
    let served = "I0101 01:08:12.004211       1 api.go:117] Pool master requested by address:\"192.0.2.21:51234\" User-Agent:\"Ignition/2.17.0\" Accept-Header: \"application/vnd.coreos.ignition+json;version=3.4.0, */*;q=0.1\" TokenPresent: false\n";
    let node = waiting_for_the_control_plane(served, "2026-01-01T01:40:00Z")
        .unwrap()
        .control_plane_journal(
            "192.0.2.21",
            "kubelet.service",
            &kubelet_waiting_for_its_certificate(),
        )
        .unwrap();
    let bundle = node.gather_from("20260101014000", &MASTERS[..1]).unwrap();
    let (output, report) = diagnose(&bundle);
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    let failure = &report["failure"];
    assert_eq!(failure["cause"], "csr-pending", "{report:#}");
    let sentence = failure["sentence"].as_str().unwrap();
    assert!(
        sentence.starts_with("The kubelet on 192.0.2.21 asked for its client certificate"),
        "{sentence}"
    );
    // installer-masters-gather.sh ran on the host and its kubelet journal came back.
    let evidence = failure["evidence"].as_array().unwrap();
    assert!(
        evidence.iter().any(
            |e| e["file"] == "control-plane/192.0.2.21/journals/kubelet.log" && e["line"] == 4
        ),
        "{report:#}"
    );
    assert!(
        failure["fix"]
            .as_str()
            .unwrap()
            .contains("oc adm certificate approve"),
        "{report:#}"
    );
    assert_eq!(
        failure["other_causes"],
        Value::Array(Vec::new()),
        "{report:#}"
    );
    // The bootstrap node cannot see the host's journal: on the node bootkube is busy, and the
    // served request keeps the machine-config server from being blamed.
    let (output, on_node) = diagnose_node(&node);
    assert_eq!(output.status.code(), Some(0), "{on_node:#}");
    assert!(on_node["failure"].is_null(), "{on_node:#}");
}

/// A pull refused once and then made (the service ended well) is no cause of what failed
/// later, nor "also seen": etcd's failure is named alone, and without a known cause nothing is.
#[test]
fn a_pull_error_the_service_overcame_is_no_cause() {
    let overcome = |node: FailingNode| {
        node.journal(
            "release-image.service",
            &(line_at(
                "01:00:03",
                "release-image-download.sh[1201]",
                "Pull of release image quay.io/openshift-release-dev/ocp-release@sha256:4f1e failed (attempt 1): Error: reading manifest: unauthorized: authentication required",
            ) + &line_at(
                "01:00:30",
                "release-image-download.sh[1201]",
                "Pulled release image quay.io/openshift-release-dev/ocp-release@sha256:4f1e",
            )),
        )
        .unwrap()
    };
    let node = overcome(
        bootkube_fails(
            "wait-for-etcd",
            &line("bootkube.sh[2001]", "Waiting for etcd cluster..."),
        )
        .crio_container(
            "etcd",
            "9a8b7c6d5e4f",
            "{\"level\":\"warn\",\"ts\":\"2026-01-01T01:05:07.000Z\",\"caller\":\"etcdserver/server.go:2104\",\"msg\":\"failed to publish local member to cluster through raft\",\"error\":\"etcdserver: request timed out\"}\n",
        )
        .unwrap(),
    );
    let report = check(
        &node,
        &Expect {
            cause: "etcd-unhealthy",
            sentence: "quorum",
            evidence_in: "etcd-9a8b7c6d5e4f.log",
            fix: "crictl",
        },
    );
    assert_eq!(
        report["failure"]["other_causes"],
        serde_json::json!([]),
        "{report:#}"
    );
    let node = overcome(bootkube_fails(
        "cb-bootstrap",
        &line(
            "bootkube.sh[2001]",
            "Error: timed out waiting for the condition",
        ),
    ));
    let (output, report) = diagnose(&node.gather("20260101011000").unwrap());
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert_eq!(report["failure"]["cause"], Value::Null, "{report:#}");
    // Nor is the overcome error among the last error lines shown: the failure's own are.
    let last = report["failure"]["last_errors"].to_string();
    assert!(
        !last.contains("attempt 1") && last.contains("timed out waiting for the condition"),
        "{report:#}"
    );
}
