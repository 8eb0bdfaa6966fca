//! From a cause and its first evidence line to the sentence a person reads and the command that
//! fixes it: the cause's row (`causes.rs`) writes both from the line and what the whole bundle
//! told ([`Context`]).

use crate::causes::{row, Cause};
use crate::clues::{Clues, Context};
use crate::evidence::Evidence;

/// The sentence explaining `cause` and the command that fixes it, from the first evidence line.
pub(crate) fn explain(cause: Cause, evidence: &Evidence, context: &Context) -> (String, String) {
    let clues = Clues { evidence, context };
    match row(cause) {
        Some(row) => ((row.sentence)(&clues), (row.fix)(&clues)),
        // Every cause has a row (a test in causes.rs keeps it so).
        None => (format!("{cause:?}"), String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setting::Setting;

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
        // A reference with credentials in it names the registry, not them.
        let (sentence, _) = explain_line(
            Cause::PullUnauthorized,
            "Error: initializing source docker://<redacted>@mirror.lab:8443/ocp/release@sha256:1: unauthorized",
        );
        assert!(
            sentence.contains("The registry mirror.lab:8443 refused"),
            "{sentence}"
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

    /// A crashed container is named by its log's file, and its error quoted without klog's
    /// header; a long one is cut.
    #[test]
    fn a_crashed_container_is_named_and_its_error_quoted() {
        let evidence = Evidence {
            file: "bootstrap/containers/kube-apiserver-7c8d9e0f1a2b.log".into(),
            line: 2,
            text: "E0101 01:05:00.000000       1 run.go:72] \"command failed\" err=\"open /etc/kubernetes/x.crt: no such file or directory\"".into(),
        };
        let (sentence, fix) = explain(Cause::ApiServerCrashed, &evidence, &Context::default());
        assert_eq!(sentence, "The kube-apiserver container exited with an error, so nothing answered on the API's port 6443 (the kubelet restarts it, and it exits again): \"command failed\" err=\"open /etc/kubernetes/x.crt: no such file or directory\"");
        assert!(fix.starts_with("sudo crictl ps -a --name '^kube-apiserver$' && sudo crictl logs --tail 30 $(sudo crictl ps -a --name '^kube-apiserver$' -q | head -1)"), "{fix}");
        let long = Evidence {
            text: format!("panic: {}", "x".repeat(1000)),
            ..evidence
        };
        let (sentence, _) = explain(Cause::ApiServerCrashed, &long, &Context::default());
        assert!(
            sentence.ends_with(&format!("panic: {}...", "x".repeat(293))),
            "{sentence}"
        );
    }

    /// systemd 239 (RHCOS 8) names a skipped unit by its description only: the unit is the
    /// one whose journal the line is in.
    #[test]
    fn a_unit_skipped_under_systemd_239_is_named_by_its_journal() {
        let line =
            "Condition check resulted in Bootstrap an OpenShift control plane being skipped.";
        let (sentence, fix) = explain_line(Cause::UnitHeld, line);
        assert!(sentence.starts_with("bootkube.service "), "{sentence}");
        assert!(
            fix.contains("sudo /usr/local/bin/bootgen-release bootkube.service"),
            "{fix}"
        );
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

    #[test]
    fn the_kubelet_failing_is_a_runtime_failure() {
        let line = "E0101 01:05:00.000000 1800 run.go:72] \"command failed\" err=\"failed to run Kubelet: validate service connection: validate CRI v1 runtime API for endpoint \\\"unix:///var/run/crio/crio.sock\\\": rpc error: code = Unavailable\"";
        let found: Vec<Cause> = crate::matcher::scan(line)
            .causes("bootstrap/journals/kubelet.log")
            .collect();
        assert_eq!(found, vec![Cause::RuntimeFailed]);
        let (sentence, _) = explain_line(Cause::RuntimeFailed, line);
        assert!(sentence.starts_with("kubelet.service"), "{sentence}");
    }
}
