//! The causes `diagnose` recognises, one row each: the lines the failing component really
//! prints (podman and containers/image, Go's crypto/x509 and net packages, curl, systemd, the
//! kubelet, etcd, cobra and Go's flag package, `oc`, bootgen's own scripts), the sentence a
//! person reads and the command that fixes it. The matcher (`matcher.rs`) reads the patterns,
//! `explain.rs` the sentence and fix, written from the first evidence line and the bundle's
//! context (`clues.rs`). A setting of bootgen is named by its [`Setting`], never a flag: a front
//! end tells it in its own words (the CLI as its flag).
//!
//! The table is in priority order: a root cause comes before the symptoms it produces (a full
//! disk before the API that never answers because of it), so the first cause with evidence wins.
//! A cause that no line shows but the bundle as a whole proves (control-plane machines that never
//! reached the machine-config server) comes from `facts.rs` and takes its row's place in this
//! order.

use serde::Serialize;

use crate::clues::Clues;
use crate::setting::Setting;

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
    /// etcd was told to listen on an address the node does not have.
    EtcdAddressNotLocal,
    /// etcd has no quorum or cannot reach its members.
    EtcdUnhealthy,
    /// A unit was held or masked and never released.
    UnitHeld,
    /// Certificate signing requests are waiting for approval.
    CsrPending,
    /// The bootstrap kube-apiserver container exits with an error (and is restarted).
    ApiServerCrashed,
    /// Nothing answers on the API's port 6443.
    ApiUnreachable,
}

/// What one cause produces that another names too: (symptom, root). When the root has evidence
/// anywhere in the bundle it is the cause of what the symptom shows, even where the failing
/// service's own files show only the symptom (cluster-bootstrap finds nothing on 6443 because
/// the kube-apiserver container exited); the symptom is then no other cause of its own.
pub(crate) const SYMPTOMS: &[(Cause, Cause)] = &[(Cause::ApiUnreachable, Cause::ApiServerCrashed)];

/// One way a cause shows: every fragment is in one line (ignoring ASCII case; written in lower
/// case, at least two bytes each), of a file whose path (in lower case) holds one of `only_in`
/// when it names any, else of any text file.
pub(crate) struct Pattern {
    /// The fragments, all in the line.
    pub(crate) all: &'static [&'static str],
    /// Fragments of which the file's path must hold one; none: any file.
    pub(crate) only_in: &'static [&'static str],
    /// Fragments none of which may be in the line.
    pub(crate) but_not: &'static [&'static str],
}

/// A line holding every fragment of `all`, in any file.
const fn says(all: &'static [&'static str]) -> Pattern {
    Pattern {
        all,
        only_in: &[],
        but_not: &[],
    }
}

/// A line holding every fragment of `all`, in a file whose path holds one of `only_in`.
const fn says_in(only_in: &'static [&'static str], all: &'static [&'static str]) -> Pattern {
    Pattern {
        all,
        only_in,
        but_not: &[],
    }
}

/// A cause: how it shows, what a person reads of it, and what fixes it.
pub(crate) struct Row {
    /// The cause, as reports name it.
    pub(crate) cause: Cause,
    /// The lines that show it: any one of them is evidence.
    pub(crate) patterns: &'static [Pattern],
    /// The cause in one sentence.
    pub(crate) sentence: fn(&Clues) -> String,
    /// A command that fixes it or shows more.
    pub(crate) fix: fn(&Clues) -> String,
}

