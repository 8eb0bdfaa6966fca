//! Private keys: generation (aws-lc-rs, the fastest sound RSA key generator we measured),
//! loading from PEM, the encodings written to disk, and signing for rcgen.
//!
//! rcgen builds and serializes the certificates; it signs through [`rcgen::SigningKey`], which
//! [`PrivateKey`] implements, so rcgen never needs to generate or even parse a key.
//!
//! Importing an RSA key into aws-lc checks the consistency of its private part, which costs
//! about as much as the rest of a re-run. A key read from a file bootgen wrote and recorded
//! (see `record.rs`) is therefore read without importing it ([`PrivateKey::from_pem_unchecked`]:
//! the public half written in the file, which is all a re-run compares with the certificate),
//! and imported with every check ([`PrivateKey::import`]) only when it must sign. Only an
//! imported key can sign.

use aws_lc_rs::encoding::{AsDer, Pkcs8V1Der};
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{
    EcdsaKeyPair, EcdsaSigningAlgorithm, KeyPair as _, ECDSA_P256_SHA256_ASN1_SIGNING,
    ECDSA_P384_SHA384_ASN1_SIGNING, ECDSA_P521_SHA512_ASN1_SIGNING, RSA_PKCS1_SHA256,
};
use aws_lc_rs::{digest, rsa};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use super::der::{self, Curve, PublicHalf};
use super::{pem_text, KeyAlgorithm};

/// PEM labels of the private key encodings we read and write.
pub(crate) const PKCS1_LABEL: &str = "RSA PRIVATE KEY";
pub(crate) const PKCS8_LABEL: &str = "PRIVATE KEY";
pub(crate) const SEC1_LABEL: &str = "EC PRIVATE KEY";

/// The key's type, known with or without the key imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Rsa,
    Ecdsa(Curve),
}

/// The type and size of key an algorithm makes: generating a key and recognizing one both read it
/// here.
enum Shape {
    Rsa(rsa::KeySize),
    Ecdsa(Curve),
}

impl Shape {
    fn of(algorithm: KeyAlgorithm) -> Shape {
        match algorithm {
            KeyAlgorithm::Rsa2048 => Shape::Rsa(rsa::KeySize::Rsa2048),
            KeyAlgorithm::Rsa3072 => Shape::Rsa(rsa::KeySize::Rsa3072),
            KeyAlgorithm::Rsa4096 => Shape::Rsa(rsa::KeySize::Rsa4096),
            KeyAlgorithm::Rsa8192 => Shape::Rsa(rsa::KeySize::Rsa8192),
            KeyAlgorithm::EcdsaP256 => Shape::Ecdsa(Curve::P256),
            KeyAlgorithm::EcdsaP384 => Shape::Ecdsa(Curve::P384),
            KeyAlgorithm::EcdsaP521 => Shape::Ecdsa(Curve::P521),
        }
    }
}

/// How a key on `curve` signs: with the hash Go's crypto/x509 pairs with that curve (P-256
/// SHA-256, P-384 SHA-384, P-521 SHA-512), which is what the installer's certificates carry.
fn ecdsa_signing(curve: Curve) -> &'static EcdsaSigningAlgorithm {
    match curve {
        Curve::P256 => &ECDSA_P256_SHA256_ASN1_SIGNING,
        Curve::P384 => &ECDSA_P384_SHA384_ASN1_SIGNING,
        Curve::P521 => &ECDSA_P521_SHA512_ASN1_SIGNING,
    }
}

/// "P-256", as a person names the curve.
fn curve_name(curve: Curve) -> &'static str {
    match curve {
        Curve::P256 => "P-256",
        Curve::P384 => "P-384",
        Curve::P521 => "P-521",
    }
}

/// A key pair imported into aws-lc, its consistency checked.
enum Pair {
    Rsa(rsa::KeyPair),
    Ecdsa(EcdsaKeyPair),
}

/// A private key with the exact encoding it is stored in.
pub(crate) struct PrivateKey {
    kind: Kind,
    /// Present for a generated key and for one imported from a file; absent for a key read
    /// with [`PrivateKey::from_pem_unchecked`] until [`PrivateKey::import`].
    pair: Option<Pair>,
    /// PEM label and DER of the stored private key (PKCS#1 for generated RSA keys, SEC1 for
    /// generated ECDSA keys, or whatever supported encoding a reused file had).
    label: &'static str,
    der: Vec<u8>,
    /// The subjectPublicKey bit string contents: PKCS#1 `RSAPublicKey` or the EC point.
    public: Vec<u8>,
    /// The SHA-256 (hex) of the file it was read from, when the record vouched for that file:
    /// the file is then exactly [`PrivateKey::pem`], so the record written again reuses it.
    recorded_sha256: Option<String>,
}

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print key material.
        write!(f, "PrivateKey({})", self.describe())
    }
}

