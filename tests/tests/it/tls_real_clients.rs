//! The generated PKI against real TLS software: OpenSSL's verifier, a real Go TLS server (etcd)
//! and Go clients (etcdctl, kubectl), and OpenSSH's key loader.
//!
//! Needs `openssl`, `etcd`, `etcdctl` and `kubectl` on PATH (Debian: openssl, etcd-server,
//! etcd-client, kubectl); `.ci/run` installs them. A missing tool fails the test rather than
//! skipping it, except `ssh-keygen`, which is optional.

use std::error::Error;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use bootgen::pki::{KeyAlgorithm, KubeconfigKind, Pki, PkiRequest};

type TestResult<T = ()> = Result<T, Box<dyn Error>>;

/// A PKI generated now (real clock, so the 1-day certificates are valid) into a temp dir.
fn generate(algorithm: KeyAlgorithm) -> TestResult<(tempfile::TempDir, Pki)> {
    let dir = tempfile::tempdir()?;
    let request = PkiRequest {
        cluster_name: "example".into(),
        api_host: "api.example.example.com".into(),
        api_int_host: "api-int.example.example.com".into(),
        service_network_ips: vec!["172.30.0.1".parse()?, "fd02::1".parse()?],
        machine_config_server_ips: Vec::new(),
        kubelet_client_in_all_service_accounts: true,
        key_algorithm: algorithm,
        signer_key_algorithm: algorithm,
        now: time::OffsetDateTime::now_utc(),
        lifetimes: Default::default(),
        renew_expired: false,
    };
    let (pki, _) = Pki::build(&request, None)?;
    for file in pki.store_files() {
        std::fs::write(dir.path().join(&file.name), &file.contents)?;
    }
    Ok((dir, pki))
}

fn run(program: &str, args: &[&str]) -> TestResult<Output> {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {program} (is it installed?): {e}").into())
}

