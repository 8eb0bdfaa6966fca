//! Disconnected installs against real software. A real registry (Debian's `docker-registry`)
//! runs on 127.0.0.1, once with htpasswd auth over plain HTTP and once with TLS from a CA made
//! here with openssl. A small image built here (an OCI layout written by hand) is pushed to it
//! with skopeo under the mirror path. Then skopeo, given only what bootgen put in the config
//! (`registries.conf`, the merged pull secret, the trust anchors), pulls the image by its
//! *source* reference, `source.invalid/app@sha256:...`, a name that cannot resolve and is
//! blocked: it can only come through the mirror. A config made without the credentials, or
//! without the CA, fails the same pull, as the pre-flight said it would.

use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use bootgen_conformance::registry::{
    make_pki, output_text, push_layout, run_ok, skopeo, start_registry, write_oci_layout, Registry,
};
use bootgen_conformance::{ignition_validate, IgnitionView};
use serde_json::{json, Value};

type TestResult<T = ()> = Result<T, Box<dyn Error>>;

const SOURCE: &str = "source.invalid/app";
const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fixtures/mirrors/installer-shaped.ign"
);
const TOOLS: &[&str] = &[
    "/usr/bin/docker-registry",
    "/usr/bin/skopeo",
    "/usr/bin/htpasswd",
    "/usr/bin/openssl",
];

/// False (after saying so) when a tool is missing outside CI; under CI a missing tool fails.
fn tools_present() -> bool {
    bootgen_conformance::tools_present(TOOLS)
}

/// Pushes the layout to `127.0.0.1:PORT/mirror/app:v1`; returns the digest the registry has.
fn push(
    work: &Path,
    registry: &Registry,
    creds: Option<&str>,
    cert_dir: Option<&Path>,
) -> TestResult<String> {
    let layout = work.join("layout");
    write_oci_layout(&layout)?;
    push_layout(work, registry, &layout, "mirror/app:v1", creds, cert_dir)
}

// ---------------------------------------------------------------------------------------------
// bootgen and what it writes

/// What a pull needs, taken out of a config: registries.conf, the pull secret, a cert dir
/// holding the anchors.
struct Extracted {
    view: IgnitionView,
    registries_conf: PathBuf,
    auth: PathBuf,
    cert_dir: PathBuf,
}

fn file_text(view: &IgnitionView, path: &str) -> String {
    let file = &view.files[path];
    String::from_utf8_lossy(&file.expected(Some(b""))).into_owned()
}

fn extract(config: &Path, into: &Path) -> TestResult<Extracted> {
    let (clean, report) = ignition_validate(config);
    assert!(clean, "{report}");
    let view = IgnitionView::load(config)?;
    fs::create_dir_all(into.join("certs"))?;
    let registries_conf = into.join("registries.conf");
    fs::write(
        &registries_conf,
        file_text(&view, "/etc/containers/registries.conf"),
    )?;
    let auth = into.join("auth.json");
    fs::write(&auth, file_text(&view, "/root/.docker/config.json"))?;
    let anchors = file_text(&view, "/etc/pki/ca-trust/source/anchors/ca.crt");
    if !anchors.trim().is_empty() {
        fs::write(into.join("certs/ca.crt"), anchors)?;
    }
    Ok(Extracted {
        view,
        registries_conf,
        auth,
        cert_dir: into.join("certs"),
    })
}

/// Copies `image` with skopeo using only the extracted files; the output, success or not.
fn pull(work: &Path, from: &Extracted, image: &str) -> TestResult<Output> {
    let dest = tempfile::tempdir_in(work)?;
    Ok(skopeo(work)
        .arg("--registries-conf")
        .arg(&from.registries_conf)
        .arg("copy")
        .arg("--src-authfile")
        .arg(&from.auth)
        .arg("--src-cert-dir")
        .arg(&from.cert_dir)
        .arg(format!("docker://{image}"))
        .arg(format!("dir:{}", dest.path().display()))
        .output()?)
}

