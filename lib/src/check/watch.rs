//! `check --watch`: what one look at the bootstrap machine says (the `.done` markers of
//! `/opt/openshift`, the failed units), and whether the API answers. The caller runs the command
//! on the machine (over SSH) and hands its output here; on a failure or a stall it gathers a log
//! bundle and hands that to `diagnose`, with what the last look saw ([`seen`]).

use super::probe::{Asked, Lookup, Probes, Request, Transport};
use super::targets::Plan;
use crate::diagnose::{NodeFile, NodeState};
use std::net::SocketAddr;

/// Where [`seen`] puts the CSR list, apart from a bundle's own files.
pub const SEEN_CSRS: &str = "check-watch/csr.json";

/// The command run on the bootstrap machine each round: the markers, the failed units, how many
/// configs the machine-config server served (its `requested by address` lines), the CSRs as the
/// API lists them. It reads only; its output is parsed by [`progress`].
pub const STATUS_COMMAND: &str = concat!(
    "ls -1a /opt/openshift 2>/dev/null | grep '[.]done$'; ",
    "echo '--- failed units'; sudo systemctl list-units --state=failed --no-legend --plain 2>/dev/null; ",
    "echo '--- config requests'; id=$(sudo crictl ps -q --name machine-config-server 2>/dev/null | head -n 1); ",
    "if [ -n \"$id\" ]; then sudo crictl logs \"$id\" 2>&1 | grep -c 'requested by address'; fi; ",
    "echo '--- csr'; sudo oc --kubeconfig=/opt/openshift/auth/kubeconfig --request-timeout=5s get csr --output=json 2>/dev/null; ",
    "true"
);

/// The marker bootkube writes when the bootstrap is done.
pub const COMPLETE_MARKER: &str = ".bootkube.done";

/// What a look at the bootstrap machine showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    /// bootkube wrote its last marker.
    Complete,
    /// A unit failed.
    Failed {
        /// The failed units.
        units: Vec<String>,
    },
    /// Still going.
    Waiting {
        /// The stages done so far (their markers, without `.done`).
        done: Vec<String>,
        /// Configs the machine-config server served the control-plane machines, once it runs.
        config_requests: Option<usize>,
        /// CSRs waiting for approval, once the API answers.
        pending_csrs: Option<usize>,
    },
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Progress::Complete => write!(f, "complete"),
            Progress::Failed { units } => write!(f, "failed: {}", units.join(", ")),
            Progress::Waiting {
                done,
                config_requests,
                pending_csrs,
            } => {
                let stages = if done.is_empty() {
                    "none".to_string()
                } else {
                    done.join(", ")
                };
                write!(f, "stages done: {stages}")?;
                if let Some(count) = config_requests {
                    write!(f, "; configs served to control-plane machines: {count}")?;
                }
                if let Some(count) = pending_csrs {
                    write!(f, "; CSRs pending: {count}")?;
                }
                Ok(())
            }
        }
    }
}

/// The part of the status output after `marker`, up to the next section.
fn section<'a>(output: &'a str, marker: &str) -> Option<&'a str> {
    let start = output.find(marker)? + marker.len();
    let rest = &output[start..];
    Some(rest.find("\n--- ").map_or(rest, |end| &rest[..end]))
}

/// CSRs without a condition (neither approved nor denied) in the API's list.
fn pending_csrs(json: &str) -> Option<usize> {
    let list: serde_json::Value = serde_json::from_str(json.trim()).ok()?;
    let items = list.get("items")?.as_array()?;
    Some(
        items
            .iter()
            .filter(|csr| {
                csr.pointer("/status/conditions")
                    .and_then(serde_json::Value::as_array)
                    .is_none_or(Vec::is_empty)
            })
            .count(),
    )
}

