//! Nothing hostile reaches a terminal: escape sequences, C1 controls, bidirectional overrides
//! and invalid UTF-8 in a log bundle's lines, a config's paths, unit names and contents, are
//! printed by `diagnose`, `inspect`, `validate`, `diff` and `extract` (on stdout and in their
//! warnings and errors) as visible escapes, never as the raw bytes a terminal would obey; in
//! `--json`, as JSON escapes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{json, Value};
use std::path::Path;
use std::process::Output;

/// Clears the screen.
const CLEAR: &str = "\x1b[2J";
/// Sets the terminal's title.
const TITLE: &str = "\x1b]0;pwned\x07";
/// The C1 form of ESC `[` (CSI), obeyed by some terminals.
const C1_CSI: &str = "\u{9b}31m";
/// Shows what follows right to left.
const BIDI: &str = "\u{202e}";

/// Every character of `bytes` (read lossily) a terminal could obey: C0 controls but newline
/// and tab, DEL, C1 controls, bidirectional overrides and isolates.
fn raw_controls(bytes: &[u8]) -> Vec<char> {
    String::from_utf8_lossy(bytes)
        .chars()
        .filter(|&c| {
            (c.is_control() && c != '\n' && c != '\t')
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c)
        })
        .collect()
}

/// Neither stream holds a raw control; together they show `expected` escapes.
fn assert_safe(what: &str, output: &Output, expected: &[&str]) {
    for (name, stream) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
        let raw = raw_controls(stream);
        assert!(
            raw.is_empty(),
            "{what}: raw {raw:?} on {name}:\n{}",
            String::from_utf8_lossy(stream)
        );
    }
    let shown = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    for escape in expected {
        assert!(shown.contains(escape), "{what}: no {escape} in:\n{shown}");
    }
}

fn run(args: &[&str], cwd: &Path) -> Output {
    bootgen_conformance::bootgen!()
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

#[test]
fn a_hostile_bundles_evidence_is_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("bundle");
    std::fs::create_dir_all(bundle.join("bootstrap/journals")).unwrap();
    std::fs::create_dir_all(bundle.join("bootstrap/services")).unwrap();
    std::fs::write(
        bundle.join("bootstrap/services/bootkube.json"),
        r#"[{"timestamp": "2026-01-01T01:00:00Z", "phase": "service start"},
            {"timestamp": "2026-01-01T01:00:01Z", "phase": "service end", "result": "failure"}]"#,
    )
    .unwrap();
    let mut line =
        format!("Error: no space left on device {CLEAR} {TITLE} {C1_CSI} {BIDI} ").into_bytes();
    line.extend_from_slice(b"\xff\xfe invalid\n");
    std::fs::write(bundle.join("bootstrap/journals/crio.log"), line).unwrap();
    let output = run(&["diagnose", "bundle"], dir.path());
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_safe(
        "diagnose",
        &output,
        &[
            "\\x1b[2J",
            "\\x1b]0;pwned\\x07",
            "\\u{9b}31m",
            "\\u{202e}",
            "\u{fffd}\u{fffd} invalid",
        ],
    );
    // JSON escapes what a terminal could obey and a reader still gets the line as it was.
    let output = run(&["diagnose", "--json", "bundle"], dir.path());
    assert_safe("diagnose --json", &output, &["\\u009b31m", "\\u202e"]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let expected = format!("{CLEAR} {TITLE} {C1_CSI} {BIDI} \u{fffd}\u{fffd} invalid");
    // Both sides written by serde_json's own formatter: the strings are the same.
    let expected = serde_json::to_string(&expected).unwrap();
    assert!(
        report.to_string().contains(expected.trim_matches('"')),
        "{report:#}"
    );
}

/// A config whose file paths, unit name, unit text and file contents carry escapes; `other` is
/// a second config that differs in them.
fn hostile_configs(dir: &Path) -> (String, String) {
    let unit = format!("evil{CLEAR}{TITLE}.service");
    let config = |contents: &str, extra: Option<Value>| {
        let mut files = vec![
            json!({"path": format!("/etc/a{CLEAR}{TITLE}"), "contents": {"source": "data:,x"}}),
            json!({"path": format!("/etc/b{C1_CSI}{BIDI}"), "contents": {"source": contents}}),
        ];
        files.extend(extra);
        json!({"ignition": {"version": "3.2.0"},
               "storage": {"files": files},
               "systemd": {"units": [{"name": unit, "enabled": true,
                   "contents": format!("[Unit]\nWants=x{TITLE}.service\n[Install]\nWantedBy=multi-user.target\n")}]}})
    };
    let one = dir.join("one.ign");
    let two = dir.join("two.ign");
    std::fs::write(&one, config("data:,hello%1B%5B2J%0A", None).to_string()).unwrap();
    let extra = json!({"path": format!("/etc/c{CLEAR}"), "contents": {"source": "data:,y"}});
    std::fs::write(
        &two,
        config("data:,bye%C2%9B31m%0A", Some(extra)).to_string(),
    )
    .unwrap();
    ("one.ign".into(), "two.ign".into())
}