fn assert_pulls(work: &Path, from: &Extracted, image: &str) -> TestResult {
    let output = pull(work, from, image)?;
    assert!(
        output.status.success(),
        "pull of {image} {}",
        output_text(&output)
    );
    Ok(())
}

fn assert_pull_fails(work: &Path, from: &Extracted, image: &str, because: &[&str]) -> TestResult {
    let output = pull(work, from, image)?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "pull of {image} should fail");
    assert!(
        because.iter().any(|b| stderr.contains(b)),
        "pull of {image} failed, but not with {because:?}: {stderr}"
    );
    Ok(())
}

/// `bootgen ignition` into `out` with the given extra arguments; the output, success or not.
fn bootgen_ignition(out: &Path, digest: &str, extra: &[String]) -> TestResult<Output> {
    Ok(bootgen_conformance::bootgen!()
        .args([
            "ignition",
            "--key-algorithm",
            "ecdsa-p256",
            "--release-version",
            "4.22.0",
            "--release-image",
        ])
        .arg(format!("{SOURCE}@{digest}"))
        .arg("--output")
        .arg(out)
        .args(extra)
        .output()?)
}

fn bootgen_patch(input: &Path, out: &Path, extra: &[String]) -> TestResult<Output> {
    Ok(bootgen_conformance::bootgen!()
        .arg("patch")
        .arg(input)
        .arg("--output")
        .arg(out)
        .args(extra)
        .output()?)
}

/// registries.conf read by Python's own TOML parser, as JSON.
fn toml_as_json(path: &Path) -> TestResult<Value> {
    let output = run_ok(Command::new("python3").args([
        "-c",
        "import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))",
    ]).arg(path))?;
    Ok(serde_json::from_slice(&output.stdout)?)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_string()).collect()
}

// ---------------------------------------------------------------------------------------------
// The cases

