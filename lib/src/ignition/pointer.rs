//! `bootgen pointer`: a small spec 3.2.0 config that replaces itself with the real one, fetched
//! from a URL and checked against its SHA-512, trusting the given CA. This is the way out when a
//! config is over a platform's user-data limit (16 KiB on AWS). It uses `replace`, not spec 2's
//! `append`, and 3.2.0 because every OpenShift 4.6+ boot image's Ignition reads it.

use super::hash::sha512_hash;
use super::{dataurl, IgnitionDoc};
use crate::error::{Error, OptionField, Result};
use ignition_config::v3_2 as spec;

/// URL schemes Ignition 3.2.0 can fetch a config from.
const SCHEMES: &[&str] = &["https", "http", "s3", "gs", "tftp"];

fn invalid(option: OptionField, message: String) -> Error {
    Error::InvalidOption { option, message }
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
    // The URL may carry credentials: messages show it with them hidden.
    let shown = super::redact::Redact::WithDigest.secrets(url);
    let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    if !scheme.as_deref().is_some_and(|s| SCHEMES.contains(&s)) {
        return Err(invalid(
            OptionField::PointerUrl,
            format!(
                "`{shown}` is not a URL Ignition 3.2.0 fetches configs from ({}://...)",
                SCHEMES.join("://, ")
            ),
        ));
    }
    if let Some(c) = url.chars().find(|c| c.is_whitespace() || c.is_control()) {
        let what = if c.is_control() && !c.is_whitespace() {
            "a control character"
        } else {
            "whitespace"
        };
        return Err(invalid(
            OptionField::PointerUrl,
            format!("`{shown}` contains {what}"),
        ));
    }
    if let Err(why) = check_url_shape(url) {
        return Err(invalid(OptionField::PointerUrl, format!("`{shown}` {why}")));
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

/// Whether `url` (a scheme Ignition fetches from, checked before) has a host and parses as a
/// URL does for Ignition: a node given one without either can never fetch its config.
fn check_url_shape(url: &str) -> std::result::Result<(), String> {
    crate::url_syntax::parse_problem(url).map_or(Ok(()), Err)?;
    let (host, _) = crate::url_syntax::host_and_port(url);
    if let Some(address) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        if address.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!("has `[{address}]`, which is no IPv6 address"));
        }
    } else if host.is_empty() {
        return Err("has no host".into());
    }
    Ok(())
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
        for bad in [
            "http://[user:x@host/x",
            "https://",
            "https:///bootstrap.ign",
            "https://[::1/bootstrap.ign",
            "https://[nope]/b.ign",
            "https://files%zz.example.com/b.ign",
            "https://files.example.com/b%2.ign",
            "https://files.example.com:port/b.ign",
            "https://u:pw@/b.ign",
        ] {
            let err = replace_pointer(bad, b"{}", None).unwrap_err().to_string();
            assert!(err.contains("pointer URL"), "{bad}: {err}");
        }
        for good in [
            "https://files.example.com/b.ign",
            "https://files.example.com:8443/b%20c.ign?x=1",
            "https://[2001:db8::1]:8443/b.ign",
            "https://u:pw@files.example.com/b.ign",
            "s3://bucket/key/b.ign",
            "tftp://192.0.2.1/b.ign",
        ] {
            assert!(replace_pointer(good, b"{}", None).is_ok(), "{good}");
        }
        // Credentials in a refused URL are not shown.
        let err = replace_pointer("https://user:S3cret@[::1/b", b"{}", None).unwrap_err();
        assert!(!err.to_string().contains("S3cret"), "{err}");
        let err = replace_pointer("https://user:S3cret@h/\u{1b}[31m", b"{}", None).unwrap_err();
        assert!(err.to_string().contains("control character"), "{err}");
        assert!(!err.to_string().contains("S3cret"), "{err}");
        assert!(replace_pointer("bootstrap.ign", b"{}", None).is_err());
        assert!(replace_pointer("https://h/x", b"{}", Some(("nope", "ca.pem"))).is_err());
        let key = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
        let err = replace_pointer("https://h/x", b"{}", Some((key, "ca.pem"))).unwrap_err();
        assert!(err.to_string().contains("not a CERTIFICATE"), "{err}");
    }
}
