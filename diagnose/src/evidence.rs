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
    // Every error line of a bundle passes here (gigabytes of journal): each finder runs only
    // when what it looks for can be in the line.
    let mut line = line.to_string();
    if line.contains("://") {
        line = hide_url_user_info(&line);
    }
    let lower = line.to_ascii_lowercase();
    if ["auth", "password", "token"]
        .iter()
        .any(|k| lower.contains(k))
    {
        line = hide_json_secrets(&line, &lower);
    }
    if line.contains("Bearer ") || line.contains("Basic ") {
        line = hide_authorization_tokens(&line);
    }
    if line.contains(PRIVATE_KEY_OPENING) {
        line = hide_private_key_blocks(&line);
    }
    let line = hide_credential_words(&replace_curl_user_passwords(&line, |_| HIDDEN.to_string()));
    if line.contains("sha256~") || line.contains("eyJ") || has_kubeadmin_password(&line) {
        return hide_token_words(&line);
    }
    line
}

/// The end of a PEM private key's BEGIN line (and of its END line).
const PRIVATE_KEY_OPENING: &str = "PRIVATE KEY-----";

/// The body of a PEM private key written on one line (`-----BEGIN RSA PRIVATE KEY----- MII...
/// -----END RSA PRIVATE KEY-----`), to its end marker or the end of the line.
fn hide_private_key_blocks(line: &str) -> String {
    const OPENING: &str = PRIVATE_KEY_OPENING;
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find(OPENING) {
        let body_at = at + OPENING.len();
        out.push_str(&rest[..body_at]);
        let body = &rest[body_at..];
        let end = body.find("-----END").unwrap_or(body.len());
        out.push_str(if body[..end].trim().is_empty() {
            &body[..end]
        } else {
            HIDDEN
        });
        rest = &body[end..];
        // The end marker names PRIVATE KEY too: step past it.
        if let Some(close) = rest.find(OPENING) {
            out.push_str(&rest[..close + OPENING.len()]);
            rest = &rest[close + OPENING.len()..];
        }
    }
    out.push_str(rest);
    out
}

/// Words that are credentials by their shape, whatever names them: an OpenShift OAuth token
/// (`sha256~...`), a JSON Web Token or other base64-encoded JSON object (`eyJ...`: service
/// account tokens, a registry's `X-Registry-Auth`), and a kubeadmin password (four groups of
/// five letters and digits).
fn hide_token_words(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for word in line.split_inclusive(|c: char| c.is_whitespace() || "\"'`,;()[]{}<>=".contains(c)) {
        let body =
            word.trim_end_matches(|c: char| c.is_whitespace() || "\"'`,;()[]{}<>=".contains(c));
        let sep = &word[body.len()..];
        if let Some(at) = body.find("sha256~").filter(|at| body.len() > at + 7) {
            out.push_str(&body[..at + 7]);
            out.push_str(HIDDEN);
        } else if is_encoded_json(body) || is_kubeadmin_password(body) {
            out.push_str(HIDDEN);
        } else {
            out.push_str(body);
        }
        out.push_str(sep);
    }
    out
}

/// `eyJ` is how base64 of `{"` begins: a token or credential object of 16 characters or more.
fn is_encoded_json(word: &str) -> bool {
    word.starts_with("eyJ")
        && word.len() >= 16
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+/_-.=".contains(&b))
}

/// Whether a word of `line` has the form of a kubeadmin password: a byte scan, for the lines
/// that have none.
fn has_kubeadmin_password(line: &str) -> bool {
    let bytes = line.as_bytes();
    bytes.windows(23).enumerate().any(|(at, w)| {
        w[5] == b'-'
            && (at == 0 || !bytes[at - 1].is_ascii_alphanumeric())
            && bytes
                .get(at + 23)
                .is_none_or(|b| !b.is_ascii_alphanumeric())
            && is_kubeadmin_password(std::str::from_utf8(w).unwrap_or_default())
    })
}

/// `xxxxx-xxxxx-xxxxx-xxxxx`, the form of the installer's kubeadmin password.
fn is_kubeadmin_password(word: &str) -> bool {
    word.len() == 23
        && word.split('-').count() == 4
        && word
            .split('-')
            .all(|g| g.len() == 5 && g.bytes().all(|b| b.is_ascii_alphanumeric()))
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
    // `DB_PASS`, `SMTP_PASS`: only after `_` (or the whole name), so `BYPASS` stays shown.
    "_pass",
    // `MYSQL_PWD`: only after `_`, so the shell's `PWD` and `OLDPWD` (directories) stay shown.
    "_pwd",
    // A kubeconfig's `client-key-data` (a private key in base64).
    "key-data",
    // The header a registry client sends credentials in (`X-Registry-Auth`).
    "registry-auth",
];

