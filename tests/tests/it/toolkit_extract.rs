//! `bootgen extract`: writes what the real Ignition `files` stage writes (same bytes, same
//! modes), and never anything outside its directory: `..`, relative paths, unclean paths, unit
//! names with `/`, and symlinks planted in the directory are refused, naming the path.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::apply_with_ignition;
use bootgen_conformance::repo;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Output;

fn extract(config: &Path, dir: &Path) -> Output {
    bootgen_conformance::bootgen!()
        .arg("extract")
        .arg(config)
        .arg("-o")
        .arg(dir)
        .output()
        .unwrap()
}

fn write_config(dir: &Path, value: &Value) -> PathBuf {
    let path = dir.join("attack.ign");
    std::fs::write(&path, serde_json::to_vec(value).unwrap()).unwrap();
    path
}

fn one_file(path: &str) -> Value {
    json!({"ignition": {"version": "3.2.0"},
           "storage": {"files": [{"path": path, "contents": {"source": "data:,pwned"}}]}})
}

/// Every regular file below `dir`, relative path -> (mode, bytes).
fn tree(dir: &Path) -> Vec<(String, u32, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap().display().to_string();
                out.push((
                    relative,
                    meta.permissions().mode() & 0o7777,
                    std::fs::read(&path).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn traversal_relative_and_unclean_paths_are_refused_by_name() {
    let work = tempfile::tempdir().unwrap();
    let target = work.path().join("target");
    for path in [
        "/../escape",
        "/etc/../../escape",
        "etc/relative",
        "/etc//double",
        "/etc/./dot",
        "/etc/",
    ] {
        let config = write_config(work.path(), &one_file(path));
        let output = extract(&config, &target);
        assert_eq!(output.status.code(), Some(1), "{path}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("refusing {path}")),
            "{path}: {stderr}"
        );
    }
    assert!(!work.path().join("escape").exists());
    for unit in ["../evil.service", "a/b.service"] {
        let config = write_config(
            work.path(),
            &json!({"ignition": {"version": "3.2.0"},
                    "systemd": {"units": [{"name": unit, "contents": "[Unit]\n"}]}}),
        );
        let output = extract(&config, &target);
        assert_eq!(output.status.code(), Some(1), "{unit}: {output:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains(unit));
    }
    // Nothing at all was written for the refused configs.
    assert!(!target.exists() || tree(&target).is_empty());
}

#[test]
fn symlinks_planted_in_the_directory_are_refused() {
    let work = tempfile::tempdir().unwrap();
    let target = work.path().join("target");
    let outside = work.path().join("outside");
    std::fs::create_dir_all(target.join("etc")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    // A directory on the way is a link out.
    std::os::unix::fs::symlink(&outside, target.join("etc/ssh")).unwrap();
    let config = write_config(work.path(), &one_file("/etc/ssh/sshd_config"));
    let output = extract(&config, &target);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("/etc/ssh/sshd_config") && stderr.contains("symlink"),
        "{stderr}"
    );
    // The file itself is a link out.
    std::os::unix::fs::symlink(outside.join("passwd"), target.join("etc/passwd")).unwrap();
    let config = write_config(work.path(), &one_file("/etc/passwd"));
    let output = extract(&config, &target);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("symlink"));
    // A unit directory that is a link out.
    std::fs::create_dir_all(target.join("etc/systemd")).unwrap();
    std::os::unix::fs::symlink(&outside, target.join("etc/systemd/system")).unwrap();
    let config = write_config(
        work.path(),
        &json!({"ignition": {"version": "3.2.0"},
                "systemd": {"units": [{"name": "a.service", "contents": "[Unit]\n"}]}}),
    );
    assert_eq!(extract(&config, &target).status.code(), Some(1));
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        0,
        "something was written outside"
    );
}

#[test]
fn extracted_files_match_what_the_real_files_stage_writes() {
    let work = tempfile::tempdir().unwrap();
    let target = work.path().join("target");
    let extracted = extracted_as_applied(&repo().join("fixtures/ign/valid/spec-3.1.ign"), &target);
    let units = target.join("etc/systemd/system");
    assert!(units.join("ready.service").is_file());
    assert!(units.join("ready.service.d/10-env.conf").is_file());
    assert!(!extracted.is_empty());
}

/// `contents.source: ""` is an empty file to Ignition, as to extract.
#[test]
fn an_empty_source_is_extracted_as_an_empty_file() {
    let work = tempfile::tempdir().unwrap();
    let config = repo().join("fixtures/ign/valid/empty-source-is-an-empty-file.ign");
    let extracted = extracted_as_applied(&config, &work.path().join("target"));
    let empty = |path: &str| (path.to_string(), 0o644, Vec::new());
    assert_eq!(
        extracted,
        [
            empty("etc/empty-source"),
            empty("etc/empty-source-overwritten")
        ]
    );
}

/// Extracts `config` into `target` and checks each file against what the real files stage
/// writes (when it can run); the extracted files.
fn extracted_as_applied(config: &Path, target: &Path) -> Vec<(String, u32, Vec<u8>)> {
    let output = extract(config, target);
    assert!(output.status.success(), "{output:?}");
    let extracted = tree(target);
    let Some(root) = apply_with_ignition(config).unwrap() else {
        return extracted; // not root outside CI (the harness said so)
    };
    for (relative, mode, bytes) in &extracted {
        let applied = root.path().join(relative);
        let applied_bytes = std::fs::read(&applied).unwrap_or_else(|e| panic!("{relative}: {e}"));
        let before = root.seeded(&format!("/{relative}")).unwrap_or_default();
        // Ignition appends to what was there; extract starts from nothing.
        assert_eq!(
            &applied_bytes[before.len()..],
            bytes.as_slice(),
            "{relative}"
        );
        let applied_mode = std::fs::metadata(&applied).unwrap().permissions().mode() & 0o7777;
        assert_eq!(applied_mode, *mode, "{relative}");
    }
    extracted
}

/// A config with `/etc/first` (fine) and then `storage` entries that clash.
fn clashing(storage: Value, units: Value) -> Value {
    let mut storage = storage;
    let files = storage["files"].as_array().cloned().unwrap_or_default();
    storage["files"] = Value::Array(
        [json!({"path": "/etc/first", "contents": {"source": "data:,first"}})]
            .into_iter()
            .chain(files)
            .collect(),
    );
    json!({"ignition": {"version": "3.2.0"}, "storage": storage, "systemd": {"units": units}})
}

#[test]
fn a_config_with_clashing_paths_is_refused_before_anything_is_written() {
    let work = tempfile::tempdir().unwrap();
    let file = |path: &str| json!({"path": path, "contents": {"source": "data:,x"}});
    let unit = |dropins: Value| json!([{"name": "a.service", "dropins": dropins}]);
    let conf = json!({"name": "10-a.conf", "contents": "[Unit]\n"});
    // (what, config, the path named, why; whether the real Ignition refuses it too)
    let cases = [
        (
            "a file below a file",
            clashing(
                json!({"files": [file("/etc/x"), file("/etc/x/y")]}),
                json!([]),
            ),
            "/etc/x/y",
            "/etc/x is a file",
            true,
        ),
        (
            "a file below a link",
            clashing(
                json!({"files": [file("/etc/x/y")], "links": [{"path": "/etc/x", "target": "/tmp"}]}),
                json!([]),
            ),
            "/etc/x/y",
            "/etc/x is a link",
            true,
        ),
        (
            "two files",
            clashing(
                json!({"files": [file("/etc/x"), file("/etc/x")]}),
                json!([]),
            ),
            "/etc/x",
            "defined twice (two files)",
            true,
        ),
        (
            "a file and a directory",
            clashing(
                json!({"files": [file("/etc/x")], "directories": [{"path": "/etc/x"}]}),
                json!([]),
            ),
            "/etc/x",
            "defined twice (a file and a directory)",
            true,
        ),
        (
            "two directories",
            clashing(
                json!({"directories": [{"path": "/etc/d"}, {"path": "/etc/d", "mode": 448}]}),
                json!([]),
            ),
            "/etc/d",
            "defined twice (two directories)",
            true,
        ),
        (
            "a link and a file",
            clashing(
                json!({"files": [file("/etc/x")], "links": [{"path": "/etc/x", "target": "/tmp"}]}),
                json!([]),
            ),
            "/etc/x",
            "defined twice (a file and a link)",
            true,
        ),
        (
            "two drop-ins",
            clashing(json!({}), unit(json!([conf, conf]))),
            "/etc/systemd/system/a.service.d/10-a.conf",
            "defined twice (two units or drop-ins)",
            true,
        ),
        (
            "a drop-in below a file",
            clashing(
                json!({"files": [file("/etc/systemd/system/a.service.d")]}),
                unit(json!([conf])),
            ),
            "/etc/systemd/system/a.service.d/10-a.conf",
            "/etc/systemd/system/a.service.d is a file",
            false,
        ),
    ];
    for (what, config, path, why, ignition_refuses) in cases {
        let config_path = write_config(work.path(), &config);
        let target = work.path().join("target");
        let output = extract(&config_path, &target);
        assert_eq!(output.status.code(), Some(1), "{what}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("refusing {path}: ")) && stderr.contains(why),
            "{what}: {stderr}"
        );
        assert!(!target.exists(), "{what}: {:?}", tree(&target));
        if ignition_refuses {
            // bootgen refuses what Ignition refuses (not root outside CI: nothing to compare).
            if let Err(applied) = apply_with_ignition(&config_path) {
                assert!(applied.to_string().contains("failed"), "{what}: {applied}");
            } else {
                assert!(
                    !bootgen_conformance::is_root(),
                    "{what}: Ignition applied it"
                );
            }
        }
    }
    // Two units of one name, and a unit replacing a file entry: what the node ends up with.
    let config_path = write_config(
        work.path(),
        &json!({"ignition": {"version": "3.2.0"},
                "systemd": {"units": [{"name": "a.service", "contents": "[Unit]\n"},
                                      {"name": "a.service", "contents": "[Unit]\n"}]}}),
    );
    let output = extract(&config_path, &work.path().join("units"));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("two units or drop-ins"));
    // The files stage writes units after files: the unit's text replaces the file's.
    let config_path = write_config(
        work.path(),
        &json!({"ignition": {"version": "3.2.0"},
                "storage": {"files": [{"path": "/etc/systemd/system/a.service",
                                       "contents": {"source": "data:,file"}}]},
                "systemd": {"units": [{"name": "a.service", "contents": "[Unit]\n"}]}}),
    );
    let replaced = work.path().join("replaced");
    let output = extract(&config_path, &replaced);
    assert!(output.status.success(), "{output:?}");
    let unit = "etc/systemd/system/a.service";
    assert_eq!(std::fs::read(replaced.join(unit)).unwrap(), b"[Unit]\n");
    if let Some(root) = apply_with_ignition(&config_path).unwrap() {
        assert_eq!(std::fs::read(root.path().join(unit)).unwrap(), b"[Unit]\n");
    }
}

#[test]
fn what_the_directory_already_holds_is_checked_before_the_first_write() {
    let work = tempfile::tempdir().unwrap();
    let target = work.path().join("target");
    std::fs::create_dir_all(target.join("etc")).unwrap();
    std::fs::write(target.join("etc/x"), "already here").unwrap();
    let config = write_config(
        work.path(),
        &clashing(
            json!({"files": [{"path": "/etc/x/y", "contents": {"source": "data:,x"}}]}),
            json!([]),
        ),
    );
    let output = extract(&config, &target);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("refusing /etc/x/y") && stderr.contains("not a directory"),
        "{stderr}"
    );
    assert!(!target.join("etc/first").exists(), "{:?}", tree(&target));
}

