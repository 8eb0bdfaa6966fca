//! `bootgen check` against real servers on this machine's loopback, each started here and killed
//! at the end: Debian's dnsmasq on an unprivileged port with the cluster's names (right answers,
//! wrong answers, NXDOMAIN), `openssl s_server` listeners on 6443- and 22623-like ports serving
//! certificates from the generated PKI and from another install's, and a machine-config server
//! path. Each fault is named with its fix; with every fault removed `check` passes; and no
//! contact goes anywhere but the DNS server and the addresses the cluster's names resolved to.

use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bootgen_conformance::loopback::{free_tcp_port, free_udp_port, start_dns, start_tls, Server};
use serde_json::Value;

type TestResult<T = ()> = Result<T, Box<dyn Error>>;

const DOMAIN: &str = "example.example.com";
const TOOLS: &[&str] = &["/usr/sbin/dnsmasq", "/usr/bin/openssl"];

/// False (after saying so) when a tool is missing outside CI; under CI a missing tool fails.
fn tools_present() -> bool {
    bootgen_conformance::tools_present(TOOLS)
}

/// `bootgen ignition` of the embedded example cluster (`example.example.com`) into `out`.
fn generate(out: &Path, config: Option<&Path>) -> TestResult {
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.args(["ignition", "--key-algorithm", "ecdsa-p256", "--output"])
        .arg(out);
    if let Some(config) = config {
        cmd.arg("--install-config").arg(config);
    }
    bootgen_conformance::run(&mut cmd)?;
    Ok(())
}

/// `bootgen check --json` of `out`; the exit code and the report.
fn check(
    out: &Path,
    dns_port: u16,
    api_port: u16,
    mcs_port: u16,
    extra: &[&str],
) -> TestResult<(i32, Value, Output)> {
    let output = bootgen_conformance::bootgen!()
        .arg("check")
        .arg(out)
        .arg("--dns-server")
        .arg(format!("127.0.0.1:{dns_port}"))
        .arg("--api-port")
        .arg(api_port.to_string())
        .arg("--machine-config-port")
        .arg(mcs_port.to_string())
        .args(["--timeout", "2", "--json"])
        .args(extra)
        .output()?;
    let report: Value = serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })?;
    Ok((output.status.code().unwrap_or(-1), report, output))
}

fn findings(report: &Value) -> Vec<&Value> {
    report["findings"]
        .as_array()
        .map(|f| f.iter().collect())
        .unwrap_or_default()
}

/// The finding about `target` (exactly, else the first it begins) in `area`, or a failure
/// listing them all.
fn finding<'a>(report: &'a Value, area: &str, target: &str) -> TestResult<&'a Value> {
    let in_area = || findings(report).into_iter().filter(|f| f["area"] == area);
    in_area()
        .find(|f| f["target"] == target)
        .or_else(|| in_area().find(|f| f["target"].as_str().is_some_and(|t| t.starts_with(target))))
        .ok_or_else(|| format!("no {area} finding about {target}: {report:#}").into())
}

/// Asserts a finding failed, and that its evidence and fix say what is expected.
fn assert_fails(report: &Value, area: &str, target: &str, evidence: &str, fix: &str) -> TestResult {
    let found = finding(report, area, target)?;
    assert_eq!(found["status"], "fail", "{found:#}");
    let said = |key: &str| found[key].as_str().unwrap_or_default().to_string();
    assert!(
        said("evidence").contains(evidence),
        "evidence of {found:#} lacks {evidence:?}"
    );
    assert!(said("fix").contains(fix), "fix of {found:#} lacks {fix:?}");
    Ok(())
}

fn tls(out: &Path, name: &str) -> (PathBuf, PathBuf) {
    let dir = out.join("tls");
    (
        dir.join(format!("{name}.crt")),
        dir.join(format!("{name}.key")),
    )
}

/// The cluster's names as they should be: api on 127.0.0.1, api-int on 127.0.0.2, apps on
/// 127.0.0.3; every other name under the domain does not exist.
fn right_names() -> Vec<String> {
    vec![
        format!("/{DOMAIN}/"),
        format!("/api.{DOMAIN}/127.0.0.1"),
        format!("/api-int.{DOMAIN}/127.0.0.2"),
        format!("/apps.{DOMAIN}/127.0.0.3"),
    ]
}

/// The three listeners of a running bootstrap, with `api_cert` on api's port.
fn start_load_balancer(
    work: &Path,
    out: &Path,
    api_cert: (PathBuf, PathBuf),
    api_port: u16,
    mcs_port: u16,
) -> TestResult<Vec<Server>> {
    let www = work.join("www");
    fs::create_dir_all(www.join("config"))?;
    fs::write(
        www.join("config/master"),
        br#"{"ignition":{"version":"3.2.0"}}"#,
    )?;
    let (internal_cert, internal_key) = tls(out, "kube-apiserver-internal-lb-server");
    let (mcs_cert, mcs_key) = tls(out, "machine-config-server");
    Ok(vec![
        start_tls(
            &format!("127.0.0.1:{api_port}"),
            &api_cert.0,
            &api_cert.1,
            None,
        )?,
        start_tls(
            &format!("127.0.0.2:{api_port}"),
            &internal_cert,
            &internal_key,
            None,
        )?,
        start_tls(
            &format!("127.0.0.2:{mcs_port}"),
            &mcs_cert,
            &mcs_key,
            Some(&www),
        )?,
    ])
}

/// The embedded example cluster generated into a temporary directory, with dnsmasq answering
/// its names rightly: the start of most tests here. `None` (after saying so) when a tool is
/// missing outside CI.
struct ExampleCluster {
    dir: tempfile::TempDir,
    out: PathBuf,
    dns_port: u16,
    _dns: Server,
}

impl ExampleCluster {
    fn start() -> TestResult<Option<Self>> {
        if !tools_present() {
            return Ok(None);
        }
        let dir = tempfile::tempdir()?;
        let out = dir.path().join("out");
        generate(&out, None)?;
        let dns_port = free_udp_port()?;
        let dns = start_dns(dir.path(), dns_port, &right_names())?;
        Ok(Some(Self {
            dir,
            out,
            dns_port,
            _dns: dns,
        }))
    }

    /// The temporary directory, which holds `out` and whatever else a test makes.
    fn work(&self) -> &Path {
        self.dir.path()
    }
}

#[test]
fn a_healthy_environment_passes_and_nothing_else_is_contacted() -> TestResult {
    let Some(cluster) = ExampleCluster::start()? else {
        return Ok(());
    };
    let (work, out, dns_port) = (cluster.work(), cluster.out.clone(), cluster.dns_port);
    let (api_port, mcs_port) = (free_tcp_port()?, free_tcp_port()?);
    let _lb = start_load_balancer(
        work,
        &out,
        tls(&out, "kube-apiserver-lb-server"),
        api_port,
        mcs_port,
    )?;

    let (code, report, output) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(
        code,
        0,
        "{report:#}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(report["passed"], true);
    // openssl s_server sends no Date: the clock comparison alone is not run, and says so.
    for found in findings(&report) {
        let clock_skipped = found["status"] == "skip" && found["target"] == "this machine's clock";
        assert!(found["status"] == "pass" || clock_skipped, "{found:#}");
    }
    assert_eq!(
        finding(
            &report,
            "load balancer",
            &format!("api-int.{DOMAIN}:{mcs_port}")
        )?["status"],
        "pass"
    );
    let served = findings(&report).into_iter().any(|f| {
        f["what"]
            .as_str()
            .is_some_and(|w| w.starts_with("serves /config/master"))
    });
    assert!(served, "{report:#}");

    // Only the DNS server and the addresses the cluster's names resolved to, on the ports given;
    // only names under the cluster's domain asked.
    let allowed = [
        format!("127.0.0.1:{dns_port}"),
        format!("127.0.0.1:{api_port}"),
        format!("127.0.0.2:{api_port}"),
        format!("127.0.0.2:{mcs_port}"),
    ];
    let contacts = report["contacts"].as_array().ok_or("no contacts")?;
    assert!(!contacts.is_empty());
    for contact in contacts {
        let address = contact["address"].as_str().unwrap_or_default();
        assert!(allowed.iter().any(|a| a == address), "contacted {contact}");
        if contact["kind"] == "dns" {
            let about = contact["about"].as_str().unwrap_or_default();
            assert!(about.contains(&format!(".{DOMAIN} ")), "asked {contact}");
        }
    }
    // --verbose says every contact.
    let verbose = bootgen_conformance::bootgen!()
        .arg("check")
        .arg(&out)
        .arg(format!("--dns-server=127.0.0.1:{dns_port}"))
        .arg(format!("--api-port={api_port}"))
        .arg(format!("--machine-config-port={mcs_port}"))
        .arg("--verbose")
        .output()?;
    let text = String::from_utf8_lossy(&verbose.stdout);
    assert!(verbose.status.success(), "{text}");
    assert!(
        text.contains(&format!("contacted: tls 127.0.0.2:{mcs_port}")),
        "{text}"
    );
    assert!(text.contains("ready: "), "{text}");
    Ok(())
}

#[test]
fn dns_faults_are_named_with_their_fix() -> TestResult {
    if !tools_present() {
        return Ok(());
    }
    let work = tempfile::tempdir()?;
    let work = work.path();
    let out = work.join("out");
    generate(&out, None)?;
    let (dns_port, api_port, mcs_port) = (free_udp_port()?, free_tcp_port()?, free_tcp_port()?);
    // api-int is missing (NXDOMAIN), apps has no wildcard; api is right but nothing listens.
    let _dns = start_dns(
        work,
        dns_port,
        &[format!("/{DOMAIN}/"), format!("/api.{DOMAIN}/127.0.0.1")],
    )?;
    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["passed"], false);
    assert_fails(
        &report,
        "dns",
        &format!("api-int.{DOMAIN}"),
        "NXDOMAIN from 127.0.0.1",
        &format!("api-int.{DOMAIN} IN A"),
    )?;
    assert_fails(
        &report,
        "dns",
        "bootgen-check-",
        "NXDOMAIN",
        &format!("*.apps.{DOMAIN} IN A"),
    )?;
    assert_eq!(
        finding(&report, "dns", &format!("api.{DOMAIN}"))?["status"],
        "pass"
    );
    assert_fails(
        &report,
        "load balancer",
        &format!("api.{DOMAIN}:{api_port}"),
        "refused",
        &format!("listen on api.{DOMAIN}:{api_port}"),
    )?;

    // The text form says the same, with a line per fault.
    let text = bootgen_conformance::bootgen!()
        .arg("check")
        .arg(&out)
        .arg(format!("--dns-server=127.0.0.1:{dns_port}"))
        .arg(format!("--api-port={api_port}"))
        .output()?;
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert_eq!(text.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "FAIL dns            api-int.{DOMAIN}: does not resolve"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("received: NXDOMAIN from 127.0.0.1"),
        "{stdout}"
    );
    assert!(stdout.contains("NOT READY"), "{stdout}");
    assert_summary_counts(&stdout);
    Ok(())
}