/// The causes in priority order (see the module documentation).
pub(crate) const TABLE: &[Row] = &[
    Row {
        cause: Cause::DiskFull,
        patterns: &[says(&["no space left on device"])],
        sentence: |_| {
            "A filesystem of the node is full (no space left on device), so images, containers or logs could not be written.".into()
        },
        fix: |_| {
            "df -h / /var /sysroot && sudo podman image prune --all   # then give the node a larger disk".into()
        },
    },
    Row {
        cause: Cause::CertificateNotYetValid,
        patterns: &[
            says(&["certificate has expired or is not yet valid", " is before "]),
            says(&["certificate is not yet valid"]),
        ],
        sentence: |c| {
            format!("A certificate is not valid yet{}: the node's clock is behind the machine that made the certificates.", c.times())
        },
        fix: |_| {
            "timedatectl && chronyc tracking   # then fix the node's time source (NTP) and restart: sudo systemctl restart bootkube.service".into()
        },
    },
    Row {
        cause: Cause::CertificateExpired,
        patterns: &[
            says(&["certificate has expired or is not yet valid", " is after "]),
            says(&["ssl certificate problem: certificate has expired"]),
        ],
        sentence: |c| {
            format!("A certificate has expired{}: the bootstrap certificates last 24 hours, so the configs are older than that or the node's clock is ahead.", c.times())
        },
        fix: |_| {
            format!("bootgen ignition {} {} bootgen-out   # new certificates, the same keys; then boot the new bootstrap.ign", Setting::RenewExpired, Setting::OutputDir)
        },
    },
    Row {
        cause: Cause::ArchitectureMismatch,
        patterns: &[
            says(&["exec format error"]),
            says(&["release image architecture mismatch"]),
        ],
        sentence: |_| {
            "The release payload's binaries are for another CPU architecture than this host (exec format error).".into()
        },
        fix: |_| {
            format!(
                "bootgen ignition {} $(uname -m) {} <a payload for this architecture, or -multi>",
                Setting::Arch,
                Setting::ReleaseImage
            )
        },
    },
    Row {
        cause: Cause::TagFromBlockedSource,
        patterns: &[says(&["is blocked in /etc/containers/registries.conf"])],
        sentence: |c| {
            format!("The release image was pulled by tag from {}, whose source is blocked: mirrors serve digests only, so a tag cannot be pulled at all.", c.registry().unwrap_or_else(|| "a registry".into()))
        },
        fix: |_| {
            format!("bootgen ignition {} <repository>@sha256:<digest> ...   # pin the release image by digest", Setting::ReleaseImage)
        },
    },
    Row {
        cause: Cause::PullUnauthorized,
        patterns: &[
            says(&["unauthorized: authentication required"]),
            says(&["unauthorized: access to the requested resource is not authorized"]),
            says(&["invalid status code from registry 401"]),
            says(&["invalid status code from registry 403"]),
            says(&["denied: requested access to the resource is denied"]),
            says(&["docker://", "unauthorized"]),
            says(&["docker://", "403 (forbidden)"]),
        ],
        sentence: |c| {
            format!("The registry {} refused the pull (unauthorized): the pull secret or the mirror's credentials do not cover it.", c.registry().unwrap_or_else(|| "of the release image".into()))
        },
        fix: |_| {
            format!("bootgen patch bootstrap.ign {} auth.json {} bootstrap.ign   # auth.json with credentials for that registry", Setting::RegistryAuth, Setting::OutputDir)
        },
    },
    Row {
        cause: Cause::UnknownAuthority,
        patterns: &[
            says(&["certificate signed by unknown authority"]),
            says(&["ssl certificate problem: unable to get local issuer certificate"]),
            says(&["ssl certificate problem: self-signed certificate"]),
            says(&["ssl certificate problem: self signed certificate"]),
        ],
        sentence: |c| {
            format!("The certificate of {} is signed by an authority the node does not trust: the mirror's CA is missing from the trust bundle.", c.registry().unwrap_or_else(|| "a registry".into()))
        },
        fix: |_| {
            format!(
                "bootgen patch bootstrap.ign {} mirror-ca.pem {} bootstrap.ign",
                Setting::TrustBundle,
                Setting::OutputDir
            )
        },
    },
    // Also proven with no line of its own by the facts (`facts.rs`): a server that served no
    // control-plane machine while cluster-bootstrap waited (`Context::silent_minutes`).
    Row {
        cause: Cause::MachineConfigServerUnreachable,
        patterns: &[
            says(&[":22623", "connection refused"]),
            says(&[":22623", "i/o timeout"]),
            says(&[":22623", "no such host"]),
            says(&[":22623", "no route to host"]),
            says(&[":22623", "context deadline exceeded"]),
            says(&[":22623", "get error"]),
        ],
        sentence: |c| {
            let at = c
                .server_host()
                .map(|h| format!(" of {h}"))
                .unwrap_or_default();
            match c.context.silent_minutes {
                Some(minutes) => format!("The control-plane machines never reached the machine-config server on port 22623{at}: the bootstrap node's server served no config in the {minutes} minutes after it started while cluster-bootstrap waited for the control plane; check that the load balancer's 22623 backend points at the bootstrap node and that api-int resolves to the load balancer."),
                None => format!("The control-plane machines could not fetch their config from the machine-config server on port 22623{at}: check that the load balancer's 22623 backend points at the bootstrap node and that api-int resolves to the load balancer."),
            }
        },
        fix: |c| {
            let target = c
                .server_host()
                .unwrap_or_else(|| "api-int.<cluster>.<base domain>".into());
            let lookup = if target.parse::<std::net::IpAddr>().is_ok() || target.contains('<') {
                String::new()
            } else {
                format!("dig +short {target} && ")
            };
            format!("{lookup}curl -k -o /dev/null -w '%{{http_code}}\\n' https://{target}:22623/config/master   # from a control-plane host: 200 once it reaches the bootstrap node")
        },
    },
    Row {
        cause: Cause::NameResolution,
        patterns: &[
            says(&["no such host"]),
            says(&["could not resolve host"]),
            says(&["temporary failure in name resolution"]),
            says(&["lookup ", "server misbehaving"]),
            says(&["does not resolve yet"]),
        ],
        sentence: |c| {
            format!(
                "The name {} does not resolve from the node.",
                c.host().unwrap_or_else(|| "the node needed".into())
            )
        },
        fix: |c| {
            match c.host() {
            Some(h) => format!("dig +short {h}   # add the DNS record, or: bootgen patch bootstrap.ign {} <ip>={h} {} bootstrap.ign", Setting::AddHost, Setting::OutputDir),
            None => format!("bootgen patch bootstrap.ign {} <ip>=<name> {} bootstrap.ign   # or add the DNS record", Setting::AddHost, Setting::OutputDir),
        }
        },
    },
    Row {
        cause: Cause::UnknownFlag,
        patterns: &[
            says(&["unknown flag: --"]),
            says(&["flag provided but not defined"]),
            says(&["unknown shorthand flag"]),
        ],
        sentence: |c| {
            format!("An operator in the payload rejected the flag {} that bootkube passed: the bootstrap was made for another release than the payload.", c.flag().unwrap_or_else(|| "bootkube passed".into()))
        },
        fix: |_| {
            format!("oc adm release info <release image> | head -3   # then: bootgen ignition {} <that release image>", Setting::ReleaseImage)
        },
    },
    Row {
        cause: Cause::RuntimeFailed,
        patterns: &[
            says(&["failed to start container runtime interface for oci"]),
            says(&["failed to start kubernetes kubelet"]),
            says(&["crio.service: failed with result"]),
            says(&["kubelet.service: failed with result"]),
            says(&["crio.service: main process exited"]),
            says(&["kubelet.service: main process exited"]),
            says(&["failed to run kubelet"]),
        ],
        sentence: |c| {
            format!(
                "{} failed to start, so no container or static pod could run.",
                runtime_unit(c)
            )
        },
        fix: |c| {
            let unit = runtime_unit(c);
            format!("sudo journalctl -b -u {unit} --no-pager | tail -50 && sudo systemctl restart {unit}")
        },
    },
    // Before etcd's unhealth, which a member that cannot listen produces.
    Row {
        cause: Cause::EtcdAddressNotLocal,
        patterns: &[says_in(
            &["etcd"],
            &["listen tcp ", "bind: cannot assign requested address"],
        )],
        sentence: |c| {
            let address = c.listen_address().unwrap_or_else(|| "an address".into());
            format!("etcd cannot listen on {address}: the node has no such address (bind: cannot assign requested address), so the etcd member's URLs name an IP that is not this node's.")
        },
        fix: |c| {
            let ip = c
                .listen_address()
                .and_then(|a| {
                    a.rsplit_once(':')
                        .map(|(ip, _)| ip.trim_matches(['[', ']']).to_string())
                })
                .unwrap_or_else(|| "<that IP>".into());
            format!("ip -brief address; sudo grep -n '{ip}' /etc/kubernetes/manifests/etcd-member-pod.yaml   # the node's address must be the one etcd advertises: its render picks it from the install-config's networking.machineNetwork, so give the node an address in it (or correct machineNetwork) and generate again")
        },
    },
    Row {
        cause: Cause::EtcdUnhealthy,
        patterns: &[
            says(&["etcdserver: no leader"]),
            says(&["etcdserver: request timed out"]),
            says(&["failed to reach the peer url"]),
            says(&["prober detected unhealthy status"]),
            says(&["failed to publish local member to cluster"]),
            says(&["etcd cluster is unavailable or misconfigured"]),
        ],
        sentence: |_| {
            "etcd has no quorum or cannot reach its members (ports 2379/2380 between the bootstrap and control-plane hosts).".into()
        },
        fix: |_| {
            "sudo crictl logs $(sudo crictl ps -a --name etcd -q | head -1) 2>&1 | tail -30".into()
        },
    },
    Row {
        cause: Cause::UnitHeld,
        patterns: &[
            says(&["unmet condition check", "/etc/bootgen/hold/"]),
            says(&["condition check resulted in", "being skipped"]),
            says(&["unit ", " is masked"]),
        ],
        sentence: |c| {
            format!(
                "{} was held or masked and never released, so it never ran.",
                c.held_unit().unwrap_or_else(|| "A unit".into())
            )
        },
        fix: |c| {
            let unit = c.held_unit().unwrap_or_else(|| "<unit>".into());
            format!(
                "sudo /usr/local/bin/bootgen-release {unit}   # or, if masked: sudo systemctl unmask --now {unit}"
            )
        },
    },
    Row {
        cause: Cause::CsrPending,
        patterns: &[
            // A CSR without a status is neither approved nor denied: `oc get -o yaml` (bootgen's
            // dumps) and `-o json` (the installer's resources/csr.json) as oc indents it or on
            // one line, and `oc get`'s table.
            says_in(CSR_FILES, &["status: {}"]),
            says_in(CSR_FILES, &["\"status\": {}"]),
            says_in(CSR_FILES, &["\"status\":{}"]),
            says_in(CSR_FILES, &[" pending"]),
            // The kubelet's certificate manager after waiting in vain for its request to be
            // signed (client or serving certificate), in any kubelet log: the bootstrap node's,
            // a control-plane host's.
            says(&["certificate request was not signed"]),
        ],
        sentence: |c| {
            if !c.says("certificate request was not signed") {
                return "Certificate signing requests are pending: the control-plane kubelets cannot join until they are approved.".into();
            }
            let kind = if c.says("kubelet-serving") {
                "serving"
            } else {
                "client"
            };
            let host = c
                .control_plane_host()
                .map(|host| format!(" on {host}"))
                .unwrap_or_default();
            format!("The kubelet{host} asked for its {kind} certificate and its certificate signing request was never approved, so it cannot join the control plane until the pending CSRs are approved.")
        },
        fix: |_| {
            "oc get csr -o name | xargs oc adm certificate approve   # on the bootstrap node approve-csr.service does this: sudo journalctl -u approve-csr.service".into()
        },
    },
    // Before the API that never answers, which it produces (see `SYMPTOMS`).
    Row {
        cause: Cause::ApiServerCrashed,
        patterns: &[
            // How Kubernetes' commands exit on an error (component-base's cli.Run), Go's panics
            // and the runtime's fatal errors, in a kube-apiserver container's own log.
            says_in(APISERVER_LOGS, &["\"command failed\""]),
            // Not a panic the server recovered from and logged ("Observed a panic: ...").
            Pattern {
                all: &["panic: "],
                only_in: APISERVER_LOGS,
                but_not: &["observed a panic"],
            },
            says_in(APISERVER_LOGS, &["fatal error: "]),
        ],
        sentence: |c| {
            let container = c.container().unwrap_or_else(|| "kube-apiserver".into());
            format!("The {container} container exited with an error, so nothing answered on the API's port 6443 (the kubelet restarts it, and it exits again): {}", c.error_message())
        },
        fix: |c| {
            let container = c.container().unwrap_or_else(|| "kube-apiserver".into());
            format!("sudo crictl ps -a --name '^{container}$' && sudo crictl logs --tail 30 $(sudo crictl ps -a --name '^{container}$' -q | head -1)   # fix what its last error says (a file, flag or certificate it names); the kubelet then starts it again")
        },
    },
    Row {
        cause: Cause::ApiUnreachable,
        patterns: &[
            says(&[":6443", "connection refused"]),
            says(&[":6443", "i/o timeout"]),
            says(&[":6443", "no route to host"]),
            says(&["port 6443", "failed to connect"]),
            says(&[
                ":6443",
                "was refused - did you specify the right host or port",
            ]),
        ],
        sentence: |_| {
            "Nothing answered on the API's port 6443: the bootstrap kube-apiserver is not running or the load balancer does not reach it.".into()
        },
        fix: |_| {
            "sudo crictl ps -a --name kube-apiserver && curl -k https://localhost:6443/readyz"
                .into()
        },
    },
];

