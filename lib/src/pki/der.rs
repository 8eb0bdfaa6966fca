//! The few DER structures the PKI takes apart by hand: a PKCS#8 wrapper around a PKCS#1 RSA
//! key, and the modulus/exponent of a PKCS#1 RSA public key (for the SSH wire format).

const TAG_INTEGER: u8 = 0x02;
const TAG_OCTET_STRING: u8 = 0x04;
const TAG_SEQUENCE: u8 = 0x30;

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
    fn splits_rsa_public_key() {
        // SEQUENCE { INTEGER 0x00c1, INTEGER 3 }
        let der = [0x30, 0x07, 0x02, 0x02, 0x00, 0xc1, 0x02, 0x01, 0x03];
        assert_eq!(
            rsa_public_components(&der),
            Some((&[0x00, 0xc1][..], &[0x03][..]))
        );
    }
}
