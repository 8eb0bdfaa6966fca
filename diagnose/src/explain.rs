//! From a cause and its first evidence line to the sentence a person reads and the command that
//! fixes it. Details (the registry, the name, the flag, the unit) are taken from the evidence
//! itself, or from what the whole bundle told ([`Context`]); when neither carries one, the
//! sentence says so in general words. A setting of bootgen is named by its [`Setting`], as in
//! the library's errors: a front end tells it in its own words (the CLI as its flag).

use crate::causes::Cause;
use crate::report::Evidence;
use crate::setting::Setting;

/// What the bundle as a whole told, beyond the evidence line.
#[derive(Default)]
pub(crate) struct Context {
    /// The cluster's `api-int` host name (from the Infrastructure manifest).
    pub(crate) api_int_host: Option<String>,
    /// Minutes the bootstrap machine-config server served nothing while the control plane was
    /// awaited, when that proved the cause.
    pub(crate) silent_minutes: Option<i64>,
}

/// The sentence explaining `cause` and the command that fixes it, from the first evidence line.
pub(crate) fn explain(cause: Cause, evidence: &Evidence, context: &Context) -> (String, String) {
    let line = evidence.text.as_str();
    match cause {
        Cause::DiskFull => (
            "A filesystem of the node is full (no space left on device), so images, containers or logs could not be written.".into(),
            "df -h / /var /sysroot && sudo podman image prune --all   # then give the node a larger disk".into(),
        ),
        Cause::CertificateNotYetValid => (
            format!(
                "A certificate is not valid yet{}: the node's clock is behind the machine that made the certificates.",
                times(line).map(|t| format!(" ({t})")).unwrap_or_default()
            ),
            "timedatectl && chronyc tracking   # then fix the node's time source (NTP) and restart: sudo systemctl restart bootkube.service".into(),
        ),
        Cause::CertificateExpired => (
            format!(
                "A certificate has expired{}: the bootstrap certificates last 24 hours, so the configs are older than that or the node's clock is ahead.",
                times(line).map(|t| format!(" ({t})")).unwrap_or_default()
            ),
            format!("bootgen ignition {} {} bootgen-out   # new certificates, the same keys; then boot the new bootstrap.ign", Setting::RenewExpired, Setting::OutputDir),
        ),
        Cause::ArchitectureMismatch => (
            "The release payload's binaries are for another CPU architecture than this host (exec format error).".into(),
            format!("bootgen ignition {} $(uname -m) {} <a payload for this architecture, or -multi>", Setting::Arch, Setting::ReleaseImage),
        ),
        Cause::TagFromBlockedSource => (
            format!(
                "The release image was pulled by tag from {}, whose source is blocked: mirrors serve digests only, so a tag cannot be pulled at all.",
                registry(line).unwrap_or_else(|| "a registry".into())
            ),
            format!("bootgen ignition {} <repository>@sha256:<digest> ...   # pin the release image by digest", Setting::ReleaseImage),
        ),
        Cause::PullUnauthorized => {
            let registry = registry(line);
            (
                format!(
                    "The registry {} refused the pull (unauthorized): the pull secret or the mirror's credentials do not cover it.",
                    registry.as_deref().unwrap_or("of the release image")
                ),
                format!("bootgen patch bootstrap.ign {} auth.json {} bootstrap.ign   # auth.json with credentials for that registry", Setting::RegistryAuth, Setting::OutputDir),
            )
        }
        Cause::UnknownAuthority => (
            format!(
                "The certificate of {} is signed by an authority the node does not trust: the mirror's CA is missing from the trust bundle.",
                registry(line).unwrap_or_else(|| "a registry".into())
            ),
            format!("bootgen patch bootstrap.ign {} mirror-ca.pem {} bootstrap.ign", Setting::TrustBundle, Setting::OutputDir),
        ),
        Cause::MachineConfigServerUnreachable => machine_config_server(line, context),
        Cause::NameResolution => {
            let host = name(line);
            let fix = match &host {
                Some(h) => format!("dig +short {h}   # add the DNS record, or: bootgen patch bootstrap.ign {} <ip>={h} {} bootstrap.ign", Setting::AddHost, Setting::OutputDir),
                None => format!("bootgen patch bootstrap.ign {} <ip>=<name> {} bootstrap.ign   # or add the DNS record", Setting::AddHost, Setting::OutputDir),
            };
            (
                format!(
                    "The name {} does not resolve from the node.",
                    host.as_deref().unwrap_or("the node needed")
                ),
                fix,
            )
        }
        Cause::UnknownFlag => (
            format!(
                "An operator in the payload rejected the flag {} that bootkube passed: the bootstrap was made for another release than the payload.",
                flag(line).unwrap_or_else(|| "bootkube passed".into())
            ),
            format!("oc adm release info <release image> | head -3   # then: bootgen ignition {} <that release image>", Setting::ReleaseImage),
        ),
        Cause::RuntimeFailed => {
            let unit = if line.to_ascii_lowercase().contains("kubelet") { "kubelet.service" } else { "crio.service" };
            (
                format!("{unit} failed to start, so no container or static pod could run."),
                format!("sudo journalctl -b -u {unit} --no-pager | tail -50 && sudo systemctl restart {unit}"),
            )
        }
        Cause::EtcdUnhealthy => (
            "etcd has no quorum or cannot reach its members (ports 2379/2380 between the bootstrap and control-plane hosts).".into(),
            "sudo crictl logs $(sudo crictl ps -a --name etcd -q | head -1) 2>&1 | tail -30".into(),
        ),
        Cause::UnitHeld => {
            let unit = held_unit(line);
            let fix = match &unit {
                Some(u) => format!("sudo bootgen-release {u}   # or, if masked: sudo systemctl unmask --now {u}"),
                None => "sudo bootgen-release <unit>   # or, if masked: sudo systemctl unmask --now <unit>".into(),
            };
            (
                format!(
                    "{} was held or masked and never released, so it never ran.",
                    unit.as_deref().unwrap_or("A unit")
                ),
                fix,
            )
        }
        Cause::CsrPending => (
            csr_sentence(evidence),
            "oc get csr -o name | xargs oc adm certificate approve   # on the bootstrap node approve-csr.service does this: sudo journalctl -u approve-csr.service".into(),
        ),
        Cause::ApiUnreachable => (
            "Nothing answered on the API's port 6443: the bootstrap kube-apiserver is not running or the load balancer does not reach it.".into(),
            "sudo crictl ps -a --name kube-apiserver && curl -k https://localhost:6443/readyz".into(),
        ),
    }
}

