//! Reuse tests: a PKI written to a tls directory and built again from it.

use std::collections::BTreeMap;
use std::path::Path;

use time::Duration;

use super::tests::{files, jan_1_2026, request, TestResult};
use super::*;

fn write(dir: &Path, pki: &Pki) -> TestResult {
    for file in pki.store_files() {
        std::fs::write(dir.join(&file.name), &file.contents)?;
    }
    Ok(())
}

pub(super) fn contents(pki: &Pki) -> BTreeMap<String, Vec<u8>> {
    files(pki)
        .into_iter()
        .map(|(k, f)| (k, f.contents))
        .collect()
}

/// A fresh ECDSA PKI (fast) written to a new temporary directory.
pub(super) fn stored(
    req: &PkiRequest,
) -> TestResult<(tempfile::TempDir, BTreeMap<String, Vec<u8>>)> {
    let dir = tempfile::tempdir()?;
    let (pki, notices) = Pki::build(req, None)?;
    assert!(notices.is_empty());
    write(dir.path(), &pki)?;
    Ok((dir, contents(&pki)))
}

fn changed(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    a.iter()
        .filter(|(k, v)| b.get(*k) != Some(v))
        .map(|(k, _)| k.clone())
        .collect()
}

pub(super) fn messages(notices: &[PkiNotice]) -> Vec<String> {
    notices.iter().map(ToString::to_string).collect()
}

#[test]
fn reuse_with_the_same_clock_is_byte_identical() -> TestResult {
    for algorithm in [KeyAlgorithm::EcdsaP256, KeyAlgorithm::Rsa2048] {
        let req = request(algorithm);
        let (dir, first) = stored(&req)?;
        for _ in 0..2 {
            let (again, notices) = Pki::build(&req, Some(dir.path()))?;
            assert!(notices.is_empty(), "{notices:?}");
            assert_eq!(contents(&again), first);
            assert_eq!(again.kubeconfig(KubeconfigKind::Admin, "https://x:6443"), {
                let (pki, _) = Pki::build(&req, Some(dir.path()))?;
                pki.kubeconfig(KubeconfigKind::Admin, "https://x:6443")
            });
        }
    }
    Ok(())
}

#[test]
fn reuse_later_keeps_everything_that_is_still_valid() -> TestResult {
    let mut req = request(KeyAlgorithm::EcdsaP256);
    let (dir, first) = stored(&req)?;
    req.now += Duration::hours(23);
    req.key_algorithm = KeyAlgorithm::Rsa4096; // only for keys generated now: none
    let (again, notices) = Pki::build(&req, Some(dir.path()))?;
    assert_eq!(contents(&again), first);
    // Nothing but the note that the leaves' kept keys are not of the type asked for.
    let messages = messages(&notices);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].starts_with("kept the existing ECDSA P-256 keys of admin-kubeconfig-client, ")
            && messages[0].contains("(15), where a key made now would be rsa4096"),
        "{messages:?}"
    );
    Ok(())
}

#[test]
fn san_change_reissues_only_that_leaf_under_the_same_ca() -> TestResult {
    let mut req = request(KeyAlgorithm::EcdsaP256);
    let (dir, first) = stored(&req)?;
    req.api_host = "api.other.example.com".into();
    req.now += Duration::hours(1);
    let (again, notices) = Pki::build(&req, Some(dir.path()))?;
    assert_eq!(
        messages(&notices),
        ["re-issued kube-apiserver-lb-server: SANs changed (api.example.example.com → api.other.example.com)"]
    );
    let after = contents(&again);
    // The key is kept; the certificate (alone and inside its own file) changes.
    assert_eq!(changed(&first, &after), ["kube-apiserver-lb-server.crt"]);
    let report = again.expiry_report();
    let lb = report
        .iter()
        .find(|r| r.name == "kube-apiserver-lb-server")
        .ok_or("no lb")?;
    assert_eq!(lb.not_before, jan_1_2026(), "NotBefore stays the CA's");
    assert_eq!(lb.not_after, req.now + Duration::days(1));

    // Writing it back and building again changes nothing more.
    write(dir.path(), &again)?;
    let (third, notices) = Pki::build(&req, Some(dir.path()))?;
    assert!(notices.is_empty());
    assert_eq!(contents(&third), after);
    Ok(())
}

