//! HTTP/1.1 GET over a connected stream, plain or TLS: enough for a registry's `/v2/` API, a
//! token endpoint and the machine-config server, bounded in size. One request, one response:
//! a registry's redirect of a blob is followed by the payload reader (`redirect.rs`), as the
//! node follows it.
//!
//! The response's head and chunk sizes are parsed by `httparse` (no allocation, a fixed number
//! of headers); this module keeps only what a client on someone else's connection must do
//! itself: write the request, read within [`MAX_RESPONSE`] until the length the head gives, and
//! join the chunks. A whole client (`ureq` 3) would want to open the connection itself, while
//! `check` connects to the address it resolved and keeps the certificate it was shown.

use super::probe::Response;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

/// The most a response may hold (a release payload's manifests layer is read through here).
pub(crate) const MAX_RESPONSE: usize = 96 << 20;

/// The most headers a response may have; a registry sends about a dozen.
const MAX_HEADERS: usize = 64;

/// How much of a response must arrive in each time limit after the first: a server that sends
/// less (a byte every few seconds) is cut off, however long its response says it is.
const BYTES_PER_LIMIT: usize = 1 << 20;

/// An I/O error as a person reads it: a read or write that timed out is "no answer within
/// N s", not the system's "Resource temporarily unavailable".
pub(crate) fn describe_io_error(e: &std::io::Error, limit: Option<Duration>) -> String {
    match (e.kind(), limit) {
        (std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut, Some(limit)) => {
            format!("no answer within {} s", limit.as_secs().max(1))
        }
        (std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut, None) => {
            "no answer within the time limit".to_string()
        }
        _ => e.to_string(),
    }
}

/// Sends the GET and reads the response, all of it within `limit` and one more `limit` for each
/// [`BYTES_PER_LIMIT`] received.
pub(crate) fn get(
    stream: &mut (impl Read + Write),
    host: &str,
    path: &str,
    headers: &[(String, String)],
    limit: Duration,
) -> Result<Response, String> {
    let mut request = format!(
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: bootgen-check\r\nConnection: close\r\n"
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream
        .write_all(request.as_bytes())
        .and_then(|()| stream.flush())
        .map_err(|e| {
            format!(
                "sending the request: {}",
                describe_io_error(&e, Some(limit))
            )
        })?;
    let received = read_response(stream, limit)?;
    parse(&received)
}

/// Reads until the response is whole (its length known from the head) or the server closes,
/// within the time [`get`] allows (each read is bounded by the socket's own limit too).
fn read_response(stream: &mut impl Read, limit: Duration) -> Result<Vec<u8>, String> {
    let started = Instant::now();
    let mut received = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    loop {
        if is_complete(&received) {
            return Ok(received);
        }
        let allowed = limit.saturating_mul(1 + (received.len() / BYTES_PER_LIMIT) as u32);
        if started.elapsed() > allowed {
            return Err(format!(
                "the response did not arrive in time: {} bytes in {} s (a response must come at {} MiB every {} s)",
                received.len(),
                started.elapsed().as_secs(),
                BYTES_PER_LIMIT >> 20,
                limit.as_secs().max(1)
            ));
        }
        match stream.read(&mut buffer) {
            Ok(0) => return Ok(received),
            Ok(n) => {
                received.extend_from_slice(&buffer[..n]);
                if received.len() > MAX_RESPONSE {
                    return Err(format!("the response is larger than {MAX_RESPONSE} bytes"));
                }
            }
            // Servers often close without TLS's close_notify: what came is the response.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !received.is_empty() => {
                return Ok(received)
            }
            Err(e) => {
                return Err(format!(
                    "reading the response: {}",
                    describe_io_error(&e, Some(limit))
                ))
            }
        }
    }
}

/// A response's head: status, headers, and where the body starts.
struct Head {
    status: u16,
    headers: Vec<(String, String)>,
    body_start: usize,
}

impl Head {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn content_length(&self) -> Option<usize> {
        self.header("content-length").and_then(|l| l.parse().ok())
    }

    fn chunked(&self) -> bool {
        self.header("transfer-encoding")
            .is_some_and(|t| t.eq_ignore_ascii_case("chunked"))
    }
}

/// The head, once it has all come (`Ok(None)` before); an error for what is no HTTP response.
fn head(received: &[u8]) -> Result<Option<Head>, String> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut response = httparse::Response::new(&mut headers);
    let body_start = match response.parse(received) {
        Ok(httparse::Status::Complete(length)) => length,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => {
            return Err(format!("the response has more than {MAX_HEADERS} headers"))
        }
        Err(e) => return Err(format!("the server's response is not HTTP ({e})")),
    };
    Ok(Some(Head {
        status: response.code.unwrap_or_default(),
        headers: response
            .headers
            .iter()
            .map(|h| {
                let value = String::from_utf8_lossy(h.value).trim().to_string();
                (h.name.to_string(), value)
            })
            .collect(),
        body_start,
    }))
}

