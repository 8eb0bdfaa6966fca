//! `bootgen package` and `bootgen ignition --package`: two runs give the same bytes; read back
//! with the `tar` crate the entries are sorted, owned by root, dated SOURCE_DATE_EPOCH, keep
//! their modes (keys 0600), and SHA256SUMS matches every file. Also `bootgen pointer` (checked
//! by `ignition-validate`), and the generated completions and man pages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use base64::Engine as _;
use bootgen_conformance::ignition_validate;
use bootgen_conformance::repo;
use serde_json::Value;
use sha2::{Digest, Sha256, Sha512};
use std::io::Read as _;
use std::path::Path;
use std::process::Command;

const EPOCH: &str = "1767225600"; // 2026-01-01T00:00:00Z

fn bootgen() -> Command {
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.env("SOURCE_DATE_EPOCH", EPOCH);
    cmd
}

fn ok(cmd: &mut Command) -> String {
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "{cmd:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

fn generate(out: &Path, extra: &[&str]) {
    ok(bootgen()
        .args(["ignition", "--tls-dir"])
        .arg(repo().join("fixtures/pki"))
        .arg("-o")
        .arg(out)
        .args(extra));
}

struct Entry {
    path: String,
    mode: u32,
    uid: u64,
    gid: u64,
    mtime: u64,
    owner: String,
    is_dir: bool,
    data: Vec<u8>,
}

fn read_tarball(path: &Path) -> Vec<Entry> {
    let bytes = std::fs::read(path).unwrap();
    // The gzip header carries no time and no name.
    assert_eq!(&bytes[4..8], &[0, 0, 0, 0], "gzip mtime");
    assert_eq!(bytes[3] & 0x08, 0, "gzip file name");
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_slice()));
    archive
        .entries()
        .unwrap()
        .map(|entry| {
            let mut entry = entry.unwrap();
            let header = entry.header().clone();
            let mut data = Vec::new();
            entry.read_to_end(&mut data).unwrap();
            Entry {
                path: entry.path().unwrap().display().to_string(),
                mode: header.mode().unwrap(),
                uid: header.uid().unwrap(),
                gid: header.gid().unwrap(),
                mtime: header.mtime().unwrap(),
                owner: header.username().unwrap().unwrap_or_default().to_string(),
                is_dir: header.entry_type().is_dir(),
                data,
            }
        })
        .collect()
}

#[test]
fn two_runs_give_the_same_bytes_and_the_tarball_keeps_modes_and_checksums() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    generate(&out, &[]);
    let first = dir.path().join("first.tar.gz");
    let second = dir.path().join("second.tar.gz");
    ok(bootgen().arg("package").arg(&out).arg("-o").arg(&first));
    ok(bootgen().arg("package").arg(&out).arg("-o").arg(&second));
    assert_eq!(
        std::fs::read(&first).unwrap(),
        std::fs::read(&second).unwrap()
    );
    let entries = read_tarball(&first);
    let paths: Vec<&str> = entries
        .iter()
        .map(|e| e.path.trim_end_matches('/'))
        .collect();
    let mut sorted = paths.clone();
    sorted.sort_by(|a, b| a.split('/').cmp(b.split('/')));
    assert_eq!(paths, sorted, "entries are not sorted");
    for entry in &entries {
        assert_eq!((entry.uid, entry.gid), (0, 0), "{}", entry.path);
        assert_eq!(entry.owner, "root", "{}", entry.path);
        assert_eq!(entry.mtime.to_string(), EPOCH, "{}", entry.path);
        let expected = std::fs::symlink_metadata(out.join(entry.path.trim_end_matches('/')));
        if entry.path != "SHA256SUMS" {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = expected.unwrap().permissions().mode() & 0o7777;
            assert_eq!(entry.mode, mode, "{}", entry.path);
        }
        if entry.path.ends_with(".key") || entry.path == "auth/kubeconfig" {
            assert_eq!(entry.mode, 0o600, "{}", entry.path);
        }
    }
    let key = entries
        .iter()
        .find(|e| e.path == "tls/root-ca.key")
        .unwrap();
    assert_eq!(key.mode, 0o600);
    let sums = entries.iter().find(|e| e.path == "SHA256SUMS").unwrap();
    let sums = String::from_utf8(sums.data.clone()).unwrap();
    let files: Vec<&Entry> = entries
        .iter()
        .filter(|e| !e.is_dir && e.path != "SHA256SUMS")
        .collect();
    assert_eq!(sums.lines().count(), files.len());
    for file in files {
        let hex: String = Sha256::digest(&file.data)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert!(
            sums.contains(&format!("{hex}  {}\n", file.path)),
            "{}",
            file.path
        );
    }
    // `sha256sum -c` agrees on an unpacked copy.
    let unpacked = dir.path().join("unpacked");
    std::fs::create_dir(&unpacked).unwrap();
    ok(Command::new("tar")
        .arg("xzf")
        .arg(&first)
        .arg("-C")
        .arg(&unpacked));
    ok(Command::new("sha256sum")
        .args(["--quiet", "-c", "SHA256SUMS"])
        .current_dir(&unpacked));
}

