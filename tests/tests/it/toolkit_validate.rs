//! `bootgen validate` against the real `ignition-validate` on the corpus in `fixtures/ign/`:
//!
//! - `valid/`: both accept (every spec version 3.0 to 3.5, and configs Ignition only warns about);
//! - `invalid/`: both reject, and bootgen gives every error a location;
//! - `boot-fail/`: `ignition-validate` accepts them, the real Ignition `files` stage fails on them,
//!   and bootgen rejects them (as Ignition's `files` stage check, `"check": "boot"`).
//!
//! The Debian `ignition-validate` (2.14) knows specs up to 3.3.0 and 3.4.0-experimental: a 3.4.0
//! config is compared as 3.4.0-experimental (the same schema), a 3.5.0 config is checked by
//! bootgen alone against the directory it is in.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::repo;
use bootgen_conformance::{apply_with_ignition, ignition_validate, IGNITION_VALIDATE};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("fixtures/ign").join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ign"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {dir}");
    files
}

/// bootgen's verdict (Ignition's rules only, no lints) and its JSON report.
fn bootgen_validate(path: &Path) -> (bool, Value) {
    let output = bootgen_conformance::bootgen!()
        .args(["validate", "--no-lint", "--json"])
        .arg(path)
        .output()
        .unwrap();
    let code = output.status.code();
    assert!(
        code == Some(0) || code == Some(1),
        "{path:?}: exit {code:?}"
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    (code == Some(0), report[0].clone())
}

/// `ignition-validate`'s verdict (exit status; warnings do not make a config invalid), or None
/// when it does not know the spec version.
fn real_validate(path: &Path) -> Option<(bool, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let target = if text.contains("\"3.5.0\"") {
        return None;
    } else if text.contains("\"3.4.0\"") {
        // One name per call: tests running at once may each compare a `c.ign`.
        static COPIES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let copy = std::env::temp_dir().join(format!(
            "bootgen-{}-{}-{}",
            std::process::id(),
            COPIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            path.file_name().unwrap().to_string_lossy()
        ));
        std::fs::write(&copy, text.replace("\"3.4.0\"", "\"3.4.0-experimental\"")).unwrap();
        copy
    } else {
        path.to_path_buf()
    };
    let output = Command::new(IGNITION_VALIDATE)
        .arg(&target)
        .output()
        .unwrap();
    if target != path {
        let _ = std::fs::remove_file(&target);
    }
    let mut said = String::from_utf8_lossy(&output.stdout).into_owned();
    said.push_str(&String::from_utf8_lossy(&output.stderr));
    Some((output.status.success(), said))
}

fn problems(report: &Value) -> &Vec<Value> {
    report["problems"].as_array().unwrap()
}

#[test]
fn valid_configs_are_valid_for_both() {
    let mut versions = Vec::new();
    for path in corpus("valid") {
        let (ours, report) = bootgen_validate(&path);
        assert!(ours, "bootgen rejects {path:?}: {report:#}");
        versions.push(report["version"].as_str().unwrap().to_string());
        if let Some((theirs, said)) = real_validate(&path) {
            assert!(theirs, "ignition-validate rejects {path:?}: {said}");
            // Where Ignition warns, bootgen warns too.
            if !said.trim().is_empty() {
                assert!(
                    problems(&report).iter().any(|p| p["severity"] == "warning"),
                    "{path:?}: ignition-validate warns ({said}) but bootgen does not: {report:#}"
                );
            }
        }
    }
    for version in ["3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0", "3.5.0"] {
        assert!(
            versions.iter().any(|v| v == version),
            "no valid {version} fixture"
        );
    }
}

#[test]
fn invalid_configs_are_invalid_for_both_and_every_error_is_located() {
    for path in corpus("invalid") {
        let (ours, report) = bootgen_validate(&path);
        assert!(!ours, "bootgen accepts {path:?}");
        if let Some((theirs, said)) = real_validate(&path) {
            assert!(!theirs, "ignition-validate accepts {path:?}: {said}");
        }
        let errors: Vec<&Value> = problems(&report)
            .iter()
            .filter(|p| p["severity"] == "error")
            .collect();
        assert!(!errors.is_empty(), "{path:?}: {report:#}");
        for error in errors {
            assert_eq!(error["check"], "ignition", "{path:?}: {error:#}");
            assert!(
                error["location"]["line"].as_u64().is_some()
                    && error["location"]["column"].as_u64().is_some(),
                "{path:?}: error without line and column: {error:#}"
            );
        }
    }
}

#[test]
fn boot_failures_pass_ignition_validate_but_fail_the_files_stage_and_bootgen() {
    for path in corpus("boot-fail") {
        let (ours, report) = bootgen_validate(&path);
        assert!(!ours, "bootgen accepts {path:?}");
        assert!(
            problems(&report).iter().any(|p| p["check"] == "boot"),
            "{path:?}: {report:#}"
        );
        let (clean, said) = ignition_validate(&path);
        assert!(
            clean,
            "ignition-validate now rejects {path:?} (move it to invalid/): {said}"
        );
        match apply_with_ignition(&path) {
            Ok(Some(root)) => panic!(
                "the files stage applied {path:?}; it is not a boot failure:\n{}",
                root.log()
            ),
            Ok(None) => {} // not root outside CI: skipped (the harness said so)
            // The files stage, or before it: a config the newest spec refuses.
            Err(error) => assert!(
                ["stage files failed", "stage fetch-offline failed"]
                    .iter()
                    .any(|stage| format!("{error:?}").contains(stage)),
                "{path:?}: {error:?}"
            ),
        }
    }
}

#[test]
fn problems_read_like_ignition_validate_with_json_paths_and_positions() {
    let output = bootgen_conformance::bootgen!()
        .current_dir(repo())
        .args(["validate", "--no-lint"])
        .args(
            corpus("invalid")
                .iter()
                .map(|p| p.strip_prefix(repo()).unwrap().to_path_buf()),
        )
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(
        "validate_invalid_corpus",
        String::from_utf8(output.stdout).unwrap()
    );
}

fn generated(dir: &Path, extra: &[&str]) -> PathBuf {
    let out = dir.join("out");
    let output = bootgen_conformance::bootgen!()
        .args(["ignition", "--now", "2026-01-01T00:00:00Z", "--tls-dir"])
        .arg(repo().join("fixtures/pki"))
        .arg("-o")
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    out.join("bootstrap.ign")
}

fn validate_at(config: &Path, now: &str, extra: &[&str]) -> (Option<i32>, String) {
    let output = bootgen_conformance::bootgen!()
        .args(["validate", "--now", now])
        .args(extra)
        .arg(config)
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
    )
}

