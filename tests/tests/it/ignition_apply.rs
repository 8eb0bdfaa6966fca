//! The configs bootgen writes, checked with the real Ignition: `ignition-validate` with no
//! warnings, then the `files` stage applied to a temporary root, where every file, unit, drop-in,
//! user and SSH key must land as the config says and the preset must enable exactly the units
//! marked enabled.
//!
//! A hand-written config proves the harness first: it must apply cleanly, and a root tampered with
//! after the fact must be caught, so a passing run on bootgen's output means something.

use std::error::Error;
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use bootgen_conformance::repo;
use bootgen_conformance::{
    apply_with_ignition, check_applied, ignition_validate, is_enabled, passwd_entry, read_preset,
    run, AppliedRoot, BaseRoot, IgnitionView,
};
use serde_json::{json, Value};

type TestResult = Result<(), Box<dyn Error>>;

const KEY_A: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBzRGLwHcYzmpxYJbMcLnO1TvsEsMdGvpoaXUDf4eHTM a@example";
const KEY_B: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGt3ZXmCB5T2vQ7M0Zl3b8wM2hYcVgN1q8E2y1sN4QqS b@example";
const MOTD_BEFORE: &[u8] = b"Fedora CoreOS, as the image ships it\n";
const BOOTKUBE: &str = "[Unit]\nDescription=Bootstrap a cluster\nWants=kubelet.service\n\n\
[Service]\nType=oneshot\nExecStart=/usr/local/bin/bootkube.sh\n\n[Install]\nWantedBy=multi-user.target\n";

fn base64_url(bytes: &[u8]) -> String {
    format!(
        "data:text/plain;charset=utf-8;base64,{}",
        STANDARD.encode(bytes)
    )
}

fn gzip(bytes: &[u8]) -> Result<Vec<u8>, Box<dyn Error>> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes)?;
    Ok(encoder.finish()?)
}

/// A config using every encoding and entry kind bootgen's configs use (and some they might).
fn hand_written_config() -> Result<Value, Box<dyn Error>> {
    let manifest = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n";
    Ok(json!({
        "ignition": {"version": "3.2.0"},
        "passwd": {"users": [{"name": "core", "sshAuthorizedKeys": [KEY_A, KEY_B]}]},
        "storage": {
            "directories": [{"path": "/var/log/openshift", "mode": 0o755}],
            "files": [
                {"path": "/usr/local/bin/bootkube.sh", "mode": 0o555, "overwrite": true,
                 "user": {"name": "root"},
                 "contents": {"source": base64_url(b"#!/usr/bin/env bash\necho bootkube\n")}},
                {"path": "/root/.docker/config.json", "mode": 0o600, "overwrite": true,
                 "user": {"name": "root"},
                 "contents": {"source": "data:,%7B%22auths%22%3A%7B%7D%7D%0A"}},
                {"path": "/opt/openshift/manifests/demo.yaml", "mode": 0o644, "overwrite": true,
                 "user": {"name": "root"},
                 "contents": {"source": format!("data:;base64,{}", STANDARD.encode(gzip(manifest)?)),
                              "compression": "gzip"}},
                {"path": "/etc/motd", "mode": 0o644, "user": {"name": "root"},
                 "append": [{"source": base64_url(b"This is the bootstrap node.\n")}]},
                {"path": "/etc/empty.conf", "mode": 0o600, "overwrite": true,
                 "contents": {"source": "data:,"}},
            ],
        },
        "systemd": {"units": [
            {"name": "bootkube.service", "contents": BOOTKUBE},
            {"name": "progress.service", "enabled": true,
             "contents": "[Service]\nExecStart=/usr/local/bin/report-progress.sh\n\n[Install]\nWantedBy=multi-user.target\n",
             "dropins": [{"name": "10-env.conf", "contents": "[Service]\nEnvironment=A=1\n"}]},
            {"name": "systemd-journal-gatewayd.service",
             "dropins": [{"name": "certs.conf", "contents": "[Service]\nExecStart=\n"}]},
            {"name": "systemd-journal-gatewayd.socket", "enabled": true, "contents": ""},
            {"name": "zincati.service", "enabled": false},
            {"name": "masked.service", "mask": true},
        ]},
    }))
}

fn write_config(dir: &Path, config: &Value) -> Result<PathBuf, Box<dyn Error>> {
    let path = dir.join("config.ign");
    fs::write(&path, serde_json::to_vec(config)?)?;
    Ok(path)
}

/// Applies `config` onto a root seeded, for each file the config appends to, with an existing
/// line (as the OS image would have); `None` when skipped for lack of root.
fn apply_seeded(config: &Path, view: &IgnitionView) -> Result<Option<AppliedRoot>, Box<dyn Error>> {
    let mut base = BaseRoot::new();
    for (path, _) in view
        .files
        .iter()
        .filter(|(_, file)| !file.append.is_empty())
    {
        base = base.seed(path, MOTD_BEFORE);
    }
    Ok(base.apply(config)?)
}

