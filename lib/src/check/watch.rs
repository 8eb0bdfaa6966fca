//! `check --watch`: what one look at the bootstrap machine says (the `.done` markers of
//! `/opt/openshift`, the failed units), and whether the API answers. The caller runs the command
//! on the machine (over SSH) and hands its output here; on a failure or a stall it gathers a log
//! bundle and hands that to `diagnose`.

use super::probe::{Lookup, Probes, Request, Transport};
use super::targets::Plan;
use std::net::SocketAddr;

/// The command run on the bootstrap machine each round: the markers, a separator, the failed
/// units. It reads only; its output is parsed by [`progress`].
pub const STATUS_COMMAND: &str = "ls -1a /opt/openshift 2>/dev/null | grep '[.]done$'; echo '--- failed units'; sudo systemctl list-units --state=failed --no-legend --plain 2>/dev/null";

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
    },
}

/// Reads the output of [`STATUS_COMMAND`].
pub fn progress(output: &str) -> Progress {
    let (markers, failed) = output
        .split_once("--- failed units")
        .unwrap_or((output, ""));
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
    fn markers_and_failed_units_are_read() {
        let waiting = progress(".release-image.done\n.bootkube-etcd.done\n--- failed units\n");
        assert_eq!(
            waiting,
            Progress::Waiting {
                done: vec!["release-image".into(), "bootkube-etcd".into()]
            }
        );
        let failed = progress(
            "--- failed units\n● release-image.service loaded failed failed Download the release\n",
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
    }
}
