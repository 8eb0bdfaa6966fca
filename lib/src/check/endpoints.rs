//! The load balancer: 6443 on `api` and `api-int` and 22623 on `api-int` accept connections; a
//! TLS server behind them presents a certificate from the cluster's own CAs with the right name;
//! the machine-config server serves the pointer configs' path with the CA they trust.

use super::finding::{Finding, Status};
use super::probe::{Asked, Handshake, Probes, Request, Response, Transport, Unconnected};
use std::net::{IpAddr, SocketAddr};

/// The most addresses of one name that are tried.
const MAX_ADDRESSES: usize = 4;

/// One endpoint to test.
pub(crate) struct Endpoint<'a> {
    pub(crate) host: &'a str,
    pub(crate) port: u16,
    pub(crate) addresses: &'a [IpAddr],
    pub(crate) roots: &'a [Vec<u8>],
    /// The CA's name in a sentence (`the cluster's kube-apiserver-lb-signer`).
    pub(crate) ca_name: &'a str,
    /// For the machine-config server: the path its clients fetch.
    pub(crate) config_path: Option<&'a str>,
}

const PASS_THROUGH: &str = "make the load balancer pass TCP through to the bootstrap and control-plane machines (no TLS termination, no certificate of its own)";

/// Tests every address of the endpoint; the `Date` of a response, for the clock check. What
/// could not be tested because an earlier test failed is said as skipped, with why.
pub(crate) fn check_endpoint(
    endpoint: &Endpoint,
    probes: &dyn Probes,
    findings: &mut Vec<Finding>,
) -> Option<String> {
    let host_port = crate::url_syntax::host_port(endpoint.host, endpoint.port);
    // What each address's later tests are, to name them when they cannot run.
    let later = match endpoint.config_path {
        Some(path) => format!("its certificate and GET {path}"),
        None => "its certificate".to_string(),
    };
    if endpoint.addresses.is_empty() {
        findings.push(Finding::skipped(
            "load balancer",
            host_port,
            format!("not tested: {later}"),
            format!(
                "{} has no address to connect to (see its DNS test)",
                endpoint.host
            ),
        ));
        return None;
    }
    let mut date = None;
    for ip in endpoint.addresses.iter().take(MAX_ADDRESSES) {
        let address = SocketAddr::new(*ip, endpoint.port);
        let target = format!("{host_port} ({ip})");
        let unconnected = match probes.connect(address) {
            // A listener that accepts and resets is a load balancer with nothing behind it:
            // the handshake below says so, the same way every run.
            Ok(()) | Err(Unconnected::Reset(_)) => None,
            Err(failure) => Some(failure),
        };
        if let Some(failure) = unconnected {
            let (what, fix) = match &failure {
                Unconnected::TimedOut(_) => (
                    format!("does not answer on port {}: no reply to the connection", endpoint.port),
                    format!(
                        "check that {ip} is the load balancer's address and that no firewall between here and it drops port {}; then make it listen on {host_port}",
                        endpoint.port
                    ),
                ),
                Unconnected::Refused(_) => (
                    format!("refuses connections on port {}: nothing listens there", endpoint.port),
                    format!(
                        "make the load balancer listen on {host_port} and forward to port {} of the bootstrap and control-plane machines",
                        endpoint.port
                    ),
                ),
                Unconnected::Reset(_) | Unconnected::Other(_) => (
                    format!("cannot be reached on port {}", endpoint.port),
                    format!("check this machine's route to {ip}, then make the load balancer listen on {host_port}"),
                ),
            };
            findings.push(Finding::problem(
                Status::Fail,
                "load balancer",
                target.clone(),
                what,
                failure.to_string(),
                fix,
            ));
            findings.push(Finding::skipped(
                "load balancer",
                target,
                format!("not tested: {later}"),
                "no connection was made".into(),
            ));
            continue;
        }
        let config_skipped = |findings: &mut Vec<Finding>, why: &str| {
            if let Some(path) = endpoint.config_path {
                findings.push(Finding::skipped(
                    "load balancer",
                    target.clone(),
                    format!("not tested: GET {path}"),
                    why.to_string(),
                ));
            }
        };
        match probes.handshake(address, endpoint.host, endpoint.roots) {
            Handshake::Verified(presented) => {
                findings.push(Finding::pass(
                    "load balancer",
                    target.clone(),
                    format!(
                        "presents a certificate from {} ({presented})",
                        endpoint.ca_name
                    ),
                ));
                date = match endpoint.config_path {
                    Some(path) => check_config(endpoint, address, path, &target, probes, findings),
                    None => api_date(endpoint, address, probes).or(date),
                };
            }
            Handshake::Rejected { reason, presented } => {
                let shown = presented.map(|p| format!("{p}; ")).unwrap_or_default();
                findings.push(Finding::problem(
                    Status::Fail,
                    "load balancer",
                    target.clone(),
                    format!(
                        "presents a certificate that is not from {} for {}",
                        endpoint.ca_name, endpoint.host
                    ),
                    format!("{shown}{reason}"),
                    format!("{PASS_THROUGH}; if a server of another install answers, boot the nodes with this output's configs"),
                ));
                config_skipped(findings, "its certificate was refused");
            }
            Handshake::NoCertificate(reason) => {
                findings.push(Finding::problem(
                    Status::Warn,
                    "load balancer",
                    target.clone(),
                    "accepts connections, but no TLS server answers behind it yet (as expected before the bootstrap machine runs)".into(),
                    reason,
                    format!(
                        "once the bootstrap machine runs, check that the load balancer's pool for port {} holds it and that its health check passes",
                        endpoint.port
                    ),
                ));
                config_skipped(findings, "no TLS server answered");
            }
        }
    }
    date
}

