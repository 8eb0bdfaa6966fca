//! What `check` asks of the network, as a trait: resolve a name, connect, shake hands over TLS,
//! send an HTTP GET. The checks speak only to this trait, so they run the same against the real
//! network ([`super::NetProbes`]) and against a fake in unit tests.

use serde::Serialize;
use std::net::{IpAddr, SocketAddr};

/// The answer to a name lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The name's addresses, in the order received.
    Addresses(Vec<IpAddr>),
    /// The DNS server said the name does not exist (NXDOMAIN), or has no address.
    NoSuchName {
        /// What answered, and how (`NXDOMAIN from 127.0.0.1:53`).
        answer: String,
    },
    /// No answer could be had: a timeout, a refusal, a broken reply.
    Failed(String),
}

/// A certificate a server presented, as a person checks it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Presented {
    /// Its subject, as `CN=...` (or the whole subject when it has no common name).
    pub subject: String,
    /// Its issuer, the same way.
    pub issuer: String,
    /// Its DNS names and IP addresses.
    pub names: Vec<String>,
}

impl std::fmt::Display for Presented {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "subject {}, issuer {}", self.subject, self.issuer)?;
        if !self.names.is_empty() {
            write!(f, ", names {}", self.names.join(" "))?;
        }
        Ok(())
    }
}

/// How a TLS handshake ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handshake {
    /// The server's certificate chains to the given roots and names the host.
    Verified(Presented),
    /// A certificate came but was refused: another CA, another name, expired.
    Rejected {
        /// The TLS library's reason.
        reason: String,
        /// The certificate, when it could be read.
        presented: Option<Presented>,
    },
    /// No certificate came: the connection closed, reset or timed out first.
    NoCertificate(String),
}

/// How a request's error begins when TLS failed before the server showed any certificate (it
/// closed, reset, timed out or does not speak TLS): not a trust problem.
pub(crate) const NO_CERTIFICATE: &str = "TLS: no certificate received: ";

/// How an HTTP request reaches its server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport<'a> {
    /// TLS, the certificate checked against these roots (DER).
    Verified(&'a [Vec<u8>]),
    /// TLS with any certificate (a registry configured insecure).
    Unverified,
    /// Plain HTTP (a registry configured insecure that does not speak TLS).
    Plain,
}

/// The port a URL that names none means: 80 for plain HTTP, 443 over TLS.
pub(crate) fn default_port(plain: bool) -> u16 {
    if plain {
        80
    } else {
        443
    }
}

/// What a request asks for, which bounds the size of its answer's body and the time its
/// exchange (connect, TLS, request, head and body together) may take: a multiple of the probes'
/// time limit, one for everything but a blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// A status or a small API answer: `/readyz`, a registry's `/v2/`, a token.
    Status,
    /// An image manifest or index.
    Manifest,
    /// An Ignition config from the machine-config server.
    Config,
    /// A blob of an image: a layer of the release payload, which may be large.
    Blob,
}

impl Asked {
    /// The most its body may hold.
    pub fn body_limit(self) -> usize {
        match self {
            Asked::Status => 1 << 20,
            Asked::Manifest => 4 << 20,
            Asked::Config => 16 << 20,
            Asked::Blob => 96 << 20,
        }
    }

    /// How many of the probes' time limits its whole exchange may take: a blob of the most it
    /// may hold comes in 24 of the default 5 s limits at 0.8 MiB/s.
    pub fn time_limits(self) -> u32 {
        match self {
            Asked::Blob => 24,
            Asked::Status | Asked::Manifest | Asked::Config => 1,
        }
    }
}

/// The most a response's head (status line and headers) may hold, for every request.
pub(crate) const MAX_HEAD: usize = 64 << 10;

/// Why no TCP connection was made, named apart as a person tells them apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unconnected {
    /// Nothing listens there: the host answered with a refusal.
    Refused(String),
    /// Something accepted the connection and closed it at once (a load balancer with no
    /// server behind it resets).
    Reset(String),
    /// No answer within the time limit: a firewall drops the packets, or no host has the
    /// address.
    TimedOut(String),
    /// Anything else: no route, an address this machine cannot use.
    Other(String),
}