#[test]
fn setuid_setgid_and_sticky_bits_are_dropped_and_said_so() {
    let work = tempfile::tempdir().unwrap();
    let target = work.path().join("target");
    let config = write_config(
        work.path(),
        &json!({"ignition": {"version": "3.4.0"},
                "storage": {"directories": [{"path": "/etc/d", "mode": 0o7777}],
                            "files": [{"path": "/etc/d/tool", "mode": 0o6755,
                                       "contents": {"source": "data:,x"}}]}}),
    );
    let output = extract(&config, &target);
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    for note in [
        "/etc/d: mode 07777 written as 0777",
        "/etc/d/tool: mode 06755 written as 0755",
    ] {
        assert!(stderr.contains(note), "{note}: {stderr}");
    }
    let mode = |relative: &str| {
        std::fs::metadata(target.join(relative))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    };
    assert_eq!(mode("etc/d"), 0o777);
    assert_eq!(mode("etc/d/tool"), 0o755);
}

/// The note on a file whose contents are remote names its URL with the credentials and the
/// signature hidden, as diff and inspect show it.
#[test]
fn remote_contents_are_named_without_their_credentials() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &json!({"ignition": {"version": "3.2.0"}, "storage": {"files": [
            {"path": "/etc/a", "contents": {"source": "https://deploy:S3cretPassw0rd@files.example.com/a"}},
            {"path": "/etc/b", "contents": {"source": "https://bucket.s3.amazonaws.com/b?X-Amz-Credential=AKIAEXAMPLE&X-Amz-Signature=deadbeefsecret"}}]}}),
    );
    let output = extract(&config, &dir.path().join("root"));
    let said = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("/etc/a") && said.contains("files.example.com"),
        "{said}"
    );
    for secret in ["S3cretPassw0rd", "AKIAEXAMPLE", "deadbeefsecret"] {
        assert!(!said.contains(secret), "{secret} in:\n{said}");
    }
}

