//! The table of bad inputs: each must fail with exit code 1, a message that names the file,
//! field (and line) at fault, and write nothing at all.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::{repo, LIBRARY_SPELLINGS};

fn invalid(name: &str) -> String {
    repo()
        .join("fixtures/install-configs/invalid")
        .join(name)
        .display()
        .to_string()
}

struct Case {
    name: &'static str,
    args: Vec<String>,
    /// Every fragment must appear in stderr.
    expect: Vec<&'static str>,
}

fn case(name: &'static str, args: &[&str], expect: &[&'static str]) -> Case {
    Case {
        name,
        args: args.iter().map(|s| s.to_string()).collect(),
        expect: expect.to_vec(),
    }
}

fn ic(file: &str) -> Vec<String> {
    vec!["--install-config".into(), invalid(file)]
}

#[test]
fn bad_inputs_fail_clearly_and_write_nothing() {
    let scratch = tempfile::tempdir().unwrap();
    let bad_manifests = scratch.path().join("bad-manifests");
    std::fs::create_dir_all(bad_manifests.join("sub")).unwrap();
    std::fs::write(bad_manifests.join("sub/broken.yaml"), "kind: [unclosed\n").unwrap();
    let not_a_dir = scratch.path().join("file.txt");
    std::fs::write(&not_a_dir, "x").unwrap();

    let mut cases = vec![
        case(
            "malformed YAML",
            &[],
            &["malformed-yaml.yaml:4", "baseDomain"],
        ),
        case(
            "missing baseDomain",
            &[],
            &["missing-base-domain.yaml", "`baseDomain`", "is required"],
        ),
        case(
            "bad CIDR",
            &[],
            &[
                "bad-cidr.yaml",
                "networking.serviceNetwork[0]",
                "line 14",
                "172.30.0.0/33",
            ],
        ),
        case(
            "overlapping networks",
            &[],
            &[
                "networking.clusterNetwork[0].cidr",
                "overlaps serviceNetwork[0]",
            ],
        ),
        case(
            "bad SSH key",
            &[],
            &["bad-ssh-key.yaml", "`sshKey`", "line 15", "base64"],
        ),
        case(
            "pull secret not JSON",
            &[],
            &["`pullSecret`", "line 14", "is not JSON"],
        ),
        case(
            "unknown arch in install-config",
            &[],
            &[
                "`controlPlane.architecture`",
                "mips64",
                "write one of amd64, arm64, ppc64le, s390x",
            ],
        ),
        case(
            "unsupported platform",
            &[],
            &[
                "platform `aws` is not supported",
                "supported platforms: none",
            ],
        ),
        case(
            "feature set the release does not have",
            &[],
            &[
                "unknown-feature-set.yaml",
                "`featureSet`",
                "line 15",
                "`TechPreview` is not a feature set of OpenShift 4.22",
                "TechPreviewNoUpgrade",
            ],
        ),
        case(
            "custom feature gate that does not parse",
            &[],
            &[
                "bad-feature-gate.yaml",
                "`featureGates[1]`",
                "line 18",
                "<FeatureGateName>=<true|false>",
            ],
        ),
        case(
            "OS stream the release does not let the cluster choose",
            &["--release-version", "4.22.0"],
            &[
                "os-stream-without-feature.yaml",
                "`osImageStream`",
                "line 16",
                "`rhel-10` is not OpenShift 4.22's default stream (rhel-9)",
                "featureSet TechPreviewNoUpgrade or DevPreviewNoUpgrade",
            ],
        ),
        case(
            "compute pool of another architecture",
            &[],
            &[
                "mixed-architectures.yaml",
                "`compute[0].architecture`",
                "line 14",
                "is amd64, but the control plane is arm64",
                "write `architecture: arm64`",
            ],
        ),
        case(
            "unknown --arch",
            &["--arch", "mips"],
            &["--arch", "mips", "aarch64"],
        ),
        case(
            "missing install-config",
            &["--install-config", "/nonexistent/install-config.yaml"],
            &[
                "cannot read /nonexistent/install-config.yaml",
                "No such file",
            ],
        ),
        case(
            "missing manifests dir",
            &["--manifests-dir", "/nonexistent/manifests"],
            &["cannot read /nonexistent/manifests"],
        ),
        case(
            "release for another arch",
            &[
                "--arch",
                "arm64",
                "--release-image",
                "quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64",
            ],
            &[
                "--release-image",
                "built for amd64",
                "cluster is arm64",
                "(--allow-arch-mismatch overrides)",
            ],
        ),
        case(
            "digest without a version",
            &[
                "--release-image",
                "quay.io/openshift-release-dev/ocp-release@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            ],
            &[
                "--release-version",
                "does not say which release it is",
                "give the version with --release-version",
            ],
        ),
        // Pull specs the node's podman refuses are refused here, naming the flag.
        case(
            "short digest",
            &[
                "--release-image",
                "quay.io/openshift-release-dev/ocp-release@sha256:abc",
            ],
            &["--release-image", "the digest `sha256:abc`", "64 lower-case"],
        ),
        case(
            "upper-case repository",
            &[
                "--release-image",
                "quay.io/OpenShift/ocp-release:4.16.0-x86_64",
            ],
            &["--release-image", "component `OpenShift`"],
        ),
        case(
            "space in the release image",
            &["--release-image", "quay.io/a b:4.16.0-x86_64"],
            &["--release-image", "`quay.io/a b:4.16.0-x86_64` is not an image pull spec"],
        ),
        case(
            "tag and version disagree",
            &[
                "--release-version",
                "4.16.2",
                "--release-image",
                "quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64",
            ],
            &["--release-version: 4.16.2 disagrees", "says 4.16.3"],
        ),
        case(
            "unsupported release 6.0",
            &["--release-version", "6.0.0"],
            &["OpenShift 6.0 is not supported", "4.12", "5.0 (development)"],
        ),
        case(
            "unsupported release 3.11",
            &["--release-version", "3.11.0"],
            &["OpenShift 3.11 is not supported"],
        ),
        case(
            "unsupported release 4.99",
            &["--release-version", "4.99.0"],
            &["OpenShift 4.99 is not supported"],
        ),
        case(
            "a minor is not a release version",
            &["--release-version", "4.16"],
            &["--release-version", "give the full version, e.g. 4.16.0"],
        ),
        case(
            "bad key algorithm",
            &["--key-algorithm", "dsa"],
            &["--key-algorithm", "dsa"],
        ),
        case("bad --now", &["--now", "yesterday"], &["--now", "RFC 3339"]),
    ];
    let files = [
        "malformed-yaml.yaml",
        "missing-base-domain.yaml",
        "bad-cidr.yaml",
        "overlapping-networks.yaml",
        "bad-ssh-key.yaml",
        "pull-secret-not-json.yaml",
        "unknown-arch.yaml",
        "unsupported-platform.yaml",
        "unknown-feature-set.yaml",
        "bad-feature-gate.yaml",
        "os-stream-without-feature.yaml",
        "mixed-architectures.yaml",
    ];
    for (c, file) in cases.iter_mut().zip(files) {
        let mut args = ic(file);
        args.append(&mut c.args);
        c.args = args;
    }
    cases.push(Case {
        name: "manifest that does not parse",
        args: vec![
            "--manifests-dir".into(),
            bad_manifests.display().to_string(),
        ],
        expect: vec!["sub/broken.yaml", "does not parse as YAML or JSON"],
    });
    let upper_mirror = scratch.path().join("upper-case-mirror.yaml");
    let minimal =
        std::fs::read_to_string(repo().join("fixtures/install-configs/valid/minimal.yaml"));
    std::fs::write(
        &upper_mirror,
        minimal.unwrap()
            + "imageDigestSources:\n- source: quay.io/openshift-release-dev/ocp-release\n  mirrors:\n  - mirror.lab:5000/OCP/release\n",
    )
    .unwrap();
    cases.push(Case {
        name: "upper-case mirror",
        args: vec![
            "--install-config".into(),
            upper_mirror.display().to_string(),
        ],
        expect: vec![
            "upper-case-mirror.yaml",
            "imageDigestSources[0].mirrors[0]",
            "component `OCP`",
        ],
    });
    cases.push(Case {
        name: "manifests dir is a file",
        args: vec!["--manifests-dir".into(), not_a_dir.display().to_string()],
        expect: vec!["--manifests-dir", "is not a directory"],
    });

    for c in &mut cases {
        for arg in &mut c.args {
            if let Some(name) = arg.strip_prefix("FIXTURE:") {
                *arg = repo()
                    .join("fixtures/install-configs/valid")
                    .join(name)
                    .display()
                    .to_string();
            }
        }
    }
    let mut failures = Vec::new();
    for c in &cases {
        let out_dir = scratch
            .path()
            .join(format!("out-{}", c.name.replace(' ', "-")));
        let output = bootgen_conformance::bootgen!()
            .arg("ignition")
            .args(&c.args)
            .arg("--output")
            .arg(&out_dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.code() != Some(1) {
            failures.push(format!(
                "{}: exit {:?}, stderr:\n{stderr}",
                c.name,
                output.status.code()
            ));
        }
        for fragment in &c.expect {
            if !stderr.contains(fragment) {
                failures.push(format!("{}: stderr lacks `{fragment}`:\n{stderr}", c.name));
            }
        }
        if !stderr.lines().any(|l| l.starts_with("error: ")) {
            failures.push(format!("{}: no `error:` line", c.name));
        }
        if let Some(spelling) = LIBRARY_SPELLINGS.iter().find(|s| stderr.contains(*s)) {
            failures.push(format!(
                "{}: the library's `{spelling}` instead of a flag:\n{stderr}",
                c.name
            ));
        }
        if out_dir.exists() {
            failures.push(format!("{}: wrote {}", c.name, out_dir.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn unknown_keys_are_errors_with_their_line_and_the_key_meant() {
    let scratch = tempfile::tempdir().unwrap();
    let config = scratch.path().join("install-config.yaml");
    let text = std::fs::read_to_string(repo().join("fixtures/install-configs/valid/minimal.yaml"))
        .unwrap()
        .replace("  replicas: 2\n", "  replicas: 2\n  replcas: 4\n");
    std::fs::write(&config, text).unwrap();
    let run = |extra: &[&str], out: &str| {
        bootgen_conformance::bootgen!()
            .args([
                "ignition",
                "--key-algorithm",
                "ecdsa-p256",
                "--install-config",
            ])
            .arg(&config)
            .arg("--output")
            .arg(scratch.path().join(out))
            .args(extra)
            .output()
            .unwrap()
    };
    for (extra, out) in [(&[][..], "lenient"), (&["--strict"][..], "strict")] {
        let refused = run(extra, out);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(
                "field `compute[0].replcas` (line 12): unknown key: did you mean `replicas`?"
            ),
            "{stderr}"
        );
        assert!(!scratch.path().join(out).exists());
    }
}

#[test]
fn secrets_stay_out_of_error_messages() {
    let scratch = tempfile::tempdir().unwrap();
    let config = scratch.path().join("install-config.yaml");
    let text = std::fs::read_to_string(invalid("pull-secret-not-json.yaml"))
        .unwrap()
        .replace("auths: not json", "{\"auths\": hunter2-secret");
    std::fs::write(&config, text).unwrap();
    let output = bootgen_conformance::bootgen!()
        .args(["ignition", "--install-config"])
        .arg(&config)
        .arg("--output")
        .arg(scratch.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(all.contains("pullSecret"), "{all}");
    assert!(!all.contains("hunter2"), "secret leaked: {all}");
}

#[test]
fn existing_output_is_not_replaced_without_force() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    let run = |extra: &[&str]| {
        bootgen_conformance::bootgen!()
            .args(["ignition", "--key-algorithm", "ecdsa-p256", "--output"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    assert!(run(&[]).status.success());
    // The same run again: nothing would be written over, so no --force is needed.
    let same = run(&[]);
    assert!(
        same.status.success(),
        "{}",
        String::from_utf8_lossy(&same.stderr)
    );
    let stdout = String::from_utf8_lossy(&same.stdout);
    assert!(stdout.contains("0 files written"), "{stdout}");
    let before = std::fs::read(out.join("bootstrap.ign")).unwrap();
    std::fs::write(out.join("bootstrap.ign"), b"my hand edit").unwrap();
    let second = run(&[]);
    assert_eq!(second.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(
        stderr.contains("bootstrap.ign already exists; use --force to replace it (keys in tls/"),
        "{stderr}"
    );
    // Every file an edit changed is named, and only those.
    std::fs::write(out.join("master.ign"), b"{}").unwrap();
    std::fs::write(out.join("auth/kubeconfig"), b"edited").unwrap();
    let stderr = String::from_utf8_lossy(&run(&[]).stderr).into_owned();
    for name in ["auth/kubeconfig", "bootstrap.ign", "master.ign"] {
        assert!(stderr.contains(name), "{name}: {stderr}");
    }
    assert!(
        stderr.contains("already exist; use --force to replace them"),
        "{stderr}"
    );
    assert!(!stderr.contains("worker.ign"), "{stderr}");
    assert_eq!(
        std::fs::read(out.join("bootstrap.ign")).unwrap(),
        b"my hand edit"
    );
    assert!(run(&["--force"]).status.success());
    let after = std::fs::read(out.join("bootstrap.ign")).unwrap();
    assert_ne!(after, b"my hand edit");
    // The PKI in out/tls is reused, so the regenerated config is the same as the first.
    assert_eq!(after, before);
}

#[test]
fn a_different_key_in_the_output_is_refused_naming_the_flag_that_reuses_it() {
    let scratch = tempfile::tempdir().unwrap();
    let generate = |out: &str, extra: &[&str]| {
        bootgen_conformance::bootgen!()
            .args(["ignition", "--key-algorithm", "ecdsa-p256", "--output"])
            .arg(scratch.path().join(out))
            .args(extra)
            .output()
            .unwrap()
    };
    assert!(generate("a", &[]).status.success());
    assert!(generate("b", &[]).status.success());
    let other_pki = scratch.path().join("b/tls").display().to_string();
    let mixed = generate("a", &["--force", "--tls-dir", &other_pki]);
    let stderr = String::from_utf8_lossy(&mixed.stderr);
    assert_eq!(mixed.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("exists with a different key")
            && stderr.contains("reuse it with --tls-dir"),
        "{stderr}"
    );
    assert!(!stderr.contains("tls_dir"), "{stderr}");
}
