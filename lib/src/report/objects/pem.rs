//! What the objects view says of certificates and keys: for a certificate, the facts a client
//! checks (subject, issuer, SANs, usages, basic constraints, lifetime, key); for a key, its type
//! and size. Never their bytes, serial or fingerprint: those change with every run.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use x509_parser::extensions::GeneralName;
use x509_parser::prelude::{FromDer as _, X509Certificate, X509Name};
use x509_parser::public_key::PublicKey;
use x509_parser::x509::SubjectPublicKeyInfo;

/// One PEM block of a file or field, as the view describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PemFacts {
    /// A certificate.
    Certificate(CertificateFacts),
    /// A private key.
    PrivateKey {
        /// Its type and size: `RSA 2048`, `EC P-256`, `Ed25519`.
        key: String,
    },
    /// A public key.
    PublicKey {
        /// Its type and size, as for a private key.
        key: String,
    },
    /// A block that does not parse as its label says, or one past what the view reads of a
    /// config.
    Unreadable {
        /// The PEM label (`CERTIFICATE`, `RSA PRIVATE KEY`, ...).
        label: String,
        /// Why it was not read.
        reason: String,
    },
}

/// What a client checks of a certificate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CertificateFacts {
    /// Each RDN of the subject, in order, as `TYPE=value`; the attributes of a multi-valued
    /// RDN joined by `+` (`O=a+O=b`), so one RDN of two Organizations reads differently from two.
    pub subject: Vec<String>,
    /// The issuer's RDNs, as the subject's.
    pub issuer: Vec<String>,
    /// DNS-name SANs, sorted (a client matches any of them, in any order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dns_names: Vec<String>,
    /// IP-address SANs, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ip_addresses: Vec<String>,
    /// Any other SANs (URIs, e-mail addresses, ...), sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_names: Vec<String>,
    /// Key usage bits (`digitalSignature`, `keyEncipherment`, `keyCertSign`, ...); empty when
    /// the certificate has no KeyUsage extension.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key_usage: Vec<String>,
    /// Extended key usages (`serverAuth`, `clientAuth`, or an OID).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extended_key_usage: Vec<String>,
    /// The BasicConstraints extension; absent when the certificate has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_constraints: Option<BasicConstraintsFacts>,
    /// Not-after minus not-before, to the nearest hour (`1d`, `365d`, `3650d`, `2h`): the dates
    /// are the run's, and an installer's leaf starts at its CA's not-before, seconds earlier.
    pub lifetime: String,
    /// The subject's key type and size (`RSA 2048`, `EC P-256`).
    pub key: String,
}

/// A certificate's BasicConstraints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BasicConstraintsFacts {
    /// Whether it is a CA.
    pub ca: bool,
    /// The path length constraint, when it sets one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_length: Option<u32>,
}

/// The PEM blocks the view reads of one config at most: each costs a parse and a few hundred
/// bytes of facts, and a config's 32 MiB could hold a million empty blocks.
pub(super) const MAX_VIEW_PEM_BLOCKS: usize = 4096;

/// The facts of each PEM block in `text`, in order; `left` of [`MAX_VIEW_PEM_BLOCKS`] is what
/// the config may still use, and a block past it is listed as unread.
pub(super) fn pem_facts(text: &str, left: &mut usize) -> Vec<PemFacts> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN ") {
        let after = &rest[start + "-----BEGIN ".len()..];
        let Some(label_end) = after.find("-----") else {
            break;
        };
        let label = &after[..label_end];
        let body = &after[label_end + "-----".len()..];
        let end_marker = format!("-----END {label}-----");
        let Some(body_end) = body.find(&end_marker) else {
            break;
        };
        rest = &body[body_end + end_marker.len()..];
        let label = label.chars().take(64).collect::<String>();
        if *left == 0 {
            out.push(unreadable(
                &label,
                &format!("beyond the {MAX_VIEW_PEM_BLOCKS} PEM blocks the view reads of a config"),
            ));
            // Say it once; the rest are not even counted.
            break;
        }
        *left -= 1;
        // PEM inside a JSON string has `\n` escapes rather than newlines.
        let b64: String = body[..body_end]
            .replace("\\n", "\n")
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || "+/=".contains(*c))
            .collect();
        out.push(
            match base64::engine::general_purpose::STANDARD.decode(b64) {
                Ok(der) => block_facts(&label, &der),
                Err(_) => unreadable(&label, "its base64 does not decode"),
            },
        );
    }
    out
}

