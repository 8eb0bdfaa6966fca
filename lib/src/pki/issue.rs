//! Turning a table row and a key into a certificate with rcgen, as the installer makes them:
//! CAs have CN + OU subjects, digitalSignature + keyEncipherment (RSA keys only) + certSign and
//! no EKU; leaves
//! have CN + O subjects, start at their CA's NotBefore, and carry the issuer's key ID.

use aws_lc_rs::digest;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyIdMethod, KeyUsagePurpose, SanType, SerialNumber,
};
use time::OffsetDateTime;

use super::cert::{CertInfo, San};
use super::keys::PrivateKey;
use super::table::{LeafSpec, SignerSpec, Usage, Validity};
use super::{CertificateLifetimes, PkiError};

/// The X.520 organizationName OID. rcgen keeps one value per attribute type, so further
/// organizations of a subject go in as a "custom" type with the same OID.
const ORGANIZATION_OID: [u64; 4] = [2, 5, 4, 10];

/// A self-signed CA certificate valid from `now` for the row's validity.
pub(crate) fn self_signed_ca(
    spec: &SignerSpec,
    key: &PrivateKey,
    now: OffsetDateTime,
    lifetimes: &CertificateLifetimes,
) -> Result<CertInfo, PkiError> {
    let mut params = CertificateParams::default();
    params.distinguished_name = DistinguishedName::new();
    params
        .distinguished_name
        .push(DnType::OrganizationalUnitName, spec.organizational_unit);
    params
        .distinguished_name
        .push(DnType::CommonName, spec.common_name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = signing_usages(key);
    params.key_usages.push(KeyUsagePurpose::KeyCertSign);
    params.key_identifier_method = KeyIdMethod::PreSpecified(key.key_id());
    params.not_before = now;
    params.not_after = add_validity(spec.name, now, spec.validity, lifetimes)?;
    params.serial_number = Some(serial(spec.name, key, &params, &[], &key.key_id()));
    let cert = params
        .self_signed(key)
        .map_err(|e| issue_error(spec.name, e))?;
    parse_issued(spec.name, cert.der())
}

/// The CA that signs a leaf: its key and its (possibly reused) certificate.
pub(crate) struct Authority<'a> {
    pub key: &'a PrivateKey,
    pub cert: &'a CertInfo,
}

/// What a leaf's certificate names that depends on the request: its subject's Organizations
/// and its SANs.
pub(crate) struct LeafSubject<'a> {
    pub organizations: &'a [&'a str],
    pub sans: &'a [San],
}

/// A leaf certificate for `key`, signed by `issuer`. NotBefore is the issuer's NotBefore (as the
/// installer does); NotAfter is `now` plus the row's validity, never later than the issuer's.
pub(crate) fn issue_leaf(
    spec: &LeafSpec,
    subject: &LeafSubject<'_>,
    key: &PrivateKey,
    issuer: &Authority<'_>,
    now: OffsetDateTime,
    lifetimes: &CertificateLifetimes,
) -> Result<CertInfo, PkiError> {
    let mut params = CertificateParams::default();
    params.distinguished_name = DistinguishedName::new();
    let sans = subject.sans;
    // Each Organization its own RDN: rcgen writes no multi-valued RDN (Go's pkix.Name puts
    // several into one); a client reads the same list either way.
    let mut organizations = subject.organizations.iter();
    if let Some(first) = organizations.next() {
        params
            .distinguished_name
            .push(DnType::OrganizationName, *first);
    }
    for more in organizations {
        params
            .distinguished_name
            .push(DnType::CustomDnType(ORGANIZATION_OID.to_vec()), *more);
    }
    params
        .distinguished_name
        .push(DnType::CommonName, spec.common_name);
    params.subject_alt_names = sans
        .iter()
        .map(|san| san_type(spec.name, san))
        .collect::<Result<_, _>>()?;
    params.is_ca = IsCa::ExplicitNoCa;
    params.key_usages = match spec.usage {
        Usage::ServerWithoutKu => Vec::new(),
        _ => signing_usages(key),
    };
    params.extended_key_usages = match spec.usage {
        Usage::Client => vec![ExtendedKeyUsagePurpose::ClientAuth],
        Usage::Server | Usage::ServerWithoutKu => vec![ExtendedKeyUsagePurpose::ServerAuth],
        Usage::ServerAndClient => vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ],
    };
    params.key_identifier_method = KeyIdMethod::PreSpecified(key.key_id());
    params.use_authority_key_identifier_extension = true;
    params.not_before = issuer.cert.not_before;
    params.not_after =
        add_validity(spec.name, now, spec.validity, lifetimes)?.min(issuer.cert.not_after);
    params.serial_number = Some(serial(spec.name, key, &params, sans, &issuer.key.key_id()));
    let ca = Issuer::from_ca_cert_der(&issuer.cert.der.as_slice().into(), issuer.key)
        .map_err(|e| issue_error(spec.name, e))?;
    let cert = params
        .signed_by(key, &ca)
        .map_err(|e| issue_error(spec.name, e))?;
    parse_issued(spec.name, cert.der())
}

