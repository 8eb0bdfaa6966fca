//! `bootgen pointer`: a small spec 3.2.0 config that replaces itself with the real one, fetched
//! from a URL and checked against its SHA-512, trusting the given CA. This is the way out when a
//! config is over a platform's user-data limit (16 KiB on AWS). It uses `replace`, not spec 2's
//! `append`, and 3.2.0 because every OpenShift 4.6+ boot image's Ignition reads it.

use super::{dataurl, IgnitionDoc};
use crate::error::{Error, OptionField, Result};
use ignition_config::v3_2 as spec;
use sha2::{Digest, Sha512};
use std::fmt::Write as _;

/// URL schemes Ignition 3.2.0 can fetch a config from.
const SCHEMES: &[&str] = &["https", "http", "s3", "gs", "tftp"];

fn invalid(option: OptionField, message: String) -> Error {
    Error::InvalidOption { option, message }
}

/// `sha512-<hex>` of `bytes`, as Ignition's `verification.hash` wants it.
pub fn sha512_hash(bytes: &[u8]) -> String {
    let digest = Sha512::digest(bytes);
    let mut out = String::with_capacity(7 + 128);
    out.push_str("sha512-");
    for b in digest {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Splits a PEM bundle into its CERTIFICATE blocks, each checked to parse as X.509.
pub fn certificate_blocks(pem_text: &str, name: &str) -> Result<Vec<String>> {
    let blocks = pem::parse_many(pem_text.as_bytes())
        .map_err(|e| invalid(OptionField::PointerCa, format!("{name}: not PEM ({e})")))?;
    let mut out = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        if block.tag() != "CERTIFICATE" {
            return Err(invalid(
                OptionField::PointerCa,
                format!(
                    "{name}: block {} is a {}, not a CERTIFICATE",
                    i + 1,
                    block.tag()
                ),
            ));
        }
        use x509_parser::prelude::FromDer as _;
        x509_parser::certificate::X509Certificate::from_der(block.contents()).map_err(|e| {
            invalid(
                OptionField::PointerCa,
                format!("{name}: certificate {} does not parse ({e})", i + 1),
            )
        })?;
        out.push(crate::pki::pem_text("CERTIFICATE", block.contents()));
    }
    if out.is_empty() {
        return Err(invalid(
            OptionField::PointerCa,
            format!("{name}: no CERTIFICATE block"),
        ));
    }
    Ok(out)
}

/// The pointer config: replace with `url`, verified by the SHA-512 of `target` (the exact
/// bytes that will be served), trusting each certificate in `ca_pem` (named `ca_name` in errors).
pub fn replace_pointer(url: &str, target: &[u8], ca: Option<(&str, &str)>) -> Result<IgnitionDoc> {
    let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    if !scheme.as_deref().is_some_and(|s| SCHEMES.contains(&s)) {
        return Err(invalid(
            OptionField::PointerUrl,
            format!(
                "`{url}` is not a URL Ignition 3.2.0 fetches configs from ({}://...)",
                SCHEMES.join("://, ")
            ),
        ));
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(invalid(
            OptionField::PointerUrl,
            format!("`{url}` contains whitespace"),
        ));
    }
    let mut config = spec::Config::default();
    config.ignition.config = Some(spec::IgnitionConfig {
        replace: Some(spec::Resource {
            source: Some(url.to_string()),
            verification: Some(spec::Verification {
                hash: Some(sha512_hash(target)),
            }),
            ..Default::default()
        }),
        ..Default::default()
    });
    if let Some((pem_text, name)) = ca {
        let authorities = certificate_blocks(pem_text, name)?
            .iter()
            .map(|block| spec::Resource {
                source: Some(dataurl::encode(block.as_bytes())),
                ..Default::default()
            })
            .collect();
        config.ignition.security = Some(spec::Security {
            tls: Some(spec::SecurityTls {
                certificate_authorities: Some(authorities),
            }),
        });
    }
    super::to_doc(&config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_replaces_with_a_verified_url() {
        let doc = replace_pointer("https://h/bootstrap.ign", b"{}", None).unwrap();
        assert_eq!(doc.version(), "3.2.0");
        let hash = doc
            .value
            .pointer("/ignition/config/replace/verification/hash")
            .and_then(|v| v.as_str())
            .unwrap();
        assert!(hash.starts_with("sha512-27c74670adb75075"), "{hash}");
        assert_eq!(hash.len(), 7 + 128);
        IgnitionDoc::parse(&doc.to_bytes(), "pointer.ign").unwrap();
    }

    #[test]
    fn refuses_bad_urls_and_cas() {
        assert!(replace_pointer("file:///x", b"{}", None).is_err());
        assert!(replace_pointer("bootstrap.ign", b"{}", None).is_err());
        assert!(replace_pointer("https://h/x", b"{}", Some(("nope", "ca.pem"))).is_err());
        let key = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
        let err = replace_pointer("https://h/x", b"{}", Some((key, "ca.pem"))).unwrap_err();
        assert!(err.to_string().contains("not a CERTIFICATE"), "{err}");
    }
}
