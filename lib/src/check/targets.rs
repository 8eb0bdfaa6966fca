//! What to probe, read from the configs: the cluster's names and VIPs, the CAs its endpoints must
//! present certificates from, the machine-config server the pointer configs fetch from, the
//! mirrors with their credentials and trust bundle, the release image, and the certificates'
//! lifetimes. Nothing here touches the network; a bootgen output directory and an installer's
//! `bootstrap.ign` are read the same way (through the files the bootstrap config carries).

use crate::error::{Error, Result};
use crate::ignition::read::{
    file_entries, file_text, find_release, parse_registries_conf, stored_install_config, ANCHORS,
    NODE_PULL_SECRET, REGISTRIES_CONF, USER_CA_BUNDLE,
};
use crate::ignition::{dataurl, IgnitionDoc};
use crate::model::mirrors::Registry;
use serde_json::Value;
use std::net::IpAddr;
use std::path::Path;
use time::OffsetDateTime;

/// Where the bootstrap config keeps the cluster's certificates.
const TLS_DIR: &str = "/opt/openshift/tls/";
/// The CA bundle the API's load-balancer certificates (`api`, `api-int`) chain to.
const API_CA_BUNDLE: &str = "/opt/openshift/tls/kube-apiserver-lb-ca-bundle.crt";
/// The CA the machine-config server's certificate chains to, when no pointer config says.
const ROOT_CA: &str = "/opt/openshift/tls/root-ca.crt";
pub use crate::model::{API_PORT, MACHINE_CONFIG_PORT};

/// The machine-config server as the pointer configs reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigServer {
    /// Its host name (`api-int.<domain>`).
    pub host: String,
    /// Its port.
    pub port: u16,
    /// The path fetched (`/config/master`).
    pub path: String,
    /// The CAs the pointer config trusts (DER).
    pub roots: Vec<Vec<u8>>,
}

/// One certificate of the cluster, with its lifetime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateTime {
    /// The file it is in, on the node.
    pub file: String,
    /// Its subject.
    pub subject: String,
    /// When it starts to be valid.
    pub not_before: OffsetDateTime,
    /// When it expires.
    pub not_after: OffsetDateTime,
    /// A certificate authority: never re-issued in place, so its renewal is a new PKI.
    pub authority: bool,
}

/// Everything `check` tests, from the configs. Its `Debug` shows the pull secret's registries,
/// not their credentials.
#[derive(Clone, Default)]
pub struct Plan {
    /// The cluster's domain (`<name>.<baseDomain>`).
    pub domain: String,
    /// The install-config's API VIPs, when it has them.
    pub api_vips: Vec<IpAddr>,
    /// The install-config's ingress VIPs, when it has them.
    pub ingress_vips: Vec<IpAddr>,
    /// The CAs the API's certificates must chain to (DER).
    pub api_roots: Vec<Vec<u8>>,
    /// The machine-config server, when the configs say how it is reached.
    pub config_server: Option<ConfigServer>,
    /// The mirrors, as registries.conf writes them.
    pub registries: Vec<Registry>,
    /// The node's pull secret: each `auths` key (normalized) and its `auth` value.
    pub credentials: Vec<(String, String)>,
    /// The trust bundle the node adds to the system's CAs (DER).
    pub trust: Vec<Vec<u8>>,
    /// The release image's pull spec.
    pub release: Option<String>,
    /// The cluster's certificates in the bootstrap config.
    pub certificates: Vec<CertificateTime>,
    /// The nodes with static addresses (the bootstrap config's, and `hosts/*.ign`'s).
    pub hosts: Vec<super::StaticHost>,
    /// The names the config maps in the node's `/etc/hosts` (lower case), with their
    /// addresses: the node looks there before DNS, and so does `check` for a mirror.
    pub node_hosts: Vec<(String, IpAddr)>,
    /// The names bootgen's MachineConfigs (`99-master-bootgen-hosts`) keep in every
    /// control-plane and compute machine's `/etc/hosts`, with their addresses.
    pub machine_hosts: Vec<(String, IpAddr)>,
    /// The NTP servers and pools the bootstrap config's `/etc/chrony.conf` names; empty when
    /// it writes none (the node keeps its image's).
    pub time_sources: Vec<String>,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let registries: Vec<&str> = self.credentials.iter().map(|(r, _)| r.as_str()).collect();
        f.debug_struct("Plan")
            .field("domain", &self.domain)
            .field("api_vips", &self.api_vips)
            .field("ingress_vips", &self.ingress_vips)
            .field("api_roots", &self.api_roots.len())
            .field("config_server", &self.config_server)
            .field("registries", &self.registries)
            .field("credentials (registries only)", &registries)
            .field("trust", &self.trust.len())
            .field("release", &self.release)
            .field("certificates", &self.certificates)
            .field("hosts", &self.hosts)
            .field("node_hosts", &self.node_hosts)
            .field("machine_hosts", &self.machine_hosts)
            .field("time_sources", &self.time_sources)
            .finish()
    }
}

