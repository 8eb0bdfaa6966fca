//! Bad input across every command (patch, inspect, validate, diff, extract, pointer, package,
//! diagnose, the mirror flags): each case gives its exit code and a message naming what is at
//! fault, never panics, and leaves no output behind. `bad_input.rs` holds the install-config cases.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::LIBRARY_SPELLINGS;
use std::path::Path;

struct Case {
    args: &'static str,
    code: i32,
    expect: &'static [&'static str],
}

const fn case(args: &'static str, code: i32, expect: &'static [&'static str]) -> Case {
    Case { args, code, expect }
}

/// `{}` in args is replaced by the scratch directory.
const CASES: &[Case] = &[
    // Existing .ign files that are broken in every way users meet.
    case(
        "patch {}/truncated.ign -o {}/x.ign --debug",
        1,
        // Just past the last byte, where reading stopped, as `validate` places it.
        &["truncated.ign", "column 1001", "truncated"],
    ),
    case(
        "patch {}/butane.yaml -o {}/x.ign",
        1,
        &["butane.yaml", "not valid JSON", "line 1"],
    ),
    case(
        "patch {}/empty.ign -o {}/x.ign",
        1,
        &["empty.ign", "truncated"],
    ),
    case(
        "patch {}/spec2.ign -o {}/x.ign",
        1,
        &["spec version 2.2.0 is not supported", "3.0.0"],
    ),
    case(
        "patch {}/noversion.ign -o {}/x.ign",
        1,
        &["no ignition.version"],
    ),
    case("patch {}/unknownkey.ign -o {}/x.ign", 1, &["filez"]),
    case(
        "patch {}/badurl.ign -o {}/x.ign",
        1,
        &["badurl.ign", "$.storage.files[0].contents", "base64"],
    ),
    case(
        "patch {}/huge.ign -o {}/x.ign --disable-unit nosuch.service",
        1,
        &["nosuch.service", "(none)"],
    ),
    case(
        "patch {}/missing.ign -o {}/x.ign",
        1,
        &["cannot read", "missing.ign"],
    ),
    case(
        "patch {}/good.ign -o {}/x.ign --mask-unit nosuch.service",
        1,
        &["nosuch.service", "bootkube.service"],
    ),
    // Mirror, host, auth and trust-bundle arguments.
    case(
        "patch {}/good.ign -o {}/x.ign --mirror quay.io/a",
        1,
        &["--mirror", "quay.io/a", "SOURCE=MIRROR"],
    ),
    case(
        "patch {}/good.ign -o {}/x.ign --mirror =mirror.local/x",
        1,
        &["--mirror", "without a source"],
    ),
    case(
        "patch {}/good.ign -o {}/x.ign --mirror https://quay.io/a=m.local/x",
        1,
        &["--mirror", "URL scheme"],
    ),
    case(
        "patch {}/good.ign -o {}/x.ign --add-host 300.1.1.1=m.local",
        1,
        &["--add-host", "300.1.1.1", "not an IP"],
    ),
    case(
        "patch {}/good.ign -o {}/x.ign --add-host 10.0.0.1",
        1,
        &["--add-host", "IP=NAME"],
    ),
    case(
        "patch {}/good.ign -o {}/x.ign --insecure-registry http://m.local",
        1,
        &["--insecure-registry", "URL scheme"],
    ),
    case(
        "patch {}/good.ign -o {}/x.ign --registry-auth {}/notjson.json",
        1,
        &["--registry-auth", "notjson.json", "not JSON"],
    ),
    case(
        "patch {}/good.ign -o {}/x.ign --registry-auth {}/missing.json",
        1,
        &["--registry-auth: cannot read", "missing.json"],
    ),
    case(
        "ignition -o {}/out2 --key-algorithm ecdsa-p256 --trust-bundle {}/missing.pem",
        1,
        &["--trust-bundle: cannot read", "missing.pem"],
    ),
    case(
        "patch {}/good.ign -o {}/x.ign --trust-bundle {}/notpem.pem",
        1,
        &["--trust-bundle", "notpem.pem", "no PEM certificate"],
    ),
    case(
        "ignition -o {}/out2 --key-algorithm ecdsa-p256 --trust-bundle {}/notpem.pem",
        1,
        &["--trust-bundle", "notpem.pem"],
    ),
    case(
        "ignition -o {}/out2 --key-algorithm ecdsa-p256 --mirror quay.io/a",
        1,
        &["--mirror", "SOURCE=MIRROR"],
    ),
    // Toolkit commands.
    case(
        "inspect {}/truncated.ign",
        1,
        &["truncated.ign", "truncated"],
    ),
    case(
        "inspect --certs {}/missing.ign",
        1,
        &["cannot read", "missing.ign"],
    ),
    case(
        "inspect --certs --warn-within forever {}/good.ign",
        1,
        &["--warn-within", "forever"],
    ),
    case(
        "validate {}/badurl.ign",
        1,
        &["badurl.ign", "$.storage.files[0].contents.source"],
    ),
    case("validate {}/spec2.ign", 1, &["spec 2", "3.0.0"]),
    case("validate {}/truncated.ign", 1, &["truncated.ign:1:1001:"]),
    case("diff {}/truncated.ign {}/good.ign", 2, &["truncated.ign"]),
    case("extract {}/truncated.ign -o {}/ex", 1, &["truncated.ign"]),
    case(
        "pointer --url ftp://host/b.ign {}/good.ign -o {}/p.ign",
        1,
        &["--url", "ftp://host/b.ign"],
    ),
    case(
        "pointer --url https://host/b.ign --ca {}/notpem.pem {}/good.ign -o {}/p.ign",
        1,
        &["--ca", "notpem.pem"],
    ),
    case(
        "package {}/missing-dir -o {}/p.tar.gz",
        1,
        &["missing-dir", "not a directory"],
    ),
    case("completions tcsh", 1, &["tcsh", "possible values"]),
    // Multi-architecture payloads start with 4.11: none exists for an older release.
    case(
        "ignition -o {}/out2 --key-algorithm ecdsa-p256 --release-image quay.io/openshift-release-dev/ocp-release:4.9.0-multi",
        1,
        &["--release-image", "4.9.0-multi", "release 4.9 has none", "4.11"],
    ),
    case(
        "ignition -o {}/out2 --key-algorithm ecdsa-p256 --release-version 4.10.3 --bootstrap-arch arm64",
        1,
        &["--release-version", "4.10.3-multi", "release 4.10 has none"],
    ),
    case(
        "ignition -o {}/out2 --now yesterday",
        1,
        &["--now", "RFC 3339"],
    ),
    // A config is not a log bundle; diagnose says 2 (unreadable), as diff does.
    case(
        "diagnose {}/good.ign",
        2,
        &["good.ign", "not a readable log bundle"],
    ),
    case("diagnose {}/missing.tar.gz", 2, &["missing.tar.gz"]),
    // A usage error is not an answer: 2, never diagnose's 'failure found' or diff's 'different'.
    case("diagnose", 2, &["<BUNDLE|DIR>"]),
    case("diff {}/good.ign", 2, &["<B.ign|DIR>"]),
];

fn setup(dir: &Path) {
    let good = dir.join("good.ign");
    let out = bootgen_conformance::bootgen!()
        .args(["ignition", "--key-algorithm", "ecdsa-p256", "-o"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(out.status.success());
    std::fs::copy(dir.join("out/bootstrap.ign"), &good).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(dir.join("truncated.ign"), &bytes[..1000]).unwrap();
    std::fs::write(dir.join("empty.ign"), b"").unwrap();
    std::fs::write(dir.join("butane.yaml"), "variant: fcos\nversion: 1.4.0\n").unwrap();
    std::fs::write(dir.join("spec2.ign"), r#"{"ignition":{"version":"2.2.0"}}"#).unwrap();
    std::fs::write(dir.join("noversion.ign"), r#"{"storage":{}}"#).unwrap();
    std::fs::write(
        dir.join("unknownkey.ign"),
        r#"{"ignition":{"version":"3.2.0"},"storage":{"filez":[]}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("badurl.ign"),
        r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/a","contents":{"source":"data:;base64,@@@"}}]}}"#,
    )
    .unwrap();
    // ~40 MB: a huge but valid config must be handled, not crash.
    let files: Vec<String> = (0..40_000)
        .map(|i| {
            format!(
                r#"{{"path":"/f{i}","contents":{{"source":"data:,{}"}}}}"#,
                "x".repeat(1000)
            )
        })
        .collect();
    std::fs::write(
        dir.join("huge.ign"),
        format!(
            r#"{{"ignition":{{"version":"3.2.0"}},"storage":{{"files":[{}]}}}}"#,
            files.join(",")
        ),
    )
    .unwrap();
    std::fs::write(dir.join("notjson.json"), "{\"auths\": nope").unwrap();
    std::fs::write(dir.join("notpem.pem"), "not a certificate\n").unwrap();
}

#[test]
fn every_command_rejects_bad_input_clearly() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    setup(dir);
    let mut failures = Vec::new();
    for c in CASES {
        let line = c.args.replace("{}", &dir.display().to_string());
        let args: Vec<&str> = line.split(' ').collect();
        let output = bootgen_conformance::bootgen!()
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let all = format!("{stdout}{stderr}");
        if output.status.code() != Some(c.code) {
            failures.push(format!(
                "`{}`: exit {:?}, wanted {}\n{all}",
                c.args,
                output.status.code(),
                c.code
            ));
        }
        if all.contains("panicked") || all.contains("RUST_BACKTRACE") {
            failures.push(format!("`{}` panicked:\n{all}", c.args));
        }
        for fragment in c.expect {
            if !all.contains(fragment) {
                failures.push(format!("`{}`: output lacks `{fragment}`:\n{all}", c.args));
            }
        }
        if let Some(spelling) = LIBRARY_SPELLINGS.iter().find(|s| all.contains(*s)) {
            failures.push(format!(
                "`{}`: the library's `{spelling}` instead of a flag:\n{all}",
                c.args
            ));
        }
        for leftover in ["x.ign", "out2", "ex", "p.ign", "p.tar.gz"] {
            if dir.join(leftover).exists() {
                failures.push(format!("`{}` wrote {leftover}", c.args));
                let _ = std::fs::remove_dir_all(dir.join(leftover));
                let _ = std::fs::remove_file(dir.join(leftover));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n\n")
    );
}
