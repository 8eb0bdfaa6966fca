//! The real network behind [`Probes`]: the one place in the library that opens connections.
//! Every exchange has one deadline (connect, TLS, request and response together: the time limit,
//! or for a blob the multiple [`Asked::time_limits`](super::probe::Asked::time_limits) says); nothing is retried but a silent DNS
//! question and a connection test that was refused or reset (each once, [`RETRY_AFTER`] later);
//! and every contact is recorded.

use super::deadline::{Bounded, Deadline};
use super::dns::{self, Answer, RecordType};
use super::probe::{Contact, Handshake, Lookup, Probes, Request, Response, Transport, Unconnected};
use super::{http, tls};
use std::io::ErrorKind;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

/// How long a refused or reset connection test waits before its one retry.
pub(crate) const RETRY_AFTER: Duration = Duration::from_millis(250);

/// The network, with the limits each probe keeps.
#[derive(Debug)]
pub struct NetProbes {
    dns_server: Option<SocketAddr>,
    timeout: Duration,
    contacts: Mutex<Vec<Contact>>,
    next_id: AtomicU16,
}

impl NetProbes {
    /// Probes that ask `dns_server` for names (the system resolver when `None`) and give each
    /// DNS question `timeout`, and each exchange (connect, TLS, request and response together)
    /// `timeout`, or its [`Asked::time_limits`](super::probe::Asked::time_limits) of them.
    pub fn new(dns_server: Option<SocketAddr>, timeout: Duration) -> NetProbes {
        NetProbes {
            dns_server,
            timeout,
            contacts: Mutex::new(Vec::new()),
            next_id: AtomicU16::new(0x6263),
        }
    }

    fn record(&self, kind: &'static str, address: String, about: String) {
        if let Ok(mut contacts) = self.contacts.lock() {
            contacts.push(Contact {
                kind,
                address,
                about,
            });
        }
    }

    /// Connects within `deadline`; why not, named apart.
    fn open(&self, address: SocketAddr, deadline: Deadline) -> Result<Bounded, Unconnected> {
        Bounded::connect(address, deadline).map_err(|e| {
            let text = super::said::describe_io_error(&e, Some(deadline.allowed()));
            match e.kind() {
                ErrorKind::ConnectionRefused => Unconnected::Refused(text),
                ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted => {
                    Unconnected::Reset(text)
                }
                ErrorKind::TimedOut | ErrorKind::WouldBlock => Unconnected::TimedOut(text),
                _ => Unconnected::Other(text),
            }
        })
    }

    fn ask_server(&self, server: SocketAddr, name: &str) -> Lookup {
        let mut addresses: Vec<IpAddr> = Vec::new();
        let mut last_error = None;
        let mut nxdomain = false;
        for kind in [RecordType::A, RecordType::Aaaa] {
            self.record("dns", server.to_string(), format!("{name} {}", kind.name()));
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            match dns::ask(server, id, name, kind, self.timeout) {
                Ok(Answer::Addresses(found)) => addresses.extend(found),
                Ok(Answer::NoSuchName) => nxdomain = true,
                Err(e) => last_error = Some(e),
            }
        }
        if !addresses.is_empty() {
            Lookup::Addresses(addresses)
        } else if nxdomain {
            Lookup::NoSuchName {
                answer: format!("NXDOMAIN from {server}"),
            }
        } else if let Some(error) = last_error {
            Lookup::Failed(error)
        } else {
            Lookup::NoSuchName {
                answer: format!("no A or AAAA record from {server}"),
            }
        }
    }

    fn ask_system(&self, name: &str) -> Lookup {
        self.record("dns", "system resolver".into(), name.to_string());
        let (send, receive) = mpsc::channel();
        let owned = name.to_string();
        // The system resolver has no time limit of its own: the lookup thread is left to finish.
        std::thread::spawn(move || {
            let answer = (owned.as_str(), 0).to_socket_addrs().map(|found| {
                let mut addresses: Vec<IpAddr> = found.map(|a| a.ip()).collect();
                addresses.dedup();
                addresses
            });
            let _ = send.send(answer);
        });
        match receive.recv_timeout(self.timeout) {
            Ok(Ok(addresses)) if !addresses.is_empty() => Lookup::Addresses(addresses),
            Ok(Ok(_)) => Lookup::NoSuchName {
                answer: "no address from the system resolver".into(),
            },
            Ok(Err(e)) => Lookup::NoSuchName {
                answer: format!("the system resolver: {e}"),
            },
            Err(_) => Lookup::Failed(format!(
                "no answer from the system resolver within {} s",
                self.timeout.as_secs()
            )),
        }
    }
}

impl Probes for NetProbes {
    fn resolve(&self, name: &str) -> Lookup {
        if let Ok(ip) = name.parse::<IpAddr>() {
            return Lookup::Addresses(vec![ip]);
        }
        match self.dns_server {
            Some(server) => self.ask_server(server, name),
            None => self.ask_system(name),
        }
    }

    fn connect(&self, address: SocketAddr) -> Result<(), Unconnected> {
        self.record("tcp", address.to_string(), "connect".into());
        match self.open(address, Deadline::after(self.timeout)) {
            Ok(_) => Ok(()),
            // A listener restarting refuses for a moment, and one that resets may have done so
            // before the connection was seen whole: the second answer is the verdict.
            Err(Unconnected::Refused(_) | Unconnected::Reset(_)) => {
                std::thread::sleep(RETRY_AFTER);
                self.open(address, Deadline::after(self.timeout)).map(drop)
            }
            Err(other) => Err(other),
        }
    }