impl Plan {
    /// `api.<domain>`.
    pub fn api(&self) -> String {
        format!("api.{}", self.domain)
    }

    /// `api-int.<domain>`.
    pub fn api_int(&self) -> String {
        format!("api-int.{}", self.domain)
    }

    /// Reads an output directory (its `bootstrap.ign` and `master.ign`), or a bootstrap config
    /// given as a file.
    pub fn read(path: &Path) -> Result<Plan> {
        let read = |path: &Path| std::fs::read(path).map_err(|e| Error::io("cannot read", path, e));
        if path.is_dir() {
            let bootstrap = path.join("bootstrap.ign");
            let pointer = path.join("master.ign");
            let pointer = if pointer.exists() {
                Some(read(&pointer)?)
            } else {
                None
            };
            let mut plan = Plan::from_configs(
                &read(&bootstrap)?,
                &bootstrap.display().to_string(),
                pointer.as_deref(),
            )?;
            plan.add_host_configs(path)?;
            Ok(plan)
        } else {
            Plan::from_configs(&read(path)?, &path.display().to_string(), None)
        }
    }

    /// The per-host configs of an output directory (`hosts/*.ign`), in name order; a link
    /// there (or at `hosts/`) is refused, naming it, never read through.
    pub fn host_configs(output: &Path) -> Result<Vec<std::path::PathBuf>> {
        let names = crate::output::host_configs(output)?;
        Ok(names.iter().map(|name| output.join(name)).collect())
    }

    /// Adds the nodes with static addresses of every per-host config of an output directory
    /// (`hosts/*.ign`), each listed and read without following a link (a link is refused).
    pub fn add_host_configs(&mut self, output: &Path) -> Result<()> {
        for host_config in Plan::host_configs(output)? {
            let bytes = crate::output::read_no_link(&host_config)?.ok_or_else(|| {
                Error::io(
                    "cannot read",
                    &host_config,
                    std::io::ErrorKind::NotFound.into(),
                )
            })?;
            self.add_host_config(&bytes, &host_config.display().to_string())?;
        }
        Ok(())
    }

    /// Adds the nodes with static addresses a per-host config (`hosts/HOST.ign`) places.
    pub fn add_host_config(&mut self, config: &[u8], name: &str) -> Result<()> {
        let doc = IgnitionDoc::parse(config, name)?;
        self.hosts.extend(super::hosts::static_hosts(&doc, name));
        Ok(())
    }

