//! A readable text view of a config: every file's path, mode and text, every unit with its
//! drop-ins, every user. Golden snapshots are taken of this view. PEM blocks are shown as a
//! one-line summary (label and SHA-256), so the view stays readable and still changes when a
//! key or certificate does.

use super::decode::DecodedConfig;
use super::hash::short_sha256;
use std::fmt::Write;

/// Renders the view.
pub fn readable_view(config: &DecodedConfig) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "ignition {}", config.version);
    for user in &config.users {
        let _ = writeln!(out, "\n== user {}", user.name);
        for key in &user.ssh_authorized_keys {
            let _ = writeln!(out, "  key: {}", summarize_key(key));
        }
    }
    for file in &config.files {
        let mode = file
            .mode
            .map(|m| format!("{m:04o}"))
            .unwrap_or_else(|| "-".into());
        let how = if file.contents.is_none() && !file.append.is_empty() {
            "append"
        } else {
            "overwrite"
        };
        let _ = writeln!(out, "\n== file {} mode {mode} {how}", file.path);
        if let Some(bytes) = &file.contents {
            push_body(&mut out, bytes);
        }
        for fragment in &file.append {
            let _ = writeln!(out, "-- appended:");
            push_body(&mut out, fragment);
        }
    }
    for unit in &config.units {
        let flags = [
            unit.enabled.map(|e| format!("enabled={e}")),
            unit.mask.map(|m| format!("mask={m}")),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
        let _ = writeln!(out, "\n== unit {} {flags}", unit.name);
        match &unit.contents {
            Some(text) if text.is_empty() => {
                let _ = writeln!(out, "(empty contents)");
            }
            Some(text) => push_body(&mut out, text.as_bytes()),
            None => {
                let _ = writeln!(out, "(no contents)");
            }
        }
        for dropin in &unit.dropins {
            let _ = writeln!(out, "-- drop-in {}:", dropin.name);
            push_body(
                &mut out,
                dropin.contents.as_deref().unwrap_or_default().as_bytes(),
            );
        }
    }
    out
}

pub(crate) fn summarize_key(key: &str) -> String {
    let mut parts = key.split_whitespace();
    let kind = parts.next().unwrap_or_default();
    let blob = parts.next().unwrap_or_default();
    let comment = parts.collect::<Vec<_>>().join(" ");
    format!("{kind} sha256:{} {comment}", short_sha256(blob.as_bytes()))
        .trim_end()
        .to_string()
}

fn push_body(out: &mut String, bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        let _ = writeln!(
            out,
            "<{} bytes of binary, sha256:{}>",
            bytes.len(),
            short_sha256(bytes)
        );
        return;
    };
    if text.is_empty() {
        let _ = writeln!(out, "(empty)");
        return;
    }
    let text = summarize_pem(text);
    out.push_str(&text);
    if !text.ends_with('\n') {
        out.push_str("\n(no trailing newline)\n");
    }
}

/// Replaces each PEM block with `<PEM LABEL sha256:...>`; base64 of PEM inside YAML
/// (kubeconfigs, secrets) is summarized the same way by length.
pub(crate) fn summarize_pem(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN ") {
        out.push_str(&rest[..start]);
        let block = &rest[start..];
        let label_end = block[11..]
            .find("-----")
            .map(|i| i + 11)
            .unwrap_or(block.len());
        let label = &block[11..label_end];
        let end_marker = format!("-----END {label}-----");
        let (len, unterminated) = match block.find(&end_marker) {
            Some(end) => (end + end_marker.len(), false),
            None => (unterminated_pem_len(block), true),
        };
        let whole = &block[..len];
        let _ = write!(
            out,
            "<PEM {label} sha256:{}>",
            short_sha256(whole.as_bytes())
        );
        // The lines of a block without its END line were taken whole, their last newline too.
        if unterminated && whole.ends_with('\n') {
            out.push('\n');
        }
        rest = &block[len..];
    }
    out.push_str(rest);
    summarize_long_tokens(&out)
}

/// The length of a PEM block at the start of `block` that has no END line of its own label
/// (cut short, or closed by another label): its BEGIN line, the body lines after it (base64,
/// `Name: value` headers, blank) and an END line of any label that closes them. Such a block
/// is hidden as a whole like any other: a damaged private key is still a private key.
pub(crate) fn unterminated_pem_len(block: &str) -> usize {
    let mut len = block.find('\n').map_or(block.len(), |i| i + 1);
    for line in block[len..].split_inclusive('\n') {
        let body = line.trim();
        let is_body = body.is_empty()
            || body
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+/=".contains(c))
            || body.split_once(": ").is_some_and(|(name, _)| {
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            });
        let closes = body.starts_with("-----END ");
        if !is_body && !closes {
            break;
        }
        len += line.len();
        if closes {
            break;
        }
    }
    len
}

/// Long base64 runs (certificate data inside kubeconfigs and secrets) become a hash.
fn summarize_long_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let mut replaced = String::new();
        for (i, token) in line.split(' ').enumerate() {
            if i > 0 {
                replaced.push(' ');
            }
            let bare = token.trim_end_matches('\n');
            let is_blob = bare.len() > 120
                && bare
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+/=".contains(c));
            if is_blob {
                let _ = write!(
                    replaced,
                    "<base64 {} chars sha256:{}>",
                    bare.len(),
                    short_sha256(bare.as_bytes())
                );
                if token.ends_with('\n') {
                    replaced.push('\n');
                }
            } else {
                replaced.push_str(token);
            }
        }
        out.push_str(&replaced);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pem_and_blobs_are_summarized() {
        let pem = "a\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\nb\n";
        let s = summarize_pem(pem);
        assert!(s.starts_with("a\n<PEM CERTIFICATE sha256:"));
        assert!(s.ends_with(">\nb\n"));
        let blob = format!("data: {}\n", "A".repeat(200));
        assert!(summarize_pem(&blob).starts_with("data: <base64 200 chars sha256:"));
    }

    #[test]
    fn a_key_without_its_end_line_is_summarized_whole() {
        let cut =
            "-----BEGIN PRIVATE KEY-----\nMIIEvwIBADANBgkqhkiG9w0BAQEFAASC\nBKkwggSlAgEAAoIBAQCM\n";
        let closed_by_another = format!("{cut}-----END RSA PRIVATE KEY-----\nafter\n");
        for text in [cut.to_string(), closed_by_another.clone()] {
            let shown = summarize_pem(&text);
            assert!(
                !shown.contains("MIIE") && !shown.contains("BKkw"),
                "{shown}"
            );
            assert!(shown.starts_with("<PEM PRIVATE KEY sha256:"), "{shown}");
        }
        assert!(summarize_pem(&closed_by_another).ends_with(">\nafter\n"));
    }
}