#[test]
fn ignition_package_is_the_same_as_package_afterwards() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let one_step = dir.path().join("one-step.tar.gz");
    generate(&out, &["--package", one_step.to_str().unwrap()]);
    let after = dir.path().join("after.tar.gz");
    ok(bootgen().arg("package").arg(&out).arg("-o").arg(&after));
    assert_eq!(
        std::fs::read(&one_step).unwrap(),
        std::fs::read(&after).unwrap()
    );
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&one_step).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the tarball holds keys");
}

#[test]
fn a_symlink_in_the_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bootstrap.ign"), "{}").unwrap();
    std::os::unix::fs::symlink("/etc/shadow", dir.path().join("shadow")).unwrap();
    let output = bootgen()
        .arg("package")
        .arg(dir.path())
        .arg("-o")
        .arg(dir.path().join("x.tar.gz"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("shadow"));
}

#[test]
fn pointer_config_is_valid_verified_and_trusts_the_ca() {
    let dir = tempfile::tempdir().unwrap();
    let target = repo().join("fixtures/ign/valid/spec-3.4.ign");
    let pointer = dir.path().join("pointer.ign");
    let ca = repo().join("fixtures/trust/mirror-ca.crt");
    let said = ok(bootgen()
        .args([
            "pointer",
            "--url",
            "https://files.example.com/bootstrap.ign",
            "--ca",
        ])
        .arg(&ca)
        .arg(&target)
        .arg("-o")
        .arg(&pointer));
    assert!(said.contains("AWS user data"), "{said}");
    let (clean, report) = ignition_validate(&pointer);
    assert!(clean, "{report}");
    let config: Value = serde_json::from_slice(&std::fs::read(&pointer).unwrap()).unwrap();
    assert_eq!(config["ignition"]["version"], "3.2.0");
    let replace = &config["ignition"]["config"]["replace"];
    assert_eq!(replace["source"], "https://files.example.com/bootstrap.ign");
    let hex: String = Sha512::digest(std::fs::read(&target).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(replace["verification"]["hash"], format!("sha512-{hex}"));
    let cas = config["ignition"]["security"]["tls"]["certificateAuthorities"]
        .as_array()
        .unwrap();
    assert_eq!(cas.len(), 1);
    let source = cas[0]["source"].as_str().unwrap();
    let (_, b64) = source.split_once(";base64,").unwrap();
    let pem = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    assert_eq!(pem, std::fs::read(&ca).unwrap());
    let https = dir.path().join("https.ign");
    std::fs::copy(&pointer, &https).unwrap();
    // Without a CA; and refusals.
    ok(bootgen()
        .args(["pointer", "--force", "--url", "s3://bucket/bootstrap.ign"])
        .arg(&target)
        .arg("-o")
        .arg(&pointer));
    assert!(ignition_validate(&pointer).0);
    // Two pointers that fetch from different places are not the same objects.
    let diff = bootgen()
        .args(["diff", "--objects"])
        .arg(&https)
        .arg(&pointer)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&diff.stdout);
    assert_eq!(diff.status.code(), Some(1), "{said}");
    assert!(
        said.contains("~ fetch config.replace: source: \"https://files.example.com/bootstrap.ign\" -> \"s3://bucket/bootstrap.ign\""),
        "{said}"
    );
    assert!(said.contains("- authority [0]"), "{said}");
    for (url, ca) in [
        ("file:///bootstrap.ign", None),
        (
            "https://h/b.ign",
            Some(repo().join("fixtures/pki/root-ca.key")),
        ),
    ] {
        let mut cmd = bootgen();
        // --force: the URL or CA is what must be refused, not the pointer already there.
        cmd.args(["pointer", "--force", "--url", url]);
        if let Some(ca) = ca {
            cmd.arg("--ca").arg(ca);
        }
        let output = cmd.arg(&target).arg("-o").arg(&pointer).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{url}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !stderr.contains("PRIVATE KEY-----\nMII"),
            "key material in an error: {stderr}"
        );
    }
}