fn describe(output: &Output) -> String {
    format!(
        "status {}\nstdout: {}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn path_str(path: &Path) -> TestResult<&str> {
    path.to_str().ok_or_else(|| "non-UTF-8 temp path".into())
}

/// (leaf, CA file it must verify against, purposes). Written from the installer's certificate
/// table, not from bootgen's: each client
/// certificate against the bundle its server trusts, each serving certificate against the bundle
/// its clients trust.
const VERIFY: &[(&str, &str, &[&str])] = &[
    (
        "admin-kubeconfig-client",
        "admin-kubeconfig-ca-bundle",
        &["sslclient"],
    ),
    (
        "admin-kubeconfig-client",
        "kube-apiserver-complete-client-ca-bundle",
        &["sslclient"],
    ),
    ("apiserver-proxy", "aggregator-ca", &["sslclient"]),
    ("aggregator-client", "aggregator-ca-bundle", &["sslclient"]),
    (
        "kube-apiserver-to-kubelet-client",
        "kube-apiserver-to-kubelet-ca-bundle",
        &["sslclient"],
    ),
    (
        "kube-apiserver-to-kubelet-client",
        "kube-apiserver-complete-client-ca-bundle",
        &["sslclient"],
    ),
    (
        "kube-apiserver-localhost-server",
        "kube-apiserver-localhost-ca-bundle",
        &["sslserver"],
    ),
    (
        "kube-apiserver-localhost-server",
        "kube-apiserver-complete-server-ca-bundle",
        &["sslserver"],
    ),
    (
        "kube-apiserver-service-network-server",
        "kube-apiserver-service-network-ca-bundle",
        &["sslserver"],
    ),
    (
        "kube-apiserver-service-network-server",
        "kube-apiserver-complete-server-ca-bundle",
        &["sslserver"],
    ),
    (
        "kube-apiserver-lb-server",
        "kube-apiserver-lb-ca-bundle",
        &["sslserver"],
    ),
    (
        "kube-apiserver-internal-lb-server",
        "kube-apiserver-lb-ca-bundle",
        &["sslserver"],
    ),
    (
        "kube-apiserver-internal-lb-server",
        "kube-control-plane-ca-bundle",
        &["sslserver"],
    ),
    (
        "kube-control-plane-kube-controller-manager-client",
        "kube-control-plane-ca-bundle",
        &["sslclient"],
    ),
    (
        "kube-control-plane-kube-scheduler-client",
        "kube-apiserver-complete-client-ca-bundle",
        &["sslclient"],
    ),
    (
        "kubelet-client",
        "kubelet-bootstrap-kubeconfig-ca-bundle",
        &["sslclient"],
    ),
    (
        "kubelet-client",
        "kube-apiserver-complete-client-ca-bundle",
        &["sslclient"],
    ),
    ("machine-config-server", "root-ca", &["sslserver"]),
    ("journal-gatewayd", "root-ca", &["sslserver", "sslclient"]),
];

fn openssl_verify(dir: &Path, leaf: &str, ca: &str, purpose: &str) -> TestResult<Output> {
    let ca_file = dir.join(format!("{ca}.crt"));
    let leaf_file = dir.join(format!("{leaf}.crt"));
    run(
        "openssl",
        &[
            "verify",
            "-x509_strict",
            "-purpose",
            purpose,
            "-CAfile",
            path_str(&ca_file)?,
            path_str(&leaf_file)?,
        ],
    )
}

#[test]
fn openssl_verifies_every_leaf_against_its_bundle() -> TestResult {
    for algorithm in [
        KeyAlgorithm::Rsa2048,
        KeyAlgorithm::EcdsaP256,
        KeyAlgorithm::EcdsaP384,
    ] {
        let (dir, _pki) = generate(algorithm)?;
        for (leaf, ca, purposes) in VERIFY {
            for purpose in *purposes {
                let output = openssl_verify(dir.path(), leaf, ca, purpose)?;
                assert!(
                    output.status.success(),
                    "{algorithm}: {leaf} against {ca} for {purpose}: {}",
                    describe(&output)
                );
            }
        }
        // The verifier does discriminate: wrong CA, wrong purpose.
        let wrong_ca = openssl_verify(
            dir.path(),
            "kube-apiserver-lb-server",
            "kube-apiserver-localhost-ca-bundle",
            "sslserver",
        )?;
        assert!(!wrong_ca.status.success(), "{}", describe(&wrong_ca));
        let wrong_purpose = openssl_verify(
            dir.path(),
            "aggregator-client",
            "aggregator-ca-bundle",
            "sslserver",
        )?;
        assert!(
            !wrong_purpose.status.success(),
            "{}",
            describe(&wrong_purpose)
        );
    }
    Ok(())
}

/// etcd, killed when dropped.
struct Etcd {
    child: Child,
    log: PathBuf,
}

impl Drop for Etcd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Etcd {
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// A port that is free on both 127.0.0.1 and 127.0.0.2 right now.
fn free_port() -> TestResult<u16> {
    for _ in 0..50 {
        let first = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let port = first.local_addr()?.port();
        if TcpListener::bind((Ipv4Addr::new(127, 0, 0, 2), port)).is_ok() {
            return Ok(port);
        }
    }
    Err("no free port".into())
}

fn start_etcd(dir: &Path, client_port: u16) -> TestResult<Etcd> {
    let peer_port = free_port()?;
    let peer = format!("http://127.0.0.1:{peer_port}");
    let log = dir.join("etcd.log");
    let log_file = std::fs::File::create(&log)?;
    let child = Command::new("etcd")
        .args([
            "--name=bootgen-test",
            &format!("--data-dir={}", path_str(&dir.join("etcd-data"))?),
            &format!("--listen-client-urls=https://127.0.0.1:{client_port},https://127.0.0.2:{client_port}"),
            &format!("--advertise-client-urls=https://127.0.0.1:{client_port}"),
            &format!("--listen-peer-urls={peer}"),
            &format!("--initial-advertise-peer-urls={peer}"),
            &format!("--initial-cluster=bootgen-test={peer}"),
            &format!("--cert-file={}", path_str(&dir.join("kube-apiserver-localhost-server.crt"))?),
            &format!("--key-file={}", path_str(&dir.join("kube-apiserver-localhost-server.key"))?),
            "--client-cert-auth",
            &format!(
                "--trusted-ca-file={}",
                path_str(&dir.join("kube-apiserver-complete-client-ca-bundle.crt"))?
            ),
        ])
        .stdin(Stdio::null())
        .stdout(log_file.try_clone()?)
        .stderr(log_file)
        .spawn()
        .map_err(|e| format!("cannot start etcd (is etcd-server installed?): {e}"))?;
    Ok(Etcd { child, log })
}

/// `etcdctl endpoint health` with a client certificate.
fn etcdctl_health(dir: &Path, endpoint: &str, client: &str) -> TestResult<Output> {
    run(
        "etcdctl",
        &[
            &format!("--endpoints={endpoint}"),
            &format!(
                "--cacert={}",
                path_str(&dir.join("kube-apiserver-localhost-ca-bundle.crt"))?
            ),
            &format!("--cert={}", path_str(&dir.join(format!("{client}.crt")))?),
            &format!("--key={}", path_str(&dir.join(format!("{client}.key")))?),
            "--dial-timeout=2s",
            "--command-timeout=4s",
            "endpoint",
            "health",
        ],
    )
}

fn wait_until_healthy(etcd: &mut Etcd, dir: &Path, endpoint: &str) -> TestResult {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = etcd.child.try_wait()? {
            return Err(format!("etcd exited with {status}:\n{}", etcd.log()).into());
        }
        let output = etcdctl_health(dir, endpoint, "admin-kubeconfig-client")?;
        if output.status.success() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "etcd never became healthy: {}\netcd log:\n{}",
                describe(&output),
                etcd.log()
            )
            .into());
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

fn s_client(dir: &Path, port: u16, hostname: &str) -> TestResult<Output> {
    let connect = SocketAddr::from((Ipv4Addr::LOCALHOST, port)).to_string();
    run(
        "openssl",
        &[
            "s_client",
            "-connect",
            &connect,
            "-verify_hostname",
            hostname,
            "-verify_return_error",
            "-CAfile",
            path_str(&dir.join("kube-apiserver-localhost-ca-bundle.crt"))?,
            "-cert",
            path_str(&dir.join("admin-kubeconfig-client.crt"))?,
            "-key",
            path_str(&dir.join("admin-kubeconfig-client.key"))?,
        ],
    )
}

#[test]
fn etcd_accepts_the_generated_certificates_and_rejects_others() -> TestResult {
    // RSA as the installer makes them, and P-384 as the install-config's `pki` can ask.
    for algorithm in [KeyAlgorithm::Rsa2048, KeyAlgorithm::EcdsaP384] {
        etcd_accepts_the_certificates_of(algorithm)?;
    }
    Ok(())
}

fn etcd_accepts_the_certificates_of(algorithm: KeyAlgorithm) -> TestResult {
    let (dir, pki) = generate(algorithm)?;
    let dir = dir.path();
    let port = free_port()?;
    let endpoint = format!("https://127.0.0.1:{port}");
    let mut etcd = start_etcd(dir, port)?;
    wait_until_healthy(&mut etcd, dir, &endpoint)?;

    // etcdctl (Go) with the admin client certificate, trusting the localhost CA bundle.
    let healthy = etcdctl_health(dir, &endpoint, "admin-kubeconfig-client")?;
    assert!(healthy.status.success(), "{}", describe(&healthy));
    // etcdctl reports health on stderr.
    assert!(
        describe(&healthy).contains("is healthy"),
        "{}",
        describe(&healthy)
    );
    // The node-bootstrapper certificate is in the client bundle too.
    let kubelet = etcdctl_health(dir, &endpoint, "kubelet-client")?;
    assert!(kubelet.status.success(), "{}", describe(&kubelet));

    // kubectl with the generated loopback kubeconfig, pointed at etcd's port by the name
    // `localhost` (a DNS SAN of the serving certificate).
    let kubeconfig = pki.kubeconfig(
        KubeconfigKind::Loopback,
        &format!("https://localhost:{port}"),
    );
    let kubeconfig_path = dir.join("kubeconfig-loopback");
    std::fs::write(&kubeconfig_path, kubeconfig)?;
    let cache = dir.join("kube-cache");
    let raw = run(
        "kubectl",
        &[
            "--kubeconfig",
            path_str(&kubeconfig_path)?,
            "--cache-dir",
            path_str(&cache)?,
            "get",
            "--raw",
            "/health",
        ],
    )?;
    assert!(raw.status.success(), "{}", describe(&raw));
    assert!(
        String::from_utf8_lossy(&raw.stdout).contains("\"health\":\"true\""),
        "{}",
        describe(&raw)
    );

    // A client certificate from another signer (not in the client CA bundle) is refused.
    let foreign = etcdctl_health(dir, &endpoint, "aggregator-client")?;
    assert!(
        !foreign.status.success(),
        "aggregator-client was accepted: {}",
        describe(&foreign)
    );

    // A server name outside the SANs is refused by the Go client: 127.0.0.2 reaches the same
    // server, but the certificate is for localhost, 127.0.0.1 and ::1 only.
    let wrong_name = etcdctl_health(
        dir,
        &format!("https://127.0.0.2:{port}"),
        "admin-kubeconfig-client",
    )?;
    assert!(
        !wrong_name.status.success(),
        "127.0.0.2 was accepted: {}",
        describe(&wrong_name)
    );

    // kubectl (Go's crypto/tls) says why: the name check...
    let kubectl_raw = |config: &Path, server: Option<String>| -> TestResult<Output> {
        let mut args = vec!["--kubeconfig".to_string(), path_str(config)?.to_string()];
        args.extend(["--cache-dir".to_string(), path_str(&cache)?.to_string()]);
        if let Some(server) = server {
            args.extend(["--server".to_string(), server]);
        }
        args.extend(["get", "--raw", "/health"].map(String::from));
        run(
            "kubectl",
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
        )
    };
    let by_ip = kubectl_raw(&kubeconfig_path, Some(format!("https://127.0.0.2:{port}")))?;
    assert!(!by_ip.status.success(), "{}", describe(&by_ip));
    assert!(
        describe(&by_ip).contains("not 127.0.0.2"),
        "{}",
        describe(&by_ip)
    );
    // ...and the server refuses a client certificate from another signer.
    let encode = |name: &str| -> TestResult<String> {
        Ok(base64::engine::general_purpose::STANDARD.encode(std::fs::read(dir.join(name))?))
    };
    let foreign_config = std::fs::read_to_string(&kubeconfig_path)?
        .replace(
            &encode("admin-kubeconfig-client.crt")?,
            &encode("aggregator-client.crt")?,
        )
        .replace(
            &encode("admin-kubeconfig-client.key")?,
            &encode("aggregator-client.key")?,
        );
    let foreign_path = dir.join("kubeconfig-foreign");
    std::fs::write(&foreign_path, foreign_config)?;
    let refused = kubectl_raw(&foreign_path, None)?;
    assert!(!refused.status.success(), "{}", describe(&refused));
    // Only the client certificate differs from the accepted loopback kubeconfig. Depending on
    // timing Go reports the server's alert or a broken pipe, so the message is not checked.

    // And by OpenSSL, which also says why.
    let good = s_client(dir, port, "localhost")?;
    assert!(good.status.success(), "{}", describe(&good));
    let bad = s_client(dir, port, "not-in-the-sans.example")?;
    assert!(!bad.status.success(), "{}", describe(&bad));
    let text = describe(&bad);
    assert!(text.contains("hostname mismatch"), "{text}");
    drop(etcd);
    Ok(())
}

#[test]
fn openssh_loads_the_bootstrap_ssh_key() -> TestResult {
    if Command::new("ssh-keygen").arg("-?").output().is_err() {
        eprintln!("skipped: ssh-keygen is not installed");
        return Ok(());
    }
    for algorithm in [
        KeyAlgorithm::Rsa2048,
        KeyAlgorithm::EcdsaP256,
        KeyAlgorithm::EcdsaP384,
        KeyAlgorithm::EcdsaP521,
    ] {
        let (dir, pki) = generate(algorithm)?;
        let key = dir.path().join("bootstrap-ssh-key");
        std::fs::write(&key, pki.bootstrap_ssh_private_key_pem())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))?;
        }
        let output = run("ssh-keygen", &["-y", "-f", path_str(&key)?])?;
        assert!(output.status.success(), "{}", describe(&output));
        let derived = String::from_utf8(output.stdout)?;
        // ssh-keygen may append a comment; the key type and blob must match.
        let ours = pki.bootstrap_ssh_public_key();
        let fields = |s: &str| {
            s.split_whitespace()
                .take(2)
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(fields(&derived), fields(&ours), "{algorithm}");
    }
    Ok(())
}
