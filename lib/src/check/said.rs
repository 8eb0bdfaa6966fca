//! Why an exchange failed, in words a person acts on: the I/O errors a person tells apart
//! (refused, reset, timed out) and TLS's errors, never the libraries' own names.

use rustls::pki_types::ServerName;
use std::time::Duration;

/// An I/O error as a person reads it: the cases a person tells apart are named in words (a
/// read that timed out is "no answer within N s", not "Resource temporarily unavailable"), and
/// a TLS error inside is described by [`describe_tls_error`].
pub(crate) fn describe_io_error(e: &std::io::Error, limit: Option<Duration>) -> String {
    use std::io::ErrorKind;
    if let Some(tls) = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
    {
        return describe_tls_error(tls);
    }
    match (e.kind(), limit) {
        (ErrorKind::TimedOut, _) if e.get_ref().is_some() => e.to_string(),
        (ErrorKind::WouldBlock | ErrorKind::TimedOut, Some(limit)) => {
            format!("no answer within {} s", limit.as_secs().max(1))
        }
        (ErrorKind::WouldBlock | ErrorKind::TimedOut, None) => {
            "no answer within the time limit".to_string()
        }
        (ErrorKind::ConnectionRefused, _) => {
            "the connection was refused: nothing listens there".to_string()
        }
        (ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted, _) => {
            "the connection was reset: the server accepted it and closed it at once".to_string()
        }
        (ErrorKind::UnexpectedEof, _) => "the server closed the connection".to_string(),
        (ErrorKind::HostUnreachable | ErrorKind::NetworkUnreachable, _) => {
            format!("no route to the host ({e})")
        }
        _ => e.to_string(),
    }
}

/// A TLS error in words a person acts on, not the TLS library's names.
pub(crate) fn describe_tls_error(error: &rustls::Error) -> String {
    use rustls::{CertificateError as Cert, Error as Tls};
    match error {
        Tls::InvalidCertificate(cert) => match cert {
            Cert::UnknownIssuer => {
                "the certificate is not signed by a CA this check trusts for it".into()
            }
            Cert::BadSignature => "the certificate's signature does not verify: it was signed by another key than the trusted CA's, under the same name (another install's certificate)".into(),
            Cert::NotValidForName => "the certificate does not name the host asked for".into(),
            Cert::NotValidForNameContext { expected, presented } => format!(
                "the certificate does not name {} (it names {})",
                server_name_text(expected),
                if presented.is_empty() { "nothing".to_string() } else { presented.join(", ") }
            ),
            Cert::Expired | Cert::ExpiredContext { .. } => "the certificate has expired".into(),
            Cert::NotValidYet | Cert::NotValidYetContext { .. } => {
                "the certificate is not valid yet (is this machine's clock, or the server's, right?)".into()
            }
            Cert::Revoked => "the certificate is revoked".into(),
            Cert::BadEncoding => "the certificate cannot be read (it is not well-formed DER)".into(),
            Cert::InvalidPurpose | Cert::InvalidPurposeContext { .. } => {
                "the certificate is not one for a TLS server (its extended key usage)".into()
            }
            #[allow(deprecated)]
            Cert::UnsupportedSignatureAlgorithm
            | Cert::UnsupportedSignatureAlgorithmContext { .. }
            | Cert::UnsupportedSignatureAlgorithmForPublicKeyContext { .. } => {
                "the certificate is signed with an algorithm this check does not accept".into()
            }
            Cert::UnhandledCriticalExtension => {
                "the certificate has a critical extension no TLS client understands".into()
            }
            Cert::Other(other) => match other.to_string().as_str() {
                "CaUsedAsEndEntity" => "the server presents a CA certificate as its own: a server needs a certificate issued by the CA, not the CA itself".into(),
                "EndEntityUsedAsCa" => "the certificate's issuer is a server's certificate, not a CA".into(),
                "PathLenConstraintViolated" => "the chain is longer than a CA in it allows".into(),
                "RequiredEkuNotFound" => "the certificate is not one for a TLS server (its extended key usage)".into(),
                text => format!("the certificate is refused: {}", words(text)),
            },
            other => format!("the certificate is refused: {}", words(&format!("{other:?}"))),
        },
        Tls::AlertReceived(alert) => format!(
            "the server ended the handshake with the TLS alert \"{}\"",
            words(&format!("{alert:?}"))
        ),
        Tls::InvalidMessage(_) | Tls::InappropriateMessage { .. } | Tls::InappropriateHandshakeMessage { .. } => {
            "the server does not speak TLS here (its answer is no TLS handshake)".into()
        }
        Tls::PeerIncompatible(_) => {
            "the server shares no TLS version, cipher or key type with this check (TLS 1.2 or 1.3 are needed)".into()
        }
        Tls::PeerMisbehaved(_) => "the server broke the TLS protocol during the handshake".into(),
        Tls::NoCertificatesPresented => "the server presented no certificate".into(),
        Tls::DecryptError => "the server's messages could not be decrypted".into(),
        Tls::General(text) => text.clone(),
        other => format!("TLS failed: {}", words(&format!("{other:?}"))),
    }
}

/// A server name as text.
fn server_name_text(name: &ServerName<'_>) -> String {
    match name {
        ServerName::DnsName(dns) => dns.as_ref().to_string(),
        ServerName::IpAddress(ip) => std::net::IpAddr::from(*ip).to_string(),
        other => format!("{other:?}"),
    }
}

/// `CaUsedAsEndEntity` as `ca used as end entity`: a name that reaches a person unmapped is
/// at least words (anything after the name, as `Foo(..)`, is left out).
fn words(name: &str) -> String {
    let name = name.split(['(', ' ', '{']).next().unwrap_or_default();
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push(' ');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_errors_are_said_in_words() {
        let other = rustls::OtherError(std::sync::Arc::new(std::io::Error::other(
            "CaUsedAsEndEntity",
        )));
        let said = describe_tls_error(&rustls::Error::InvalidCertificate(
            rustls::CertificateError::Other(other),
        ));
        assert!(
            said.starts_with("the server presents a CA certificate as its own"),
            "{said}"
        );
        let said = describe_tls_error(&rustls::Error::AlertReceived(
            rustls::AlertDescription::HandshakeFailure,
        ));
        assert_eq!(
            said,
            "the server ended the handshake with the TLS alert \"handshake failure\""
        );
        assert_eq!(
            words("UnknownRevocationStatus"),
            "unknown revocation status"
        );
        assert_eq!(words("Foo(Bar)"), "foo");
    }

    #[test]
    fn connection_errors_are_named_apart() {
        use std::io::{Error, ErrorKind};
        let said = |kind| describe_io_error(&Error::from(kind), Some(Duration::from_secs(2)));
        assert_eq!(
            said(ErrorKind::ConnectionRefused),
            "the connection was refused: nothing listens there"
        );
        assert!(said(ErrorKind::ConnectionReset).starts_with("the connection was reset"));
        assert_eq!(said(ErrorKind::TimedOut), "no answer within 2 s");
    }
}
