//! `pki`: the key of the cluster's signer (CA) certificates, from 5.0 on, behind the
//! ConfigurablePKI feature gate. Checked as the installer checks it, by the same field paths;
//! sizes the installer takes but aws-lc cannot generate are refused too.

use super::unknown_fields::{ignored_by_release, NotInRelease};
use crate::config::{LoadedConfig, PkiKeyConfig, Warning};
use crate::error::Result;
use crate::pki::KeyAlgorithm;
use crate::release::{first_with, Profile, Switch, Switches};

const FIELD: &str = "pki";
const ALGORITHM: &str = "pki.signerCertificates.key.algorithm";
const RSA: &str = "pki.signerCertificates.key.rsa";
const KEY_SIZE: &str = "pki.signerCertificates.key.rsa.keySize";
const ECDSA: &str = "pki.signerCertificates.key.ecdsa";
const CURVE: &str = "pki.signerCertificates.key.ecdsa.curve";

/// The RSA sizes bootgen can generate of those the installer takes.
const RSA_SIZES: [(i64, KeyAlgorithm); 4] = [
    (2048, KeyAlgorithm::Rsa2048),
    (3072, KeyAlgorithm::Rsa3072),
    (4096, KeyAlgorithm::Rsa4096),
    (8192, KeyAlgorithm::Rsa8192),
];

/// The curves, as the install-config names them.
const CURVES: [(&str, KeyAlgorithm); 3] = [
    ("P256", KeyAlgorithm::EcdsaP256),
    ("P384", KeyAlgorithm::EcdsaP384),
    ("P521", KeyAlgorithm::EcdsaP521),
];

/// The signers' key the install-config's `pki` names, `None` without one. A release that does
/// not know the field ignores it (said in a warning; one that refuses unknown fields has refused
/// it already); one that knows it needs the ConfigurablePKI gate on (`gate_on`).
pub(crate) fn signer_key(
    loaded: &LoadedConfig,
    profile: &Profile,
    switches: &Switches,
    gate_on: bool,
    warnings: &mut Vec<Warning>,
) -> Result<Option<KeyAlgorithm>> {
    let Some(pki) = &loaded.config.pki else {
        return Ok(None);
    };
    if !switches.has(Switch::InstallConfigPki) {
        ignored_by_release(
            loaded,
            profile.minor,
            &NotInRelease {
                field: FIELD,
                arrived: first_with(Switch::InstallConfigPki),
                consequence: ", so the signer certificates get the release's usual keys",
            },
            warnings,
        );
        return Ok(None);
    }
    let empty = PkiKeyConfig::default();
    let key = pki
        .signer_certificates
        .as_ref()
        .and_then(|s| s.key.as_ref())
        .unwrap_or(&empty);
    // The installer checks the key before the gate, and names both; bootgen names the first.
    let algorithm = key_algorithm(loaded, key)?;
    if !gate_on {
        return Err(loaded.field_error(
            FIELD,
            "this field is protected by the ConfigurablePKI feature gate: it needs `featureSet: \
             TechPreviewNoUpgrade` or `DevPreviewNoUpgrade`, or `CustomNoUpgrade` with \
             `ConfigurablePKI=true` in `featureGates`",
        ));
    }
    Ok(Some(algorithm))
}

/// The key `pki.signerCertificates.key` says, checked as the installer checks it: an algorithm,
/// its one parameter block (a block holding only its zero value counts as absent, as the
/// installer's value types have it), the size or curve within what it takes.
fn key_algorithm(loaded: &LoadedConfig, key: &PkiKeyConfig) -> Result<KeyAlgorithm> {
    let size = key
        .rsa
        .as_ref()
        .and_then(|r| r.key_size)
        .filter(|&s| s != 0);
    let curve = key
        .ecdsa
        .as_ref()
        .and_then(|e| e.curve.as_deref())
        .filter(|c| !c.is_empty());
    let required = |field: &str, what: &str| loaded.field_error(field, format!("required: {what}"));
    let forbidden = |field: &str, algorithm: &str| {
        loaded.field_error(
            field,
            format!("must not be set when the algorithm is {algorithm}"),
        )
    };
    match key.algorithm.as_deref().unwrap_or_default() {
        "" => Err(required(
            ALGORITHM,
            "the signers' key algorithm, `RSA` or `ECDSA`",
        )),
        "RSA" => {
            let Some(size) = size else {
                return Err(required(RSA, "`keySize` for the RSA algorithm"));
            };
            // The installer's order: the size, then the other block.
            if size % 1024 != 0 || !(2048..=8192).contains(&size) {
                return Err(loaded.field_error(
                    KEY_SIZE,
                    format!("{size} is not a key size: write a multiple of 1024 from 2048 to 8192"),
                ));
            }
            if curve.is_some() {
                return Err(forbidden(ECDSA, "RSA"));
            }
            RSA_SIZES
                .iter()
                .find(|(bits, _)| *bits == size)
                .map(|(_, algorithm)| *algorithm)
                .ok_or_else(|| {
                    loaded.field_error(
                        KEY_SIZE,
                        format!(
                            "{size}: bootgen cannot generate RSA keys of this size (the installer \
                             takes it; the key library makes only 2048, 3072, 4096 and 8192)"
                        ),
                    )
                })
        }
        "ECDSA" => {
            let Some(curve) = curve else {
                return Err(required(ECDSA, "`curve` for the ECDSA algorithm"));
            };
            let algorithm = CURVES
                .iter()
                .find(|(name, _)| *name == curve)
                .map(|(_, algorithm)| *algorithm)
                .ok_or_else(|| {
                    loaded.field_error(
                        CURVE,
                        format!("`{curve}` is not supported: write P256, P384 or P521"),
                    )
                })?;
            if size.is_some() {
                return Err(forbidden(RSA, "ECDSA"));
            }
            Ok(algorithm)
        }
        other => Err(loaded.field_error(
            ALGORITHM,
            format!("`{other}` is not supported: write RSA or ECDSA"),
        )),
    }
}

