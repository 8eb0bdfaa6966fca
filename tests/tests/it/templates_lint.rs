//! Checks the node scripts, units and small config files under `templates/` with the real tools:
//!
//! - every script (`bin/`, `system-generators/`, `dispatcher.d/`, `profile.d/`) passes
//!   `shellcheck` with no findings at any severity, rendered with two test contexts;
//! - every unit, drop-in and `/etc/systemd/system` file passes `systemd-analyze verify` in a
//!   scratch root holding the units and scripts it names (and the checker itself is shown to
//!   catch a broken unit);
//! - `release-image-download.sh` pulls, retries and checks the release image architecture
//!   against stub `podman`/`uname` commands;
//! - `registries.conf` parses as TOML with the expected structure, and is empty without mirrors.
//!
//! Templates are rendered by the library's own renderer with the library's own context (a real
//! generation from a test install-config, see `bootgen_conformance::templates`); a test changes
//! only the fields it is about. The tools must be installed (`.ci/run` does that);
//! set `BOOTGEN_SKIP_MISSING_TOOLS=1` to skip, rather than fail, when one is missing.

use bootgen::release::Distribution;
use bootgen_conformance::{systemd_verify, write_file};
use std::collections::BTreeSet;
use std::error::Error as StdError;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value as Json};

type TestResult = Result<(), Box<dyn StdError>>;

const RELEASE_IMAGE: &str = "quay.io/openshift-release-dev/ocp-release@sha256:\
    5c6b4b5b1f29bb3a4c9c5c4b3e2f1e0d9c8b7a6f5e4d3c2b1a09f8e7d6c5b4a3";

// ---------------------------------------------------------------------------------------------
// Rendering

fn templates_dir() -> PathBuf {
    bootgen_conformance::repo().join("templates")
}

/// Renders `rel` (relative to `templates/`) as the library does.
fn render_file(rel: &str, ctx: &Json) -> Result<String, Box<dyn StdError>> {
    Ok(bootgen_conformance::templates::render(rel, ctx)?)
}

/// The destination name of a template: `.j2` dropped.
fn destination(rel: &str) -> &str {
    rel.strip_suffix(".j2").unwrap_or(rel)
}

/// The test cluster: nothing optional set.
const BASE_INSTALL_CONFIG: &str = r#"apiVersion: v1
metadata:
  name: demo
baseDomain: example.com
controlPlane:
  name: master
  replicas: 3
compute:
- name: worker
  replicas: 3
platform:
  none: {}
pullSecret: '{"auths":{"quay.io":{"auth":"dXNlcjpzZWNyZXQ=","email":"me@example.com"}}}'
sshKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f demo@example.com
"#;

/// The same cluster on a single node (bootstrap in place).
const SINGLE_NODE_INSTALL_CONFIG: &str = r#"apiVersion: v1
metadata:
  name: demo
baseDomain: example.com
controlPlane:
  name: master
  replicas: 1
compute:
- name: worker
  replicas: 0
platform:
  none: {}
bootstrapInPlace:
  installationDisk: /dev/disk/by-id/wwn-0x5000c500a0b1c2d3
pullSecret: '{"auths":{"quay.io":{"auth":"dXNlcjpzZWNyZXQ=","email":"me@example.com"}}}'
sshKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f demo@example.com
"#;

/// The library's context for `install_config` and `version`.
fn library_context(install_config: &str, version: &str) -> Json {
    let mut ctx = bootgen_conformance::templates::context_of(install_config, version)
        .unwrap_or_else(|err| panic!("{err}"));
    // A digest, so the scripts' pull and architecture checks see the reference they print.
    ctx["release_image"] = json!(RELEASE_IMAGE);
    ctx
}

/// A cluster with a bootstrap machine, of `version`.
fn cluster_context(version: &str) -> Json {
    library_context(BASE_INSTALL_CONFIG, version)
}

/// The default release's cluster, with nothing optional set.
fn base_context() -> Json {
    cluster_context("4.22.0")
}

/// A single node (bootstrap in place) of `version`, with an installation disk.
fn single_node_context(version: &str) -> Json {
    library_context(SINGLE_NODE_INSTALL_CONFIG, version)
}

/// Two mirrored sources: the first blocked with an insecure second mirror, the second an
/// insecure registry with one mirror.
fn two_registries() -> Json {
    json!([
        {
            "location": "quay.io/openshift-release-dev/ocp-release",
            "insecure": false,
            "blocked": true,
            "mirror_by_digest_only": true,
            "mirrors": [
                { "location": "mirror.example.com:5000/ocp4/release", "insecure": false },
                { "location": "backup.example.com/ocp4/release", "insecure": true },
            ],
        },
        {
            "location": "quay.io/openshift-release-dev/ocp-v4.0-art-dev",
            "insecure": true,
            "blocked": false,
            "mirror_by_digest_only": true,
            "mirrors": [
                { "location": "mirror.example.com:5000/ocp4/art-dev", "insecure": false },
            ],
        },
    ])
}

/// Everything optional set: proxy (with a % to escape), trust bundle, mirrors, fixed IPv6
/// node IP, FIPS, debug verbosity, a multi-arch payload on arm64.
/// Everything optional set, for an older release whose renders take the feature set as a flag.
fn rich_context() -> Json {
    let mut ctx = cluster_context("4.13.5");
    ctx["feature_set"] = json!("TechPreviewNoUpgrade");
    ctx["arch"] = json!({ "go": "arm64", "kernel": "aarch64" });
    ctx["cluster_arch"] = json!({ "go": "arm64", "kernel": "aarch64" });
    ctx["payload_multi"] = json!(true);
    ctx["fips"] = json!(true);
    ctx["trust_bundle"] =
        json!("-----BEGIN CERTIFICATE-----\nMIIBdemo\n-----END CERTIFICATE-----\n");
    ctx["proxy"] = json!({
        "enabled": true,
        "http_proxy": "http://user:p%40ss@proxy.example.com:3128",
        "https_proxy": "http://proxy.example.com:3129",
        "no_proxy": ".cluster.local,.svc,10.0.0.0/16,127.0.0.1,api-int.demo.example.com,localhost",
        "user_no_proxy": "10.0.0.0/16",
    });
    ctx["registries"] = two_registries();
    ctx["mirror_kind"] = json!("ImageDigestMirrorSet");
    ctx["node_ip"] = json!({ "use_ipv6": true, "bootstrap_ip": "fd00:1::5" });
    ctx["kubelet_verbosity"] = json!(4);
    ctx
}