/// As the README says for every toolkit command, a directory means its bootstrap.ign: validate
/// and patch read it rather than failing on the directory.
#[test]
fn validate_and_patch_take_an_output_directory() {
    let dir = tempfile::tempdir().unwrap();
    let config = generated(dir.path(), &[]);
    let out = config.parent().unwrap();
    let (code, text) = validate_at(out, "2026-01-01T01:00:00Z", &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains(&config.display().to_string()),
        "names the config it read:\n{text}"
    );

    let patched = dir.path().join("patched.ign");
    let output = bootgen_conformance::bootgen!()
        .arg("patch")
        .arg(out)
        .arg("-o")
        .arg(&patched)
        .arg("--debug")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("Is a directory"), "{stderr}");
    let doc: Value = serde_json::from_slice(&std::fs::read(&patched).unwrap()).unwrap();
    let original: Value = serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    let paths = |doc: &Value| -> Vec<String> {
        doc["storage"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_string())
            .collect()
    };
    let patched_paths = paths(&doc);
    for path in paths(&original) {
        assert!(patched_paths.contains(&path), "{path} lost");
    }
    assert!(
        patched_paths.contains(&"/etc/bootgen/hold/bootkube.service".to_string()),
        "{patched_paths:?}"
    );
}

#[test]
fn lints_flag_expiring_and_expired_certificates_and_holds() {
    let dir = tempfile::tempdir().unwrap();
    let config = generated(dir.path(), &["--debug"]);
    let (code, text) = validate_at(&config, "2026-01-01T01:00:00Z", &["--warn-within", "1h"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("certificate"), "{text}");
    assert!(text.contains("note[held]"), "{text}");
    assert!(text.contains("bootkube.service is held"), "{text}");
    // A quarter of the one-day certificates' life gone: still fresh, even under --strict.
    let (code, text) = validate_at(&config, "2026-01-01T06:00:00Z", &["--strict"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("expiring-certificate"), "{text}");
    // Past half their life, within --warn-within (24h by default): a warning.
    let (code, text) = validate_at(&config, "2026-01-01T14:00:00Z", &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("warning[expiring-certificate]"), "{text}");
    let (code, _) = validate_at(&config, "2026-01-01T14:00:00Z", &["--strict"]);
    assert_eq!(code, Some(1));
    let (code, text) = validate_at(&config, "2026-01-03T00:00:00Z", &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("error[expired-certificate]"), "{text}");
    assert!(
        text.contains("/opt/openshift/tls/kube-apiserver-lb-server.crt"),
        "{text}"
    );
}

#[test]
fn lints_flag_readable_secrets_and_ineffective_disables() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.ign");
    let doc = serde_json::json!({
        "ignition": {"version": "3.2.0"},
        "storage": {"files": [
            {"path": "/root/.docker/config.json", "mode": 420,
             "contents": {"source": "data:,%7B%22auths%22%3A%7B%7D%7D"}},
            {"path": "/usr/local/bin/bootkube.sh", "mode": 493, "contents": {"source": "data:,"}}
        ]},
        "systemd": {"units": [
            {"name": "progress.service", "enabled": true,
             "contents": "[Unit]\nWants=bootkube.service\n[Service]\nExecStart=/usr/local/bin/report.sh\n[Install]\nWantedBy=multi-user.target\n"},
            {"name": "bootkube.service", "enabled": false,
             "contents": "[Service]\nExecStart=/usr/local/bin/bootkube.sh\n"}
        ]}
    });
    std::fs::write(&config, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let (code, text) = validate_at(&config, "2026-01-01T00:00:00Z", &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("warning[secret-readable] $.storage.files[0].mode"),
        "{text}"
    );
    assert!(
        text.contains("warning[ineffective-disable] $.systemd.units[1]"),
        "{text}"
    );
    assert!(text.contains("progress.service (Wants=)"), "{text}");
    assert!(text.contains("warning[missing-script]"), "{text}");
    assert!(text.contains("/usr/local/bin/report.sh"), "{text}");
}

/// Under --strict a config with warnings fails (exit 1), and what is printed says so: the
/// summary line and the JSON's `valid` agree with the exit code. Without --strict nothing
/// changes: valid, exit 0, and no `strict` key in the JSON.
#[test]
fn strict_warnings_are_reported_as_failing_not_valid() {
    let config = repo().join("fixtures/ign/valid/enabled-without-install-warning.ign");
    let run = |extra: &[&str]| {
        let output = bootgen_conformance::bootgen!()
            .arg("validate")
            .args(extra)
            .arg(&config)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    let (code, text) = run(&[]);
    assert_eq!(code, Some(0), "{text}");
    let summary = text.lines().last().unwrap();
    assert!(summary.contains(": valid (spec "), "{text}");
    assert!(
        !summary.contains("0 warning(s)"),
        "the fixture must warn: {text}"
    );

    let (code, text) = run(&["--strict"]);
    assert_eq!(code, Some(1), "{text}");
    let summary = text.lines().last().unwrap();
    assert!(
        summary.contains(": INVALID under --strict (spec "),
        "{text}"
    );
    assert!(!summary.contains(": valid"), "{text}");

    let (code, json) = run(&["--strict", "--json"]);
    assert_eq!(code, Some(1), "{json}");
    let report: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report[0]["valid"], Value::Bool(false), "{json}");
    assert_eq!(report[0]["strict"], Value::Bool(true), "{json}");

    let (code, json) = run(&["--json"]);
    assert_eq!(code, Some(0), "{json}");
    let report: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report[0]["valid"], Value::Bool(true), "{json}");
    assert!(report[0].get("strict").is_none(), "{json}");
}

/// A key given twice in one object: `ignition-validate` keeps the last silently, bootgen
/// refuses it on purpose (README, "validate"), naming the key and where it is.
#[test]
fn a_key_given_twice_is_refused_on_purpose_naming_it() {
    let config = repo().join("fixtures/ign/stricter/key-given-twice.ign");
    let (clean, said) = ignition_validate(&config);
    assert!(clean, "ignition-validate now refuses it: {said}");
    let (ours, report) = bootgen_validate(&config);
    assert!(!ours, "{report:#}");
    let error = &problems(&report)[0];
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("key `storage` is given twice"),
        "{error:#}"
    );
    assert_eq!(error["location"]["line"], 1, "{error:#}");
}

