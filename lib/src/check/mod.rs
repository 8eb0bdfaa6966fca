//! `check`: will the nodes boot? From the configs bootgen made (or any installer-made
//! `bootstrap.ign`), it tests from where it runs only the hosts and names those configs name:
//! the cluster's DNS names, the load balancer's API and machine-config ports with the cluster's
//! own CAs, every mirror with the trust bundle and the pull secret (the release image and the
//! images it names), this machine's clock against the servers' and the certificates' time left.
//!
//! What to probe is a [`Plan`] read from the configs; the network is a [`Probes`]
//! ([`NetProbes`] is the real one, the only code in the library that opens connections, every
//! step bounded in time); each test gives a [`Finding`] with the answer received and the fix.
//! The clock comes in with [`CheckOptions`]. For `--watch`, [`progress`] reads what one look at
//! the bootstrap machine printed ([`STATUS_COMMAND`], run there by the caller over SSH).

mod clock;
mod deadline;
mod dns;
mod echoed;
mod endpoints;
mod finding;
mod host_entries;
mod hosts;
mod http;
mod mirror;
mod names;
mod net;
mod payload;
mod probe;
mod redirect;
mod registry;
mod said;
mod targets;
mod time_sources;
mod tls;
mod watch;

pub use finding::{Finding, Report, Status};
pub use hosts::StaticHost;
pub use net::NetProbes;
pub use probe::{
    Asked, Contact, Handshake, Lookup, Presented, Probes, Request, Response, Transport, Unconnected,
};
pub use targets::{CertificateTime, ConfigServer, Plan, API_PORT, MACHINE_CONFIG_PORT};
pub use watch::{
    api_readiness, progress, seen, Progress, COMPLETE_MARKER, SEEN_CSRS, STATUS_COMMAND,
};

use time::{Duration, OffsetDateTime};

/// The port NTP servers answer on.
pub const NTP_PORT: u16 = 123;

/// How `check` runs.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// This machine's clock, which the servers' `Date`s are compared with.
    pub now: OffsetDateTime,
    /// The time the certificates must last until: `now` unless the caller asks about another
    /// (a question apart from the clock's: a later horizon does not move this machine's clock).
    pub certificates_at: OffsetDateTime,
    /// The API's port on the load balancer (6443).
    pub api_port: u16,
    /// The machine-config server's port, when not the one the pointer config names.
    pub config_port: Option<u16>,
    /// CA certificates (DER) the system trusts besides the configs' trust bundle: a mirror with
    /// a certificate from a public CA is trusted by the node's system store.
    pub system_roots: Vec<Vec<u8>>,
    /// How far this machine's clock may be from a server's.
    pub max_skew: Duration,
    /// The port the nodes' NTP servers answer on (123).
    pub ntp_port: u16,
}

impl CheckOptions {
    /// The defaults at `now`: port 6443, the pointer config's port, two minutes of skew.
    pub fn at(now: OffsetDateTime) -> CheckOptions {
        CheckOptions {
            now,
            certificates_at: now,
            api_port: API_PORT,
            config_port: None,
            system_roots: Vec::new(),
            max_skew: Duration::minutes(2),
            ntp_port: NTP_PORT,
        }
    }
}