fn unreadable(label: &str, reason: &str) -> PemFacts {
    PemFacts::Unreadable {
        label: label.to_string(),
        reason: reason.to_string(),
    }
}

fn block_facts(label: &str, der: &[u8]) -> PemFacts {
    match label {
        "CERTIFICATE" => match X509Certificate::from_der(der) {
            Ok((_, cert)) => PemFacts::Certificate(certificate_facts(&cert)),
            Err(_) => unreadable(label, "not an X.509 certificate"),
        },
        "PUBLIC KEY" | "RSA PUBLIC KEY" => match public_key_kind(der) {
            Some(key) => PemFacts::PublicKey { key },
            None => unreadable(label, "not a public key"),
        },
        _ if label.ends_with("PRIVATE KEY") => match crate::pki::private_key_kind(label, der) {
            Some(key) => PemFacts::PrivateKey { key },
            None => unreadable(label, "not a private key of that kind"),
        },
        _ => unreadable(label, "a kind of PEM block the view does not read"),
    }
}

/// A public key file: a SubjectPublicKeyInfo (under either label: the installer writes one
/// under `RSA PUBLIC KEY`), else a PKCS#1 `RSAPublicKey`.
fn public_key_kind(der: &[u8]) -> Option<String> {
    if let Ok((_, spki)) = SubjectPublicKeyInfo::from_der(der) {
        return Some(spki_kind(&spki));
    }
    let (modulus, _) = crate::pki::rsa_public_components(der)?;
    Some(format!("RSA {}", crate::pki::integer_bits(modulus)))
}

fn spki_kind(spki: &SubjectPublicKeyInfo<'_>) -> String {
    let algorithm = spki.algorithm.algorithm.to_id_string();
    let curve = || {
        spki.algorithm
            .parameters
            .as_ref()
            .and_then(|p| p.as_oid().ok())
            .map(|oid| oid.to_id_string())
    };
    match (algorithm.as_str(), spki.parsed()) {
        (_, Ok(PublicKey::RSA(rsa))) => format!("RSA {}", crate::pki::integer_bits(rsa.modulus)),
        ("1.2.840.10045.2.1", _) => match curve().as_deref() {
            Some("1.2.840.10045.3.1.7") => "EC P-256".into(),
            Some("1.3.132.0.34") => "EC P-384".into(),
            Some("1.3.132.0.35") => "EC P-521".into(),
            Some(other) => format!("EC {other}"),
            None => "EC".into(),
        },
        ("1.3.101.112", _) => "Ed25519".into(),
        (other, _) => format!("key {other}"),
    }
}

