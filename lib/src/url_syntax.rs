//! What makes a URL fail to parse where Ignition, the installer and the node read it (Go's URL
//! parser): shared by the checks of Ignition sources, of `bootgen pointer`'s URL and of the
//! install-config's proxies, so that each refuses what the others refuse.

/// Hides `user:password@` in a URL before it goes into a message: everything before its last
/// `@` but the scheme, also when the scheme is missing or mistyped (`user:pw@host`,
/// `http:/user:pw@host`), which are the URLs a message is about.
pub(crate) fn redact_userinfo(url: &str) -> String {
    let Some(at) = url.rfind('@') else {
        return url.to_string();
    };
    match url.find("://") {
        Some(scheme) if scheme < at => format!("{}://***@{}", &url[..scheme], &url[at + 1..]),
        _ => format!("***@{}", &url[at + 1..]),
    }
}

/// What makes `url` (`scheme://...`) fail to parse where Ignition parses it (Go's URL parser):
/// a `%` without two hexadecimal digits, user info with a character it may not hold, a host
/// with a space or another character a host name may not hold, an IPv6 host without its `]`, a
/// port that is not a number. `None` when it parses, or has no `://`.
pub(crate) fn parse_problem(url: &str) -> Option<String> {
    // Go's parser leaves the query as it is written: its escapes are not checked.
    let (before_fragment, fragment) = url.split_once('#').unwrap_or((url, ""));
    let before_query = before_fragment.split('?').next().unwrap_or_default();
    for part in [before_query, fragment] {
        if let Some(why) = escape_problem(part) {
            return Some(why);
        }
    }
    let (_, after_scheme) = url.split_once("://")?;
    let authority = after_scheme
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    if let Some((user_info, _)) = authority.rsplit_once('@') {
        let valid = |c: char| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c);
        if !user_info.chars().all(valid) {
            return Some("has a character its user info may not hold".into());
        }
    }
    let (host, port) = host_and_port(url);
    if let Some(c) = host
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || "<>\"{}|\\^`".contains(*c))
    {
        return Some(format!(
            "has {c:?} in its host, which a host name may not hold"
        ));
    }
    if host.starts_with('[') && !host.ends_with(']') {
        return Some("has an IPv6 address without its closing `]`".into());
    }
    match port {
        // An `@` further on: most likely a password holding `/`, `?` or `#`, which cut the
        // authority short; the "port" is part of it and is not shown.
        Some(port) if !port.is_empty() && port.parse::<u16>().is_err() && after_scheme.contains('@') => {
            Some("has no port number after its host's `:`; if it holds a user and password, write `/`, `?`, `#` and `@` in them as %2F, %3F, %23 and %40".into())
        }
        Some(port) if !port.is_empty() && port.parse::<u16>().is_err() => {
            Some(format!("has `:{port}` where a port goes"))
        }
        _ => None,
    }
}

/// `url` after `scheme://`, the scheme in any case (`HTTP://` is `http://`, as Go's URL parser,
/// the installer and HTTP clients read it).
pub(crate) fn strip_scheme<'a>(url: &'a str, scheme: &str) -> Option<&'a str> {
    let (given, rest) = url.split_once("://")?;
    given.eq_ignore_ascii_case(scheme).then_some(rest)
}

/// `host:port` as a URL writes it: an IPv6 address in brackets (`[fd00::5]:22623`).
pub(crate) fn host_port(host: &str, port: u16) -> String {
    if host.parse::<std::net::Ipv6Addr>().is_ok() {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// The host (`[...]` kept for IPv6) and the port of a `scheme://` URL, without user info.
pub(crate) fn host_and_port(url: &str) -> (&str, Option<&str>) {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = after_scheme
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host_port.starts_with('[') {
        return match host_port.split_once(']') {
            Some((v6, port)) => (
                &host_port[..v6.len() + 1],
                port.strip_prefix(':')
                    .or((!port.is_empty()).then_some(port)),
            ),
            None => (host_port, None),
        };
    }
    match host_port.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (host_port, None),
    }
}

/// A `%` in `text` not followed by two hexadecimal digits.
fn escape_problem(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(i) = rest.find('%') {
        let digits = rest.get(i + 1..i + 3).unwrap_or_default();
        if digits.len() != 2 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Some("has a `%` that is not followed by two hexadecimal digits".into());
        }
        rest = &rest[i + 3..];
    }
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn host_port_brackets_an_ipv6_address_only() {
        assert_eq!(super::host_port("fd00::5", 22623), "[fd00::5]:22623");
        assert_eq!(super::host_port("192.0.2.5", 22623), "192.0.2.5:22623");
        assert_eq!(
            super::host_port("api-int.c.example.com", 6443),
            "api-int.c.example.com:6443"
        );
    }

    use super::parse_problem;

    /// As Ignition's validator decides (each checked with ignition-validate): the query is not
    /// checked, the path, host and fragment are.
    #[test]
    fn escapes_are_checked_where_gos_parser_checks_them() {
        assert_eq!(parse_problem("https://h/a?x=%zz"), None);
        for bad in [
            "https://h/a#%zz",
            "https://h/a%zz",
            "https://h%zz/a",
            "s3://bucket/a%zz",
        ] {
            assert!(parse_problem(bad).is_some(), "{bad}");
        }
    }
}