/// The summary line counts the findings above it, in words (`1 warning`, `2 warnings`).
fn assert_summary_counts(stdout: &str) {
    let count = |mark: &str| stdout.lines().filter(|l| l.starts_with(mark)).count();
    let warnings = match count("WARN ") {
        1 => "1 warning".to_string(),
        n => format!("{n} warnings"),
    };
    let summary = stdout.lines().last().unwrap_or_default();
    assert!(
        summary.ends_with(&format!(
            ": {} passed, {warnings}, {} failed, {} skipped",
            count("ok   "),
            count("FAIL "),
            count("skip ")
        )),
        "{stdout}"
    );
}

/// Nodes with static addresses (from `--hosts`): each name must resolve to its own address, the
/// short names under the cluster's domain; a missing record and a wrong one are named with the
/// record to add.
#[test]
fn static_hosts_must_resolve_to_their_addresses() -> TestResult {
    if !tools_present() {
        return Ok(());
    }
    let work = tempfile::tempdir()?;
    let work = work.path();
    let out = work.join("out");
    let fixtures = bootgen_conformance::repo().join("fixtures/network");
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.args(["ignition", "--key-algorithm", "ecdsa-p256", "--output"])
        .arg(&out)
        .arg("--install-config")
        .arg(fixtures.join("install-config.yaml"))
        .arg("--hosts")
        .arg(fixtures.join("agent-config.yaml"));
    bootgen_conformance::run(&mut cmd)?;
    let domain = "static.lab.example.org";
    let (dns_port, api_port, mcs_port) = (free_udp_port()?, free_tcp_port()?, free_tcp_port()?);
    let _dns = start_dns(
        work,
        dns_port,
        &[
            format!("/{domain}/"),
            format!("/bootstrap.{domain}/192.168.111.10"),
            format!("/master-0.{domain}/192.168.111.20"),
            format!("/master-1.{domain}/192.168.111.99"),
        ],
    )?;
    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    for host in ["bootstrap", "master-0"] {
        let found = finding(&report, "dns", &format!("{host}.{domain}"))?;
        assert_eq!(found["status"], "pass", "{found:#}");
    }
    assert_fails(
        &report,
        "dns",
        &format!("master-1.{domain}"),
        "192.168.111.99",
        &format!("master-1.{domain} IN A/AAAA 192.168.111.21"),
    )?;
    assert_fails(
        &report,
        "dns",
        &format!("master-2.{domain}"),
        "NXDOMAIN",
        &format!("master-2.{domain} IN A/AAAA 192.168.111.22, fd2e:6f44:5dd8:c956::22"),
    )?;
    Ok(())
}

/// An HTTPS server on `address` that answers every GET with 200 and, as a kube-apiserver does,
/// a `Date` (Python's http.server); `openssl s_server` sends none.
fn start_dated_https(
    address: &str,
    cert: &Path,
    key: &Path,
    skew_seconds: i64,
) -> TestResult<Server> {
    const SERVE: &str = r#"
import http.server, ssl, sys
class Answer(http.server.BaseHTTPRequestHandler):
    def date_time_string(self, timestamp=None):
        import time
        return super().date_time_string(time.time() + float(sys.argv[4]))
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *args):
        pass
host, port = sys.argv[1].rsplit(":", 1)
server = http.server.HTTPServer((host, int(port)), Answer)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[2], sys.argv[3])
server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
"#;
    let child = Command::new("python3")
        .args(["-c", SERVE, address])
        .arg(cert)
        .arg(key)
        .arg(skew_seconds.to_string())
        .stdout(std::process::Stdio::null())
        .spawn()?;
    let server = Server::from_child(child);
    bootgen_conformance::loopback::wait_for_listener(address)?;
    Ok(server)
}

/// The API's clock: `check` reads the `Date` of `GET /readyz` on the API (open to anyone on a
/// kube-apiserver) and names a skew with the server it was measured against.
#[test]
fn a_clock_off_from_the_api_is_named() -> TestResult {
    let Some(cluster) = ExampleCluster::start()? else {
        return Ok(());
    };
    let (out, dns_port) = (cluster.out.clone(), cluster.dns_port);
    let (api_port, mcs_port) = (free_tcp_port()?, free_tcp_port()?);
    let (cert, key) = tls(&out, "kube-apiserver-lb-server");
    // The API's clock three hours behind this machine's.
    let _api = start_dated_https(&format!("127.0.0.1:{api_port}"), &cert, &key, -3 * 3600)?;
    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    let api = format!("api.{DOMAIN}:{api_port}");
    assert_fails(
        &report,
        "time",
        &api,
        &format!("{api} sent Date: "),
        "chronyc tracking",
    )?;
    let skew = finding(&report, "time", &api)?;
    assert!(
        skew["what"]
            .as_str()
            .unwrap_or_default()
            .contains("clock is 3 h 0 min ahead of"),
        "{skew:#}"
    );
    Ok(())
}

#[test]
fn names_that_resolve_elsewhere_than_the_vips_fail_and_are_not_contacted() -> TestResult {
    if !tools_present() {
        return Ok(());
    }
    let work = tempfile::tempdir()?;
    let work = work.path();
    let out = work.join("out");
    let config = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/install-configs/valid/vsphere.yaml"
    );
    generate(&out, Some(Path::new(config)))?;
    let domain = "vsphere.lab.example.org";
    let dns_port = free_udp_port()?;
    // The install-config's VIPs are 10.0.0.5 (API) and 10.0.0.6 (ingress); DNS says otherwise.
    let _dns = start_dns(
        work,
        dns_port,
        &[
            format!("/{domain}/"),
            format!("/api.{domain}/127.0.0.9"),
            format!("/api-int.{domain}/127.0.0.9"),
            format!("/apps.{domain}/127.0.0.10"),
        ],
    )?;
    let (code, report, _) = check(&out, dns_port, 6443, 22623, &[])?;
    assert_eq!(code, 1, "{report:#}");
    assert_fails(
        &report,
        "dns",
        &format!("api.{domain}"),
        &format!("api.{domain} -> 127.0.0.9"),
        "to 10.0.0.5",
    )?;
    assert_fails(
        &report,
        "dns",
        &format!("api-int.{domain}"),
        "127.0.0.9",
        "to 10.0.0.5",
    )?;
    assert_fails(
        &report,
        "dns",
        "bootgen-check-",
        "127.0.0.10",
        "to 10.0.0.6",
    )?;
    // A wrong answer is never connected to; the machine-config server is tested where the
    // pointer configs send the nodes whatever DNS says: the API VIP itself.
    for contact in report["contacts"].as_array().ok_or("no contacts")? {
        assert!(
            contact["kind"] == "dns" || contact["address"] == "10.0.0.5:22623",
            "{contact}"
        );
    }
    Ok(())
}

/// A machine-config server that sends its reply a byte a second: each read arrives within the
/// time limit, the whole reply never would (30 s here); `check` cuts it off within its limit.
#[test]
fn a_reply_that_drips_is_cut_off_within_the_time_limit() -> TestResult {
    const DRIP: &str = r#"
import socket, ssl, sys, threading, time
host, port = sys.argv[1].rsplit(":", 1)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[2], sys.argv[3])
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind((host, int(port)))
listener.listen(8)
def answer(connection):
    try:
        connection = context.wrap_socket(connection, server_side=True)
        connection.recv(4096)
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 30\r\n\r\n")
        for _ in range(30):
            connection.sendall(b" ")
            time.sleep(1)
    except OSError:
        pass
while True:
    threading.Thread(target=answer, args=(listener.accept()[0],), daemon=True).start()
"#;
    let Some(cluster) = ExampleCluster::start()? else {
        return Ok(());
    };
    let (out, dns_port) = (cluster.out.clone(), cluster.dns_port);
    let (api_port, mcs_port) = (free_tcp_port()?, free_tcp_port()?);
    let (cert, key) = tls(&out, "machine-config-server");
    let address = format!("127.0.0.2:{mcs_port}");
    let child = Command::new("python3")
        .args(["-c", DRIP, &address])
        .arg(&cert)
        .arg(&key)
        .spawn()?;
    let _mcs = Server::from_child(child);
    bootgen_conformance::loopback::wait_for_listener(&address)?;
    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    let cut = findings(&report)
        .into_iter()
        .find(|f| {
            f["evidence"]
                .as_str()
                .is_some_and(|e| e.contains("did not arrive in time"))
        })
        .ok_or_else(|| format!("no reply cut off: {report:#}"))?;
    assert!(
        cut["target"]
            .as_str()
            .is_some_and(|t| t.contains(&format!(":{mcs_port}"))),
        "{cut:#}"
    );
    Ok(())
}