    /// Reads a bootstrap config and, when given, a control-plane pointer config.
    pub fn from_configs(bootstrap: &[u8], name: &str, pointer: Option<&[u8]>) -> Result<Plan> {
        let doc = IgnitionDoc::parse(bootstrap, name)?;
        let install_config = stored_install_config(&doc);
        let domain = install_config
            .as_ref()
            .and_then(cluster_domain)
            .or_else(|| pointer.and_then(pointer_url).and_then(|u| domain_of_url(&u)))
            .ok_or_else(|| Error::Ignition {
                file: name.to_string(),
                message: "holds no install-config (cluster-config.yaml) to read the cluster's name and base domain from".into(),
            })?;
        let vips = |keys: [&str; 2]| {
            install_config
                .as_ref()
                .map(|config| platform_addresses(config, keys))
                .unwrap_or_default()
        };
        let registries = match file_text(&doc, REGISTRIES_CONF) {
            Some(text) => parse_registries_conf(&text)?,
            None => Vec::new(),
        };
        let mut trust = pem_ders(&doc, ANCHORS);
        trust.extend(pem_ders(&doc, USER_CA_BUNDLE));
        let release = find_release(&doc).ok().flatten().map(|r| r.reference);
        let config_server = config_server(&doc, pointer, &domain);
        Ok(Plan {
            api_vips: vips(["apiVIPs", "apiVIP"]),
            ingress_vips: vips(["ingressVIPs", "ingressVIP"]),
            api_roots: pem_ders(&doc, API_CA_BUNDLE),
            config_server,
            registries,
            credentials: credentials(file_text(&doc, NODE_PULL_SECRET)),
            trust,
            release,
            certificates: certificate_times(&doc),
            hosts: super::hosts::static_hosts(&doc, name),
            node_hosts: hosts_lines(crate::ignition::read::configured_lines(&doc)),
            machine_hosts: hosts_lines(
                file_text(
                    &doc,
                    &crate::passes::mirrors::machine_hosts::manifest_path("master"),
                )
                .map(|yaml| crate::passes::mirrors::machine_hosts::entries_of_manifest(&yaml))
                .unwrap_or_default(),
            ),
            time_sources: file_text(&doc, crate::network::CHRONY_CONF)
                .map(|text| time_sources_of(&text))
                .unwrap_or_default(),
            domain,
        })
    }
}

/// Each name `/etc/hosts` lines map, with its address; the first line naming it wins, as in
/// the resolver.
fn hosts_lines(lines: Vec<String>) -> Vec<(String, IpAddr)> {
    let mut out: Vec<(String, IpAddr)> = Vec::new();
    for line in lines {
        let line = line.split('#').next().unwrap_or_default();
        let mut fields = line.split_whitespace();
        let Some(ip) = fields.next().and_then(|f| f.parse::<IpAddr>().ok()) else {
            continue;
        };
        for name in fields {
            let name = name.to_ascii_lowercase();
            if !out.iter().any(|(n, _)| *n == name) {
                out.push((name, ip));
            }
        }
    }
    out
}

/// The hosts of chrony's `server` and `pool` lines, in order.
fn time_sources_of(chrony_conf: &str) -> Vec<String> {
    chrony_conf
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            match words.next()? {
                "server" | "pool" => words.next().map(str::to_string),
                _ => None,
            }
        })
        .collect()
}

fn cluster_domain(config: &serde_yaml_ng::Value) -> Option<String> {
    let name = config.get("metadata")?.get("name")?.as_str()?;
    let base = config.get("baseDomain")?.as_str()?;
    Some(format!("{name}.{base}"))
}

/// The addresses any platform lists under one of `keys` (a list, or a single value).
fn platform_addresses(config: &serde_yaml_ng::Value, keys: [&str; 2]) -> Vec<IpAddr> {
    let Some(platforms) = config.get("platform").and_then(|p| p.as_mapping()) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for settings in platforms.values() {
        for key in keys {
            match settings.get(key) {
                Some(serde_yaml_ng::Value::Sequence(items)) => found.extend(
                    items
                        .iter()
                        .filter_map(|v| v.as_str()?.parse::<IpAddr>().ok()),
                ),
                Some(value) => found.extend(value.as_str().and_then(|v| v.parse::<IpAddr>().ok())),
                None => {}
            }
        }
    }
    found.dedup();
    found
}

fn pointer_value(pointer: &[u8]) -> Option<Value> {
    serde_json::from_slice(pointer).ok()
}

fn pointer_url(pointer: &[u8]) -> Option<String> {
    pointer_value(pointer)?
        .pointer("/ignition/config/merge/0/source")?
        .as_str()
        .map(str::to_string)
}

/// Host, port and path of an `https://host[:port]/path` URL.
fn split_url(url: &str) -> Option<(String, Option<u16>, String)> {
    let rest = url.strip_prefix("https://")?;
    let (authority, path) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    // `[v6]:port` too: the pointer configs of a cluster with API VIPs name the first.
    let (host, port) = super::registry::name_and_port(authority);
    Some((host.to_string(), port, path.to_string()))
}