/// digitalSignature, and keyEncipherment for an RSA key: an ECDSA key cannot encipher, and
/// RFC 5480 forbids saying it can (the installer's ECDSA signers say digitalSignature alone).
fn signing_usages(key: &PrivateKey) -> Vec<KeyUsagePurpose> {
    if key.is_ecdsa() {
        vec![KeyUsagePurpose::DigitalSignature]
    } else {
        vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ]
    }
}

/// `now` plus a validity period; an error past what X.509 time fields can hold.
pub(crate) fn add_validity(
    name: &str,
    now: OffsetDateTime,
    validity: Validity,
    lifetimes: &CertificateLifetimes,
) -> Result<OffsetDateTime, PkiError> {
    now.checked_add(validity.duration(lifetimes))
        .filter(|t| t.year() <= 9999)
        .ok_or_else(|| PkiError::ValidityOutOfRange {
            name: name.to_string(),
            now,
        })
}

fn san_type(name: &str, san: &San) -> Result<SanType, PkiError> {
    match san {
        San::Ip(ip) => Ok(SanType::IpAddress(*ip)),
        San::Dns(dns) => dns.clone().try_into().map(SanType::DnsName).map_err(|_| {
            PkiError::InvalidSubjectAltName {
                name: name.to_string(),
                value: dns.clone(),
            }
        }),
    }
}

/// A positive 63-bit serial (the installer's range) derived from what the certificate says, so
/// that issuing is free of randomness beyond the keys, yet two different certificates from one
/// CA never share a serial.
fn serial(
    name: &str,
    key: &PrivateKey,
    params: &CertificateParams,
    sans: &[San],
    issuer_key_id: &[u8],
) -> SerialNumber {
    let mut ctx = digest::Context::new(&digest::SHA256);
    ctx.update(name.as_bytes());
    ctx.update(&[0]);
    ctx.update(key.public_key_bytes());
    ctx.update(&params.not_before.unix_timestamp().to_be_bytes());
    ctx.update(&params.not_after.unix_timestamp().to_be_bytes());
    ctx.update(issuer_key_id);
    for san in sans {
        ctx.update(san.to_string().as_bytes());
        ctx.update(&[0]);
    }
    let hash = ctx.finish();
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&hash.as_ref()[..8]);
    bytes[0] &= 0x7f;
    if bytes == [0; 8] {
        bytes[7] = 1;
    }
    SerialNumber::from_slice(&bytes)
}

fn issue_error(name: &str, error: rcgen::Error) -> PkiError {
    PkiError::Issue {
        name: name.to_string(),
        reason: error.to_string(),
    }
}

fn parse_issued(name: &str, der: &[u8]) -> Result<CertInfo, PkiError> {
    CertInfo::from_der(der).map_err(|reason| PkiError::Issue {
        name: name.to_string(),
        reason,
    })
}
