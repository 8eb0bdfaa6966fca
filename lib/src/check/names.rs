//! DNS: `api`, `api-int` and a made-up name under `*.apps` must resolve, to the VIPs when the
//! install-config has them; each node with static addresses to one of them.

use super::finding::{Finding, Status};
use super::probe::{Lookup, Probes};
use super::targets::Plan;
use std::net::IpAddr;
use time::OffsetDateTime;

/// The addresses the cluster's API names resolved to (empty when they did not).
#[derive(Debug, Default)]
pub(crate) struct Resolved {
    pub(crate) api: Vec<IpAddr>,
    pub(crate) api_int: Vec<IpAddr>,
}

/// A name under `*.apps` no one would create by hand, so only the wildcard record answers it.
pub(crate) fn apps_probe_name(domain: &str, now: OffsetDateTime) -> String {
    format!("bootgen-check-{:x}.apps.{domain}", now.unix_timestamp())
}

fn list(addresses: &[IpAddr]) -> String {
    addresses
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Looks up one name; a finding for it, and its addresses when it resolved as it should.
fn check_name(
    probes: &dyn Probes,
    name: &str,
    record: &str,
    vips: &[IpAddr],
    role: &str,
    findings: &mut Vec<Finding>,
) -> Vec<IpAddr> {
    let target_text = if vips.is_empty() {
        role.to_string()
    } else {
        format!("{} ({role})", list(vips))
    };
    let add_record =
        format!("add the DNS record {record} IN A {target_text}, in the DNS server the nodes use");
    match probes.resolve(name) {
        Lookup::Addresses(addresses) => {
            // 0.0.0.0 or `::` is no host: a DNS filter's answer for a name it blocks, and a
            // connection to it reaches this machine itself.
            if addresses.iter().any(IpAddr::is_unspecified) {
                findings.push(Finding::problem(
                    Status::Fail,
                    "dns",
                    name,
                    "resolves to an unspecified address (0.0.0.0 or ::), which is no host: a DNS filter's answer for a blocked name".into(),
                    format!("{name} -> {}", list(&addresses)),
                    add_record,
                ));
                return Vec::new();
            }
            if !vips.is_empty() && !addresses.iter().any(|a| vips.contains(a)) {
                findings.push(Finding::problem(
                    Status::Fail,
                    "dns",
                    name,
                    format!(
                        "resolves to another address than the install-config's VIP ({})",
                        list(vips)
                    ),
                    format!("{name} -> {}", list(&addresses)),
                    format!("change the DNS record {record} to {}", list(vips)),
                ));
                return Vec::new();
            }
            findings.push(Finding::pass(
                "dns",
                name,
                format!("resolves to {}", list(&addresses)),
            ));
            addresses
        }
        Lookup::NoSuchName { answer } => {
            findings.push(Finding::problem(
                Status::Fail,
                "dns",
                name,
                "does not resolve: the name does not exist or has no address".into(),
                answer,
                add_record,
            ));
            Vec::new()
        }
        Lookup::Failed(error) => {
            findings.push(Finding::problem(
                Status::Fail,
                "dns",
                name,
                "could not be looked up".into(),
                error,
                format!("make the DNS server answer for {name}; {add_record}"),
            ));
            Vec::new()
        }
    }
}

/// The three names of the cluster; the API names' addresses for the load-balancer checks.
pub(crate) fn check_names(
    plan: &Plan,
    probes: &dyn Probes,
    now: OffsetDateTime,
    findings: &mut Vec<Finding>,
) -> Resolved {
    let api = check_name(
        probes,
        &plan.api(),
        &plan.api(),
        &plan.api_vips,
        "the API load balancer",
        findings,
    );
    let api_int = check_name(
        probes,
        &plan.api_int(),
        &plan.api_int(),
        &plan.api_vips,
        "the internal API load balancer; the control-plane machines fetch their configs through it",
        findings,
    );
    check_name(
        probes,
        &apps_probe_name(&plan.domain, now),
        &format!("*.apps.{}", plan.domain),
        &plan.ingress_vips,
        "the ingress load balancer",
        findings,
    );
    Resolved { api, api_int }
}

/// Each node with static addresses: its name (under the cluster's domain when the config sets
/// a short one) must resolve to one of them, as the nodes and the API look each other up.
pub(crate) fn check_hosts(plan: &Plan, probes: &dyn Probes, findings: &mut Vec<Finding>) {
    for host in &plan.hosts {
        let name = if host.name.contains('.') {
            host.name.clone()
        } else {
            format!("{}.{}", host.name, plan.domain)
        };
        let fix = format!(
            "add the DNS record {name} IN A/AAAA {} (and its PTR record), as {} sets the address",
            list(&host.addresses),
            host.config
        );
        match probes.resolve(&name) {
            Lookup::Addresses(addresses)
                if addresses.iter().any(|a| host.addresses.contains(a)) =>
            {
                findings.push(Finding::pass(
                    "dns",
                    name,
                    format!("resolves to {}", list(&addresses)),
                ));
            }
            Lookup::Addresses(addresses) => findings.push(Finding::problem(
                Status::Fail,
                "dns",
                name.clone(),
                format!(
                    "resolves to another address than the node's static one ({})",
                    list(&host.addresses)
                ),
                format!("{name} -> {}", list(&addresses)),
                fix,
            )),
            Lookup::NoSuchName { answer } => findings.push(Finding::problem(
                Status::Fail,
                "dns",
                name,
                "does not resolve: the name does not exist or has no address".into(),
                answer,
                fix,
            )),
            Lookup::Failed(error) => findings.push(Finding::problem(
                Status::Fail,
                "dns",
                name,
                "could not be looked up".into(),
                error,
                fix,
            )),
        }
    }
}
