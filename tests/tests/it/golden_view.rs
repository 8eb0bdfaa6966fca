//! `bootgen inspect --golden`: the view a golden-file test commits. Generated twice with
//! different PKIs and clocks it must be byte-identical; a change to the install-config must
//! show as a readable diff; `-o FILE` writes it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::bootgen;
use std::path::Path;
use std::process::Output;

fn generate(out: &Path, now: &str, install_config: Option<&Path>) {
    let mut cmd = bootgen!();
    cmd.args([
        "ignition",
        "--key-algorithm",
        "ecdsa-p256",
        "--now",
        now,
        "-o",
    ])
    .arg(out);
    if let Some(path) = install_config {
        cmd.arg("--install-config").arg(path);
    }
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "{output:?}");
}

fn golden(dir: &Path, extra: &[&str]) -> Output {
    bootgen!()
        .args(["inspect", "--golden"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap()
}

fn view(dir: &Path) -> String {
    let output = golden(dir, &[]);
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_view_is_the_same_for_another_pki_and_clock_and_shows_input_changes() {
    let scratch = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        scratch.path().join("a"),
        scratch.path().join("b"),
        scratch.path().join("c"),
    );
    generate(&a, "2026-01-01T00:00:00Z", None);
    generate(&b, "2026-07-15T13:37:00Z", None);
    assert_ne!(
        std::fs::read(a.join("bootstrap.ign")).unwrap(),
        std::fs::read(b.join("bootstrap.ign")).unwrap(),
        "two PKIs must give different configs, or this test proves nothing"
    );
    let first = view(&a);
    assert_eq!(first, view(&b));
    for section in [
        "bootstrap.ign",
        "master.ign",
        "worker.ign",
        "metadata.json",
        "auth/",
    ] {
        assert!(
            first.contains(&format!("######## {section}\n")),
            "{section}"
        );
    }
    for secret in ["PRIVATE KEY-----", "BEGIN CERTIFICATE", "$2a$"] {
        assert!(!first.contains(secret), "{secret} in the view");
    }
    let password = std::fs::read_to_string(a.join("auth/kubeadmin-password")).unwrap();
    assert!(!first.contains(password.trim()));

    // Another service network: the diff names it, and little else changes.
    let config = scratch.path().join("install-config.yaml");
    let text = bootgen::config::DEFAULT_INSTALL_CONFIG.replace("172.30.0.0/16", "172.31.0.0/16");
    assert_ne!(text, bootgen::config::DEFAULT_INSTALL_CONFIG);
    std::fs::write(&config, text).unwrap();
    generate(&c, "2026-01-01T00:00:00Z", Some(&config));
    let other = view(&c);
    let changed: Vec<&str> = first
        .lines()
        .zip(other.lines())
        .filter(|(x, y)| x != y)
        .map(|(_, y)| y)
        .collect();
    assert!(
        changed.iter().any(|l| l.contains("172.31.0.0/16")),
        "{changed:#?}"
    );
    assert!(
        changed.len() < 40,
        "a small input change, a small diff: {changed:#?}"
    );
}

#[test]
fn output_file_and_refusals() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    generate(&out, "2026-01-01T00:00:00Z", None);
    let file = scratch.path().join("golden.txt");
    let written = golden(&out, &["-o", file.to_str().unwrap()]);
    assert!(written.status.success(), "{written:?}");
    assert!(written.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), view(&out));

    let not_a_dir = golden(&out.join("bootstrap.ign"), &[]);
    assert_eq!(not_a_dir.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&not_a_dir.stderr);
    assert!(
        stderr.contains("--golden takes an output directory"),
        "{stderr}"
    );
    let with_certs = golden(&out, &["--certs"]);
    assert_eq!(with_certs.status.code(), Some(1));
}

/// A link planted at `hosts/x.ign` (or at `hosts/`) is not read through: the golden view and
/// `check` refuse it, naming it, rather than show or probe another file as a host's config.
#[test]
fn a_planted_link_among_the_host_configs_is_refused() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    generate(&out, "2026-01-01T00:00:00Z", None);
    // A JSON target is the worse case: it would be shown as if bootgen had written it.
    let elsewhere = scratch.path().join("elsewhere.ign");
    std::fs::write(&elsewhere, r#"{"ignition":{"version":"3.2.0"}}"#).unwrap();
    std::fs::create_dir_all(out.join("hosts")).unwrap();
    let link = out.join("hosts/x.ign");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    let checked = || {
        bootgen!()
            .arg("check")
            .arg(&out)
            .args(["--dns-server", "127.0.0.1:9", "--timeout", "1"])
            .output()
            .unwrap()
    };
    for output in [golden(&out, &[]), checked()] {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(&link.display().to_string()) && stderr.contains("link"),
            "{stderr}"
        );
    }
    std::fs::remove_file(&link).unwrap();
    std::fs::remove_dir(out.join("hosts")).unwrap();
    std::os::unix::fs::symlink(scratch.path(), out.join("hosts")).unwrap();
    let output = golden(&out, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("hosts") && stderr.contains("a link"),
        "{stderr}"
    );
}

/// A link anywhere the golden view or a directory diff reads (`auth/`, a file in it,
/// `metadata.json`, a config) is refused naming it: the view is meant to be committed, and a
/// link would put a file from elsewhere (a password hash) into it, or into a diff.
#[test]
fn links_in_an_output_directory_are_refused_by_the_golden_view_and_diff() {
    let scratch = tempfile::tempdir().unwrap();
    let (base, out) = (scratch.path().join("base"), scratch.path().join("out"));
    generate(&base, "2026-01-01T00:00:00Z", None);
    let elsewhere = scratch.path().join("shadow-like");
    std::fs::write(&elsewhere, "root:$6$salt$HashFromElsewhere:19000::::::\n").unwrap();
    let diff = |a: &Path, b: &Path| bootgen!().arg("diff").arg(a).arg(b).output().unwrap();
    for planted in [
        "auth/notes",
        "auth/kubeconfig",
        "metadata.json",
        "bootstrap.ign",
        "auth",
    ] {
        std::fs::remove_dir_all(&out).ok();
        copy_dir(&base, &out);
        let link = out.join(planted);
        if link.is_dir() {
            std::fs::remove_dir_all(&link).unwrap();
        } else {
            std::fs::remove_file(&link).ok();
        }
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        let shown = golden(&out, &[]);
        let compared = diff(&out, &base);
        for (what, output, code) in [("golden", &shown, 1), ("diff", &compared, 2)] {
            let said = String::from_utf8_lossy(&output.stdout).into_owned()
                + &String::from_utf8_lossy(&output.stderr);
            assert!(
                !said.contains("HashFromElsewhere"),
                "{what} {planted}: {said}"
            );
            // The diff does not read auth/notes at all; everything else is refused.
            if !(what == "diff" && planted == "auth/notes") {
                assert_eq!(output.status.code(), Some(code), "{what} {planted}: {said}");
                assert!(said.contains("link"), "{what} {planted}: {said}");
            }
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
