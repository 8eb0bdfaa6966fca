//! Which of a cluster's pending certificate requests belong to the machines of a hosts file:
//! read from `oc get csr -o json`, each request's certificate request parsed, and listed only
//! when it is exactly what a new machine's kubelet asks for, so that the list can go to `oc adm
//! certificate approve` and nothing else is approved.
//!
//! - The client request a new node's kubelet sends with the bootstrap credentials: signer
//!   `kubernetes.io/kube-apiserver-client-kubelet`, asked by the machine-config operator's
//!   `node-bootstrapper` service account, subject `O=system:nodes, CN=system:node:NAME` with
//!   NAME a host of the file, no subject alternative name.
//! - The serving request the node sends once it has joined: signer
//!   `kubernetes.io/kubelet-serving`, asked by `system:node:NAME` itself, the same subject,
//!   DNS names only NAME, and IP addresses exactly the host's static addresses.
//!
//! Anything else (approved or denied already, another signer or requester, a name the file does
//! not have, an address it does not give the host, a joined node renewing its client
//! certificate) is shown with why, never listed.

use crate::error::{Error, Result};
use crate::network::Hosts;
use base64::Engine as _;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::net::IpAddr;

/// The most `oc get csr -o json` output read (a cluster with a few thousand requests).
pub const INPUT_LIMIT: u64 = 64 << 20;

const CLIENT_SIGNER: &str = "kubernetes.io/kube-apiserver-client-kubelet";
const SERVING_SIGNER: &str = "kubernetes.io/kubelet-serving";
const BOOTSTRAPPER: &str =
    "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper";
const NODE_PREFIX: &str = "system:node:";
const NODES_GROUP: &str = "system:nodes";

/// `oc get csr -o json`: a list, or one request.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Document {
    List { items: Vec<Request> },
    One(Request),
}

/// A `CertificateSigningRequest` as the API prints it (the fields read here).
#[derive(Debug, Deserialize)]
struct Request {
    metadata: Metadata,
    spec: Spec,
    #[serde(default)]
    status: Status,
}

#[derive(Debug, Deserialize)]
struct Metadata {
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Spec {
    /// The PEM certificate request, base64-encoded.
    request: String,
    #[serde(default)]
    signer_name: String,
    #[serde(default)]
    username: String,
}

#[derive(Debug, Default, Deserialize)]
struct Status {
    #[serde(default)]
    conditions: Vec<Condition>,
}

#[derive(Debug, Deserialize)]
struct Condition {
    #[serde(rename = "type")]
    kind: String,
}

/// Which certificate a listed request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// The kubelet's client certificate, asked with the bootstrap credentials.
    Client,
    /// The kubelet's serving certificate, asked by the node.
    Serving,
}

/// What became of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// A request of `host`'s kubelet: approve it.
    Listed {
        /// The host of the hosts file.
        host: String,
        /// Its client or serving request.
        kind: RequestKind,
    },
    /// Not listed, and why.
    Shown(String),
}

/// One request, judged.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Judged {
    /// The request's name (`csr-x7k2p`), as `oc adm certificate approve` takes it.
    pub name: String,
    /// Listed or shown.
    pub verdict: Verdict,
}

/// Judges every request of `json` (`oc get csr -o json`, from `source`) against `hosts`.
pub fn judge(json: &[u8], source: &str, hosts: &Hosts) -> Result<Vec<Judged>> {
    let document: Document = serde_json::from_slice(json).map_err(|e| Error::Parse {
        file: source.to_string(),
        line: Some(e.line()),
        message: format!("is not `oc get csr -o json` output: {e}"),
    })?;
    let requests = match document {
        Document::List { items } => items,
        Document::One(request) => vec![request],
    };
    Ok(requests
        .iter()
        .map(|request| {
            let name = &request.metadata.name;
            // Listed names go to `oc adm certificate approve` as they are.
            if !crate::network::is_host_name(name) {
                return Judged {
                    name: crate::report::terminal_safe(name).into_owned(),
                    verdict: Verdict::Shown("its name is no Kubernetes object name".into()),
                };
            }
            Judged {
                name: name.clone(),
                verdict: judge_one(request, hosts),
            }
        })
        .collect())
}