/// Reads the output of [`STATUS_COMMAND`].
pub fn progress(output: &str) -> Progress {
    let markers = output.split("--- ").next().unwrap_or_default();
    let failed = section(output, "--- failed units").unwrap_or_default();
    let done: Vec<String> = markers
        .lines()
        .map(str::trim)
        .filter(|m| m.ends_with(".done"))
        .map(str::to_string)
        .collect();
    if done.iter().any(|m| m == COMPLETE_MARKER) {
        return Progress::Complete;
    }
    let units: Vec<String> = failed
        .lines()
        .filter_map(|line| {
            line.split_whitespace()
                .find(|word| *word != "●" && *word != "*")
                .filter(|unit| unit.contains('.') && *unit != "UNIT")
                .map(str::to_string)
        })
        .collect();
    if !units.is_empty() {
        return Progress::Failed { units };
    }
    Progress::Waiting {
        done: done
            .iter()
            .map(|m| {
                m.trim_start_matches('.')
                    .trim_end_matches(".done")
                    .to_string()
            })
            .collect(),
        config_requests: section(output, "--- config requests")
            .and_then(|count| count.trim().parse().ok()),
        pending_csrs: section(output, "--- csr").and_then(pending_csrs),
    }
}

/// What a look (the output of [`STATUS_COMMAND`]) saw that the bundle gathered after it may
/// lack, as files for `diagnose::diagnose_path_with`: the CSRs the API listed, as
/// [`SEEN_CSRS`] (the API may no longer answer when the gather runs).
pub fn seen(output: &str) -> NodeState {
    let files = section(output, "--- csr")
        .filter(|json| pending_csrs(json).is_some())
        .map(|json| NodeFile {
            path: SEEN_CSRS.to_string(),
            contents: json.trim().as_bytes().to_vec(),
            mtime: None,
        });
    NodeState {
        files: files.into_iter().collect(),
    }
}

/// Whether the API answers `/readyz` with a certificate from the cluster's CA, in words for a
/// progress line.
pub fn api_readiness(plan: &Plan, probes: &dyn Probes, port: u16) -> String {
    let host = plan.api();
    let ip = match probes.resolve(&host) {
        Lookup::Addresses(addresses) if !addresses.is_empty() => addresses[0],
        Lookup::Addresses(_) => return format!("API: {host} has no address"),
        Lookup::NoSuchName { answer } => return format!("API: {host} does not resolve ({answer})"),
        Lookup::Failed(error) => return format!("API: {host} cannot be looked up ({error})"),
    };
    let request = Request {
        host: &host,
        address: SocketAddr::new(ip, port),
        path: "/readyz",
        transport: Transport::Verified(&plan.api_roots),
        headers: Vec::new(),
        asked: Asked::Status,
    };
    match probes.get(&request) {
        Ok(response) if response.status == 200 => "API: ready".into(),
        Ok(response) => format!("API: not ready (HTTP {})", response.status),
        Err(error) => format!("API: not answering ({error})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_failed_units_config_requests_and_csrs_are_read() {
        let waiting = progress(concat!(
            ".release-image.done\n.bootkube-etcd.done\n--- failed units\n",
            "--- config requests\n2\n--- csr\n",
            r#"{"items":[{"status":{}},{"status":{"conditions":[{"type":"Approved"}]}}]}"#
        ));
        assert_eq!(
            waiting,
            Progress::Waiting {
                done: vec!["release-image".into(), "bootkube-etcd".into()],
                config_requests: Some(2),
                pending_csrs: Some(1),
            }
        );
        assert_eq!(
            waiting.to_string(),
            "stages done: release-image, bootkube-etcd; configs served to control-plane machines: 2; CSRs pending: 1"
        );
        let early = progress("--- failed units\n--- config requests\n--- csr\n");
        assert_eq!(early.to_string(), "stages done: none");
        let failed = progress(
            "--- failed units\n● release-image.service loaded failed failed Download the release\n--- config requests\n",
        );
        assert_eq!(
            failed,
            Progress::Failed {
                units: vec!["release-image.service".into()]
            }
        );
        assert_eq!(
            progress(".bootkube.done\n--- failed units\n"),
            Progress::Complete
        );
        // The CSR list is kept for diagnose; no list (the API did not answer), no file.
        let kept = seen("--- csr\n{\"items\": [{\"status\": {}}]}\n");
        assert_eq!(kept.files.len(), 1);
        assert_eq!(kept.files[0].path, SEEN_CSRS);
        assert!(seen("--- csr\nerror: the server is down\n")
            .files
            .is_empty());
    }
}
