//! The few DER structures the PKI takes apart by hand: a PKCS#8 wrapper around a PKCS#1 RSA
//! key, the modulus/exponent of a PKCS#1 RSA public key (for the SSH wire format), and the
//! public half written inside a private key file (to match a key with its certificate without
//! importing it).

const TAG_INTEGER: u8 = 0x02;
const TAG_BIT_STRING: u8 = 0x03;
const TAG_OCTET_STRING: u8 = 0x04;
const TAG_OID: u8 = 0x06;
const TAG_SEQUENCE: u8 = 0x30;
/// `[0]` and `[1]` of SEC1's `ECPrivateKey`: the curve and the public key.
const TAG_EC_PARAMETERS: u8 = 0xa0;
const TAG_EC_PUBLIC_KEY: u8 = 0xa1;

/// OID contents of rsaEncryption (1.2.840.113549.1.1.1).
const OID_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
/// OID contents of id-ecPublicKey (1.2.840.10045.2.1).
const OID_EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
/// OID contents of the P-256 curve, prime256v1 (1.2.840.10045.3.1.7).
const OID_P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];

/// The NIST curves bootgen's ECDSA keys are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Curve {
    /// P-256 (prime256v1).
    P256,
    /// P-384 (secp384r1).
    P384,
    /// P-521 (secp521r1).
    P521,
}

impl Curve {
    /// Every curve, smallest first.
    pub(crate) const ALL: [Curve; 3] = [Curve::P256, Curve::P384, Curve::P521];

    /// The curve's OID contents, as a key names it.
    fn oid(self) -> &'static [u8] {
        match self {
            Curve::P256 => OID_P256,
            Curve::P384 => OID_P384,
            Curve::P521 => OID_P521,
        }
    }

    /// The length of one of its points, uncompressed (4, then x and y).
    pub(crate) fn point_len(self) -> usize {
        match self {
            Curve::P256 => 65,
            Curve::P384 => 97,
            Curve::P521 => 133,
        }
    }

    fn from_oid(oid: &[u8]) -> Option<Curve> {
        Curve::ALL.into_iter().find(|c| c.oid() == oid)
    }
}

/// The key types a private key file can hold, as its public half says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PublicHalf<'a> {
    /// `(modulus, public exponent)` as DER integer contents.
    Rsa(&'a [u8], &'a [u8]),
    /// The curve and its uncompressed point (starting with 4).
    Ec(Curve, &'a [u8]),
}

/// Splits one tag-length-value off `input`: `(tag, contents, rest)`. Only single-byte tags and
/// definite lengths (what DER allows) are accepted.
fn read_tlv(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let (bytes, rest) = rest.split_at(count);
        let len = bytes
            .iter()
            .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
        (len, rest)
    };
    if rest.len() < len {
        return None;
    }
    let (contents, rest) = rest.split_at(len);
    Some((tag, contents, rest))
}

fn expect(input: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    match read_tlv(input)? {
        (t, contents, rest) if t == tag => Some((contents, rest)),
        _ => None,
    }
}

/// The private key inside a PKCS#8 `PrivateKeyInfo` (for RSA: the PKCS#1 `RSAPrivateKey`).
pub(crate) fn pkcs8_private_key(pkcs8: &[u8]) -> Option<&[u8]> {
    let (info, _) = expect(pkcs8, TAG_SEQUENCE)?;
    let (_version, rest) = expect(info, TAG_INTEGER)?;
    let (_algorithm, rest) = expect(rest, TAG_SEQUENCE)?;
    let (key, _) = expect(rest, TAG_OCTET_STRING)?;
    Some(key)
}

/// What a PKCS#8 `PrivateKeyInfo` holds: RSA (the PKCS#1 key inside) or EC on one of our
/// curves (the SEC1 key inside); `None` for anything else.
pub(crate) fn pkcs8_public_half(pkcs8: &[u8]) -> Option<PublicHalf<'_>> {
    let (info, _) = expect(pkcs8, TAG_SEQUENCE)?;
    let (_version, rest) = expect(info, TAG_INTEGER)?;
    let (algorithm, rest) = expect(rest, TAG_SEQUENCE)?;
    let (key, _) = expect(rest, TAG_OCTET_STRING)?;
    let (oid, parameters) = expect(algorithm, TAG_OID)?;
    if oid == OID_RSA {
        return pkcs1_public_half(key);
    }
    let (curve, _) = expect(parameters, TAG_OID)?;
    (oid == OID_EC).then_some(())?;
    match sec1_public_half(key)? {
        PublicHalf::Ec(found, point) if found.oid() == curve => Some(PublicHalf::Ec(found, point)),
        _ => None,
    }
}

