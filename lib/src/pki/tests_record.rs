//! The record of verified keys: a re-run reads the keys it vouches for without importing them,
//! yet refuses a key that is not its certificate's, and never signs with a key it has not
//! imported with every check.

use std::path::Path;

use time::Duration;

use super::keys::PrivateKey;
use super::record::{record_text, KeyFile, VERIFIED_KEYS_FILE};
use super::tests::{request, TestResult};
use super::tests_reuse::{contents, messages, stored};
use super::*;

/// Rewrites the record to vouch for the key files as they are now, as someone who edits the
/// keys and the record together would.
fn vouch_for_what_is_there(dir: &Path) -> TestResult {
    let mut keys = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.ends_with(".key") {
            let bytes = std::fs::read(dir.join(&name))?;
            keys.push((name, bytes));
        }
    }
    let text = record_text(keys.iter().map(|(name, bytes)| KeyFile {
        name,
        contents: bytes,
        sha256: None,
    }));
    std::fs::write(dir.join(VERIFIED_KEYS_FILE), text)?;
    Ok(())
}

/// The key file's text with one byte of its private part changed and its public half kept:
/// aws-lc refuses to import it, yet it shows the public key of its certificate.
fn with_broken_private_part(key_pem: &[u8]) -> TestResult<String> {
    let block = ::pem::parse(key_pem)?;
    let mut der = block.contents().to_vec();
    // SEC1 as bootgen writes it: the 32-byte scalar starts at byte 7, the public point ends it.
    // PKCS#1: the CRT coefficient ends it.
    let at = if block.tag() == keys::SEC1_LABEL {
        12
    } else {
        der.len() - 12
    };
    let byte = der.get_mut(at).ok_or("short key")?;
    *byte ^= 0x5a;
    let broken = ::pem::Pem::new(block.tag(), der);
    let original = PrivateKey::from_pem(&block)?;
    assert!(
        PrivateKey::from_pem(&broken).is_err(),
        "aws-lc imports the broken key"
    );
    let unchecked =
        PrivateKey::from_pem_unchecked(&broken, String::new()).ok_or("no public half")?;
    assert_eq!(unchecked.public_key_bytes(), original.public_key_bytes());
    Ok(pem_text(block.tag(), broken.contents()))
}

#[test]
fn a_reuse_writes_the_record_of_every_key_it_reads_back() -> TestResult {
    for algorithm in [
        KeyAlgorithm::EcdsaP256,
        KeyAlgorithm::EcdsaP384,
        KeyAlgorithm::EcdsaP521,
        KeyAlgorithm::Rsa2048,
    ] {
        let req = request(algorithm);
        let (dir, first) = stored(&req)?;
        let record = String::from_utf8(first[VERIFIED_KEYS_FILE].clone())?;
        let keys = first.keys().filter(|name| name.ends_with(".key")).count();
        assert_eq!(record.lines().count(), keys, "{record}");
        assert!(record.contains("  root-ca.key\n"), "{record}");
        let (again, notices) = Pki::build(&req, Some(dir.path()))?;
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(contents(&again), first);
    }
    Ok(())
}

#[test]
fn a_swapped_key_is_refused_even_when_the_record_vouches_for_it() -> TestResult {
    for algorithm in [
        KeyAlgorithm::EcdsaP256,
        KeyAlgorithm::EcdsaP384,
        KeyAlgorithm::EcdsaP521,
        KeyAlgorithm::Rsa2048,
    ] {
        let req = request(algorithm);
        let (dir, files) = stored(&req)?;
        // Another valid key of the same type, in place of the lb signer's.
        std::fs::write(
            dir.path().join("kube-apiserver-lb-signer.key"),
            &files["kube-apiserver-localhost-signer.key"],
        )?;
        for vouched in [false, true] {
            if vouched {
                vouch_for_what_is_there(dir.path())?;
            }
            let err = Pki::build(&req, Some(dir.path())).err().ok_or("built")?;
            let text = err.to_string();
            assert!(matches!(err, PkiError::KeyMismatch { .. }), "{text}");
            assert!(
                text.contains("kube-apiserver-lb-signer.key")
                    && text.contains("kube-apiserver-lb-signer.crt"),
                "{text}"
            );
        }
    }
    Ok(())
}