/// True when a variable or `NAME=value` word named `name` holds a secret (by its ending, in
/// any case).
pub fn is_secret_variable(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "pass" || SECRET_NAME_ENDINGS.iter().any(|e| lower.ends_with(e))
}

/// `text` with the password of each `curl` credential (`curl -u user:password`, `--user
/// user:password`, `--user=...`, `-suser:password`) replaced by what `hide` makes of it; the
/// user stays shown. Only in a line that runs `curl`: `-u` means a user (`podman run -u
/// 1000:1000`) or a unit (`journalctl -u`) to other commands. The one place that finds it, for
/// the evidence here and for bootgen's own redaction.
pub fn replace_curl_user_passwords(
    text: &str,
    hide: impl Fn(&str) -> String,
) -> std::borrow::Cow<'_, str> {
    let runs_curl = |word: &str| {
        let word = word.trim_start_matches(['"', '\'', '(', '`']);
        word == "curl" || word.ends_with("/curl")
    };
    // Most lines name no curl: they are returned as they are, not copied.
    if !text.contains("curl") || !text.split_whitespace().any(runs_curl) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let (mut after_flag, mut in_curl) = (false, false);
    let mut offset = 0;
    for word in text.split_inclusive(char::is_whitespace) {
        let at = offset;
        offset += word.len();
        let body = word.trim_end();
        if body.is_empty() || at < copied {
            continue;
        }
        // Where the credential starts in `text`: after `-u`, `--user=`, or the `u` closing a
        // cluster of short flags (`-su`).
        let value_at = if std::mem::take(&mut after_flag) {
            Some(at)
        } else if !in_curl {
            None
        } else if body == "--user" || body == "-u" {
            after_flag = true;
            None
        } else if body.starts_with("--user=") {
            Some(at + "--user=".len())
        } else if body.starts_with('-') && !body.starts_with("--") {
            match body[1..].find('u') {
                Some(u) if body[1..=u].bytes().all(|b| b.is_ascii_alphabetic()) => {
                    after_flag = u + 2 == body.len();
                    (!after_flag).then_some(at + u + 2)
                }
                _ => None,
            }
        } else {
            None
        };
        in_curl |= runs_curl(body);
        let Some(value_at) = value_at else {
            continue;
        };
        // A quoted credential runs to its closing quote, blanks and all; any other to a blank.
        let quote = text[value_at..]
            .chars()
            .next()
            .filter(|c| *c == '"' || *c == '\'');
        let inner_at = value_at + quote.map_or(0, char::len_utf8);
        let inner_end = match quote {
            Some(q) => text[inner_at..]
                .find(q)
                .map_or(text.len(), |e| inner_at + e),
            None => at + body.len(),
        };
        let Some(colon) = text[inner_at..inner_end].find(':') else {
            continue;
        };
        let password = &text[inner_at + colon + 1..inner_end];
        if password.is_empty() || password.starts_with('$') {
            continue;
        }
        out.push_str(&text[copied..inner_at + colon + 1]);
        out.push_str(&hide(password));
        copied = inner_end;
    }
    out.push_str(&text[copied..]);
    std::borrow::Cow::Owned(out)
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

/// How a JSON key's quotes and colon can be spelled in a log line: as JSON has them, escaped
/// inside another JSON string (`{\"auth\":\"...\"}`), and percent-encoded in a data URL
/// (`%22auth%22%3A%22...%22`, matched in any case).
const JSON_SPELLINGS: [(&str, &str); 3] = [("\"", ":"), ("\\\"", ":"), ("%22", "%3a")];

/// `line`'s JSON secret values hidden; `lower` is `line` in lower case (ASCII).
fn hide_json_secrets(line: &str, lower: &str) -> String {
    const KEYS: &[&str] = &["auth", "password", "identitytoken", "token"];
    let mut out = line.to_string();
    for (quote, colon) in JSON_SPELLINGS {
        for key in KEYS {
            // Values are only taken out, so a key absent from the line as given stays absent.
            let name = format!("{quote}{key}{quote}");
            if lower.contains(&name) {
                out = hide_json_values(&out, &name, quote, colon);
            }
        }
    }
    out
}