impl PrivateKey {
    /// A fresh key. Errors carry no detail: aws-lc reports none worth showing.
    pub(crate) fn generate(algorithm: KeyAlgorithm) -> Result<PrivateKey, ()> {
        let curve = |curve: Curve| -> Result<PrivateKey, ()> {
            let pair = EcdsaKeyPair::generate(ecdsa_signing(curve)).map_err(|_| ())?;
            let sec1 = pair.private_key().as_der().map_err(|_| ())?;
            Ok(Self::from_ecdsa(
                pair,
                curve,
                SEC1_LABEL,
                sec1.as_ref().to_vec(),
            ))
        };
        let size = match Shape::of(algorithm) {
            Shape::Rsa(size) => size,
            Shape::Ecdsa(on) => return curve(on),
        };
        let pair = rsa::KeyPair::generate(size).map_err(|_| ())?;
        let pkcs8: Pkcs8V1Der<'static> = pair.as_der().map_err(|_| ())?;
        let pkcs1 = der::pkcs8_private_key(pkcs8.as_ref()).ok_or(())?.to_vec();
        Ok(Self::from_rsa(pair, PKCS1_LABEL, pkcs1))
    }

    /// Parses one PEM block holding a private key and imports it with every check; the error
    /// says what is wrong with it.
    pub(crate) fn from_pem(block: &pem::Pem) -> Result<PrivateKey, String> {
        let label = known_label(block.tag())?;
        Self::import_der(label, block.contents().to_vec())
    }

    /// Reads one PEM block holding a private key without importing it: its type and the public
    /// half written in it, unchecked against the private part; `recorded_sha256` is the digest
    /// the record holds for its file. `None` when the block does not say its public half plainly
    /// (an unknown label, a SEC1 key without its public point): such a key is read with
    /// [`PrivateKey::from_pem`].
    pub(crate) fn from_pem_unchecked(
        block: &pem::Pem,
        recorded_sha256: String,
    ) -> Option<PrivateKey> {
        let label = known_label(block.tag()).ok()?;
        let der = block.contents();
        let half = match label {
            PKCS1_LABEL => der::pkcs1_public_half(der),
            SEC1_LABEL => der::sec1_public_half(der),
            _ => der::pkcs8_public_half(der),
        }?;
        let (kind, public) = match half {
            PublicHalf::Rsa(modulus, exponent) => {
                (Kind::Rsa, der::rsa_public_key(modulus, exponent))
            }
            PublicHalf::Ec(curve, point) => (Kind::Ecdsa(curve), point.to_vec()),
        };
        Some(PrivateKey {
            kind,
            pair: None,
            label,
            der: der.to_vec(),
            public,
            recorded_sha256: Some(recorded_sha256),
        })
    }

    /// Imports a key read with [`PrivateKey::from_pem_unchecked`], with every check aws-lc
    /// makes, before it signs; a key already imported is left as it is. The error says what is
    /// wrong, including a public half that is not the one its private part makes.
    pub(crate) fn import(&mut self) -> Result<(), String> {
        if self.pair.is_some() {
            return Ok(());
        }
        let imported = Self::import_der(self.label, self.der.clone())?;
        if imported.public != self.public {
            return Err("the public key written in it is not its private key's".into());
        }
        // Same label and DER: the same file text, so the same digest.
        *self = PrivateKey {
            recorded_sha256: self.recorded_sha256.take(),
            ..imported
        };
        Ok(())
    }

    /// The SHA-256 (hex) of [`PrivateKey::pem`] when it is known without hashing.
    pub(crate) fn recorded_sha256(&self) -> Option<&str> {
        self.recorded_sha256.as_deref()
    }

