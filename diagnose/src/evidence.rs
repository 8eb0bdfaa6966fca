//! A line of a bundle file that shows something: what a cause rests on, what a person reads.

use serde::Serialize;

/// A line of a bundle file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// The file, relative to the bundle's top directory.
    pub file: String,
    /// 1-based line number.
    pub line: u64,
    /// The line (trimmed, and cut at 400 characters).
    pub text: String,
}

/// `line` with the credentials a log line can carry hidden (`<redacted>`): a URL's
/// `user:password@` (`docker://user:pw@registry/...`), the values of JSON keys that hold
/// secrets (`"auth"`, `"password"`, `"identitytoken"`, `"token"`), `Bearer` and `Basic`
/// tokens, the values of credential flags (`podman pull --creds user:pw`, `--password=...`,
/// a `login`'s `-p`) and of `NAME=value` and `name: value` words whose name says secret
/// (`REGISTRY_PASSWORD=...`, `password: '...'`). A diagnosis is read
/// and pasted into tickets; the line is evidence without them.
pub fn hide_credentials(line: &str) -> String {
    let line = hide_url_user_info(line);
    let line = hide_json_secrets(&line);
    let line = hide_authorization_tokens(&line);
    hide_credential_words(&line)
}

/// Flags whose value is a credential, as podman, skopeo and oc take them.
const CREDENTIAL_FLAGS: &[&str] = &[
    "--creds",
    "--password",
    "--token",
    "--registry-token",
    "--identity-token",
    "--src-creds",
    "--dest-creds",
];

/// Endings of a variable's name (`REGISTRY_PASSWORD`, `AWS_SECRET_ACCESS_KEY`) that say its
/// value is a secret: the one list, for the evidence here and for bootgen's redaction of
/// environment assignments.
const SECRET_NAME_ENDINGS: &[&str] = &[
    "password",
    "passwd",
    "token",
    "secret",
    "secret_key",
    "access_key",
    "api_key",
    "apikey",
    "private_key",
];

/// True when a variable or `NAME=value` word named `name` holds a secret (by its ending, in
/// any case).
pub fn is_secret_variable(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_NAME_ENDINGS.iter().any(|e| lower.ends_with(e))
}

/// The values of credential flags (`--creds X`, `--creds=X`) and of secret `NAME=value` words,
/// word by word: linear in the line.
fn hide_credential_words(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut hide_next = false;
    // `-p` is a password only to a `login` (`podman login -p PW`); elsewhere (`mkdir -p`,
    // `ssh -p 22`) it is not, and hiding it would hide evidence.
    let mut login = false;
    for word in line.split_inclusive(char::is_whitespace) {
        let body = word.trim_end();
        let blank = &word[body.len()..];
        if body.is_empty() {
            out.push_str(word);
            continue;
        }
        if std::mem::take(&mut hide_next) {
            out.push_str(HIDDEN);
            out.push_str(blank);
            continue;
        }
        login |= body == "login";
        // `password: VALUE` (YAML, or a program's own words) as `password=VALUE`.
        let named_key = body
            .strip_suffix(':')
            .map(|name| name.trim_start_matches(['"', '\'', '(', '{']))
            .is_some_and(|name| !name.starts_with('-') && is_secret_variable(name));
        if CREDENTIAL_FLAGS.contains(&body) || (login && body == "-p") || named_key {
            hide_next = true;
            out.push_str(word);
            continue;
        }
        let secret_value_at = body.split_once('=').and_then(|(name, value)| {
            let name = name
                .trim_start_matches(['"', '\'', '('])
                .to_ascii_lowercase();
            let flag = CREDENTIAL_FLAGS.iter().any(|f| name == *f);
            let named = !name.starts_with('-') && is_secret_variable(&name);
            let reference = value.starts_with(['$', '/']) || value.is_empty();
            ((flag || named) && !reference).then(|| body.len() - value.len())
        });
        match secret_value_at {
            Some(at) => {
                out.push_str(&body[..at]);
                out.push_str(HIDDEN);
                out.push_str(blank);
            }
            None => out.push_str(word),
        }
    }
    out
}

const HIDDEN: &str = "<redacted>";

