//! RFC 2397 data URLs, as Ignition reads them: base64 or percent-encoded, optionally gzip.

use base64::Engine;
use std::io::{Read, Write};

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

/// The most bytes a compressed resource may expand to when it is read into memory. A node's
/// file in a config is at most a few MiB; gzip expands up to about 1000 times, so a config of a
/// few MiB could otherwise make any reader hold gigabytes.
pub const MAX_DECOMPRESSED: u64 = 64 << 20;

/// Decodes a `data:` URL; `compression` is the Ignition resource's field (`gzip` or none).
/// Compressed contents that expand beyond [`MAX_DECOMPRESSED`] are refused.
pub fn decode(url: &str, compression: Option<&str>) -> Result<Vec<u8>, DecodeError> {
    let mut out = Vec::new();
    decode_into(url, compression, &mut out, MAX_DECOMPRESSED)?;
    Ok(out)
}

/// Decodes a `data:` URL into `out` as a stream, and returns how many bytes it wrote. Compressed
/// contents are refused once they expand beyond `limit` (what was written until then stays
/// written); contents stored as they are cost no more than the config already holds.
pub fn decode_into(
    url: &str,
    compression: Option<&str>,
    out: &mut dyn Write,
    limit: u64,
) -> Result<u64, DecodeError> {
    let raw = payload_bytes(url)?;
    let written_error = |e: std::io::Error| DecodeError(format!("cannot write its contents: {e}"));
    match compression {
        None | Some("") => {
            out.write_all(&raw).map_err(written_error)?;
            Ok(raw.len() as u64)
        }
        Some("gzip") => {
            let mut decoder = flate2::read::GzDecoder::new(raw.as_slice()).take(limit + 1);
            let written = copy(&mut decoder, out)?;
            if written > limit {
                return Err(too_large(raw.len() as u64, limit));
            }
            Ok(written)
        }
        Some(other) => Err(DecodeError(format!("unknown compression `{other}`"))),
    }
}

/// The first `n` bytes (at most) a `data:` URL decodes to, decompressing no further.
pub fn peek(url: &str, compression: Option<&str>, n: u64) -> Result<Vec<u8>, DecodeError> {
    let mut raw = payload_bytes(url)?;
    match compression {
        None | Some("") => {
            raw.truncate(usize::try_from(n).unwrap_or(usize::MAX));
            Ok(raw)
        }
        Some("gzip") => {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(raw.as_slice())
                .take(n)
                .read_to_end(&mut out)
                .map_err(|e| DecodeError(format!("gzip contents do not decompress: {e}")))?;
            Ok(out)
        }
        Some(other) => Err(DecodeError(format!("unknown compression `{other}`"))),
    }
}

/// The bytes of a `data:` URL's payload, still compressed if they are.
fn payload_bytes(url: &str) -> Result<Vec<u8>, DecodeError> {
    let rest = url
        .strip_prefix("data:")
        .ok_or_else(|| DecodeError("is not a data: URL (remote sources are not fetched)".into()))?;
    let (meta, payload) = rest
        .split_once(',')
        .ok_or_else(|| DecodeError("data URL has no ',' before its payload".into()))?;
    if meta.ends_with(";base64") {
        base64_payload(payload)
            .map_err(|e| DecodeError(format!("data URL base64 does not decode: {e}")))
    } else {
        percent_decode(payload)
    }
}

/// Copies a decompressing reader into `out`, telling a corrupt stream from a failed write.
fn copy(reader: &mut dyn Read, out: &mut dyn Write) -> Result<u64, DecodeError> {
    let mut buffer = [0u8; 64 * 1024];
    let mut written = 0u64;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => return Ok(written),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(DecodeError(format!("gzip contents do not decompress: {e}"))),
        };
        out.write_all(&buffer[..n])
            .map_err(|e| DecodeError(format!("cannot write its contents: {e}")))?;
        written += n as u64;
    }
}

/// The refusal of contents that expand beyond `limit` from `compressed` bytes.
fn too_large(compressed: u64, limit: u64) -> DecodeError {
    DecodeError(format!(
        "gzip contents expand to more than {} MiB from {compressed} compressed bytes: refused as a decompression bomb",
        limit >> 20
    ))
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

    #[test]
    fn refuses_contents_that_expand_beyond_the_limit() {
        let zeros = vec![0u8; 4 << 20];
        let url = encode(&gzip(&zeros));
        let mut out = Vec::new();
        let err = decode_into(&url, Some("gzip"), &mut out, 1 << 20).unwrap_err();
        assert!(err.0.contains("more than 1 MiB"), "{err}");
        assert!(err.0.contains("decompression bomb"), "{err}");
        assert!(out.len() <= (1 << 20) + 64 * 1024, "{}", out.len());
        let mut sink = std::io::sink();
        assert_eq!(
            decode_into(&url, Some("gzip"), &mut sink, 4 << 20).unwrap(),
            4 << 20
        );
        assert_eq!(peek(&url, Some("gzip"), 10).unwrap(), vec![0u8; 10]);
    }
}