/// Each RDN as `TYPE=value`, a multi-valued one's attributes joined by `+`.
fn rdns(name: &X509Name<'_>) -> Vec<String> {
    let registry = x509_parser::objects::oid_registry();
    name.iter()
        .map(|rdn| {
            rdn.iter()
                .map(|attr| {
                    let kind = x509_parser::objects::oid2abbrev(attr.attr_type(), registry)
                        .map_or_else(|_| attr.attr_type().to_id_string(), str::to_string);
                    let value = attr.as_str().map_or_else(
                        |_| format!("#{}", hex(attr.attr_value().data)),
                        str::to_string,
                    );
                    format!("{kind}={value}")
                })
                .collect::<Vec<_>>()
                .join("+")
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    base16ct::lower::encode_string(bytes)
}

fn ip_text(bytes: &[u8]) -> String {
    if let Ok(v4) = <[u8; 4]>::try_from(bytes) {
        return std::net::IpAddr::from(v4).to_string();
    }
    match <[u8; 16]>::try_from(bytes) {
        Ok(v6) => std::net::IpAddr::from(v6).to_string(),
        Err(_) => format!("#{}", hex(bytes)),
    }
}

fn certificate_facts(cert: &X509Certificate<'_>) -> CertificateFacts {
    let (mut dns_names, mut ip_addresses, mut other_names) = (Vec::new(), Vec::new(), Vec::new());
    if let Ok(Some(sans)) = cert.subject_alternative_name() {
        for name in &sans.value.general_names {
            match name {
                GeneralName::DNSName(dns) => dns_names.push((*dns).to_string()),
                GeneralName::IPAddress(bytes) => ip_addresses.push(ip_text(bytes)),
                other => other_names.push(other.to_string()),
            }
        }
    }
    for list in [&mut dns_names, &mut ip_addresses, &mut other_names] {
        list.sort();
    }
    let key_usage = match cert.key_usage() {
        Ok(Some(ku)) => {
            let ku = ku.value;
            [
                (ku.digital_signature(), "digitalSignature"),
                (ku.non_repudiation(), "nonRepudiation"),
                (ku.key_encipherment(), "keyEncipherment"),
                (ku.data_encipherment(), "dataEncipherment"),
                (ku.key_agreement(), "keyAgreement"),
                (ku.key_cert_sign(), "keyCertSign"),
                (ku.crl_sign(), "cRLSign"),
                (ku.encipher_only(), "encipherOnly"),
                (ku.decipher_only(), "decipherOnly"),
            ]
            .into_iter()
            .filter(|(set, _)| *set)
            .map(|(_, name)| name.to_string())
            .collect()
        }
        _ => Vec::new(),
    };
    let extended_key_usage = match cert.extended_key_usage() {
        Ok(Some(eku)) => {
            let eku = eku.value;
            [
                (eku.any, "any"),
                (eku.server_auth, "serverAuth"),
                (eku.client_auth, "clientAuth"),
                (eku.code_signing, "codeSigning"),
                (eku.email_protection, "emailProtection"),
                (eku.time_stamping, "timeStamping"),
                (eku.ocsp_signing, "OCSPSigning"),
            ]
            .into_iter()
            .filter(|(set, _)| *set)
            .map(|(_, name)| name.to_string())
            .chain(eku.other.iter().map(|oid| oid.to_id_string()))
            .collect()
        }
        _ => Vec::new(),
    };
    let basic_constraints = match cert.basic_constraints() {
        Ok(Some(bc)) => Some(BasicConstraintsFacts {
            ca: bc.value.ca,
            path_length: bc.value.path_len_constraint,
        }),
        _ => None,
    };
    let validity = cert.validity();
    let seconds = validity.not_after.timestamp() - validity.not_before.timestamp();
    CertificateFacts {
        subject: rdns(cert.subject()),
        issuer: rdns(cert.issuer()),
        dns_names,
        ip_addresses,
        other_names,
        key_usage,
        extended_key_usage,
        basic_constraints,
        lifetime: lifetime(seconds),
        key: spki_kind(cert.public_key()),
    }
}

/// `seconds` to the nearest hour, in days when whole (`365d`), else in hours (`25h`).
fn lifetime(seconds: i64) -> String {
    let hours = seconds.saturating_add(1800).div_euclid(3600);
    if hours != 0 && hours % 24 == 0 {
        format!("{}d", hours / 24)
    } else {
        format!("{hours}h")
    }
}

#[cfg(test)]
mod tests {
    use super::lifetime;

    #[test]
    fn lifetime_is_rounded_to_the_hour() {
        assert_eq!(lifetime(86_400 + 3), "1d");
        assert_eq!(lifetime(3650 * 86_400 - 2), "3650d");
        assert_eq!(lifetime(3_600), "1h");
        assert_eq!(lifetime(0), "0h");
        assert_eq!(lifetime(-7_200), "-2h");
    }
}