fn hide_url_user_info(line: &str) -> String {
    replace_url_user_info(line, |_| HIDDEN.to_string())
}

/// `text` with the user info of every URL in it (`scheme://USER:PASSWORD@host`) replaced by
/// what `hide` makes of it: the one place that finds where a URL's user info is, for the
/// evidence here and for bootgen's own redaction (which shows a digest instead).
pub fn replace_url_user_info(text: &str, hide: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (before, after) = rest.split_at(at + 3);
        out.push_str(before);
        let end = after
            .find(|c: char| c.is_whitespace() || "/?#\"'<>,;`()[]{}|\\".contains(c))
            .unwrap_or(after.len());
        match after[..end]
            .rfind('@')
            .or_else(|| sign_past_cut_password(after, end))
        {
            Some(sign) if sign > 0 => {
                out.push_str(&hide(&after[..sign]));
                rest = &after[sign..];
            }
            _ => rest = after,
        }
    }
    out.push_str(rest);
    out
}

/// Where the `@` after a password holding `/`, `?` or `#` is (`http://user:pa/ss@host`): such a
/// URL is malformed (they must be percent-encoded), but people write it, and its authority,
/// cut at that character, reads `user:pa` with no `@`. Taken when what follows the authority's
/// `:` is no port number and an `@` comes before the URL ends.
fn sign_past_cut_password(after: &str, authority_end: usize) -> Option<usize> {
    let authority = &after[..authority_end];
    let (_, port) = authority.rsplit_once(':')?;
    if authority.starts_with('[') || port.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let url_end = after
        .find(|c: char| c.is_whitespace() || "\"'<>`".contains(c))
        .unwrap_or(after.len());
    match after[authority_end..url_end].find('@') {
        Some(at) => Some(authority_end + at),
        // The text ends inside the authority (a log line cut at its length limit after
        // `user:pass`): all of it.
        None if authority_end == after.len() => Some(after.len()),
        None => None,
    }
}

fn hide_json_secrets(line: &str) -> String {
    const KEYS: &[&str] = &["\"auth\"", "\"password\"", "\"identitytoken\"", "\"token\""];
    let mut out = line.to_string();
    for key in KEYS {
        let mut shown = String::with_capacity(out.len());
        let mut rest = out.as_str();
        // Lower-cased once (ASCII only, so at the same offsets): a line with many keys is read
        // once, not once a key.
        let lower = out.to_ascii_lowercase();
        let mut lower_rest = lower.as_str();
        while let Some(at) = lower_rest.find(key) {
            let (before, after) = rest.split_at(at + key.len());
            shown.push_str(before);
            let value_at = after
                .find(|c: char| c != ' ' && c != ':')
                .filter(|i| after[..*i].contains(':') && after[*i..].starts_with('"'));
            let Some(open) = value_at else {
                lower_rest = &lower_rest[at + key.len()..];
                rest = after;
                continue;
            };
            shown.push_str(&after[..=open]);
            let value = &after[open + 1..];
            // The value runs to its closing quote, or to the end of a line cut short.
            let end = value.find('"').unwrap_or(value.len());
            shown.push_str(HIDDEN);
            let consumed = rest.len() - value[end..].len();
            lower_rest = &lower_rest[consumed..];
            rest = &value[end..];
        }
        shown.push_str(rest);
        out = shown;
    }
    out
}

fn hide_authorization_tokens(line: &str) -> String {
    replace_authorization_tokens(line, |_| HIDDEN.to_string())
}