/// The key as the cluster's PKI object writes it: the algorithm word and its one parameter,
/// `("RSA", Some(bits), None)` or `("ECDSA", None, Some(curve))`.
pub(crate) fn profile_key(
    algorithm: KeyAlgorithm,
) -> (&'static str, Option<i64>, Option<&'static str>) {
    if let Some((bits, _)) = RSA_SIZES.iter().find(|(_, a)| *a == algorithm) {
        return ("RSA", Some(*bits), None);
    }
    let curve = CURVES
        .iter()
        .find(|(_, a)| *a == algorithm)
        .map(|(name, _)| *name);
    ("ECDSA", None, curve)
}

#[cfg(test)]
mod tests {
    use super::super::refusal;

    const BASE: &str = "apiVersion: v1\nmetadata:\n  name: demo\nbaseDomain: example.com\nplatform:\n  none: {}\npullSecret: '{\"auths\":{\"r\":{\"auth\":\"eDp5\"}}}'\nfeatureSet: TechPreviewNoUpgrade\n";

    fn pki(key: &str) -> String {
        format!("{BASE}pki:\n  signerCertificates:\n    key:\n{key}")
    }

    #[test]
    fn each_mistake_is_refused_naming_its_field() {
        let cases = [
            ("      rsa:\n        keySize: 4096\n", "pki.signerCertificates.key.algorithm"),
            ("      algorithm: DSA\n", "pki.signerCertificates.key.algorithm"),
            ("      algorithm: RSA\n", "pki.signerCertificates.key.rsa`"),
            (
                "      algorithm: RSA\n      rsa:\n        keySize: 4096\n      ecdsa:\n        curve: P384\n",
                "pki.signerCertificates.key.ecdsa`",
            ),
            ("      algorithm: ECDSA\n", "pki.signerCertificates.key.ecdsa`"),
            (
                "      algorithm: ECDSA\n      ecdsa:\n        curve: P384\n      rsa:\n        keySize: 4096\n",
                "pki.signerCertificates.key.rsa`",
            ),
            ("      algorithm: RSA\n      rsa:\n        keySize: 3000\n", "keySize"),
            // Both wrong: the installer names the size first, and so does bootgen.
            (
                "      algorithm: RSA\n      rsa:\n        keySize: 3000\n      ecdsa:\n        curve: P384\n",
                "keySize",
            ),
            (
                "      algorithm: ECDSA\n      ecdsa:\n        curve: P1\n      rsa:\n        keySize: 2048\n",
                "ecdsa.curve",
            ),
            ("      algorithm: RSA\n      rsa:\n        keySize: 9216\n", "keySize"),
            ("      algorithm: RSA\n      rsa:\n        keySize: 1024\n", "keySize"),
            ("      algorithm: RSA\n      rsa:\n        keySize: 6144\n", "2048, 3072, 4096 and 8192"),
            ("      algorithm: ECDSA\n      ecdsa:\n        curve: P224\n", "ecdsa.curve"),
        ];
        for (key, named) in cases {
            let refused = refusal(&pki(key), "5.0.0");
            assert!(refused.contains(named), "{key}: {refused}");
        }
        let good = pki("      algorithm: ECDSA\n      ecdsa:\n        curve: P521\n");
        assert_eq!(refusal(&good, "5.0.0"), "");
        let gateless = good.replace("featureSet: TechPreviewNoUpgrade\n", "");
        let refused = refusal(&gateless, "5.0.0");
        assert!(
            refused.contains("`pki`") && refused.contains("ConfigurablePKI"),
            "{refused}"
        );
    }
}