#[test]
fn load_balancer_faults_are_named_with_their_fix() -> TestResult {
    let Some(cluster) = ExampleCluster::start()? else {
        return Ok(());
    };
    let (work, out, dns_port) = (cluster.work(), cluster.out.clone(), cluster.dns_port);
    let other = work.join("other");
    generate(&other, None)?;
    let (api_port, mcs_port) = (free_tcp_port()?, free_tcp_port()?);
    // api presents another install's certificate (another CA); the machine-config server has
    // no config to serve (s_server answers 200 with an error text, not a config).
    let www = work.join("empty-www");
    fs::create_dir_all(&www)?;
    let (wrong_cert, wrong_key) = tls(&other, "kube-apiserver-lb-server");
    let (internal_cert, internal_key) = tls(&out, "kube-apiserver-internal-lb-server");
    let (mcs_cert, mcs_key) = tls(&out, "machine-config-server");
    let _api = start_tls(
        &format!("127.0.0.1:{api_port}"),
        &wrong_cert,
        &wrong_key,
        None,
    )?;
    let _api_int = start_tls(
        &format!("127.0.0.2:{api_port}"),
        &internal_cert,
        &internal_key,
        None,
    )?;
    let _mcs = start_tls(
        &format!("127.0.0.2:{mcs_port}"),
        &mcs_cert,
        &mcs_key,
        Some(&www),
    )?;

    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    assert_fails(
        &report,
        "load balancer",
        &format!("api.{DOMAIN}:{api_port}"),
        "issuer CN=kube-apiserver-lb-signer",
        "pass TCP through",
    )?;
    let wrong = finding(
        &report,
        "load balancer",
        &format!("api.{DOMAIN}:{api_port}"),
    )?;
    assert!(
        wrong["evidence"]
            .as_str()
            .unwrap_or_default()
            .contains("signed by another key than the trusted CA's, under the same name (another install's certificate)"),
        "{wrong:#}"
    );
    assert_eq!(
        finding(
            &report,
            "load balancer",
            &format!("api-int.{DOMAIN}:{api_port}")
        )?["status"],
        "pass"
    );
    let mcs = findings(&report)
        .into_iter()
        .find(|f| {
            f["status"] == "fail"
                && f["target"]
                    .as_str()
                    .is_some_and(|t| t.contains(&format!(":{mcs_port}")))
        })
        .ok_or_else(|| format!("no failed machine-config finding: {report:#}"))?;
    assert!(
        mcs["what"]
            .as_str()
            .unwrap_or_default()
            .contains("does not serve an Ignition config at /config/master"),
        "{mcs:#}"
    );
    assert!(
        mcs["evidence"]
            .as_str()
            .unwrap_or_default()
            .contains("Error opening 'config/master'"),
        "{mcs:#}"
    );
    Ok(())
}

