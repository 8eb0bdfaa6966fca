//! `check`: will the nodes boot? From the configs bootgen made (or any installer-made
//! `bootstrap.ign`), it tests from where it runs only the hosts and names those configs name:
//! the cluster's DNS names, the load balancer's API and machine-config ports with the cluster's
//! own CAs, every mirror with the trust bundle and the pull secret (the release image and the
//! images it names), this machine's clock against the servers' and the certificates' time left.
//!
//! What to probe is a [`Plan`] read from the configs; the network is a [`Probes`]
//! ([`NetProbes`] is the real one, the only code in the library that opens connections, every
//! step bounded in time); each test gives a [`Finding`] with the answer received and the fix.
//! The clock comes in with [`CheckOptions`].

mod clock;
mod dns;
mod endpoints;
mod finding;
mod http;
mod mirror;
mod names;
mod net;
mod payload;
mod probe;
mod registry;
mod targets;
mod tls;
mod watch;

pub use finding::{Finding, Report, Status};
pub use net::NetProbes;
pub use probe::{Contact, Handshake, Lookup, Presented, Probes, Request, Response, Transport};
pub use targets::{CertificateTime, ConfigServer, Plan, API_PORT, MCS_PORT};
pub use watch::{api_readiness, progress, Progress, COMPLETE_MARKER, STATUS_COMMAND};

use time::{Duration, OffsetDateTime};

/// How `check` runs.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// The present time (the caller's clock).
    pub now: OffsetDateTime,
    /// The API's port on the load balancer (6443).
    pub api_port: u16,
    /// The machine-config server's port, when not the one the pointer config names.
    pub config_port: Option<u16>,
    /// CA certificates (DER) the system trusts besides the configs' trust bundle: a mirror with
    /// a certificate from a public CA is trusted by the node's system store.
    pub system_roots: Vec<Vec<u8>>,
    /// How far this machine's clock may be from a server's.
    pub max_skew: Duration,
}

impl CheckOptions {
    /// The defaults at `now`: port 6443, the pointer config's port, two minutes of skew.
    pub fn at(now: OffsetDateTime) -> CheckOptions {
        CheckOptions {
            now,
            api_port: API_PORT,
            config_port: None,
            system_roots: Vec::new(),
            max_skew: Duration::minutes(2),
        }
    }
}

/// Runs every test of the plan through `probes`.
pub fn check(plan: &Plan, probes: &dyn Probes, options: &CheckOptions) -> Report {
    let mut findings = Vec::new();
    let mut notes = Vec::new();
    let mut dates = Vec::new();
    let resolved = names::check_names(plan, probes, options.now, &mut findings);
    let api_ca = "the cluster's kube-apiserver-lb-signer";
    for (host, addresses) in [
        (plan.api(), &resolved.api),
        (plan.api_int(), &resolved.api_int),
    ] {
        let endpoint = endpoints::Endpoint {
            host: &host,
            port: options.api_port,
            addresses,
            roots: &plan.api_roots,
            ca_name: api_ca,
            config_path: None,
        };
        endpoints::check_endpoint(&endpoint, probes, &mut findings);
    }
    match &plan.config_server {
        Some(server) => {
            let addresses = if server.host == plan.api_int() {
                resolved.api_int.clone()
            } else {
                match probes.resolve(&server.host) {
                    Lookup::Addresses(addresses) => addresses,
                    _ => Vec::new(),
                }
            };
            let endpoint = endpoints::Endpoint {
                host: &server.host,
                port: options.config_port.unwrap_or(server.port),
                addresses: &addresses,
                roots: &server.roots,
                ca_name: "the CA the pointer configs trust",
                config_path: Some(&server.path),
            };
            if let Some(date) = endpoints::check_endpoint(&endpoint, probes, &mut findings) {
                dates.push((format!("{}:{}", server.host, endpoint.port), date));
            }
        }
        None => notes.push("the configs name no machine-config server (no master.ign, no root CA): port 22623 was not tested".into()),
    }
    if plan.registries.is_empty() {
        notes.push("the configs name no mirrors: no registry was tested".into());
    } else {
        let mut roots = plan.trust.clone();
        roots.extend(options.system_roots.iter().cloned());
        mirror::check_mirrors(plan, probes, &roots, &mut findings, &mut dates);
    }
    clock::check_clock(&dates, options.now, options.max_skew, &mut findings);
    if dates.is_empty() {
        notes.push("no server sent a Date: the clock was not compared".into());
    }
    clock::check_certificates(&plan.certificates, options.now, &mut findings);
    Report {
        passed: !findings.iter().any(|f| f.status == Status::Fail),
        findings,
        notes,
        contacts: probes.contacts(),
    }
}
