//! The install-config's `pki` (5.0, ConfigurablePKI feature gate): the signers' key it names,
//! judged by OpenSSL on the written tls directory (every signer's key, every leaf's signature
//! algorithm, every chain), the cluster's PKI object, the installer's checks by field, the gate,
//! the releases before 5.0, and a re-run over such a tls directory.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::lab::Lab;
use bootgen_conformance::IgnitionView;
use serde_yaml_ng::Value;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

const PKI_OBJECT: &str = "/opt/openshift/manifests/cluster-pki-02-config.yaml";
const OPENSSL: &str = "/usr/bin/openssl";
const NOW: &str = "2026-06-01T00:00:00Z";

/// The lab cluster without an SSH key, with the preview feature set (the gate on) and `tail`.
fn install_config(tail: &str) -> String {
    Lab {
        ssh_key: false,
        tail: &format!("featureSet: TechPreviewNoUpgrade\n{tail}"),
        ..Lab::default()
    }
    .install_config()
}

/// `pki` naming `key` (lines indented under `key:`).
fn with_key(key: &str) -> String {
    install_config(&format!("pki:\n  signerCertificates:\n    key:\n{key}"))
}

/// `bootgen ignition` for `text` on release `version` into `dir/out`, with `extra` flags.
fn generate(dir: &Path, text: &str, version: &str, extra: &[&str]) -> Output {
    let config = dir.join("install-config.yaml");
    fs::write(&config, text).unwrap();
    bootgen_conformance::bootgen!()
        .args(["ignition", "--now", NOW, "--install-config"])
        .arg(&config)
        .args(["--release-version", version])
        .args(extra)
        .arg("--output")
        .arg(dir.join("out"))
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn succeeded(output: &Output) {
    assert!(output.status.success(), "{}", stderr(output));
}

fn openssl_text(cert: &Path) -> String {
    let output = Command::new(OPENSSL)
        .args(["x509", "-noout", "-text", "-in"])
        .arg(cert)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}: {}",
        cert.display(),
        stderr(&output)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// What OpenSSL says of a key of each kind, and of the signatures made with it.
struct Expected {
    signer_key: &'static [&'static str],
    signature: &'static str,
}

/// Every certificate of `tls` (bundles aside): each signer has the expected key and signed itself
/// with it, each leaf has an RSA 2048 key (the default) and is signed with the signature
/// algorithm the signer's key makes, and `openssl verify` accepts each leaf under the signers.
fn check_tls(tls: &Path, expected: &Expected) {
    let mut signers = String::new();
    let mut leaves = Vec::new();
    for entry in fs::read_dir(tls).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".crt") || name.ends_with("-ca-bundle.crt") {
            continue;
        }
        let text = openssl_text(&path);
        let signature = format!("Signature Algorithm: {}", expected.signature);
        assert!(text.contains(&signature), "{name}: {text}");
        if text.contains("CA:TRUE") {
            for fact in expected.signer_key {
                assert!(text.contains(fact), "{name}: no {fact} in {text}");
            }
            signers.push_str(&fs::read_to_string(&path).unwrap());
        } else {
            assert!(text.contains("Public-Key: (2048 bit)"), "{name}: {text}");
            leaves.push(path);
        }
    }
    assert_eq!(signers.matches("BEGIN CERTIFICATE").count(), 11);
    assert!(leaves.len() >= 13, "{leaves:?}");
    let bundle = tls.join("../signers.pem");
    fs::write(&bundle, signers).unwrap();
    for leaf in &leaves {
        let output = Command::new(OPENSSL)
            .args(["verify", "-x509_strict", "-no_check_time", "-CAfile"])
            .arg(&bundle)
            .arg(leaf)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}: {}{}",
            leaf.display(),
            String::from_utf8_lossy(&output.stdout),
            stderr(&output)
        );
    }
}

/// The cluster's PKI object as the node gets it.
fn pki_object(dir: &Path) -> Value {
    let view = IgnitionView::load(&dir.join("out/bootstrap.ign")).unwrap();
    let entry = view.files.get(PKI_OBJECT).expect("no PKI object");
    serde_yaml_ng::from_slice(entry.contents.as_deref().unwrap_or_default()).unwrap()
}

/// The install-config as the cluster stores it (the `cluster-config-v1` ConfigMap).
fn stored_install_config(dir: &Path) -> Value {
    let view = IgnitionView::load(&dir.join("out/bootstrap.ign")).unwrap();
    let entry = &view.files["/opt/openshift/manifests/cluster-config.yaml"];
    let map: Value =
        serde_yaml_ng::from_slice(entry.contents.as_deref().unwrap_or_default()).unwrap();
    serde_yaml_ng::from_str(map["data"]["install-config"].as_str().unwrap()).unwrap()
}

/// The key block of a PKI profile, as a YAML value.
fn key_value(yaml: &str) -> Value {
    serde_yaml_ng::from_str(yaml).unwrap()
}

