//! A real registry for the tests: Debian's `docker-registry` on 127.0.0.1 (htpasswd auth, TLS
//! from a CA made with openssl, or neither), OCI layouts written by hand, and skopeo run with
//! nothing from this machine's configuration.

use std::error::Error;
use std::fs;
use std::io::Write as _;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use sha2::{Digest as _, Sha256};

/// What the registry helpers return.
pub type TestResult<T = ()> = Result<T, Box<dyn Error>>;

/// `sha256:<hex>` of the bytes.
pub fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{:x}", Sha256::digest(bytes))
}

/// A command's status, stdout and stderr, for a failure message.
pub fn output_text(output: &Output) -> String {
    format!(
        "({})\n--- stdout\n{}--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs `cmd`; a non-zero exit is an error with its output.
pub fn run_ok(cmd: &mut Command) -> TestResult<Output> {
    let output = cmd.output()?;
    if !output.status.success() {
        return Err(format!("{cmd:?} failed {}", output_text(&output)).into());
    }
    Ok(output)
}

/// A running `docker-registry`, killed when dropped.
pub struct Registry {
    child: Child,
    /// The port it listens on, on 127.0.0.1.
    pub port: u16,
    /// Its log (stderr).
    pub log: PathBuf,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A TCP port free on 127.0.0.1 a moment ago.
pub fn free_port() -> TestResult<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Starts a registry storing under `dir`; `auth` is an htpasswd file, `tls` a certificate and
/// key. Returns once it accepts connections.
pub fn start_registry(
    dir: &Path,
    auth: Option<&Path>,
    tls: Option<(&Path, &Path)>,
) -> TestResult<Registry> {
    start_registry_with(dir, auth, tls, None)
}

/// [`start_registry`] that answers a blob's GET with a redirect to `blobs_at` (`https://host:port`)
/// and the blob's path in `dir/storage`, as a registry keeping its blobs in object storage does
/// (the registry's own `redirect` storage middleware).
pub fn start_registry_with(
    dir: &Path,
    auth: Option<&Path>,
    tls: Option<(&Path, &Path)>,
    blobs_at: Option<&str>,
) -> TestResult<Registry> {
    let port = free_port()?;
    let mut config = format!(
        "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: 127.0.0.1:{port}\n",
        dir.join("storage").display()
    );
    if let Some((cert, key)) = tls {
        config.push_str(&format!(
            "  tls:\n    certificate: {}\n    key: {}\n",
            cert.display(),
            key.display()
        ));
    }
    if let Some(htpasswd) = auth {
        config.push_str(&format!(
            "auth:\n  htpasswd:\n    realm: bootgen-test\n    path: {}\n",
            htpasswd.display()
        ));
    }
    // Top-level, after `http` and `auth`.
    if let Some(base) = blobs_at {
        config.push_str(&format!(
            "middleware:\n  storage:\n    - name: redirect\n      options:\n        baseurl: {base}\n"
        ));
    }
    let config_path = dir.join("registry.yml");
    fs::write(&config_path, config)?;
    let log = dir.join("registry.log");
    let child = Command::new("/usr/bin/docker-registry")
        .arg("serve")
        .arg(&config_path)
        .stdin(Stdio::null())
        .stdout(fs::File::create(&log)?)
        .stderr(fs::File::create(dir.join("registry.err"))?)
        .spawn()?;
    let mut registry = Registry { child, port, log };
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(status) = registry.child.try_wait()? {
            let err = fs::read_to_string(dir.join("registry.err")).unwrap_or_default();
            return Err(format!("docker-registry exited ({status}):\n{err}").into());
        }
        if Instant::now() > deadline {
            return Err(format!("docker-registry did not listen on {port}").into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    registry.log = dir.join("registry.err");
    Ok(registry)
}

/// Writes an OCI image layout with one small layer, tagged `v1`; returns its manifest digest.
pub fn write_oci_layout(dir: &Path) -> TestResult<String> {
    write_oci_layout_with(
        dir,
        &[("etc/bootgen-test.txt", b"pulled through the mirror\n")],
    )
}

/// Writes an OCI image layout with one layer holding `files` (path, contents), tagged `v1`;
/// returns its manifest digest.
pub fn write_oci_layout_with(dir: &Path, files: &[(&str, &[u8])]) -> TestResult<String> {
    let blobs = dir.join("blobs/sha256");
    fs::create_dir_all(&blobs)?;
    let put = |bytes: &[u8]| -> TestResult<String> {
        let digest = sha256(bytes);
        fs::write(blobs.join(&digest["sha256:".len()..]), bytes)?;
        Ok(digest)
    };
    let mut tar = tar::Builder::new(Vec::new());
    for (path, data) in files {
        let mut header = tar::Header::new_gnu();
        header.set_path(path)?;
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_cksum();
        tar.append(&header, *data)?;
    }
    let layer_tar = tar.into_inner()?;
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(&layer_tar)?;
    let layer = gzip.finish()?;
    let layer_digest = put(&layer)?;
    let config = serde_json::to_vec(&json!({
        "architecture": "amd64",
        "os": "linux",
        "config": {},
        "rootfs": {"type": "layers", "diff_ids": [sha256(&layer_tar)]},
    }))?;
    let config_digest = put(&config)?;
    let manifest = serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_digest, "size": config.len()},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": layer_digest, "size": layer.len()}],
    }))?;
    let manifest_digest = put(&manifest)?;
    fs::write(dir.join("oci-layout"), br#"{"imageLayoutVersion":"1.0.0"}"#)?;
    fs::write(
        dir.join("index.json"),
        serde_json::to_vec(&json!({
            "schemaVersion": 2,
            "manifests": [{
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "digest": manifest_digest,
                "size": manifest.len(),
                "annotations": {"org.opencontainers.image.ref.name": "v1"},
            }],
        }))?,
    )?;
    Ok(manifest_digest)
}

/// skopeo with nothing from this machine's user configuration: a scratch HOME, no auth or
/// registries environment, no signature policy.
pub fn skopeo(home: &Path) -> Command {
    let mut cmd = Command::new("/usr/bin/skopeo");
    cmd.env("HOME", home)
        .env_remove("REGISTRY_AUTH_FILE")
        .env_remove("CONTAINERS_REGISTRIES_CONF")
        .env_remove("CONTAINERS_CONF")
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("DOCKER_CONFIG")
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR")
        .arg("--insecure-policy");
    cmd
}

/// Makes a CA and a server certificate for 127.0.0.1 with openssl; returns (ca, cert, key).
pub fn make_pki(dir: &Path) -> TestResult<(PathBuf, PathBuf, PathBuf)> {
    fs::create_dir_all(dir)?;
    let (ca, ca_key) = (dir.join("ca.crt"), dir.join("ca.key"));
    let (cert, key, csr, ext) = (
        dir.join("server.crt"),
        dir.join("server.key"),
        dir.join("server.csr"),
        dir.join("server.ext"),
    );
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    run_ok(
        Command::new("/usr/bin/openssl")
            .args([
                "req",
                "-x509",
                "-new",
                "-days",
                "2",
                "-subj",
                "/CN=bootgen test mirror CA",
            ])
            .args(ec)
            .args([
                "-addext",
                "basicConstraints=critical,CA:TRUE",
                "-addext",
                "keyUsage=critical,keyCertSign,cRLSign",
            ])
            .arg("-keyout")
            .arg(&ca_key)
            .arg("-out")
            .arg(&ca),
    )?;
    run_ok(
        Command::new("/usr/bin/openssl")
            .args(["req", "-new", "-subj", "/CN=127.0.0.1"])
            .args(ec)
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&csr),
    )?;
    fs::write(
        &ext,
        "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n",
    )?;
    run_ok(
        Command::new("/usr/bin/openssl")
            .args(["x509", "-req", "-days", "2", "-set_serial", "2"])
            .arg("-in")
            .arg(&csr)
            .arg("-CA")
            .arg(&ca)
            .arg("-CAkey")
            .arg(&ca_key)
            .arg("-extfile")
            .arg(&ext)
            .arg("-out")
            .arg(&cert),
    )?;
    Ok((ca, cert, key))
}

/// Pushes the OCI layout at `layout` (tag `v1`) to `127.0.0.1:PORT/<dest>` with skopeo, with
/// `creds` (`user:pass`) and the CA in `cert_dir` (TLS unverified without); returns the digest
/// the registry has, after checking it is the layout's.
pub fn push_layout(
    home: &Path,
    registry: &Registry,
    layout: &Path,
    dest: &str,
    creds: Option<&str>,
    cert_dir: Option<&Path>,
) -> TestResult<String> {
    let index: serde_json::Value = serde_json::from_slice(&fs::read(layout.join("index.json"))?)?;
    let written = index["manifests"][0]["digest"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let digest_file = home.join("pushed.digest");
    let mut cmd = skopeo(home);
    cmd.arg("copy")
        .arg("--digestfile")
        .arg(&digest_file)
        .arg(format!("oci:{}:v1", layout.display()))
        .arg(format!("docker://127.0.0.1:{}/{dest}", registry.port));
    match cert_dir {
        Some(dir) => cmd.arg("--dest-cert-dir").arg(dir),
        None => cmd.arg("--dest-tls-verify=false"),
    };
    if let Some(creds) = creds {
        cmd.arg("--dest-creds").arg(creds);
    }
    run_ok(&mut cmd).map_err(|e| {
        let log = fs::read_to_string(&registry.log).unwrap_or_default();
        format!("{e}\n--- registry log\n{log}")
    })?;
    let digest = fs::read_to_string(digest_file)?.trim().to_string();
    if digest != written {
        return Err(format!("the registry stored {digest}, not the layout's {written}").into());
    }
    Ok(digest)
}
