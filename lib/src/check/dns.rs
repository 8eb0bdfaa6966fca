//! A small DNS client: one A or AAAA question over UDP to the server the user names
//! (`--dns-server`), for split DNS and for tests. It reads only what it asked for; anything
//! malformed is an error, never a panic.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};
use std::time::Duration;

/// The record types asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RecordType {
    /// IPv4 addresses.
    A,
    /// IPv6 addresses.
    Aaaa,
}

impl RecordType {
    /// The type's name in DNS (`A`, `AAAA`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            RecordType::A => "A",
            RecordType::Aaaa => "AAAA",
        }
    }

    fn code(self) -> u16 {
        match self {
            RecordType::A => 1,
            RecordType::Aaaa => 28,
        }
    }
}

/// A server's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    /// The addresses of the asked type (possibly none: the name exists without them).
    Addresses(Vec<IpAddr>),
    /// NXDOMAIN.
    NoSuchName,
}

const RCODE_NXDOMAIN: u8 = 3;

/// The question as sent: header, name, type, class IN, recursion desired.
pub(crate) fn encode_query(id: u16, name: &str, kind: RecordType) -> Result<Vec<u8>, String> {
    let mut packet = Vec::with_capacity(32 + name.len());
    packet.extend_from_slice(&id.to_be_bytes());
    packet.extend_from_slice(&[0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
    for label in name.trim_end_matches('.').split('.') {
        if label.is_empty() || label.len() > 63 {
            return Err(format!("{name} is not a host name"));
        }
        packet.push(label.len() as u8);
        packet.extend_from_slice(label.as_bytes());
    }
    packet.push(0);
    packet.extend_from_slice(&kind.code().to_be_bytes());
    packet.extend_from_slice(&1u16.to_be_bytes());
    Ok(packet)
}

/// Reads a reply to the question `id` asked about `kind`.
pub(crate) fn decode_reply(id: u16, kind: RecordType, reply: &[u8]) -> Result<Answer, String> {
    let bad = || "a malformed DNS reply".to_string();
    let word = |at: usize| -> Result<u16, String> {
        let bytes = reply.get(at..at + 2).ok_or_else(bad)?;
        Ok(u16::from_be_bytes([bytes[0], bytes[1]]))
    };
    if word(0)? != id {
        return Err("a DNS reply to another question".into());
    }
    let flags = word(2)?;
    if flags & 0x8000 == 0 {
        return Err(bad());
    }
    let rcode = (flags & 0x000f) as u8;
    if rcode == RCODE_NXDOMAIN {
        return Ok(Answer::NoSuchName);
    }
    if rcode != 0 {
        return Err(format!("the DNS server answered {}", rcode_name(rcode)));
    }
    let questions = word(4)?;
    let answers = word(6)?;
    let mut at = 12;
    for _ in 0..questions {
        at = skip_name(reply, at).ok_or_else(bad)? + 4;
    }
    let mut addresses = Vec::new();
    for _ in 0..answers {
        at = skip_name(reply, at).ok_or_else(bad)?;
        let record_type = word(at)?;
        let length = usize::from(word(at + 8)?);
        let data = reply.get(at + 10..at + 10 + length).ok_or_else(bad)?;
        at += 10 + length;
        if record_type != kind.code() {
            continue; // a CNAME on the way to the address
        }
        match (kind, data.len()) {
            (RecordType::A, 4) => addresses.push(IpAddr::V4(Ipv4Addr::new(
                data[0], data[1], data[2], data[3],
            ))),
            (RecordType::Aaaa, 16) => {
                let mut octets = [0u8; 16];
                octets.copy_from_slice(data);
                addresses.push(IpAddr::V6(Ipv6Addr::from(octets)));
            }
            _ => return Err(bad()),
        }
    }
    Ok(Answer::Addresses(addresses))
}

/// The offset after a (possibly compressed) name starting at `at`.
fn skip_name(packet: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let length = *packet.get(at)?;
        match length {
            0 => return Some(at + 1),
            l if l & 0xc0 == 0xc0 => return Some(at + 2).filter(|end| *end <= packet.len()),
            l if l & 0xc0 == 0 => at += 1 + usize::from(l),
            _ => return None,
        }
    }
}

fn rcode_name(rcode: u8) -> String {
    match rcode {
        1 => "FORMERR".into(),
        2 => "SERVFAIL".into(),
        4 => "NOTIMP".into(),
        5 => "REFUSED".into(),
        other => format!("rcode {other}"),
    }
}

/// Asks `server` once, retrying once on silence; each wait is bounded by `timeout`.
pub(crate) fn ask(
    server: SocketAddr,
    id: u16,
    name: &str,
    kind: RecordType,
    timeout: Duration,
) -> Result<Answer, String> {
    let query = encode_query(id, name, kind)?;
    let local: SocketAddr = if server.is_ipv4() {
        (Ipv4Addr::UNSPECIFIED, 0).into()
    } else {
        (Ipv6Addr::UNSPECIFIED, 0).into()
    };
    let socket = UdpSocket::bind(local).map_err(|e| e.to_string())?;
    socket
        .connect(server)
        .and_then(|()| socket.set_read_timeout(Some(timeout)))
        .map_err(|e| e.to_string())?;
    let mut buffer = [0u8; 1500];
    for _attempt in 0..2 {
        socket.send(&query).map_err(|e| e.to_string())?;
        loop {
            match socket.recv(&mut buffer) {
                // A stray reply to an earlier attempt is skipped; any other answer is final.
                Ok(n) => match decode_reply(id, kind, &buffer[..n]) {
                    Err(e) if e.contains("another question") => continue,
                    answer => return answer,
                },
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    break
                }
                Err(e) => return Err(e.to_string()),
            }
        }
    }
    Err(format!(
        "no answer from {server} within {} s (asked twice)",
        timeout.as_secs()
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A reply to `query` with the given rcode and A records, the name compressed.
    fn reply(query: &[u8], rcode: u8, records: &[[u8; 4]]) -> Vec<u8> {
        let mut packet = query.to_vec();
        packet[2] = 0x81;
        packet[3] = 0x80 | rcode;
        packet[7] = records.len() as u8;
        for record in records {
            packet.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4]);
            packet.extend_from_slice(record);
        }
        packet
    }

    #[test]
    fn answers_and_nxdomain_are_read() {
        let query = encode_query(7, "api.example.com", RecordType::A).unwrap();
        let answer = decode_reply(7, RecordType::A, &reply(&query, 0, &[[10, 0, 0, 5]])).unwrap();
        assert_eq!(answer, Answer::Addresses(vec!["10.0.0.5".parse().unwrap()]));
        let none = decode_reply(7, RecordType::A, &reply(&query, 3, &[])).unwrap();
        assert_eq!(none, Answer::NoSuchName);
        let refused = decode_reply(7, RecordType::A, &reply(&query, 5, &[])).unwrap_err();
        assert!(refused.contains("REFUSED"), "{refused}");
    }

    #[test]
    fn truncated_or_foreign_replies_are_errors() {
        let query = encode_query(7, "api.example.com", RecordType::A).unwrap();
        let good = reply(&query, 0, &[[10, 0, 0, 5]]);
        for cut in 0..good.len() {
            assert!(
                decode_reply(7, RecordType::A, &good[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        assert!(decode_reply(8, RecordType::A, &good).is_err());
        // Damage anywhere is an answer or an error, never a panic.
        for at in 0..good.len() {
            for byte in [0u8, 0x3f, 0xc0, 0xff] {
                let mut damaged = good.clone();
                damaged[at] = byte;
                let _ = decode_reply(7, RecordType::A, &damaged);
                let _ = decode_reply(7, RecordType::Aaaa, &damaged);
            }
        }
        assert!(encode_query(1, "a..b", RecordType::A).is_err());
    }
}
