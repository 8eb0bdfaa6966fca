//! Held and masked units, checked with the real tools: Ignition's files stage writes the config,
//! then `systemctl --root` reads the preset Ignition wrote and `systemd-analyze condition` (in a
//! private mount namespace where the applied root's /etc is /etc) evaluates the hold.
//! Also `bootgen patch` round-trips on configs of every spec version from 3.0 to 3.5.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::repo;
use bootgen_conformance::{
    apply_with_ignition, bootgen, ignition_validate, is_enabled, preset_all, run,
};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn generate(out: &Path, extra: &[&str]) {
    let mut cmd = bootgen!();
    cmd.args(["ignition", "--key-algorithm", "ecdsa-p256", "--output"])
        .arg(out)
        .args(extra);
    run(&mut cmd).unwrap();
}

/// Evaluates `unit`'s conditions with the applied root's /etc mounted over /etc.
fn condition_holds(root: &Path, unit: &str) -> (bool, String) {
    let script = format!(
        "mount --bind {etc} /etc && exec systemd-analyze condition --root={root} --unit={unit}",
        etc = root.join("etc").display(),
        root = root.display(),
    );
    let output = Command::new("unshare")
        .args(["--mount", "sh", "-c", &script])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

#[test]
fn held_units_do_not_start_until_released_and_masked_units_are_masked() {
    let out = tempfile::tempdir().unwrap();
    generate(
        out.path(),
        &[
            "--debug",
            "--disable-unit",
            "approve-csr.service",
            "--mask-unit",
            "zincati.service",
        ],
    );
    let config = out.path().join("bootstrap.ign");
    let (clean, report) = ignition_validate(&config);
    assert!(clean, "{report}");
    let Some(applied) = apply_with_ignition(&config).unwrap() else {
        return; // not root outside CI: the harness said so
    };
    let root = applied.path();
    preset_all(root).unwrap();
    let state = |unit: &str| is_enabled(root, unit).unwrap();
    assert_eq!(
        state("approve-csr.service"),
        "enabled",
        "a hold leaves enablement alone: released, it starts at the next boot"
    );
    assert_eq!(state("kubelet.service"), "enabled");
    assert_eq!(state("progress.service"), "enabled");
    assert_eq!(state("zincati.service"), "masked");

    // The hold: bootkube's condition fails while the hold file exists, even though progress
    // (enabled) wants it; it passes once the file is gone, which is what bootgen-release does.
    for unit in ["bootkube.service", "approve-csr.service"] {
        let hold = applied.join(&format!("/etc/bootgen/hold/{unit}"));
        assert!(hold.exists(), "{unit} hold file missing");
        let (passes, text) = condition_holds(root, unit);
        assert!(!passes, "{unit} condition should fail while held:\n{text}");
        assert!(
            text.contains("ConditionPathExists=!/etc/bootgen/hold"),
            "{text}"
        );
        std::fs::remove_file(&hold).unwrap();
        let (passes, text) = condition_holds(root, unit);
        assert!(
            passes,
            "{unit} condition should pass once released:\n{text}"
        );
    }

    // The release script and the motd tell a person what to do.
    let release = std::fs::read_to_string(applied.join("/usr/local/bin/bootgen-release")).unwrap();
    assert!(release.contains("systemctl start"));
    let motd = std::fs::read_to_string(applied.join("/etc/motd")).unwrap();
    for needle in [
        "bash -x /usr/local/bin/bootkube.sh",
        "sudo /usr/local/bin/bootgen-release bootkube.service",
        "/var/log/openshift",
        "bootkube-reset.sh",
    ] {
        assert!(motd.contains(needle), "motd lacks {needle}:\n{motd}");
    }
    let status = Command::new("shellcheck")
        .arg(applied.join("/usr/local/bin/bootgen-release"))
        .status()
        .unwrap();
    assert!(status.success(), "bootgen-release is not shellcheck-clean");
    let kubelet = std::fs::read_to_string(applied.join("/usr/local/bin/kubelet.sh")).unwrap();
    assert!(kubelet.contains("--v=4"), "debug raises kubelet verbosity");
}

#[test]
fn hold_dropin_passes_systemd_analyze_verify() {
    let out = tempfile::tempdir().unwrap();
    generate(out.path(), &["--disable-unit", "bootkube.service"]);
    let doc: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("bootstrap.ign")).unwrap()).unwrap();
    let unit = doc["systemd"]["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == "bootkube.service")
        .unwrap();
    let dropin = unit["dropins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "10-bootgen-hold.conf")
        .unwrap()["contents"]
        .as_str()
        .unwrap()
        .to_string();
    // A root with a runnable stand-in for the unit plus the real drop-in.
    // The host's unit directory gives verify the targets every unit depends on.
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("usr/lib/systemd")).unwrap();
    let copy = Command::new("cp")
        .args(["-a", "/usr/lib/systemd/system"])
        .arg(root.path().join("usr/lib/systemd/"))
        .status()
        .unwrap();
    assert!(copy.success());
    std::fs::create_dir_all(root.path().join("bin")).unwrap();
    std::fs::copy("/bin/true", root.path().join("bin/true")).unwrap();
    let system = root.path().join("etc/systemd/system");
    std::fs::create_dir_all(system.join("bootkube.service.d")).unwrap();
    std::fs::write(
        system.join("bootkube.service"),
        "[Unit]\nDescription=stand-in\n[Service]\nExecStart=/bin/true\n",
    )
    .unwrap();
    std::fs::write(
        system.join("bootkube.service.d/10-bootgen-hold.conf"),
        &dropin,
    )
    .unwrap();
    let output = Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(format!("--root={}", root.path().display()))
        .arg("bootkube.service")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && !text.contains("bootgen-hold"),
        "verify rejected the drop-in:\n{text}"
    );
    // And it would notice a broken one.
    std::fs::write(
        system.join("bootkube.service.d/10-bootgen-hold.conf"),
        "[Unit]\nConditionPathExistz=!/x\n",
    )
    .unwrap();
    let output = Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(format!("--root={}", root.path().display()))
        .arg("bootkube.service")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&output.stderr).contains("ConditionPathExistz"));
}