// ---------------------------------------------------------------------------------------------
// Files and tools

/// Every file under `templates/<sub>`, as paths relative to `templates/`, sorted.
fn files_under(sub: &str) -> Result<Vec<String>, Box<dyn StdError>> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
        for entry in fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, root, out)?;
            } else if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_string_lossy().into_owned());
            }
        }
        Ok(())
    }
    let root = templates_dir();
    let mut out = Vec::new();
    let start = root.join(sub);
    if start.is_dir() {
        walk(&start, &root, &mut out)?;
    }
    out.sort();
    Ok(out)
}

/// True for node files that are shell scripts by location (the library gives them 0555, or
/// they are read by a shell).
fn is_script(rel: &str) -> bool {
    let dest = destination(rel);
    let parent = Path::new(dest)
        .parent()
        .and_then(Path::file_name)
        .and_then(|name| name.to_str())
        .unwrap_or("");
    matches!(parent, "bin" | "system-generators" | "dispatcher.d")
        || (parent == "profile.d" && dest.ends_with(".sh"))
}

/// Whether `tool` can be run. When it cannot, the test fails unless the caller asked to skip.
fn tool_available(tool: &str) -> Result<bool, String> {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if found {
        return Ok(true);
    }
    if std::env::var_os("BOOTGEN_SKIP_MISSING_TOOLS").is_some() {
        eprintln!("skipping: {tool} is not installed");
        return Ok(false);
    }
    Err(format!(
        "{tool} is not installed (run .ci/run, or set BOOTGEN_SKIP_MISSING_TOOLS=1)"
    ))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

// ---------------------------------------------------------------------------------------------
// shellcheck

#[test]
fn scripts_pass_shellcheck() -> TestResult {
    if !tool_available("shellcheck")? {
        return Ok(());
    }
    let scripts: Vec<String> = files_under("node")?
        .into_iter()
        .filter(|rel| is_script(rel))
        .collect();
    assert!(
        scripts
            .iter()
            .any(|rel| rel.ends_with("release-image-download.sh.j2")),
        "no scripts found under templates/node"
    );
    // A single node's own scripts need its context; the common ones are checked with it too.
    let single_node_scripts: Vec<String> = files_under("single-node/node")?
        .into_iter()
        .filter(|rel| is_script(rel) || destination(rel).ends_with(".sh"))
        .collect();
    assert!(single_node_scripts.len() >= 3, "{single_node_scripts:?}");
    let all: Vec<String> = scripts
        .iter()
        .chain(&single_node_scripts)
        .cloned()
        .collect();
    // vSphere's own scripts, with and without VIPs (which decide what they do).
    let vsphere_scripts: Vec<String> = files_under("vsphere/node")?
        .into_iter()
        .filter(|rel| is_script(rel))
        .collect();
    assert!(
        !vsphere_scripts.is_empty(),
        "no scripts under templates/vsphere/node"
    );
    let vsphere = std::fs::read_to_string(
        bootgen_conformance::repo().join("fixtures/install-configs/valid/vsphere.yaml"),
    )?;
    let vips_at = vsphere
        .find("    apiVIPs:")
        .ok_or("the vSphere fixture has VIPs")?;
    let tail_at = vsphere
        .find("pullSecret:")
        .ok_or("the vSphere fixture has a pull secret")?;
    let vsphere_without_vips = format!("{}{}", &vsphere[..vips_at], &vsphere[tail_at..]);
    let dir = tempfile::tempdir()?;
    let mut failures = Vec::new();
    // Both contexts, then the base context as every supported release renders it (a script
    // that only old releases have, such as bootstrap-pivot.sh until 4.11, is checked too), then
    // single nodes, with their own scripts.
    let mut contexts = vec![
        ("base".to_string(), base_context(), &scripts),
        ("rich".to_string(), rich_context(), &scripts),
    ];
    for profile in bootgen::release::PROFILES.iter() {
        let version = format!("{}.0", profile.minor);
        let ctx = cluster_context(&version);
        contexts.push((format!("release {}", profile.minor), ctx, &scripts));
        if profile.distribution(Distribution::Okd).is_some() {
            let okd =
                bootgen_conformance::templates::okd_context_of(BASE_INSTALL_CONFIG, &version)?;
            contexts.push((format!("OKD {}", profile.minor), okd, &scripts));
        }
        contexts.push((
            format!("single node {}", profile.minor),
            single_node_context(&version),
            &all,
        ));
        if profile.minor >= bootgen::release::Minor::new(4, 13) {
            for (label, config) in [
                ("vSphere", &vsphere),
                ("vSphere without VIPs", &vsphere_without_vips),
            ] {
                contexts.push((
                    format!("{label} {}", profile.minor),
                    library_context(config, &version),
                    &vsphere_scripts,
                ));
            }
        }
    }
    let mut checked = BTreeSet::new();
    for (label, ctx, scripts) in &contexts {
        for rel in scripts.iter() {
            let rendered = render_file(rel, ctx)?;
            if rendered.trim().is_empty() {
                continue; // e.g. proxy.sh without a proxy: nothing to check
            }
            if !checked.insert(rendered.clone()) {
                continue; // the same text was checked under another context
            }
            let path = dir
                .path()
                .join(format!("context-{}", checked.len()))
                .join(destination(rel));
            write_file(&path, &rendered, 0o755)?;
            let mut cmd = Command::new("shellcheck");
            cmd.arg("--severity=style").arg("--external-sources");
            if !rendered.starts_with("#!") {
                cmd.arg("--shell=sh"); // profile.d snippets are read by any login shell
            }
            let out = cmd.arg(&path).output()?;
            if !out.status.success() {
                failures.push(format!(
                    "templates/{rel} ({label} context):\n{}",
                    text(&out.stdout)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "shellcheck findings:\n{}",
        failures.join("\n")
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// systemd-analyze verify

/// Units the OS provides on RHCOS but a build host may lack.
const STUB_UNITS: &[(&str, &str)] = &[
    ("crio.service", "[Unit]\nDescription=stub\n[Service]\nExecStart=/usr/bin/crio\n"),
    ("rpc-statd.service", "[Unit]\nDescription=stub\n[Service]\nType=forking\nExecStart=/usr/sbin/rpc.statd\n"),
    ("NetworkManager.service", "[Unit]\nDescription=stub\n[Service]\nExecStart=/usr/sbin/NetworkManager\n"),
    ("sshd.service", "[Unit]\nDescription=stub\n[Service]\nExecStart=/usr/sbin/sshd -D\n"),
    ("zincati.service", "[Unit]\nDescription=stub\n[Service]\nExecStart=/usr/libexec/zincati agent\n"),
    (
        "systemd-journal-gatewayd.service",
        "[Unit]\nDescription=stub\nRequires=systemd-journal-gatewayd.socket\n[Service]\nExecStart=/usr/lib/systemd/systemd-journal-gatewayd\n",
    ),
    ("systemd-journal-gatewayd.socket", "[Unit]\nDescription=stub\n[Socket]\nListenStream=19531\n"),
    ("run-ephemeral.mount", "[Unit]\nDescription=stub\n[Mount]\nWhat=tmpfs\nWhere=/run/ephemeral\nType=tmpfs\n"),
];

const EXEC_KEYS: &[&str] = &[
    "ExecCondition=",
    "ExecStartPre=",
    "ExecStart=",
    "ExecStartPost=",
    "ExecReload=",
    "ExecStop=",
    "ExecStopPost=",
];

/// The absolute executables a unit runs (prefixes such as `-` and `!` removed).
fn executables(unit: &str) -> Vec<String> {
    unit.lines()
        .filter_map(|line| {
            let line = line.trim();
            EXEC_KEYS.iter().find_map(|key| line.strip_prefix(key))
        })
        .filter_map(|value| {
            let value = value.trim_start_matches(['-', '@', ':', '+', '!', '|']);
            value.split_whitespace().next().map(str::to_owned)
        })
        .filter(|exe| exe.starts_with('/'))
        .collect()
}

/// A root for `systemd-analyze verify --root`: the host's own unit files (for targets such as
/// multi-user.target), stubs for RHCOS units, then our units, drop-ins, scripts and the
/// generator where the node has them. Returns the unit names to verify.
fn build_unit_root(root: &Path) -> Result<Vec<String>, Box<dyn StdError>> {
    build_unit_root_for(root, &base_context())
}

/// [`build_unit_root`] with the node of `ctx`.
fn build_unit_root_for(root: &Path, ctx: &Json) -> Result<Vec<String>, Box<dyn StdError>> {
    let system_units = root.join("usr/lib/systemd/system");
    fs::create_dir_all(root.join("usr/lib/systemd"))?;
    for (link, target) in [("lib", "usr/lib"), ("bin", "usr/bin"), ("sbin", "usr/sbin")] {
        fs::create_dir_all(root.join(target))?;
        symlink(target, root.join(link))?;
    }
    let host_units = Path::new("/usr/lib/systemd/system");
    if host_units.is_dir() {
        let status = Command::new("cp")
            .arg("-a")
            .arg(host_units)
            .arg(root.join("usr/lib/systemd"))
            .status()?;
        assert!(status.success(), "cannot copy the host's unit files");
    }
    let mut units_to_check = BTreeSet::new();
    for (name, contents) in STUB_UNITS {
        if !system_units.join(name).exists() {
            write_file(&system_units.join(name), contents, 0o644)?;
        }
    }

    // Node files: scripts at their paths, units in /etc/systemd/system.
    let ctx = ctx.clone();
    for rel in files_under("node")? {
        let dest = destination(&rel).trim_start_matches("node/");
        if dest.starts_with("etc/systemd/system/") {
            write_file(&root.join(dest), &render_file(&rel, &ctx)?, 0o644)?;
            if let Some(name) = Path::new(dest).file_name().and_then(|n| n.to_str()) {
                units_to_check.insert(name.to_owned());
            }
        } else if is_script(&rel) {
            write_file(&root.join(dest), &render_file(&rel, &ctx)?, 0o755)?;
        }
    }

    // A single node's scripts and units, rendered for one.
    let single_node = single_node_context("4.22.0");
    for rel in files_under("single-node/node")? {
        let dest = destination(&rel).trim_start_matches("single-node/node/");
        if is_script(&rel) {
            write_file(&root.join(dest), &render_file(&rel, &single_node)?, 0o755)?;
        }
    }

    // Ignition units: units/<name> and drop-ins units/<name>.d/<file>. A unit with empty
    // contents is not written by Ignition (only enabled), so the OS unit stays.
    let unit_templates = files_under("units")?
        .into_iter()
        .map(|rel| (rel, "units/", &ctx))
        .chain(
            files_under("single-node/units")?
                .into_iter()
                .map(|rel| (rel, "single-node/units/", &single_node)),
        );
    for (rel, prefix, ctx) in unit_templates {
        let dest = destination(rel.trim_start_matches(prefix)).to_owned();
        let rendered = render_file(&rel, ctx)?;
        let unit_name = match dest.split_once(".d/") {
            Some((unit, _)) => unit.to_owned(),
            None => dest.clone(),
        };
        // An empty unit the OS does not have either (release-image-pivot.service, whose
        // contents are OKD's only) leaves nothing on the node to verify.
        if rendered.is_empty() && !dest.contains(".d/") && !system_units.join(&unit_name).exists() {
            continue;
        }
        units_to_check.insert(unit_name);
        if dest.contains(".d/") || !rendered.is_empty() {
            write_file(
                &root.join("etc/systemd/system").join(&dest),
                &rendered,
                0o644,
            )?;
        }
    }

    // OS binaries the units run become stubs; our own scripts must be there already.
    let mut unit_files = Vec::new();
    for dir in ["etc/systemd/system", "usr/lib/systemd/system"] {
        for name in &units_to_check {
            let path = root.join(dir).join(name);
            if path.is_file() {
                unit_files.push(fs::read_to_string(&path)?);
            }
            let dropins = root.join(dir).join(format!("{name}.d"));
            if dropins.is_dir() {
                for entry in fs::read_dir(&dropins)? {
                    unit_files.push(fs::read_to_string(entry?.path())?);
                }
            }
        }
    }
    for unit in &unit_files {
        for exe in executables(unit) {
            let path = root.join(exe.trim_start_matches('/'));
            if !exe.starts_with("/usr/local/") && !path.exists() {
                write_file(&path, "#!/bin/sh\nexit 0\n", 0o755)?;
            }
        }
    }
    Ok(units_to_check.into_iter().collect())
}

#[test]
fn units_pass_systemd_analyze_verify() -> TestResult {
    if !tool_available("systemd-analyze")? {
        return Ok(());
    }
    let root = tempfile::tempdir()?;
    let units = build_unit_root(root.path())?;
    for expected in [
        "bootkube.service",
        "kubelet.service",
        "zincati.service",
        "node-image-overlay.target",
    ] {
        assert!(
            units.iter().any(|u| u == expected),
            "{expected} not among the units checked: {units:?}"
        );
    }
    assert_units_verify(root.path(), &units, "")
}

/// Every unit of `units` passes `systemd-analyze verify` in `root`; `label` says which node.
fn assert_units_verify(root: &Path, units: &[String], label: &str) -> TestResult {
    let mut failures = Vec::new();
    for unit in units {
        if let Some(finding) = systemd_verify(root, unit)? {
            failures.push(finding);
        }
    }
    assert!(
        failures.is_empty(),
        "{label}systemd-analyze verify findings:\n{}",
        failures.join("\n\n")
    );
    Ok(())
}

/// OKD's node until 4.18 rebases before anything else: its pivot unit, which CRI-O's
/// configuration requires and the kubelet waits for, verifies with the rest.
#[test]
fn okd_units_pass_systemd_analyze_verify() -> TestResult {
    if !tool_available("systemd-analyze")? {
        return Ok(());
    }
    for version in ["4.12.0", "4.16.0"] {
        let root = tempfile::tempdir()?;
        let ctx = bootgen_conformance::templates::okd_context_of(BASE_INSTALL_CONFIG, version)?;
        let units = build_unit_root_for(root.path(), &ctx)?;
        assert!(
            units.iter().any(|u| u == "release-image-pivot.service"),
            "{version}: the pivot unit is not among the units checked: {units:?}"
        );
        let pivot = fs::read_to_string(
            root.path()
                .join("etc/systemd/system/release-image-pivot.service"),
        )?;
        assert!(
            pivot.contains("ExecStart=/usr/local/bin/bootstrap-pivot.sh"),
            "{pivot}"
        );
        assert_units_verify(root.path(), &units, &format!("OKD {version}: "))?;
    }
    Ok(())
}

/// The check above is only worth something if it fails on broken units.
#[test]
fn unit_verification_catches_broken_units() -> TestResult {
    if !tool_available("systemd-analyze")? {
        return Ok(());
    }
    let root = tempfile::tempdir()?;
    build_unit_root(root.path())?;
    let etc = root.path().join("etc/systemd/system");
    let broken = [
        (
            "typo-key.service",
            "[Unit]\nDescription=x\n[Service]\nExecStrat=/usr/bin/true\nExecStart=/usr/bin/true\n",
        ),
        (
            "bad-type.service",
            "[Service]\nType=oneshoot\nExecStart=/usr/bin/true\n",
        ),
        (
            "missing-script.service",
            "[Service]\nExecStart=/usr/local/bin/no-such-script.sh\n",
        ),
        (
            "missing-dep.service",
            "[Unit]\nRequires=no-such-unit.service\n[Service]\nExecStart=/usr/bin/true\n",
        ),
    ];
    fs::create_dir_all(root.path().join("usr/bin"))?;
    write_file(
        &root.path().join("usr/bin/true"),
        "#!/bin/sh\nexit 0\n",
        0o755,
    )?;
    for (name, contents) in broken {
        write_file(&etc.join(name), contents, 0o644)?;
        assert!(
            systemd_verify(root.path(), name)?.is_some(),
            "{name} passed verification"
        );
    }
    Ok(())
}

#[test]
fn generator_diverts_boot_only_without_openshift_clients() -> TestResult {
    let dir = tempfile::tempdir()?;
    let stubs = dir.path().join("stubs");
    write_file(
        &stubs.join("rpm"),
        "#!/bin/bash\n[ \"$STUB_RPM_INSTALLED\" = yes ]\n",
        0o755,
    )?;
    let generator =
        templates_dir().join("node/etc/systemd/system-generators/node-image-overlay-generator");
    let path = format!(
        "{}:{}",
        stubs.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (installed, diverted) in [("yes", false), ("no", true)] {
        let out_dir = dir.path().join(format!("out-{installed}"));
        let (normal, early, late) = (
            out_dir.join("normal"),
            out_dir.join("early"),
            out_dir.join("late"),
        );
        let out = Command::new("bash")
            .arg(&generator)
            .args([&normal, &early, &late])
            .env("PATH", &path)
            .env("STUB_RPM_INSTALLED", installed)
            .output()?;
        assert!(
            out.status.success(),
            "generator failed: {}",
            text(&out.stderr)
        );
        let link = early.join("default.target");
        assert_eq!(
            link.is_symlink(),
            diverted,
            "openshift-clients installed={installed}"
        );
        if diverted {
            assert_eq!(
                fs::read_link(&link)?,
                Path::new("/etc/systemd/system/node-image-overlay.target")
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// release-image-download.sh

/// A scratch setup for running release-image-download.sh against stubs.
struct DownloadRig {
    dir: tempfile::TempDir,
    /// The record library the script sources: a logging stub, or the real one.
    record_lib: PathBuf,
}

const PODMAN_STUB: &str = r#"#!/bin/bash
# Stub podman: behaviour comes from STUB_* variables; calls are logged.
echo "podman $*" >>"$STUB_DIR/podman.log"
case "$1 $2" in
    "pull "*)
        failures=$(cat "$STUB_DIR/pull-failures" 2>/dev/null || echo 0)
        if [ "$failures" -gt 0 ]; then
            echo $((failures - 1)) >"$STUB_DIR/pull-failures"
            echo "Error: initializing source docker://example: connection refused" >&2
            exit 125
        fi
        echo "sha256:1111111111111111111111111111111111111111111111111111111111111111"
        ;;
    "image inspect")
        printf '[{"Architecture":"%s","Digest":"%s","RepoDigests":%s}]\n' \
            "$STUB_IMAGE_ARCH" "$STUB_IMAGE_DIGEST" "$STUB_REPO_DIGESTS"
        ;;
    "manifest inspect")
        if [ "${STUB_MANIFEST_LIST:-no}" = yes ]; then
            echo '{"schemaVersion":2,"manifests":[{"platform":{"architecture":"amd64"}},{"platform":{"architecture":"arm64"}}]}'
        else
            echo "Error: not a manifest list" >&2
            exit 125
        fi
        ;;
    *)
        echo "unexpected podman call: $*" >&2
        exit 2
        ;;
esac
"#;

const UNAME_STUB: &str = r#"#!/bin/bash
if [ "${1:-}" = -m ]; then
    echo "$STUB_UNAME_M"
else
    echo Linux
fi
"#;

/// Stub of bootstrap-service-record.sh: logs each call. Like the real library, sourcing it
/// records the service start and installs the EXIT trap.
const RECORD_STUB: &str = r#"record_service_stage_start() { echo "stage-start $1" >>"$STUB_DIR/records.log"; }
record_service_stage_success() { echo "stage-success" >>"$STUB_DIR/records.log"; }
record_service_stage_failure() {
    echo "stage-failure" >>"$STUB_DIR/records.log"
    printf '%s\n' "${1:-}" >>"$STUB_DIR/failure-messages.log"
}
record_service_exit() { echo "service-exit $?" >>"$STUB_DIR/records.log"; }
trap record_service_exit EXIT
echo "service-start" >>"$STUB_DIR/records.log"
"#;

/// How one run of the script went.
struct DownloadRun {
    code: Option<i32>,
    output: String,
    records: Vec<String>,
    issue: Option<String>,
    podman_calls: String,
    /// The messages passed to record_service_stage_failure.
    failure_messages: String,
    /// The JSON written by the real record library, if it was used.
    record_file: String,
}

/// What the stubs report for one run.
struct Host<'a> {
    config_arch: &'a str,
    payload_multi: bool,
    uname_m: &'a str,
    image_arch: &'a str,
    repo_digests: Json,
    manifest_list: bool,
    pull_failures: u32,
}

const IMAGE_DIGEST: &str =
    "sha256:2222222222222222222222222222222222222222222222222222222222222222";

impl Host<'_> {
    fn single(
        config_arch: &'static str,
        uname_m: &'static str,
        image_arch: &'static str,
    ) -> Host<'static> {
        Host {
            config_arch,
            payload_multi: false,
            uname_m,
            image_arch,
            repo_digests: json!([format!(
                "quay.io/openshift-release-dev/ocp-release@{IMAGE_DIGEST}"
            )]),
            manifest_list: false,
            pull_failures: 0,
        }
    }
}

impl DownloadRig {
    fn new() -> Result<Self, Box<dyn StdError>> {
        let dir = tempfile::tempdir()?;
        write_file(&dir.path().join("stubs/podman"), PODMAN_STUB, 0o755)?;
        write_file(&dir.path().join("stubs/uname"), UNAME_STUB, 0o755)?;
        let record_lib = dir.path().join("record.sh");
        write_file(&record_lib, RECORD_STUB, 0o644)?;
        Ok(Self { dir, record_lib })
    }

    /// Uses templates' own bootstrap-service-record.sh, writing to `<run dir>/records/`.
    fn with_real_records() -> Result<Self, Box<dyn StdError>> {
        let mut rig = Self::new()?;
        rig.record_lib = templates_dir().join("node/usr/local/bin/bootstrap-service-record.sh");
        Ok(rig)
    }

    fn run(&self, host: &Host<'_>) -> Result<DownloadRun, Box<dyn StdError>> {
        let root = self.dir.path();
        let run_dir = tempfile::tempdir_in(root)?;
        let mut ctx = base_context();
        ctx["arch"]["go"] = json!(host.config_arch);
        ctx["payload_multi"] = json!(host.payload_multi);
        let script = render_file("node/usr/local/bin/release-image-download.sh.j2", &ctx)?;
        let script_path = run_dir.path().join("release-image-download.sh");
        write_file(&script_path, &script, 0o755)?;
        fs::write(
            run_dir.path().join("pull-failures"),
            host.pull_failures.to_string(),
        )?;
        let issue_dir = run_dir.path().join("issue.d");
        let path = format!(
            "{}:{}",
            root.join("stubs").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = Command::new("bash")
            .arg(&script_path)
            .env("PATH", path)
            .env("STUB_DIR", run_dir.path())
            .env("STUB_UNAME_M", host.uname_m)
            .env("STUB_IMAGE_ARCH", host.image_arch)
            .env("STUB_IMAGE_DIGEST", IMAGE_DIGEST)
            .env("STUB_REPO_DIGESTS", host.repo_digests.to_string())
            .env(
                "STUB_MANIFEST_LIST",
                if host.manifest_list { "yes" } else { "no" },
            )
            .env("BOOTSTRAP_SERVICE_RECORD_LIB", &self.record_lib)
            .env("SERVICE_RECORDS_DIR", run_dir.path().join("records"))
            .env("SERVICE_RECORD_NAME", "release-image")
            .env_remove("INVOCATION_ID")
            .env("RELEASE_IMAGE_ISSUE_DIR", &issue_dir)
            .env("RELEASE_IMAGE_PULL_RETRY_DELAY", "0")
            .env("RELEASE_IMAGE_PULL_ATTEMPTS", "5")
            .output()?;
        let read = |name: &str| fs::read_to_string(run_dir.path().join(name)).unwrap_or_default();
        Ok(DownloadRun {
            code: out.status.code(),
            output: format!("{}{}", text(&out.stdout), text(&out.stderr)),
            records: read("records.log").lines().map(str::to_owned).collect(),
            issue: fs::read_to_string(issue_dir.join("50_release-image.issue")).ok(),
            podman_calls: read("podman.log"),
            failure_messages: read("failure-messages.log"),
            record_file: read("records/release-image.json"),
        })
    }
}

fn assert_success(run: &DownloadRun) {
    assert_eq!(run.code, Some(0), "expected success:\n{}", run.output);
    assert_eq!(
        run.records,
        [
            "service-start",
            "stage-start pull-release-image",
            "stage-success",
            "stage-start image-metadata-arches-match",
            "stage-success",
            "service-exit 0",
        ],
        "output:\n{}",
        run.output
    );
    assert!(
        run.issue.is_none(),
        "console issue left behind: {:?}",
        run.issue
    );
}

fn assert_arch_failure(run: &DownloadRun, named: &[&str]) {
    assert_eq!(run.code, Some(1), "expected exit 1:\n{}", run.output);
    assert_eq!(
        run.records.get(3..).unwrap_or_default(),
        [
            "stage-start image-metadata-arches-match",
            "stage-failure",
            "service-exit 1"
        ],
        "records: {:?}\noutput:\n{}",
        run.records,
        run.output
    );
    let issue = run.issue.as_deref().unwrap_or_default();
    for arch in named {
        assert!(
            run.output.contains(arch),
            "message does not name {arch}:\n{}",
            run.output
        );
        assert!(
            issue.contains(arch),
            "console issue does not name {arch}:\n{issue}"
        );
        assert!(
            run.failure_messages.contains(arch),
            "stage record does not name {arch}:\n{}",
            run.failure_messages
        );
    }
    assert!(
        run.output.contains("--arch"),
        "message does not say what to do:\n{}",
        run.output
    );
    assert!(
        run.output.contains("multi-architecture"),
        "message does not mention multi payloads:\n{}",
        run.output
    );
}

#[test]
fn release_image_download_accepts_matching_image() -> TestResult {
    if !tool_available("jq")? {
        return Ok(());
    }
    let rig = DownloadRig::new()?;
    let run = rig.run(&Host::single("amd64", "x86_64", "amd64"))?;
    assert_success(&run);
    assert!(
        run.podman_calls
            .contains(&format!("podman pull --quiet {RELEASE_IMAGE}")),
        "{}",
        run.podman_calls
    );
    let run = rig.run(&Host::single("arm64", "aarch64", "arm64"))?;
    assert_success(&run);
    let run = rig.run(&Host::single("s390x", "s390x", "s390x"))?;
    assert_success(&run);
    Ok(())
}

#[test]
fn release_image_download_rejects_other_arch() -> TestResult {
    if !tool_available("jq")? {
        return Ok(());
    }
    let rig = DownloadRig::new()?;
    // An arm64 payload on the amd64 host the config was made for.
    let run = rig.run(&Host::single("amd64", "x86_64", "arm64"))?;
    assert_arch_failure(&run, &["arm64", "amd64"]);
    // An amd64 payload on the arm64 host the config was made for.
    let run = rig.run(&Host::single("arm64", "aarch64", "amd64"))?;
    assert_arch_failure(&run, &["amd64", "arm64"]);
    // Host and payload agree, but the config was generated for another architecture.
    let run = rig.run(&Host::single("arm64", "x86_64", "amd64"))?;
    assert_arch_failure(&run, &["amd64", "arm64"]);
    Ok(())
}

#[test]
fn release_image_download_accepts_multi_arch_payload_on_any_host() -> TestResult {
    if !tool_available("jq")? {
        return Ok(());
    }
    let rig = DownloadRig::new()?;
    // bootgen was told the payload is multi-arch.
    for (uname_m, image_arch) in [
        ("x86_64", "amd64"),
        ("aarch64", "arm64"),
        ("ppc64le", "ppc64le"),
    ] {
        let mut host = Host::single("arm64", uname_m, image_arch);
        host.payload_multi = true;
        assert_success(&rig.run(&host)?);
    }
    // Not told, but podman's repo digests show a manifest list (the list's digest and this
    // host's entry's).
    let mut host = Host::single("amd64", "aarch64", "arm64");
    host.repo_digests = json!([
        "quay.io/openshift-release-dev/ocp-release@sha256:3333333333333333333333333333333333333333333333333333333333333333",
        format!("quay.io/openshift-release-dev/ocp-release@{IMAGE_DIGEST}"),
    ]);
    assert_success(&rig.run(&host)?);
    // Not told, one repo digest, but the registry serves a manifest list.
    let mut host = Host::single("amd64", "aarch64", "arm64");
    host.manifest_list = true;
    let run = rig.run(&host)?;
    assert_success(&run);
    assert!(
        run.podman_calls.contains("podman manifest inspect"),
        "{}",
        run.podman_calls
    );
    Ok(())
}

/// With the real record library, the progress record a user opens says which stage failed and
/// why, in the same words as the console.
#[test]
fn release_image_download_records_arch_mismatch() -> TestResult {
    if !tool_available("jq")? {
        return Ok(());
    }
    let rig = DownloadRig::with_real_records()?;
    let run = rig.run(&Host::single("amd64", "x86_64", "arm64"))?;
    assert_eq!(run.code, Some(1), "{}", run.output);
    let records: Json = serde_json::from_str(&run.record_file).map_err(|err| {
        format!(
            "bad record file ({err}):\n{}\noutput:\n{}",
            run.record_file, run.output
        )
    })?;
    let entries = records
        .as_array()
        .ok_or("the record file is not a JSON array")?;
    let stage_ends: Vec<(&str, &str)> = entries
        .iter()
        .filter(|entry| entry["phase"] == "stage end")
        .map(|entry| {
            (
                entry["stage"].as_str().unwrap_or(""),
                entry["result"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        stage_ends,
        [
            ("pull-release-image", "success"),
            ("image-metadata-arches-match", "failure")
        ],
        "{records:#}"
    );
    let failure = entries
        .iter()
        .find(|entry| {
            entry["stage"] == "image-metadata-arches-match" && entry["result"] == "failure"
        })
        .ok_or("no failure entry")?;
    let message = failure["errorMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("arm64") && message.contains("amd64"),
        "{records:#}"
    );
    let last = entries.last().ok_or("empty record file")?;
    assert_eq!(
        (&last["phase"], &last["result"]),
        (&json!("service end"), &json!("failure")),
        "{records:#}"
    );
    Ok(())
}

#[test]
fn release_image_download_retries_pull_and_clears_console() -> TestResult {
    if !tool_available("jq")? {
        return Ok(());
    }
    let rig = DownloadRig::new()?;
    let mut host = Host::single("amd64", "x86_64", "amd64");
    host.pull_failures = 2;
    let run = rig.run(&host)?;
    assert_success(&run);
    assert_eq!(
        run.podman_calls.matches("podman pull").count(),
        3,
        "{}",
        run.podman_calls
    );
    assert!(
        run.output.contains("connection refused"),
        "pull error not shown:\n{}",
        run.output
    );

    // A pull that never succeeds leaves the reason on the console.
    host.pull_failures = 100;
    let run = rig.run(&host)?;
    assert_eq!(run.code, Some(1), "{}", run.output);
    let issue = run.issue.unwrap_or_default();
    assert!(
        issue.contains(RELEASE_IMAGE) && issue.contains("connection refused"),
        "{issue}"
    );
    assert_eq!(
        run.records.get(1..3).unwrap_or_default(),
        ["stage-start pull-release-image", "stage-failure"]
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// registries.conf and the other small config files

const REGISTRIES_CONF: &str = "node/etc/containers/registries.conf.j2";

/// Parses TOML with python3's tomllib and returns it as JSON.
fn parse_toml(toml: &str) -> Result<Json, Box<dyn StdError>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("registries.conf");
    fs::write(&path, toml)?;
    let out = Command::new("python3")
        .arg("-c")
        .arg("import json, sys, tomllib\nwith open(sys.argv[1], 'rb') as f:\n    print(json.dumps(tomllib.load(f)))")
        .arg(&path)
        .output()?;
    if !out.status.success() {
        return Err(format!("not valid TOML: {}\n{toml}", text(&out.stderr)).into());
    }
    Ok(serde_json::from_slice(&out.stdout)?)
}

#[test]
fn registries_conf_is_toml_with_expected_structure() -> TestResult {
    if !tool_available("python3")? {
        return Ok(());
    }
    let mut ctx = base_context();
    ctx["registries"] = two_registries();
    let rendered = render_file(REGISTRIES_CONF, &ctx)?;
    let parsed = parse_toml(&rendered)?;
    assert_eq!(
        parsed,
        json!({
            "registry": [
                {
                    "location": "quay.io/openshift-release-dev/ocp-release",
                    "insecure": false,
                    "mirror-by-digest-only": true,
                    "blocked": true,
                    "mirror": [
                        { "location": "mirror.example.com:5000/ocp4/release", "insecure": false },
                        { "location": "backup.example.com/ocp4/release", "insecure": true },
                    ],
                },
                {
                    "location": "quay.io/openshift-release-dev/ocp-v4.0-art-dev",
                    "insecure": true,
                    "mirror-by-digest-only": true,
                    "blocked": false,
                    "mirror": [
                        { "location": "mirror.example.com:5000/ocp4/art-dev", "insecure": false },
                    ],
                },
            ],
        }),
        "rendered:\n{rendered}"
    );
    // 4.22's installer says `blocked` in every table; 4.20's only where it is true.
    assert_eq!(rendered.matches("blocked").count(), 2, "{rendered}");
    let mut older = cluster_context("4.20.0");
    older["registries"] = two_registries();
    let rendered = render_file(REGISTRIES_CONF, &older)?;
    assert_eq!(rendered.matches("blocked").count(), 1, "{rendered}");
    Ok(())
}

#[test]
fn registries_conf_layout_and_empty_case() -> TestResult {
    let mut ctx = base_context();
    assert_eq!(
        render_file(REGISTRIES_CONF, &ctx)?,
        "",
        "no mirrors must give an empty file"
    );

    let registries = json!([{
        "location": "quay.io/openshift-release-dev/ocp-release",
        "insecure": false,
        "blocked": false,
        "mirror_by_digest_only": true,
        "mirrors": [
            { "location": "mirror.example.com/ocp4/release", "insecure": false },
            { "location": "mirror2.example.com/ocp4/release", "insecure": false },
        ],
    }]);
    ctx["registries"] = registries.clone();
    let expected = "[[registry]]\n\
        location = \"quay.io/openshift-release-dev/ocp-release\"\n\
        insecure = false\n\
        mirror-by-digest-only = true\n\
        blocked = false\n\
        \n\
        [[registry.mirror]]\n\
        location = \"mirror.example.com/ocp4/release\"\n\
        insecure = false\n\
        [[registry.mirror]]\n\
        location = \"mirror2.example.com/ocp4/release\"\n\
        insecure = false\n\
        \n\
        \n";
    assert_eq!(render_file(REGISTRIES_CONF, &ctx)?, expected);
    // Before 4.21 the installer writes no blocked line.
    let mut older = cluster_context("4.20.0");
    older["registries"] = registries;
    assert_eq!(
        render_file(REGISTRIES_CONF, &older)?,
        expected.replace("blocked = false\n", "")
    );
    Ok(())
}

#[test]
fn small_config_files_render_as_specified() -> TestResult {
    let base = base_context();
    let rich = rich_context();

    // Trust bundle: empty without one, the bundle plus one newline with one.
    let ca = "node/etc/pki/ca-trust/source/anchors/ca.crt.j2";
    assert_eq!(render_file(ca, &base)?, "");
    assert_eq!(
        render_file(ca, &rich)?,
        "-----BEGIN CERTIFICATE-----\nMIIBdemo\n-----END CERTIFICATE-----\n"
    );

    // Proxy for shells: empty without a proxy.
    let proxy_sh = "node/etc/profile.d/proxy.sh.j2";
    assert_eq!(render_file(proxy_sh, &base)?, "");
    let rendered = render_file(proxy_sh, &rich)?;
    assert!(
        rendered.contains("export HTTP_PROXY='http://user:p%40ss@proxy.example.com:3128'\n"),
        "{rendered}"
    );
    assert!(
        rendered.contains("export NO_PROXY='.cluster.local,"),
        "{rendered}"
    );

    // Proxy for systemd: [Manager] always; % doubled in the proxy URLs only.
    let default_env = "node/etc/systemd/system.conf.d/10-default-env.conf.j2";
    assert_eq!(render_file(default_env, &base)?, "[Manager]\n");
    assert_eq!(
        render_file(default_env, &rich)?,
        "[Manager]\n\
         DefaultEnvironment=\"HTTP_PROXY=http://user:p%%40ss@proxy.example.com:3128\"\n\
         DefaultEnvironment=\"HTTPS_PROXY=http://proxy.example.com:3129\"\n\
         DefaultEnvironment=\"NO_PROXY=.cluster.local,.svc,10.0.0.0/16,127.0.0.1,api-int.demo.example.com,localhost\"\n"
    );

    // Pull secret verbatim.
    let pull_secret = render_file("node/root/.docker/config.json.j2", &base)?;
    assert_eq!(
        pull_secret,
        base["pull_secret"].as_str().unwrap_or_default()
    );

    // FIPS switch for the initramfs.
    let fips = "node/etc/ignition-machine-config-encapsulated.json.j2";
    for (ctx, enabled) in [(&base, false), (&rich, true)] {
        let parsed: Json = serde_json::from_str(&render_file(fips, ctx)?)?;
        assert_eq!(parsed["metadata"]["name"], "bootstrap-fips");
        assert_eq!(parsed["spec"]["config"]["ignition"]["version"], "3.1.0");
        assert_eq!(parsed["spec"]["kernelArguments"], json!([]));
        assert_eq!(parsed["spec"]["fips"], json!(enabled));
    }

    // kubelet.sh takes the verbosity and node IP from the context.
    let kubelet = render_file("node/usr/local/bin/kubelet.sh.j2", &rich)?;
    assert!(kubelet.contains("--v=4"), "{kubelet}");
    assert!(kubelet.contains("fd00:1::5"), "{kubelet}");

    // Booleans reach bash as true/false.
    let kubelet_base = render_file("node/usr/local/bin/kubelet.sh.j2", &base)?;
    assert!(kubelet.contains("IPV6_PRIMARY=\"true\""), "{kubelet}");
    assert!(
        kubelet_base.contains("IPV6_PRIMARY=\"false\""),
        "{kubelet_base}"
    );
    let download = "node/usr/local/bin/release-image-download.sh.j2";
    assert!(render_file(download, &rich)?.contains("PAYLOAD_MULTI=\"true\""));
    assert!(render_file(download, &base)?.contains("PAYLOAD_MULTI=\"false\""));

    // The gatewayd socket unit is empty on purpose: Ignition only enables the OS unit.
    assert_eq!(
        render_file("units/systemd-journal-gatewayd.socket", &base)?,
        ""
    );
    Ok(())
}

/// minijinja prints booleans as `True`/`False`, which neither bash, TOML, JSON nor systemd
/// reads as a boolean: templates outside the YAML manifests must spell them out.
#[test]
fn booleans_render_lowercase() -> TestResult {
    let mut rendered_any = false;
    for sub in ["node/etc", "node/root", "node/usr", "units"] {
        for rel in files_under(sub)? {
            if !rel.ends_with(".j2") {
                continue;
            }
            for ctx in [base_context(), rich_context()] {
                let out = render_file(&rel, &ctx)?;
                rendered_any = true;
                for bad in ["True", "False"] {
                    for context in ["\"", "= ", "=", ": "] {
                        let needle = format!("{context}{bad}");
                        assert!(
                            !out.contains(&needle),
                            "templates/{rel} renders {needle:?}:\n{out}"
                        );
                    }
                }
            }
        }
    }
    assert!(rendered_any, "no templates found");
    Ok(())
}