#[test]
fn the_signers_get_the_key_pki_names_and_sign_with_its_hash() {
    if !bootgen_conformance::tools_present(&[OPENSSL]) {
        return;
    }
    let cases: [(&str, Expected, &str); 3] = [
        (
            "      algorithm: ECDSA\n      ecdsa:\n        curve: P384\n",
            Expected {
                signer_key: &["Public-Key: (384 bit)", "secp384r1"],
                signature: "ecdsa-with-SHA384",
            },
            "{algorithm: ECDSA, ecdsa: {curve: P384}}",
        ),
        (
            // An empty block of the other algorithm is no block, as to the installer.
            "      algorithm: ECDSA\n      ecdsa:\n        curve: P521\n      rsa: {}\n",
            Expected {
                signer_key: &["Public-Key: (521 bit)", "secp521r1"],
                signature: "ecdsa-with-SHA512",
            },
            "{algorithm: ECDSA, ecdsa: {curve: P521}}",
        ),
        (
            "      algorithm: RSA\n      rsa:\n        keySize: 3072\n",
            Expected {
                signer_key: &["Public-Key: (3072 bit)", "rsaEncryption"],
                signature: "sha256WithRSAEncryption",
            },
            "{algorithm: RSA, rsa: {keySize: 3072}}",
        ),
    ];
    for (key, expected, profile_key) in cases {
        let dir = tempfile::tempdir().unwrap();
        succeeded(&generate(dir.path(), &with_key(key), "5.0.0", &[]));
        check_tls(&dir.path().join("out/tls"), &expected);
        let object = pki_object(dir.path());
        let management = &object["spec"]["certificateManagement"];
        assert_eq!(management["mode"], Value::from("Custom"), "{object:?}");
        // The profile sits directly under `custom`, as the installer writes it.
        let profile = &management["custom"];
        assert_eq!(
            profile["defaults"]["key"],
            key_value("{algorithm: RSA, rsa: {keySize: 4096}}")
        );
        assert_eq!(profile["signerCertificates"]["key"], key_value(profile_key));
        assert_eq!(object["kind"], Value::from("PKI"));
        assert_eq!(object["metadata"]["name"], Value::from("cluster"));
        let stored = stored_install_config(dir.path());
        assert_eq!(
            stored["pki"]["signerCertificates"]["key"],
            key_value(profile_key)
        );
    }
}

