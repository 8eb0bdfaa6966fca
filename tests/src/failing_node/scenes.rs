//! Scenes that several tests script on a [`FailingNode`]: what the components print, at given
//! times, while the bootstrap waits for its control plane. `diagnose_bundles.rs` diagnoses them
//! from bundles and on the node; `check.rs` watches them live with `check --watch`.

use super::FailingNode;
use crate::Result;

/// A journal line of 2026-01-01 at `time` (`HH:MM:SS`), as `journalctl --output=short-iso`
/// prints it.
pub fn line_at(time: &str, ident: &str, message: &str) -> String {
    format!("2026-01-01T{time}+0000 bootstrap {ident}: {message}\n")
}

/// What cluster-bootstrap prints (in bootkube's journal) while it waits for the control-plane
/// pods, at `time`: none exists yet, the cluster-version operator's cannot be scheduled.
pub fn cluster_bootstrap_waiting(time: &str) -> String {
    [
        ("openshift-kube-apiserver/kube-apiserver", "DoesNotExist"),
        (
            "openshift-kube-scheduler/openshift-kube-scheduler",
            "DoesNotExist",
        ),
        (
            "openshift-kube-controller-manager/kube-controller-manager",
            "DoesNotExist",
        ),
        (
            "openshift-cluster-version/cluster-version-operator",
            "Pending",
        ),
    ]
    .iter()
    .map(|(pod, status)| {
        line_at(
            time,
            "bootkube.sh[2001]",
            &format!("\tPod Status:{pod:>24}\t{status}"),
        )
    })
    .collect()
}

/// The bootstrap machine-config server's log (`machine-config-server` of the static pod the
/// mco-bootstrap stage placed): it starts at 01:02:40 and serves on both ports; `requests` are
/// the lines of configs it served after that.
pub fn machine_config_server_log(requests: &str) -> String {
    "I0101 01:02:40.512345       1 bootstrap.go:47] Version: v4.16.0-202512180000.p0.g1a2b3c4.assembly.stream.el9 (1a2b3c4d5e6f7a8b)\n\
     I0101 01:02:40.514001       1 api.go:65] Launching server on :22624\n\
     I0101 01:02:40.514107       1 api.go:65] Launching server on :22623\n"
        .to_string()
        + requests
}

/// The line the machine-config server logs when a control-plane machine at `address` fetched
/// its config at `time` (`HH:MM:SS`).
pub fn config_served(time: &str, address: &str) -> String {
    format!("I0101 {time}.004211       1 api.go:117] Pool master requested by address:\"{address}:51234\" User-Agent:\"Ignition/2.17.0\" Accept-Header: \"application/vnd.coreos.ignition+json;version=3.4.0, */*;q=0.1\" TokenPresent: false\n")
}

/// A bootstrap node whose bootkube set up the machine-config server at 01:02:40 and then waited
/// in cb-bootstrap for the control plane, with `mcs_requests` served; the node's clock then says
/// `now`.
pub fn waiting_for_the_control_plane(mcs_requests: &str, now: &str) -> Result<FailingNode> {
    let journal = line_at("01:02:40", "bootkube.sh[2001]", "Starting mco-bootstrap")
        + &line_at("01:03:10", "bootkube.sh[2001]", "Starting cb-bootstrap")
        + &line_at(
            "01:03:12",
            "bootkube.sh[2001]",
            "Starting temporary bootstrap control plane...",
        )
        + &cluster_bootstrap_waiting("01:04:30")
        + &cluster_bootstrap_waiting("01:30:05");
    FailingNode::new(None)?
        .at("2026-01-01T01:00:00Z")?
        .service(
            "release-image",
            "record_service_stage_start pull-release-image\nrecord_service_stage_success",
        )?
        .at("2026-01-01T01:02:40Z")?
        .journal("bootkube.service", &journal)?
        // Still waiting when gathered: killed, so no EXIT trap closes the run.
        .service(
            "bootkube",
            "record_service_stage_start mco-bootstrap\nrecord_service_stage_success\n\
             record_service_stage_start cb-bootstrap\nkill -KILL $$",
        )?
        .file("/opt/openshift/mco-bootstrap.done", "")?
        .crio_container(
            "machine-config-server",
            "7c8d9e0f1a2b",
            &machine_config_server_log(mcs_requests),
        )?
        .at(now)
}

/// Two kubelet client CSRs nobody approved, as `oc get csr` prints them: `--output=yaml` (the
/// gather's) and `--output=json` (`check --watch`'s).
pub const PENDING_CSRS: (&str, &str) = (
    "apiVersion: v1\nitems:\n\
     - apiVersion: certificates.k8s.io/v1\n  kind: CertificateSigningRequest\n  metadata:\n    name: csr-2kq7x\n  spec:\n    signerName: kubernetes.io/kube-apiserver-client-kubelet\n    username: system:serviceaccount:openshift-machine-config-operator:node-bootstrapper\n  status: {}\n\
     - apiVersion: certificates.k8s.io/v1\n  kind: CertificateSigningRequest\n  metadata:\n    name: csr-8vnps\n  spec:\n    signerName: kubernetes.io/kube-apiserver-client-kubelet\n    username: system:serviceaccount:openshift-machine-config-operator:node-bootstrapper\n  status: {}\n\
     kind: List\nmetadata:\n  resourceVersion: \"\"\n",
    "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n\
     {\n    \"apiVersion\": \"certificates.k8s.io/v1\",\n    \"kind\": \"CertificateSigningRequest\",\n    \"metadata\": {\"name\": \"csr-2kq7x\"},\n    \"spec\": {\"signerName\": \"kubernetes.io/kube-apiserver-client-kubelet\"},\n    \"status\": {}\n},\n\
     {\n    \"apiVersion\": \"certificates.k8s.io/v1\",\n    \"kind\": \"CertificateSigningRequest\",\n    \"metadata\": {\"name\": \"csr-8vnps\"},\n    \"spec\": {\"signerName\": \"kubernetes.io/kube-apiserver-client-kubelet\"},\n    \"status\": {}\n}\n\
     ],\n    \"kind\": \"List\"\n}\n",
);