#[test]
fn service_network_change_reissues_the_service_network_leaf() -> TestResult {
    let mut req = request(KeyAlgorithm::EcdsaP256);
    let (dir, first) = stored(&req)?;
    req.service_network_ips.push("fd02::1".parse()?);
    let (again, notices) = Pki::build(&req, Some(dir.path()))?;
    assert_eq!(
        messages(&notices),
        ["re-issued kube-apiserver-service-network-server: SANs changed (nothing → fd02::1)"]
    );
    assert_eq!(
        changed(&first, &contents(&again)),
        ["kube-apiserver-service-network-server.crt"]
    );
    Ok(())
}

#[test]
fn expired_ca_is_an_error_that_says_how_to_start_over() -> TestResult {
    let mut req = request(KeyAlgorithm::EcdsaP256);
    let (dir, _) = stored(&req)?;
    req.now += Duration::days(2);
    req.renew_expired = true; // does not apply to CAs
    let err = Pki::build(&req, Some(dir.path())).err().ok_or("built")?;
    let PkiError::ExpiredAuthorities { expired, .. } = &err else {
        return Err(format!("unexpected {err}").into());
    };
    let names: Vec<&str> = expired.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        ["aggregator-ca", "aggregator-signer", "kubelet-signer"]
    );
    let text = err.to_string();
    assert!(
        text.contains("aggregator-signer (expired 2026-01-02T00:00:00Z)"),
        "{text}"
    );
    assert!(text.contains("new output directory"), "{text}");
    Ok(())
}

/// The 1-day CAs and what they sign, removed so only longer-lived CAs are reused.
const ONE_DAY_CA_FILES: &[&str] = &[
    "aggregator-ca",
    "aggregator-signer",
    "kubelet-signer",
    "apiserver-proxy",
    "aggregator-client",
];

#[test]
fn expired_leaves_are_an_error_unless_renewed() -> TestResult {
    let mut req = request(KeyAlgorithm::EcdsaP256);
    let (dir, first) = stored(&req)?;
    for name in ONE_DAY_CA_FILES {
        for ext in ["key", "crt"] {
            std::fs::remove_file(dir.path().join(format!("{name}.{ext}")))?;
        }
    }
    req.now += Duration::days(2);
    let err = Pki::build(&req, Some(dir.path())).err().ok_or("built")?;
    let PkiError::ExpiredCertificates { expired } = &err else {
        return Err(format!("unexpected {err}").into());
    };
    let names: Vec<&str> = expired.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "kube-apiserver-localhost-server",
            "kube-apiserver-service-network-server",
            "kube-apiserver-lb-server",
            "kube-apiserver-internal-lb-server"
        ]
    );
    assert!(err.to_string().starts_with(
        "4 certificates expired: kube-apiserver-localhost-server (expired 2026-01-02T00:00:00Z), "
    ));

    req.renew_expired = true;
    let (renewed, notices) = Pki::build(&req, Some(dir.path()))?;
    let notices = messages(&notices);
    assert!(
        notices.contains(&"generated missing aggregator-signer".to_string()),
        "{notices:?}"
    );
    assert!(
        notices.contains(
            &"re-issued kube-apiserver-lb-server: renewed under the existing kube-apiserver-lb-signer; it expired at 2026-01-02T00:00:00Z"
                .to_string()
        ),
        "{notices:?}"
    );
    let after = contents(&renewed);
    for ca in [
        "root-ca",
        "kube-apiserver-lb-signer",
        "kube-apiserver-localhost-signer",
    ] {
        for ext in ["key", "crt"] {
            let name = format!("{ca}.{ext}");
            assert_eq!(after.get(&name), first.get(&name), "{name} never rotates");
        }
    }
    let report = renewed.expiry_report();
    assert!(
        report.iter().all(|r| r.not_after > req.now),
        "nothing expired after renewal"
    );
    Ok(())
}

