//! What a leaf certificate should say for a request: its subject's Organizations and its SANs,
//! and how a reused certificate's SANs differ from them.

use super::cert::San;
use super::table::{
    LeafSpec, Sans, ALL_SERVICE_ACCOUNTS, KUBELET_CLIENT, SERVICE_NETWORK_DNS_NAMES,
};
use super::PkiRequest;

/// The Organizations a leaf's subject names, in order: the row's, and the group of every
/// service account for the kubelet's bootstrap client where the release's installer adds it.
pub(super) fn wanted_organizations(req: &PkiRequest, spec: &LeafSpec) -> Vec<&'static str> {
    let mut organizations = spec.organizations.to_vec();
    if spec.name == KUBELET_CLIENT && req.kubelet_client_in_all_service_accounts {
        organizations.push(ALL_SERVICE_ACCOUNTS);
    }
    organizations
}

/// The SANs a leaf should carry, DNS names before IP addresses as Go's x509 writes them.
pub(super) fn wanted_sans(req: &PkiRequest, sans: Sans) -> Vec<San> {
    let dns = |name: &str| San::Dns(name.to_string());
    match sans {
        Sans::None => Vec::new(),
        Sans::Localhost => vec![
            dns("localhost"),
            San::Ip([127, 0, 0, 1].into()),
            San::Ip(std::net::Ipv6Addr::LOCALHOST.into()),
        ],
        Sans::ServiceNetwork => SERVICE_NETWORK_DNS_NAMES
            .iter()
            .map(|name| dns(name))
            .chain(req.service_network_ips.iter().map(|ip| San::Ip(*ip)))
            .collect(),
        Sans::Api => vec![dns(&req.api_host)],
        Sans::ApiInt => vec![dns(&req.api_int_host)],
        // Each VIP as a DNS name too: the installer's certificate says both, for clients that
        // match an address against the DNS names.
        Sans::MachineConfigServer => std::iter::once(dns(&req.api_int_host))
            .chain(
                req.machine_config_server_ips
                    .iter()
                    .map(|ip| dns(&ip.to_string())),
            )
            .chain(req.machine_config_server_ips.iter().map(|ip| San::Ip(*ip)))
            .collect(),
    }
}

pub(super) fn sorted(mut sans: Vec<San>) -> Vec<San> {
    sans.sort();
    sans.dedup();
    sans
}

/// "api.old → api.new": what was dropped, then what was added.
pub(super) fn san_change(have: &[San], wanted: &[San]) -> String {
    let list = |sans: Vec<&San>| {
        if sans.is_empty() {
            "nothing".to_string()
        } else {
            sans.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let removed = have.iter().filter(|s| !wanted.contains(s)).collect();
    let added = wanted.iter().filter(|s| !have.contains(s)).collect();
    format!("{} → {}", list(removed), list(added))
}
