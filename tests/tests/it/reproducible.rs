//! Reproducibility: two separate processes given the same install-config, the same PKI and the
//! same clock write byte-identical output directories (every file, every mode).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::repo;
use std::collections::BTreeMap;
use std::path::Path;

fn snapshot(dir: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    bootgen_conformance::dir_contents(dir).unwrap()
}

/// The first run's output, and what it printed.
fn generate(out: &Path, tls: &Path) -> String {
    let output = bootgen_conformance::bootgen!()
        .args(["ignition", "--install-config"])
        .arg(repo().join("fixtures/install-configs/valid/mirrors.yaml"))
        .arg("--manifests-dir")
        .arg(repo().join("fixtures/manifests/extra"))
        .arg("--tls-dir")
        .arg(tls)
        .arg("--output")
        .arg(out)
        .env("SOURCE_DATE_EPOCH", "1767229200") // 2026-01-01T01:00:00Z
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The counts of "N files written, M unchanged in DIR" ("1 file written" for one).
fn counts(stdout: &str) -> (usize, usize) {
    let line = stdout
        .lines()
        .find(|l| l.contains(" written, ") && l.contains(" unchanged in "))
        .unwrap_or_else(|| panic!("no count in {stdout}"));
    let number = |word: &str| -> usize {
        let before = line.split(word).next().unwrap_or_default();
        before.split_whitespace().last().unwrap().parse().unwrap()
    };
    (number(" file"), number(" unchanged"))
}

#[test]
fn two_processes_write_identical_output() {
    let scratch = tempfile::tempdir().unwrap();
    let (a, b) = (scratch.path().join("a"), scratch.path().join("b"));
    let tls = repo().join("fixtures/pki");
    let wrote = counts(&generate(&a, &tls)).0;
    generate(&b, &tls);
    let (first, second) = (snapshot(&a), snapshot(&b));
    assert!(first.contains_key("bootstrap.ign") && first.contains_key("tls/root-ca.key"));
    let differing: Vec<_> = first
        .keys()
        .chain(second.keys())
        .filter(|k| first.get(*k) != second.get(*k))
        .collect();
    assert!(differing.is_empty(), "differ between runs: {differing:?}");
    assert_eq!(first["tls/root-ca.key"].0, 0o600);
    assert_eq!(first["auth/kubeconfig"].0, 0o600);

    // A third run into the first directory (reusing its tls/) changes nothing at all.
    let rerun = || {
        let output = bootgen_conformance::bootgen!()
            .args(["ignition", "--force", "--install-config"])
            .arg(repo().join("fixtures/install-configs/valid/mirrors.yaml"))
            .arg("--manifests-dir")
            .arg(repo().join("fixtures/manifests/extra"))
            .arg("--output")
            .arg(&a)
            .env("SOURCE_DATE_EPOCH", "1767229200")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    // Every file it wrote is counted unchanged, bootstrap.ign too (compared as it is
    // serialized, never made whole).
    assert_eq!(counts(&rerun()), (0, wrote));
    assert_eq!(snapshot(&a), first);
    // A bootstrap.ign changed by hand, even in its last byte only, is written again.
    let config = a.join("bootstrap.ign");
    let mut edited = std::fs::read(&config).unwrap();
    *edited.last_mut().unwrap() = b' ';
    std::fs::write(&config, &edited).unwrap();
    assert_eq!(counts(&rerun()), (1, wrote - 1));
    assert_eq!(snapshot(&a), first);
}