#[test]
fn certificates_too_close_to_expiry_fail_with_the_renewal() -> TestResult {
    let Some(cluster) = ExampleCluster::start()? else {
        return Ok(());
    };
    let (out, dns_port) = (cluster.out.clone(), cluster.dns_port);
    // Judged 23 h 30 min after generation: the day-long certificates have half an hour left.
    let later = time::OffsetDateTime::now_utc() + time::Duration::minutes(23 * 60 + 30);
    let later = later.format(&time::format_description::well_known::Rfc3339)?;
    let (code, report, _) = check(
        &out,
        dns_port,
        free_tcp_port()?,
        free_tcp_port()?,
        &["--now", &later],
    )?;
    assert_eq!(code, 1, "{report:#}");
    let expiring = findings(&report)
        .into_iter()
        .find(|f| f["area"] == "time" && f["status"] == "fail")
        .ok_or_else(|| format!("no failed time finding: {report:#}"))?;
    assert!(
        expiring["what"]
            .as_str()
            .unwrap_or_default()
            .contains("too soon for the bootstrap to finish"),
        "{expiring:#}"
    );
    // The first to expire is the day-long aggregator signer, a CA: `--renew-expired` renews
    // leaves only, so the fix is a new PKI in a new directory.
    assert!(
        expiring["evidence"]
            .as_str()
            .unwrap_or_default()
            .contains("CN=aggregator-signer"),
        "{expiring:#}"
    );
    let fix = expiring["fix"].as_str().unwrap_or_default();
    assert!(
        fix.contains("--output <new dir>") && !fix.contains("--renew-expired"),
        "{expiring:#}"
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Mirrors: Debian's docker-registry with TLS from a CA made here and htpasswd auth, holding an
// image and release payloads whose image-references name it (and, in one, an image it lacks).

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use bootgen_conformance::registry::{
    make_pki, push_layout, run_ok, start_registry, start_registry_with, write_oci_layout,
    write_oci_layout_with,
};

const MIRROR_TOOLS: &[&str] = &[
    "/usr/bin/docker-registry",
    "/usr/bin/skopeo",
    "/usr/bin/htpasswd",
];

/// A payload whose image-references name `images` (as tags `component-N`).
fn push_payload(
    work: &Path,
    registry: &bootgen_conformance::registry::Registry,
    name: &str,
    images: &[String],
    certs: &Path,
) -> TestResult<String> {
    let tags: Vec<(String, String)> = images
        .iter()
        .enumerate()
        .map(|(i, image)| (format!("component-{i}"), image.clone()))
        .collect();
    push_payload_with(work, registry, name, &tags, &[], certs)
}

/// A payload whose image-references name `tags` (name, image), with `files` besides.
fn push_payload_with(
    work: &Path,
    registry: &bootgen_conformance::registry::Registry,
    name: &str,
    tags: &[(String, String)],
    files: &[(&str, &[u8])],
    certs: &Path,
) -> TestResult<String> {
    let tags: Vec<Value> = tags
        .iter()
        .map(|(tag, image)| serde_json::json!({"name": tag, "from": {"kind": "DockerImage", "name": image}}))
        .collect();
    let references = serde_json::to_vec(&serde_json::json!({
        "kind": "ImageStream",
        "apiVersion": "image.openshift.io/v1",
        "spec": {"tags": tags},
    }))?;
    let layout = work.join(format!("layout-{name}"));
    let mut all = vec![("release-manifests/image-references", references.as_slice())];
    all.extend_from_slice(files);
    write_oci_layout_with(&layout, &all)?;
    push_layout(
        work,
        registry,
        &layout,
        &format!("mirror/{name}:v1"),
        Some("mirror-user:mirror-pass"),
        Some(certs),
    )
}

/// The TLS registry with htpasswd auth (`mirror-user:mirror-pass`) the mirror tests use, in a
/// temporary directory: `None` (after saying so) when a tool is missing outside CI.
struct Mirror {
    dir: tempfile::TempDir,
    ca: PathBuf,
    registry: bootgen_conformance::registry::Registry,
    /// A skopeo certificate directory trusting the registry.
    certs: PathBuf,
}

impl Mirror {
    fn start() -> TestResult<Option<Mirror>> {
        Mirror::start_with(None)
    }

    /// A mirror whose blobs are redirected to `blobs_at` (see `start_registry_with`).
    fn start_with(blobs_at: Option<&str>) -> TestResult<Option<Mirror>> {
        if !tools_present() || !bootgen_conformance::tools_present(MIRROR_TOOLS) {
            return Ok(None);
        }
        let dir = tempfile::tempdir()?;
        let work = dir.path();
        let (ca, cert, key) = make_pki(&work.join("pki"))?;
        let htpasswd = work.join("htpasswd");
        let hashed =
            run_ok(Command::new("/usr/bin/htpasswd").args(["-Bbn", "mirror-user", "mirror-pass"]))?;
        fs::write(&htpasswd, &hashed.stdout)?;
        let registry = start_registry_with(work, Some(&htpasswd), Some((&cert, &key)), blobs_at)?;
        let certs = work.join("push-certs");
        fs::create_dir_all(&certs)?;
        fs::copy(&ca, certs.join("ca.crt"))?;
        Ok(Some(Mirror {
            dir,
            ca,
            registry,
            certs,
        }))
    }

    /// The work directory, the CA, the registry and skopeo's certificate directory.
    fn parts(
        &self,
    ) -> (
        &Path,
        &Path,
        &bootgen_conformance::registry::Registry,
        &Path,
    ) {
        (self.dir.path(), &self.ca, &self.registry, &self.certs)
    }
}

#[test]
fn mirror_faults_are_named_and_a_healthy_environment_passes() -> TestResult {
    let Some(mirror) = Mirror::start()? else {
        return Ok(());
    };
    let (work, ca, registry, certs) = mirror.parts();
    let app_layout = work.join("layout-app");
    write_oci_layout(&app_layout)?;
    let app = push_layout(
        work,
        registry,
        &app_layout,
        "mirror/app:v1",
        Some("mirror-user:mirror-pass"),
        Some(certs),
    )?;
    let present = format!("source.invalid/app@{app}");
    let absent = format!("source.invalid/app@sha256:{}", "0".repeat(64));
    // 5.0's OS image stream node images live in a repository of their own, which
    // `oc adm release mirror` does not copy (assisted-service #10527).
    let os_image = format!("source.invalid/os-images@sha256:{}", "2".repeat(64));
    let whole = push_payload(
        work,
        registry,
        "release",
        std::slice::from_ref(&present),
        certs,
    )?;
    let partial = push_payload(
        work,
        registry,
        "release-partial",
        &[present.clone(), absent.clone(), os_image.clone()],
        certs,
    )?;
    let host = format!("127.0.0.1:{}", registry.port);

    let auth = |password: &str| -> TestResult<PathBuf> {
        let path = work.join(format!("auth-{password}.json"));
        let entry = serde_json::json!({"auths": {&host: {"auth": STANDARD.encode(format!("mirror-user:{password}"))}}});
        fs::write(&path, serde_json::to_vec(&entry)?)?;
        Ok(path)
    };
    let generate_at = |version: &str,
                       name: &str,
                       release: &str,
                       password: &str,
                       with_ca: bool|
     -> TestResult<PathBuf> {
        let out = work.join(name);
        let mut cmd = bootgen_conformance::bootgen!();
        cmd.args([
            "ignition",
            "--key-algorithm",
            "ecdsa-p256",
            "--release-version",
            version,
        ])
        .arg("--release-image")
        .arg(format!("source.invalid/{release}"))
        .arg("--mirror")
        .arg(format!("source.invalid={host}/mirror"))
        .arg("--block-source")
        .arg("--registry-auth")
        .arg(auth(password)?)
        .arg("--output")
        .arg(&out);
        if with_ca {
            cmd.arg("--trust-bundle").arg(ca);
        }
        bootgen_conformance::run(&mut cmd)?;
        Ok(out)
    };
    let generate_for = |name: &str, release: &str, password: &str, with_ca: bool| {
        generate_at("4.22.0", name, release, password, with_ca)
    };

    let (dns_port, api_port, mcs_port) = (free_udp_port()?, free_tcp_port()?, free_tcp_port()?);
    let _dns = start_dns(work, dns_port, &right_names())?;

    // Every fault removed: the load balancer's listeners serve this output's certificates, and
    // the mirror holds the release and every image it names.
    let healthy = generate_for("healthy", &format!("release@{whole}"), "mirror-pass", true)?;
    let lb = start_load_balancer(
        work,
        &healthy,
        tls(&healthy, "kube-apiserver-lb-server"),
        api_port,
        mcs_port,
    )?;
    let (code, report, _) = check(&healthy, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 0, "{report:#}");
    for found in findings(&report) {
        assert_eq!(found["status"], "pass", "{found:#}");
    }
    let mirror = finding(&report, "mirror", &host)?;
    assert!(
        mirror["what"]
            .as_str()
            .unwrap_or_default()
            .contains("accepts the pull secret's credentials (TLS verified"),
        "{mirror:#}"
    );
    finding(&report, "mirror", &format!("{host}/mirror/release@{whole}"))?;
    let images = finding(&report, "mirror", &format!("{host}/mirror/release"))?;
    assert!(
        findings(&report)
            .iter()
            .any(|f| f["what"] == "holds all 1 images the release names"),
        "{images:#}"
    );
    finding(&report, "time", &host)?;
    let allowed = [
        format!("127.0.0.1:{dns_port}"),
        format!("127.0.0.1:{api_port}"),
        format!("127.0.0.2:{api_port}"),
        format!("127.0.0.2:{mcs_port}"),
        host.clone(),
    ];
    for contact in report["contacts"].as_array().ok_or("no contacts")? {
        let address = contact["address"].as_str().unwrap_or_default();
        assert!(allowed.iter().any(|a| a == address), "contacted {contact}");
    }
    drop(lb);

    // Asking whether the certificates last two hours more does not move this machine's
    // clock: the registry's Date still agrees with it, and the certificates are judged then.
    let ahead = time::OffsetDateTime::now_utc() + time::Duration::hours(2);
    let ahead = ahead.format(&time::format_description::well_known::Rfc3339)?;
    let (_, report, _) = check(&healthy, dns_port, api_port, mcs_port, &["--now", &ahead])?;
    let clock = finding(&report, "time", &host)?;
    assert_eq!(clock["status"], "pass", "{clock:#}");
    let horizon = findings(&report)
        .into_iter()
        .find(|f| f["area"] == "time" && f["target"].as_str().is_some_and(|t| t.ends_with(".crt")))
        .ok_or_else(|| format!("no certificate finding: {report:#}"))?;
    let said = horizon["what"].as_str().unwrap_or_default();
    assert!(
        said.starts_with("at ") && said.contains("the first certificate to expire has 2"),
        "{horizon:#}"
    );

    // A payload naming an image the mirror lacks.
    let out = generate_for(
        "partial",
        &format!("release-partial@{partial}"),
        "mirror-pass",
        true,
    )?;
    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    assert_fails(
        &report,
        "mirror",
        &format!("{host}/mirror/release-partial"),
        &format!("{absent}, {os_image}"),
        "the OS image stream's included",
    )?;
    let lacks = finding(&report, "mirror", &format!("{host}/mirror/release-partial"))?;
    assert_eq!(
        lacks["what"], "lacks 2 of the 3 images the release names",
        "{lacks:#}"
    );

    // A 5.0 payload: its OS image streams' node images are tags of its image references, and
    // the machine-config operator's ConfigMap names the default stream's; node-image-pull.service
    // needs them all. The rhel-10 node image and the ConfigMap's are not in the mirror.
    let node_10 = format!("source.invalid/os-images@sha256:{}", "3".repeat(64));
    let configmap_os = format!("source.invalid/os-images@sha256:{}", "4".repeat(64));
    let configmap = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: machine-config-osimageurl\n  namespace: openshift-machine-config-operator\ndata:\n  baseOSContainerImage: \"{configmap_os}\"\n  baseOSExtensionsContainerImage: \"{present}\"\n  releaseVersion: 5.0.0\n"
    );
    let streams = push_payload_with(
        work,
        registry,
        "release-5",
        &[
            ("machine-config-operator".into(), present.clone()),
            ("rhel-coreos-10".into(), node_10.clone()),
            ("rhel-coreos-10-extensions".into(), present.clone()),
        ],
        &[(
            "release-manifests/0000_80_machine-config_05_osimageurl.yaml",
            configmap.as_bytes(),
        )],
        certs,
    )?;
    let out = generate_at(
        "5.0.0",
        "release-5",
        &format!("release-5@{streams}"),
        "mirror-pass",
        true,
    )?;
    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    let target = format!("{host}/mirror/release-5");
    assert_fails(
        &report,
        "mirror",
        &target,
        &format!("rhel-coreos-10 ({node_10}), machine-config-osimageurl baseOSContainerImage ({configmap_os})"),
        &format!("oc image mirror {node_10} {host}/mirror/os-images"),
    )?;
    let lacks = finding(&report, "mirror", &target)?;
    assert!(
        lacks["what"]
            .as_str()
            .unwrap_or_default()
            .starts_with("lacks 2 of the 3 node images of the release's OS image streams"),
        "{lacks:#}"
    );
    // Only the stream's images are missing: no other finding about the release's images.
    let about_release: Vec<_> = findings(&report)
        .into_iter()
        .filter(|f| f["target"] == target.as_str())
        .collect();
    assert_eq!(about_release.len(), 1, "{report:#}");

    // The release image itself missing.
    let missing = format!("sha256:{}", "1".repeat(64));
    let out = generate_for(
        "no-release",
        &format!("release@{missing}"),
        "mirror-pass",
        true,
    )?;
    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    // The release was pointed at the mirror (`--mirror` covers it): the fix copies it from the
    // source the mirror entry names, not from the mirror to itself.
    assert_fails(
        &report,
        "mirror",
        &format!("{host}/mirror/release@{missing}"),
        "HTTP 404",
        &format!("oc adm release mirror --from=source.invalid/release@{missing} --to={host}/mirror/release"),
    )?;
    let skipped = findings(&report)
        .into_iter()
        .find(|f| f["status"] == "skip" && f["area"] == "mirror")
        .ok_or_else(|| format!("no skipped mirror test: {report:#}"))?;
    assert!(
        skipped["what"]
            .as_str()
            .is_some_and(|w| w.contains("the images the release names")),
        "{skipped:#}"
    );

    // Credentials the registry refuses.
    let out = generate_for(
        "wrong-password",
        &format!("release@{whole}"),
        "not-the-password",
        true,
    )?;
    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    assert_fails(&report, "mirror", &host, "HTTP 401", "--registry-auth")?;
    let text = report.to_string();
    assert!(
        !text.contains("not-the-password")
            && !text.contains(&STANDARD.encode("mirror-user:not-the-password")),
        "a secret in the report"
    );

    // No trust bundle: the mirror's certificate is from a CA the node does not trust.
    let out = generate_for("no-ca", &format!("release@{whole}"), "mirror-pass", false)?;
    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    assert_fails(
        &report,
        "mirror",
        &host,
        "the certificate is not signed by a CA this check trusts for it",
        "--trust-bundle",
    )?;
    Ok(())
}

/// The mirror findings of a report: `(status, target, what)`.
// A mirror that keeps its blobs elsewhere (object storage, a CDN) answers a blob's GET with a
// redirect, which the node's pull follows without the registry's credentials: check follows it
// too, names the host the nodes must reach, and fails when that host does not serve the blob,
// as skopeo does.
#[test]
fn a_mirror_that_redirects_its_blobs_is_followed_as_the_node_follows_it() -> TestResult {
    let blobs_port = bootgen_conformance::registry::free_port()?;
    let blobs = format!("127.0.0.1:{blobs_port}");
    let Some(mirror) = Mirror::start_with(Some(&format!("https://{blobs}")))? else {
        return Ok(());
    };
    let (work, ca, registry, certs) = mirror.parts();
    let release = push_payload(work, registry, "release", &[], certs)?;
    let host = format!("127.0.0.1:{}", registry.port);
    let pulled = format!("{host}/mirror/release@{release}");
    let auth = work.join("auth.json");
    let entry =
        serde_json::json!({"auths": {&host: {"auth": STANDARD.encode("mirror-user:mirror-pass")}}});
    fs::write(&auth, serde_json::to_vec(&entry)?)?;
    let out = work.join("out");
    bootgen_conformance::run(
        bootgen_conformance::bootgen!()
            .args(["ignition", "--key-algorithm", "ecdsa-p256"])
            .args(["--release-version", "4.22.0", "--release-image"])
            .arg(format!("source.invalid/release@{release}"))
            .arg("--mirror")
            .arg(format!("source.invalid={host}/mirror"))
            .arg("--registry-auth")
            .arg(&auth)
            .arg("--trust-bundle")
            .arg(ca)
            .arg("--output")
            .arg(&out),
    )?;
    let copy = || {
        bootgen_conformance::registry::skopeo(work)
            .arg("copy")
            .arg("--authfile")
            .arg(&auth)
            .arg("--src-cert-dir")
            .arg(certs)
            .arg(format!("docker://{pulled}"))
            .arg(format!("dir:{}", work.join("copied").display()))
            .output()
    };
    let (dns_port, api_port, mcs_port) = (free_udp_port()?, free_tcp_port()?, free_tcp_port()?);
    let _dns = start_dns(work, dns_port, &right_names())?;

    // Nothing serves the blobs where the registry sends them: skopeo fails, and so does check,
    // naming that host and not showing the signed part of the URL.
    assert!(
        !copy()?.status.success(),
        "skopeo copied without the blob host"
    );
    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    assert_fails(
        &report,
        "mirror",
        &blobs,
        &format!("https://{blobs}/docker/registry/v2/blobs/sha256/"),
        &format!("reach {blobs}"),
    )?;
    let failed = finding(&report, "mirror", &blobs)?;
    assert!(
        failed["what"]
            .as_str()
            .unwrap_or_default()
            .contains(&format!("{host} redirects")),
        "{failed:#}"
    );

    // The blob host serves the registry's storage over TLS the trust bundle trusts: skopeo
    // copies, and check reads the payload through the redirect and names the host.
    let _server = bootgen_conformance::loopback::start_tls(
        &blobs,
        &work.join("pki/server.crt"),
        &work.join("pki/server.key"),
        Some(&work.join("storage")),
    )?;
    let copied = copy()?;
    assert!(copied.status.success(), "{}", run_text(&copied));
    let (_, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    let served = finding(&report, "mirror", &blobs)?;
    assert_eq!(served["status"], "pass", "{served:#}");
    assert!(
        served["what"]
            .as_str()
            .unwrap_or_default()
            .contains(&format!("serves the blobs of {host}")),
        "{served:#}"
    );
    let images = finding(&report, "mirror", &format!("{host}/mirror/release"))?;
    for found in findings(&report)
        .into_iter()
        .filter(|f| f["area"] == "mirror")
    {
        assert_eq!(found["status"], "pass", "{found:#} in {images:#}");
    }
    let contacts = report["contacts"].as_array().ok_or("no contacts")?;
    assert!(
        contacts.iter().any(|c| c["address"] == blobs.as_str()),
        "{contacts:#?}"
    );
    Ok(())
}

fn run_text(output: &Output) -> String {
    bootgen_conformance::registry::output_text(output)
}

fn mirror_findings(report: &Value) -> Vec<(String, String, String)> {
    findings(report)
        .into_iter()
        .filter(|f| f["area"] == "mirror")
        .map(|f| {
            let text = |k: &str| f[k].as_str().unwrap_or_default().to_string();
            (text("status"), text("target"), text("what"))
        })
        .collect()
}

// The node's rules for pulling through mirrors, against a TLS registry with htpasswd auth and
// an empty plain-HTTP one: credentials chosen per repository as skopeo chooses them, the
// mirrors tried in order, and an insecure mirror's release tested like any other.
#[test]
fn mirrors_are_pulled_from_as_the_node_pulls() -> TestResult {
    let Some(mirror) = Mirror::start()? else {
        return Ok(());
    };
    let (work, ca, registry, certs) = mirror.parts();
    let plain_dir = work.join("plain");
    fs::create_dir_all(&plain_dir)?;
    let plain = start_registry(&plain_dir, None, None)?;
    let release = push_payload(work, registry, "release", &[], certs)?;
    let host = format!("127.0.0.1:{}", registry.port);
    let plain_host = format!("127.0.0.1:{}", plain.port);
    let basic = |password: &str| STANDARD.encode(format!("mirror-user:{password}"));

    // The mirrors go into the install-config's imageDigestSources, or with `insecure` into
    // --mirror flags (which also point the release image at the first mirror).
    let generate_with = |name: &str,
                         auths: Value,
                         mirrors: &[String],
                         insecure: Option<&str>|
     -> TestResult<PathBuf> {
        let out = work.join(name);
        let auth = work.join(format!("auth-{name}.json"));
        fs::write(
            &auth,
            serde_json::to_vec(&serde_json::json!({ "auths": auths }))?,
        )?;
        let mut cmd = bootgen_conformance::bootgen!();
        cmd.args([
            "ignition",
            "--key-algorithm",
            "ecdsa-p256",
            "--release-version",
            "4.22.0",
        ])
        .arg("--release-image")
        .arg(format!("source.invalid/release@{release}"))
        .arg("--registry-auth")
        .arg(&auth)
        .arg("--trust-bundle")
        .arg(ca)
        .arg("--output")
        .arg(&out);
        if let Some(insecure) = insecure {
            cmd.arg("--insecure-registry").arg(insecure);
            for mirror in mirrors {
                cmd.arg("--mirror").arg(format!("source.invalid={mirror}"));
            }
        } else {
            let example = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../lib/src/config/default-install-config.yaml"
            );
            let config = work.join(format!("install-config-{name}.yaml"));
            fs::write(
                &config,
                format!(
                    "{}imageDigestSources:\n- source: source.invalid\n  mirrors: [{}]\n",
                    fs::read_to_string(example)?,
                    mirrors.join(", ")
                ),
            )?;
            cmd.arg("--install-config").arg(config);
        }
        bootgen_conformance::run(&mut cmd)?;
        Ok(out)
    };
    let (dns_port, api_port, mcs_port) = (free_udp_port()?, free_tcp_port()?, free_tcp_port()?);
    let _dns = start_dns(work, dns_port, &right_names())?;
    let mirror = format!("{host}/mirror");
    let pulled = format!("{mirror}/release@{release}");

    // Credentials for another repository only (and for a name that is a prefix of a component,
    // not a whole one): skopeo sends none, so the node cannot pull, and check says so.
    let auths = serde_json::json!({
        format!("{host}/other"): {"auth": basic("mirror-pass")},
        format!("{host}/mirr"): {"auth": basic("mirror-pass")},
    });
    let authfile = work.join("scoped.json");
    fs::write(
        &authfile,
        serde_json::to_vec(&serde_json::json!({ "auths": auths }))?,
    )?;
    let inspect = |authfile: &Path| {
        bootgen_conformance::registry::skopeo(work)
            .arg("inspect")
            .arg("--authfile")
            .arg(authfile)
            .arg("--cert-dir")
            .arg(certs)
            .arg(format!("docker://{pulled}"))
            .output()
    };
    assert!(
        !inspect(&authfile)?.status.success(),
        "skopeo pulled with another repository's credentials"
    );
    let out = generate_with(
        "scoped-elsewhere",
        auths,
        std::slice::from_ref(&mirror),
        None,
    )?;
    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    assert_fails(&report, "mirror", &host, "HTTP 401", "--registry-auth")?;
    let refused = finding(&report, "mirror", &host)?;
    assert_eq!(
        refused["what"],
        format!("the mirror wants credentials and the pull secret has none for {mirror}"),
        "{refused:#}"
    );

    // The host's entry is wrong but the repository's namespace has the right one: skopeo pulls,
    // and so does check, through the first mirror that holds the release (the second).
    let auths = serde_json::json!({
        &host: {"auth": basic("not-the-password")},
        format!("{host}/mirror"): {"auth": basic("mirror-pass")},
    });
    fs::write(
        &authfile,
        serde_json::to_vec(&serde_json::json!({ "auths": auths }))?,
    )?;
    let inspected = inspect(&authfile)?;
    assert!(
        inspected.status.success(),
        "{}",
        bootgen_conformance::registry::output_text(&inspected)
    );
    let empty = format!("{host}/mirror/empty");
    let out = generate_with(
        "scoped-namespace",
        auths,
        &[empty.clone(), mirror.clone()],
        None,
    )?;
    let (_, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    let mirrors = mirror_findings(&report);
    let expected = [
        ("pass".to_string(), host.clone(), "accepts the pull secret's credentials (TLS verified against the trust bundle)".to_string()),
        ("warn".into(), format!("{empty}/release@{release}"), format!("does not hold the release image: the nodes try it first, then pull it from {pulled}")),
        ("pass".into(), pulled.clone(), "holds the release image's manifest (the nodes pull it from here: the 1 mirror(s) tried before lack it)".into()),
        ("pass".into(), format!("{mirror}/release"), "holds all 0 images the release names".into()),
    ];
    assert_eq!(mirrors, expected, "{report:#}");

    // An insecure mirror that speaks plain HTTP and holds nothing: its release is looked up
    // there all the same, and missing.
    let auths = serde_json::json!({ &host: {"auth": basic("mirror-pass")} });
    let out = generate_with(
        "plain-empty",
        auths,
        &[format!("{plain_host}/mirror")],
        Some(&plain_host),
    )?;
    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    assert_fails(
        &report,
        "mirror",
        &format!("{plain_host}/mirror/release@{release}"),
        "HTTP 404",
        "oc adm release mirror --from=",
    )?;

    // A listener that accepts connections and never answers shows no certificate: not a trust
    // problem, whatever the trust bundle holds.
    let silent = std::net::TcpListener::bind("127.0.0.1:0")?;
    let silent_host = format!("127.0.0.1:{}", silent.local_addr()?.port());
    let auths = serde_json::json!({ &silent_host: {"auth": basic("mirror-pass")} });
    let out = generate_with("silent", auths, &[format!("{silent_host}/mirror")], None)?;
    let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    assert_eq!(code, 1, "{report:#}");
    assert_fails(
        &report,
        "mirror",
        &silent_host,
        "TLS: no certificate received: ",
        &format!("check that the registry runs and serves TLS on {silent_host}"),
    )?;
    let fix = finding(&report, "mirror", &silent_host)?["fix"].to_string();
    assert!(!fix.contains("--trust-bundle"), "{fix}");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// --watch against a scripted bootstrap machine (tests/src/failing_node.rs): stub `ssh` and
// `scp` run what bootgen sends on the node's scratch tree, its installer-gather.sh included.

use bootgen_conformance::failing_node::{scenes, FailingNode};
use std::os::unix::fs::PermissionsExt as _;

/// ssh: skips the options, logs the command and runs it on the node, its absolute paths moved
/// under the node's root and `sudo` dropped.
const STUB_SSH: &str = r##"#!/usr/bin/env bash
while [ $# -gt 0 ]; do
    case "$1" in -i|-o) shift 2 ;; -*) shift ;; *) break ;; esac
done
host="$1"; shift
cmd="$*"
echo "$host: $cmd" >> "$WATCH_HOME/ssh.log"
if [ -n "${WATCH_SSH_DENY:-}" ]; then
    echo "$host: Permission denied (publickey)." >&2
    exit 255
fi
cmd="${cmd//sudo /}"
cmd="${cmd//\/opt\/openshift/$GATHER_NODE_ROOT/opt/openshift}"
cmd="${cmd//\/usr\/local\/bin/$GATHER_NODE_ROOT/usr/local/bin}"
cd "$WATCH_HOME" && PATH="$WATCH_NODE_PATH" exec bash -c "$cmd"
"##;

/// scp: `core@host:FILE DEST` copies FILE from the node's home.
const STUB_SCP: &str = r##"#!/usr/bin/env bash
while [ $# -gt 0 ]; do
    case "$1" in -i|-o) shift 2 ;; -*) shift ;; *) break ;; esac