#[test]
fn hostile_paths_unit_names_and_contents_are_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = hostile_configs(dir.path());
    let paths = [
        "/etc/a\\x1b[2J\\x1b]0;pwned\\x07",
        "/etc/b\\u{9b}31m\\u{202e}",
    ];
    let unit = "evil\\x1b[2J\\x1b]0;pwned\\x07.service";

    let output = run(&["inspect", &one], dir.path());
    assert!(output.status.success(), "{output:?}");
    assert_safe("inspect", &output, &[paths[0], paths[1], unit]);

    // The unit lint quotes the unit's name and what it wants.
    let output = run(&["validate", &one, &two], dir.path());
    assert_safe("validate", &output, &[unit, "x\\x1b]0;pwned\\x07.service"]);

    let output = run(&["diff", &one, &two], dir.path());
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_safe(
        "diff",
        &output,
        &[paths[1], "/etc/c\\x1b[2J", "hello\\x1b[2J", "bye\\u{9b}31m"],
    );

    let output = run(&["diff", "--objects", &one, &two], dir.path());
    assert_safe("diff --objects", &output, &["/etc/c\\x1b[2J"]);

    let output = run(&["extract", &two, "-o", "root"], dir.path());
    assert!(output.status.success(), "{output:?}");
    assert_safe("extract", &output, &[]);

    // The golden view shows them escaped too, printed and written alike (it is read in
    // terminals and diffs, and CI compares the two).
    std::fs::create_dir(dir.path().join("out")).unwrap();
    std::fs::copy(dir.path().join(&one), dir.path().join("out/bootstrap.ign")).unwrap();
    let output = run(&["inspect", "--golden", "out"], dir.path());
    assert!(output.status.success(), "{output:?}");
    assert_safe(
        "inspect --golden",
        &output,
        &[paths[0], unit, "hello\\x1b[2J"],
    );
    let written = run(
        &["inspect", "--golden", "out", "-o", "golden.txt"],
        dir.path(),
    );
    assert!(written.status.success(), "{written:?}");
    assert_eq!(
        std::fs::read(dir.path().join("golden.txt")).unwrap(),
        output.stdout
    );
}

#[test]
fn errors_and_warnings_quoting_a_hostile_value_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    // extract refuses an unclean path, naming it.
    let bad = json!({"ignition": {"version": "3.2.0"},
        "storage": {"files": [{"path": format!("/etc/{CLEAR}/../x"), "contents": {"source": "data:,x"}}]}});
    std::fs::write(dir.path().join("bad.ign"), bad.to_string()).unwrap();
    let output = run(&["extract", "bad.ign", "-o", "root"], dir.path());
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_safe("extract error", &output, &["/etc/\\x1b[2J/../x"]);
    // validate reports it as a problem.
    let output = run(&["validate", "bad.ign"], dir.path());
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_safe("validate error", &output, &["/etc/\\x1b[2J/../x"]);
    // extract's note on a link it does not create quotes the link's target.
    let link = json!({"ignition": {"version": "3.2.0"},
        "storage": {"links": [{"path": "/etc/l", "target": format!("/x{TITLE}{C1_CSI}")}]}});
    std::fs::write(dir.path().join("link.ign"), link.to_string()).unwrap();
    let output = run(&["extract", "link.ign", "-o", "root"], dir.path());
    assert!(output.status.success(), "{output:?}");
    assert_safe("extract note", &output, &["/x\\x1b]0;pwned\\x07\\u{9b}31m"]);
    // A file whose name is hostile, named in an error.
    let name = format!("missing{TITLE}.ign");
    let output = run(&["inspect", &name], dir.path());
    assert_ne!(output.status.code(), Some(0), "{output:?}");
    assert_safe("inspect error", &output, &["missing\\x1b]0;pwned\\x07.ign"]);
}

/// A hostile command-line value that the argument parser refuses (a bad host name, an unknown
/// option) is named in its error with visible escapes: neither obeyed nor silently dropped.
#[test]
fn argument_errors_quoting_a_hostile_value_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let host = format!("--add-host=192.0.2.1=mirror{TITLE}.lab");
    let output = run(&["ignition", "-o", "out", &host], dir.path());
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_safe(
        "--add-host error",
        &output,
        &["mirror\\x1b]0;pwned\\x07.lab"],
    );
    let option = format!("--bogus{CLEAR}");
    let output = run(&["ignition", &option], dir.path());
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_safe("unknown option error", &output, &["--bogus\\x1b[2J"]);
    assert!(!dir.path().join("out").exists());
}