    /// An ECDSA key in `der` (read by `parse`, one encoding), on whichever of our curves takes
    /// it: a key names at most one.
    fn import_ecdsa<E>(
        label: &'static str,
        der: Vec<u8>,
        parse: fn(&'static EcdsaSigningAlgorithm, &[u8]) -> Result<EcdsaKeyPair, E>,
    ) -> Option<PrivateKey> {
        let (curve, pair) = Curve::ALL
            .into_iter()
            .find_map(|curve| parse(ecdsa_signing(curve), &der).ok().map(|p| (curve, p)))?;
        Some(Self::from_ecdsa(pair, curve, label, der))
    }

    fn import_der(label: &'static str, der: Vec<u8>) -> Result<PrivateKey, String> {
        match label {
            PKCS1_LABEL => rsa::KeyPair::from_der(&der)
                .map(|pair| Self::from_rsa(pair, PKCS1_LABEL, der))
                .map_err(|e| format!("not a usable PKCS#1 RSA private key ({e})")),
            SEC1_LABEL => Self::import_ecdsa(SEC1_LABEL, der, EcdsaKeyPair::from_private_key_der)
                .ok_or_else(|| {
                    "not a usable ECDSA private key on P-256, P-384 or P-521".to_string()
                }),
            _ => {
                if let Ok(pair) = rsa::KeyPair::from_pkcs8(&der) {
                    return Ok(Self::from_rsa(pair, PKCS8_LABEL, der));
                }
                Self::import_ecdsa(PKCS8_LABEL, der, EcdsaKeyPair::from_pkcs8).ok_or_else(|| {
                    "PKCS#8 key is neither RSA (2048 to 8192 bits) nor ECDSA on P-256, P-384 \
                         or P-521"
                        .into()
                })
            }
        }
    }

    fn from_rsa(pair: rsa::KeyPair, label: &'static str, der: Vec<u8>) -> PrivateKey {
        let public = pair.public_key().as_ref().to_vec();
        PrivateKey {
            kind: Kind::Rsa,
            pair: Some(Pair::Rsa(pair)),
            label,
            der,
            public,
            recorded_sha256: None,
        }
    }

    fn from_ecdsa(
        pair: EcdsaKeyPair,
        curve: Curve,
        label: &'static str,
        der: Vec<u8>,
    ) -> PrivateKey {
        let public = pair.public_key().as_ref().to_vec();
        PrivateKey {
            kind: Kind::Ecdsa(curve),
            pair: Some(Pair::Ecdsa(pair)),
            label,
            der,
            public,
            recorded_sha256: None,
        }
    }

    /// Whether it is an ECDSA key (else RSA).
    pub(crate) fn is_ecdsa(&self) -> bool {
        matches!(self.kind, Kind::Ecdsa(_))
    }

    /// Whether it is a key of `algorithm`: the type and size a key generated with it has.
    pub(crate) fn is_of(&self, algorithm: KeyAlgorithm) -> bool {
        match Shape::of(algorithm) {
            Shape::Rsa(size) => self.kind == Kind::Rsa && self.rsa_bits() == size.len() * 8,
            Shape::Ecdsa(on) => self.kind == Kind::Ecdsa(on),
        }
    }

    /// An RSA key's modulus size in bits (0 for an ECDSA key).
    fn rsa_bits(&self) -> usize {
        if self.kind != Kind::Rsa {
            return 0;
        }
        let (modulus, _) = der::rsa_public_components(&self.public).unwrap_or_default();
        let leading_zeros = modulus.iter().take_while(|&&b| b == 0).count();
        (modulus.len() - leading_zeros) * 8
    }

    /// "RSA 2048", "ECDSA P-256".
    pub(crate) fn describe(&self) -> String {
        match self.kind {
            Kind::Rsa => format!("RSA {}", self.rsa_bits()),
            Kind::Ecdsa(curve) => format!("ECDSA {}", curve_name(curve)),
        }
    }

    /// The private key file's text.
    pub(crate) fn pem(&self) -> String {
        pem_text(self.label, &self.der)
    }

    /// The subjectPublicKey bytes, to compare with a certificate's.
    pub(crate) fn public_key_bytes(&self) -> &[u8] {
        &self.public
    }

    /// Subject key identifier: SHA-1 of the subjectPublicKey bits (RFC 5280 4.2.1.2 method 1,
    /// what the installer's Go code computes).
    pub(crate) fn key_id(&self) -> Vec<u8> {
        digest::digest(&digest::SHA1_FOR_LEGACY_USE_ONLY, &self.public)
            .as_ref()
            .to_vec()
    }

    /// The `.pub` file. For RSA this reproduces the installer's quirk: the PEM label says
    /// `RSA PUBLIC KEY` (which normally means PKCS#1) but the body is a PKIX
    /// SubjectPublicKeyInfo; kube-apiserver and kube-controller-manager parse the body whatever
    /// the label, and files in this shape are what existing tooling expects. ECDSA keys have no
    /// such history, so they get the honest `PUBLIC KEY` label.
    pub(crate) fn public_pem(&self) -> String {
        use rcgen::PublicKeyData as _;
        let label = match self.kind {
            Kind::Rsa => "RSA PUBLIC KEY",
            Kind::Ecdsa(_) => "PUBLIC KEY",
        };
        pem_text(label, &self.subject_public_key_info())
    }

    /// One OpenSSH `authorized_keys` line with a trailing newline and no comment.
    pub(crate) fn ssh_public_line(&self) -> String {
        fn put_string(out: &mut Vec<u8>, bytes: &[u8]) {
            out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
            out.extend_from_slice(bytes);
        }
        let mut blob = Vec::new();
        let kind = match self.kind {
            Kind::Rsa => {
                // The wire format wants e then n, both as mpint, which is what DER integers hold.
                let (modulus, exponent) =
                    der::rsa_public_components(&self.public).unwrap_or_default();
                put_string(&mut blob, b"ssh-rsa");
                put_string(&mut blob, exponent);
                put_string(&mut blob, modulus);
                "ssh-rsa"
            }
            Kind::Ecdsa(curve) => {
                // RFC 5656: the key type names the curve, which follows as its own string.
                let (kind, identifier) = match curve {
                    Curve::P256 => ("ecdsa-sha2-nistp256", "nistp256"),
                    Curve::P384 => ("ecdsa-sha2-nistp384", "nistp384"),
                    Curve::P521 => ("ecdsa-sha2-nistp521", "nistp521"),
                };
                put_string(&mut blob, kind.as_bytes());
                put_string(&mut blob, identifier.as_bytes());
                put_string(&mut blob, &self.public);
                kind
            }
        };
        format!("{kind} {}\n", STANDARD.encode(blob))
    }
}

impl rcgen::PublicKeyData for PrivateKey {
    fn der_bytes(&self) -> &[u8] {
        &self.public
    }