    fn handshake(&self, address: SocketAddr, server_name: &str, roots: &[Vec<u8>]) -> Handshake {
        self.record("tls", address.to_string(), server_name.to_string());
        let deadline = Deadline::after(self.timeout);
        match self.open(address, deadline) {
            Ok(socket) => tls::handshake(socket, server_name, Some(roots), deadline.allowed()).0,
            Err(e) => Handshake::NoCertificate(e.to_string()),
        }
    }

    fn get(&self, request: &Request) -> Result<Response, String> {
        // A query is not recorded: a redirect's may be a signature.
        let path = match request.path.split_once('?') {
            Some((path, _)) => format!("{path}?..."),
            None => request.path.to_string(),
        };
        self.record(
            "http",
            request.address.to_string(),
            format!("{}{path}", request.host),
        );
        let deadline = Deadline::after(self.timeout.saturating_mul(request.asked.time_limits()));
        let mut socket = self
            .open(request.address, deadline)
            .map_err(|e| e.to_string())?;
        let host = host_header(request);
        let response = match request.transport {
            Transport::Plain => http::get(
                &mut socket,
                &host,
                request.path,
                &request.headers,
                request.asked,
                deadline,
            ),
            Transport::Verified(roots) => self.get_tls(socket, request, &host, Some(roots)),
            Transport::Unverified => self.get_tls(socket, request, &host, None),
        };
        response.map(|r| super::echoed::without_echoed_credentials(r, &request.headers))
    }

    fn ntp_time(&self, address: SocketAddr) -> Result<time::OffsetDateTime, String> {
        self.record("ntp", address.to_string(), "the time".into());
        let bind: SocketAddr = if address.is_ipv4() {
            (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
        } else {
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
        };
        let config = rsntp::Config::default()
            .bind_address(bind)
            .timeout(self.timeout);
        let answer = rsntp::SntpClient::with_config(config)
            .synchronize(address)
            .map_err(|e| match e {
                rsntp::SynchronizationError::IOError(io)
                    if matches!(
                        io.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    format!("no answer within {} s", self.timeout.as_secs())
                }
                rsntp::SynchronizationError::IOError(io) => io.to_string(),
                other => other.to_string(),
            })?;
        answer
            .datetime()
            .into_offset_date_time()
            .map_err(|e| format!("its time cannot be read: {e}"))
    }

    fn contacts(&self) -> Vec<Contact> {
        self.contacts
            .lock()
            .map(|contacts| contacts.clone())
            .unwrap_or_default()
    }
}

impl NetProbes {
    fn get_tls(
        &self,
        socket: Bounded,
        request: &Request,
        host: &str,
        roots: Option<&[Vec<u8>]>,
    ) -> Result<Response, String> {
        let (server_name, _) = super::registry::name_and_port(request.host);
        let deadline = socket.deadline();
        match tls::handshake(socket, server_name, roots, deadline.allowed()) {
            (_, Some(mut stream)) => http::get(
                &mut stream,
                host,
                request.path,
                &request.headers,
                request.asked,
                deadline,
            ),
            (Handshake::Rejected { reason, presented }, None) => Err(match presented {
                Some(p) => format!("TLS: {reason} (the server presented {p})"),
                None => format!("TLS: {reason}"),
            }),
            (Handshake::NoCertificate(reason), None) => {
                Err(format!("{}{reason}", super::probe::NO_CERTIFICATE))
            }
            (Handshake::Verified(_), None) => Err("TLS: no stream".into()),
        }
    }
}

/// `Host:` carries the port when it is not the scheme's default.
fn host_header(request: &Request) -> String {
    let default = super::probe::default_port(request.transport == Transport::Plain);
    // An IPv6 address is bracketed; any other host with a `:` already names its port.
    let (host, names_port) = match request.host.parse::<std::net::Ipv6Addr>() {
        Ok(_) => (format!("[{}]", request.host), false),
        Err(_) => (request.host.to_string(), request.host.contains(':')),
    };
    if names_port || request.address.port() == default {
        host
    } else {
        format!("{host}:{}", request.address.port())
    }
}

#[cfg(test)]
mod tests {
    use super::{host_header, Request, Transport};
    use crate::check::probe::Asked;

    #[test]
    fn the_host_header_names_a_port_only_off_the_schemes_and_brackets_ipv6() {
        let header = |host: &str, address: &str, transport| {
            host_header(&Request {
                host,
                address: address.parse().unwrap(),
                path: "/",
                transport,
                headers: Vec::new(),
                asked: Asked::Status,
            })
        };
        let tls = Transport::Unverified;
        assert_eq!(header("mirror.lab", "192.0.2.1:443", tls), "mirror.lab");
        assert_eq!(
            header("mirror.lab", "192.0.2.1:80", Transport::Plain),
            "mirror.lab"
        );
        assert_eq!(
            header("mirror.lab:5000", "192.0.2.1:5000", tls),
            "mirror.lab:5000"
        );
        assert_eq!(
            header("192.0.2.5", "192.0.2.5:22623", tls),
            "192.0.2.5:22623"
        );
        assert_eq!(header("fd00::5", "[fd00::5]:22623", tls), "[fd00::5]:22623");
        assert_eq!(header("fd00::5", "[fd00::5]:443", tls), "[fd00::5]");
        assert_eq!(
            header("[fd00::5]:5000", "[fd00::5]:5000", tls),
            "[fd00::5]:5000"
        );
    }
}
