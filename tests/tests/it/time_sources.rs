//! The hosts file's `additionalNTPSources`, judged by the real tools: Debian's `chronyd` parses
//! the chrony configuration bootgen writes (`chronyd -p`); the real Ignition validator takes the
//! MachineConfigs' configs and the real Ignition writes each one's `/etc/chrony.conf`, the same
//! as the bootstrap's; and `bootgen check` asks a real `chronyd` serving NTP on a loopback port
//! for the time, naming a source that does not answer and one that has no address.

use bootgen_conformance::loopback::{free_udp_port, start_dns, Server};
use bootgen_conformance::{ignition_validate, repo, tools_present, BaseRoot, IgnitionView};
use serde_json::Value;
use std::fs;
use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHRONYD: &str = "/usr/sbin/chronyd";
const DNSMASQ: &str = "/usr/sbin/dnsmasq";

/// The static-network fixture cluster with `sources` as its additionalNTPSources, generated
/// into `dir/out`.
fn cluster_with_sources(dir: &Path, sources: &[&str]) -> PathBuf {
    let text = fs::read_to_string(repo().join("fixtures/network/agent-config.yaml")).unwrap();
    let list: String = sources.iter().map(|s| format!("- {s}\n")).collect();
    let hosts = dir.join("agent-config.yaml");
    fs::write(&hosts, format!("additionalNTPSources:\n{list}{text}")).unwrap();
    let out = dir.join("out");
    let output =
        bootgen_conformance::static_network_ignition(bootgen_conformance::bootgen!(), &hosts)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("additionalNTPSources"), "{stderr}");
    out
}

/// The chrony configuration, and the MachineConfigs, the bootstrap config carries.
#[test]
fn every_node_gets_the_sources_in_a_configuration_chronyd_reads() {
    let dir = tempfile::tempdir().unwrap();
    let out = cluster_with_sources(dir.path(), &["ntp1.lab.example", "192.0.2.5"]);
    let view = IgnitionView::load(&out.join("bootstrap.ign")).unwrap();
    let text = |path: &str| {
        let file = view
            .files
            .get(path)
            .unwrap_or_else(|| panic!("the bootstrap config writes no {path}"));
        String::from_utf8(file.expected(None)).unwrap()
    };
    let chrony = text("/etc/chrony.conf");
    assert!(
        chrony.contains("server ntp1.lab.example iburst\nserver 192.0.2.5 iburst\n"),
        "{chrony}"
    );
    if tools_present(&[CHRONYD]) {
        let conf = dir.path().join("chrony.conf");
        fs::write(&conf, &chrony).unwrap();
        let parsed = Command::new(CHRONYD)
            .arg("-p")
            .arg("-f")
            .arg(&conf)
            .output()
            .unwrap();
        let printed = String::from_utf8_lossy(&parsed.stdout);
        assert!(
            parsed.status.success(),
            "{printed}{}",
            String::from_utf8_lossy(&parsed.stderr)
        );
        assert!(
            printed.contains("server ntp1.lab.example iburst"),
            "{printed}"
        );
    }
    for role in ["master", "worker"] {
        let manifest = text(&format!(
            "/opt/openshift/openshift/50-{role}s-chrony-configuration.yaml"
        ));
        let manifest: Value = serde_yaml_ng::from_str(&manifest).unwrap();
        assert_eq!(
            manifest["metadata"]["labels"]["machineconfiguration.openshift.io/role"],
            role
        );
        assert_eq!(
            manifest["metadata"]["name"],
            format!("50-{role}s-chrony-configuration")
        );
        let config = dir.path().join(format!("{role}-machine-config.ign"));
        fs::write(
            &config,
            serde_json::to_vec(&manifest["spec"]["config"]).unwrap(),
        )
        .unwrap();
        let (valid, report) = ignition_validate(&config);
        assert!(valid, "{role}: {report}");
        // What the machine-config daemon writes, as the real Ignition writes it.
        if let Some(root) = BaseRoot::new()
            .seed("/etc/chrony.conf", b"pool 2.rhel.pool.ntp.org iburst\n")
            .apply(&config)
            .unwrap()
        {
            assert_eq!(
                fs::read_to_string(root.join("/etc/chrony.conf")).unwrap(),
                chrony,
                "{role}"
            );
        }
    }
}