done
cp "$WATCH_HOME/${1#*:}" "$2"
"##;

/// `bootgen check OUT --bootstrap 192.0.2.20` (with `args`) reaching `node` through the stubs.
fn check_node(node: &FailingNode, out: &Path, dns_port: u16, args: &[&str]) -> TestResult<Command> {
    let stubs = node.root().join("watch-stubs");
    fs::create_dir_all(&stubs)?;
    for (name, text) in [("ssh", STUB_SSH), ("scp", STUB_SCP)] {
        let path = stubs.join(name);
        fs::write(&path, text)?;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755))?;
    }
    let home = node.root().join("home");
    fs::create_dir_all(&home)?;
    fs::create_dir_all(node.root().join("work"))?;
    let node_path = node
        .node_env()
        .into_iter()
        .find(|(name, _)| *name == "PATH")
        .map(|(_, value)| value)
        .unwrap_or_default();
    let path = format!(
        "{}:{}",
        stubs.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.arg("check")
        .arg(out)
        .arg(format!("--dns-server=127.0.0.1:{dns_port}"))
        .args(["--timeout", "1", "--bootstrap", "192.0.2.20"])
        .args(args)
        .env("PATH", path)
        .env("WATCH_HOME", &home)
        .env("WATCH_NODE_PATH", node_path)
        .env("STUB_DIR", node.root().join("stub"))
        .env("GATHER_NODE_ROOT", node.root().join("node"))
        .env("GATHER_WORK_DIR", node.root().join("work"))
        .env("GATHER_NO_SUDO", "1");
    Ok(cmd)
}