fn domain_of_url(url: &str) -> Option<String> {
    let (host, _, _) = split_url(url)?;
    host.strip_prefix("api-int.").map(str::to_string)
}

fn config_server(doc: &IgnitionDoc, pointer: Option<&[u8]>, domain: &str) -> Option<ConfigServer> {
    let from_pointer = pointer.and_then(|bytes| {
        let value = pointer_value(bytes)?;
        let (host, port, path) = split_url(&pointer_url(bytes)?)?;
        let roots = value
            .pointer("/ignition/security/tls/certificateAuthorities")?
            .as_array()?
            .iter()
            .filter_map(|ca| dataurl::decode(ca.get("source")?.as_str()?, None).ok())
            .flat_map(|pem| ders(&pem))
            .collect();
        Some(ConfigServer {
            host,
            port: port.unwrap_or(super::probe::default_port(false)),
            path,
            roots,
        })
    });
    from_pointer.or_else(|| {
        let roots = pem_ders(doc, ROOT_CA);
        (!roots.is_empty()).then(|| ConfigServer {
            host: format!("api-int.{domain}"),
            port: MACHINE_CONFIG_PORT,
            path: "/config/master".into(),
            roots,
        })
    })
}

fn ders(pem_text: &[u8]) -> Vec<Vec<u8>> {
    pem::parse_many(pem_text)
        .map(|blocks| {
            blocks
                .into_iter()
                .filter(|b| b.tag() == "CERTIFICATE")
                .map(|b| b.into_contents())
                .collect()
        })
        .unwrap_or_default()
}

fn pem_ders(doc: &IgnitionDoc, path: &str) -> Vec<Vec<u8>> {
    file_text(doc, path)
        .map(|text| ders(text.as_bytes()))
        .unwrap_or_default()
}

/// `auths` keys and their `auth` values; the secret stays in memory, never in a message.
fn credentials(text: Option<String>) -> Vec<(String, String)> {
    let Some(value) = text.and_then(|t| serde_json::from_str::<Value>(&t).ok()) else {
        return Vec::new();
    };
    value
        .get("auths")
        .and_then(Value::as_object)
        .map(|auths| {
            auths
                .iter()
                .filter_map(|(key, entry)| {
                    let auth = entry.get("auth")?.as_str()?;
                    Some((
                        crate::ignition::read::normalize_auth_key(key).to_string(),
                        auth.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn certificate_times(doc: &IgnitionDoc) -> Vec<CertificateTime> {
    let mut times = Vec::new();
    for entry in file_entries(doc) {
        let Some(path) = entry.get("path").and_then(Value::as_str) else {
            continue;
        };
        if !(path.starts_with(TLS_DIR) && path.ends_with(".crt")) {
            continue;
        }
        for der in pem_ders(doc, path) {
            let Ok((_, cert)) = x509_parser::parse_x509_certificate(&der) else {
                continue;
            };
            times.push(CertificateTime {
                file: path.to_string(),
                subject: cert.subject().to_string(),
                not_before: cert.validity().not_before.to_datetime(),
                not_after: cert.validity().not_after.to_datetime(),
                authority: cert.is_ca(),
            });
        }
    }
    times
}

#[cfg(test)]
mod tests {
    use super::split_url;

    // A pointer config names api-int, or the first API VIP (bracketed when IPv6).
    #[test]
    fn pointer_urls_are_split_into_host_port_and_path() {
        for (url, host, port) in [
            (
                "https://api-int.c.example.com:22623/config/master",
                "api-int.c.example.com",
                Some(22623),
            ),
            (
                "https://192.0.2.5:22623/config/master",
                "192.0.2.5",
                Some(22623),
            ),
            (
                "https://[fd00::5]:22623/config/master",
                "fd00::5",
                Some(22623),
            ),
            ("https://[fd00::5]/config/master", "fd00::5", None),
        ] {
            assert_eq!(
                split_url(url),
                Some((host.to_string(), port, "/config/master".to_string())),
                "{url}"
            );
        }
        assert_eq!(split_url("http://x/config/master"), None);
    }
}