/// RSA 8192 takes seconds a key: one cluster only.
#[test]
fn rsa_8192_signers() {
    if !bootgen_conformance::tools_present(&[OPENSSL]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let key = "      algorithm: RSA\n      rsa:\n        keySize: 8192\n";
    succeeded(&generate(dir.path(), &with_key(key), "5.0.0", &[]));
    let expected = Expected {
        signer_key: &["Public-Key: (8192 bit)"],
        signature: "sha256WithRSAEncryption",
    };
    check_tls(&dir.path().join("out/tls"), &expected);
}

/// Without `pki` the gate gives the profile's RSA 4096 signers and a Default PKI object.
#[test]
fn without_pki_the_object_stays_default() {
    let dir = tempfile::tempdir().unwrap();
    succeeded(&generate(
        dir.path(),
        &install_config(""),
        "5.0.0",
        &["--key-algorithm", "ecdsa-p256"],
    ));
    let object = pki_object(dir.path());
    let management = &object["spec"]["certificateManagement"];
    assert_eq!(management["mode"], Value::from("Default"));
    assert!(management["custom"].is_null(), "{object:?}");
}

/// The 1-based line of the first line of `text` holding `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn each_mistake_is_refused_naming_its_field_and_line() {
    let key = "pki.signerCertificates.key";
    let cases: &[(&str, String, &str)] = &[
        (
            "      rsa:\n        keySize: 4096\n",
            format!("{key}.algorithm"),
            "    key:",
        ),
        (
            "      algorithm: DSA\n",
            format!("{key}.algorithm"),
            "algorithm:",
        ),
        ("      algorithm: RSA\n", format!("{key}.rsa"), "    key:"),
        (
            "      algorithm: RSA\n      rsa:\n        keySize: 4096\n      ecdsa:\n        curve: P384\n",
            format!("{key}.ecdsa"),
            "ecdsa:",
        ),
        ("      algorithm: ECDSA\n", format!("{key}.ecdsa"), "    key:"),
        (
            "      algorithm: ECDSA\n      ecdsa:\n        curve: P384\n      rsa:\n        keySize: 2048\n",
            format!("{key}.rsa"),
            "rsa:",
        ),
        (
            "      algorithm: RSA\n      rsa:\n        keySize: 3000\n",
            format!("{key}.rsa.keySize"),
            "keySize:",
        ),
        (
            "      algorithm: RSA\n      rsa:\n        keySize: 16384\n",
            format!("{key}.rsa.keySize"),
            "keySize:",
        ),
        (
            "      algorithm: ECDSA\n      ecdsa:\n        curve: P192\n",
            format!("{key}.ecdsa.curve"),
            "curve:",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (key, field, at) in cases {
        let text = with_key(key);
        let output = generate(
            dir.path(),
            &text,
            "5.0.0",
            &["--key-algorithm", "ecdsa-p256"],
        );
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{key}: {message}");
        let named = format!("`{field}` (line {})", line_of(&text, at));
        assert!(message.contains(&named), "{key}: no {named} in {message}");
    }
}

/// Sizes the installer takes and aws-lc cannot generate: refused naming the value and the
/// sizes bootgen makes.
#[test]
fn rsa_sizes_bootgen_cannot_make_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for size in [5120, 6144, 7168] {
        let text = with_key(&format!(
            "      algorithm: RSA\n      rsa:\n        keySize: {size}\n"
        ));
        let output = generate(dir.path(), &text, "5.0.0", &[]);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{message}");
        for word in [
            "`pki.signerCertificates.key.rsa.keySize`".to_string(),
            size.to_string(),
            "2048, 3072, 4096 and 8192".to_string(),
        ] {
            assert!(message.contains(&word), "no {word} in {message}");
        }
    }
}

#[test]
fn the_gate_is_needed_and_customnoupgrade_can_give_it() {
    let key = "pki:\n  signerCertificates:\n    key:\n      algorithm: ECDSA\n      ecdsa:\n        curve: P256\n";
    let dir = tempfile::tempdir().unwrap();
    let gateless = install_config(key).replace("featureSet: TechPreviewNoUpgrade\n", "");
    let output = generate(dir.path(), &gateless, "5.0.0", &[]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    let named = format!("`pki` (line {})", line_of(&gateless, "pki:"));
    assert!(
        message.contains(&named) && message.contains("ConfigurablePKI"),
        "{message}"
    );
    let custom = install_config(key).replace(
        "featureSet: TechPreviewNoUpgrade\n",
        "featureSet: CustomNoUpgrade\nfeatureGates:\n- ConfigurablePKI=true\n",
    );
    succeeded(&generate(dir.path(), &custom, "5.0.0", &[]));
    let object = pki_object(dir.path());
    assert_eq!(
        object["spec"]["certificateManagement"]["mode"],
        Value::from("Custom")
    );
}

/// 4.22's installer does not know the field and decodes strictly; 4.21's ignores it.
#[test]
fn releases_before_5_0_refuse_or_ignore_the_field() {
    let text = with_key("      algorithm: ECDSA\n      ecdsa:\n        curve: P384\n");
    let dir = tempfile::tempdir().unwrap();
    let pki_line = line_of(&text, "pki:");
    let refused = generate(
        dir.path(),
        &text,
        "4.22.0",
        &["--key-algorithm", "ecdsa-p256"],
    );
    let message = stderr(&refused);
    assert_eq!(refused.status.code(), Some(1), "{message}");
    assert!(
        message.contains(&format!("`pki` (line {pki_line})")) && message.contains("arrived in 5.0"),
        "{message}"
    );
    let ignored = generate(
        dir.path(),
        &text,
        "4.21.0",
        &["--key-algorithm", "ecdsa-p256"],
    );
    succeeded(&ignored);
    let message = stderr(&ignored);
    assert!(
        message.contains(&format!(":{pki_line}: `pki`: ignored")),
        "{message}"
    );
    let view = IgnitionView::load(&dir.path().join("out/bootstrap.ign")).unwrap();
    assert!(!view.files.contains_key(PKI_OBJECT));
    assert!(stored_install_config(dir.path())["pki"].is_null());
    let root = openssl_text(&dir.path().join("out/tls/root-ca.crt"));
    assert!(root.contains("prime256v1"), "{root}");
}

#[test]
fn a_rerun_over_a_p384_tls_dir_reuses_every_key_and_refuses_a_swapped_one() {
    let text = with_key("      algorithm: ECDSA\n      ecdsa:\n        curve: P384\n");
    let dir = tempfile::tempdir().unwrap();
    succeeded(&generate(dir.path(), &text, "5.0.0", &[]));
    let tls = dir.path().join("out/tls");
    let before = bootgen_conformance::dir_contents(&tls).unwrap();
    succeeded(&generate(dir.path(), &text, "5.0.0", &["--force"]));
    let after = bootgen_conformance::dir_contents(&tls).unwrap();
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    for (name, file) in &before {
        assert!(after[name] == *file, "{name} changed on a re-run");
    }
    // Another P-384 signer's key in place of the lb signer's.
    fs::copy(
        tls.join("kube-apiserver-localhost-signer.key"),
        tls.join("kube-apiserver-lb-signer.key"),
    )
    .unwrap();
    let swapped = generate(dir.path(), &text, "5.0.0", &["--force"]);
    let message = stderr(&swapped);
    assert_eq!(swapped.status.code(), Some(1), "{message}");
    assert!(
        message.contains("kube-apiserver-lb-signer.key")
            && message.contains("kube-apiserver-lb-signer.crt"),
        "{message}"
    );
}
