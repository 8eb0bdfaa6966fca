//! The causes `diagnose` recognises, each by the lines the failing component really prints
//! (podman and containers/image, Go's crypto/x509 and net packages, curl, systemd, the kubelet,
//! etcd, cobra and Go's flag package, `oc`, bootgen's own scripts).
//!
//! The table is in priority order: a root cause comes before the symptoms it produces (a full
//! disk before the API that never answers because of it), so the first cause with evidence wins.
//! A cause may have several rows, one after the other, when some of its patterns hold only in
//! some files. A cause that no line shows but the bundle as a whole proves (control-plane
//! machines that never reached the machine-config server) comes from `facts.rs` and takes its
//! row's place in this order.

use serde::Serialize;

/// Fragments the facts (`facts.rs`) look for in every line, beside the causes' own: the matcher
/// finds them in its one pass. Kept here, with the other words, so the matcher reads words from
/// one module and the facts read the matcher's findings.
pub(crate) const FACT_WORDS: &[&str] = &[
    "pod status:",
    "master status:",
    "error while checking pod status",
];

/// A cause of a failed bootstrap that `diagnose` recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Cause {
    /// A filesystem of the node is full.
    DiskFull,
    /// A certificate is not valid yet: the node's clock is behind.
    CertificateNotYetValid,
    /// A certificate has expired (the bootstrap certificates last 24 hours).
    CertificateExpired,
    /// The payload is for another CPU architecture than the host.
    ArchitectureMismatch,
    /// A tag was pulled while its source is blocked and mirrors serve digests only.
    TagFromBlockedSource,
    /// The registry refused the pull (401/403): the pull secret or the mirror's credentials.
    PullUnauthorized,
    /// A registry's certificate is signed by a CA the node does not trust.
    UnknownAuthority,
    /// Control-plane machines could not fetch their config from the machine-config server.
    MachineConfigServerUnreachable,
    /// A name (`api-int`, a mirror) does not resolve.
    NameResolution,
    /// An operator refused a flag bootkube passed: the bootstrap was made for another release.
    UnknownFlag,
    /// CRI-O or the kubelet did not start.
    RuntimeFailed,
    /// etcd has no quorum or cannot reach its members.
    EtcdUnhealthy,
    /// A unit was held or masked and never released.
    UnitHeld,
    /// Certificate signing requests are waiting for approval.
    CsrPending,
    /// Nothing answers on the API's port 6443.
    ApiUnreachable,
}

/// One way a cause shows: every fragment must be in the line (ignoring ASCII case; written in
/// lower case, at least two bytes each).
type Pattern = &'static [&'static str];

/// A row of a cause: its patterns, and the files they apply to (`None`: any text file).
pub(crate) struct Row {
    pub(crate) cause: Cause,
    pub(crate) patterns: &'static [Pattern],
    /// A fragment the file's path must contain (lower case), if the patterns are specific to one.
    pub(crate) only_in: Option<&'static [&'static str]>,
}