/// What `ignition-validate` takes but a node cannot boot with and no test can run: a RAID array
/// without a name (the disks stage's `mdadm --create` refuses the empty name; that stage needs
/// real disks). bootgen agrees with the validator, valid, and warns of the boot (`"check":
/// "boot"`), naming the field. (A link without a target before spec 3.3, which the real
/// Ignition refuses before its files stage, is in `boot-fail/`.)
#[test]
fn a_raid_array_without_a_name_is_valid_with_a_boot_warning() {
    let fixture = "valid/raid-without-name-boot-warning.ign";
    let config = repo().join("fixtures/ign").join(fixture);
    let (clean, said) = ignition_validate(&config);
    assert!(clean, "ignition-validate now refuses {fixture}: {said}");
    let (ours, report) = bootgen_validate(&config);
    assert!(ours, "{fixture}: {report:#}");
    let warned = problems(&report).iter().any(|p| {
        p["severity"] == "warning"
            && p["check"] == "boot"
            && p["rule"] == "raid-name"
            && p["location"]["path"] == "$.storage.raid[0].name"
    });
    assert!(warned, "{fixture}: no boot warning: {report:#}");
}

/// One line of what `ignition-validate` says: `error at $.storage.disks.1, line 3 col 8: duplicate
/// entry defined`, or without the path (`error at line 2 col 25: invalid character ...`); the
/// path written as bootgen writes it (`$.storage.disks[1]`). Line 0 when it gives no place.
struct RealReport {
    severity: String,
    path: Option<String>,
    line: u64,
    column: u64,
    message: String,
}

fn real_reports(said: &str) -> Vec<RealReport> {
    said.lines()
        .filter_map(|line| {
            let (severity, rest) = line.split_once(" at ")?;
            let (place, message) = rest.split_once(": ")?;
            let (path, place) = match place.rsplit_once(", ") {
                Some((path, place)) => (Some(path), place),
                None => (None, place),
            };
            let (line, column) = place.strip_prefix("line ")?.split_once(" col ")?;
            Some(RealReport {
                severity: severity.to_string(),
                path: path.map(|dotted| {
                    dotted
                        .split('.')
                        .map(|part| match part.parse::<usize>() {
                            Ok(index) => format!("[{index}]"),
                            Err(_) => format!(".{part}"),
                        })
                        .collect::<String>()
                        .replacen(".$", "$", 1)
                }),
                line: line.parse().ok()?,
                column: column.parse().ok()?,
                message: message.to_string(),
            })
        })
        .collect()
}

/// The JSON paths `ignition-validate` names with errors saying `message`.
fn real_paths_saying(said: &str, message: &str) -> Vec<String> {
    real_reports(said)
        .into_iter()
        .filter(|r| r.severity == "error" && r.message.ends_with(message))
        .filter_map(|r| r.path)
        .collect()
}

/// Every place `ignition-validate` gives is bootgen's too, line and column, on the invalid
/// corpus and on configs with an error of each kind it places: JSON syntax, a value of the
/// wrong type (a scalar, an object, an array, on a line of its own), a field a schema requires
/// (an object's place), a rule's error at a scalar, an object and a key. An error with a path is
/// compared with bootgen's problem at that path, one without with bootgen's syntax or schema error.
#[test]
fn problems_are_placed_where_ignition_validate_places_them() {
    let dir = tempfile::tempdir().unwrap();
    let head = r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/a","#;
    let crafted = [
        "{\"ignition\":{\"version\":\"3.2.0\"},\n \"storage\": {\"files\": [}\n}\n".to_string(),
        "{\"ignition\":{\"version\":\"3.2\n.0\"}}\n".to_string(),
        "{ignition:{}}\n".to_string(),
        format!("{head}\"mode\":\"0644\"}}]}}}}\n"),
        format!("{head}\"mode\":1.5}}]}}}}\n"),
        format!("{head}\"mode\":{{\"a\":1}}}}]}}}}\n"),
        format!("{head}\"mode\":\n  [1]}}]}}}}\n"),
        format!("{head}\"contents\":true}}]}}}}\n"),
        r#"{"ignition":{"version":"3.2.0"},"storage":{"files":{}}}"#.to_string(),
        r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"mode":420}]}}"#.to_string(),
        format!("{head}\"overwrite\":true}},\n  {{\"path\":\"/a\"}}]}}}}\n"),
        r#"{"ignition":{"version":"3.2.0"},"storage":{"filez":[]}}"#.to_string(),
    ];
    let mut configs = corpus("invalid");
    for (i, text) in crafted.iter().enumerate() {
        let path = dir.path().join(format!("crafted-{i}.ign"));
        std::fs::write(&path, text).unwrap();
        configs.push(path);
    }
    let mut compared = 0;
    let mut differ = Vec::new();
    for path in &configs {
        let Some((_, said)) = real_validate(path) else {
            continue;
        };
        let (_, report) = bootgen_validate(path);
        for real in real_reports(&said).into_iter().filter(|r| r.line > 0) {
            let ours = problems(&report).iter().find(|p| match &real.path {
                Some(at) => p["location"]["path"] == at.as_str() && p["severity"] == real.severity,
                None => p["rule"] == "json-syntax" || p["rule"] == "schema",
            });
            // A problem bootgen names at another path is not about places.
            let Some(ours) = ours else { continue };
            compared += 1;
            let place = (&ours["location"]["line"], &ours["location"]["column"]);
            if place != (&json!(real.line), &json!(real.column)) {
                differ.push(format!(
                    "{}: ignition-validate {}:{} ({}), bootgen {}:{} ({})",
                    path.display(),
                    real.line,
                    real.column,
                    real.message,
                    place.0,
                    place.1,
                    ours["message"]
                ));
            }
        }
    }
    assert!(compared >= 60, "only {compared} places compared");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// Entries of a keyed list without their key (absent, or empty): Ignition keys them all by the