/// `bootgen check OUT --watch --bootstrap 192.0.2.20` against `node`; its output.
fn watch(node: &FailingNode, out: &Path, dns_port: u16, extra: &[&str]) -> TestResult<Output> {
    let mut args = vec!["--watch", "--interval", "1"];
    args.extend_from_slice(extra);
    Ok(check_node(node, out, dns_port, &args)?.output()?)
}

fn journal_line(ident: &str, message: &str) -> String {
    format!("2026-01-01T01:05:00+0000 bootstrap {ident}: {message}\n")
}

#[test]
fn watch_follows_the_bootstrap_to_completion_failure_or_stall() -> TestResult {
    let Some(cluster) = ExampleCluster::start()? else {
        return Ok(());
    };
    let (out, dns_port) = (cluster.out.clone(), cluster.dns_port);

    // Completes: bootkube's last marker is there.
    let done = FailingNode::release_pulled()?.file("/opt/openshift/.bootkube.done", "")?;
    let output = watch(&done, &out, dns_port, &["--verbose"])?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    // --verbose says the contacts of the watch too (the API's readiness).
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("contacted: http 127.0.0.1:6443 (api.example.example.com/readyz)"),
        "{stderr}"
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("watch: the bootstrap on 192.0.2.20 is complete"),
        "{stdout}"
    );
    let asked = fs::read_to_string(done.root().join("home/ssh.log"))?;
    assert!(
        asked.starts_with("core@192.0.2.20: true\ncore@192.0.2.20: ls -1a /opt/openshift"),
        "{asked}"
    );

    // Fails: the release image pull was refused; diagnose's cause and fix, live.
    let refused = FailingNode::new(None)?
        .journal(
            "release-image.service",
            &journal_line("release-image-download.sh[1201]", "Pull of release image quay.io/openshift-release-dev/ocp-release@sha256:4f1e failed (attempt 3): Error: initializing source docker://quay.io/openshift-release-dev/ocp-release@sha256:4f1e: reading manifest sha256:4f1e in quay.io/openshift-release-dev/ocp-release: unauthorized: authentication required"),
        )?
        .service("release-image", "record_service_stage_start pull-release-image\nexit 1")?
        .failed_unit("release-image.service")?;
    let output = watch(&refused, &out, dns_port, &[])?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("watch: on 192.0.2.20, release-image.service failed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("refused the pull (unauthorized)"),
        "{stdout}"
    );
    assert!(stdout.contains("--registry-auth"), "{stdout}");
    assert!(out.join("log-bundle-bootgen-watch.tar.gz").exists());

    // Stalls: bootkube never gets past cb-bootstrap. The machine-config server served a
    // control-plane machine, whose kubelet asked for its certificate; the API lists the two CSRs
    // nobody approved. After --stall-after the bundle says so, with the approval as the fix.
    let (csr_yaml, csr_json) = scenes::PENDING_CSRS;
    let stalled = scenes::waiting_for_the_control_plane(
        &scenes::config_served("01:08:12", "192.0.2.21"),
        "2026-01-01T01:40:00Z",
    )?
    .api_resource("csr", csr_yaml)?
    .api_resource_json("csr", csr_json)?;
    let output = watch(&stalled, &out, dns_port, &["--stall-after", "1"])?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains("stages done: mco-bootstrap; configs served to control-plane machines: 1; CSRs pending: 2"),
        "a progress line while it waits: {stderr}"
    );
    assert!(stdout.contains("did not complete within 1 s"), "{stdout}");
    assert!(
        stdout.contains("bootkube.service never finished: stage cb-bootstrap did not end"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Cause: Certificate signing requests are pending"),
        "{stdout}"
    );
    assert!(stdout.contains("resources/csr.yaml"), "{stdout}");
    assert!(stdout.contains("oc adm certificate approve"), "{stdout}");

    // The API lists the CSRs to the watch but is not ready when the gather runs, so the bundle
    // has no cluster state: the CSRs the watch saw name the cause.
    let unready = scenes::waiting_for_the_control_plane(
        &scenes::config_served("01:08:12", "192.0.2.21"),
        "2026-01-01T01:40:00Z",
    )?
    .api_resource("csr", csr_yaml)?
    .api_resource_json("csr", csr_json)?
    .api_not_ready()?;
    let output = watch(&unready, &out, dns_port, &["--stall-after", "1"])?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("Cause: Certificate signing requests are pending"),
        "{stdout}"
    );
    assert!(stdout.contains("check-watch/csr.json:"), "{stdout}");
    assert!(!stdout.contains("resources/csr.yaml"), "{stdout}");
    Ok(())
}

/// A cause as `check --watch` must name it when a live bootstrap shows it.
struct Live {
    /// diagnose's name of the cause (`--json`).
    cause: &'static str,
    /// The scripted bootstrap.
    node: FailingNode,
    /// A fragment of the cause's sentence.
    sentence: String,
    /// A fragment of the fix.
    fix: &'static str,
}

/// A bootstrap whose release-image-download.sh cannot pull the release image and, as it does
/// by default, keeps trying: `error` is what podman said.
fn pull_retries(error: &str) -> TestResult<FailingNode> {
    Ok(FailingNode::new(None)?
        .journal(
            "release-image.service",
            &journal_line("release-image-download.sh[1201]", &format!(
                "Pull of release image quay.io/openshift-release-dev/ocp-release@sha256:4f1e failed (attempt 12): {error}"
            )),
        )?
        .service(
            "release-image",
            "record_service_stage_start pull-release-image\nkill -KILL $$",
        )?)
}

/// A bootstrap whose bootkube is in `stage` (after openshift-manifests), with `journal` in its
/// journal; with `failed`, the stage failed (bootkube.service is restarted: systemd lists no
/// failed unit), else it is still running.
fn bootkube_in(stage: &str, journal: &str, failed: bool) -> TestResult<FailingNode> {
    let end = if failed { "exit 1" } else { "kill -KILL $$" };
    Ok(FailingNode::release_pulled()?
        .journal("bootkube.service", journal)?
        .service(
            "bootkube",
            &format!(
                "record_service_stage_start openshift-manifests\nrecord_service_stage_success\n\
                 record_service_stage_start {stage}\n{end}"
            ),
        )?
        .file("/opt/openshift/openshift-manifests.done", "")?)
}

