//! A registry's redirect, followed as a node's pull follows it: registries that keep their
//! blobs in object storage or behind a CDN answer a blob request with `307` and a `Location`
//! elsewhere, which CRI-O and podman fetch, as Go's HTTP client does, without the registry's
//! credentials unless the host is the registry's domain or a subdomain of it. So the nodes must
//! reach that host too, and `check` asks it what the node would, sending no credentials to any
//! host but the registry's own.
//!
//! Such a `Location` often carries a signed query (`X-Amz-Signature=...`): it is sent, never
//! shown ([`Location::shown`]).

use super::probe::{default_port, Asked, Lookup, Probes, Request, Response, Transport};
use super::registry::name_and_port;
use std::net::IpAddr;

/// How many redirects one request follows: a registry redirects once; Go's client gives up
/// after 10.
pub(crate) const MAX_REDIRECTS: usize = 5;

/// Whether a status is a redirect with a `Location` to follow.
pub(crate) fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Where a redirect sends a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Location {
    /// `host[:port]`, as the URL writes it.
    pub(crate) host: String,
    /// The path and query to ask for.
    pub(crate) path: String,
    /// `http://`: plain HTTP.
    pub(crate) plain: bool,
}

impl Location {
    /// Reads a `Location` header: an absolute `http(s)://` URL, or a path on the host that
    /// answered (`from`).
    pub(crate) fn parse(value: &str, from: &str, from_plain: bool) -> Result<Location, String> {
        let value = value.trim();
        if value.starts_with('/') && !value.starts_with("//") {
            return Ok(Location {
                host: from.to_string(),
                path: value.to_string(),
                plain: from_plain,
            });
        }
        let (plain, rest) = if let Some(rest) = crate::url_syntax::strip_scheme(value, "https") {
            (false, rest)
        } else if let Some(rest) = crate::url_syntax::strip_scheme(value, "http") {
            (true, rest)
        } else {
            // Not shown: whatever it is, it may carry credentials.
            return Err("a redirect to a URL that is not http(s)".to_string());
        };
        let split = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(split);
        // A host name, an address or `[v6]`, and a port: a user in the URL
        // (`user:password@host`) is not a registry's redirect.
        let host_like = |c: char| c.is_ascii_alphanumeric() || ".-_:[]".contains(c);
        if authority.is_empty() || !authority.chars().all(host_like) {
            return Err("a redirect to a URL without a usable host".to_string());
        }
        let path = match path {
            "" => "/".to_string(),
            p if p.starts_with('?') => format!("/{p}"),
            p => p.to_string(),
        };
        Ok(Location {
            host: authority.to_ascii_lowercase(),
            path,
            plain,
        })
    }

    /// The URL as a person may see it: without its query, which may be a signature.
    pub(crate) fn shown(&self) -> String {
        let scheme = if self.plain { "http" } else { "https" };
        shown_url(&format!("{scheme}://{}{}", self.host, self.path))
    }
}

/// A URL without its query and fragment.
fn shown_url(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let mut shown = url[..end].to_string();
    if end < url.len() {
        shown.push_str("?...");
    }
    shown
}

/// How a node reaches a host no mirror entry names: its `/etc/hosts` and its trust.
#[derive(Clone, Copy)]
pub(crate) struct Reach<'a> {
    /// The node's trust anchors (DER).
    pub(crate) roots: &'a [Vec<u8>],
    /// The names the node's `/etc/hosts` pins.
    pub(crate) node_hosts: &'a [(String, IpAddr)],
}

