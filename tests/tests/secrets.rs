//! Secrets never reach the terminal: generate with a known pull secret, then run every command
//! on the result and search everything they print for the pull secret, the kubeadmin password
//! and any private key.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::repo;
use std::path::Path;

const PULL_SECRET_MARKER: &str = "c2VjcmV0LW1hcmtlci1kby1ub3QtcHJpbnQ";

fn bootgen(args: &[&str], paths: &[&Path]) -> String {
    let output = bootgen_conformance::bootgen!()
        .args(args)
        .args(paths)
        .output()
        .unwrap();
    format!(
        "$ bootgen {args:?}\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn no_command_prints_a_secret() {
    let scratch = tempfile::tempdir().unwrap();
    let config = scratch.path().join("install-config.yaml");
    let text = std::fs::read_to_string(
        repo().join("fixtures/install-configs/valid/proxy-trust-bundle.yaml"),
    )
    .unwrap()
    .replace("Zml4dHVyZTpmaXh0dXJl", PULL_SECRET_MARKER);
    std::fs::write(&config, text).unwrap();
    let out = scratch.path().join("out");
    let ign = out.join("bootstrap.ign");
    let patched = scratch.path().join("patched.ign");

    let mut printed = String::new();
    printed += &bootgen(
        &[
            "ignition",
            "--key-algorithm",
            "ecdsa-p256",
            "--install-config",
        ],
        &[&config, Path::new("--output"), &out],
    );
    assert!(ign.exists(), "{printed}");
    printed += &bootgen(
        &[
            "patch",
            "--debug",
            "--disable-unit",
            "approve-csr.service",
            "-o",
        ],
        &[&patched, &ign],
    );
    printed += &bootgen(&["inspect"], &[&ign]);
    printed += &bootgen(&["inspect", "--json"], &[&ign]);
    printed += &bootgen(&["inspect", "--certs"], &[&ign]);
    printed += &bootgen(&["inspect", "--certs"], &[&out]);
    printed += &bootgen(&["validate"], &[&ign, &patched]);
    printed += &bootgen(&["diff"], &[&ign, &patched]);
    printed += &bootgen(
        &["extract", "-o"],
        &[&scratch.path().join("extracted"), &ign],
    );
    // A broken copy of the config: its parse error must not echo the content around it.
    let truncated = scratch.path().join("truncated.ign");
    let bytes = std::fs::read(&ign).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    printed += &bootgen(&["validate"], &[&truncated]);
    printed += &bootgen(&["inspect"], &[&truncated]);
    printed += &bootgen(
        &["patch", "--debug", "-o"],
        &[&scratch.path().join("x.ign"), &truncated],
    );

    let password = std::fs::read_to_string(out.join("auth/kubeadmin-password")).unwrap();
    assert!(!password.is_empty());
    for (what, needle) in [
        ("pull secret", PULL_SECRET_MARKER),
        ("kubeadmin password", password.trim()),
        ("private key", "PRIVATE KEY"),
    ] {
        assert!(!printed.contains(needle), "{what} printed:\n{printed}");
    }
    // The commands did run and say something useful.
    assert!(printed.contains("bootstrap.ign"), "{printed}");
}
