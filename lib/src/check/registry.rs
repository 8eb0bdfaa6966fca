//! A session with one mirror registry: where it is, how it is reached (TLS checked against the
//! trust bundle, or insecure as configured), and its credentials from the pull secret (basic
//! auth, or a bearer token from a token service on the same host), chosen per repository as the
//! node's container tools choose them.

use super::probe::{default_port, Asked, Lookup, Probes, Request, Response, Transport};
use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};

/// How the registry wants to be authorized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scheme {
    /// No credentials needed.
    Open,
    /// `Authorization: Basic <auth>`.
    Basic,
    /// A token from `realm` (same host), for `service`.
    Bearer { path: String, service: String },
}

/// One registry, reached and authorized.
pub(crate) struct Session<'a> {
    pub(crate) host: String,
    pub(crate) address: SocketAddr,
    pub(crate) transport: Transport<'a>,
    pub(crate) scheme: Scheme,
    /// The pull secret's entries (normalized key, `auth`); a repository's is `auth_key_for`'s.
    credentials: &'a [(String, String)],
    /// Tokens by scope and the pull-secret key they were fetched with.
    tokens: BTreeMap<(String, String), Option<String>>,
}

/// Why a session could not be opened: what failed, the evidence.
pub(crate) struct Refusal {
    pub(crate) what: String,
    pub(crate) evidence: String,
    pub(crate) kind: RefusalKind,
}

/// What a refusal is about, for the fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RefusalKind {
    /// The name does not resolve.
    Name,
    /// No connection, no HTTP.
    Unreachable,
    /// The certificate is not trusted.
    Trust,
    /// No certificate came: the server is silent, closed the connection or speaks no TLS.
    NoCertificate,
    /// The pull secret has no credentials for it.
    NoCredentials,
    /// The credentials were refused.
    Refused,
    /// A token service on another host (not contacted).
    ForeignTokenService,
}

/// `key="value"` parameters of a `WWW-Authenticate` header.
fn parameter(header: &str, key: &str) -> Option<String> {
    let at = header.find(&format!("{key}=\""))? + key.len() + 2;
    let end = header[at..].find('"')? + at;
    Some(header[at..end].to_string())
}

/// Splits `host[:port]` (or `[v6]:port`) into the name to resolve and the port it names, if it
/// names one (a missing one depends on the scheme: [`default_port`]).
pub(crate) fn name_and_port(host: &str) -> (&str, Option<u16>) {
    if let Some(rest) = host.strip_prefix('[') {
        if let Some((name, after)) = rest.split_once(']') {
            return (name, after.strip_prefix(':').and_then(|p| p.parse().ok()));
        }
    }
    match host.split_once(':') {
        Some((name, port)) if !port.contains(':') => (name, port.parse().ok()),
        _ => (host, None),
    }
}