#[test]
fn a_changed_key_file_gets_the_full_check() -> TestResult {
    let req = request(KeyAlgorithm::EcdsaP256);
    let (dir, files) = stored(&req)?;
    let path = dir.path().join("kube-apiserver-lb-signer.key");
    std::fs::write(
        &path,
        with_broken_private_part(&files["kube-apiserver-lb-signer.key"])?,
    )?;
    // The record holds the digest of the file bootgen wrote, not of this one.
    let err = Pki::build(&req, Some(dir.path())).err().ok_or("built")?;
    assert!(matches!(err, PkiError::InvalidFile { .. }), "{err}");
    assert!(
        err.to_string().contains("kube-apiserver-lb-signer.key"),
        "{err}"
    );
    Ok(())
}

#[test]
fn a_broken_key_the_record_vouches_for_is_left_alone_until_it_must_sign() -> TestResult {
    for algorithm in [KeyAlgorithm::EcdsaP256, KeyAlgorithm::Rsa2048] {
        let mut req = request(algorithm);
        let (dir, files) = stored(&req)?;
        let broken = with_broken_private_part(&files["kube-apiserver-lb-signer.key"])?;
        std::fs::write(dir.path().join("kube-apiserver-lb-signer.key"), &broken)?;
        vouch_for_what_is_there(dir.path())?;

        // Nothing signs: the key is passed through as it is, and nothing is said about it.
        let (again, notices) = Pki::build(&req, Some(dir.path()))?;
        assert!(notices.is_empty(), "{notices:?}");
        let after = contents(&again);
        assert_eq!(after["kube-apiserver-lb-signer.key"], broken.as_bytes());
        assert_eq!(
            after["kube-apiserver-lb-server.crt"],
            files["kube-apiserver-lb-server.crt"]
        );

        // The lb server's SANs change: its CA must sign, and its key is refused, by name.
        req.api_host = "api.other.example.com".into();
        req.now += Duration::hours(1);
        let err = Pki::build(&req, Some(dir.path())).err().ok_or("signed")?;
        let text = err.to_string();
        assert!(matches!(err, PkiError::InvalidFile { .. }), "{text}");
        assert!(text.contains("kube-apiserver-lb-signer.key"), "{text}");
        assert!(!text.contains("PRIVATE"), "{text}");
    }
    Ok(())
}

#[test]
fn a_broken_leaf_key_is_refused_when_it_gets_a_new_certificate() -> TestResult {
    let mut req = request(KeyAlgorithm::EcdsaP256);
    let (dir, files) = stored(&req)?;
    let broken = with_broken_private_part(&files["kube-apiserver-lb-server.key"])?;
    std::fs::write(dir.path().join("kube-apiserver-lb-server.key"), &broken)?;
    vouch_for_what_is_there(dir.path())?;
    req.api_host = "api.other.example.com".into();
    let err = Pki::build(&req, Some(dir.path())).err().ok_or("issued")?;
    assert!(
        err.to_string().contains("kube-apiserver-lb-server.key"),
        "{err}"
    );

    // Its certificate kept, the same key is left alone; a re-issue of another leaf imports
    // only what signs that one.
    let mut req = request(KeyAlgorithm::EcdsaP256);
    req.service_network_ips.push("fd02::1".parse()?);
    let (_, notices) = Pki::build(&req, Some(dir.path()))?;
    assert_eq!(
        messages(&notices),
        ["re-issued kube-apiserver-service-network-server: SANs changed (nothing → fd02::1)"]
    );
    Ok(())
}