/// The causes in priority order (see the module documentation).
pub(crate) const TABLE: &[Row] = &[
    Row {
        cause: Cause::DiskFull,
        patterns: &[&["no space left on device"]],
        only_in: None,
    },
    Row {
        cause: Cause::CertificateNotYetValid,
        patterns: &[
            &["certificate has expired or is not yet valid", " is before "],
            &["certificate is not yet valid"],
        ],
        only_in: None,
    },
    Row {
        cause: Cause::CertificateExpired,
        patterns: &[
            &["certificate has expired or is not yet valid", " is after "],
            &["ssl certificate problem: certificate has expired"],
        ],
        only_in: None,
    },
    Row {
        cause: Cause::ArchitectureMismatch,
        patterns: &[
            &["exec format error"],
            &["release image architecture mismatch"],
        ],
        only_in: None,
    },
    Row {
        cause: Cause::TagFromBlockedSource,
        patterns: &[&["is blocked in /etc/containers/registries.conf"]],
        only_in: None,
    },
    Row {
        cause: Cause::PullUnauthorized,
        patterns: &[
            &["unauthorized: authentication required"],
            &["unauthorized: access to the requested resource is not authorized"],
            &["invalid status code from registry 401"],
            &["invalid status code from registry 403"],
            &["denied: requested access to the resource is denied"],
            &["docker://", "unauthorized"],
            &["docker://", "403 (forbidden)"],
        ],
        only_in: None,
    },
    Row {
        cause: Cause::UnknownAuthority,
        patterns: &[
            &["certificate signed by unknown authority"],
            &["ssl certificate problem: unable to get local issuer certificate"],
            &["ssl certificate problem: self-signed certificate"],
            &["ssl certificate problem: self signed certificate"],
        ],
        only_in: None,
    },
    Row {
        cause: Cause::MachineConfigServerUnreachable,
        patterns: &[
            &[":22623", "connection refused"],
            &[":22623", "i/o timeout"],
            &[":22623", "no such host"],
            &[":22623", "no route to host"],
            &[":22623", "context deadline exceeded"],
            &[":22623", "get error"],
        ],
        only_in: None,
    },
    Row {
        cause: Cause::NameResolution,
        patterns: &[
            &["no such host"],
            &["could not resolve host"],
            &["temporary failure in name resolution"],
            &["lookup ", "server misbehaving"],
            &["does not resolve yet"],
        ],
        only_in: None,
    },
    Row {
        cause: Cause::UnknownFlag,
        patterns: &[
            &["unknown flag: --"],
            &["flag provided but not defined"],
            &["unknown shorthand flag"],
        ],
        only_in: None,
    },
    Row {
        cause: Cause::RuntimeFailed,
        patterns: &[
            &["failed to start container runtime interface for oci"],
            &["failed to start kubernetes kubelet"],
            &["crio.service: failed with result"],
            &["kubelet.service: failed with result"],
            &["crio.service: main process exited"],
            &["kubelet.service: main process exited"],
            &["failed to run kubelet"],
        ],
        only_in: None,
    },
    Row {
        cause: Cause::EtcdUnhealthy,
        patterns: &[
            &["etcdserver: no leader"],
            &["etcdserver: request timed out"],
            &["failed to reach the peer url"],
            &["prober detected unhealthy status"],
            &["failed to publish local member to cluster"],
            &["etcd cluster is unavailable or misconfigured"],
        ],
        only_in: None,
    },
    Row {
        cause: Cause::UnitHeld,
        patterns: &[
            &["unmet condition check", "/etc/bootgen/hold/"],
            &["condition check resulted in", "being skipped"],
            &["unit ", " is masked"],
        ],
        only_in: None,
    },
    Row {
        cause: Cause::CsrPending,
        // A CSR without a status is neither approved nor denied: `oc get -o yaml` (bootgen's
        // dumps) and `-o json` (the installer's resources/csr.json) as oc indents it or on one
        // line, and `oc get`'s table.
        patterns: &[
            &["status: {}"],
            &["\"status\": {}"],
            &["\"status\":{}"],
            &[" pending"],
        ],
        only_in: Some(&["csr", "certificatesigningrequest"]),
    },
    Row {
        cause: Cause::CsrPending,
        // The kubelet's certificate manager after waiting in vain for its request to be signed
        // (client or serving certificate), in any kubelet log: the bootstrap node's, a
        // control-plane host's.
        patterns: &[&["certificate request was not signed"]],
        only_in: None,
    },
    Row {
        cause: Cause::ApiUnreachable,
        patterns: &[
            &[":6443", "connection refused"],
            &[":6443", "i/o timeout"],
            &[":6443", "no route to host"],
            &["port 6443", "failed to connect"],
            &[
                ":6443",
                "was refused - did you specify the right host or port",
            ],
        ],
        only_in: None,
    },
];