/// empty value, so `ignition-validate` refuses a second as a duplicate entry, and bootgen names
/// the same entry (and the first, which has no key either); one such entry alone is no
/// duplicate for either, and each verdict is `ignition-validate`'s.
#[test]
fn entries_without_their_key_are_duplicates_where_ignition_validate_says() {
    let dir = tempfile::tempdir().unwrap();
    for (version, list, entry) in [
        ("3.2.0", "storage.disks", json!({"device": ""})),
        ("3.2.0", "storage.filesystems", json!({"device": ""})),
        ("3.2.0", "storage.luks", json!({"device": "/dev/vdb"})),
        (
            "3.2.0",
            "storage.luks",
            json!({"name": "", "device": "/dev/vdb"}),
        ),
        (
            "3.2.0",
            "storage.raid",
            json!({"level": "raid1", "devices": ["/dev/vdb"]}),
        ),
        (
            "3.0.0",
            "ignition.security.tls.certificateAuthorities",
            json!({"source": ""}),
        ),
        (
            "3.2.0",
            "ignition.security.tls.certificateAuthorities",
            json!({}),
        ),
        ("3.0.0", "ignition.config.merge", json!({})),
        ("3.2.0", "ignition.config.merge", json!({"source": ""})),
    ] {
        for entries in [2, 1] {
            let mut config = json!({"ignition": {"version": version}});
            let mut at = &mut config;
            for key in list.split('.') {
                at = &mut at[key];
            }
            *at = Value::Array(vec![entry.clone(); entries]);
            let path = dir.path().join("c.ign");
            std::fs::write(&path, config.to_string()).unwrap();
            let (theirs, said) = real_validate(&path).unwrap();
            let (ours, report) = bootgen_validate(&path);
            assert_eq!(ours, theirs, "{config}: {said}\n{report:#}");
            let duplicates: Vec<&str> = problems(&report)
                .iter()
                .filter(|p| p["rule"] == "duplicate")
                .map(|p| {
                    let message = p["message"].as_str().unwrap();
                    let first = format!("$.{list}[0] has no ");
                    assert!(
                        message.starts_with("duplicate entry defined: ")
                            && message.contains(&first),
                        "{message}"
                    );
                    p["location"]["path"].as_str().unwrap()
                })
                .collect();
            let real = real_paths_saying(&said, "duplicate entry defined");
            assert_eq!(duplicates, real, "{config}: {said}\n{report:#}");
            assert_eq!(real.len(), entries - 1, "{config}: {said}");
        }
    }
}

/// A field the schema of the config's version requires (a RAID array's `devices` before 3.3, a
/// file's `path`) is named where `ignition-validate` names it: the field of its entry, not the
/// entry's last member.
#[test]
fn a_missing_field_is_named_where_ignition_validate_names_it() {
    let dir = tempfile::tempdir().unwrap();
    for version in ["3.0.0", "3.1.0", "3.2.0"] {
        for storage in [
            json!({"raid": [{"name": "md0", "level": "raid1", "spares": 0}]}),
            json!({"files": [{"mode": 420, "contents": {"source": "data:,"}}]}),
        ] {
            let config = json!({"ignition": {"version": version}, "storage": storage});
            let path = dir.path().join("c.ign");
            std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
            let (theirs, said) = real_validate(&path).unwrap();
            let (ours, report) = bootgen_validate(&path);
            assert!(!theirs && !ours, "{config}: {said}\n{report:#}");
            let error = &problems(&report)[0];
            assert_eq!(error["rule"], "schema", "{error:#}");
            let real = real_paths_saying(&said, "required")
                .into_iter()
                .chain(real_paths_saying(&said, "path not specified"))
                .collect::<Vec<_>>();
            assert_eq!(
                [error["location"]["path"].as_str().unwrap()],
                real.as_slice(),
                "{config}: {said}\n{report:#}"
            );
        }
    }
}

/// A disk or filesystem without a `device` (`{}`): Go reads the device as empty, so
/// `ignition-validate` refuses it by its rules (`disk device is required`, `path not specified`
/// for a filesystem), at the entry's `device`, not by the schema. bootgen says the same there:
/// each of its errors is one of `ignition-validate`'s, by path, words and place.
#[test]
fn an_entry_without_a_device_is_refused_as_ignition_validate_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    for version in ["3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0"] {
        for storage in [
            json!({"disks": [{}]}),
            json!({"filesystems": [{}]}),
            json!({"disks": [{}, {}], "filesystems": [{}, {}]}),
            json!({"disks": [{"wipeTable": true}], "filesystems": [{"format": "ext4", "path": "/var"}]}),
        ] {
            let config = json!({"ignition": {"version": version}, "storage": storage});
            assert!(
                !same_errors_as_ignition_validate(dir.path(), &config),
                "{config}"
            );
        }
    }
}

