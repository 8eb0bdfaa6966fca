//! `--compress`: the compressed config is smaller, still valid, semantically equal (`bootgen
//! diff` exits 0), and the real Ignition `files` stage writes exactly the same tree from it as
//! from the uncompressed config: for a generated bootstrap.ign and for `bootgen patch` on
//! configs of every spec version the installed Ignition applies (3.0 to 3.3, and 3.4 as
//! 3.4.0-experimental).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::repo;
use bootgen_conformance::{apply_with_ignition, ignition_validate};
use serde_json::Value;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bootgen() -> Command {
    bootgen_conformance::bootgen!()
}

fn ok(cmd: &mut Command) -> String {
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "{cmd:?}: {output:?}");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Every entry below `dir`: relative path -> (mode, bytes or link target).
fn tree(dir: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let relative = path.strip_prefix(dir).unwrap().display().to_string();
            let mode = meta.permissions().mode() & 0o7777;
            if meta.is_dir() {
                out.insert(format!("{relative}/"), (mode, Vec::new()));
                stack.push(path);
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(relative, (0, target.display().to_string().into_bytes()));
            } else {
                out.insert(relative, (mode, std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

fn gzip_count(config: &Path) -> usize {
    std::fs::read_to_string(config)
        .unwrap()
        .matches("\"compression\":\"gzip\"")
        .count()
}

/// Applies both configs with the real Ignition and asserts the roots are the same.
fn assert_same_files(plain: &Path, compressed: &Path) {
    let Some(a) = apply_with_ignition(plain).unwrap() else {
        return; // not root outside CI (the harness said so)
    };
    let b = apply_with_ignition(compressed).unwrap().unwrap();
    let (ta, tb) = (tree(a.path()), tree(b.path()));
    assert_eq!(
        ta.keys().collect::<Vec<_>>(),
        tb.keys().collect::<Vec<_>>(),
        "different paths"
    );
    for (path, entry) in &ta {
        let other = &tb[path];
        if path == "etc/.ignition-result.json" {
            continue; // when Ignition ran
        }
        if path.ends_with(".preset") {
            // Ignition writes the preset from a Go map: the order of lines varies run to run.
            let lines = |bytes: &[u8]| {
                let mut lines: Vec<String> = String::from_utf8_lossy(bytes)
                    .lines()
                    .map(str::to_string)
                    .collect();
                lines.sort();
                lines
            };
            assert_eq!(lines(&entry.1), lines(&other.1), "{path}");
            assert_eq!(entry.0, other.0, "{path}");
            continue;
        }
        assert!(other == entry, "{path} differs");
    }
}

fn same_semantics(a: &Path, b: &Path) {
    let output = bootgen().arg("diff").arg(a).arg(b).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

#[test]
fn a_compressed_bootstrap_config_writes_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let generate = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        ok(bootgen()
            .args(["ignition", "--now", "2026-01-01T00:00:00Z", "--tls-dir"])
            .arg(repo().join("fixtures/pki"))
            .arg("-o")
            .arg(&out)
            .args(extra));
        out.join("bootstrap.ign")
    };
    let plain = generate("plain", &[]);
    let compressed = generate("gz", &["--compress"]);
    let (plain_size, gz_size) = (
        std::fs::metadata(&plain).unwrap().len(),
        std::fs::metadata(&compressed).unwrap().len(),
    );
    assert!(
        gz_size * 10 < plain_size * 8,
        "{plain_size} -> {gz_size}: less than 20% saved"
    );
    assert!(gzip_count(&compressed) > 50);
    let (clean, said) = ignition_validate(&compressed);
    assert!(clean, "{said}");
    same_semantics(&plain, &compressed);
    assert_same_files(&plain, &compressed);
}

/// The corpus config of `version`, without remote sources (the test root has no network) and
/// with 3.4.0 spelled as the installed Ignition knows it.
fn local_fixture(dir: &Path, version: &str) -> PathBuf {
    let path = repo().join(format!("fixtures/ign/valid/spec-{version}.ign"));
    let mut config: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let files = config["storage"]["files"].as_array_mut().unwrap();
    files.retain(|f| {
        f["contents"]["source"]
            .as_str()
            .is_none_or(|s| s.starts_with("data:"))
    });
    if version == "3.4" {
        config["ignition"]["version"] = "3.4.0-experimental".into();
    }
    let out = dir.join(format!("spec-{version}.ign"));
    std::fs::write(&out, serde_json::to_vec(&config).unwrap()).unwrap();
    out
}

#[test]
fn patch_compress_works_on_every_spec_version_ignition_applies() {
    let dir = tempfile::tempdir().unwrap();
    for version in ["3.0", "3.1", "3.2", "3.3", "3.4"] {
        let plain = local_fixture(dir.path(), version);
        let compressed = dir.path().join(format!("spec-{version}.gz.ign"));
        if version == "3.4" {
            // bootgen reads 3.4.0, not the experimental spelling: compress the 3.4.0 original.
            let original = dir.path().join("spec-3.4.0.ign");
            let text = std::fs::read_to_string(&plain).unwrap();
            std::fs::write(&original, text.replace("3.4.0-experimental", "3.4.0")).unwrap();
            let staged = dir.path().join("spec-3.4.0.gz.ign");
            ok(bootgen()
                .arg("patch")
                .arg(&original)
                .arg("--compress")
                .arg("-o")
                .arg(&staged));
            let text = std::fs::read_to_string(&staged).unwrap();
            std::fs::write(
                &compressed,
                text.replace("\"3.4.0\"", "\"3.4.0-experimental\""),
            )
            .unwrap();
        } else {
            let said = ok(bootgen()
                .arg("patch")
                .arg(&plain)
                .arg("--compress")
                .arg("-o")
                .arg(&compressed));
            assert!(said.contains("gzip-compressed"), "{version}: {said}");
            same_semantics(&plain, &compressed);
        }
        assert!(
            gzip_count(&compressed) > gzip_count(&plain),
            "{version}: nothing compressed"
        );
        let (clean, said) = ignition_validate(&compressed);
        assert!(clean, "{version}: {said}");
        assert_same_files(&plain, &compressed);
    }
}

#[test]
fn compressing_twice_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let plain = local_fixture(dir.path(), "3.2");
    let once = dir.path().join("once.ign");
    let twice = dir.path().join("twice.ign");
    ok(bootgen()
        .arg("patch")
        .arg(&plain)
        .arg("--compress")
        .arg("-o")
        .arg(&once));
    let said = ok(bootgen()
        .arg("patch")
        .arg(&once)
        .arg("--compress")
        .arg("-o")
        .arg(&twice));
    assert!(said.contains("output equals input"), "{said}");
    assert_eq!(
        std::fs::read(&once).unwrap(),
        std::fs::read(&twice).unwrap()
    );
}

/// `--compress` where no file gets smaller leaves the config as it was, and says that the
/// transform it asked for changed nothing, not that none was asked for.
#[test]
fn compress_where_nothing_shrinks_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("tiny.ign");
    std::fs::write(
        &input,
        r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/a","contents":{"source":"data:,a"}}]}}"#,
    )
    .unwrap();
    let out = dir.path().join("out.ign");
    let output = bootgen()
        .args(["patch", "--compress", "-o"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("changed nothing"), "{said}");
    assert!(!said.contains("no transform requested"), "{said}");
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&input).unwrap());
}