#[test]
fn completions_and_man_pages_come_from_the_cli_definition() {
    for shell in ["bash", "zsh", "fish"] {
        let script = ok(bootgen().args(["completions", shell]));
        for command in ["inspect", "validate", "package", "pointer"] {
            assert!(script.contains(command), "{shell}: no {command}");
        }
    }
    let page = ok(bootgen().arg("man"));
    assert!(
        page.starts_with(".ie") || page.contains(".TH bootgen 1"),
        "{page}"
    );
    let dir = tempfile::tempdir().unwrap();
    ok(bootgen().arg("man").arg("-o").arg(dir.path()));
    let diff = std::fs::read_to_string(dir.path().join("bootgen-diff.1")).unwrap();
    assert!(diff.contains("bootgen diff"), "{diff}");
    let output = Command::new("man")
        .arg("-l")
        .arg(dir.path().join("bootgen-validate.1"))
        .env("MANPAGER", "cat")
        .output();
    if let Ok(output) = output {
        if output.status.success() {
            assert!(String::from_utf8_lossy(&output.stdout).contains("no-lint"));
        }
    }
}

/// Every page bootgen.1 lists under its subcommands is written by `man -o`, and every page
/// written is listed: no reference leads nowhere.
#[test]
fn man_pages_written_are_the_pages_listed() {
    let dir = tempfile::tempdir().unwrap();
    ok(bootgen().arg("man").arg("-o").arg(dir.path()));
    let main = std::fs::read_to_string(dir.path().join("bootgen.1")).unwrap();
    // roff writes the name's hyphen escaped: `bootgen\-ignition(1)`.
    let listed: std::collections::BTreeSet<String> = main
        .replace("\\-", "-")
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter_map(|word| word.strip_suffix("(1)"))
        .filter(|name| name.starts_with("bootgen-"))
        .map(|name| format!("{name}.1"))
        .collect();
    let written: std::collections::BTreeSet<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "bootgen.1")
        .collect();
    assert!(listed.len() > 10, "{main}");
    assert_eq!(listed, written);
}

/// What `--package` would refuse (a destination in no directory, a file in the output directory
/// that bootgen does not write) is refused before the output is written, so the corrected
/// command is not then refused for the output it left.
#[test]
fn ignition_package_refuses_before_it_writes_anything() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = |package: &Path| {
        bootgen()
            .args(["ignition", "--key-algorithm", "ecdsa-p256", "-o"])
            .arg(&out)
            .arg("--package")
            .arg(package)
            .output()
            .unwrap()
    };
    let refused = run(&dir.path().join("missing/cluster.tar.gz"));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{said}");
    assert!(said.contains("missing/cluster.tar.gz"), "{said}");
    assert!(!out.exists(), "the output was written: {said}");

    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("NOTES.txt"), "mine").unwrap();
    let refused = run(&dir.path().join("cluster.tar.gz"));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{said}");
    assert!(said.contains("NOTES.txt"), "{said}");
    // Only the note (and the run's lock, a hidden file) is there.
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.'))
        .collect();
    assert_eq!(left, ["NOTES.txt"], "the output was written: {said}");

    std::fs::remove_file(out.join("NOTES.txt")).unwrap();
    let packed = run(&dir.path().join("cluster.tar.gz"));
    assert!(
        packed.status.success(),
        "{}",
        String::from_utf8_lossy(&packed.stderr)
    );
    assert!(dir.path().join("cluster.tar.gz").is_file());
}