/// Whether `config` (written pretty into `dir`) is valid for `ignition-validate`, which must be
/// bootgen's verdict too, with as many errors, each one of `ignition-validate`'s by path, words
/// and place.
fn same_errors_as_ignition_validate(dir: &Path, config: &Value) -> bool {
    let path = dir.join("c.ign");
    std::fs::write(&path, serde_json::to_string_pretty(config).unwrap()).unwrap();
    let (theirs, said) = real_validate(&path).unwrap();
    let (ours, report) = bootgen_validate(&path);
    assert_eq!(ours, theirs, "{config}: {said}\n{report:#}");
    let real: Vec<RealReport> = real_reports(&said)
        .into_iter()
        .filter(|r| r.severity == "error")
        .collect();
    let errors: Vec<&Value> = problems(&report)
        .iter()
        .filter(|p| p["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), real.len(), "{config}: {said}\n{report:#}");
    for error in errors {
        let location = &error["location"];
        let message = error["message"].as_str().unwrap();
        assert!(
            real.iter()
                .any(|r| r.path.as_deref() == location["path"].as_str()
                    && message.starts_with(&r.message)
                    && location["line"] == r.line
                    && location["column"] == r.column),
            "{config}: {error:#} is none of: {said}"
        );
    }
    theirs
}

/// A user or group without a name (`{}`, `"name": null`, `""`) is no error to
/// `ignition-validate` in any spec it knows: Go reads the name as empty. A second one is a
/// duplicate entry, at the second; bootgen says the same, by path, words and place.
#[test]
fn an_account_without_a_name_is_taken_as_ignition_validate_takes_it() {
    let dir = tempfile::tempdir().unwrap();
    for version in ["3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0"] {
        for (entries, valid) in [
            (json!([{}]), true),
            (json!([{"name": null}]), true),
            (json!([{"name": ""}]), true),
            (json!([{"name": "a"}, {}]), true),
            (json!([{}, {}]), false),
            (json!([{"name": null}, {"name": ""}]), false),
            (json!([{"name": "a"}, {"name": null}, {}]), false),
        ] {
            for kind in ["users", "groups"] {
                let config = json!({"ignition": {"version": version}, "passwd": {kind: entries}});
                let theirs = same_errors_as_ignition_validate(dir.path(), &config);
                assert_eq!(theirs, valid, "{config}");
            }
        }
    }
}

/// A `null` kernel argument (from spec 3.3) is the empty one to Go: `ignition-validate` takes
/// one alone, and refuses a second empty one, in either list, as a duplicate entry at the
/// second. bootgen says the same, by path, words and place.
#[test]
fn a_null_kernel_argument_is_the_empty_one_as_in_go() {
    let dir = tempfile::tempdir().unwrap();
    for version in ["3.3.0", "3.4.0"] {
        for (arguments, valid) in [
            (json!({"shouldExist": [null]}), true),
            (json!({"shouldNotExist": [null]}), true),
            (
                json!({"shouldExist": ["a", null], "shouldNotExist": ["b"]}),
                true,
            ),
            (json!({"shouldExist": [null, null]}), false),
            (json!({"shouldExist": [null, ""]}), false),
            (
                json!({"shouldExist": [null], "shouldNotExist": [null]}),
                false,
            ),
            (
                json!({"shouldExist": ["a", null], "shouldNotExist": ["", "a"]}),
                false,
            ),
        ] {
            let config = json!({"ignition": {"version": version}, "kernelArguments": arguments});
            let theirs = same_errors_as_ignition_validate(dir.path(), &config);
            assert_eq!(theirs, valid, "{config}");
        }
    }
}

/// A `null` item of a string list (a user's groups and SSH keys, a filesystem's, RAID array's
/// and LUKS volume's options, from 3.4 `noProxy`) and a `null` user, group, appended resource or
/// (in 3.0) merged config are Go's empty value: `ignition-validate` takes them, and a second
/// empty user or group is a duplicate entry at the second. bootgen says the same, by path,
/// words and place.
#[test]
fn null_items_and_entries_read_as_go_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let user = |key: &str| json!({"passwd": {"users": [{"name": "u", key: ["a", null]}]}});
    let cases = [
        (0..=4, user("groups"), true),
        (0..=4, user("sshAuthorizedKeys"), true),
        (
            0..=4,
            json!({"storage": {"filesystems": [{"device": "/dev/a", "format": "ext4", "options": [null]}]}}),
            true,
        ),
        (
            1..=4,
            json!({"storage": {"filesystems": [{"device": "/dev/a", "format": "ext4", "path": "/v", "mountOptions": [null]}]}}),
            true,
        ),
        (
            0..=4,
            json!({"storage": {"raid": [{"name": "md0", "level": "raid1", "devices": ["/dev/a"], "options": [null]}]}}),
            true,
        ),
        (
            2..=4,
            json!({"storage": {"luks": [{"name": "l", "device": "/dev/a", "options": [null]}]}}),
            true,
        ),
        (
            4..=4,
            json!({"storage": {"luks": [{"name": "l", "device": "/dev/a", "openOptions": [null]}]}}),
            true,
        ),
        (
            4..=4,
            json!({"ignition": {"proxy": {"noProxy": [null]}}}),
            true,
        ),
        (
            0..=4,
            json!({"passwd": {"users": [null], "groups": [null, {"name": "g"}]}}),
            true,
        ),
        (0..=4, json!({"passwd": {"users": [{}, null]}}), false),
        (
            0..=4,
            json!({"passwd": {"groups": [null, {"name": ""}]}}),
            false,
        ),
        (
            0..=4,
            json!({"storage": {"files": [{"path": "/a", "append": [null]}]}}),
            true,
        ),
        (
            0..=0,
            json!({"ignition": {"config": {"merge": [null]}}}),
            true,
        ),
    ];
    for version in ["3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0"] {
        let minor: u32 = version[2..3].parse().unwrap();
        for (specs, body, valid) in &cases {
            if !specs.contains(&minor) {
                continue;
            }
            let mut config = json!({"ignition": {"version": version}});
            merge(&mut config, body);
            let theirs = same_errors_as_ignition_validate(dir.path(), &config);
            assert_eq!(theirs, *valid, "{config}");
        }
    }
}

/// `body` merged into `config`, object by object.
fn merge(config: &mut Value, body: &Value) {
    match (config, body) {
        (Value::Object(into), Value::Object(from)) => {
            for (key, value) in from {
                match into.get_mut(key) {
                    Some(existing) if existing.is_object() => merge(existing, value),
                    _ => {
                        into.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (into, from) => *into = from.clone(),
    }
}

/// A `null` Go reads as empty but `ignition-validate` refuses by a rule (a path, a unit's or
/// drop-in's name, an HTTP header's name, a RAID device, a file entry, from 3.1 a merged
/// config): bootgen refuses it by the schema, as its other commands do, at the place
/// `ignition-validate` names, the `null`'s first byte.
#[test]
fn a_null_ignition_validate_refuses_is_refused_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (0, json!({"storage": {"files": [{"path": null}]}})),
        (
            0,
            json!({"storage": {"links": [{"path": null, "target": "/t"}]}}),
        ),
        (0, json!({"storage": {"files": [null]}})),
        (
            0,
            json!({"storage": {"raid": [{"name": "md0", "level": "raid1", "devices": [null]}]}}),
        ),
        (0, json!({"systemd": {"units": [{"name": null}]}})),
        (
            0,
            json!({"systemd": {"units": [{"name": "a.service", "dropins": [{"name": null}]}]}}),
        ),
        (
            1,
            json!({"storage": {"files": [{"path": "/a", "contents": {"source": "https://h/a", "httpHeaders": [{"name": null, "value": "v"}]}}]}}),
        ),
        (1, json!({"ignition": {"config": {"merge": [null]}}})),
    ];
    for version in ["3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0"] {
        let minor: u32 = version[2..3].parse().unwrap();
        for (since, body) in &cases {
            if minor < *since {
                continue;
            }
            let mut config = json!({"ignition": {"version": version}});
            merge(&mut config, body);
            let path = dir.path().join("c.ign");
            std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
            let (theirs, said) = real_validate(&path).unwrap();
            let (ours, report) = bootgen_validate(&path);
            assert!(!theirs && !ours, "{config}: {said}\n{report:#}");
            let place = |line: u64, column: u64| (json!(line), json!(column));
            let ours: Vec<_> = problems(&report)
                .iter()
                .filter(|p| p["severity"] == "error")
                .map(|p| {
                    (
                        p["location"]["line"].clone(),
                        p["location"]["column"].clone(),
                    )
                })
                .collect();
            let real: Vec<_> = real_reports(&said)
                .into_iter()
                .filter(|r| r.severity == "error")
                .map(|r| place(r.line, r.column))
                .collect();
            assert!(!real.is_empty(), "{config}: {said}");
            for at in &real {
                assert_eq!(
                    ours,
                    std::slice::from_ref(at),
                    "{config}: {said}\n{report:#}"
                );
            }
        }
    }
}

/// Unknown keys in many places come in `ignition-validate`'s order, which follows Go's types
/// and not the text: an object's own before its fields', fields in Go's order (`passwd` before
/// `storage` before `systemd`; a file's `user` before its `contents`), entries by index. One
/// unknown key per object, as Go lists one object's own in no fixed order. The other commands
/// refuse naming the first.
#[test]
fn unknown_keys_come_in_ignition_validates_order() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"{"ignition":{"version":"3.3.0"},
"systemd":{"units":[{"name":"a.service","u":1}]},
"storage":{"files":[{"path":"/a","contents":{"source":"data:,","c":1},"f":1,"user":{"id":1,"o":1}},
  {"path":"/b","g":1}],"disks":[{"device":"/dev/a","d":1}],"s":1},
"passwd":{"users":[{"name":"u","p":1}]},"t":1}
"#;
    let config = dir.path().join("c.ign");
    std::fs::write(&config, text).unwrap();
    let (_, said) = real_validate(&config).unwrap();
    let theirs: Vec<String> = real_reports(&said)
        .into_iter()
        .filter(|r| r.message.starts_with("Unused key"))
        .filter_map(|r| r.path)
        .collect();
    assert_eq!(theirs.len(), 9, "{said}");
    let (_, report) = bootgen_validate(&config);
    let ours: Vec<&str> = problems(&report)
        .iter()
        .filter(|p| p["rule"] == "unknown-key")
        .filter_map(|p| p["location"]["path"].as_str())
        .collect();
    assert_eq!(ours, theirs, "{said}\n{report:#}");
    let output = bootgen_conformance::bootgen!()
        .arg("inspect")
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&format!("({})", theirs[0])), "{stderr}");
}