/// The machine-config server's sentence and fix: the host from the evidence (a machine's console
/// names the URL it fetched) or else the Infrastructure manifest's api-int.
fn machine_config_server(line: &str, context: &Context) -> (String, String) {
    let host = name(line).or_else(|| context.api_int_host.clone());
    let at = host
        .as_deref()
        .map(|h| format!(" of {h}"))
        .unwrap_or_default();
    let sentence = match context.silent_minutes {
        Some(minutes) => format!(
            "The control-plane machines never reached the machine-config server on port 22623{at}: the bootstrap node's server served no config in the {minutes} minutes after it started while cluster-bootstrap waited for the control plane; check that the load balancer's 22623 backend points at the bootstrap node and that api-int resolves to the load balancer."
        ),
        None => format!(
            "The control-plane machines could not fetch their config from the machine-config server on port 22623{at}: check that the load balancer's 22623 backend points at the bootstrap node and that api-int resolves to the load balancer."
        ),
    };
    let target = host.unwrap_or_else(|| "api-int.<cluster>.<base domain>".into());
    let lookup = if target.parse::<std::net::IpAddr>().is_ok() || target.contains('<') {
        String::new()
    } else {
        format!("dig +short {target} && ")
    };
    let fix = format!(
        "{lookup}curl -k -o /dev/null -w '%{{http_code}}\\n' https://{target}:22623/config/master   # from a control-plane host: 200 once it reaches the bootstrap node"
    );
    (sentence, fix)
}

/// The pending CSRs' sentence: a kubelet's own message names whose certificate waits, and the
/// bundle path which host it runs on (`control-plane/HOST/...`).
fn csr_sentence(evidence: &Evidence) -> String {
    let lower = evidence.text.to_ascii_lowercase();
    if !lower.contains("certificate request was not signed") {
        return "Certificate signing requests are pending: the control-plane kubelets cannot join until they are approved.".into();
    }
    let kind = if lower.contains("kubelet-serving") {
        "serving"
    } else {
        "client"
    };
    let host = evidence
        .file
        .strip_prefix("control-plane/")
        .and_then(|rest| rest.split('/').next())
        .map(|host| format!(" on {host}"))
        .unwrap_or_default();
    format!(
        "The kubelet{host} asked for its {kind} certificate and its certificate signing request was never approved, so it cannot join the control plane until the pending CSRs are approved."
    )
}

