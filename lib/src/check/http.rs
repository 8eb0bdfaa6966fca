//! HTTP/1.1 GET over a connected stream, plain or TLS: enough for a registry's `/v2/` API, a
//! token endpoint and the machine-config server, bounded in size. Redirects are not followed
//! (a redirect to another host would contact a host the configs do not name).

use super::probe::Response;
use std::io::{Read, Write};

/// The most a response may hold (a release payload's manifests layer is read through here).
pub(crate) const MAX_RESPONSE: usize = 96 << 20;

/// Sends the GET and reads the response.
pub(crate) fn get(
    stream: &mut (impl Read + Write),
    host: &str,
    path: &str,
    headers: &[(String, String)],
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
        .map_err(|e| format!("sending the request: {e}"))?;
    let received = read_response(stream)?;
    parse(&received)
}

/// Reads until the response is whole (its length known from the head) or the server closes.
fn read_response(stream: &mut impl Read) -> Result<Vec<u8>, String> {
    let mut received = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    loop {
        if is_complete(&received) {
            return Ok(received);
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
            Err(e) => return Err(format!("reading the response: {e}")),
        }
    }
}

fn head_end(received: &[u8]) -> Option<usize> {
    received
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|at| at + 4)
}

fn header_in<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().skip(1).find_map(|line| {
        let (n, v) = line.split_once(':')?;
        n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

fn is_complete(received: &[u8]) -> bool {
    let Some(end) = head_end(received) else {
        return false;
    };
    let head = String::from_utf8_lossy(&received[..end]);
    let body = &received[end..];
    if let Some(length) = header_in(&head, "content-length").and_then(|l| l.parse::<usize>().ok()) {
        return body.len() >= length;
    }
    if header_in(&head, "transfer-encoding").is_some_and(|t| t.eq_ignore_ascii_case("chunked")) {
        return body.ends_with(b"0\r\n\r\n");
    }
    // No length: a status without a body, or the body runs to the close.
    head.split_whitespace()
        .nth(1)
        .is_some_and(|status| status == "204" || status == "304")
}

/// Parses a whole response: status line, headers, body (de-chunked).
pub(crate) fn parse(received: &[u8]) -> Result<Response, String> {
    let end = head_end(received).ok_or_else(|| {
        if received.is_empty() {
            "the server closed the connection without a response".to_string()
        } else {
            "the server's response is not HTTP".to_string()
        }
    })?;
    let head = String::from_utf8_lossy(&received[..end]);
    let mut lines = head.lines();
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .strip_prefix("HTTP/1.")
        .and_then(|rest| rest.get(2..5))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("the server's response is not HTTP: {status_line:?}"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            Some((name.trim().to_string(), value.trim().to_string()))
        })
        .collect();
    let mut response = Response {
        status,
        headers,
        body: received[end..].to_vec(),
    };
    if let Some(length) = response
        .header("content-length")
        .and_then(|l| l.parse::<usize>().ok())
    {
        if response.body.len() < length {
            return Err(format!(
                "the response ended after {} of {length} bytes",
                response.body.len()
            ));
        }
        response.body.truncate(length);
    } else if response
        .header("transfer-encoding")
        .is_some_and(|t| t.eq_ignore_ascii_case("chunked"))
    {
        response.body = dechunk(&response.body).ok_or("a malformed chunked response")?;
    }
    Ok(response)
}

fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&body[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(body.get(..size)?);
        body = body.get(size + 2..)?;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

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
