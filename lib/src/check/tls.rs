//! TLS for the probes (rustls with the aws-lc-rs provider the PKI already links): a client that
//! checks a server's certificate against the roots the configs give and keeps the certificate
//! it was shown, so a refusal can say what came instead.

use super::probe::{Handshake, Presented};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    ClientConfig, ClientConnection, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Checks with webpki (when given roots) and remembers the server's certificate either way.
#[derive(Debug)]
struct Recording {
    inner: Option<Arc<WebPkiServerVerifier>>,
    provider: Arc<CryptoProvider>,
    seen: Mutex<Option<Vec<u8>>>,
}

impl ServerCertVerifier for Recording {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if let Ok(mut seen) = self.seen.lock() {
            *seen = Some(end_entity.to_vec());
        }
        match &self.inner {
            Some(inner) => {
                inner.verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
            }
            None => Ok(ServerCertVerified::assertion()),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// A client that checks against `roots` (DER), or accepts any certificate when `roots` is
/// `None`; the verifier is returned too, to read the certificate shown.
fn client(roots: Option<&[Vec<u8>]>) -> Result<(Arc<ClientConfig>, Arc<Recording>), String> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let inner = match roots {
        Some(roots) => {
            let mut store = RootCertStore::empty();
            for der in roots {
                // A root webpki cannot use is left out; the handshake then says UnknownIssuer.
                let _ = store.add(CertificateDer::from(der.clone()));
            }
            if store.is_empty() {
                return Err("no usable CA certificate to check the server against".into());
            }
            Some(
                WebPkiServerVerifier::builder_with_provider(Arc::new(store), provider.clone())
                    .build()
                    .map_err(|e| e.to_string())?,
            )
        }
        None => None,
    };
    let recording = Arc::new(Recording {
        inner,
        provider: provider.clone(),
        seen: Mutex::new(None),
    });
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(recording.clone())
        .with_no_client_auth();
    Ok((Arc::new(config), recording))
}

/// A TLS stream over `socket`, its handshake done.
pub(crate) type Stream<S> = rustls::StreamOwned<ClientConnection, S>;

/// Shakes hands as `server_name` over a connected socket, within the time its reads and writes
/// allow (`limit`, for the words of a timeout); on success the stream is returned for a request.
pub(crate) fn handshake<S: Read + Write>(
    socket: S,
    server_name: &str,
    roots: Option<&[Vec<u8>]>,
    limit: Duration,
) -> (Handshake, Option<Stream<S>>) {
    let refused = |reason: String| (Handshake::NoCertificate(reason), None);
    let (config, recording) = match client(roots) {
        Ok(client) => client,
        Err(e) => return refused(e),
    };
    let name = match ServerName::try_from(server_name.to_string()) {
        Ok(name) => name,
        Err(e) => return refused(format!("{server_name}: {e}")),
    };
    let connection = match ClientConnection::new(config, name) {
        Ok(connection) => connection,
        Err(e) => return refused(super::said::describe_tls_error(&e)),
    };
    let mut stream = rustls::StreamOwned::new(connection, socket);
    let mut outcome = Ok(());
    while stream.conn.is_handshaking() {
        if let Err(e) = stream.conn.complete_io(&mut stream.sock) {
            outcome = Err(e);
            break;
        }
    }
    let presented = recording
        .seen
        .lock()
        .ok()
        .and_then(|seen| seen.as_deref().map(describe));
    match (outcome, presented) {
        (Ok(()), Some(presented)) => (Handshake::Verified(presented), Some(stream)),
        (Ok(()), None) => refused("the handshake ended without a certificate".into()),
        (Err(e), presented @ Some(_)) => (
            Handshake::Rejected {
                reason: super::said::describe_io_error(&e, Some(limit)),
                presented,
            },
            None,
        ),
        (Err(e), None) => refused(super::said::describe_io_error(&e, Some(limit))),
    }
}

/// Subject, issuer and names of a DER certificate; what cannot be read is said so.
pub(crate) fn describe(der: &[u8]) -> Presented {
    use x509_parser::prelude::{FromDer, GeneralName, X509Certificate};
    let Ok((_, cert)) = X509Certificate::from_der(der) else {
        return Presented {
            subject: "<unreadable certificate>".into(),
            issuer: String::new(),
            names: Vec::new(),
        };
    };
    let short = |name: &x509_parser::x509::X509Name| {
        name.iter_common_name()
            .next()
            .and_then(|cn| cn.as_str().ok())
            .map(|cn| format!("CN={cn}"))
            .unwrap_or_else(|| name.to_string())
    };
    let names = cert
        .subject_alternative_name()
        .ok()
        .flatten()
        .map(|san| {
            san.value
                .general_names
                .iter()
                .filter_map(|name| match name {
                    GeneralName::DNSName(dns) => Some((*dns).to_string()),
                    GeneralName::IPAddress(bytes) => ip_text(bytes),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    Presented {
        subject: short(cert.subject()),
        issuer: short(cert.issuer()),
        names,
    }
}

fn ip_text(bytes: &[u8]) -> Option<String> {
    match bytes.len() {
        4 => Some(std::net::Ipv4Addr::new(bytes[0], bytes[1], bytes[2], bytes[3]).to_string()),
        16 => {
            let mut octets = [0u8; 16];
            octets.copy_from_slice(bytes);
            Some(std::net::Ipv6Addr::from(octets).to_string())
        }
        _ => None,
    }
}