impl<'a> Session<'a> {
    /// Resolves the host, asks `/v2/`, and works out the credentials it needs: those each of
    /// `repositories` (paths on the host, `""` for the host itself) is pulled with must be
    /// accepted. `pinned`: the address the node's `/etc/hosts` gives the host, used instead of
    /// a lookup.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn open(
        probes: &dyn Probes,
        host: &str,
        repositories: &[String],
        pinned: Option<IpAddr>,
        insecure: bool,
        roots: &'a [Vec<u8>],
        credentials: &'a [(String, String)],
        dates: &mut Vec<(String, String)>,
    ) -> Result<Session<'a>, Refusal> {
        let refusal = |kind, what: &str, evidence: String| Refusal {
            what: what.to_string(),
            evidence,
            kind,
        };
        let (name, named_port) = name_and_port(host);
        let lookup = match pinned {
            Some(ip) => Lookup::Addresses(vec![ip]),
            None => probes.resolve(name),
        };
        let ip = match lookup {
            Lookup::Addresses(addresses) if !addresses.is_empty() => addresses[0],
            Lookup::Addresses(_) => {
                return Err(refusal(
                    RefusalKind::Name,
                    "the mirror's name has no address",
                    String::new(),
                ))
            }
            Lookup::NoSuchName { answer } => {
                return Err(refusal(
                    RefusalKind::Name,
                    "the mirror's name does not resolve",
                    answer,
                ))
            }
            Lookup::Failed(error) => {
                return Err(refusal(
                    RefusalKind::Name,
                    "the mirror's name could not be looked up",
                    error,
                ))
            }
        };
        let mut session = Session {
            host: host.to_string(),
            address: SocketAddr::new(ip, named_port.unwrap_or(default_port(false))),
            transport: if insecure {
                Transport::Unverified
            } else {
                Transport::Verified(roots)
            },
            scheme: Scheme::Open,
            credentials,
            tokens: BTreeMap::new(),
        };
        let mut first = session.send(probes, "/v2/", None, Asked::Status);
        if insecure && first.is_err() {
            // An insecure registry may speak plain HTTP, as `http://host`: without a port of
            // its own, on HTTP's.
            session.transport = Transport::Plain;
            session
                .address
                .set_port(named_port.unwrap_or(default_port(true)));
            first = session.send(probes, "/v2/", None, Asked::Status);
        }
        let first = first.map_err(|error| {
            let kind = if error.starts_with(super::probe::NO_CERTIFICATE) {
                RefusalKind::NoCertificate
            } else if error.starts_with("TLS:") && !insecure {
                RefusalKind::Trust
            } else {
                RefusalKind::Unreachable
            };
            refusal(kind, "the mirror does not answer /v2/", error)
        })?;
        if let Some(date) = first.header("date") {
            dates.push((host.to_string(), date.to_string()));
        }
        if first.status != 401 {
            return Ok(session);
        }
        let challenge = first
            .header("www-authenticate")
            .unwrap_or_default()
            .to_string();
        if let Some(bare) = repositories.iter().find(|r| session.auth(r).is_none()) {
            return Err(refusal(
                RefusalKind::NoCredentials,
                &format!(
                    "the mirror wants credentials and the pull secret has none for {}",
                    session.location(bare)
                ),
                format!("HTTP 401, WWW-Authenticate: {challenge}"),
            ));
        }
        if challenge.to_ascii_lowercase().starts_with("bearer") {
            let realm = parameter(&challenge, "realm").unwrap_or_default();
            let realm_host = realm
                .split("://")
                .nth(1)
                .and_then(|rest| rest.split('/').next())
                .unwrap_or_default();
            if realm_host != host {
                return Err(refusal(
                    RefusalKind::ForeignTokenService,
                    "the mirror's token service is on another host, which the configs do not name (not contacted)",
                    format!("WWW-Authenticate: {challenge}"),
                ));
            }
            let path = realm
                .split("://")
                .nth(1)
                .and_then(|rest| rest.find('/').map(|at| rest[at..].to_string()))
                .unwrap_or_else(|| "/".into());
            session.scheme = Scheme::Bearer {
                path,
                service: parameter(&challenge, "service").unwrap_or_default(),
            };
        } else {
            session.scheme = Scheme::Basic;
        }
        // Each pull-secret entry the repositories are pulled with, asked once.
        let mut tried: Vec<&str> = Vec::new();
        for repository in repositories {
            let Some((key, _)) = session.auth(repository) else {
                continue;
            };
            if tried.contains(&key.as_str()) {
                continue;
            }
            tried.push(key);
            match session.get(probes, "/v2/", repository, Asked::Status) {
                Ok(response) if response.status == 200 => {}
                Ok(response) => {
                    return Err(refusal(
                        RefusalKind::Refused,
                        &format!(
                            "the mirror refuses the pull secret's credentials (its entry {key}, for {})",
                            session.location(repository)
                        ),
                        format!("HTTP {}: {}", response.status, response.body_excerpt()),
                    ))
                }
                Err(error) => {
                    return Err(refusal(
                        RefusalKind::Unreachable,
                        "the mirror stopped answering",
                        error,
                    ))
                }
            }
        }
        Ok(session)
    }

    /// `host/repository`, or the host for `""`.
    fn location(&self, repository: &str) -> String {
        match repository {
            "" => self.host.clone(),
            path => format!("{}/{path}", self.host),
        }
    }

    /// The pull-secret entry a pull from `repository` on this host sends.
    fn auth(&self, repository: &str) -> Option<&'a (String, String)> {
        let keys: Vec<&str> = self.credentials.iter().map(|(k, _)| k.as_str()).collect();
        let key = *crate::ignition::read::auth_key_for(&keys, &self.location(repository))?;
        self.credentials.iter().find(|(k, _)| k == key)
    }

    fn send(
        &self,
        probes: &dyn Probes,
        path: &str,
        authorization: Option<String>,
        asked: Asked,
    ) -> Result<Response, String> {
        let mut headers = vec![(
            "Accept".to_string(),
            [
                "application/vnd.oci.image.index.v1+json",
                "application/vnd.docker.distribution.manifest.list.v2+json",
                "application/vnd.oci.image.manifest.v1+json",
                "application/vnd.docker.distribution.manifest.v2+json",
                "application/json",
            ]
            .join(", "),
        )];
        headers.extend(authorization.map(|a| ("Authorization".to_string(), a)));
        probes.get(&Request {
            host: &self.host,
            address: self.address,
            path,
            transport: self.transport,
            headers,
            asked,
        })
    }

    /// The `Authorization` header for a pull from `repository`, fetching a token once per
    /// scope and credentials.
    fn authorization(&mut self, probes: &dyn Probes, repository: &str) -> Option<String> {
        let (key, auth) = self.auth(repository)?;
        let scope = match repository {
            "" => "registry:catalog:*".to_string(),
            path => format!("repository:{path}:pull"),
        };
        match &self.scheme {
            Scheme::Open => None,
            Scheme::Basic => Some(format!("Basic {auth}")),
            Scheme::Bearer { path, service } => {
                let cached = (scope.clone(), key.clone());
                if let Some(token) = self.tokens.get(&cached) {
                    return token.as_ref().map(|t| format!("Bearer {t}"));
                }
                let separator = if path.contains('?') { '&' } else { '?' };
                let token_path = format!("{path}{separator}service={service}&scope={scope}");
                let token = self
                    .send(
                        probes,
                        &token_path,
                        Some(format!("Basic {auth}")),
                        Asked::Status,
                    )
                    .ok()
                    .filter(|r| r.status == 200)
                    .and_then(|r| serde_json::from_slice::<serde_json::Value>(&r.body).ok())
                    .and_then(|v| {
                        v.get("token")
                            .or_else(|| v.get("access_token"))
                            .and_then(|t| t.as_str())
                            .map(str::to_string)
                    });
                self.tokens.insert(cached, token.clone());
                token.map(|t| format!("Bearer {t}"))
            }
        }
    }

    /// GET `path` with the credentials a pull from `repository` sends.
    pub(crate) fn get(
        &mut self,
        probes: &dyn Probes,
        path: &str,
        repository: &str,
        asked: Asked,
    ) -> Result<Response, String> {
        let authorization = self.authorization(probes, repository);
        self.send(probes, path, authorization, asked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_with_and_without_ports_are_split() {
        assert_eq!(name_and_port("mirror.lab:8443"), ("mirror.lab", Some(8443)));
        assert_eq!(name_and_port("mirror.lab"), ("mirror.lab", None));
        assert_eq!(name_and_port("[fd00::5]:5000"), ("fd00::5", Some(5000)));
        assert_eq!(name_and_port("[fd00::5]"), ("fd00::5", None));
        assert_eq!(name_and_port("fd00::5"), ("fd00::5", None));
        assert_eq!(
            parameter(r#"Bearer realm="https://m/token",service="m""#, "service").as_deref(),
            Some("m")
        );
    }

    /// A registry that speaks only plain HTTP; every GET's address and transport is kept.
    struct PlainOnly(std::cell::RefCell<Vec<(SocketAddr, bool)>>);

    impl Probes for PlainOnly {
        fn resolve(&self, _: &str) -> Lookup {
            Lookup::Addresses(vec![IpAddr::from([192, 0, 2, 5])])
        }
        fn connect(&self, _: SocketAddr) -> Result<(), super::super::probe::Unconnected> {
            Ok(())
        }
        fn handshake(
            &self,
            _: SocketAddr,
            _: &str,
            _: &[Vec<u8>],
        ) -> super::super::probe::Handshake {
            super::super::probe::Handshake::NoCertificate("unused".into())
        }
        fn get(&self, request: &Request) -> Result<Response, String> {
            let plain = request.transport == Transport::Plain;
            self.0.borrow_mut().push((request.address, plain));
            if plain {
                Ok(Response {
                    status: 200,
                    ..Response::default()
                })
            } else {
                Err("TLS: no certificate received: not TLS".into())
            }
        }
        fn contacts(&self) -> Vec<super::super::probe::Contact> {
            Vec::new()
        }
    }

    // As a node's client does: `https://host` then `http://host`, the scheme's port unless the
    // host names one.
    #[test]
    fn an_insecure_registry_is_tried_over_plain_http_on_its_port() {
        for (host, ports) in [
            ("mirror.lab", [443, 80]),
            ("mirror.lab:5000", [5000, 5000]),
            ("[fd00::5]", [443, 80]),
        ] {
            let probes = PlainOnly(std::cell::RefCell::new(Vec::new()));
            let session = Session::open(&probes, host, &[], None, true, &[], &[], &mut Vec::new())
                .unwrap_or_else(|refusal| panic!("{host}: {}", refusal.what));
            assert_eq!(session.transport, Transport::Plain);
            let asked: Vec<(u16, bool)> = probes
                .0
                .borrow()
                .iter()
                .map(|(address, plain)| (address.port(), *plain))
                .collect();
            assert_eq!(asked, [(ports[0], false), (ports[1], true)], "{host}");
        }
    }
}