#[test]
fn authenticated_mirror_over_http() -> TestResult {
    if !tools_present() {
        return Ok(());
    }
    let work = tempfile::tempdir()?;
    let work = work.path();
    let htpasswd = work.join("htpasswd");
    let out =
        run_ok(Command::new("/usr/bin/htpasswd").args(["-Bbn", "mirror-user", "mirror-pass"]))?;
    fs::write(&htpasswd, &out.stdout)?;
    let registry = start_registry(work, Some(&htpasswd), None)?;
    let digest = push(work, &registry, Some("mirror-user:mirror-pass"), None)?;
    let host = format!("127.0.0.1:{}", registry.port);
    let mirror = format!("{host}/mirror/app");
    let by_source = format!("{SOURCE}@{digest}");

    let auth = work.join("mirror-auth.json");
    let entry = json!({"auths": {&host: {"auth": STANDARD.encode("mirror-user:mirror-pass")}}});
    fs::write(&auth, serde_json::to_vec(&entry)?)?;
    let flags = |with_auth: bool| {
        let mut flags = strings(&[
            "--mirror",
            &format!("{SOURCE}={mirror}"),
            "--block-source",
            "--insecure-registry",
            &host,
            "--add-host",
            "127.0.0.1=mirror.bootgen.test",
        ]);
        if with_auth {
            flags.extend(strings(&["--registry-auth", &auth.display().to_string()]));
        }
        flags
    };

    // With the credentials: the pre-flight is content and the pull works.
    let good = bootgen_ignition(&work.join("good"), &digest, &flags(true))?;
    let stderr = String::from_utf8_lossy(&good.stderr);
    assert!(good.status.success(), "{}", output_text(&good));
    assert!(
        stderr.contains(&format!("pre-flight: mirror {host}: credentials yes, CA not needed (insecure), name an IP address")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("credentials for {host} added")),
        "{stderr}"
    );
    assert!(
        !stderr.contains("mirror-pass")
            && !stderr.contains(&STANDARD.encode("mirror-user:mirror-pass"))
    );
    let good = extract(
        &work.join("good/bootstrap.ign"),
        &work.join("good-extracted"),
    )?;
    assert_pulls(work, &good, &by_source)?;
    // The release scripts name the mirror itself (digest kept); that pull works too, over HTTP.
    let release_ref = format!("{mirror}@{digest}");
    for script in [
        "/usr/local/bin/release-image.sh",
        "/usr/local/bin/release-image-download.sh",
    ] {
        assert!(
            file_text(&good.view, script).contains(&format!("RELEASE_IMAGE='{release_ref}'")),
            "{script}"
        );
    }
    assert_pulls(work, &good, &release_ref)?;
    // By tag, mirror-by-digest-only skips the mirror and the source is blocked.
    assert_pull_fails(work, &good, &format!("{SOURCE}:v1"), &["blocked"])?;
    // The cluster's pull secret got the same credentials.
    let secret = file_text(
        &good.view,
        "/opt/openshift/manifests/openshift-config-secret-pull-secret.yaml",
    );
    let secret: serde_yaml_ng::Value = serde_yaml_ng::from_str(&secret)?;
    let encoded = secret["data"][".dockerconfigjson"]
        .as_str()
        .unwrap_or_default();
    let cluster: Value = serde_json::from_slice(&STANDARD.decode(encoded)?)?;
    assert_eq!(cluster["auths"][&host], entry["auths"][&host]);

    // registries.conf, read by another TOML parser, says exactly what was asked (every table
    // saying `blocked`, as 4.22's installer writes it; skopeo pulled through it above).
    assert_eq!(
        toml_as_json(&good.registries_conf)?,
        json!({"registry": [
            {"location": SOURCE, "insecure": false, "mirror-by-digest-only": true, "blocked": true,
             "mirror": [{"location": mirror, "insecure": true}]},
            {"location": host, "insecure": true, "mirror-by-digest-only": true, "blocked": false},
        ]})
    );
    let hosts = &good.view.files["/etc/hosts"];
    assert_eq!(hosts.mode, 0o644);
    assert_eq!(hosts.contents, None);
    assert_eq!(
        hosts.append,
        vec![b"127.0.0.1 mirror.bootgen.test\n".to_vec()]
    );

    // Without the credentials: the pre-flight says so, and the same pull is refused.
    let bare = bootgen_ignition(&work.join("bare"), &digest, &flags(false))?;
    let stderr = String::from_utf8_lossy(&bare.stderr);
    assert!(bare.status.success(), "{}", output_text(&bare));
    let predicted = format!("warning: pre-flight: mirror {host}: no credentials for {host} in /root/.docker/config.json");
    assert!(stderr.contains(&predicted), "{stderr}");
    let bare = extract(
        &work.join("bare/bootstrap.ign"),
        &work.join("bare-extracted"),
    )?;
    assert_pull_fails(
        work,
        &bare,
        &by_source,
        &["unauthorized", "authentication required"],
    )?;

    // Under --strict that warning stops the run before anything is written.
    let strict_out = work.join("strict");
    let mut strict_flags = flags(false);
    strict_flags.push("--strict".into());
    let strict = bootgen_ignition(&strict_out, &digest, &strict_flags)?;
    assert_eq!(strict.status.code(), Some(1), "{}", output_text(&strict));
    assert!(String::from_utf8_lossy(&strict.stderr).contains("nothing was written"));
    assert!(!strict_out.exists());

    // bootgen patch: the same flags on a config made elsewhere.
    let patched = work.join("patched.ign");
    let output = bootgen_patch(Path::new(FIXTURE), &patched, &flags(true))?;
    assert!(output.status.success(), "{}", output_text(&output));
    let patched = extract(&patched, &work.join("patched-extracted"))?;
    assert_pulls(work, &patched, &by_source)?;
    let merged: Value =
        serde_json::from_str(&file_text(&patched.view, "/root/.docker/config.json"))?;
    assert!(
        merged["auths"]["quay.io"].is_object(),
        "the config's own credentials stay"
    );
    let conf = toml_as_json(&patched.registries_conf)?;
    let sources: Vec<(&str, bool)> = conf["registry"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["location"].as_str().unwrap_or_default(),
                r["blocked"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(
        sources,
        vec![
            ("quay.io/openshift-release-dev/ocp-release", true),
            ("quay.io/openshift-release-dev/ocp-v4.0-art-dev", true),
            (SOURCE, true),
            (host.as_str(), false),
        ]
    );
    Ok(())
}

#[test]
fn tls_mirror_with_a_private_ca() -> TestResult {
    if !tools_present() {
        return Ok(());
    }
    let work = tempfile::tempdir()?;
    let work = work.path();
    let (ca, cert, key) = make_pki(&work.join("pki"))?;
    let registry = start_registry(work, None, Some((&cert, &key)))?;
    let push_certs = work.join("push-certs");
    fs::create_dir_all(&push_certs)?;
    fs::copy(&ca, push_certs.join("ca.crt"))?;
    let digest = push(work, &registry, None, Some(&push_certs))?;
    let host = format!("127.0.0.1:{}", registry.port);
    let mirror = format!("{host}/mirror/app");
    let by_source = format!("{SOURCE}@{digest}");
    let flags = |with_ca: bool| {
        let mut flags = strings(&["--mirror", &format!("{SOURCE}={mirror}"), "--block-source"]);
        if with_ca {
            flags.extend(strings(&["--trust-bundle", &ca.display().to_string()]));
        }
        flags
    };

    // With the CA: the anchors hold it, and the pull verifies the mirror against it.
    let good = bootgen_ignition(&work.join("good"), &digest, &flags(true))?;
    assert!(good.status.success(), "{}", output_text(&good));
    let stderr = String::from_utf8_lossy(&good.stderr);
    assert!(
        stderr.contains(&format!(
            "pre-flight: mirror {host}: credentials none, CA 1 certificate(s) in the config"
        )),
        "{stderr}"
    );
    let good = extract(
        &work.join("good/bootstrap.ign"),
        &work.join("good-extracted"),
    )?;
    assert_pulls(work, &good, &by_source)?;
    let bundle = file_text(
        &good.view,
        "/opt/openshift/manifests/user-ca-bundle-config.yaml",
    );
    let bundle: serde_yaml_ng::Value = serde_yaml_ng::from_str(&bundle)?;
    let ca_text = fs::read_to_string(&ca)?;
    assert_eq!(
        bundle["data"]["ca-bundle.crt"].as_str().map(str::trim),
        Some(ca_text.trim())
    );
    assert_eq!(
        toml_as_json(&good.registries_conf)?,
        json!({"registry": [
            {"location": SOURCE, "insecure": false, "mirror-by-digest-only": true, "blocked": true,
             "mirror": [{"location": mirror, "insecure": false}]},
        ]})
    );
    let idms = file_text(
        &good.view,
        "/opt/openshift/manifests/image-digest-mirror-set.yaml",
    );
    let idms: serde_yaml_ng::Value = serde_yaml_ng::from_str(&idms)?;
    assert_eq!(
        idms["spec"]["imageDigestMirrors"][0]["mirrorSourcePolicy"],
        "NeverContactSource"
    );
    assert_eq!(
        idms["spec"]["imageDigestMirrors"][0]["mirrors"][0].as_str(),
        Some(mirror.as_str())
    );

    // Without the CA: the pre-flight predicts the x509 failure, and it happens.
    let bare = bootgen_ignition(&work.join("bare"), &digest, &flags(false))?;
    assert!(bare.status.success(), "{}", output_text(&bare));
    let stderr = String::from_utf8_lossy(&bare.stderr);
    assert!(
        stderr.contains(&format!(
            "warning: pre-flight: mirror {host}: no CA certificate"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("x509: certificate signed by unknown authority"),
        "{stderr}"
    );
    let bare = extract(
        &work.join("bare/bootstrap.ign"),
        &work.join("bare-extracted"),
    )?;
    assert_pull_fails(
        work,
        &bare,
        &by_source,
        &["x509", "certificate signed by unknown authority"],
    )?;

    // bootgen patch on a config made elsewhere: the CA lands in its anchors and the pull works.
    let patched = work.join("patched.ign");
    let output = bootgen_patch(Path::new(FIXTURE), &patched, &flags(true))?;
    assert!(output.status.success(), "{}", output_text(&output));
    let patched = extract(&patched, &work.join("patched-extracted"))?;
    assert_pulls(work, &patched, &by_source)?;
    // Its ICSP could not say NeverContactSource: an IDMS replaced it.
    assert!(!patched
        .view
        .files
        .contains_key("/opt/openshift/manifests/image-content-source-policy.yaml"));
    assert!(patched
        .view
        .files
        .contains_key("/opt/openshift/manifests/image-digest-mirror-set.yaml"));
    // Its release image, which no --mirror given here covers, keeps the installer's name (its
    // registries.conf entry sends the pull by digest to its mirror), as the install-config's
    // mirrors leave it.
    let script = "/usr/local/bin/release-image-download.sh";
    let release_line = |view: &IgnitionView| {
        file_text(view, script)
            .lines()
            .find(|l| l.starts_with("RELEASE_IMAGE="))
            .map(str::to_string)
    };
    let original = IgnitionView::load(Path::new(FIXTURE))?;
    assert!(release_line(&original).is_some_and(|l| l.contains("quay.io/openshift-release-dev/")));
    assert_eq!(release_line(&patched.view), release_line(&original));
    Ok(())
}

#[test]
fn malformed_flags_are_refused_naming_the_value() -> TestResult {
    let work = tempfile::tempdir()?;
    let not_json = work.path().join("auth.json");
    fs::write(&not_json, "auths: yaml?\n")?;
    let no_cert = work.path().join("ca.pem");
    fs::write(&no_cert, "not a certificate\n")?;
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            strings(&["--mirror", "=mirror.example.com/x"]),
            "'--mirror <SOURCE=MIRROR>': `=mirror.example.com/x` is a mirror without a source",
        ),
        (
            strings(&["--mirror", "quay.io/x=not a path"]),
            "'--mirror <SOURCE=MIRROR>': mirror `not a path`",
        ),
        (
            strings(&["--add-host", "300.1.2.3=mirror.example.com"]),
            "'--add-host <IP=NAME[,NAME...]>': `300.1.2.3` in `300.1.2.3=mirror.example.com` is not an IP address",
        ),
        (
            strings(&["--insecure-registry", "mirror.example.com/ocp"]),
            "'--insecure-registry <HOST[:PORT]>': `mirror.example.com/ocp` is a repository path",
        ),
        (
            vec!["--registry-auth".into(), not_json.display().to_string()],
            "is not JSON",
        ),
        (
            vec!["--trust-bundle".into(), no_cert.display().to_string()],
            "holds no PEM certificate",
        ),
    ];
    for (flags, expected) in cases {
        let output = bootgen_patch(Path::new(FIXTURE), &work.path().join("out.ign"), &flags)?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{flags:?}: {stderr}");
        assert!(stderr.contains(expected), "{flags:?}: {stderr}");
        // The flag is named, not the library's name for the setting.
        assert!(stderr.contains(flags[0].as_str()), "{flags:?}: {stderr}");
        assert!(!stderr.contains("passes.mirrors"), "{flags:?}: {stderr}");
        assert!(!work.path().join("out.ign").exists());
    }
    Ok(())
}