/// A key the config's spec version does not have (LUKS volumes before 3.2, HTTP headers and
/// `mountOptions` in 3.0, a proxy in 3.0, kernel arguments before 3.3, a Tang advertisement
/// before 3.4), holding what a later version's rules refuse: Ignition ignores the key, so
/// `ignition-validate` takes the config and warns of the key alone. bootgen gives the same
/// verdict and the same warnings, by path.
#[test]
fn a_key_of_a_later_spec_is_ignored_as_ignition_validate_ignores_it() {
    let dir = tempfile::tempdir().unwrap();
    let luks = json!({"storage": {"luks": [
        {"name": "a/b", "device": "rel", "keyFile": {"source": "ftp://h/k"},
         "clevis": {"custom": {"pin": "bad", "config": "x"}, "tang": [{"url": "ftp://t"}]}},
        {"device": "/dev/b"}, {"device": "/dev/c"}
    ]}});
    let headers = json!({"storage": {"files": [{"path": "/a", "contents": {"source": "data:,",
        "httpHeaders": [{"name": ""}, {"name": "X"}, {"name": "X"}]}}]}});
    let mount_options =
        json!({"storage": {"filesystems": [{"device": "/dev/a", "mountOptions": ["ro"]}]}});
    let proxy = json!({"ignition": {"proxy": {"httpProxy": "ftp://p"}}});
    let kernel = json!({"kernelArguments": {"shouldExist": ["a"], "shouldNotExist": ["a"]}});
    let advertisement = json!({"storage": {"luks": [{"name": "l", "device": "/dev/a",
        "clevis": {"tang": [{"url": "http://t", "thumbprint": "x", "advertisement": "{"}]}}]}});
    for (versions, body) in [
        (&["3.0.0", "3.1.0"][..], &luks),
        (&["3.0.0"], &headers),
        (&["3.0.0"], &mount_options),
        (&["3.0.0"], &proxy),
        (&["3.0.0", "3.1.0", "3.2.0"], &kernel),
        (&["3.2.0", "3.3.0"], &advertisement),
    ] {
        for version in versions {
            let mut config = body.clone();
            config["ignition"]["version"] = json!(version);
            let path = dir.path().join("c.ign");
            std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
            let (theirs, said) = real_validate(&path).unwrap();
            let (ours, report) = bootgen_validate(&path);
            assert!(theirs, "{config}: {said}");
            assert_eq!(ours, theirs, "{config}: {said}\n{report:#}");
            let warned = |severity: &str| -> Vec<String> {
                problems(&report)
                    .iter()
                    .filter(|p| p["severity"] == severity)
                    .map(|p| p["location"]["path"].as_str().unwrap().to_string())
                    .collect()
            };
            let real: Vec<String> = real_reports(&said)
                .into_iter()
                .filter(|r| r.severity == "warning")
                .filter_map(|r| r.path)
                .collect();
            assert_eq!(warned("warning"), real, "{config}: {said}\n{report:#}");
            assert!(warned("error").is_empty(), "{config}: {report:#}");
        }
    }
}