/// Every cause `diagnose` knows (`diagnose/src/causes.rs`), as a live bootstrap shows it:
/// each one can, so none is left out. Most show as a stall: release-image-download.sh retries a
/// pull forever and bootkube.service is restarted on failure, so systemd lists no failed unit
/// and the watch waits until --stall-after; crio.service, kubelet.service and a release image
/// of the wrong architecture fail for good, which the watch sees at once. The watch gathers the
/// bootstrap node only (it is told no control-plane address), so a control-plane kubelet's own
/// complaint is not in its bundle: pending CSRs show through the API, as above.
fn live_causes(api_int: &str) -> TestResult<Vec<Live>> {
    let x509_time = |relation: &str, time: &str| {
        format!("Error: Get \"https://localhost:6443/api?timeout=32s\": tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time {time} {relation} 2026-01-01T01:00:00Z")
    };
    Ok(vec![
        Live {
            cause: "disk-full",
            node: pull_retries("Error: writing blob: storing blob to file \"/var/tmp/storage2841/1\": write /var/tmp/storage2841/1: no space left on device")?,
            sentence: "is full".into(),
            fix: "df -h",
        },
        Live {
            cause: "certificate-not-yet-valid",
            node: bootkube_in("cb-bootstrap", &journal_line("bootkube.sh[2001]", &x509_time("is before", "2025-12-31T23:00:00Z")), false)?,
            sentence: "clock is behind".into(),
            fix: "chronyc",
        },
        Live {
            cause: "certificate-expired",
            node: bootkube_in("cb-bootstrap", &journal_line("bootkube.sh[2001]", &x509_time("is after", "2026-01-03T01:05:00Z")), false)?,
            sentence: "has expired".into(),
            fix: "--renew-expired",
        },
        Live {
            cause: "architecture-mismatch",
            node: FailingNode::new(None)?
                .service(
                    "release-image",
                    "record_service_stage_start pull-release-image\nrecord_service_stage_success\n\
                     record_service_stage_start image-metadata-arches-match\n\
                     record_service_stage_failure 'Release image architecture mismatch: quay.io/openshift-release-dev/ocp-release@sha256:4f1e is a single-architecture arm64 payload, but this host is amd64'\nexit 1",
                )?
                .failed_unit("release-image.service")?,
            sentence: "another CPU architecture".into(),
            fix: "--arch",
        },
        Live {
            cause: "tag-from-blocked-source",
            node: pull_retries("Error: initializing source docker://quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64: registry quay.io/openshift-release-dev/ocp-release is blocked in /etc/containers/registries.conf or /etc/containers/registries.conf.d")?,
            sentence: "whose source is blocked".into(),
            fix: "@sha256:",
        },
        Live {
            cause: "pull-unauthorized",
            node: pull_retries("Error: initializing source docker://mirror.lab:8443/ocp/release@sha256:4f1e: reading manifest sha256:4f1e in mirror.lab:8443/ocp/release: unauthorized: authentication required")?,
            sentence: "refused the pull (unauthorized)".into(),
            fix: "--registry-auth",
        },
        Live {
            cause: "unknown-authority",
            node: pull_retries("Error: initializing source docker://mirror.lab:8443/ocp/release@sha256:4f1e: pinging container registry mirror.lab:8443: Get \"https://mirror.lab:8443/v2/\": tls: failed to verify certificate: x509: certificate signed by unknown authority")?,
            sentence: "mirror.lab".into(),
            fix: "--trust-bundle",
        },
        Live {
            cause: "machine-config-server-unreachable",
            // Nothing asked the server for a config in the 37 minutes since it started.
            node: scenes::waiting_for_the_control_plane("", "2026-01-01T01:40:00Z")?,
            sentence: "never reached the machine-config server".into(),
            fix: "22623/config/master",
        },
        Live {
            cause: "name-resolution",
            node: bootkube_in(
                "resolve-api-int-url",
                &(journal_line("bootkube.sh[2001]", &format!("{api_int} does not resolve yet (attempt 60)"))
                    + &journal_line("bootkube.sh[2001]", &format!("lookup {api_int} on 192.0.2.53:53: no such host"))),
                false,
            )?,
            sentence: format!("The name {api_int} does not resolve"),
            fix: "dig +short",
        },
        Live {
            cause: "unknown-flag",
            node: bootkube_in(
                "etcd-bootstrap",
                &(journal_line("bootkube.sh[2001]", "Rendering CEO Manifests...")
                    + &journal_line("bootkube.sh[2001]", "Error: unknown flag: --cluster-configmap-file")),
                true,
            )?,
            sentence: "--cluster-configmap-file".into(),
            fix: "oc adm release info",
        },
        Live {
            cause: "runtime-failed",
            node: bootkube_in("wait-for-etcd", &journal_line("bootkube.sh[2001]", "Waiting for etcd cluster..."), false)?
                .journal(
                    "crio.service",
                    &(journal_line("crio[1500]", "time=\"2026-01-01 01:05:00Z\" level=fatal msg=\"validating runtime config: invalid conmon path\"")
                        + &journal_line("systemd[1]", "crio.service: Failed with result 'exit-code'.")
                        + &journal_line("systemd[1]", "Failed to start Container Runtime Interface for OCI (CRI-O).")),
                )?
                .failed_unit("crio.service")?,
            sentence: "crio.service failed to start".into(),
            fix: "journalctl -b -u crio.service",
        },
        Live {
            cause: "etcd-address-not-local",
            node: bootkube_in("wait-for-etcd", &journal_line("bootkube.sh[2001]", "Waiting for etcd cluster..."), false)?
                .crio_container(
                    "etcd",
                    "4e5f6a7b8c9d",
                    "{\"level\":\"fatal\",\"ts\":\"2026-01-01T01:05:00.000Z\",\"caller\":\"etcdmain/etcd.go:204\",\"msg\":\"discovery failed\",\"error\":\"listen tcp 192.0.2.99:2380: bind: cannot assign requested address\"}\n",
                )?,
            sentence: "192.0.2.99:2380".into(),
            fix: "ip -brief address",
        },
        Live {
            cause: "etcd-unhealthy",
            node: bootkube_in("wait-for-etcd", &journal_line("bootkube.sh[2001]", "Waiting for etcd cluster..."), false)?
                .crio_container(
                    "etcd",
                    "9a8b7c6d5e4f",
                    "{\"level\":\"warn\",\"ts\":\"2026-01-01T01:05:07.000Z\",\"msg\":\"failed to publish local member to cluster through raft\",\"error\":\"etcdserver: request timed out\"}\n",
                )?,
            sentence: "quorum".into(),
            fix: "crictl",
        },
        Live {
            cause: "unit-held",
            node: FailingNode::release_pulled()?.journal(
                "bootkube.service",
                &journal_line("systemd[1]", "bootkube.service was skipped because of an unmet condition check (ConditionPathExists=!/etc/bootgen/hold/bootkube.service)."),
            )?,
            sentence: "bootkube.service was held".into(),
            fix: "bootgen-release bootkube.service",
        },
        Live {
            cause: "csr-pending",
            node: scenes::waiting_for_the_control_plane(
                &scenes::config_served("01:08:12", "192.0.2.21"),
                "2026-01-01T01:40:00Z",
            )?
            .api_resource("csr", scenes::PENDING_CSRS.0)?
            .api_resource_json("csr", scenes::PENDING_CSRS.1)?,
            sentence: "Certificate signing requests are pending".into(),
            fix: "oc adm certificate approve",
        },
        Live {
            cause: "api-server-crashed",
            node: bootkube_in("cb-bootstrap", &journal_line("bootkube.sh[2001]", "Starting cluster-bootstrap..."), false)?
                .podman_container(
                    "cluster-bootstrap",
                    "1a2b3c4d5e6f",
                    "E0101 01:05:30.000000       1 reflector.go:140] failed to list *v1.Pod: Get \"https://localhost:6443/api/v1/pods\": dial tcp [::1]:6443: connect: connection refused\n",
                )?
                .crio_container(
                    "kube-apiserver",
                    "7c8d9e0f1a2b",
                    "E0101 01:05:00.000000       1 run.go:72] \"command failed\" err=\"open /etc/kubernetes/bootstrap-secrets/etcd-client.crt: no such file or directory\"\n",
                )?,
            sentence: "kube-apiserver container exited".into(),
            fix: "crictl logs",
        },
        Live {
            cause: "api-unreachable",
            node: bootkube_in("cb-bootstrap", &journal_line("bootkube.sh[2001]", "Starting cluster-bootstrap..."), false)?
                .podman_container(
                    "cluster-bootstrap",
                    "1a2b3c4d5e6f",
                    "Starting temporary bootstrap control plane...\n\
                     E0101 01:05:00.000000       1 reflector.go:140] failed to list *v1.Pod: Get \"https://localhost:6443/api/v1/pods\": dial tcp [::1]:6443: connect: connection refused\n",
                )?,
            sentence: "6443".into(),
            fix: "kube-apiserver",
        },
    ])
}

#[test]
fn watch_names_the_cause_and_fix_of_each_stall_a_live_bootstrap_shows() -> TestResult {
    let Some(cluster) = ExampleCluster::start()? else {
        return Ok(());
    };
    let (out, dns_port) = (cluster.out.clone(), cluster.dns_port);
    let api_int = format!("api-int.{DOMAIN}");
    let cases = live_causes(&api_int)?;
    // Every cause diagnose knows is here, once.
    let mut scripted: Vec<String> = cases.iter().map(|case| case.cause.to_string()).collect();
    let mut known: Vec<String> = bootgen::diagnose::Cause::all()
        .map(|cause| {
            serde_json::to_value(cause).map(|name| name.as_str().unwrap_or("").to_string())
        })
        .collect::<Result<_, _>>()?;
    scripted.sort();
    known.sort();
    assert_eq!(
        scripted, known,
        "one scripted bootstrap per cause diagnose knows"
    );
    for case in cases {
        let output = watch(&case.node, &out, dns_port, &["--stall-after", "1"])?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let said = format!("{}:\n{stdout}{stderr}", case.cause);
        assert_eq!(output.status.code(), Some(1), "{said}");
        let cause = stdout
            .lines()
            .find_map(|l| l.strip_prefix("Cause: "))
            .ok_or_else(|| format!("no cause printed: {said}"))?;
        assert!(cause.contains(&case.sentence), "{said}");
        let fix = stdout
            .split("\nFix:\n  ")
            .nth(1)
            .and_then(|rest| rest.lines().next())
            .ok_or_else(|| format!("no fix printed: {said}"))?;
        assert!(fix.contains(case.fix), "{said}");
        // The bundle the watch copied is diagnosed with that cause, by its name.
        let bundle = out.join("log-bundle-bootgen-watch.tar.gz");
        let diagnosed = bootgen_conformance::bootgen!()
            .args(["diagnose", "--json"])
            .arg(&bundle)
            .output()?;
        let report: Value = serde_json::from_slice(&diagnosed.stdout)?;
        assert_eq!(report["failure"]["cause"], case.cause, "{said}");
        fs::remove_file(&bundle)?;
    }
    Ok(())
}