fn patch(input: &Path, output: &Path, extra: &[&str]) -> std::process::Output {
    let mut cmd = bootgen!();
    cmd.arg("patch")
        .arg(input)
        .arg("-o")
        .arg(output)
        .args(extra);
    cmd.output().unwrap()
}

#[test]
fn patch_without_transforms_returns_the_input_byte_for_byte() {
    let scratch = tempfile::tempdir().unwrap();
    for name in [
        "spec-3.0",
        "spec-3.1",
        "spec-3.2",
        "spec-3.3",
        "spec-3.4",
        "spec-3.5",
        "installer-shaped-bootstrap",
    ] {
        let input = repo().join(format!("fixtures/patch/{name}.ign"));
        let output = scratch.path().join(format!("{name}.out"));
        let result = patch(&input, &output, &[]);
        assert!(
            result.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&result.stderr)
        );
        assert_eq!(
            std::fs::read(&input).unwrap(),
            std::fs::read(&output).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn patch_holds_units_in_every_spec_version_and_keeps_the_rest() {
    let scratch = tempfile::tempdir().unwrap();
    for minor in 0..=5 {
        let input = repo().join(format!("fixtures/patch/spec-3.{minor}.ign"));
        let output = scratch.path().join(format!("spec-3.{minor}.out"));
        let result = patch(
            &input,
            &output,
            &[
                "--disable-unit",
                "bootkube.service",
                "--mask-unit",
                "progress.service",
            ],
        );
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(result.status.success(), "3.{minor}: {stderr}");
        assert!(
            stderr.contains("bootkube.service: held"),
            "report names the change: {stderr}"
        );
        let before: Value = serde_json::from_slice(&std::fs::read(&input).unwrap()).unwrap();
        let after: Value = serde_json::from_slice(&std::fs::read(&output).unwrap()).unwrap();
        assert_eq!(
            after["ignition"], before["ignition"],
            "3.{minor}: version kept"
        );
        assert_eq!(
            after.get("kernelArguments"),
            before.get("kernelArguments"),
            "3.{minor}: unknown-to-us sections kept"
        );
        assert_eq!(
            after["storage"]["files"][0], before["storage"]["files"][0],
            "3.{minor}: untouched file kept"
        );
        let units = after["systemd"]["units"].as_array().unwrap();
        assert_eq!(units[1]["mask"], Value::Bool(true));
        assert!(units[0]["dropins"][0]["contents"]
            .as_str()
            .unwrap()
            .contains("ConditionPathExists=!/etc/bootgen/hold/bootkube.service"));
        if minor <= 3 {
            // Debian's Ignition 2.14 validates up to spec 3.3.
            let (clean, report) = ignition_validate(&output);
            assert!(clean, "3.{minor}: {report}");
        }
    }
}

#[test]
fn patch_an_installer_shaped_config_in_place_and_through_pipes() {
    let scratch = tempfile::tempdir().unwrap();
    let config = scratch.path().join("bootstrap.ign");
    std::fs::copy(
        repo().join("fixtures/patch/installer-shaped-bootstrap.ign"),
        &config,
    )
    .unwrap();
    let result = patch(&config, &config, &["--debug"]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let (clean, report) = ignition_validate(&config);
    assert!(clean, "{report}");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(!text.contains('\n'), "stays single-line JSON");
    let doc: Value = serde_json::from_str(&text).unwrap();
    let units = doc["systemd"]["units"].as_array().unwrap();
    let socket = units
        .iter()
        .find(|u| u["name"] == "systemd-journal-gatewayd.socket")
        .unwrap();
    assert_eq!(
        socket["contents"], "",
        "empty contents kept as the installer wrote them"
    );

    // stdin -> stdout
    let mut cmd = bootgen!();
    let output = cmd
        .args(["patch", "-", "-o", "-", "--mask-unit", "kubelet.service"])
        .stdin(std::fs::File::open(&config).unwrap())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let piped: Value = serde_json::from_slice(&output.stdout).unwrap();
    let kubelet = piped["systemd"]["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == "kubelet.service")
        .unwrap()
        .clone();
    assert_eq!(kubelet["mask"], Value::Bool(true));

    // A unit that is not there: an error listing the ones that are, and the file untouched.
    let before = std::fs::read(&config).unwrap();
    let result = patch(&config, &config, &["--disable-unit", "nosuch.service"]);
    assert_eq!(result.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(
        stderr.contains("nosuch.service") && stderr.contains("bootkube.service, kubelet.service"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&config).unwrap(), before);
}

/// `bootgen-release` takes a unit name as systemctl does (`bootkube` is `bootkube.service`),
/// says so when a unit is not held instead of claiming to release it, and refuses a path. Run
/// from the config, its hold directory moved into a scratch one and systemctl a recording stub.
#[test]
fn the_release_script_takes_names_as_systemctl_does() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    generate(&out, &["--disable-unit", "bootkube.service"]);
    let bytes = std::fs::read(out.join("bootstrap.ign")).unwrap();
    let doc = bootgen::ignition::IgnitionDoc::parse(&bytes, "bootstrap.ign").unwrap();
    let script = bootgen::ignition::decoded_files(&doc)
        .map(Result::unwrap)
        .find(|f| f.path == "/usr/local/bin/bootgen-release")
        .unwrap()
        .contents
        .unwrap();
    let hold = scratch.path().join("hold");
    std::fs::create_dir(&hold).unwrap();
    std::fs::write(hold.join("bootkube.service"), "held\n").unwrap();
    let release = scratch.path().join("bootgen-release");
    std::fs::write(&release, script).unwrap();
    let bin = scratch.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let calls = scratch.path().join("calls");
    std::fs::write(
        bin.join("systemctl"),
        format!("#!/bin/sh\necho \"$*\" >> {}\n", calls.display()),
    )
    .unwrap();
    std::fs::set_permissions(
        bin.join("systemctl"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let run_release = |unit: &str| {
        Command::new("bash")
            .arg(&release)
            .arg(unit)
            .env("BOOTGEN_HOLD_DIR", &hold)
            .env("BOOTGEN_UNIT_DIR", scratch.path().join("units"))
            .env("PATH", &path)
            .output()
            .unwrap()
    };
    let typo = run_release("bootkub.service");
    assert_eq!(typo.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&typo.stderr).contains("bootkub.service is not held"));
    assert_eq!(run_release("../etc/passwd").status.code(), Some(2));
    assert!(!calls.exists(), "nothing is started for a refused name");
    let released = run_release("bootkube");
    assert!(released.status.success(), "{released:?}");
    assert!(!hold.join("bootkube.service").exists());
    assert_eq!(
        std::fs::read_to_string(&calls).unwrap(),
        "start --no-block bootkube.service\n"
    );
}

/// A unit skipped by its condition has not failed, so systemd starts what requires it: held,
/// release-image.service holds crio-configure.service (Requires=) and bootkube.service
/// (Requires= crio-configure), whose pause-image step and stages would pull the release image;
/// kubelet.service, which only wants it, starts. `bootgen-release` then starts the held unit and
/// the units its hold skipped. Judged by Ignition's files stage and `systemd-analyze condition`;
/// the release script runs against the applied tree with systemctl a recording stub that says
/// each unit's last condition check failed.
#[test]
fn a_hold_holds_the_units_that_require_the_held_one_until_released() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    generate(&out, &["--disable-unit", "release-image.service"]);
    let config = out.join("bootstrap.ign");
    let (clean, report) = ignition_validate(&config);
    assert!(clean, "{report}");
    let Some(applied) = apply_with_ignition(&config).unwrap() else {
        return; // not root outside CI: the harness said so
    };
    let root = applied.path();
    for unit in [
        "release-image.service",
        "crio-configure.service",
        "bootkube.service",
    ] {
        let (passes, text) = condition_holds(root, unit);
        assert!(!passes, "{unit} should wait for the release:\n{text}");
    }
    let (passes, text) = condition_holds(root, "kubelet.service");
    assert!(passes, "kubelet only wants release-image:\n{text}");

    let release = applied.join("/usr/local/bin/bootgen-release");
    let bin = scratch.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let calls = scratch.path().join("calls");
    std::fs::write(
        bin.join("systemctl"),
        format!(
            "#!/bin/sh\ncase \"$1\" in show) echo no ;; *) echo \"$*\" >> {} ;; esac\n",
            calls.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        bin.join("systemctl"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let output = Command::new("bash")
        .arg(&release)
        .arg("release-image")
        .env("BOOTGEN_HOLD_DIR", root.join("etc/bootgen/hold"))
        .env("BOOTGEN_UNIT_DIR", root.join("etc/systemd/system"))
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        std::fs::read_to_string(&calls).unwrap(),
        "start --no-block release-image.service bootkube.service crio-configure.service\n"
    );
    for unit in [
        "release-image.service",
        "crio-configure.service",
        "bootkube.service",
    ] {
        let (passes, text) = condition_holds(root, unit);
        assert!(passes, "{unit} should start once released:\n{text}");
    }
}

/// A file where the hold files' directory goes (`/etc/bootgen`, or `/etc/bootgen/hold`): the
/// patched config would fail the files stage, so patch refuses it, naming the file, and writes
/// nothing.
#[test]
fn patch_refuses_a_hold_below_a_file_of_the_config() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["/etc/bootgen", "/etc/bootgen/hold"] {
        let config = serde_json::json!({
            "ignition": {"version": "3.3.0"},
            "storage": {"files": [{"path": file, "contents": {"source": "data:,x"}}]},
            "systemd": {"units": [{"name": "a.service", "contents": "[Service]\nExecStart=/bin/true\n"}]},
        });
        let input = dir.path().join("in.ign");
        std::fs::write(&input, config.to_string()).unwrap();
        let output = dir.path().join("out.ign");
        let patched = patch(&input, &output, &["--disable-unit", "a.service"]);
        let said = String::from_utf8_lossy(&patched.stderr);
        assert_eq!(patched.status.code(), Some(1), "{file}: {patched:?}");
        assert!(
            said.contains(&format!("{file} is a file or link")) && said.contains("nothing written"),
            "{file}: {said}"
        );
        assert!(!output.exists(), "{file}: the refused config was written");
    }
}