#[test]
fn hand_written_config_applies_as_it_says() -> TestResult {
    let started = Instant::now();
    let dir = tempfile::tempdir()?;
    let config = write_config(dir.path(), &hand_written_config()?)?;
    let (clean, report) = ignition_validate(&config);
    assert!(clean, "{report}");
    let view = IgnitionView::load(&config)?;
    let Some(root) = apply_seeded(&config, &view)? else {
        return Ok(());
    };
    let problems = check_applied(&view, &root)?;
    assert!(problems.is_empty(), "{problems:#?}\n{}", root.log());

    // The same facts spelled out, so the harness's generic checks are known to look at them.
    let motd = fs::read(root.join("/etc/motd"))?;
    assert_eq!(
        motd,
        [MOTD_BEFORE, b"This is the bootstrap node.\n"].concat()
    );
    let mode = fs::metadata(root.join("/usr/local/bin/bootkube.sh"))?
        .permissions()
        .mode();
    assert_eq!(mode & 0o7777, 0o555);
    assert_eq!(
        fs::read_to_string(root.join("/opt/openshift/manifests/demo.yaml"))?
            .lines()
            .count(),
        4
    );
    assert!(passwd_entry(root.path(), "core")?.is_some());
    let keys = fs::read_to_string(root.join("/home/core/.ssh/authorized_keys.d/ignition"))?;
    assert_eq!(keys.lines().collect::<Vec<_>>(), [KEY_A, KEY_B]);
    assert!(!root
        .join("/etc/systemd/system/systemd-journal-gatewayd.socket")
        .exists());
    assert!(root
        .join("/etc/systemd/system/systemd-journal-gatewayd.service.d/certs.conf")
        .exists());
    let preset = read_preset(root.path())?;
    let enabled: Vec<_> = preset
        .iter()
        .filter(|(_, on)| **on)
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(
        enabled,
        ["progress.service", "systemd-journal-gatewayd.socket"]
    );
    assert_eq!(is_enabled(root.path(), "bootkube.service")?, "disabled");
    assert_eq!(is_enabled(root.path(), "masked.service")?, "masked");
    eprintln!(
        "hand-written config: validated and applied in {:?}",
        started.elapsed()
    );
    Ok(())
}

#[test]
fn harness_catches_a_root_that_differs_from_the_config() -> TestResult {
    let dir = tempfile::tempdir()?;
    let config = write_config(dir.path(), &hand_written_config()?)?;
    let view = IgnitionView::load(&config)?;
    let Some(root) = apply_with_ignition(&config)? else {
        return Ok(());
    };
    let script = root.join("/usr/local/bin/bootkube.sh");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755))?;
    fs::write(root.join("/root/.docker/config.json"), "{}\n")?;
    fs::remove_file(root.join("/etc/systemd/system/progress.service.d/10-env.conf"))?;
    fs::write(
        root.join("/etc/systemd/system/systemd-journal-gatewayd.socket"),
        "[Socket]\n",
    )?;
    fs::write(
        root.join("/home/core/.ssh/authorized_keys.d/ignition"),
        format!("{KEY_A}\n"),
    )?;
    let preset = root.join("/etc/systemd/system-preset/20-ignition.preset");
    let mut lines = fs::read_to_string(&preset)?;
    lines.push_str("enable bootkube.service\n");
    fs::write(&preset, lines)?;

    let problems = check_applied(&view, &root)?.join("\n");
    for expected in [
        "/usr/local/bin/bootkube.sh: mode 0755, config says 0555",
        "/root/.docker/config.json: 3 bytes differ",
        "progress.service.d/10-env.conf: missing or different",
        "systemd-journal-gatewayd.socket: written without contents",
        "user core: key ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGt3",
        "preset {",
        "unit bootkube.service: is-enabled says enabled",
    ] {
        assert!(
            problems.contains(expected),
            "{expected:?} not reported in:\n{problems}"
        );
    }
    Ok(())
}

