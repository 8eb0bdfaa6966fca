//! `bootgen inspect` (summary, size budget, `--json`, `--certs`) and `bootgen diff`: snapshots of
//! their output on fixture configs written for this (`fixtures/ign/`), and their exit codes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::repo;
use serde_json::Value;
use std::process::Output;

/// Runs bootgen from the repository root (so file names in the output are relative).
fn bootgen(args: &[&str]) -> Output {
    bootgen_conformance::bootgen!()
        .current_dir(repo())
        .args(args)
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// `bootgen ignition` into `out` with the fixture PKI, a fixed clock and `extra`; its output.
fn generate_with_fixture_pki(out: &std::path::Path, extra: &[&str]) -> Output {
    let output = bootgen_conformance::bootgen!()
        .args(["ignition", "--now", "2026-01-01T00:00:00Z", "--tls-dir"])
        .arg(repo().join("fixtures/pki"))
        .args(extra)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    output
}

/// `inspect --certs --json` of `input` at `now`, which must succeed.
fn cert_report(now: &str, input: &std::path::Path) -> Value {
    let output = bootgen(&[
        "inspect",
        "--certs",
        "--json",
        "--now",
        now,
        input.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn inspect_summarizes_files_units_users_and_the_size_budget() {
    for (name, file) in [
        ("inspect_spec_3_2", "fixtures/ign/valid/spec-3.2.ign"),
        ("inspect_held_unit", "fixtures/ign/valid/held-unit.ign"),
    ] {
        let output = bootgen(&["inspect", file]);
        assert!(output.status.success(), "{output:?}");
        insta::assert_snapshot!(name, stdout(&output));
    }
    let output = bootgen(&["inspect", "--json", "fixtures/ign/valid/spec-3.0.ign"]);
    assert!(output.status.success());
    insta::assert_snapshot!("inspect_spec_3_0_json", stdout(&output));
}

#[test]
fn inspect_json_holds_what_the_text_says() {
    let output = bootgen(&["inspect", "--json", "fixtures/ign/valid/held-unit.ign"]);
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    let bootkube = summary["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == "bootkube.service")
        .unwrap();
    assert_eq!(bootkube["held"], true);
    assert_eq!(summary["budget"]["channels"][0]["name"], "AWS user data");
    assert_eq!(summary["budget"]["channels"][0]["limit"], 16384);
    assert_eq!(summary["budget"]["channels"][0]["fits"], true);
}

/// A user without a name (absent, `null`, or a `null` entry), which Ignition takes, is shown
/// as having none, not as a blank; its JSON name is the empty one Go reads.
#[test]
fn inspect_shows_a_user_without_a_name_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.ign");
    std::fs::write(
        &config,
        r#"{"ignition":{"version":"3.2.0"},"passwd":{"users":[null,{"name":"core"}]}}"#,
    )
    .unwrap();
    let path = config.to_str().unwrap();
    let shown = stdout(&bootgen(&["inspect", path]));
    assert!(
        shown.contains("\n  (no name)    0 SSH key(s), password not set\n"),
        "{shown}"
    );
    let summary: Value =
        serde_json::from_slice(&bootgen(&["inspect", "--json", path]).stdout).unwrap();
    assert_eq!(summary["users"][0]["name"], "");
}

/// `bootgen ignition` judges the config against what can carry it on its platform (platform
/// `none`: the live ISO and PXE/HTTP, no cloud's user data); `inspect --budget` against every
/// channel, with the pointer advice where one does not fit; the lines both print are the same.
#[test]
fn ignition_prints_the_budgets_of_its_platform_and_inspect_the_full_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output = bootgen_conformance::bootgen!()
        .args(["ignition", "--now", "2026-01-01T00:00:00Z", "--tls-dir"])
        .arg(repo().join("fixtures/pki"))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let generation = stdout(&output);
    let config = out.join("bootstrap.ign");
    let inspected = bootgen(&["inspect", "--budget", config.to_str().unwrap()]);
    assert!(inspected.status.success(), "{inspected:?}");
    let table = stdout(&inspected);
    let line_of = |text: &str, name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .map(str::to_string)
    };
    let mut shown = 0;
    for channel in bootgen::report::CHANNELS {
        let in_table = line_of(&table, channel.name);
        assert!(in_table.is_some(), "{} missing:\n{table}", channel.name);
        let in_generation = line_of(&generation, channel.name);
        if channel.applies_to("none") {
            assert_eq!(in_generation, in_table, "{generation}\n---\n{table}");
            shown += 1;
        } else {
            assert_eq!(in_generation, None, "{generation}");
        }
    }
    assert!(shown >= 2, "{generation}");
    // The default config is over AWS's 16 KiB: only the full table says so, with the way out.
    assert!(table.contains("does not fit"), "{table}");
    // The printed command can be pasted: it reads the config where it was written, and serves
    // it under the config's own name; inspect of the directory names the same config.
    let pointer = format!(
        "bootgen pointer --url https://HOST/bootstrap.ign [--ca CA.pem] {} -o pointer.ign",
        config.display()
    );
    assert!(table.contains(&pointer), "{table}");
    let of_dir = stdout(&bootgen(&["inspect", "--budget", out.to_str().unwrap()]));
    assert!(of_dir.contains(&pointer), "{of_dir}");
    assert!(!generation.contains("does not fit"), "{generation}");
    assert!(!generation.contains("bootgen pointer"), "{generation}");
    // The same figures for the same bytes: the header's live-ISO estimate too.
    let iso = |text: &str| {
        let header = line_of(text, "size budget").unwrap();
        header[header.find("in a live ISO").unwrap()..].to_string()
    };
    assert_eq!(iso(&generation), iso(&table));
    // --json: the same table as the summary's budget.
    let json = bootgen(&["inspect", "--budget", "--json", config.to_str().unwrap()]);
    let budget: Value = serde_json::from_slice(&json.stdout).unwrap();
    let summary = bootgen(&["inspect", "--json", config.to_str().unwrap()]);
    let summary: Value = serde_json::from_slice(&summary.stdout).unwrap();
    assert_eq!(budget, summary["budget"]);
    assert_eq!(
        budget["channels"].as_array().unwrap().len(),
        bootgen::report::CHANNELS.len()
    );
}

/// A re-run into the same directory reads the live-ISO estimate back rather than compressing
/// the same config again; the figure it prints is the one a fresh computation gives.
#[test]
fn a_rerun_reuses_the_live_iso_estimate_of_the_same_config() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = |extra: &[&str]| {
        let output = bootgen_conformance::bootgen!()
            .args([
                "ignition",
                "--now",
                "2026-01-01T00:00:00Z",
                "--force",
                "--tls-dir",
            ])
            .arg(repo().join("fixtures/pki"))
            .args(extra)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        stdout(&output)
    };
    let first = run(&[]);
    let record = out.join(bootgen::output::ISO_ESTIMATE_FILE);
    let config = std::fs::read(out.join("bootstrap.ign")).unwrap();
    let estimate = bootgen::report::xz_cpio_size(&config);
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.contains(&format!(" {estimate}\n")), "{text}");
    // Plant another figure for the same config: the re-run prints it, so it was read back.
    let planted = text.replace(&format!(" {estimate}\n"), " 1000\n");
    std::fs::write(&record, planted).unwrap();
    let second = run(&[]);
    assert!(
        second.contains("(embedded xz-compressed: 1000 B)"),
        "{second}"
    );
    assert!(
        second.contains("in a live ISO (xz-compressed cpio) 1000 B"),
        "{second}"
    );
    let shown = format!(
        "in a live ISO (xz-compressed cpio) {}",
        bootgen::report::human_size(estimate)
    );
    assert!(first.contains(&shown), "{first}");
    // Another config (held bootkube): computed again, and recorded for that config.
    let third = run(&["--debug"]);
    let changed = std::fs::read(out.join("bootstrap.ign")).unwrap();
    let estimate = bootgen::report::xz_cpio_size(&changed);
    assert!(
        third.contains(&format!(
            "(embedded xz-compressed: {})",
            bootgen::report::human_size(estimate)
        )),
        "{third}"
    );
    // The record is bootgen's own: not packed.
    let package = dir.path().join("out.tar.gz");
    let packed = bootgen(&[
        "package",
        out.to_str().unwrap(),
        "-o",
        package.to_str().unwrap(),
    ]);
    assert!(packed.status.success(), "{packed:?}");
    let listing = std::process::Command::new("tar")
        .arg("-tzf")
        .arg(&package)
        .output()
        .unwrap();
    let listing = String::from_utf8(listing.stdout).unwrap();
    assert!(listing.contains("bootstrap.ign"), "{listing}");
    assert!(
        !listing.contains(bootgen::output::ISO_ESTIMATE_FILE),
        "{listing}"
    );
}