impl std::fmt::Display for Unconnected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unconnected::Refused(text)
            | Unconnected::Reset(text)
            | Unconnected::TimedOut(text)
            | Unconnected::Other(text) => f.write_str(text),
        }
    }
}

/// One HTTP GET.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The host name: sent as `Host` and, over TLS, as the server name.
    pub host: &'a str,
    /// The address to connect to (one the host resolved to).
    pub address: SocketAddr,
    /// The path and query.
    pub path: &'a str,
    /// How to reach it.
    pub transport: Transport<'a>,
    /// Further headers (`Accept`, `Authorization`).
    pub headers: Vec<(String, String)>,
    /// What is asked for, which bounds the answer.
    pub asked: Asked,
}

/// An HTTP response, its body bounded.
#[derive(Debug, Clone, Default)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The headers, names as received.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body's first 200 characters, for evidence.
    pub fn body_excerpt(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        let text = text.trim();
        match text.char_indices().nth(200) {
            Some((at, _)) => format!("{}...", &text[..at]),
            None => text.to_string(),
        }
    }
}

/// One thing the probes sent over the network, for `--verbose` and for the tests that hold
/// `check` to the hosts the configs name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Contact {
    /// `dns`, `tcp`, `tls` or `http`.
    pub kind: &'static str,
    /// The address contacted (`127.0.0.1:6443`).
    pub address: String,
    /// What for: the name asked, the host and path requested.
    pub about: String,
}

/// The network, as the checks use it. Every method is bounded in time by the implementation.
pub trait Probes {
    /// Resolves a host name to its addresses.
    fn resolve(&self, name: &str) -> Lookup;
    /// Opens a TCP connection and closes it.
    fn connect(&self, address: SocketAddr) -> Result<(), Unconnected>;
    /// Shakes hands over TLS as `server_name`, checking the certificate against `roots` (DER).
    fn handshake(&self, address: SocketAddr, server_name: &str, roots: &[Vec<u8>]) -> Handshake;
    /// Sends one HTTP GET; an error says why no response came (a refused certificate included).
    fn get(&self, request: &Request) -> Result<Response, String>;
    /// Asks an NTP server for the time (one SNTP request); an error says why no time came.
    fn ntp_time(&self, address: SocketAddr) -> Result<time::OffsetDateTime, String> {
        Err(format!("{address}: this prober asks no NTP server"))
    }
    /// Everything contacted so far, in order.
    fn contacts(&self) -> Vec<Contact>;
}

/// Probes for the tests of one check: names answered from a table (an IP address as itself),
/// NTP servers from another; anything else is no test's business and panics.
#[cfg(test)]
pub(crate) struct Answers {
    /// Each name and its answer; a name not here has none (NXDOMAIN).
    pub(crate) names: Vec<(&'static str, Lookup)>,
    /// Each NTP server address (`192.0.2.5:123`) that answers, and its time.
    pub(crate) ntp: Vec<(&'static str, time::OffsetDateTime)>,
}

#[cfg(test)]
impl Probes for Answers {
    fn resolve(&self, name: &str) -> Lookup {
        if let Some((_, answer)) = self.names.iter().find(|(n, _)| *n == name) {
            return answer.clone();
        }
        match name.parse::<std::net::IpAddr>() {
            Ok(ip) => Lookup::Addresses(vec![ip]),
            Err(_) => Lookup::NoSuchName {
                answer: "NXDOMAIN from 127.0.0.1:53".into(),
            },
        }
    }
    fn connect(&self, address: SocketAddr) -> Result<(), Unconnected> {
        panic!("connected to {address}")
    }
    fn handshake(&self, address: SocketAddr, _: &str, _: &[Vec<u8>]) -> Handshake {
        panic!("shook hands with {address}")
    }
    fn get(&self, request: &Request) -> Result<Response, String> {
        panic!("asked {}", request.address)
    }
    fn ntp_time(&self, address: SocketAddr) -> Result<time::OffsetDateTime, String> {
        let asked = address.to_string();
        self.ntp
            .iter()
            .find(|(a, _)| *a == asked)
            .map(|(_, time)| *time)
            .ok_or_else(|| "no answer within 5 s".to_string())
    }
    fn contacts(&self) -> Vec<Contact> {
        Vec::new()
    }
}
