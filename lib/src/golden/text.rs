//! Normalizing text for the golden view: PEM blocks become their summaries, base64 that hides
//! a PEM block, a password hash or a pull secret is decoded and shown the same way, secrets
//! (`ignition::redact`) become markers, and values derived from the PKI become placeholders.

use crate::ignition::redact::Redact;
use base64::Engine as _;

/// Values that change with every PKI, and the placeholder each becomes.
#[derive(Debug, Clone, Default)]
pub struct Redactions {
    pairs: Vec<(String, &'static str)>,
}

impl Redactions {
    /// Nothing to replace.
    pub fn none() -> Redactions {
        Redactions::default()
    }

    /// Replaces every occurrence of `value` with `placeholder` (empty values are ignored).
    pub fn add(&mut self, value: &str, placeholder: &'static str) {
        let value = value.trim();
        if !value.is_empty() {
            self.pairs.push((value.to_string(), placeholder));
            // Longest first, so a value that contains another is replaced whole.
            self.pairs.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        }
    }

    fn apply(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (value, placeholder) in &self.pairs {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), placeholder);
            }
        }
        out
    }
}

/// Base64 runs shorter than this are left alone: words and short IDs are not worth decoding.
const MIN_BASE64: usize = 20;

/// The marker a registry pull secret becomes.
pub(super) const PULL_SECRET: &str = "<pull secret>";

/// Normalizes one text (a file's contents, a unit, a kubeconfig...). Its secrets go first, as
/// markers without a digest (a golden file is committed, and must not change with the PKI):
/// a Secret's data, passwords and their hashes, tokens, credentials in URLs.
pub(super) fn normalize(text: &str, redactions: &Redactions) -> String {
    // Each step's input is dropped as soon as the next exists: a file's text can be tens of MiB,
    // and four live copies of it would be the view's peak.
    let pem = {
        let hidden = Redact::Marker.secrets(text);
        replace_pem(&hidden)
    };
    let base64 = replace_base64(&pem, redactions);
    drop(pem);
    redactions.apply(&base64)
}

/// True when `text` is a registry pull secret (`{"auths": {...}}`).
pub(super) fn is_pull_secret(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .is_some_and(|v| crate::ignition::redact::is_pull_secret(&v))
}

/// The whitespace that starts the line `at` is on.
fn indent_at(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &text[line_start..at];
    let width = prefix.len() - prefix.trim_start().len();
    &prefix[..width]
}

/// Joins summary lines, continuing lines at `indent`.
fn join(lines: &[String], indent: &str) -> String {
    lines.join(&format!("\n{indent}"))
}

fn replace_pem(text: &str) -> String {
    const BEGIN: &str = "-----BEGIN ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(BEGIN) {
        let after = &rest[start + BEGIN.len()..];
        let Some(label_len) = after.find("-----") else {
            break;
        };
        let end_marker = format!("-----END {}-----", &after[..label_len]);
        let Some(end) = rest[start..]
            .find(&end_marker)
            .map(|e| start + e + end_marker.len())
        else {
            // No END line of its own: hidden whole all the same (a damaged key is a key).
            let len = crate::ignition::view::unterminated_pem_len(&rest[start..]);
            let label = &after[..label_len];
            out.push_str(&rest[..start]);
            out.push_str(&format!("<PEM {label} block without its END line>"));
            if rest[start..start + len].ends_with('\n') {
                out.push('\n');
            }
            rest = &rest[start + len..];
            continue;
        };
        // PEM inside YAML is indented: parse it without the indentation.
        let block: String = rest[start..end]
            .lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n");
        let indent = indent_at(rest, start).to_string();
        out.push_str(&rest[..start]);
        match pem::parse(block.as_bytes()) {
            Ok(parsed) => out.push_str(&join(&super::pem::summarize(&parsed), &indent)),
            Err(_) => out.push_str("<PEM block that does not parse>"),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn is_base64_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '='
}

/// Decodes long base64 runs whose contents the view shows differently (a PEM block, a hash,
/// a pull secret, a placeholder); other runs stay as they are.
fn replace_base64(text: &str, redactions: &Redactions) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run_start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (is_base64_char(c) && i < text.len(), run_start) {
            (true, None) => run_start = Some(i),
            (true, Some(_)) => {}
            (false, Some(start)) => {
                out.push_str(&decoded_run(text, start, i, redactions));
                run_start = None;
                if i < text.len() {
                    out.push(c);
                }
            }
            (false, None) => {
                if i < text.len() {
                    out.push(c);
                }
            }
        }
    }
    out
}