#[test]
fn certificate_report_flags_expiring_and_expired_and_fails_when_expired() {
    let config = "fixtures/ign/valid/certificates.ign";
    let output = bootgen(&[
        "inspect",
        "--certs",
        "--now",
        "2026-01-01T12:00:00Z",
        config,
    ]);
    assert!(output.status.success(), "{output:?}");
    insta::assert_snapshot!("inspect_certs", stdout(&output));
    let output = bootgen(&[
        "inspect",
        "--certs",
        "--now",
        "2026-01-01T12:00:00Z",
        "--warn-within",
        "90m",
        config,
    ]);
    assert!(
        stdout(&output).contains("0 expiring within 1h 30m"),
        "{output:?}"
    );
    let output = bootgen(&[
        "inspect",
        "--certs",
        "--json",
        "--now",
        "2026-01-03T00:00:00Z",
        config,
    ]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let expired: Vec<&Value> = report["certificates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "expired")
        .collect();
    assert_eq!(expired.len(), 1, "{report:#}");
    assert_eq!(expired[0]["sans"][0], "api.example.example.com");
    assert!(String::from_utf8_lossy(&output.stderr).contains("1 certificate(s) have expired"));
    let output = bootgen(&["inspect", "--certs", "--warn-within", "soon", config]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--warn-within"));
}

#[test]
fn certificate_report_reads_an_output_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    generate_with_fixture_pki(&out, &[]);
    let report = cert_report("2026-01-01T00:00:00Z", &out);
    let certs = report["certificates"].as_array().unwrap();
    // 11 signers and 13 leaves, each once however many files carry it.
    assert_eq!(certs.len(), 24, "{report:#}");
    let places: Vec<&str> = certs
        .iter()
        .flat_map(|c| c["found_in"].as_array().unwrap())
        .map(|p| p.as_str().unwrap())
        .collect();
    assert!(places.contains(&"auth/kubeconfig (base64)"), "{places:?}");
    assert!(places.contains(&"tls/root-ca.crt"), "{places:?}");
    assert!(
        places.contains(&"/opt/openshift/auth/kubeconfig-kubelet (base64)"),
        "{places:?}"
    );
}

#[test]
fn diff_shows_every_kind_of_change_and_exits_1() {
    let output = bootgen(&[
        "diff",
        "fixtures/ign/diff/old.ign",
        "fixtures/ign/diff/new.ign",
    ]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = stdout(&output);
    assert!(!text.contains("c2VjcmV0"), "a pull secret leaked: {text}");
    assert!(!text.contains("FAKEFAKE"), "a key leaked: {text}");
    // A secret's digest is keyed anew by each process: it says the two sides differ, and every
    // digest is shown as `hmac:....` in the snapshot.
    let digests: Vec<&str> = text
        .match_indices("<redacted hmac:")
        .map(|(at, _)| &text[at..at + "<redacted hmac:1a2b>".len()])
        .collect();
    assert_eq!(digests.len(), 2, "{text}");
    assert_ne!(
        digests[0], digests[1],
        "the changed secret reads unchanged: {text}"
    );
    let mut shown = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("hmac:") {
        let end = at + "hmac:1a2b".len();
        shown.push_str(&rest[..at]);
        shown.push_str("hmac:....");
        rest = rest.get(end..).unwrap_or_default();
    }
    shown.push_str(rest);
    let text = shown;
    insta::assert_snapshot!("diff_old_new", text);
    let output = bootgen(&[
        "diff",
        "--json",
        "fixtures/ign/diff/old.ign",
        "fixtures/ign/diff/new.ign",
    ]);
    let diff: Value = serde_json::from_slice(&output.stdout).unwrap();
    let compressed = diff["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["name"] == "/etc/compressed-later.conf");
    assert!(
        !compressed,
        "compression alone is not a difference: {diff:#}"
    );
}

#[test]
fn diff_exit_codes_same_different_trouble() {
    let same = bootgen(&[
        "diff",
        "fixtures/ign/diff/old.ign",
        "fixtures/ign/diff/old.ign",
    ]);
    assert_eq!(same.status.code(), Some(0));
    assert!(stdout(&same).contains("are the same config"));
    let trouble = bootgen(&[
        "diff",
        "fixtures/ign/diff/old.ign",
        "fixtures/ign/invalid/json-syntax.ign",
    ]);
    assert_eq!(trouble.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&trouble.stderr).contains("json-syntax.ign"));
    let missing = bootgen(&["diff", "fixtures/ign/diff/old.ign", "no/such.ign"]);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn diff_of_two_output_directories_compares_every_output() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = |name: &str| scratch.path().join(name);
    let generate = |out: &str, extra: &[&str]| {
        let output = bootgen_conformance::bootgen!()
            .args([
                "ignition",
                "--key-algorithm",
                "ecdsa-p256",
                "--now",
                "2026-01-01T00:00:00Z",
            ])
            .arg("-o")
            .arg(dir(out))
            .args(extra)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
    };
    let diff = |a: &str, b: &str| {
        bootgen_conformance::bootgen!()
            .arg("diff")
            .args([dir(a), dir(b)])
            .output()
            .unwrap()
    };
    generate("a", &[]);
    let tls = dir("a").join("tls").display().to_string();
    generate("same", &["--tls-dir", &tls]);
    let same = diff("a", "same");
    assert_eq!(same.status.code(), Some(0), "{same:?}");
    assert!(stdout(&same).ends_with("hold the same outputs\n"));

    let config = dir("install-config.yaml");
    std::fs::write(
        &config,
        bootgen::config::DEFAULT_INSTALL_CONFIG.replace("  name: example", "  name: renamed"),
    )
    .unwrap();
    let config = config.display().to_string();
    generate("renamed", &["--tls-dir", &tls, "--install-config", &config]);
    std::fs::remove_file(dir("renamed").join("worker.ign")).unwrap();
    let changed = diff("a", "renamed");
    let text = stdout(&changed);
    assert_eq!(changed.status.code(), Some(1), "{changed:?}");
    for expected in [
        "~ file /opt/openshift/manifests/cluster-config.yaml",
        "~ other $.ignition.config.merge[0].source\n    \"https://api-int.example.example.com:22623/config/master\" -> \"https://api-int.renamed.example.com:22623/config/master\"",
        "- file worker.ign",
        "~ file metadata.json",
        "-  \"clusterName\": \"example\",",
        "+  \"clusterName\": \"renamed\",",
        "~ file auth/kubeconfig",
        "+    server: https://api.renamed.example.com:6443",
    ] {
        assert!(text.contains(expected), "{expected}:\n{text}");
    }
    // The admin kubeconfig's key is not printed, only a hash of it.
    let key = std::fs::read_to_string(dir("a").join("auth/kubeconfig")).unwrap();
    let key_data = key.lines().find(|l| l.contains("client-key-data")).unwrap();
    assert!(!text.contains(key_data.trim()));

    std::fs::write(dir("renamed").join("master.ign"), "{not json").unwrap();
    assert_eq!(diff("a", "renamed").status.code(), Some(2));
}

/// inspect says what a user asks first of a config: which release image it pulls, for which
/// architecture, through which mirrors; and of a pointer config, what it fetches and which CA it
/// trusts (which `--certs` reports).
#[test]
fn inspect_says_release_architecture_mirrors_and_what_a_pointer_fetches() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    generate_with_fixture_pki(
        &out,
        &[
            "--arch",
            "arm64",
            "--release-version",
            "4.16.3",
            "--mirror",
            "quay.io/openshift-release-dev/ocp-release=mirror.lab.example:5000/ocp/release",
            "--block-source",
            "--add-host",
            "192.0.2.10=mirror.lab.example",
        ],
    );
    let pulled = "mirror.lab.example:5000/ocp/release:4.16.3-aarch64";

    let text = stdout(&bootgen(&["inspect", out.to_str().unwrap()]));
    for line in [
        format!("release image {pulled}\n"),
        "architecture arm64 (control plane, from controlPlane.architecture in /opt/openshift/manifests/cluster-config.yaml)\n".to_string(),
        "mirror: quay.io/openshift-release-dev/ocp-release from mirror.lab.example:5000/ocp/release (source never contacted)\n".to_string(),
    ] {
        assert!(text.contains(&line), "lacks {line}:\n{text}");
    }
    let json: Value =
        serde_json::from_slice(&bootgen(&["inspect", "--json", out.to_str().unwrap()]).stdout)
            .unwrap();
    assert_eq!(json["release_image"], pulled);
    assert_eq!(json["architecture"]["control_plane"], "arm64");
    assert_eq!(
        json["mirrors"][0]["source"],
        "quay.io/openshift-release-dev/ocp-release"
    );
    assert_eq!(
        json["mirrors"][0]["mirrors"][0],
        "mirror.lab.example:5000/ocp/release"
    );
    assert_eq!(json["mirrors"][0]["blocked"], true);

    // master.ign: a pointer config that merges the machine-config server's config, trusting
    // the root CA.
    let master = out.join("master.ign");
    let text = stdout(&bootgen(&["inspect", master.to_str().unwrap()]));
    assert!(
        text.contains("pointer config: Ignition fetches https://api-int.")
            && text.contains(":22623/config/master and merges it into this config"),
        "{text}"
    );
    assert!(
        text.contains("Ignition trusts 1 CA certificate(s)"),
        "{text}"
    );
    let json: Value =
        serde_json::from_slice(&bootgen(&["inspect", "--json", master.to_str().unwrap()]).stdout)
            .unwrap();
    assert_eq!(json["fetches"][0]["how"], "merge");
    assert_eq!(json["trusted_cas"], 1);
    let report = cert_report("2026-01-01T00:01:00Z", &master);
    let found = report["certificates"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{report}");
    assert_eq!(found[0]["is_ca"], true, "{report}");
}

/// A fresh output's one-day bootstrap certificates are not "expiring" to `inspect --certs`, as
/// they are not to `validate`; twelve hours on, both say so.
#[test]
fn inspect_certs_and_validate_agree_on_fresh_certificates() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output = bootgen_conformance::bootgen!()
        .args([
            "ignition",
            "--now",
            "2026-01-01T00:00:00Z",
            "--key-algorithm",
            "ecdsa-p256",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let config = out.join("bootstrap.ign");
    let expiring = |now: &str| -> usize {
        cert_report(now, &config)["certificates"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["status"] == "expiring")
            .count()
    };
    let validate_warns = |now: &str| -> bool {
        let output = bootgen(&["validate", "--now", now, config.to_str().unwrap()]);
        stdout(&output).contains("expiring-certificate")
    };
    assert_eq!(expiring("2026-01-01T00:05:00Z"), 0);
    assert!(!validate_warns("2026-01-01T00:05:00Z"));
    assert!(expiring("2026-01-01T13:00:00Z") > 0);
    assert!(validate_warns("2026-01-01T13:00:00Z"));
}

/// A file entry that does not decode is an error naming the config it is in: for diff, the one
/// of its two inputs that holds it.
#[test]
fn an_entry_that_does_not_decode_is_named_with_its_config() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.ign");
    std::fs::write(
        &bad,
        r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/a","contents":{"source":"data:,%ZZ"}}]}}"#,
    )
    .unwrap();
    let good = repo().join("fixtures/ign/valid/spec-3.4.ign");
    let (bad, good) = (bad.to_str().unwrap(), good.to_str().unwrap());
    let root = dir.path().join("root");
    for args in [
        vec!["inspect", bad],
        vec!["inspect", "--objects", bad],
        vec!["diff", good, bad],
        vec!["extract", bad, "-o", root.to_str().unwrap()],
    ] {
        let output = bootgen(&args);
        let said = String::from_utf8_lossy(&output.stderr);
        assert_ne!(output.status.code(), Some(0), "{args:?}");
        assert!(said.contains(&format!("{bad}: ")), "{args:?}: {said}");
        assert!(!said.contains("<config>"), "{args:?}: {said}");
    }
}

/// A file whose contents the node fetches from elsewhere has no size the config can say: `-`
/// in the table, null in the JSON, and the header counts it apart.
#[test]
fn a_remote_file_has_an_unknown_size_not_zero() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("remote.ign");
    let hash = format!("sha512-{}", "ab".repeat(64));
    let value = serde_json::json!({"ignition": {"version": "3.3.0"}, "storage": {"files": [
        {"path": "/etc/a", "contents": {"source": "https://example.com/a", "verification": {"hash": hash}}}]}});
    std::fs::write(&config, value.to_string()).unwrap();
    let path = config.display().to_string();
    let text = stdout(&bootgen(&["inspect", &path]));
    assert!(
        text.contains("1 file (0 B decoded, 1 fetched from elsewhere, of unknown size)"),
        "{text}"
    );
    let row = text.lines().find(|l| l.ends_with("/etc/a")).unwrap();
    assert!(!row.contains("0 B"), "{text}");
    let json: Value =
        serde_json::from_slice(&bootgen(&["inspect", "--json", &path]).stdout).unwrap();
    assert!(json["files"][0]["size"].is_null(), "{json:#}");
}
