//! A certificate as the PKI needs to know it: its DER and the few fields that decide whether it
//! can be reused (validity, SANs, public key, issuer link).

use std::net::IpAddr;

use time::OffsetDateTime;
use x509_parser::certificate::X509Certificate;
use x509_parser::extensions::{GeneralName, ParsedExtension};
use x509_parser::prelude::FromDer as _;

use super::pem_text;

/// One parsed certificate.
#[derive(Debug, Clone)]
pub(crate) struct CertInfo {
    pub der: Vec<u8>,
    pub not_before: OffsetDateTime,
    pub not_after: OffsetDateTime,
    /// `DNS:name` / `IP:address`, in certificate order.
    pub sans: Vec<San>,
    pub public_key: Vec<u8>,
    pub issuer_common_name: String,
    /// The subject's Organizations, in order.
    pub organizations: Vec<String>,
    /// Raw DER of the TBS part, its signature algorithm OID and the signature, to check who
    /// signed it.
    pub tbs: Vec<u8>,
    pub signature_oid: String,
    pub signature: Vec<u8>,
}

/// A subject alternative name we generate or compare.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum San {
    Dns(String),
    Ip(IpAddr),
}

impl std::fmt::Display for San {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            San::Dns(name) => f.write_str(name),
            San::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

impl CertInfo {
    /// Parses a DER certificate; the error says what is wrong.
    pub(crate) fn from_der(der: &[u8]) -> Result<CertInfo, String> {
        let (rest, cert) = X509Certificate::from_der(der)
            .map_err(|e| format!("not an X.509 certificate ({e})"))?;
        if !rest.is_empty() {
            return Err("trailing data after the certificate".into());
        }
        // rcgen re-reads a reused CA's subject to sign with it and cannot handle a
        // multi-valued or empty RDN; refuse those here with a clear message.
        if cert.subject().iter().any(|rdn| rdn.iter().count() != 1) {
            return Err("subject has a multi-valued or empty relative distinguished name".into());
        }
        let mut sans = Vec::new();
        for ext in cert.extensions() {
            if let ParsedExtension::SubjectAlternativeName(names) = ext.parsed_extension() {
                for name in &names.general_names {
                    sans.push(match name {
                        GeneralName::DNSName(dns) => San::Dns((*dns).to_string()),
                        GeneralName::IPAddress(bytes) => San::Ip(ip_from_bytes(bytes)?),
                        other => {
                            return Err(format!("unsupported subject alternative name {other:?}"))
                        }
                    });
                }
            }
        }
        let issuer_common_name = cert
            .issuer()
            .iter_common_name()
            .next()
            .and_then(|cn| cn.as_str().ok())
            .unwrap_or_default()
            .to_string();
        let organizations = cert
            .subject()
            .iter_organization()
            .filter_map(|o| o.as_str().ok().map(str::to_string))
            .collect();
        Ok(CertInfo {
            organizations,
            der: der.to_vec(),
            not_before: cert.validity().not_before.to_datetime(),
            not_after: cert.validity().not_after.to_datetime(),
            sans,
            public_key: cert.public_key().subject_public_key.data.to_vec(),
            issuer_common_name,
            tbs: cert.tbs_certificate.as_ref().to_vec(),
            signature_oid: cert.signature_algorithm.algorithm.to_id_string(),
            signature: cert.signature_value.data.to_vec(),
        })
    }

    /// The certificate as one PEM block.
    pub(crate) fn pem(&self) -> String {
        pem_text("CERTIFICATE", &self.der)
    }

    /// SANs as a sorted list, for comparisons that ignore order.
    pub(crate) fn sorted_sans(&self) -> Vec<San> {
        let mut sans = self.sans.clone();
        sans.sort();
        sans.dedup();
        sans
    }
}

fn ip_from_bytes(bytes: &[u8]) -> Result<IpAddr, String> {
    if let Ok(v4) = <[u8; 4]>::try_from(bytes) {
        return Ok(IpAddr::from(v4));
    }
    <[u8; 16]>::try_from(bytes)
        .map(IpAddr::from)
        .map_err(|_| format!("IP address SAN of {} bytes", bytes.len()))
}
