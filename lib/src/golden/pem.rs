//! What the golden view shows for a PEM block: a certificate's subject, issuer, SANs, key,
//! usages, CA flag and lifetime (never its dates, serial or signature); a key's type and size.
//! These depend only on what was asked for, not on the keys drawn or the clock.

use crate::pki::PrivateKey;
use std::fmt::Write as _;
use x509_parser::certificate::X509Certificate;
use x509_parser::extensions::GeneralName;
use x509_parser::prelude::FromDer as _;
use x509_parser::public_key::PublicKey;
use x509_parser::x509::SubjectPublicKeyInfo;

/// The summary of one PEM block, as lines (without newlines).
pub(super) fn summarize(block: &pem::Pem) -> Vec<String> {
    let label = block.tag();
    if label == "CERTIFICATE" {
        return match X509Certificate::from_der(block.contents()) {
            Ok((_, cert)) => certificate(&cert),
            Err(_) => vec!["<certificate that does not parse>".into()],
        };
    }
    if label.ends_with("PRIVATE KEY") {
        let kind = PrivateKey::from_pem(block)
            .map(|key| key.describe())
            .unwrap_or_else(|_| label.to_string());
        return vec![format!("<private key: {kind}>")];
    }
    if label == "PUBLIC KEY" {
        let kind = SubjectPublicKeyInfo::from_der(block.contents())
            .ok()
            .and_then(|(_, info)| info.parsed().ok().map(|key| public_key(&key)))
            .unwrap_or_else(|| "unknown type".into());
        return vec![format!("<public key: {kind}>")];
    }
    vec![format!("<PEM {label}, {} bytes>", block.contents().len())]
}

fn public_key(key: &PublicKey<'_>) -> String {
    match key {
        PublicKey::RSA(rsa) => format!("RSA {}", rsa.key_size()),
        PublicKey::EC(ec) => format!("EC {}", ec.key_size()),
        _ => "other".into(),
    }
}

fn certificate(cert: &X509Certificate<'_>) -> Vec<String> {
    let mut lines = vec!["<certificate".to_string()];
    let mut field = |name: &str, value: String| lines.push(format!("  {name}: {value}"));
    field("subject", cert.subject().to_string());
    field("issuer", cert.issuer().to_string());
    let sans: Vec<String> = match cert.subject_alternative_name() {
        Ok(Some(ext)) => ext.value.general_names.iter().map(san).collect(),
        _ => Vec::new(),
    };
    field("SANs", list(sans));
    let key = cert
        .public_key()
        .parsed()
        .map(|k| public_key(&k))
        .unwrap_or_else(|_| "unknown type".into());
    field("key", key);
    let usage = match cert.key_usage() {
        Ok(Some(ext)) => ext.value.to_string(),
        _ => "-".into(),
    };
    field("key usage", usage);
    let ext_usage = match cert.extended_key_usage() {
        Ok(Some(ext)) => {
            let eku = ext.value;
            let mut names: Vec<String> = [
                (eku.any, "any"),
                (eku.server_auth, "server auth"),
                (eku.client_auth, "client auth"),
                (eku.code_signing, "code signing"),
                (eku.email_protection, "email protection"),
                (eku.time_stamping, "time stamping"),
                (eku.ocsp_signing, "OCSP signing"),
            ]
            .into_iter()
            .filter(|(set, _)| *set)
            .map(|(_, name)| name.to_string())
            .collect();
            names.extend(eku.other.iter().map(|oid| oid.to_id_string()));
            list(names)
        }
        _ => "-".into(),
    };
    field("ext key usage", ext_usage);
    let ca = match cert.basic_constraints() {
        Ok(Some(ext)) => match ext.value.path_len_constraint {
            Some(len) if ext.value.ca => format!("yes (path length {len})"),
            _ if ext.value.ca => "yes".into(),
            _ => "no".into(),
        },
        _ => "no".into(),
    };
    field("CA", ca);
    let validity = cert.validity();
    let seconds = validity.not_after.timestamp() - validity.not_before.timestamp();
    field("lifetime", lifetime(seconds));
    lines.push(">".into());
    lines
}

fn san(name: &GeneralName<'_>) -> String {
    match name {
        GeneralName::DNSName(dns) => format!("DNS:{dns}"),
        GeneralName::IPAddress(bytes) => match bytes.len() {
            4 => {
                let octets: [u8; 4] = [bytes[0], bytes[1], bytes[2], bytes[3]];
                format!("IP:{}", std::net::Ipv4Addr::from(octets))
            }
            16 => {
                let mut octets = [0u8; 16];
                octets.copy_from_slice(bytes);
                format!("IP:{}", std::net::Ipv6Addr::from(octets))
            }
            _ => "IP:?".into(),
        },
        other => format!("{other}"),
    }
}

fn list(items: Vec<String>) -> String {
    if items.is_empty() {
        "-".into()
    } else {
        items.join(", ")
    }
}

/// A lifetime in whole days where it is one (as certificate lifetimes usually are), else in
/// days, hours, minutes and seconds.
pub(super) fn lifetime(seconds: i64) -> String {
    let (d, rest) = (seconds / 86_400, seconds % 86_400);
    if rest == 0 {
        return format!("{d}d");
    }
    let mut out = String::new();
    for (amount, unit) in [
        (d, "d"),
        (rest / 3600, "h"),
        (rest % 3600 / 60, "m"),
        (rest % 60, "s"),
    ] {
        if amount != 0 {
            let _ = write!(out, "{amount}{unit}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifetimes_are_durations() {
        assert_eq!(lifetime(86_400 * 3650), "3650d");
        assert_eq!(lifetime(86_400 + 3600 + 1), "1d1h1s");
        assert_eq!(lifetime(3600), "1h");
    }

    #[test]
    fn unknown_blocks_say_their_label_only() {
        let block = pem::Pem::new("OPENSSH PRIVATE KEY", vec![1, 2, 3]);
        assert_eq!(
            summarize(&block),
            vec!["<private key: OPENSSH PRIVATE KEY>"]
        );
        let block = pem::Pem::new("X509 CRL", vec![1, 2, 3]);
        assert_eq!(summarize(&block), vec!["<PEM X509 CRL, 3 bytes>"]);
    }
}