/// Runs every test of the plan through `probes`.
pub fn check(plan: &Plan, probes: &dyn Probes, options: &CheckOptions) -> Report {
    let mut findings = Vec::new();
    let mut notes = Vec::new();
    let mut dates = Vec::new();
    let resolved = names::check_names(plan, probes, options.now, &mut findings);
    names::check_hosts(plan, probes, &mut findings);
    host_entries::check_host_entries(plan, probes, &mut findings);
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
        if let Some(date) = endpoints::check_endpoint(&endpoint, probes, &mut findings) {
            dates.push((format!("{host}:{}", options.api_port), date));
        }
    }
    match &plan.config_server {
        Some(server) => {
            // The pointer configs of a cluster with API VIPs name the first VIP itself.
            let addresses = if let Ok(ip) = server.host.parse::<std::net::IpAddr>() {
                vec![ip]
            } else if server.host == plan.api_int() {
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
                dates.push((crate::url_syntax::host_port(&server.host, endpoint.port), date));
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
    time_sources::check_time_sources(
        plan,
        probes,
        options.ntp_port,
        &mut findings,
        &mut notes,
        &mut dates,
    );
    clock::check_clock(&dates, options.now, options.max_skew, &mut findings);
    if dates.is_empty() {
        findings.push(Finding::skipped(
            "time",
            "this machine's clock",
            "not tested: compared with no server's clock".into(),
            "no server answered with a Date".into(),
        ));
    }
    clock::check_certificates(
        &plan.certificates,
        (options.now, options.certificates_at),
        &mut findings,
    );
    Report {
        passed: !findings.iter().any(|f| f.status == Status::Fail),
        findings,
        notes,
        contacts: probes.contacts(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::model::mirrors::{Mirror, Registry};
    use std::cell::RefCell;
    use std::net::SocketAddr;

    /// Answers from a table; connects, handshakes and requests are recorded and refused.
    struct Fake {
        answers: Vec<(&'static str, Lookup)>,
        touched: RefCell<Vec<String>>,
    }

    impl Probes for Fake {
        fn resolve(&self, name: &str) -> Lookup {
            self.answers
                .iter()
                .find(|(n, _)| name.ends_with(n))
                .map(|(_, answer)| answer.clone())
                .unwrap_or(Lookup::NoSuchName {
                    answer: "NXDOMAIN from the fake".into(),
                })
        }
        fn connect(&self, address: SocketAddr) -> std::result::Result<(), Unconnected> {
            self.touched.borrow_mut().push(address.to_string());
            Err(Unconnected::Refused("refused".into()))
        }
        fn handshake(&self, address: SocketAddr, _: &str, _: &[Vec<u8>]) -> Handshake {
            self.touched.borrow_mut().push(address.to_string());
            Handshake::NoCertificate("closed".into())
        }
        fn get(&self, request: &Request) -> std::result::Result<Response, String> {
            self.touched.borrow_mut().push(request.address.to_string());
            Err("refused".into())
        }
        fn contacts(&self) -> Vec<Contact> {
            Vec::new()
        }
    }

    fn plan() -> Plan {
        Plan {
            domain: "c.example.com".into(),
            api_vips: vec!["10.0.0.5".parse().unwrap()],
            registries: vec![Registry {
                location: "source.example/ocp".into(),
                insecure: false,
                blocked: true,
                mirror_by_digest_only: true,
                mirrors: vec![Mirror {
                    location: "mirror.example/ocp".into(),
                    insecure: false,
                }],
            }],
            release: Some(format!(
                "source.example/ocp/release@sha256:{}",
                "a".repeat(64)
            )),
            ..Plan::default()
        }
    }

    #[test]
    fn a_wrong_answer_or_an_empty_one_is_never_connected_to() {
        let fake = Fake {
            answers: vec![
                (
                    "api.c.example.com",
                    Lookup::Addresses(vec!["192.0.2.9".parse().unwrap()]),
                ),
                ("api-int.c.example.com", Lookup::Addresses(Vec::new())),
                ("mirror.example", Lookup::Addresses(Vec::new())),
            ],
            touched: RefCell::new(Vec::new()),
        };
        let now = OffsetDateTime::UNIX_EPOCH + Duration::days(20_000);
        let report = check(&plan(), &fake, &CheckOptions::at(now));
        assert!(!report.passed);
        assert!(
            fake.touched.borrow().is_empty(),
            "{:?}",
            fake.touched.borrow()
        );
        let api = &report.findings[0];
        assert_eq!(api.status, Status::Fail);
        assert_eq!(
            api.evidence.as_deref(),
            Some("api.c.example.com -> 192.0.2.9")
        );
        let mirror = report.findings.iter().find(|f| f.area == "mirror").unwrap();
        assert_eq!(mirror.target, "mirror.example");
        assert_eq!(mirror.status, Status::Fail);
    }

    /// A mirror the config's /etc/hosts names is reached at that address, as the node reaches
    /// it, without asking DNS; one the name does not resolve for is told to add a host entry
    /// for its name, without the port (which `--add-host` refuses).
    #[test]
    fn a_mirror_in_the_nodes_hosts_file_is_reached_there() {
        let fake = Fake {
            answers: Vec::new(),
            touched: RefCell::new(Vec::new()),
        };
        let mut plan = plan();
        plan.registries[0].mirrors[0].location = "mirror.example:5000/ocp".into();
        let now = OffsetDateTime::UNIX_EPOCH + Duration::days(20_000);
        let report = check(&plan, &fake, &CheckOptions::at(now));
        let mirror = report.findings.iter().find(|f| f.area == "mirror").unwrap();
        assert_eq!(
            mirror.what, "the mirror's name does not resolve",
            "{mirror:?}"
        );
        let fix = mirror.fix.as_deref().unwrap_or_default();
        assert!(
            fix.contains("<ip>=mirror.example") && !fix.contains("mirror.example:5000"),
            "{fix}"
        );
        plan.node_hosts = vec![("mirror.example".into(), "10.0.0.9".parse().unwrap())];
        let report = check(&plan, &fake, &CheckOptions::at(now));
        let mirror = report.findings.iter().find(|f| f.area == "mirror").unwrap();
        assert_ne!(
            mirror.what, "the mirror's name does not resolve",
            "{mirror:?}"
        );
        assert!(
            fake.touched.borrow().iter().any(|a| a == "10.0.0.9:5000"),
            "{:?}",
            fake.touched.borrow()
        );
    }

    /// A DNS filter's sinkhole answer (0.0.0.0) fails, and is not connected to: a connection
    /// to it would reach this machine.
    #[test]
    fn an_unspecified_address_is_no_host() {
        let mut plan = plan();
        plan.api_vips.clear();
        let fake = Fake {
            answers: vec![(
                "api.c.example.com",
                Lookup::Addresses(vec!["0.0.0.0".parse().unwrap()]),
            )],
            touched: RefCell::new(Vec::new()),
        };
        let now = OffsetDateTime::UNIX_EPOCH + Duration::days(20_000);
        let report = check(&plan, &fake, &CheckOptions::at(now));
        let api = &report.findings[0];
        assert_eq!(
            (api.status, api.target.as_str()),
            (Status::Fail, "api.c.example.com")
        );
        assert!(api.what.contains("unspecified address"), "{api:?}");
        assert!(
            fake.touched.borrow().is_empty(),
            "{:?}",
            fake.touched.borrow()
        );
    }
}