/// The word after `marker` in `line`, up to a character in `stops`.
fn after(line: &str, marker: &str, stops: &[char]) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    let at = lower.find(&marker.to_ascii_lowercase())? + marker.len();
    let rest = line.get(at..)?;
    let word: String = rest
        .chars()
        .take_while(|c| !c.is_whitespace() && !stops.contains(c))
        .collect();
    (!word.is_empty()).then_some(word)
}

/// The registry (host and port, as pull secrets name it) in an image reference or registry URL
/// in `line`.
fn registry(line: &str) -> Option<String> {
    after(line, "docker://", &['/', '"', '\''])
        .or_else(|| after(line, "pinging container registry ", &['/', '"']))
        .or_else(|| after(line, "registry ", &['/', '"']).filter(|h| h.contains('.')))
        .or_else(|| after(line, "https://", &['/', '"']))
        .map(|registry| registry.trim_end_matches(':').to_string())
}

/// The host name a resolver or client failed on.
fn name(line: &str) -> Option<String> {
    after(line, "lookup ", &[':', '"'])
        .or_else(|| after(line, "could not resolve host: ", &[':', '"']))
        .or_else(|| after(line, "https://", &['/', ':', '"']))
        .or_else(|| {
            line.to_ascii_lowercase()
                .contains("does not resolve yet")
                .then(|| {
                    let before =
                        &line[..line.to_ascii_lowercase().find(" does not resolve yet")?];
                    before.split_whitespace().last().map(str::to_string)
                })
                .flatten()
        })
}

/// The flag an operator rejected.
fn flag(line: &str) -> Option<String> {
    after(line, "unknown flag: ", &['"'])
        .or_else(|| after(line, "flag provided but not defined: ", &['"']))
        .or_else(|| after(line, "unknown shorthand flag: ", &['"']))
}

/// The unit named by a hold condition or a mask message.
fn held_unit(line: &str) -> Option<String> {
    after(line, "/etc/bootgen/hold/", &[')', '"'])
        .or_else(|| after(line, "unit ", &['"']).filter(|u| u.contains('.')))
}

