//! RFC 2397 data URLs, as Ignition reads them: base64 or percent-encoded, optionally gzip.

use base64::Engine;
use std::io::Read;

/// The prefix the installer uses for every text file.
pub const TEXT_PREFIX: &str = "data:text/plain;charset=utf-8;base64,";
/// The prefix for bytes that are not UTF-8 text.
pub const BINARY_PREFIX: &str = "data:application/octet-stream;base64,";

/// Encodes bytes as a base64 data URL.
pub fn encode(bytes: &[u8]) -> String {
    let prefix = if std::str::from_utf8(bytes).is_ok() {
        TEXT_PREFIX
    } else {
        BINARY_PREFIX
    };
    let mut out = String::with_capacity(prefix.len() + bytes.len() * 4 / 3 + 4);
    out.push_str(prefix);
    base64::engine::general_purpose::STANDARD.encode_string(bytes, &mut out);
    out
}

/// Why a data URL could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Decodes a `data:` URL; `compression` is the Ignition resource's field (`gzip` or none).
pub fn decode(url: &str, compression: Option<&str>) -> Result<Vec<u8>, DecodeError> {
    let rest = url
        .strip_prefix("data:")
        .ok_or_else(|| DecodeError("is not a data: URL (remote sources are not fetched)".into()))?;
    let (meta, payload) = rest
        .split_once(',')
        .ok_or_else(|| DecodeError("data URL has no ',' before its payload".into()))?;
    let raw = if meta.ends_with(";base64") {
        base64_payload(payload)
            .map_err(|e| DecodeError(format!("data URL base64 does not decode: {e}")))?
    } else {
        percent_decode(payload)?
    };
    match compression {
        None | Some("") => Ok(raw),
        Some("gzip") => {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(raw.as_slice())
                .read_to_end(&mut out)
                .map_err(|e| DecodeError(format!("gzip contents do not decompress: {e}")))?;
            Ok(out)
        }
        Some(other) => Err(DecodeError(format!("unknown compression `{other}`"))),
    }
}

/// A data URL's base64 payload: standard alphabet, padded.
pub(crate) fn base64_payload(payload: &str) -> Result<Vec<u8>, base64::DecodeError> {
    base64::engine::general_purpose::STANDARD.decode(payload.trim())
}

pub(crate) fn percent_decode(text: &str) -> Result<Vec<u8>, DecodeError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| DecodeError(format!("bad percent escape at byte {i}")))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// Gzips `bytes` (deterministically: no name, no mtime).
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    // Writing into a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_text_binary_and_gzip() {
        let url = encode(b"hello\n");
        assert!(url.starts_with(TEXT_PREFIX));
        assert_eq!(decode(&url, None).unwrap(), b"hello\n");
        assert_eq!(encode(b""), TEXT_PREFIX);
        assert!(encode(&[0xff, 0]).starts_with(BINARY_PREFIX));
        let gz = encode(&gzip(b"abc"));
        assert_eq!(decode(&gz, Some("gzip")).unwrap(), b"abc");
    }

    #[test]
    fn decodes_percent_encoding_and_reports_errors() {
        assert_eq!(decode("data:,a%20b", None).unwrap(), b"a b");
        assert!(decode("data:,a%2", None).is_err());
        assert!(decode("https://x/y", None).is_err());
        assert!(decode("data:;base64,@@@", None).is_err());
    }
}
