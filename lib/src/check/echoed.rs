//! A registry's reply with the credentials the request sent hidden wherever it echoes them, in
//! any spelling a server may quote them in: as sent, JSON-escaped (Go's `encoding/json` also
//! escapes `<`, `>` and `&`) and percent-encoded.

use super::probe::Response;

/// The most a text response may hold for its echoed credentials to be hidden: error and token
/// replies are small; a layer is binary and passed on untouched.
const MAX_SCRUBBED: usize = 1 << 20;

/// `response` with the credentials the request sent hidden wherever the server echoed them
/// (an error that quotes the request's `Authorization`): the header's value, its credentials
/// after the scheme and, for `Basic`, the decoded `user:password` and password, each in every
/// spelling of `spellings`. What a check prints of a response comes from here.
pub(super) fn without_echoed_credentials(
    mut response: Response,
    sent: &[(String, String)],
) -> Response {
    use base64::Engine as _;
    let mut secrets: Vec<String> = Vec::new();
    for (name, value) in sent {
        if !name.eq_ignore_ascii_case("authorization") {
            continue;
        }
        secrets.push(value.clone());
        if let Some((scheme, credentials)) = value.split_once(' ') {
            secrets.push(credentials.to_string());
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(credentials.trim())
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok());
            if let (true, Some(decoded)) = (scheme.eq_ignore_ascii_case("basic"), decoded) {
                if let Some((_, password)) = decoded.split_once(':') {
                    secrets.push(password.to_string());
                }
                secrets.push(decoded);
            }
        }
    }
    // None so short it would hide ordinary words; each in every spelling, longest first.
    secrets.retain(|s| s.len() >= 4);
    let mut secrets: Vec<String> = secrets.iter().flat_map(|s| spellings(s)).collect();
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    secrets.dedup();
    if secrets.is_empty() {
        return response;
    }
    let hide = |text: &str| {
        secrets.iter().fold(text.to_string(), |t, secret| {
            t.replace(secret.as_str(), "<redacted>")
        })
    };
    for (_, value) in &mut response.headers {
        *value = hide(value);
    }
    if response.body.len() <= MAX_SCRUBBED {
        if let Ok(text) = std::str::from_utf8(&response.body) {
            response.body = hide(text).into_bytes();
        }
    }
    response
}

/// `secret` as a reply may quote it: as it is; JSON-escaped, minimally (`\"`, `\\`, control
/// characters) and as Go's `encoding/json` writes it (`<`, `>`, `&` as `\u003c`...); and
/// percent-encoded, every byte outside the unreserved set, with upper- or lower-case hex and a
/// space as `%20` or `+`.
fn spellings(secret: &str) -> Vec<String> {
    // serde_json writes the minimal escapes; Go's `encoding/json` also escapes HTML's three.
    let quoted = serde_json::to_string(secret).unwrap_or_default();
    let json = quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or(secret)
        .to_string();
    let go_json = json
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    let percent = |lower: bool, plus: bool| -> String {
        let mut out = String::with_capacity(secret.len() * 3);
        for byte in secret.bytes() {
            match byte {
                b if b.is_ascii_alphanumeric() || b"-._~".contains(&b) => out.push(b as char),
                b' ' if plus => out.push('+'),
                b if lower => out.push_str(&format!("%{b:02x}")),
                b => out.push_str(&format!("%{b:02X}")),
            }
        }
        out
    };
    let mut all = vec![
        secret.to_string(),
        json,
        go_json,
        percent(false, false),
        percent(true, false),
        percent(false, true),
        percent(true, true),
    ];
    all.sort();
    all.dedup();
    all
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine as _;

    #[test]
    fn credentials_a_server_echoes_are_hidden() {
        // base64("probeuser:SuperSecretPW123")
        let basic = "Basic cHJvYmV1c2VyOlN1cGVyU2VjcmV0UFcxMjM=";
        let sent = vec![("Authorization".to_string(), basic.to_string())];
        let echoed = Response {
            status: 404,
            headers: vec![("X-Echo".into(), basic.into())],
            body: format!(
                r#"{{"message":"you sent {basic}; user probeuser:SuperSecretPW123; pw SuperSecretPW123"}}"#
            )
            .into_bytes(),
        };
        let shown = without_echoed_credentials(echoed, &sent);
        let text = format!("{:?} {}", shown.headers, shown.body_excerpt());
        for secret in ["cHJvYmV1c2Vy", "SuperSecretPW123"] {
            assert!(!text.contains(secret), "{text}");
        }
        assert!(text.contains("<redacted>"), "{text}");
        // Echoed JSON-escaped (as Go writes it) and percent-encoded.
        let basic = format!("Basic {}", STANDARD.encode("probeuser:Pa&ss\"w<rd>9 x"));
        let sent = vec![("Authorization".to_string(), basic)];
        let echoed = Response {
            status: 401,
            headers: Vec::new(),
            body: br#"{"message":"decoded=probeuser:Pa\u0026ss\"w\u003crd\u003e9 x pw=Pa\u0026ss\"w\u003crd\u003e9 x url=Pa%26ss%22w%3Crd%3E9%20x low=Pa%26ss%22w%3crd%3e9+x"}"#.to_vec(),
        };
        let shown = without_echoed_credentials(echoed, &sent).body_excerpt();
        for spelled in ["Pa\\u0026ss", "Pa%26ss", "w%3crd", "rd\\u003e9"] {
            assert!(!shown.contains(spelled), "{spelled} in {shown}");
        }
        assert_eq!(shown.matches("<redacted>").count(), 4, "{shown}");
        // Nothing sent, nothing changed; a binary body is passed on as it came.
        let binary = Response {
            status: 200,
            headers: Vec::new(),
            body: vec![0xff, 0x00, b'S'],
        };
        let kept = without_echoed_credentials(binary.clone(), &sent);
        assert_eq!(kept.body, binary.body);
    }

    #[test]
    fn json_spellings_are_escaped_inside_not_at_the_ends() {
        let all = spellings("tab\there<\"");
        for expected in [r#"tab\there<\""#, r#"tab\there\u003c\""#] {
            assert!(
                all.iter().any(|s| s == expected),
                "{expected} not in {all:?}"
            );
        }
    }
}