/// The logs of kube-apiserver containers, as the gather names them
/// (`bootstrap/containers/kube-apiserver-ID.log`).
const APISERVER_LOGS: &[&str] = &["containers/kube-apiserver-"];

/// The files that list the API's certificate signing requests.
const CSR_FILES: &[&str] = &["csr", "certificatesigningrequest"];

/// The unit that failed to start: the kubelet when the line names it, else CRI-O.
fn runtime_unit(clues: &Clues) -> &'static str {
    if clues.says("kubelet") {
        "kubelet.service"
    } else {
        "crio.service"
    }
}

impl Cause {
    /// Every cause `diagnose` knows, in its priority order (one table row each).
    pub fn all() -> impl Iterator<Item = Cause> {
        TABLE.iter().map(|row| row.cause)
    }
}

/// The row of `cause`.
pub(crate) fn row(cause: Cause) -> Option<&'static Row> {
    TABLE.iter().find(|row| row.cause == cause)
}

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

    /// A cause is one row: what shows it, its sentence and its fix in one place.
    #[test]
    fn every_cause_has_one_row() {
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
            Cause::EtcdAddressNotLocal,
            Cause::EtcdUnhealthy,
            Cause::UnitHeld,
            Cause::CsrPending,
            Cause::ApiServerCrashed,
            Cause::ApiUnreachable,
        ];
        for cause in all {
            // Exhaustive: a new variant does not build here until it is listed above too.
            match cause {
                Cause::DiskFull
                | Cause::CertificateNotYetValid
                | Cause::CertificateExpired
                | Cause::ArchitectureMismatch
                | Cause::TagFromBlockedSource
                | Cause::PullUnauthorized
                | Cause::UnknownAuthority
                | Cause::MachineConfigServerUnreachable
                | Cause::NameResolution
                | Cause::UnknownFlag
                | Cause::RuntimeFailed
                | Cause::EtcdAddressNotLocal
                | Cause::EtcdUnhealthy
                | Cause::UnitHeld
                | Cause::CsrPending
                | Cause::ApiServerCrashed
                | Cause::ApiUnreachable => {}
            }
            let rows = TABLE.iter().filter(|row| row.cause == cause).count();
            assert_eq!(rows, 1, "{cause:?}");
        }
        assert_eq!(TABLE.len(), all.len());
    }
}