/// Where `cause` stands in the priority order (lower first).
pub(crate) fn priority(cause: Cause) -> usize {
    TABLE
        .iter()
        .position(|row| row.cause == cause)
        .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn causes(path: &str, line: &str) -> Vec<Cause> {
        crate::matcher::scan(line)
            .causes(&path.to_ascii_lowercase())
            .collect()
    }

    #[test]
    fn every_cause_has_a_row() {
        let all = [
            Cause::DiskFull,
            Cause::CertificateNotYetValid,
            Cause::CertificateExpired,
            Cause::ArchitectureMismatch,
            Cause::TagFromBlockedSource,
            Cause::PullUnauthorized,
            Cause::UnknownAuthority,
            Cause::MachineConfigServerUnreachable,
            Cause::NameResolution,
            Cause::UnknownFlag,
            Cause::RuntimeFailed,
            Cause::EtcdUnhealthy,
            Cause::UnitHeld,
            Cause::CsrPending,
            Cause::ApiUnreachable,
        ];
        for cause in all {
            assert!(priority(cause) < TABLE.len(), "{cause:?}");
        }
    }

    #[test]
    fn the_x509_time_message_tells_expired_from_not_yet_valid() {
        let expired = "x509: certificate has expired or is not yet valid: current time 2026-01-03T01:00:00Z is after 2026-01-02T01:00:00Z";
        let early = "x509: certificate has expired or is not yet valid: current time 2025-12-31T01:00:00Z is before 2026-01-01T01:00:00Z";
        assert_eq!(causes("a.log", expired), vec![Cause::CertificateExpired]);
        assert_eq!(causes("a.log", early), vec![Cause::CertificateNotYetValid]);
    }

    #[test]
    fn csr_patterns_apply_only_to_csr_files() {
        assert_eq!(
            causes("resources/csr.yaml", "  status: {}"),
            vec![Cause::CsrPending]
        );
        assert!(causes("resources/nodes.yaml", "  status: {}").is_empty());
        // `oc get csr -o json` put on one line (`jq -c`): the list is one line.
        assert_eq!(
            causes(
                "resources/csr.json",
                r#"{"items":[{"metadata":{"name":"csr-a"},"status":{}}],"kind":"List"}"#
            ),
            vec![Cause::CsrPending]
        );
    }

    #[test]
    fn the_kubelet_failing_is_a_runtime_failure() {
        let line = "E0101 01:05:00.000000 1800 run.go:72] \"command failed\" err=\"failed to run Kubelet: validate service connection: validate CRI v1 runtime API for endpoint \\\"unix:///var/run/crio/crio.sock\\\": rpc error: code = Unavailable\"";
        assert_eq!(
            causes("bootstrap/journals/kubelet.log", line),
            vec![Cause::RuntimeFailed]
        );
        let evidence = crate::report::Evidence {
            file: "bootstrap/journals/kubelet.log".into(),
            line: 1,
            text: line.into(),
        };
        let (sentence, _) = crate::explain::explain(
            Cause::RuntimeFailed,
            &evidence,
            &crate::explain::Context::default(),
        );
        assert!(sentence.starts_with("kubelet.service"), "{sentence}");
    }

    #[test]
    fn a_kubelet_waiting_for_its_certificate_shows_pending_csrs_in_any_log() {
        let line = "E0101 01:35:00.000000    1900 certificate_manager.go:562] kubernetes.io/kube-apiserver-client-kubelet: Certificate request was not signed: timed out waiting for the condition";
        assert_eq!(
            causes("control-plane/192.0.2.21/journals/kubelet.log", line),
            vec![Cause::CsrPending]
        );
        // Not the request that could not even be made: that is the API, not an approval.
        let refused = "E0101 01:35:00.000000    1900 certificate_manager.go:562] kubernetes.io/kube-apiserver-client-kubelet: Failed while requesting a signed certificate from the control plane: cannot create certificate signing request: Post \"https://api-int.ostest.example.com:6443/apis/certificates.k8s.io/v1/certificatesigningrequests\": dial tcp 192.0.2.10:6443: connect: connection refused";
        assert_eq!(
            causes("control-plane/192.0.2.21/journals/kubelet.log", refused),
            vec![Cause::ApiUnreachable]
        );
        assert_eq!(
            causes("resources/csr.json", "            \"status\": {}"),
            vec![Cause::CsrPending]
        );
    }

    #[test]
    fn a_masked_unit_is_a_held_unit() {
        let line = "Failed to start bootkube.service: Unit bootkube.service is masked.";
        assert_eq!(
            causes("bootstrap/journals/bootkube.log", line),
            vec![Cause::UnitHeld]
        );
    }

    #[test]
    fn an_ordinary_line_matches_nothing() {
        assert!(causes("bootkube.log", "Starting etcd-bootstrap").is_empty());
    }
}
