//! HTTP/1.1 GET over a connected stream, plain or TLS: enough for a registry's `/v2/` API, a
//! token endpoint and the machine-config server, bounded in size and time. One request, one
//! response: a registry's redirect of a blob is followed by the payload reader (`redirect.rs`),
//! as the node follows it.
//!
//! The response's head and chunk sizes are parsed by `httparse` (no allocation, a fixed number
//! of headers); this module keeps only what a client on someone else's connection must do
//! itself: write the request, read until the length the head gives, within [`MAX_HEAD`] for the
//! head and the body's limit for what was asked ([`Asked`]), before the exchange's deadline,
//! and join the chunks. A whole client (`ureq` 3) would want to open the connection itself,
//! while `check` connects to the address it resolved and keeps the certificate it was shown.

use super::deadline::Deadline;
use super::probe::{Asked, Response, MAX_HEAD};
use super::said::describe_io_error;
use std::io::{Read, Write};

/// The most headers a response may have; a registry sends about a dozen.
const MAX_HEADERS: usize = 64;

/// Sends the GET and reads the response, before the deadline and within the limits of what
/// is asked.
pub(crate) fn get(
    stream: &mut (impl Read + Write),
    host: &str,
    path: &str,
    headers: &[(String, String)],
    asked: Asked,
    deadline: Deadline,
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
                describe_io_error(&e, Some(deadline.allowed()))
            )
        })?;
    let received = read_response(stream, asked, deadline)?;
    parse(&received)
}

/// Reads until the response is whole (its length known from the head) or the server closes,
/// before the deadline (which each read of a [`super::deadline::Bounded`] socket keeps too).
fn read_response(
    stream: &mut impl Read,
    asked: Asked,
    deadline: Deadline,
) -> Result<Vec<u8>, String> {
    let mut received = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    loop {
        if is_complete(&received, asked)? {
            return Ok(received);
        }
        if deadline.left().is_err() {
            return Err(late(&received, deadline));
        }
        match stream.read(&mut buffer) {
            Ok(0) => return Ok(received),
            Ok(n) => received.extend_from_slice(&buffer[..n]),
            // Servers often close without TLS's close_notify: what came is the response.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !received.is_empty() => {
                return Ok(received)
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) && !received.is_empty() =>
            {
                return Err(late(&received, deadline))
            }
            Err(e) => {
                return Err(format!(
                    "reading the response: {}",
                    describe_io_error(&e, Some(deadline.allowed()))
                ))
            }
        }
    }
}

/// A response cut off at the deadline, said with what had come.
fn late(received: &[u8], deadline: Deadline) -> String {
    format!(
        "the response did not arrive in time: {} bytes before the exchange's {} s were up",
        received.len(),
        deadline.allowed().as_secs().max(1)
    )
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

/// Whether the whole response has come; an error once the head or the body is larger than
/// its limit, or the head says it will be.
fn is_complete(received: &[u8], asked: Asked) -> Result<bool, String> {
    let head = match head(received) {
        Ok(Some(head)) => head,
        // Incomplete, or damaged: reading on to the close or the head's limit decides.
        Ok(None) | Err(_) if received.len() <= MAX_HEAD => return Ok(false),
        Ok(None) | Err(_) => {
            return Err(format!(
            "the response's head is larger than {} KiB (no end of headers in the first {} bytes)",
            MAX_HEAD >> 10,
            received.len()
        ))
        }
    };
    let body = &received[head.body_start..];
    let limit = asked.body_limit();
    let what = match asked {
        Asked::Status => "a status or API answer",
        Asked::Manifest => "an image manifest",
        Asked::Config => "an Ignition config",
        Asked::Blob => "a blob",
    };
    let too_large = |announced: Option<usize>| {
        let limit = format!("the {} MiB {what} may hold", limit >> 20);
        match announced {
            Some(length) => {
                format!("the response announces a body of {length} bytes, more than {limit}")
            }
            None => format!("the response's body is larger than {limit}"),
        }
    };
    if let Some(length) = head.content_length() {
        if length > limit {
            return Err(too_large(Some(length)));
        }
        return Ok(body.len() >= length);
    }
    if body.len() > limit + (limit >> 4) {
        // Chunk sizes add a little to the body: a sixteenth more than the limit is past it.
        return Err(too_large(None));
    }
    if head.chunked() {
        // The walk is only worth it once the last chunk may have come.
        return Ok(body.ends_with(b"0\r\n\r\n") && dechunk(body).is_some());
    }
    // No length: a status without a body, or the body runs to the close.
    Ok(head.status == 204 || head.status == 304)
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
    use std::time::Duration;

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
        let deadline = Deadline::after(Duration::from_millis(200));
        let error = read_response(&mut drip, Asked::Config, deadline).unwrap_err();
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
            let _ = is_complete(&whole[..cut], Asked::Status);
            for byte in [0u8, b'\r', b'\n', b':', b'f', 0xff] {
                let mut damaged = whole.to_vec();
                damaged[cut] = byte;
                let _ = parse(&damaged);
                let _ = is_complete(&damaged, Asked::Status);
            }
        }
    }

    /// A server that sends `head`, then `fill` without end, as fast as it is read.
    struct Endless {
        head: Vec<u8>,
        fill: u8,
        sent: usize,
    }

    impl Read for Endless {
        fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
            for byte in buffer.iter_mut() {
                *byte = self.head.get(self.sent).copied().unwrap_or(self.fill);
                self.sent += 1;
            }
            Ok(buffer.len())
        }
    }

    #[test]
    fn an_endless_head_or_body_stops_at_its_limit() {
        let deadline = || Deadline::after(Duration::from_secs(30));
        let mut head = Endless {
            head: b"HTTP/1.1 200 OK\r\nX-Long: ".to_vec(),
            fill: b'a',
            sent: 0,
        };
        let error = read_response(&mut head, Asked::Blob, deadline()).unwrap_err();
        assert!(error.contains("head is larger than 64 KiB"), "{error}");
        assert!(
            head.sent < MAX_HEAD + (64 << 10),
            "read {} bytes",
            head.sent
        );

        let mut chunks = Endless {
            head: b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec(),
            fill: b'7',
            sent: 0,
        };
        let error = read_response(&mut chunks, Asked::Manifest, deadline()).unwrap_err();
        assert!(
            error.contains("body is larger than the 4 MiB an image manifest may hold"),
            "{error}"
        );
        assert!(chunks.sent < 5 << 20, "read {} bytes", chunks.sent);

        let mut announced = Endless {
            head: b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n".to_vec(),
            fill: b' ',
            sent: 0,
        };
        let error = read_response(&mut announced, Asked::Status, deadline()).unwrap_err();
        assert!(
            error.contains("announces a body of 99999999999 bytes, more than the 1 MiB"),
            "{error}"
        );
        assert!(announced.sent < 64 << 10, "read {} bytes", announced.sent);
    }
}
