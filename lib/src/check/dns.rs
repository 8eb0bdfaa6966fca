//! A small DNS client: one A or AAAA question over UDP to the server the user names
//! (`--dns-server`), for split DNS and for tests, asked again over TCP when the reply comes
//! truncated. It reads only what it asked for; anything
//! malformed is an error, never a panic.
//!
//! The messages are written and read by `simple-dns` (one small crate, names with compression
//! pointers read with loop and length limits); this module keeps the socket, the time limit,
//! the one retry and the check that a reply answers our question. `hickory-proto` would do the
//! same with some fifty more crates (idna and its Unicode tables, url, futures, rand, tracing):
//! about a minute more of CI on two cores, for two record types.

use simple_dns::rdata::RData;
use simple_dns::{Name, Packet, PacketFlag, Question, CLASS, RCODE, TYPE};
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

    fn code(self) -> TYPE {
        match self {
            RecordType::A => TYPE::A,
            RecordType::Aaaa => TYPE::AAAA,
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

/// The header's bytes, and the fewest bytes a question or a record takes (a one-byte name):
/// a reply claiming more than its length can hold is refused before it is parsed, so a forged
/// count costs no allocation.
const HEADER_BYTES: usize = 12;
const MIN_QUESTION_BYTES: usize = 5;
const MIN_RECORD_BYTES: usize = 11;

/// The question as sent: header, name, type, class IN, recursion desired.
pub(crate) fn encode_query(id: u16, name: &str, kind: RecordType) -> Result<Vec<u8>, String> {
    let not_a_name = || format!("{name} is not a host name");
    let trimmed = name.trim_end_matches('.');
    if trimmed.split('.').any(str::is_empty) {
        return Err(not_a_name());
    }
    let mut packet = Packet::new_query(id);
    packet.set_flags(PacketFlag::RECURSION_DESIRED);
    packet.questions.push(Question::new(
        Name::new(trimmed).map_err(|_| not_a_name())?,
        kind.code().into(),
        CLASS::IN.into(),
        false,
    ));
    packet.build_bytes_vec().map_err(|_| not_a_name())
}

/// The count at `at` of the header (big-endian), if the reply is that long.
fn count(reply: &[u8], at: usize) -> usize {
    reply
        .get(at..at + 2)
        .map_or(0, |b| usize::from(u16::from_be_bytes([b[0], b[1]])))
}

/// Reads a reply to the question `id` asked about `kind`.
pub(crate) fn decode_reply(id: u16, kind: RecordType, reply: &[u8]) -> Result<Answer, String> {
    let bad = || "a malformed DNS reply".to_string();
    if reply.len() >= 2 && u16::from_be_bytes([reply[0], reply[1]]) != id {
        return Err("a DNS reply to another question".into());
    }
    let records = (6..12).step_by(2).map(|at| count(reply, at)).sum::<usize>();
    let least = HEADER_BYTES + count(reply, 4) * MIN_QUESTION_BYTES + records * MIN_RECORD_BYTES;
    if reply.len() < least {
        return Err(bad());
    }
    let packet = Packet::parse(reply).map_err(|_| bad())?;
    if !packet.has_flags(PacketFlag::RESPONSE) {
        return Err(bad());
    }
    match packet.rcode() {
        RCODE::NoError => {}
        RCODE::NameError => return Ok(Answer::NoSuchName),
        other => return Err(format!("the DNS server answered {}", rcode_name(other))),
    }
    let mut addresses = Vec::new();
    for record in &packet.answers {
        // Other types (a CNAME on the way to the address) are skipped.
        match (kind, &record.rdata) {
            (RecordType::A, RData::A(a)) => addresses.push(IpAddr::V4(Ipv4Addr::from(a.address))),
            (RecordType::Aaaa, RData::AAAA(a)) => {
                addresses.push(IpAddr::V6(Ipv6Addr::from(a.address)))
            }
            _ => {}
        }
    }
    Ok(Answer::Addresses(addresses))
}

fn rcode_name(rcode: RCODE) -> String {
    match rcode {
        RCODE::FormatError => "FORMERR".into(),
        RCODE::ServerFailure => "SERVFAIL".into(),
        RCODE::NotImplemented => "NOTIMP".into(),
        RCODE::Refused => "REFUSED".into(),
        other => format!("rcode {}", other as u16),
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
                    // Cut to fit a datagram: the whole reply is asked for over TCP, as
                    // resolvers do.
                    Ok(_) if is_truncated(&buffer[..n]) => {
                        return ask_over_tcp(server, id, kind, &query, timeout)
                    }
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

/// Whether a reply has its TC (truncated) bit set: the third byte's second-lowest bit.
fn is_truncated(reply: &[u8]) -> bool {
    reply.get(2).is_some_and(|flags| flags & 0x02 != 0)
}

/// The question again over TCP (each message after its two-byte length), the whole exchange
/// within twice `timeout`.
fn ask_over_tcp(
    server: SocketAddr,
    id: u16,
    kind: RecordType,
    query: &[u8],
    timeout: Duration,
) -> Result<Answer, String> {
    use std::io::{Read, Write};
    let failed = |e: std::io::Error| {
        format!(
            "the reply over UDP was truncated, and over TCP: {}",
            super::said::describe_io_error(&e, Some(timeout))
        )
    };
    let started = std::time::Instant::now();
    let mut stream = std::net::TcpStream::connect_timeout(&server, timeout).map_err(failed)?;
    stream
        .set_read_timeout(Some(timeout))
        .and_then(|()| stream.set_write_timeout(Some(timeout)))
        .map_err(failed)?;
    let length = u16::try_from(query.len()).map_err(|_| "the question is too long".to_string())?;
    let mut message = length.to_be_bytes().to_vec();
    message.extend_from_slice(query);
    stream.write_all(&message).map_err(failed)?;
    let mut prefix = [0u8; 2];
    stream.read_exact(&mut prefix).map_err(failed)?;
    let mut reply = vec![0u8; usize::from(u16::from_be_bytes(prefix))];
    let mut at = 0;
    while at < reply.len() {
        if started.elapsed() > timeout * 2 {
            return Err(format!(
                "the reply over UDP was truncated, and over TCP did not arrive within {} s",
                (timeout * 2).as_secs()
            ));
        }
        match stream.read(&mut reply[at..]).map_err(failed)? {
            0 => return Err("the reply over UDP was truncated, and over TCP cut short".into()),
            n => at += n,
        }
    }
    decode_reply(id, kind, &reply)
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

    /// A server that answers over UDP truncated and empty, and over TCP (same port) whole.
    #[test]
    fn a_truncated_reply_is_asked_again_over_tcp() {
        use std::io::{Read, Write};
        let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = tcp.local_addr().unwrap();
        let udp = UdpSocket::bind(address).unwrap();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 512];
            let (n, from) = udp.recv_from(&mut buffer).unwrap();
            let mut cut = reply(&buffer[..n], 0, &[]);
            cut[2] |= 0x02;
            udp.send_to(&cut, from).unwrap();
        });
        std::thread::spawn(move || {
            let (mut stream, _) = tcp.accept().unwrap();
            let mut prefix = [0u8; 2];
            stream.read_exact(&mut prefix).unwrap();
            let mut query = vec![0u8; usize::from(u16::from_be_bytes(prefix))];
            stream.read_exact(&mut query).unwrap();
            let whole = reply(&query, 0, &[[10, 0, 0, 7], [10, 0, 0, 8]]);
            let mut message = (whole.len() as u16).to_be_bytes().to_vec();
            message.extend_from_slice(&whole);
            stream.write_all(&message).unwrap();
        });
        let answer = ask(
            address,
            9,
            "api.example.com",
            RecordType::A,
            Duration::from_secs(5),
        );
        assert_eq!(
            answer,
            Ok(Answer::Addresses(vec![
                "10.0.0.7".parse().unwrap(),
                "10.0.0.8".parse().unwrap()
            ]))
        );
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
        // Counts the reply cannot hold are refused before it is read.
        let mut forged = good.clone();
        forged[6] = 0xff;
        forged[7] = 0xff;
        assert_eq!(
            decode_reply(7, RecordType::A, &forged).unwrap_err(),
            "a malformed DNS reply"
        );
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