/// Units as Ignition writes them: a unit with empty text is not written (systemd would read a
/// 0-byte unit file as masked), nor a drop-in without contents; a masked unit's path is a link
/// to /dev/null, whatever file entry names it; the directory `/` is the root itself.
#[test]
fn units_and_the_root_are_extracted_as_the_files_stage_writes_them() {
    let work = tempfile::tempdir().unwrap();
    let config = json!({
        "ignition": {"version": "3.3.0"},
        "storage": {
            "directories": [{"path": "/"}],
            "files": [{"path": "/etc/systemd/system/m.service", "contents": {"source": "data:,FROMFILE%0A"}}],
        },
        "systemd": {"units": [
            {"name": "a.service", "contents": "", "dropins": [{"name": "b.conf", "contents": ""}]},
            {"name": "c.service", "dropins": [{"name": "d.conf"}]},
            {"name": "m.service", "mask": true},
        ]},
    });
    let path = work.path().join("units.ign");
    std::fs::write(&path, config.to_string()).unwrap();
    let target = work.path().join("target");
    let extracted = extracted_as_applied(&path, &target);
    let units = "etc/systemd/system";
    assert_eq!(
        extracted,
        [(format!("{units}/a.service.d/b.conf"), 0o644, Vec::new())]
    );
    let Some(root) = apply_with_ignition(&path).unwrap() else {
        return; // not root outside CI (the harness said so)
    };
    for absent in ["a.service", "c.service.d/d.conf"] {
        let applied = root.path().join(units).join(absent);
        assert!(!applied.exists(), "the files stage wrote {absent}");
    }
    let masked = std::fs::read_link(root.path().join(units).join("m.service")).unwrap();
    assert_eq!(masked, Path::new("/dev/null"));
}