/// "current time A is after/before B" from Go's x509 message.
fn times(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    let at = lower.find("current time ")?;
    Some(line[at..].trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The explanation of `line` in some log, with nothing known of the bundle beyond it.
    fn explain_line(cause: Cause, line: &str) -> (String, String) {
        let evidence = Evidence {
            file: "bootstrap/journals/bootkube.log".into(),
            line: 1,
            text: line.into(),
        };
        explain(cause, &evidence, &Context::default())
    }

    #[test]
    fn details_come_from_the_evidence() {
        let (sentence, fix) = explain_line(
            Cause::PullUnauthorized,
            "Error: initializing source docker://mirror.lab:8443/ocp/release@sha256:1: reading manifest: unauthorized: authentication required",
        );
        assert!(sentence.contains("mirror.lab:8443 "), "{sentence}");
        assert!(
            fix.contains("`passes.mirrors.registry_auth` auth.json"),
            "{fix}"
        );
        let (sentence, fix) = explain_line(
            Cause::NameResolution,
            "dial tcp: lookup api-int.ostest.example.com on 192.0.2.53:53: no such host",
        );
        assert!(
            sentence.contains("api-int.ostest.example.com "),
            "{sentence}"
        );
        assert!(
            fix.contains("`passes.mirrors.hosts` <ip>=api-int.ostest.example.com"),
            "{fix}"
        );
        let (sentence, _) =
            explain_line(Cause::UnknownFlag, "Error: unknown flag: --payload-version");
        assert!(sentence.contains("--payload-version"), "{sentence}");
        let (sentence, fix) = explain_line(
            Cause::UnitHeld,
            "bootkube.service was skipped because of an unmet condition check (ConditionPathExists=!/etc/bootgen/hold/bootkube.service)",
        );
        assert!(sentence.starts_with("bootkube.service "), "{sentence}");
        assert!(fix.contains("bootgen-release bootkube.service"));
    }

    #[test]
    fn fixes_name_settings_never_cli_flags() {
        let line = "exec /usr/bin/cluster-bootstrap: exec format error x509: certificate has expired or is not yet valid: current time 2026-01-03T00:00:00Z is after 2026-01-02T00:00:00Z";
        for cause in [
            Cause::CertificateExpired,
            Cause::ArchitectureMismatch,
            Cause::TagFromBlockedSource,
            Cause::PullUnauthorized,
            Cause::UnknownAuthority,
            Cause::NameResolution,
            Cause::UnknownFlag,
        ] {
            let (_, fix) = explain_line(cause, line);
            for flag in [
                " -o ",
                "--release-image",
                "--renew-expired",
                "--arch",
                "--registry-auth",
                "--trust-bundle",
                "--add-host",
            ] {
                assert!(!fix.contains(flag), "{cause:?}: {fix}");
            }
            assert!(
                Setting::ALL.iter().any(|o| fix.contains(&o.to_string())),
                "{cause:?}: {fix}"
            );
        }
    }

    #[test]
    fn a_masked_unit_is_named() {
        let line = "Failed to start bootkube.service: Unit bootkube.service is masked.";
        let (sentence, fix) = explain_line(Cause::UnitHeld, line);
        assert!(sentence.starts_with("bootkube.service "), "{sentence}");
        assert!(
            fix.contains("systemctl unmask --now bootkube.service"),
            "{fix}"
        );
    }

    #[test]
    fn without_details_the_sentence_stays_general() {
        let (sentence, _) = explain_line(
            Cause::NameResolution,
            "temporary failure in name resolution",
        );
        assert!(sentence.contains("the node needed"), "{sentence}");
    }

    #[test]
    fn the_machine_config_server_fix_names_api_int() {
        let launched = Evidence {
            file: "bootstrap/containers/machine-config-server-1.log".into(),
            line: 2,
            text: "I0101 01:00:40.000000       1 api.go:66] Launching server on :22623".into(),
        };
        let context = Context {
            api_int_host: Some("api-int.ostest.example.com".into()),
            silent_minutes: Some(40),
        };
        let (sentence, fix) = explain(Cause::MachineConfigServerUnreachable, &launched, &context);
        assert!(sentence.contains("never reached"), "{sentence}");
        assert!(sentence.contains("40 minutes"), "{sentence}");
        assert!(
            sentence.contains("api-int.ostest.example.com"),
            "{sentence}"
        );
        assert!(
            fix.starts_with("dig +short api-int.ostest.example.com && curl -k")
                && fix.contains("https://api-int.ostest.example.com:22623/config/master"),
            "{fix}"
        );
        // A console line names the address it fetched; without a name the fix says what to fill in.
        let (_, fix) = explain_line(
            Cause::MachineConfigServerUnreachable,
            "ignition[800]: GET error: Get \"https://192.0.2.10:22623/config/master\": dial tcp 192.0.2.10:22623: connect: connection refused",
        );
        assert!(fix.starts_with("curl -k"), "{fix}");
        assert!(fix.contains("https://192.0.2.10:22623/"), "{fix}");
        let (_, fix) = explain(
            Cause::MachineConfigServerUnreachable,
            &launched,
            &Context::default(),
        );
        assert!(
            fix.contains("https://api-int.<cluster>.<base domain>:22623/"),
            "{fix}"
        );
    }

    #[test]
    fn a_kubelets_unsigned_request_names_its_host() {
        let evidence = Evidence {
            file: "control-plane/192.0.2.21/journals/kubelet.log".into(),
            line: 3,
            text: "E0101 01:35:00.000000 1900 certificate_manager.go:562] kubernetes.io/kube-apiserver-client-kubelet: Certificate request was not signed: timed out waiting for the condition".into(),
        };
        let (sentence, fix) = explain(Cause::CsrPending, &evidence, &Context::default());
        assert!(
            sentence.starts_with("The kubelet on 192.0.2.21 asked for its client certificate"),
            "{sentence}"
        );
        assert!(fix.contains("oc adm certificate approve"), "{fix}");
    }
}