/// The modulus and exponent of a PKCS#1 `RSAPrivateKey` (the fields after its version).
pub(crate) fn pkcs1_public_half(pkcs1: &[u8]) -> Option<PublicHalf<'_>> {
    let (key, _) = expect(pkcs1, TAG_SEQUENCE)?;
    let (_version, rest) = expect(key, TAG_INTEGER)?;
    let (modulus, rest) = expect(rest, TAG_INTEGER)?;
    let (exponent, _) = expect(rest, TAG_INTEGER)?;
    Some(PublicHalf::Rsa(modulus, exponent))
}

/// The public point a SEC1 `ECPrivateKey` carries in its optional `[1]` field, when its curve
/// is one of ours (the one it names, else the one its point's length says). A key without that
/// field has no public half to read.
pub(crate) fn sec1_public_half(sec1: &[u8]) -> Option<PublicHalf<'_>> {
    let (key, _) = expect(sec1, TAG_SEQUENCE)?;
    let (_version, rest) = expect(key, TAG_INTEGER)?;
    let (_scalar, mut rest) = expect(rest, TAG_OCTET_STRING)?;
    let mut named = None;
    if let Some((parameters, after)) = expect(rest, TAG_EC_PARAMETERS) {
        let (curve, _) = expect(parameters, TAG_OID)?;
        named = Some(Curve::from_oid(curve)?);
        rest = after;
    }
    let (public, _) = expect(rest, TAG_EC_PUBLIC_KEY)?;
    let (bits, _) = expect(public, TAG_BIT_STRING)?;
    // No unused bits, then an uncompressed point: what a certificate's key of ours holds.
    let (&0, point) = bits.split_first()? else {
        return None;
    };
    let curve = Curve::ALL
        .into_iter()
        .find(|c| c.point_len() == point.len())?;
    (point.first() == Some(&4) && named.is_none_or(|n| n == curve))
        .then_some(PublicHalf::Ec(curve, point))
}

/// OID contents of P-384, P-521 and Ed25519.
const OID_P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
const OID_P521: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x23];
const OID_ED25519: &[u8] = &[0x2b, 0x65, 0x70];

/// A key's type and size as a person names it (`RSA 2048`, `EC P-256`, `Ed25519`), from a
/// private key's DER and its PEM label (`RSA PRIVATE KEY`: PKCS#1, `EC PRIVATE KEY`: SEC1,
/// `PRIVATE KEY`: PKCS#8); None when it does not parse as that.
pub(crate) fn private_key_kind(label: &str, der: &[u8]) -> Option<String> {
    match label {
        "RSA PRIVATE KEY" => pkcs1_kind(der),
        "EC PRIVATE KEY" => {
            let (key, _) = expect(der, TAG_SEQUENCE)?;
            let (_version, rest) = expect(key, TAG_INTEGER)?;
            let (scalar, rest) = expect(rest, TAG_OCTET_STRING)?;
            match expect(rest, TAG_EC_PARAMETERS) {
                Some((parameters, _)) => curve_kind(expect(parameters, TAG_OID)?.0),
                // No curve named: the scalar's size is all there is to say.
                None => Some(format!("EC {} bits", scalar.len() * 8)),
            }
        }
        "PRIVATE KEY" => {
            let (info, _) = expect(der, TAG_SEQUENCE)?;
            let (_version, rest) = expect(info, TAG_INTEGER)?;
            let (algorithm, rest) = expect(rest, TAG_SEQUENCE)?;
            let (key, _) = expect(rest, TAG_OCTET_STRING)?;
            let (oid, parameters) = expect(algorithm, TAG_OID)?;
            if oid == OID_RSA {
                pkcs1_kind(key)
            } else if oid == OID_EC {
                curve_kind(expect(parameters, TAG_OID)?.0)
            } else if oid == OID_ED25519 {
                Some("Ed25519".into())
            } else {
                Some("unknown key type".into())
            }
        }
        _ => None,
    }
}

/// `RSA <bits>` of a PKCS#1 `RSAPrivateKey`: the modulus's bits.
fn pkcs1_kind(pkcs1: &[u8]) -> Option<String> {
    let (key, _) = expect(pkcs1, TAG_SEQUENCE)?;
    let (_version, rest) = expect(key, TAG_INTEGER)?;
    let (modulus, _) = expect(rest, TAG_INTEGER)?;
    Some(format!("RSA {}", integer_bits(modulus)))
}

fn curve_kind(curve: &[u8]) -> Option<String> {
    Some(match curve {
        c if c == OID_P256 => "EC P-256".into(),
        c if c == OID_P384 => "EC P-384".into(),
        c if c == OID_P521 => "EC P-521".into(),
        _ => "EC on another curve".into(),
    })
}