fn is_complete(received: &[u8]) -> bool {
    let Ok(Some(head)) = head(received) else {
        // Incomplete, or damaged: reading on to the close or the size limit decides.
        return false;
    };
    let body = &received[head.body_start..];
    if let Some(length) = head.content_length() {
        return body.len() >= length;
    }
    if head.chunked() {
        // The walk is only worth it once the last chunk may have come.
        return body.ends_with(b"0\r\n\r\n") && dechunk(body).is_some();
    }
    // No length: a status without a body, or the body runs to the close.
    head.status == 204 || head.status == 304
}

/// Parses a whole response: status line, headers, body (de-chunked).
pub(crate) fn parse(received: &[u8]) -> Result<Response, String> {
    let head = head(received)?.ok_or_else(|| {
        if received.is_empty() {
            "the server closed the connection without a response".to_string()
        } else {
            "the server's response is not HTTP, or ends inside its head".to_string()
        }
    })?;
    let mut body = received[head.body_start..].to_vec();
    if let Some(length) = head.content_length() {
        if body.len() < length {
            return Err(format!(
                "the response ended after {} of {length} bytes",
                body.len()
            ));
        }
        body.truncate(length);
    } else if head.chunked() {
        body = dechunk(&body).ok_or("a malformed chunked response")?;
    }
    Ok(Response {
        status: head.status,
        headers: head.headers,
        body,
    })
}

/// The chunks of a chunked body joined, once the last (empty) chunk has come.
fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let (used, size) = match httparse::parse_chunk_size(body).ok()? {
            httparse::Status::Complete(found) => found,
            httparse::Status::Partial => return None,
        };
        let size = usize::try_from(size).ok()?;
        body = &body[used..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(body.get(..size)?);
        body = body.get(size..)?.strip_prefix(b"\r\n")?;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A server that sends its head, then a byte at a time, slowly.
    struct Drip {
        sent: Vec<u8>,
        at: usize,
        pause: Duration,
    }

    impl Read for Drip {
        fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
            std::thread::sleep(self.pause);
            let head_end = self.sent.len().min(38);
            let end = if self.at < head_end {
                head_end
            } else {
                self.at + 1
            };
            let end = end.min(self.sent.len());
            let n = (end - self.at).min(buffer.len());
            buffer[..n].copy_from_slice(&self.sent[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn a_response_that_drips_is_cut_off_and_a_silent_one_named() {
        let mut drip = Drip {
            sent: b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"
                .iter()
                .copied()
                .chain(std::iter::repeat_n(b' ', 100_000))
                .collect(),
            at: 0,
            pause: Duration::from_millis(20),
        };
        let error = read_response(&mut drip, Duration::from_millis(200)).unwrap_err();
        assert!(error.contains("did not arrive in time"), "{error}");
        assert!(drip.at < 1000, "read {} bytes", drip.at);
        let timed_out = std::io::Error::from(std::io::ErrorKind::WouldBlock);
        assert_eq!(
            describe_io_error(&timed_out, Some(Duration::from_secs(5))),
            "no answer within 5 s"
        );
    }

    #[test]
    fn lengths_and_chunks_are_read() {
        let plain = parse(b"HTTP/1.1 401 Unauthorized\r\nWww-Authenticate: Basic realm=\"x\"\r\nContent-Length: 5\r\n\r\nhello").unwrap();
        assert_eq!(plain.status, 401);
        assert_eq!(plain.header("www-authenticate"), Some("Basic realm=\"x\""));
        assert_eq!(plain.body, b"hello");
        let chunked =
            parse(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
                .unwrap();
        assert_eq!(chunked.body, b"abcde");
        assert!(parse(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort").is_err());
        assert!(parse(b"SSH-2.0-OpenSSH\r\n\r\n").is_err());
        assert!(parse(b"").is_err());
        let crowded = format!(
            "HTTP/1.1 200 OK\r\n{}Content-Length: 0\r\n\r\n",
            "X-A: b\r\n".repeat(MAX_HEADERS)
        );
        let refused = parse(crowded.as_bytes()).unwrap_err();
        assert!(refused.contains("more than 64 headers"), "{refused}");
    }

    #[test]
    fn any_cut_or_damage_of_a_response_is_an_answer_or_an_error() {
        let whole: &[u8] = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nDate: Fri, 27 Nov 2026 02:31:18 GMT\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        for cut in 0..whole.len() {
            let _ = parse(&whole[..cut]);
            let _ = is_complete(&whole[..cut]);
            for byte in [0u8, b'\r', b'\n', b':', b'f', 0xff] {
                let mut damaged = whole.to_vec();
                damaged[cut] = byte;
                let _ = parse(&damaged);
                let _ = is_complete(&damaged);
            }
        }
    }
}