#[test]
fn validation_counts_warnings_as_failures() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut config = hand_written_config()?;
    config["unexpected"] = json!(true);
    let (clean, report) = ignition_validate(&write_config(dir.path(), &config)?);
    assert!(
        !clean && report.contains("Unused key unexpected"),
        "{report}"
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// bootgen's own output

/// One generation to check: a name for messages and the arguments after `bootgen ignition`.
struct Case {
    name: String,
    args: Vec<String>,
    /// The journal gateway socket is on the node (OKD's node lacks it from 4.15).
    gateway_socket: bool,
}

/// Directory options some fixtures need besides `--install-config`, as the snapshot tests pass
/// them: fixture, option, directory relative to the repository.
const FIXTURE_DIRS: &[(&str, &str, &str)] = &[(
    "user-manifests.yaml",
    "--manifests-dir",
    "fixtures/manifests/extra",
)];

/// The fixed PKI fixtures generate with, as the snapshot tests do: about a second instead of
/// minting every key (the default case still mints them). It is read, never written.
const FIXTURE_PKI: &str = "fixtures/pki";
/// The clock the fixed PKI is valid at.
const FIXTURE_NOW: &str = "2026-01-01T01:00:00Z";

/// The embedded default (as the README runs it, with a new PKI) and every valid install-config
/// fixture (with the fixture PKI).
fn cases() -> Result<Vec<Case>, Box<dyn Error>> {
    let mut cases = vec![Case {
        name: "embedded default (--arch arm64)".into(),
        args: vec!["--arch".into(), "arm64".into()],
        gateway_socket: true,
    }];
    // Every supported release's bootstrap, each applied by the real Ignition.
    for profile in bootgen::release::PROFILES.iter() {
        cases.push(Case {
            name: format!("OpenShift {}", profile.minor),
            args: vec![
                "--key-algorithm".into(),
                "ecdsa-p256".into(),
                "--release-version".into(),
                format!("{}.0", profile.minor),
            ],
            gateway_socket: true,
        });
    }
    // OKD's node, with and without the pivot, before and after its journal gateway went.
    for minor in ["4.12", "4.16", "4.19", "4.22"] {
        cases.push(Case {
            name: format!("OKD {minor}"),
            args: vec![
                "--key-algorithm".into(),
                "ecdsa-p256".into(),
                "--release-image".into(),
                format!("quay.io/okd/scos-release:{minor}.0-okd-scos.0"),
            ],
            gateway_socket: minor == "4.12",
        });
    }
    let fixtures = repo().join("fixtures/install-configs/valid");
    let mut paths: Vec<PathBuf> = fs::read_dir(&fixtures)
        .map_err(|err| format!("{}: {err}", fixtures.display()))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()?;
    paths.sort();
    for path in paths
        .iter()
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
    {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut args = vec!["--install-config".into(), path.display().to_string()];
        args.extend(["--now".into(), FIXTURE_NOW.into(), "--tls-dir".into()]);
        args.push(repo().join(FIXTURE_PKI).display().to_string());
        for (_, option, dir) in FIXTURE_DIRS.iter().filter(|(fixture, ..)| *fixture == name) {
            args.extend([option.to_string(), repo().join(dir).display().to_string()]);
        }
        cases.push(Case {
            name,
            args,
            gateway_socket: true,
        });
    }
    Ok(cases)
}

/// Generates `case` and runs every check: the problems found, each prefixed with the case, and a
/// line saying what was checked and how long each part took.
fn check_case(case: &Case) -> Result<(Vec<String>, String), Box<dyn Error>> {
    let out = tempfile::tempdir()?;
    let started = Instant::now();
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.arg("ignition")
        .args(&case.args)
        .arg("--output")
        .arg(out.path());
    run(&mut cmd)?;
    let generated = started.elapsed();
    let mut problems = Vec::new();
    for name in ["bootstrap.ign", "master.ign", "worker.ign"] {
        let (clean, report) = ignition_validate(&out.path().join(name));
        if !clean {
            problems.push(format!("ignition-validate: {report}"));
        }
    }
    let config = out.path().join("bootstrap.ign");
    let view = IgnitionView::load(&config)?;
    let core_keys = view.users.get("core").map_or(0, |core| core.ssh_keys.len());
    if core_keys == 0 {
        problems.push("bootstrap.ign has no core user with an SSH key".into());
    }
    let socket = view.units.get("systemd-journal-gatewayd.socket");
    if !case.gateway_socket {
        if socket.is_some() {
            problems.push("the journal gateway socket is on an OKD node".into());
        }
    } else if socket
        .is_none_or(|unit| unit.contents.as_deref() != Some("") || unit.enabled != Some(true))
    {
        problems.push(format!(
            "systemd-journal-gatewayd.socket is not an enabled empty unit: {socket:?}"
        ));
    }
    if let Some(root) = apply_seeded(&config, &view)? {
        problems.extend(check_applied(&view, &root)?);
        if passwd_entry(root.path(), "core")?.is_none() {
            problems.push("core is not in /etc/passwd".into());
        }
    }
    let enabled = view
        .units
        .values()
        .filter(|unit| unit.enabled == Some(true))
        .count();
    let summary = format!(
        "{} files, {} units ({enabled} enabled), users {:?}: generated in {generated:?}, validated and applied in {:?}",
        view.files.len(),
        view.units.len(),
        view.users.keys().collect::<Vec<_>>(),
        started.elapsed() - generated,
    );
    let problems = problems
        .into_iter()
        .map(|problem| format!("{}: {problem}", case.name));
    Ok((problems.collect(), summary))
}

#[test]
fn generated_configs_validate_and_apply_with_ignition() -> TestResult {
    let mut problems = Vec::new();
    for case in cases()? {
        match check_case(&case) {
            Ok((found, summary)) => {
                eprintln!("{}: {summary}", case.name);
                problems.extend(found);
            }
            Err(err) => problems.push(format!("{}: {err}", case.name)),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    Ok(())
}