fn decoded_run(text: &str, start: usize, end: usize, redactions: &Redactions) -> String {
    let run = &text[start..end];
    if run.len() < MIN_BASE64 {
        return run.to_string();
    }
    let Some(decoded) = base64::engine::general_purpose::STANDARD
        .decode(run)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
    else {
        return run.to_string();
    };
    let shown = if is_pull_secret(&decoded) {
        PULL_SECRET.to_string()
    } else {
        normalize(&decoded, redactions)
    };
    if shown == decoded {
        return run.to_string();
    }
    let outer = indent_at(text, start);
    let inner = format!("{outer}  ");
    let body: Vec<String> = shown.trim_end().lines().map(str::to_string).collect();
    match body.as_slice() {
        [one] => format!("<base64 of: {one}>"),
        _ => format!("<base64 of:\n{inner}{}\n{outer}>", join(&body, &inner)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(text: &str) -> String {
        base64::engine::general_purpose::STANDARD.encode(text)
    }

    #[test]
    fn bcrypt_hashes_become_a_marker() {
        let hash = format!("$2a$10${}", "a".repeat(53));
        assert_eq!(
            normalize(&format!("hash: {hash}\n"), &Redactions::none()),
            "hash: <password hash>\n"
        );
        assert_eq!(
            normalize("cost $2 and $2a$", &Redactions::none()),
            "cost $2 and $2a$"
        );
    }

    #[test]
    fn base64_is_decoded_only_when_it_hides_something_the_view_changes() {
        let plain = b64("just some harmless text, long enough");
        let text = format!("data: {plain}\n");
        assert_eq!(normalize(&text, &Redactions::none()), text);
        let secret = b64(r#"{"auths":{"quay.io":{"auth":"eDp5"}}}"#);
        assert_eq!(
            normalize(&format!("  config: {secret}\n"), &Redactions::none()),
            "  config: <base64 of: <pull secret>>\n"
        );
        // Under a key that names a secret, not even decoded.
        assert_eq!(
            normalize(
                &format!("  .dockerconfigjson: {secret}\n"),
                &Redactions::none()
            ),
            "  .dockerconfigjson: <redacted>\n"
        );
    }

    #[test]
    fn redacted_values_become_placeholders_also_inside_base64() {
        let mut redactions = Redactions::none();
        redactions.add("example-x1y2z", "<infra-id>");
        let text = format!(
            "infra: example-x1y2z\nencoded: {}\n",
            b64("name: example-x1y2z")
        );
        assert_eq!(
            normalize(&text, &redactions),
            "infra: <infra-id>\nencoded: <base64 of: name: <infra-id>>\n"
        );
    }

    #[test]
    fn a_key_without_its_end_line_is_hidden_whole() {
        let cut =
            "-----BEGIN PRIVATE KEY-----\nMIIEvwIBADANBgkqhkiG9w0BAQEFAASC\nBKkwggSlAgEAAoIBAQCM\n";
        let closed_by_another = format!("{cut}-----END RSA PRIVATE KEY-----\nafter: 1\n");
        for text in [cut.to_string(), closed_by_another] {
            let shown = normalize(&text, &Redactions::none());
            assert!(
                !shown.contains("MIIE") && !shown.contains("BKkw"),
                "{shown}"
            );
            assert!(
                shown.starts_with("<PEM PRIVATE KEY block without its END line>\n"),
                "{shown}"
            );
        }
        let shown = normalize(
            &format!("{cut}-----END RSA PRIVATE KEY-----\nafter: 1\n"),
            &Redactions::none(),
        );
        assert!(shown.ends_with("after: 1\n"), "{shown}");
    }

    #[test]
    fn pem_blocks_that_do_not_parse_are_marked_and_indentation_is_kept() {
        let text =
            "ca: |\n    -----BEGIN X509 CRL-----\n    AQID\n    -----END X509 CRL-----\nnext: 1\n";
        assert_eq!(
            normalize(text, &Redactions::none()),
            "ca: |\n    <PEM X509 CRL, 3 bytes>\nnext: 1\n"
        );
    }
}
