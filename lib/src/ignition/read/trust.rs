//! The CA certificates a config gives the node's container tools.

use super::file_entries;
use crate::ignition::{dataurl, IgnitionDoc};
use serde_json::Value;

/// The node's CA anchors file.
pub const ANCHORS: &str = "/etc/pki/ca-trust/source/anchors/ca.crt";
/// The cluster's additional trust bundle.
pub const USER_CA_BUNDLE: &str = "/opt/openshift/manifests/user-ca-bundle-config.yaml";
/// CA certificates the node's container tools will trust for `host`: the system anchors and
/// the per-registry certs.d directories.
pub fn ca_count(doc: &IgnitionDoc, host: &str) -> usize {
    let dirs = [
        "/etc/pki/ca-trust/source/anchors/".to_string(),
        format!("/etc/containers/certs.d/{host}/"),
        format!("/etc/docker/certs.d/{host}/"),
    ];
    file_entries(doc)
        .into_iter()
        .filter(|f| {
            f.get("path")
                .and_then(Value::as_str)
                .is_some_and(|p| dirs.iter().any(|d| p.starts_with(d.as_str())))
        })
        .filter_map(|f| {
            let resource = f.get("contents")?;
            let source = resource.get("source")?.as_str()?;
            let compression = resource.get("compression").and_then(Value::as_str);
            dataurl::decode(source, compression).ok()
        })
        .map(|bytes| parse_certificates(&bytes).map(|c| c.len()).unwrap_or(0))
        .sum()
}

/// One certificate of a trust bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Certificate {
    /// DER bytes (what de-duplication compares).
    pub(crate) der: Vec<u8>,
    /// The subject, for messages.
    pub(crate) subject: String,
}

impl Certificate {
    /// The DER bytes.
    pub fn der(&self) -> &[u8] {
        &self.der
    }

    /// The subject, e.g. `CN=Lab CA`.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// PEM text with LF line endings and a final newline.
    pub fn pem(&self) -> String {
        crate::pki::pem_text("CERTIFICATE", &self.der)
    }
}

/// Every certificate in PEM text; any other block, or a certificate that does not parse, is
/// an error (a private key must never end up in a world-readable manifest).
pub fn parse_certificates(bytes: &[u8]) -> Result<Vec<Certificate>, String> {
    let blocks = pem::parse_many(bytes).map_err(|e| format!("is not valid PEM: {e}"))?;
    let mut out = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        if block.tag() != "CERTIFICATE" {
            return Err(format!(
                "PEM block {} is a {}, not a CERTIFICATE; a trust bundle holds only CA certificates",
                i + 1,
                block.tag()
            ));
        }
        let (_, cert) = x509_parser::parse_x509_certificate(block.contents())
            .map_err(|e| format!("certificate {} does not parse: {e}", i + 1))?;
        out.push(Certificate {
            der: block.contents().to_vec(),
            subject: cert.subject().to_string(),
        });
    }
    Ok(out)
}