/// `text` with the token of every `Bearer TOKEN` and `Basic CREDENTIALS` (HTTP authorization
/// headers) replaced by what `hide` makes of it: the one place that finds them, for the
/// evidence here and for bootgen's own redaction. A token, not prose ("Bearer
/// authentication"): eight characters or more, some digit or punctuation among them.
pub fn replace_authorization_tokens(text: &str, hide: impl Fn(&str) -> String) -> String {
    let mut out = text.to_string();
    for scheme in ["Bearer ", "Basic "] {
        let mut shown = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(scheme) {
            let (before, after) = rest.split_at(at + scheme.len());
            shown.push_str(before);
            let end = after
                .find(|c: char| c.is_whitespace() || "\"'<>,;`\\".contains(c))
                .unwrap_or(after.len());
            let token = &after[..end];
            let looks_like_token = token.len() >= 8
                && token
                    .chars()
                    .any(|c| c.is_ascii_digit() || "+/=._-".contains(c));
            if looks_like_token {
                shown.push_str(&hide(token));
                rest = &after[end..];
            } else {
                rest = after;
            }
        }
        shown.push_str(rest);
        out = shown;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_a_log_line_are_hidden_and_the_rest_kept() {
        let line = r#"initializing source docker://deploy:S3cretPassw0rd@mirror.lab:8443/ocp/release@sha256:4f1e: {"auths":{"mirror.lab:8443":{"auth":"ZGVwbG95OlMzY3JldA==","email":"a@b"}}} Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.x"#;
        let shown = hide_credentials(line);
        for secret in [
            "S3cretPassw0rd",
            "deploy:",
            "ZGVwbG95OlMzY3JldA",
            "eyJhbGciOiJSUzI1NiJ9",
        ] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(
            shown.contains("docker://<redacted>@mirror.lab:8443/ocp/release@sha256:4f1e"),
            "{shown}"
        );
        assert!(shown.contains(r#""auth":"<redacted>""#), "{shown}");
        // A line cut short inside a secret hides the rest of it.
        assert_eq!(
            hide_credentials(r#"{"auth":"ZGVwbG95"#),
            r#"{"auth":"<redacted>"#
        );
        let plain = "Pull of release image mirror.lab:8443/ocp/release@sha256:4f1e failed";
        assert_eq!(hide_credentials(plain), plain);
        // Credential flags and secret NAME=value words; references and other flags kept.
        let flags = "+ podman pull --creds deploy:Pw1 --authfile=/root/a.json --password=Pw2 \
                     x REGISTRY_PASSWORD=Pw3 PULL_SECRET=/root/ps.json --token Tk4 --tls-verify=false";
        let shown = hide_credentials(flags);
        for secret in ["Pw1", "Pw2", "Pw3", "Tk4"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        for kept in [
            "--authfile=/root/a.json",
            "PULL_SECRET=/root/ps.json",
            "--tls-verify=false",
        ] {
            assert!(shown.contains(kept), "{kept} not in {shown}");
        }
        assert!(shown.contains("--creds <redacted> "), "{shown}");
        // Basic credentials, a login's -p, a `password:` word; -p and ports elsewhere kept.
        let lines = [
            "error: GET /v2/: Authorization: Basic ZGVwbG95OlN1cGVyU2VjcmV0MQ== refused",
            "error: podman login -p TopSecretPw4 -u deploy mirror.lab:8443",
            "error: registry password: 'QuotedSecret5' rejected",
            "+ curl http://deploy:Pa/Secret99@mirror.lab:8443/v2/",
            "initializing source docker://deploy:Pa#Secret99@mirror.lab:8443/ocp",
            // Cut at the length limit before the `@`.
            "initializing source docker://deploy:Secret99",
        ];
        for line in lines {
            let shown = hide_credentials(line);
            for secret in [
                "ZGVwbG95OlN1cGVy",
                "TopSecretPw4",
                "QuotedSecret5",
                "Secret99",
            ] {
                assert!(!shown.contains(secret), "{secret} in {shown}");
            }
        }
        for kept in [
            "+ mkdir -p /etc/kubernetes/manifests",
            "ssh -p 22 core@api-int.ocp.example.com",
            "https://api-int.ocp.example.com:6443/readyz?timeout=5s@x",
            "docker://quay.io/openshift/ocp@sha256:4f1e",
        ] {
            assert_eq!(hide_credentials(kept), kept);
        }
        // Many keys in one line, some in capitals: each value hidden, the rest as it was.
        let many = r#"{"Auth":"c2VjcmV0","x":1},"#.repeat(1000);
        let shown = hide_credentials(&many);
        assert!(!shown.contains("c2VjcmV0"));
        assert_eq!(shown.matches(r#""Auth":"<redacted>","x":1"#).count(), 1000);
    }
}