    fn algorithm(&self) -> &'static rcgen::SignatureAlgorithm {
        match self.kind {
            Kind::Rsa => &rcgen::PKCS_RSA_SHA256,
            Kind::Ecdsa(Curve::P256) => &rcgen::PKCS_ECDSA_P256_SHA256,
            Kind::Ecdsa(Curve::P384) => &rcgen::PKCS_ECDSA_P384_SHA384,
            Kind::Ecdsa(Curve::P521) => &rcgen::PKCS_ECDSA_P521_SHA512,
        }
    }
}

impl rcgen::SigningKey for PrivateKey {
    /// Signs with the imported key; a key not imported never signs (the caller imports it
    /// first, so this error is a bug of bootgen's, not of the key).
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, rcgen::Error> {
        let rng = SystemRandom::new();
        match &self.pair {
            None => Err(rcgen::Error::RingUnspecified),
            Some(Pair::Rsa(pair)) => {
                let mut signature = vec![0; pair.public_modulus_len()];
                pair.sign(&RSA_PKCS1_SHA256, &rng, msg, &mut signature)
                    .map_err(|_| rcgen::Error::RingUnspecified)?;
                Ok(signature)
            }
            Some(Pair::Ecdsa(pair)) => pair
                .sign(&rng, msg)
                .map(|s| s.as_ref().to_vec())
                .map_err(|_| rcgen::Error::RingUnspecified),
        }
    }
}

/// Checks that `signature` over `signed` was made by the key whose subjectPublicKey bits are
/// `issuer_public`, for the signature algorithms our keys produce.
pub(crate) fn verify_signature(
    issuer: &PrivateKey,
    algorithm_oid: &str,
    signed: &[u8],
    signature: &[u8],
) -> bool {
    use aws_lc_rs::signature::{
        UnparsedPublicKey, VerificationAlgorithm, ECDSA_P256_SHA256_ASN1, ECDSA_P384_SHA384_ASN1,
        ECDSA_P521_SHA512_ASN1, RSA_PKCS1_2048_8192_SHA256, RSA_PKCS1_2048_8192_SHA384,
        RSA_PKCS1_2048_8192_SHA512,
    };
    let algorithm: &'static dyn VerificationAlgorithm = match (issuer.kind, algorithm_oid) {
        (Kind::Rsa, "1.2.840.113549.1.1.11") => &RSA_PKCS1_2048_8192_SHA256,
        (Kind::Rsa, "1.2.840.113549.1.1.12") => &RSA_PKCS1_2048_8192_SHA384,
        (Kind::Rsa, "1.2.840.113549.1.1.13") => &RSA_PKCS1_2048_8192_SHA512,
        (Kind::Ecdsa(Curve::P256), "1.2.840.10045.4.3.2") => &ECDSA_P256_SHA256_ASN1,
        (Kind::Ecdsa(Curve::P384), "1.2.840.10045.4.3.3") => &ECDSA_P384_SHA384_ASN1,
        (Kind::Ecdsa(Curve::P521), "1.2.840.10045.4.3.4") => &ECDSA_P521_SHA512_ASN1,
        _ => return false,
    };
    UnparsedPublicKey::new(algorithm, &issuer.public)
        .verify(signed, signature)
        .is_ok()
}

/// The label as one of ours, or the error naming the labels we read.
fn known_label(tag: &str) -> Result<&'static str, String> {
    [PKCS1_LABEL, SEC1_LABEL, PKCS8_LABEL]
        .into_iter()
        .find(|label| *label == tag)
        .ok_or_else(|| {
            format!(
                "expected a {PKCS1_LABEL:?}, {SEC1_LABEL:?} or {PKCS8_LABEL:?} PEM block, found {tag:?}"
            )
        })
}