/// `line` with the string value of every `name` (a key with its quotes, lower case) hidden,
/// where `quote` and `colon` are spelled as in `name`. A value runs to its closing quote, or to
/// the end of a line cut short.
fn hide_json_values(line: &str, name: &str, quote: &str, colon: &str) -> String {
    let mut shown = String::with_capacity(line.len());
    let mut rest = line;
    // Lower-cased once (ASCII only, so at the same offsets): a line with many keys is read
    // once, not once a key.
    let lower = line.to_ascii_lowercase();
    let mut lower_rest = lower.as_str();
    while let Some(at) = lower_rest.find(name) {
        let after_name = at + name.len();
        let (before, _) = rest.split_at(after_name);
        shown.push_str(before);
        let tail = &lower_rest[after_name..];
        let spaced = tail.len() - tail.trim_start_matches(' ').len();
        let value_at = tail[spaced..].strip_prefix(colon).and_then(|t| {
            let spaced_value = t.len() - t.trim_start_matches(' ').len();
            t[spaced_value..]
                .starts_with(quote)
                .then(|| tail.len() - t.len() + spaced_value + quote.len())
        });
        let Some(open) = value_at else {
            lower_rest = &lower_rest[after_name..];
            rest = &rest[after_name..];
            continue;
        };
        shown.push_str(&rest[after_name..after_name + open]);
        let value_lower = &lower_rest[after_name + open..];
        let end = value_lower.find(quote).unwrap_or(value_lower.len());
        shown.push_str(HIDDEN);
        let consumed = after_name + open + end;
        lower_rest = &lower_rest[consumed..];
        rest = &rest[consumed..];
    }
    shown.push_str(rest);
    shown
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
    fn a_curl_credentials_password_is_hidden_and_its_user_kept() {
        for (line, shown) in [
            (
                "curl -u admin:hunter2 https://h/x",
                "curl -u admin:<redacted> https://h/x",
            ),
            (
                "/usr/bin/curl --user 'admin:hunter 2' -k",
                "/usr/bin/curl --user 'admin:<redacted>' -k",
            ),
            (
                "curl --user \"admin:hunter2\" -k",
                "curl --user \"admin:<redacted>\" -k",
            ),
            (
                "curl --user=admin:hunter2 -k",
                "curl --user=admin:<redacted> -k",
            ),
            (
                "curl -sSu admin:hunter2 https://h/x",
                "curl -sSu admin:<redacted> https://h/x",
            ),
            ("curl -uadmin:hunter2 h", "curl -uadmin:<redacted> h"),
            ("DB_PASS=hunter2 run", "DB_PASS=<redacted> run"),
        ] {
            assert_eq!(hide_credentials(line), shown, "{line}");
        }
        for line in [
            "curl -u admin https://h/prompted",
            "curl -u admin:$PASSWORD https://h/x",
            "podman run -u 1000:1000 image",
            "journalctl -u kubelet.service:1",
            "echo curl; sort -u a:b",
            "BYPASS=1 COMPASS=north",
        ] {
            assert_eq!(hide_credentials(line), line, "{line}");
        }
    }

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
        // Secrets spelled other ways: a pull secret in a percent-encoded data URL and escaped
        // inside another JSON string, a kubeconfig's key, an OAuth token, a registry's
        // credential header, a private key on one line, a kubeadmin password.
        let lines = [
            "error: failed to apply data:,%7B%22auths%22%3A%7B%22quay.io%22%3A%7B%22auth%22%3A%22VVJMRU5DU0VDUkVU%3D%3D%22%7D%7D%7D",
            r#"E0101 error parsing {\"auths\":{\"x\":{\"auth\":\"RVNDQVBFRFNFQ1JFVDU=\"}}}"#,
            "error loading config: client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkt",
            "using token sha256~T0kenSecretValue3abc for the request",
            "X-Registry-Auth: eyJ1c2VybmFtZSI6InUiLCJwYXNzd29yZCI6InAifQ== rejected",
            "key: -----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn -----END RSA PRIVATE KEY-----",
            "kubeadmin password is PASSW-ORDSE-CRET4-abcde",
        ];
        for line in lines {
            let shown = hide_credentials(line);
            for secret in [
                "VVJMRU5DU0VDUkVU",
                "RVNDQVBFRFNFQ1JFVDU",
                "LS0tLS1CRUdJTiBSU0Eg",
                "T0kenSecretValue3abc",
                "eyJ1c2VybmFtZSI6",
                "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn",
                "PASSW-ORDSE-CRET4-abcde",
            ] {
                assert!(!shown.contains(secret), "{secret} in {shown}");
            }
            assert!(shown.contains(HIDDEN), "{shown}");
        }
        assert!(
            hide_credentials(lines[5]).ends_with("-----END RSA PRIVATE KEY-----"),
            "{}",
            hide_credentials(lines[5])
        );
        for kept in [
            "image quay.io/openshift@sha256:4f1e2d and sha256~ alone",
            "-----BEGIN PRIVATE KEY-----",
            "uid 2c4e8a1f-1b2c-4d5e-8f90-123456789abc created",
            "pod openshift-etcd/etcd-bootstrap-member-abcde-fghij ready",
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
