//! Resource sources as Ignition checks them: the URL scheme the spec version allows, and data
//! URLs parsed as strictly as Ignition's parser does (a `type/subtype` media type of a known
//! top-level type, `attribute=value` parameters, `;base64` last; padded standard base64; plain
//! data only in URL characters with valid `%XX` escapes).

/// Schemes a resource may use in spec 3.`minor`.
fn scheme_allowed(scheme: &str, minor: u32) -> bool {
    match scheme {
        "http" | "https" | "tftp" | "s3" | "data" => true,
        "gs" => minor >= 2,
        "arn" => minor >= 4,
        _ => false,
    }
}

/// The scheme of `url` in lower case (empty when it has none), or why Go's parser refuses it.
pub(super) fn scheme_of(url: &str) -> Result<String, String> {
    if url.starts_with(':') || url.chars().any(|c| c.is_control()) {
        return Err("unable to parse url".into());
    }
    Ok(url
        .split_once(':')
        .map(|(s, _)| s)
        .filter(|s| {
            let mut chars = s.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        })
        .unwrap_or_default()
        .to_ascii_lowercase())
}

/// Checks a URL that must be `http` or `https` (a proxy, a Tang server): `wrong_scheme` when it
/// is another, or why it does not parse.
pub(super) fn check_http_url(url: &str, wrong_scheme: &str) -> Result<(), String> {
    let scheme = scheme_of(url)?;
    if scheme != "http" && scheme != "https" {
        return Err(wrong_scheme.to_string());
    }
    match crate::url_syntax::parse_problem(url) {
        Some(why) => Err(format!("unable to parse url: it {why}")),
        None => Ok(()),
    }
}

/// Checks a resource source for spec 3.`minor`. Returns the decoded bytes of a data URL, None
/// for a remote URL, or the reason Ignition rejects it.
pub fn check_source(source: &str, minor: u32) -> Result<Option<Vec<u8>>, String> {
    let scheme = scheme_of(source)?;
    if !scheme_allowed(&scheme, minor) {
        return Err(if scheme.is_empty() {
            "invalid url scheme (a source must be a URL such as data:, https: or s3:)".into()
        } else {
            format!("invalid url scheme `{scheme}` for spec 3.{minor}.0")
        });
    }
    if scheme != "data" {
        return match crate::url_syntax::parse_problem(source) {
            Some(why) => Err(format!("unable to parse url: it {why}")),
            None => Ok(None),
        };
    }
    decode_data_url(source).map(Some)
}

fn is_token_char(c: char) -> bool {
    c.is_ascii() && !c.is_ascii_control() && c != ' ' && !"()<>@,;:\\\"/[]?=".contains(c)
}

fn is_token(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_token_char)
}

fn is_url_char(c: char) -> bool {
    c.is_ascii() && !c.is_ascii_control() && !" <>#\"{}|\\^[]`".contains(c)
}

fn check_media_type(media: &str) -> Result<(), String> {
    let Some((kind, subtype)) = media.split_once('/') else {
        return Err("missing media type slash".into());
    };
    if !is_token(kind) {
        return Err("invalid character for media type".into());
    }
    let known = [
        "text",
        "image",
        "audio",
        "video",
        "application",
        "message",
        "multipart",
    ]
    .iter()
    .any(|t| kind.starts_with(t))
        || kind.starts_with("x-")
        || kind.starts_with("X-");
    if !known {
        return Err("invalid media type".into());
    }
    if !is_token(subtype) {
        return Err("invalid character for media subtype".into());
    }
    Ok(())
}

fn check_parameter(param: &str) -> Result<(), String> {
    let (attr, value) = param
        .split_once('=')
        .ok_or_else(|| format!("expected base64, got {param}"))?;
    if !is_token(attr) {
        return Err("invalid character for parameter attribute".into());
    }
    let quoted = value.len() >= 2 && value.starts_with('"') && value.ends_with('"');
    if !quoted && !is_token(value) {
        return Err("invalid character for parameter value".into());
    }
    Ok(())
}

/// Decodes a data URL, refusing what Ignition refuses.
pub fn decode_data_url(url: &str) -> Result<Vec<u8>, String> {
    let rest = url
        .strip_prefix("data:")
        .ok_or_else(|| "missing data prefix".to_string())?;
    let (meta, data) = rest
        .split_once(',')
        .ok_or_else(|| "missing comma before data".to_string())?;
    let mut params: Vec<&str> = meta.split(';').collect();
    let media = params.remove(0);
    if !media.is_empty() {
        check_media_type(media)?;
    }
    let base64 = params.last() == Some(&"base64");
    if base64 {
        params.pop();
    }
    for param in params {
        check_parameter(param)?;
    }
    let allowed = |c: char| {
        if base64 {
            c.is_ascii_alphanumeric() || "+/=".contains(c)
        } else {
            is_url_char(c)
        }
    };
    if !data.chars().all(allowed) {
        return Err("invalid data character".into());
    }
    // The syntax is Ignition's (and so are the messages); the decoding is the one every reader
    // of configs shares.
    if base64 {
        crate::ignition::dataurl::base64_payload(data)
            .map_err(|e| format!("illegal base64 data: {e}"))
    } else {
        crate::ignition::dataurl::percent_decode(data).map_err(|e| e.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_what_ignition_accepts() {
        for ok in [
            "data:,hello",
            "data:text/plain,hi",
            "data:text/plain;charset=utf-8;base64,aGk=",
            "data:;base64,aGk=",
            "data:,",
            "data:,a%20b",
        ] {
            assert!(check_source(ok, 2).is_ok(), "{ok}");
        }
        assert_eq!(check_source("https://example.com/x", 0), Ok(None));
        assert_eq!(check_source("gs://b/k", 2), Ok(None));
        assert_eq!(check_source("arn:aws:s3:::b/k", 4), Ok(None));
    }

    #[test]
    fn rejects_what_ignition_rejects() {
        for (bad, minor) in [
            ("data:;base64,YWI", 2),
            ("data:;base64,-_8=", 2),
            ("data:;base64,YW Jj", 2),
            ("data:,a b", 2),
            ("data:foo,hi", 2),
            ("data:base64,aGk=", 2),
            ("data:text/plain", 2),
            ("data:,a%2", 2),
            ("x", 2),
            ("/etc/foo", 2),
            ("ftp://h/x", 2),
            ("::not a url", 2),
            ("gs://b/k", 1),
            ("arn:aws:s3:::b/k", 3),
        ] {
            assert!(check_source(bad, minor).is_err(), "{bad}");
        }
    }
}
