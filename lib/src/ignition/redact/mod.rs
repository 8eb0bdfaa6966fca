//! Secrets out of what a person reads: the one place where `diff`, `diff --objects`, `inspect`
//! and the golden view (and their JSON forms) hide a Secret's `data` and `stringData`, pull
//! secrets, passwords and password hashes, bearer tokens, kubeconfig client keys and tokens and
//! the credentials in URLs (`http://user:pass@proxy`), the values of secret environment
//! variables (`REGISTRY_PASSWORD=...`), and the Wi-Fi, 802.1X, WireGuard and MACsec secrets of
//! NetworkManager keyfiles. A hidden value is shown as a marker, with a short digest where a
//! change must stay visible (`<redacted hmac:1a2b>`, keyed anew by each process, so it tells a
//! changed secret from an unchanged one and nothing about either).

mod env;
mod keyfile;
mod lines;

use serde_json::Value;

/// How a hidden value is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Redact {
    /// A marker with a short digest (`<redacted hmac:1a2b>`): a diff still says which secret
    /// changed.
    WithDigest,
    /// A marker alone (`<redacted>`): for views that must read the same for every run of the
    /// same install-config (the golden view, the objects view) and that are committed.
    Marker,
}

/// Hex digits a digest keeps: four (16 bits) still show a changed secret as changed (two
/// different values share a digest once in 65536).
const DIGEST_HEX: usize = 4;

/// The key of every digest this process shows: random, made once. Within one run a digest still
/// says whether two secrets are the same, which is all a diff needs; without the key nobody can
/// check a guess against it. (An unkeyed SHA-256 of a vCenter password and of its base64 form,
/// both in one diff, gave 32 bits that left one candidate of a 27,000-word list.)
fn digest_key() -> &'static aws_lc_rs::hmac::Key {
    static KEY: std::sync::OnceLock<aws_lc_rs::hmac::Key> = std::sync::OnceLock::new();
    KEY.get_or_init(|| {
        let mut bytes = [0u8; 32];
        // aws-lc's generator does not fail on Linux; were it to, the key would be all zeros and
        // the digest merely unkeyed, as it was before.
        let _ = aws_lc_rs::rand::fill(&mut bytes);
        aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, &bytes)
    })
}

/// The short keyed digest of a secret (`hmac:1a2b`), the same for the same secret within this
/// process and unrelated across processes.
pub(crate) fn digest(secret: &[u8]) -> String {
    let tag = aws_lc_rs::hmac::sign(digest_key(), secret);
    let hex = base16ct::lower::encode_string(tag.as_ref());
    format!("hmac:{}", &hex[..DIGEST_HEX])
}

/// Keys whose values are secrets wherever they appear (compared lowercase): registry
/// credentials of a pull secret, passwords, tokens, client keys.
const SECRET_KEYS: &[&str] = &[
    "auth",
    "email",
    "pullsecret",
    ".dockerconfigjson",
    ".dockercfg",
    "client-key-data",
    "identitytoken",
    "registrytoken",
    "clientsecret",
    "client-secret",
];

/// Endings of keys that name a secret (`password`, `vcenter.example.com.password`,
/// `passwordHash`, `token`, `bearerToken`).
const SECRET_KEY_ENDINGS: &[&str] = &["password", "passwordhash", "token"];

/// True when the value under `key` is a secret.
pub(crate) fn is_secret_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    SECRET_KEYS.contains(&key.as_str()) || SECRET_KEY_ENDINGS.iter().any(|e| key.ends_with(e))
}

/// True when a scalar under `key` is a secret: a secret key's, or a name that ends as a secret
/// variable's does (`secret_access_key`, `client_secret`, `apiKey`, `db_pass`), in YAML and
/// JSON as in environment assignments. Only a scalar: a map under such a key (a pod's `secret:`
/// volume, a MachineSet's `credentialsSecret: {name: ...}`) names Secrets, it holds none.
pub(crate) fn is_secret_scalar_key(key: &str) -> bool {
    is_secret_key(key) || bootgen_diagnose::is_secret_variable(key)
}