/// chronyd serving NTP on `127.0.0.1:port`, without touching this machine's clock; killed when
/// dropped.
fn start_chronyd(dir: &Path, port: u16) -> Server {
    let conf = dir.join("chronyd-server.conf");
    fs::write(
        &conf,
        format!(
            "port {port}\nbindaddress 127.0.0.1\nallow 127.0.0.1\nlocal stratum 8\ncmdport 0\npidfile {pid}\ndriftfile {drift}\n",
            pid = dir.join("chronyd.pid").display(),
            drift = dir.join("chronyd.drift").display(),
        ),
    )
    .unwrap();
    let child = Command::new(CHRONYD)
        .args(["-d", "-x", "-u", "root", "-f"])
        .arg(&conf)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(fs::File::create(dir.join("chronyd.log")).unwrap())
        .spawn()
        .unwrap();
    let server = Server::from_child(child);
    // Up when it answers an SNTP request (version 4, client mode).
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut request = [0u8; 48];
    request[0] = 0x23;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        socket.send_to(&request, ("127.0.0.1", port)).unwrap();
        let mut reply = [0u8; 48];
        if socket.recv_from(&mut reply).is_ok() {
            return server;
        }
        assert!(
            Instant::now() < deadline,
            "chronyd did not answer: {}",
            fs::read_to_string(dir.join("chronyd.log")).unwrap_or_default()
        );
    }
}

/// `check` asks each source for the time: chronyd answers, by address and by a name the DNS
/// server gives; a silent address and a name with no address fail, naming the source, the
/// address and what to do; only the DNS server and the sources' addresses on the NTP port were
/// contacted for them.
#[test]
fn check_asks_each_ntp_source_for_the_time() {
    if !tools_present(&[CHRONYD, DNSMASQ]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = cluster_with_sources(
        dir.path(),
        &[
            "127.0.0.1",
            "ntp.lab.example",
            "127.0.0.3",
            "gone.lab.example",
        ],
    );
    let ntp_port = free_udp_port().unwrap();
    let _chronyd = start_chronyd(dir.path(), ntp_port);
    let dns_port = free_udp_port().unwrap();
    let _dns = start_dns(
        dir.path(),
        dns_port,
        &["/ntp.lab.example/127.0.0.1".to_string()],
    )
    .unwrap();
    let output = bootgen_conformance::bootgen!()
        .arg("check")
        .arg(&out)
        .arg(format!("--dns-server=127.0.0.1:{dns_port}"))
        .arg(format!("--ntp-port={ntp_port}"))
        .args(["--timeout", "2", "--json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let time: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["area"] == "time")
        .collect();
    let status = |target: &str| {
        time.iter()
            .find(|f| f["target"] == target)
            .unwrap_or_else(|| panic!("no {target} in {time:#?}"))
    };
    assert_eq!(
        status("NTP server 127.0.0.1")["status"],
        "pass",
        "{time:#?}"
    );
    assert_eq!(
        status("NTP server ntp.lab.example")["status"],
        "pass",
        "{time:#?}"
    );
    // chronyd's time, compared with this machine's clock (the same clock: they agree).
    let clock = format!("NTP server 127.0.0.1 (127.0.0.1:{ntp_port})");
    assert_eq!(status(&clock)["status"], "pass", "{time:#?}");
    let silent = status("NTP server 127.0.0.3");
    assert_eq!(silent["status"], "fail");
    assert!(
        silent["evidence"]
            .as_str()
            .unwrap()
            .starts_with(&format!("127.0.0.3:{ntp_port}: ")),
        "{silent:#}"
    );
    assert!(
        silent["fix"].as_str().unwrap().contains("UDP port"),
        "{silent:#}"
    );
    let gone = status("NTP server gone.lab.example");
    assert_eq!(gone["status"], "fail");
    assert!(
        gone["fix"]
            .as_str()
            .unwrap()
            .contains("add gone.lab.example to DNS"),
        "{gone:#}"
    );
    assert_eq!(output.status.code(), Some(1));
    for contact in report["contacts"].as_array().unwrap() {
        if contact["kind"] == "ntp" {
            let address = contact["address"].as_str().unwrap();
            assert!(
                [
                    format!("127.0.0.1:{ntp_port}"),
                    format!("127.0.0.3:{ntp_port}")
                ]
                .iter()
                .any(|a| a == address),
                "asked {contact}"
            );
        }
    }
}