fn judge_one(request: &Request, hosts: &Hosts) -> Verdict {
    let settled = request
        .status
        .conditions
        .iter()
        .find(|c| ["Approved", "Denied", "Failed"].contains(&c.kind.as_str()));
    if let Some(condition) = settled {
        return Verdict::Shown(format!("{} already", condition.kind.to_ascii_lowercase()));
    }
    let subject = match parse(&request.spec.request) {
        Ok(subject) => subject,
        Err(why) => return Verdict::Shown(why),
    };
    let Some(name) = subject
        .common_name
        .as_deref()
        .and_then(|cn| cn.strip_prefix(NODE_PREFIX))
    else {
        return Verdict::Shown(format!(
            "its subject is {}, not a node's (CN=system:node:NAME)",
            subject.describe()
        ));
    };
    if subject.organizations != [NODES_GROUP] {
        return Verdict::Shown(format!(
            "its subject is {}, not a node's (O=system:nodes)",
            subject.describe()
        ));
    }
    let Some(host) = hosts.hosts.iter().find(|h| h.hostname == name) else {
        return Verdict::Shown(format!(
            "{} is no host of {}",
            crate::report::terminal_safe(name),
            hosts.source_name
        ));
    };
    let requester = crate::report::terminal_safe(&request.spec.username).into_owned();
    match request.spec.signer_name.as_str() {
        CLIENT_SIGNER => {
            if request.spec.username == format!("{NODE_PREFIX}{name}") {
                return Verdict::Shown(format!("a renewal by {name}, which has joined already: its own kubelet asks it, and the cluster approves it"));
            }
            if request.spec.username != BOOTSTRAPPER {
                return Verdict::Shown(format!(
                    "asked by {requester}, not with the bootstrap credentials ({BOOTSTRAPPER})"
                ));
            }
            if !subject.dns_names.is_empty() || !subject.addresses.is_empty() {
                return Verdict::Shown(
                    "a client request with subject alternative names, which a kubelet's has not"
                        .into(),
                );
            }
            Verdict::Listed {
                host: host.hostname.clone(),
                kind: RequestKind::Client,
            }
        }
        SERVING_SIGNER => {
            if request.spec.username != format!("{NODE_PREFIX}{name}") {
                return Verdict::Shown(format!(
                    "a serving request for {name} asked by {requester}, not by the node"
                ));
            }
            if subject.dns_names.iter().any(|d| d != name) {
                return Verdict::Shown(format!(
                    "it names DNS names other than {name}: {}",
                    subject.dns_names.join(", ")
                ));
            }
            let expected: BTreeSet<IpAddr> = host
                .network
                .interfaces
                .iter()
                .flat_map(|i| i.addresses.iter().map(|a| a.ip))
                .collect();
            if expected.is_empty() {
                return Verdict::Shown(format!("{} gives {name} no static address, so its serving request cannot be told from another machine's claiming the name", hosts.source_name));
            }
            let asked: BTreeSet<IpAddr> = subject.addresses.iter().copied().collect();
            if asked != expected {
                let list = |set: &BTreeSet<IpAddr>| {
                    set.iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                return Verdict::Shown(format!(
                    "it asks for {}, and {} gives {name} {}",
                    if asked.is_empty() {
                        "no address".to_string()
                    } else {
                        list(&asked)
                    },
                    hosts.source_name,
                    list(&expected)
                ));
            }
            Verdict::Listed {
                host: host.hostname.clone(),
                kind: RequestKind::Serving,
            }
        }
        other => Verdict::Shown(format!(
            "signer {} is not a kubelet's",
            crate::report::terminal_safe(other)
        )),
    }
}

/// What a certificate request asks for.
struct Subject {
    common_name: Option<String>,
    organizations: Vec<String>,
    dns_names: Vec<String>,
    addresses: Vec<IpAddr>,
}

impl Subject {
    fn describe(&self) -> String {
        let mut parts: Vec<String> = self
            .organizations
            .iter()
            .map(|o| format!("O={o}"))
            .collect();
        if let Some(cn) = &self.common_name {
            parts.push(format!("CN={cn}"));
        }
        crate::report::terminal_safe(&parts.join(", ")).into_owned()
    }
}

/// The subject and alternative names of a base64 PEM certificate request, its signature
/// verified.
fn parse(request: &str) -> std::result::Result<Subject, String> {
    use x509_parser::prelude::*;
    let pem_bytes = base64::engine::general_purpose::STANDARD
        .decode(request.trim())
        .map_err(|_| "its request is not base64".to_string())?;
    let block = ::pem::parse(&pem_bytes).map_err(|_| "its request is no PEM block".to_string())?;
    if block.tag() != "CERTIFICATE REQUEST" {
        return Err(format!(
            "its request is a PEM {}, not a CERTIFICATE REQUEST",
            block.tag()
        ));
    }
    let (_, csr) = X509CertificationRequest::from_der(block.contents())
        .map_err(|e| format!("its certificate request cannot be read: {e}"))?;
    csr.verify_signature()
        .map_err(|_| "its certificate request's signature does not verify".to_string())?;
    let info = &csr.certification_request_info;
    let text = |attr: &AttributeTypeAndValue<'_>| attr.as_str().ok().map(str::to_string);
    let common_name = info.subject.iter_common_name().next().and_then(text);
    let organizations = info.subject.iter_organization().filter_map(text).collect();
    let mut dns_names = Vec::new();
    let mut addresses = Vec::new();
    for extension in csr.requested_extensions().into_iter().flatten() {
        if let ParsedExtension::SubjectAlternativeName(names) = extension {
            for name in &names.general_names {
                match name {
                    GeneralName::DNSName(dns) => dns_names.push(dns.to_string()),
                    GeneralName::IPAddress(bytes) => match bytes.len() {
                        4 => addresses.push(IpAddr::from(
                            <[u8; 4]>::try_from(*bytes).unwrap_or_default(),
                        )),
                        16 => addresses.push(IpAddr::from(
                            <[u8; 16]>::try_from(*bytes).unwrap_or_default(),
                        )),
                        _ => return Err("it names an IP address of neither 4 nor 16 bytes".into()),
                    },
                    _ => return Err(
                        "it names an alternative name that is neither a DNS name nor an IP address"
                            .into(),
                    ),
                }
            }
        }
    }
    Ok(Subject {
        common_name,
        organizations,
        dns_names,
        addresses,
    })
}