#[test]
fn ssh_to_the_bootstrap_machine_is_tested_when_given_its_address() -> TestResult {
    let Some(cluster) = ExampleCluster::start()? else {
        return Ok(());
    };
    let (out, dns_port) = (cluster.out.clone(), cluster.dns_port);
    let node = FailingNode::release_pulled()?;

    let output = check_node(&node, &out, dns_port, &["--json"])?.output()?;
    let report: Value = serde_json::from_slice(&output.stdout)?;
    let ssh = finding(&report, "bootstrap", "192.0.2.20")?;
    assert_eq!(ssh["status"], "pass", "{ssh:#}");
    assert!(
        report["contacts"].to_string().contains("192.0.2.20:22"),
        "{report:#}"
    );

    let output = check_node(&node, &out, dns_port, &["--json"])?
        .env("WATCH_SSH_DENY", "1")
        .output()?;
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout)?;
    assert_fails(
        &report,
        "bootstrap",
        "192.0.2.20",
        "Permission denied (publickey)",
        "booted this output's bootstrap.ign",
    )?;
    Ok(())
}

#[test]
fn unreadable_configs_exit_1_naming_the_file() -> TestResult {
    let work = tempfile::tempdir()?;
    let work = work.path();
    let not_config = work.join("not-a-cluster.ign");
    fs::write(&not_config, r#"{"ignition":{"version":"3.2.0"}}"#)?;
    for (input, said) in [
        (work.join("missing"), "cannot read".to_string()),
        (
            work.to_path_buf(),
            format!("{}/bootstrap.ign", work.display()),
        ),
        (
            not_config.clone(),
            format!("{}: holds no install-config", not_config.display()),
        ),
    ] {
        let output = bootgen_conformance::bootgen!()
            .arg("check")
            .arg(&input)
            .output()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(&said), "{said:?} not in {stderr}");
        assert!(output.stdout.is_empty());
    }
    Ok(())
}

/// A TLS server (Python's ssl) on `address` that answers each request as `mode` says:
/// `endless-head` (a header that never ends, as fast as it is read), `endless-body` (a chunked
/// body without end), `trickle-head` (a byte of head every half second), `reset` (no TLS: each
/// connection accepted and reset at once).
fn start_hostile(address: &str, mode: &str, cert: &Path, key: &Path) -> TestResult<Server> {
    const HOSTILE: &str = r#"
import socket, ssl, struct, sys, threading, time
host, port = sys.argv[1].rsplit(":", 1)
mode = sys.argv[2]
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[3], sys.argv[4])
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind((host, int(port)))
listener.listen(64)
def answer(connection):
    try:
        if mode == "reset":
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            connection.close()
            return
        connection = context.wrap_socket(connection, server_side=True)
        connection.recv(4096)
        if mode == "endless-head":
            connection.sendall(b"HTTP/1.1 200 OK\r\nX-Endless: ")
            while True:
                connection.sendall(b"a" * 65536)
        elif mode == "endless-body":
            connection.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            while True:
                connection.sendall(b"10000\r\n" + b"{" * 65536 + b"\r\n")
        elif mode == "trickle-head":
            for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"b" * 1000:
                connection.sendall(bytes([byte]))
                time.sleep(0.5)
    except OSError:
        pass
while True:
    threading.Thread(target=answer, args=(listener.accept()[0],), daemon=True).start()
"#;
    let child = Command::new("python3")
        .args(["-c", HOSTILE, address, mode])
        .arg(cert)
        .arg(key)
        .spawn()?;
    let server = Server::from_child(child);
    bootgen_conformance::loopback::wait_for_listener(address)?;
    Ok(server)
}

/// The finding about the machine-config server's port whose status is `status`.
fn on_port<'a>(report: &'a Value, port: u16, status: &str) -> TestResult<&'a Value> {
    findings(report)
        .into_iter()
        .find(|f| {
            f["status"] == status
                && f["target"]
                    .as_str()
                    .is_some_and(|t| t.contains(&format!(":{port}")))
        })
        .ok_or_else(|| format!("no {status} finding on port {port}: {report:#}").into())
}

/// Servers that send without end, or a byte at a time, are cut off by the exchange's one
/// deadline and by the limits of a head and of a config's body: `check` ends in about its
/// time limits, not the minutes an endless stream would take to reach the largest limit.
#[test]
fn endless_and_trickling_servers_are_cut_off_at_their_limits() -> TestResult {
    let Some(cluster) = ExampleCluster::start()? else {
        return Ok(());
    };
    let (out, dns_port) = (cluster.out.clone(), cluster.dns_port);
    let (api_cert, api_key) = tls(&out, "kube-apiserver-lb-server");
    let (mcs_cert, mcs_key) = tls(&out, "machine-config-server");
    for (mode, evidence) in [
        ("endless-head", "the response's head is larger than 64 KiB"),
        (
            "endless-body",
            "the response's body is larger than the 16 MiB an Ignition config may hold",
        ),
        ("trickle-head", "did not arrive in time"),
    ] {
        let (api_port, mcs_port) = (free_tcp_port()?, free_tcp_port()?);
        // The API trickles its head: the /readyz its Date is read from must not hold check up.
        let _api = start_hostile(
            &format!("127.0.0.1:{api_port}"),
            "trickle-head",
            &api_cert,
            &api_key,
        )?;
        let _mcs = start_hostile(&format!("127.0.0.2:{mcs_port}"), mode, &mcs_cert, &mcs_key)?;
        let started = std::time::Instant::now();
        let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
        let took = started.elapsed();
        assert_eq!(code, 1, "{mode}: {report:#}");
        let cut = on_port(&report, mcs_port, "fail")?;
        assert!(
            cut["evidence"]
                .as_str()
                .is_some_and(|e| e.contains(evidence)),
            "{mode}: {cut:#}"
        );
        // Three exchanges of 2 s may each run to their deadline, plus DNS and the handshakes.
        assert!(
            took < std::time::Duration::from_secs(30),
            "{mode}: check took {took:?}"
        );
    }
    Ok(())
}

/// A listener that accepts and resets (a load balancer with no server behind it) gets the same
/// verdict every run, a warning that says the connection was reset; a port nobody listens on
/// fails as refused; and the tests that could not run behind them are listed as skipped and
/// counted in the last line.
#[test]
fn a_reset_listener_gets_one_verdict_and_what_was_not_tested_is_listed() -> TestResult {
    let Some(cluster) = ExampleCluster::start()? else {
        return Ok(());
    };
    let (out, dns_port) = (cluster.out.clone(), cluster.dns_port);
    let (api_port, mcs_port) = (free_tcp_port()?, free_tcp_port()?);
    let (cert, key) = tls(&out, "kube-apiserver-lb-server");
    let _api = start_hostile(&format!("127.0.0.1:{api_port}"), "reset", &cert, &key)?;
    let api = format!("api.{DOMAIN}:{api_port}");
    for run in 0..6 {
        let (code, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
        assert_eq!(code, 1, "{report:#}");
        let reset = finding(&report, "load balancer", &api)?;
        assert_eq!(reset["status"], "warn", "run {run}: {reset:#}");
        assert!(
            reset["what"]
                .as_str()
                .is_some_and(|w| w.starts_with("accepts connections")),
            "run {run}: {reset:#}"
        );
        assert!(
            reset["evidence"]
                .as_str()
                .is_some_and(|e| e.contains("reset") || e.contains("closed the connection")),
            "run {run}: {reset:#}"
        );
    }
    // Nothing listens on api-int's ports: refused, and its certificate (and for 22623 the
    // config) listed as not tested.
    let output = bootgen_conformance::bootgen!()
        .arg("check")
        .arg(&out)
        .arg("--dns-server")
        .arg(format!("127.0.0.1:{dns_port}"))
        .args(["--api-port", &api_port.to_string()])
        .args(["--machine-config-port", &mcs_port.to_string()])
        .args(["--timeout", "2"])
        .output()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!(
            "FAIL load balancer  api-int.{DOMAIN}:{api_port} (127.0.0.2): refuses connections on port {api_port}: nothing listens there"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "skip load balancer  api-int.{DOMAIN}:{mcs_port} (127.0.0.2): not tested: its certificate and GET /config/master\n       because: no connection was made"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("skip time           this machine's clock: not tested"),
        "{stdout}"
    );
    assert_summary_counts(&stdout);
    Ok(())
}

/// A server that presents a CA's own certificate is named in words, not in the TLS library's.
#[test]
fn a_ca_presented_as_a_server_certificate_is_said_in_words() -> TestResult {
    let Some(cluster) = ExampleCluster::start()? else {
        return Ok(());
    };
    let (out, dns_port) = (cluster.out.clone(), cluster.dns_port);
    let (api_port, mcs_port) = (free_tcp_port()?, free_tcp_port()?);
    let (ca_cert, ca_key) = tls(&out, "root-ca");
    let _mcs = start_tls(&format!("127.0.0.2:{mcs_port}"), &ca_cert, &ca_key, None)?;
    let (_, report, _) = check(&out, dns_port, api_port, mcs_port, &[])?;
    let refused = on_port(&report, mcs_port, "fail")?;
    let evidence = refused["evidence"].as_str().unwrap_or_default();
    assert!(
        evidence.contains("the server presents a CA certificate as its own"),
        "{refused:#}"
    );
    assert!(
        !evidence.contains("CaUsedAsEndEntity") && !evidence.contains("OtherError"),
        "{refused:#}"
    );
    Ok(())
}