#[test]
fn a_certificate_without_its_key_is_an_error_naming_the_file() -> TestResult {
    let req = request(KeyAlgorithm::EcdsaP256);
    let (dir, _) = stored(&req)?;
    std::fs::remove_file(dir.path().join("kube-apiserver-lb-signer.key"))?;
    let err = Pki::build(&req, Some(dir.path())).err().ok_or("built")?;
    assert!(matches!(err, PkiError::MissingKey { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("kube-apiserver-lb-signer.key is missing"),
        "{err}"
    );

    let (dir, _) = stored(&req)?;
    std::fs::remove_file(dir.path().join("service-account.key"))?;
    let err = Pki::build(&req, Some(dir.path())).err().ok_or("built")?;
    assert!(
        err.to_string().contains("service-account.key is missing"),
        "{err}"
    );
    Ok(())
}

#[test]
fn a_key_that_is_not_the_certificates_is_an_error() -> TestResult {
    let req = request(KeyAlgorithm::EcdsaP256);
    let (dir, files) = stored(&req)?;
    std::fs::write(dir.path().join("root-ca.key"), &files["kubelet-signer.key"])?;
    let err = Pki::build(&req, Some(dir.path())).err().ok_or("built")?;
    assert!(matches!(err, PkiError::KeyMismatch { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("root-ca.key") && text.contains("root-ca.crt"),
        "{text}"
    );
    assert!(!text.contains("PRIVATE"), "{text}");

    std::fs::write(dir.path().join("root-ca.key"), b"not a key")?;
    let err = Pki::build(&req, Some(dir.path())).err().ok_or("built")?;
    assert!(
        matches!(err, PkiError::InvalidFile { .. }) && err.to_string().contains("root-ca.key"),
        "{err}"
    );
    Ok(())
}

#[test]
fn missing_files_are_generated_and_a_new_ca_reissues_its_leaves() -> TestResult {
    let req = request(KeyAlgorithm::EcdsaP256);
    let (dir, first) = stored(&req)?;
    for name in [
        "kube-control-plane-signer.key",
        "kube-control-plane-signer.crt",
        "journal-gatewayd.crt",
    ] {
        std::fs::remove_file(dir.path().join(name))?;
    }
    let (again, notices) = Pki::build(&req, Some(dir.path()))?;
    assert_eq!(
        messages(&notices),
        [
            "generated missing kube-control-plane-signer",
            "issued the missing certificate journal-gatewayd for its existing key",
            "re-issued kube-control-plane-kube-controller-manager-client: its CA kube-control-plane-signer was generated anew",
            "re-issued kube-control-plane-kube-scheduler-client: its CA kube-control-plane-signer was generated anew",
        ]
    );
    let after = contents(&again);
    assert_eq!(
        changed(&first, &after),
        [
            "journal-gatewayd.crt", // issued again for its existing key
            "kube-apiserver-complete-client-ca-bundle.crt",
            "kube-control-plane-ca-bundle.crt",
            "kube-control-plane-kube-controller-manager-client.crt",
            "kube-control-plane-kube-scheduler-client.crt",
            "kube-control-plane-signer.crt",
            "kube-control-plane-signer.key",
            "verified-keys.sha256", // records the new key
        ]
    );
    assert_eq!(after["journal-gatewayd.key"], first["journal-gatewayd.key"]);
    Ok(())
}

#[test]
fn a_leaf_from_another_pki_is_reissued() -> TestResult {
    let req = request(KeyAlgorithm::EcdsaP256);
    let (dir, _) = stored(&req)?;
    let (_, other) = stored(&req)?;
    std::fs::write(
        dir.path().join("aggregator-client.key"),
        &other["aggregator-client.key"],
    )?;
    std::fs::write(
        dir.path().join("aggregator-client.crt"),
        &other["aggregator-client.crt"],
    )?;
    let (_, notices) = Pki::build(&req, Some(dir.path()))?;
    assert_eq!(
        messages(&notices),
        ["re-issued aggregator-client: it was not signed by the current aggregator-signer"]
    );
    Ok(())
}

#[test]
fn reused_keys_keep_their_algorithm() -> TestResult {
    let req = request(KeyAlgorithm::EcdsaP256);
    let (dir, first) = stored(&req)?;
    std::fs::remove_file(dir.path().join("journal-gatewayd.key"))?;
    std::fs::remove_file(dir.path().join("journal-gatewayd.crt"))?;
    let mut rsa = req.clone();
    rsa.key_algorithm = KeyAlgorithm::Rsa2048;
    let (again, _) = Pki::build(&rsa, Some(dir.path()))?;
    let after = contents(&again);
    assert!(after["journal-gatewayd.key"].starts_with(b"-----BEGIN RSA PRIVATE KEY-----\n"));
    assert_eq!(after["root-ca.crt"], first["root-ca.crt"]);
    Ok(())
}

#[test]
fn the_fixture_pki_reuses_cleanly() -> TestResult {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/pki");
    let req = request(KeyAlgorithm::Rsa2048);
    let (pki, notices) = Pki::build(&req, Some(&dir))?;
    assert!(notices.is_empty(), "{notices:?}");
    for file in pki.store_files() {
        let on_disk = std::fs::read(dir.join(&file.name))?;
        assert!(
            on_disk == file.contents,
            "fixtures/pki/{} is not what a reuse writes",
            file.name
        );
    }
    Ok(())
}

/// A tls directory made for a release before 4.13, reused for a later one: the kubelet's
/// client certificate gets the later installer's Organizations, nothing else changes.
#[test]
fn organizations_change_reissues_the_kubelet_client() -> TestResult {
    let mut req = request(KeyAlgorithm::EcdsaP256);
    req.kubelet_client_in_all_service_accounts = false;
    let (dir, first) = stored(&req)?;
    req.kubelet_client_in_all_service_accounts = true;
    let (again, notices) = Pki::build(&req, Some(dir.path()))?;
    assert_eq!(
        messages(&notices),
        ["re-issued kubelet-client: Organizations changed (system:serviceaccounts:openshift-machine-config-operator → system:serviceaccounts:openshift-machine-config-operator, system:serviceaccounts)"]
    );
    let after = contents(&again);
    assert_eq!(changed(&first, &after), ["kubelet-client.crt"]);
    Ok(())
}

#[test]
fn keys_of_another_type_are_kept_with_a_notice() -> TestResult {
    let ecdsa = request(KeyAlgorithm::EcdsaP256);
    let (dir, first) = stored(&ecdsa)?;
    // Signers asked for as P-384, the rest as P-256: only the signers' keys differ.
    let signers_p384 = PkiRequest {
        signer_key_algorithm: KeyAlgorithm::EcdsaP384,
        ..ecdsa.clone()
    };
    let (again, notices) = Pki::build(&signers_p384, Some(dir.path()))?;
    assert_eq!(
        contents(&again),
        first,
        "the keys and certificates are kept"
    );
    let signers: Vec<&str> = table::SIGNERS.iter().map(|s| s.name).collect();
    assert_eq!(
        messages(&notices),
        [format!(
            "kept the existing ECDSA P-256 keys of {} (11), where a key made now would be ecdsa-p384; remove a key file (with its certificate) to have it made anew",
            signers.join(", ")
        )]
    );
    // Every key of another type: said in short.
    let (_, notices) = Pki::build(&request(KeyAlgorithm::Rsa2048), Some(dir.path()))?;
    assert_eq!(
        messages(&notices),
        ["kept the existing ECDSA P-256 keys of every certificate and key pair (26), where a key made now would be rsa2048; remove a key file (with its certificate) to have it made anew"]
    );
    // Every key asked for as P-384, the SSH key removed: it is made anew as asked and not named.
    let p384 = request(KeyAlgorithm::EcdsaP384);
    std::fs::remove_file(dir.path().join("bootstrap-ssh.key"))?;
    std::fs::remove_file(dir.path().join("bootstrap-ssh.pub"))?;
    let (_, notices) = Pki::build(&p384, Some(dir.path()))?;
    let messages = messages(&notices);
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("kept the existing ECDSA P-256 keys of ")
                && m.contains("service-account (25), where a key made now would be ecdsa-p384")
                && !m.contains("bootstrap-ssh")),
        "{messages:?}"
    );
    assert!(
        messages.contains(&"generated missing bootstrap-ssh".to_string()),
        "{messages:?}"
    );
    Ok(())
}
