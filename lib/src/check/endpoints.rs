//! The load balancer: 6443 on `api` and `api-int` and 22623 on `api-int` accept connections; a
//! TLS server behind them presents a certificate from the cluster's own CAs with the right name;
//! the machine-config server serves the pointer configs' path with the CA they trust.

use super::finding::{Finding, Status};
use super::probe::{Handshake, Probes, Request, Response, Transport};
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

/// Tests every address of the endpoint; the `Date` of a response, for the clock check.
pub(crate) fn check_endpoint(
    endpoint: &Endpoint,
    probes: &dyn Probes,
    findings: &mut Vec<Finding>,
) -> Option<String> {
    let mut date = None;
    for ip in endpoint.addresses.iter().take(MAX_ADDRESSES) {
        let address = SocketAddr::new(*ip, endpoint.port);
        let target = format!(
            "{} ({ip})",
            crate::url_syntax::host_port(endpoint.host, endpoint.port)
        );
        if let Err(error) = probes.connect(address) {
            findings.push(Finding::problem(
                Status::Fail,
                "load balancer",
                target,
                format!("does not accept connections on port {}", endpoint.port),
                error,
                format!(
                    "make the load balancer listen on {} and forward to port {} of the bootstrap and control-plane machines",
                    crate::url_syntax::host_port(endpoint.host, endpoint.port), endpoint.port
                ),
            ));
            continue;
        }
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
                // A signature that does not verify under a CA of the same name is the mark of
                // another install's PKI (every install names its signers alike).
                let whose = if reason.contains("BadSignature") {
                    " (signed by a CA of the same name with another key: another install's certificate)"
                } else {
                    ""
                };
                findings.push(Finding::problem(
                    Status::Fail,
                    "load balancer",
                    target,
                    format!(
                        "presents a certificate that is not from {} for {}{whose}",
                        endpoint.ca_name, endpoint.host
                    ),
                    format!("{shown}{reason}"),
                    format!("{PASS_THROUGH}; if a server of another install answers, boot the nodes with this output's configs"),
                ));
            }
            Handshake::NoCertificate(reason) => {
                findings.push(Finding::problem(
                    Status::Warn,
                    "load balancer",
                    target,
                    "accepts connections, but no TLS server answers behind it yet (as expected before the bootstrap machine runs)".into(),
                    reason,
                    format!(
                        "once the bootstrap machine runs, check that the load balancer's pool for port {} holds it and that its health check passes",
                        endpoint.port
                    ),
                ));
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