/// The JSON of `value` for the `Debug` of a public type that holds secrets (an embedder's
/// `{:?}` in a log): the secrets a person's view hides are hidden, PEM blocks (private keys)
/// summarized, and data URLs (an Ignition file's contents, keys among them) shown by their
/// length alone.
pub(crate) fn for_debug(value: &impl serde::Serialize) -> String {
    fn shorten(value: &mut Value) {
        match value {
            Value::Object(map) => map.values_mut().for_each(shorten),
            Value::Array(items) => items.iter_mut().for_each(shorten),
            Value::String(text) if text.starts_with("data:") => {
                *text = format!("<data URL, {} bytes>", text.len());
            }
            Value::String(text) if text.contains("-----BEGIN ") => {
                *text = crate::ignition::view::summarize_pem(text);
            }
            _ => {}
        }
    }
    let Ok(mut value) = serde_json::to_value(value) else {
        return "<not shown>".into();
    };
    Redact::Marker.json(&mut value);
    shorten(&mut value);
    value.to_string()
}

/// True when `value` is a registry pull secret (`{"auths": {...}}`).
pub(crate) fn is_pull_secret(value: &Value) -> bool {
    value.get("auths").is_some_and(Value::is_object)
}

/// True when a Secret's value is certificates only (PEM, or base64 of PEM, as in `tls.crt`):
/// public, so shown as the certificates they are.
pub(crate) fn is_certificates(value: &str) -> bool {
    use base64::Engine as _;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(value.trim())
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok());
    let text = decoded.as_deref().unwrap_or(value).trim();
    text.starts_with("-----BEGIN ")
        && text.matches("-----BEGIN ").count()
            == text.matches("-----BEGIN CERTIFICATE-----").count()
}

impl Redact {
    /// How a hidden `secret` is shown: `<label hmac:1a2b>` or `<label>`.
    pub(crate) fn shown(self, label: &str, secret: &[u8]) -> String {
        match self {
            Redact::WithDigest => format!("<{label} {}>", digest(secret)),
            Redact::Marker => format!("<{label}>"),
        }
    }

    /// A text for a person with its secrets hidden, then its PEM blocks and long base64 runs
    /// summarized, as `diff` shows it.
    pub(crate) fn text(self, text: &str) -> String {
        crate::ignition::view::summarize_pem(&self.secrets(text))
    }