/// The errors and warnings of a report, each by severity and JSON path, sorted: what is
/// compared with `ignition-validate`'s (the same, read from what it said).
fn by_path(report: &Value) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = problems(report)
        .iter()
        .filter(|p| p["severity"] != "note")
        .map(|p| {
            let at = p["location"]["path"].as_str().unwrap_or_default();
            (p["severity"].as_str().unwrap().to_string(), at.to_string())
        })
        .collect();
    found.sort();
    found
}

fn real_by_path(said: &str) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = real_reports(said)
        .into_iter()
        .map(|r| (r.severity, r.path.unwrap_or_default()))
        .collect();
    found.sort();
    found
}

/// A mode with a setuid, setgid or sticky bit before spec 3.4 is warned about, whether or not
/// the mode is in range: `ignition-validate` checks the two apart, so a negative mode (which
/// has every bit) or 99999 (03000 among them) gets the warning beside the error, 8192 (none of
/// them) the error alone. bootgen says the same, at the same paths.
#[test]
fn a_mode_out_of_range_with_setuid_bits_is_warned_about_too() {
    let dir = tempfile::tempdir().unwrap();
    for version in ["3.2.0", "3.3.0", "3.4.0"] {
        for mode in [-1, -4096, 99999, 8192, 0o4755, 0o755] {
            let config = json!({"ignition": {"version": version}, "storage": {
                "files": [{"path": "/a", "mode": mode}],
                "directories": [{"path": "/d", "mode": mode}]
            }});
            let path = dir.path().join("c.ign");
            std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
            let (theirs, said) = real_validate(&path).unwrap();
            let (ours, report) = bootgen_validate(&path);
            assert_eq!(ours, theirs, "{config}: {said}\n{report:#}");
            assert_eq!(
                by_path(&report),
                real_by_path(&said),
                "{config}: {said}\n{report:#}"
            );
        }
    }
}