/// The bits of a positive DER integer's contents (its leading zero bytes and bits not counted).
pub(crate) fn integer_bits(contents: &[u8]) -> usize {
    let significant: &[u8] = match contents.iter().position(|&b| b != 0) {
        Some(first) => &contents[first..],
        None => &[],
    };
    match significant.first() {
        Some(&top) => significant.len() * 8 - top.leading_zeros() as usize,
        None => 0,
    }
}

/// A PKCS#1 `RSAPublicKey` (what a certificate's subjectPublicKey holds for RSA).
pub(crate) fn rsa_public_key(modulus: &[u8], exponent: &[u8]) -> Vec<u8> {
    let mut body = tlv(TAG_INTEGER, modulus);
    body.extend(tlv(TAG_INTEGER, exponent));
    tlv(TAG_SEQUENCE, &body)
}

/// One tag-length-value with a DER length.
fn tlv(tag: u8, contents: &[u8]) -> Vec<u8> {
    let len = contents.len();
    let mut out = vec![tag];
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        let significant = bytes.get(skip..).unwrap_or_default();
        out.push(0x80 | significant.len() as u8);
        out.extend_from_slice(significant);
    }
    out.extend_from_slice(contents);
    out
}

/// `(modulus, public exponent)` of a PKCS#1 `RSAPublicKey`, as DER integer contents (big-endian,
/// two's complement, minimal), which is exactly SSH's `mpint` body.
pub(crate) fn rsa_public_components(pkcs1: &[u8]) -> Option<(&[u8], &[u8])> {
    let (key, _) = expect(pkcs1, TAG_SEQUENCE)?;
    let (modulus, rest) = expect(key, TAG_INTEGER)?;
    let (exponent, _) = expect(rest, TAG_INTEGER)?;
    Some((modulus, exponent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_short_and_long_lengths() {
        assert_eq!(
            read_tlv(&[0x02, 0x01, 0x05]),
            Some((0x02, &[0x05][..], &[][..]))
        );
        let mut long = vec![0x04, 0x81, 0x80];
        long.extend(std::iter::repeat_n(7u8, 0x80));
        long.push(0xff);
        let (tag, contents, rest) = read_tlv(&long).unwrap_or_default();
        assert_eq!((tag, contents.len(), rest), (0x04, 0x80, &[0xff][..]));
    }

    #[test]
    fn rejects_truncated_input() {
        assert_eq!(read_tlv(&[0x30, 0x05, 0x01]), None);
        assert_eq!(read_tlv(&[0x30, 0x82, 0x01]), None);
        assert_eq!(read_tlv(&[0x30]), None);
        assert_eq!(pkcs8_private_key(&[0x30, 0x00]), None);
    }

    #[test]
    fn writes_short_and_long_lengths_that_read_back() {
        for len in [0, 1, 0x7f, 0x80, 0xff, 0x100, 0x1234] {
            let contents = vec![5u8; len];
            let written = tlv(TAG_OCTET_STRING, &contents);
            assert_eq!(
                read_tlv(&written),
                Some((TAG_OCTET_STRING, &contents[..], &[][..]))
            );
        }
    }

    #[test]
    fn a_sec1_key_without_its_public_half_or_on_another_curve_has_none() {
        // SEQUENCE { INTEGER 1, OCTET STRING (1 byte) }: no [1] public key.
        let bare = [0x30, 0x06, 0x02, 0x01, 0x01, 0x04, 0x01, 0x07];
        assert_eq!(sec1_public_half(&bare), None);
        let mut point = vec![0x00, 0x04];
        point.extend([9u8; 64]);
        let public = tlv(TAG_EC_PUBLIC_KEY, &tlv(TAG_BIT_STRING, &point));
        let p384 = [0x2b, 0x81, 0x04, 0x00, 0x22];
        for (curve, found) in [(OID_P256, true), (&p384[..], false)] {
            let mut body = vec![0x02, 0x01, 0x01, 0x04, 0x01, 0x07];
            body.extend(tlv(TAG_EC_PARAMETERS, &tlv(TAG_OID, curve)));
            body.extend(&public);
            let key = tlv(TAG_SEQUENCE, &body);
            assert_eq!(sec1_public_half(&key).is_some(), found);
        }
    }

    #[test]
    fn splits_rsa_public_key() {
        // SEQUENCE { INTEGER 0x00c1, INTEGER 3 }
        let der = [0x30, 0x07, 0x02, 0x02, 0x00, 0xc1, 0x02, 0x01, 0x03];
        assert_eq!(
            rsa_public_components(&der),
            Some((&[0x00, 0xc1][..], &[0x03][..]))
        );
    }
}
