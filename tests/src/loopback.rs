//! Servers on this machine's loopback for the `check` tests, each killed when dropped:
//! Debian's dnsmasq on an unprivileged port answering only what a test says, and
//! `openssl s_server` listeners with a given certificate.

use std::error::Error;
use std::fs;
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What the loopback helpers return.
pub type TestResult<T = ()> = Result<T, Box<dyn Error>>;

/// A server started by a test, killed when dropped.
pub struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A UDP port free on 127.0.0.1 a moment ago.
pub fn free_udp_port() -> TestResult<u16> {
    Ok(UdpSocket::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A TCP port free on 127.0.0.1 and 127.0.0.2 alike.
pub fn free_tcp_port() -> TestResult<u16> {
    for _ in 0..20 {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        if TcpListener::bind(("127.0.0.2", port)).is_ok() {
            return Ok(port);
        }
    }
    Err("no port free on both 127.0.0.1 and 127.0.0.2".into())
}

/// dnsmasq answering only from `rules` (`--address=/name/ip`; an empty ip is NXDOMAIN), on
/// 127.0.0.1:`port`; it returns once dnsmasq says it started.
pub fn start_dns(dir: &Path, port: u16, rules: &[String]) -> TestResult<Server> {
    let log = dir.join(format!("dnsmasq-{port}.log"));
    let child = Command::new("/usr/sbin/dnsmasq")
        .args([
            "--no-daemon",
            "--no-resolv",
            "--no-hosts",
            "--bind-interfaces",
            "--listen-address=127.0.0.1",
            "--pid-file=",
            "--user=",
        ])
        .arg(format!("--port={port}"))
        .args(rules.iter().map(|r| format!("--address={r}")))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(fs::File::create(&log)?)
        .spawn()?;
    let mut server = Server(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !fs::read_to_string(&log)?.contains("started") {
        if let Some(status) = server.0.try_wait()? {
            return Err(format!("dnsmasq exited ({status}): {}", fs::read_to_string(&log)?).into());
        }
        if Instant::now() > deadline {
            return Err("dnsmasq did not start".into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(server)
}

impl Server {
    /// A server the test started itself; killed when dropped.
    pub fn from_child(child: Child) -> Server {
        Server(child)
    }
}

/// Waits (up to 10 s) until something accepts TCP connections on `address`.
pub fn wait_for_listener(address: &str) -> TestResult<()> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(address).is_err() {
        if Instant::now() > deadline {
            return Err(format!("nothing listens on {address}").into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

/// `openssl s_server` on `address` with a certificate and key; with `www`, it serves that
/// directory's files (`-WWW`), else a status page. Returns once it accepts connections.
pub fn start_tls(address: &str, cert: &Path, key: &Path, www: Option<&Path>) -> TestResult<Server> {
    let mut cmd = Command::new("/usr/bin/openssl");
    cmd.args(["s_server", "-quiet", "-accept", address])
        .arg("-cert")
        .arg(cert)
        .arg("-key")
        .arg(key)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    match www {
        Some(dir) => cmd.arg("-WWW").current_dir(dir),
        None => cmd.arg("-www"),
    };
    let mut server = Server(cmd.spawn()?);
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(address).is_err() {
        if let Some(status) = server.0.try_wait()? {
            return Err(format!("openssl s_server on {address} exited ({status})").into());
        }
        if Instant::now() > deadline {
            return Err(format!("openssl s_server did not listen on {address}").into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(server)
}