/// Every error `ignition-validate` names by a path, on the invalid corpus and on paths defined
/// twice across files, directories and links, bootgen names at that path too (of two entries
/// of one path, the later as Ignition reads them, directories before files before links), but
/// where its path is no help, each listed here with the reason bootgen keeps its own.
#[test]
fn errors_are_named_at_the_paths_ignition_validate_names() {
    // (fixture, ignition-validate's path): why bootgen does not name it.
    const KEPT: &[(&str, &str, &str)] = &[
        // Said twice: at `keys`, a field the config does not have (line and column of the
        // volume), and at `keyFile.source` with the cause. bootgen says it once, at the source,
        // with both ("invalid key-file source: invalid url scheme `ftp`").
        (
            "luks-key-file-ftp.ign",
            "$.storage.luks[0].keys",
            "no such field",
        ),
        // Said twice: at the merged config and at its source. bootgen says it once, at the
        // source, which is what holds the bad character.
        (
            "merge-bad-data-url.ign",
            "$.ignition.config.merge[0]",
            "said again at .source",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut configs = corpus("invalid");
    for (i, storage) in [
        json!({"files": [{"path": "/a"}], "directories": [{"path": "/a"}]}),
        json!({"links": [{"path": "/a", "target": "/x"}], "files": [{"path": "/a"}], "directories": [{"path": "/a"}]}),
        json!({"files": [{"path": "/b"}, {"path": "/a"}], "directories": [{"path": "/a"}, {"path": "/b"}]}),
        json!({"files": [{"path": "/a"}, {"path": "/a"}], "directories": [{"path": "/a"}]}),
        json!({"links": [{"path": "/a", "target": "/x"}], "directories": [{"path": "/a"}]}),
    ]
    .into_iter()
    .enumerate()
    {
        let config = json!({"ignition": {"version": "3.3.0"}, "storage": storage});
        let path = dir.path().join(format!("twice-{i}.ign"));
        std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
        configs.push(path);
    }
    let mut missing = Vec::new();
    for path in &configs {
        let Some((_, said)) = real_validate(path) else {
            continue;
        };
        let (_, report) = bootgen_validate(path);
        let name = path.file_name().unwrap().to_string_lossy();
        for real in real_reports(&said)
            .into_iter()
            .filter(|r| r.severity == "error")
        {
            let Some(at) = real.path else { continue };
            let named = problems(&report)
                .iter()
                .any(|p| p["severity"] == "error" && p["location"]["path"] == at.as_str());
            let kept = KEPT.iter().any(|(f, p, _)| *f == name && *p == at);
            if !named && !kept {
                missing.push(format!("{name}: {at}: {}\n{report:#}", real.message));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// `null` for a string field is no value to Go, as if the field were absent: a RAID array's or
/// LUKS volume's `name`, a disk's or filesystem's `device`, a link's `target` then read as
/// empty, and `ignition-validate` judges them by its rules (a nameless array or volume is no
/// error). bootgen refuses (by Ignition's rules) what it refuses, and each such error is one of
/// its errors, by path; a link without a target before 3.3 is bootgen's boot error, as when
/// the target is absent (`boot-fail/`).
#[test]
fn null_for_a_string_field_reads_as_absent_as_in_go() {
    let dir = tempfile::tempdir().unwrap();
    for version in ["3.0.0", "3.2.0", "3.3.0"] {
        for storage in [
            json!({"raid": [{"name": null, "level": "raid1", "devices": ["/dev/a"]}]}),
            json!({"disks": [{"device": null}]}),
            json!({"filesystems": [{"device": null, "format": "ext4"}]}),
            json!({"links": [{"path": "/l", "target": null}]}),
            json!({"luks": [{"name": null, "device": "/dev/a"}]}),
            json!({"files": [{"path": "/a", "mode": "0644"}], "disks": [{"device": null}]}),
        ] {
            let config = json!({"ignition": {"version": version}, "storage": storage});
            let path = dir.path().join("c.ign");
            std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
            let (theirs, said) = real_validate(&path).unwrap();
            let (_, report) = bootgen_validate(&path);
            let errors: Vec<&Value> = problems(&report)
                .iter()
                .filter(|p| p["severity"] == "error" && p["check"] == "ignition")
                .collect();
            assert_eq!(errors.is_empty(), theirs, "{config}: {said}\n{report:#}");
            let real = real_reports(&said);
            for error in errors {
                assert!(
                    real.iter().any(|r| r.severity == "error"
                        && r.path
                            .as_deref()
                            .unwrap_or(error["location"]["path"].as_str().unwrap())
                            == error["location"]["path"]
                        && r.line == error["location"]["line"]
                        && r.column == error["location"]["column"]),
                    "{config}: {error:#} is none of: {said}"
                );
            }
        }
    }
}

/// A config that is not valid JSON or does not fit its schema is refused by `inspect`,
/// `patch`, `diff` and `extract` naming the line and column `validate` names (and
/// `ignition-validate` gives): a syntax error, a value of the wrong type (a scalar, an object,
/// an array on a line of its own), a missing field and an unknown key (at the key).
#[test]
fn every_command_names_the_place_validate_names() {
    let dir = tempfile::tempdir().unwrap();
    let head = r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/a","#;
    for text in [
        "{\"ignition\":{\"version\":\"3.2.0\"},\n \"storage\": {\"files\": [}\n}\n".to_string(),
        format!("{head}\"mode\":\"0644\"}}]}}}}\n"),
        format!("{head}\"mode\":{{\"a\":1}}}}]}}}}\n"),
        format!("{head}\"mode\":\n  [1]}}]}}}}\n"),
        r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"mode":420}]}}"#.to_string(),
        // Unknown keys: in a file entry on a line of its own, at the top, one the spec
        // version does not have yet, and the first of two.
        format!("{head}\n  \"bogus\":1}}]}}}}\n"),
        "{\"ignition\":{\"version\":\"3.2.0\"},\n\"bogus\":{}}\n".to_string(),
        r#"{"ignition":{"version":"3.0.0"},"storage":{"files":[{"path":"/a","contents":{"source":"https://h/a","httpHeaders":[]}}]}}"#.to_string(),
        format!("{head}\"b\":1}}]}},\n\"passwd\":{{\"users\":[{{\"name\":\"u\",\"a\":1}}]}}}}\n"),
    ] {
        let config = dir.path().join("c.ign");
        std::fs::write(&config, &text).unwrap();
        let (_, report) = bootgen_validate(&config);
        let location = &problems(&report)[0]["location"];
        let place = format!(
            "line {}, column {}",
            location["line"].as_u64().unwrap(),
            location["column"].as_u64().unwrap()
        );
        // The field, as validate names it, when validate names one.
        let path = location["path"].as_str().unwrap_or_default();
        let out = dir.path().join("out");
        for args in [
            vec!["inspect".into(), config.clone()],
            vec![
                "patch".into(),
                config.clone(),
                "-o".into(),
                out.join("p.ign"),
            ],
            vec!["diff".into(), config.clone(), config.clone()],
            vec!["extract".into(), config.clone(), "-o".into(), out.clone()],
        ] {
            let output = bootgen_conformance::bootgen!()
                .args(&args)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(!output.status.success(), "{args:?} {text}");
            assert!(
                stderr.contains(&place) && stderr.contains(path),
                "{args:?}: validate says {place} {path}: {stderr}\n{text}"
            );
        }
    }
}