/// A NUL byte in a path is refused by name before anything is written.
#[test]
fn a_path_with_a_nul_byte_is_refused_before_anything_is_written() {
    let work = tempfile::tempdir().unwrap();
    let config = write_config(work.path(), &one_file("/etc/a\u{0}b"));
    let target = work.path().join("target");
    let output = extract(&config, &target);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(
        said.contains("NUL byte") && said.contains("/etc/a"),
        "{said}"
    );
    assert!(!target.exists(), "{:?}", tree(&target));
}

/// A link is not created but named in a note: with its target, or, for a spec 3.0-3.2 link
/// without one (which `ignition-validate` takes), as having none, not as a link "to" nothing.
#[test]
fn a_link_without_a_target_is_noted_as_having_none() {
    let work = tempfile::tempdir().unwrap();
    let config = write_config(
        work.path(),
        &json!({"ignition": {"version": "3.2.0"},
                "storage": {"links": [{"path": "/etc/l"}, {"path": "/etc/m", "target": "/etc/a"}]}}),
    );
    let output = extract(&config, &work.path().join("out"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("/etc/l: link without a target (links are not created)")
            && stderr.contains("/etc/m: link to /etc/a (links are not created)")
            && !stderr.contains("link to  "),
        "{stderr}"
    );
}