/// GETs `location` on a host other than the registry's, as the node would: the name resolved
/// (or pinned by the node's `/etc/hosts`), TLS verified against the node's trust, no
/// credentials sent.
pub(crate) fn get_elsewhere(
    probes: &dyn Probes,
    location: &Location,
    reach: Reach,
    asked: Asked,
) -> Result<Response, String> {
    let Reach { roots, node_hosts } = reach;
    let (name, port) = name_and_port(&location.host);
    let port = port.unwrap_or(default_port(location.plain));
    let pinned = node_hosts
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, ip)| *ip);
    let ip = match pinned.map_or_else(|| probes.resolve(name), |ip| Lookup::Addresses(vec![ip])) {
        Lookup::Addresses(addresses) if !addresses.is_empty() => addresses[0],
        Lookup::Addresses(_) => return Err(format!("{name} has no address")),
        Lookup::NoSuchName { answer } => return Err(format!("{name} does not resolve ({answer})")),
        Lookup::Failed(error) => return Err(format!("{name} could not be looked up: {error}")),
    };
    probes.get(&Request {
        host: &location.host,
        address: std::net::SocketAddr::new(ip, port),
        path: &location.path,
        transport: if location.plain {
            Transport::Plain
        } else {
            Transport::Verified(roots)
        },
        headers: Vec::new(),
        asked,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_read_as_a_client_reads_them() {
        let at = |value: &str| Location::parse(value, "mirror.lab:5000", false);
        assert_eq!(
            at("https://Blobs.S3.lab/bucket/data?X-Amz-Signature=secret").unwrap(),
            Location {
                host: "blobs.s3.lab".into(),
                path: "/bucket/data?X-Amz-Signature=secret".into(),
                plain: false
            }
        );
        assert_eq!(
            at("/v2/ocp/blobs/uploads/x").unwrap(),
            Location {
                host: "mirror.lab:5000".into(),
                path: "/v2/ocp/blobs/uploads/x".into(),
                plain: false
            }
        );
        let plain = at("HTTP://cdn.lab:8080?k=v").unwrap();
        assert_eq!(
            (plain.host.as_str(), plain.path.as_str(), plain.plain),
            ("cdn.lab:8080", "/?k=v", true)
        );
        // The signature is never shown.
        let signed = at("https://blobs.lab/data?X-Amz-Signature=secret").unwrap();
        assert_eq!(signed.shown(), "https://blobs.lab/data?...");
        for refused in [
            "ftp://x/y",
            "//other/path",
            "https://user:pw@x/y",
            "https:///y",
        ] {
            let error = at(refused).unwrap_err();
            assert!(!error.contains("pw"), "{error}");
        }
    }

    /// Asks nothing of the network but records where each GET went.
    struct Recording(std::cell::RefCell<Vec<std::net::SocketAddr>>);

    impl Probes for Recording {
        fn resolve(&self, _: &str) -> Lookup {
            Lookup::Addresses(vec![IpAddr::from([192, 0, 2, 1])])
        }
        fn connect(&self, _: std::net::SocketAddr) -> Result<(), super::super::probe::Unconnected> {
            Ok(())
        }
        fn handshake(
            &self,
            _: std::net::SocketAddr,
            _: &str,
            _: &[Vec<u8>],
        ) -> super::super::probe::Handshake {
            super::super::probe::Handshake::NoCertificate("unused".into())
        }
        fn get(&self, request: &Request) -> Result<Response, String> {
            self.0.borrow_mut().push(request.address);
            Ok(Response::default())
        }
        fn contacts(&self) -> Vec<super::super::probe::Contact> {
            Vec::new()
        }
    }

    #[test]
    fn the_port_is_the_urls_or_its_schemes() {
        let probes = Recording(std::cell::RefCell::new(Vec::new()));
        let reach = Reach {
            roots: &[],
            node_hosts: &[],
        };
        let urls = [
            ("http://cdn.lab/x", 80),
            ("http://[2001:db8::1]/x", 80),
            ("https://cdn.lab/x", 443),
            ("http://cdn.lab:8080/x", 8080),
            ("https://[2001:db8::1]:9443/x", 9443),
        ];
        for (url, _) in urls {
            let location = Location::parse(url, "mirror.lab", false).unwrap();
            get_elsewhere(&probes, &location, reach, Asked::Blob).unwrap();
        }
        let ports: Vec<u16> = probes.0.borrow().iter().map(|a| a.port()).collect();
        assert_eq!(ports, urls.map(|(_, port)| port));
    }
}