/// The API's `Date`, from `GET /readyz` (open to anyone on a kube-apiserver): its clock is the
/// one the certificates are judged by. Its readiness is `--watch`'s business, not a finding.
fn api_date(endpoint: &Endpoint, address: SocketAddr, probes: &dyn Probes) -> Option<String> {
    let request = Request {
        host: endpoint.host,
        address,
        path: "/readyz",
        transport: Transport::Verified(endpoint.roots),
        headers: Vec::new(),
        asked: Asked::Status,
    };
    let response = probes.get(&request).ok()?;
    response.header("date").map(str::to_string)
}

/// GET the machine-config server's path as a control-plane machine does.
fn check_config(
    endpoint: &Endpoint,
    address: SocketAddr,
    path: &str,
    target: &str,
    probes: &dyn Probes,
    findings: &mut Vec<Finding>,
) -> Option<String> {
    let request = Request {
        host: endpoint.host,
        address,
        path,
        transport: Transport::Verified(endpoint.roots),
        headers: vec![(
            "Accept".into(),
            "application/vnd.coreos.ignition+json;version=3.2.0, */*;q=0.1".into(),
        )],
        asked: Asked::Config,
    };
    let served = |response: &Response| {
        response.status == 200
            && serde_json::from_slice::<serde_json::Value>(&response.body)
                .ok()
                .and_then(|v| v.get("ignition").cloned())
                .is_some()
    };
    match probes.get(&request) {
        Ok(response) if served(&response) => {
            findings.push(Finding::pass(
                "load balancer",
                target.to_string(),
                format!(
                    "serves {path} (an Ignition config, {} bytes)",
                    response.body.len()
                ),
            ));
            response.header("date").map(str::to_string)
        }
        Ok(response) => {
            findings.push(Finding::problem(
                Status::Fail,
                "load balancer",
                target.to_string(),
                format!("does not serve an Ignition config at {path}"),
                format!("HTTP {}: {}", response.status, response.body_excerpt()),
                "on the bootstrap machine: journalctl -u bootkube.service; the machine-config server must serve the control-plane pool's config".into(),
            ));
            response.header("date").map(str::to_string)
        }
        Err(error) => {
            findings.push(Finding::problem(
                Status::Fail,
                "load balancer",
                target.to_string(),
                format!("no answer to GET {path}"),
                error,
                PASS_THROUGH.into(),
            ));
            None
        }
    }
}