    /// A text with its secrets hidden: a JSON document value by value (pretty-printed when it
    /// was on several lines), anything else line by line (YAML, kubeconfigs, scripts, units).
    pub(crate) fn secrets(self, text: &str) -> String {
        let trimmed = text.trim();
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            if let Ok(mut value) = serde_json::from_str::<Value>(trimmed) {
                if !self.json(&mut value) {
                    return text.to_string();
                }
                let shown = if trimmed.contains('\n') {
                    serde_json::to_string_pretty(&value)
                } else {
                    serde_json::to_string(&value)
                };
                let mut shown = shown.unwrap_or_else(|_| self.shown("redacted", text.as_bytes()));
                if text.ends_with('\n') {
                    shown.push('\n');
                }
                return shown;
            }
        }
        if keyfile::is_keyfile(text) {
            return keyfile::redact(self, text);
        }
        lines::redact(self, text)
    }

    /// Hides the secrets inside `value` in place (a Secret's data, a pull secret's registries,
    /// values under secret keys, credentials inside strings); true when it hid any.
    fn json(self, value: &mut Value) -> bool {
        match value {
            Value::Object(map) => {
                let is_secret = map.get("kind").and_then(Value::as_str) == Some("Secret");
                let mut changed = false;
                for (key, item) in map.iter_mut() {
                    let every_value = (is_secret && (key == "data" || key == "stringData"))
                        || (key == "auths" && item.is_object());
                    changed |= match item {
                        Value::Object(entries) if every_value => {
                            entries.values_mut().fold(false, |c, v| self.hide(v) | c)
                        }
                        _ if every_value || is_secret_key(key) => self.hide(item),
                        // Not a secret key (the arm above): a scalar named as a secret variable.
                        Value::String(_) | Value::Number(_)
                            if bootgen_diagnose::is_secret_variable(key) =>
                        {
                            self.hide(item)
                        }
                        _ => self.json(item),
                    };
                }
                changed
            }
            Value::Array(items) => items.iter_mut().fold(false, |c, v| self.json(v) | c),
            Value::String(text) => {
                let shown = self.secrets(text);
                let changed = shown != *text;
                *text = shown;
                changed
            }
            _ => false,
        }
    }

    /// Replaces a secret value by its marker; nothing to hide in an empty one, nor in
    /// certificates.
    fn hide(self, value: &mut Value) -> bool {
        let secret = match &*value {
            Value::Null => return false,
            Value::String(s) if s.is_empty() || is_certificates(s) => return false,
            Value::String(s) => s.as_bytes().to_vec(),
            other => other.to_string().into_bytes(),
        };
        *value = Value::String(self.shown("redacted", &secret));
        true
    }

    /// The secrets inside one line of text, whatever its format: credentials in URLs, bearer
    /// and basic tokens, secret variables' values, password hashes.
    pub(crate) fn inline(self, text: &str) -> String {
        let text = self.url_credentials(text);
        let text = self.signed_url_parameters(&text);
        let text = self.tokens(&text);
        let text = env::hide_assignments(self, &text);
        let text = bootgen_diagnose::replace_curl_user_passwords(&text, |password| {
            self.shown("redacted", password.as_bytes())
        });
        self.password_hashes(&text)
    }

    /// The values of a URL's query parameters that sign it or carry a credential (a pre-signed
    /// S3 or GCS URL, an Azure SAS token, an `access_token`): `?X-Amz-Signature=<redacted ...>`.
    fn signed_url_parameters(self, text: &str) -> String {
        const SECRET_PARAMETERS: &[&str] = &[
            "x-amz-signature",
            "x-amz-credential",
            "x-amz-security-token",
            "x-goog-signature",
            "x-goog-credential",
            "sig",
            "signature",
            "access_token",
            "token",
        ];
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(['?', '&']) {
            let (before, after) = rest.split_at(at + 1);
            out.push_str(before);
            let Some(eq) = after.find('=') else {
                rest = after;
                continue;
            };
            let name = &after[..eq];
            if !SECRET_PARAMETERS.contains(&name.to_ascii_lowercase().as_str()) {
                rest = after;
                continue;
            }
            let value = &after[eq + 1..];
            let end = value
                .find(|c: char| c.is_whitespace() || "&#\"'<>,;`()[]{}|\\".contains(c))
                .unwrap_or(value.len());
            out.push_str(&after[..=eq]);
            if end > 0 {
                out.push_str(&self.shown("redacted", &value.as_bytes()[..end]));
            }
            rest = &value[end..];
        }
        out.push_str(rest);
        out
    }

    /// `scheme://user:password@host` becomes `scheme://<redacted hmac:1a2b>@host`.
    fn url_credentials(self, text: &str) -> String {
        bootgen_diagnose::replace_url_user_info(text, |user_info| {
            self.shown("redacted", user_info.as_bytes())
        })
    }

    /// `Bearer TOKEN` and `Basic CREDENTIALS` (HTTP authorization headers): the token hidden.
    fn tokens(self, text: &str) -> String {
        bootgen_diagnose::replace_authorization_tokens(text, |token| {
            self.shown("redacted", token.as_bytes())
        })
    }

    /// A password hash in crypt's form (`$id$[params$]salt$hash`: bcrypt's `$2a$10$...`,
    /// SHA-512's `$6$...`, yescrypt's `$y$...`, htpasswd's `$apr1$...`) becomes
    /// `<password hash ...>`.
    fn password_hashes(self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find('$') {
            out.push_str(&rest[..start]);
            match crypt_hash_len(&rest[start..]) {
                Some(len) => {
                    out.push_str(
                        &self.shown("password hash", &rest.as_bytes()[start..start + len]),
                    );
                    rest = &rest[start + len..];
                }
                None => {
                    out.push('$');
                    rest = &rest[start + 1..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// The length of the crypt-form password hash `text` starts with: `$` and a known scheme,
/// then fields of crypt's alphabet split by `$`, the last (the hash) of 20 characters or more.
fn crypt_hash_len(text: &str) -> Option<usize> {
    const SCHEMES: &[&str] = &[
        "1", "2a", "2b", "2y", "5", "6", "y", "gy", "7", "apr1", "sha1",
    ];
    let crypt_char = |b: u8| b.is_ascii_alphanumeric() || b"./=,".contains(&b);
    let body = text.strip_prefix('$')?;
    let scheme_len = body.find('$')?;
    if !SCHEMES.contains(&&body[..scheme_len]) {
        return None;
    }
    let mut at = 1 + scheme_len;
    let mut fields = 0;
    let mut last = 0;
    while text[at..].starts_with('$') {
        let field = text[at + 1..]
            .bytes()
            .take_while(|b| crypt_char(*b))
            .count();
        if field == 0 {
            break;
        }
        at += 1 + field;
        fields += 1;
        last = field;
    }
    (fields >= 2 && last >= 20).then_some(at)
}

#[cfg(test)]
mod tests;
