//! Image references as the container tools read them (the distribution reference grammar that
//! podman, CRI-O and skopeo share): `HOST[:PORT]/path[:tag][@sha256:digest]`. Every pull spec
//! and repository bootgen takes is checked here, so a reference the node's podman would refuse
//! is refused when the config is made, naming the setting or field it came from.

use crate::error::InvalidValue;

/// The longest repository name (host and path) the grammar allows.
const MAX_NAME: usize = 255;
/// The longest tag.
const MAX_TAG: usize = 128;

/// A pull spec a node can pull by: a registry host, a repository path, and a tag, a digest or
/// both. Made only by parsing, so it always satisfies the grammar.
///
/// ```
/// use bootgen::release::PullSpec;
///
/// let spec: PullSpec = "quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64".parse()?;
/// assert_eq!(spec.repository(), "quay.io/openshift-release-dev/ocp-release");
/// assert_eq!(spec.tag(), Some("4.16.0-x86_64"));
/// assert!("quay.io/OpenShift/ocp-release:4.16.0-x86_64".parse::<PullSpec>().is_err());
/// # Ok::<(), bootgen::InvalidValue>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullSpec {
    text: String,
    repository_end: usize,
    tag: Option<(usize, usize)>,
    digest_start: Option<usize>,
}

impl PullSpec {
    /// The pull spec as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// `host[:port]/path`, without tag or digest.
    pub fn repository(&self) -> &str {
        &self.text[..self.repository_end]
    }

    /// The tag, when there is one.
    pub fn tag(&self) -> Option<&str> {
        self.tag.map(|(start, end)| &self.text[start..end])
    }

    /// The digest (`sha256:...`), when there is one.
    pub fn digest(&self) -> Option<&str> {
        self.digest_start.map(|start| &self.text[start..])
    }
}

impl std::fmt::Display for PullSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::str::FromStr for PullSpec {
    type Err = InvalidValue;

    fn from_str(text: &str) -> Result<PullSpec, InvalidValue> {
        let fail = |why: String| {
            let shown = without_credentials(text);
            InvalidValue(format!("`{shown}` is not an image pull spec: {why}"))
        };
        let (name_and_tag, digest) = match text.split_once('@') {
            Some((before, digest)) => (before, Some(digest)),
            None => (text, None),
        };
        if let Some(digest) = digest {
            check_digest(digest).map_err(fail)?;
        }
        let last_slash = name_and_tag.rfind('/').map_or(0, |i| i + 1);
        let (name, tag) = match name_and_tag[last_slash..].rfind(':') {
            Some(colon) => {
                let at = last_slash + colon;
                (&name_and_tag[..at], Some(&name_and_tag[at + 1..]))
            }
            None => (name_and_tag, None),
        };
        check_name(name).map_err(fail)?;
        if !name.contains('/') {
            return Err(fail(format!(
                "`{name}` is a registry without a repository path under it"
            )));
        }
        if let Some(tag) = tag {
            check_tag(tag).map_err(fail)?;
        }
        if tag.is_none() && digest.is_none() {
            return Err(fail(
                "it names neither a tag nor a digest (add `:TAG` or `@sha256:DIGEST`)".into(),
            ));
        }
        Ok(PullSpec {
            text: text.to_string(),
            repository_end: name.len(),
            tag: tag.map(|t| (name.len() + 1, name.len() + 1 + t.len())),
            digest_start: digest.map(|d| text.len() - d.len()),
        })
    }
}

/// Checks a repository (`host[:port]/path`, or a registry's `host[:port]` alone): no tag, no
/// digest, no scheme. Returns what is wrong, quoting the value.
pub fn check_repository(reference: &str) -> Result<(), InvalidValue> {
    let fail = |why: String| {
        let shown = without_credentials(reference);
        InvalidValue(format!(
            "`{shown}` is not a registry/repository path such as quay.io/openshift-release-dev/ocp-release: {why}"
        ))
    };
    if reference.contains("://") {
        return Err(fail("it has a URL scheme; write it without one".into()));
    }
    if reference.contains('@') {
        return Err(fail(
            "it has a digest; a mirror rule names a repository, not an image".into(),
        ));
    }
    let last = reference.rsplit('/').next().unwrap_or_default();
    if reference.contains('/') && last.contains(':') {
        return Err(fail(
            "it has a tag; a mirror rule names a repository, not an image".into(),
        ));
    }
    check_name(reference).map_err(fail)
}

/// Checks a registry host alone (`host[:port]`), as the installer takes a mirror or source that
/// names no repository from 4.10: a host name (a single label included) or an IP address.
pub fn check_registry_host(reference: &str) -> Result<(), InvalidValue> {
    check_host(reference).map_err(|why| {
        InvalidValue(format!(
            "`{}` is not a registry host: {why}",
            without_credentials(reference)
        ))
    })
}

/// `reference` as a message may quote it: a reference never holds a `/`-less part before its
/// first `@` (that `@` starts a digest, after a repository path), so such a part, after a URL
/// scheme or not, is `user:password` written as in a URL, and is hidden (`***@host/...`). The
/// one place that finds a registry's user info, for bootgen's messages and the CLI's quote of a
/// refused argument.
pub fn without_credentials(reference: &str) -> std::borrow::Cow<'_, str> {
    let Some((before, after)) = reference.split_once('@') else {
        return reference.into();
    };
    let start = before.find("://").map_or(0, |at| at + 3);
    let info = &before[start..];
    if info.is_empty() || info.contains('/') {
        return reference.into();
    }
    format!("{}***@{after}", &before[..start]).into()
}

/// A repository name: a registry host, then lower-case path components. A first component
/// without a dot or a port would be a Docker Hub short name to podman, not a registry.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the repository is empty".into());
    }
    if name.len() > MAX_NAME {
        return Err(format!(
            "the repository is {} characters long, more than {MAX_NAME}",
            name.len()
        ));
    }
    let (host, path) = match name.split_once('/') {
        Some((host, path)) => (host, Some(path)),
        None => (name, None),
    };
    let is_host =
        host.contains('.') || host.contains(':') || host == "localhost" || host.starts_with('[');
    if !is_host {
        return Err(format!(
            "it does not start with a registry host (a name with a dot or a port, or localhost), and `{host}` is not one"
        ));
    }
    check_host(host)?;
    for component in path.into_iter().flat_map(|p| p.split('/')) {
        check_path_component(component)?;
    }
    Ok(())
}

/// `host[:port]`: DNS labels (letters, digits, inner hyphens), an IPv4 address or a bracketed
/// IPv6 address, and an optional numeric port.
fn check_host(host: &str) -> Result<(), String> {
    let (address, port) = if let Some(rest) = host.strip_prefix('[') {
        let (inner, after) = rest
            .split_once(']')
            .ok_or_else(|| format!("the registry `{host}` opens `[` without closing it"))?;
        if inner.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!("`{inner}` in brackets is not an IPv6 address"));
        }
        match after {
            "" => (None, None),
            _ => match after.strip_prefix(':') {
                Some(port) => (None, Some(port)),
                None => {
                    return Err(format!(
                        "the registry `{host}` has `{after}` after the address"
                    ))
                }
            },
        }
    } else {
        match host.split_once(':') {
            Some((address, port)) => (Some(address), Some(port)),
            None => (Some(host), None),
        }
    };
    if let Some(port) = port {
        if !matches!(port.parse::<u16>(), Ok(p) if p > 0) {
            return Err(format!(
                "the registry `{host}` has `{port}`, which is not a port number (1-65535)"
            ));
        }
    }
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    match address {
        Some(address) if !address.split('.').all(label_ok) => Err(format!(
            "the registry host `{address}` is not a host name (letters, digits and inner hyphens, separated by dots)"
        )),
        _ => Ok(()),
    }
}

/// A path component: lower-case letters and digits, separated by `.`, `_`, `__` or dashes.
fn check_path_component(component: &str) -> Result<(), String> {
    let bad = || {
        Err(format!(
            "the repository component `{component}` is not lower-case letters and digits joined by `.`, `_`, `__` or `-`"
        ))
    };
    let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    let (Some(first), Some(last)) = (component.chars().next(), component.chars().last()) else {
        return bad();
    };
    if !alnum(first) || !alnum(last) {
        return bad();
    }
    let mut separator = String::new();
    for c in component.chars() {
        if alnum(c) {
            let allowed = separator.is_empty()
                || matches!(separator.as_str(), "." | "_" | "__")
                || separator.chars().all(|s| s == '-');
            if !allowed {
                return bad();
            }
            separator.clear();
        } else if ".-_".contains(c) {
            separator.push(c);
        } else {
            return bad();
        }
    }
    Ok(())
}

/// A tag: `[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`.
fn check_tag(tag: &str) -> Result<(), String> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let valid = tag.len() <= MAX_TAG
        && tag.starts_with(word)
        && tag.chars().all(|c| word(c) || c == '.' || c == '-');
    if valid {
        Ok(())
    } else {
        Err(format!(
            "the tag `{tag}` is not letters, digits, `_`, `.` and `-` (at most {MAX_TAG}, not starting with `.` or `-`)"
        ))
    }
}

/// A digest: `sha256:` and 64 lower-case hexadecimal digits.
fn check_digest(digest: &str) -> Result<(), String> {
    let hex = digest.strip_prefix("sha256:");
    let valid = hex.is_some_and(|h| {
        h.len() == 64
            && h.chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    });
    if valid {
        Ok(())
    } else {
        Err(format!(
            "the digest `{digest}` is not `sha256:` and 64 lower-case hexadecimal digits"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn refused(text: &str) -> String {
        match text.parse::<PullSpec>() {
            Ok(_) => format!("{text} was accepted"),
            Err(e) => e.0,
        }
    }

    #[test]
    fn accepts_what_podman_pulls() {
        for good in [
            "quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64".to_string(),
            format!("quay.io/openshift-release-dev/ocp-release@{DIGEST}"),
            format!("mirror.lab:5000/ocp4/openshift4:4.16.0-x86_64@{DIGEST}"),
            "[fd00::1]:5000/ocp/release:4.16.0".into(),
            "localhost/a__b/c--d/e.f:latest".into(),
            "192.0.2.10:5000/release:v1".into(),
        ] {
            let spec: PullSpec = good.parse().unwrap_or_else(|e| panic!("{good}: {e}"));
            assert_eq!(spec.as_str(), good);
        }
        let spec: PullSpec = format!("reg:5000/a/b:1.2@{DIGEST}").parse().unwrap();
        assert_eq!(spec.repository(), "reg:5000/a/b");
        assert_eq!(spec.tag(), Some("1.2"));
        assert_eq!(spec.digest(), Some(DIGEST));
    }

    #[test]
    fn a_message_never_quotes_credentials_written_as_in_a_url() {
        for bad in [
            "user:pw@quay.io/x:tag".to_string(),
            "https://user:pw@quay.io/x:tag".into(),
            format!("user:pw@quay.io/x@{DIGEST}"),
        ] {
            let error = refused(&bad);
            assert!(error.contains("***@quay.io/x"), "{error}");
            assert!(!error.contains("pw"), "{error}");
        }
        let error = check_repository("user:pw@mirror:5000/a").unwrap_err().0;
        assert!(error.starts_with("`***@mirror:5000/a`"), "{error}");
        let digest_error = refused(&format!("quay.io/a/b@{DIGEST}x"));
        assert!(
            digest_error.contains("`quay.io/a/b@sha256:"),
            "{digest_error}"
        );
    }

    #[test]
    fn refuses_what_podman_refuses_and_says_why() {
        assert!(refused("quay.io/a/b@sha256:abc").contains("the digest `sha256:abc`"));
        assert!(refused("quay.io/OpenShift/ocp-release:4.16.0")
            .contains("the repository component `OpenShift`"));
        assert!(refused("quay.io/a b:4.16.0").contains("`a b`"));
        assert!(refused("quay.io/a/b:.bad").contains("the tag `.bad`"));
        assert!(refused("quay.io/a/b").contains("neither a tag nor a digest"));
        assert!(refused("ocp/release:4.16.0").contains("registry host"));
        assert!(refused("quay.io/a/b:").contains("the tag ``"));
        assert!(refused(&format!("quay.io/{}:1", "a".repeat(300))).contains("more than 255"));
        assert!(refused("quay.io/a._b:1").contains("a._b"));
        assert!(refused("reg.local:5000").contains("without a repository path"));
    }

    #[test]
    fn repositories_have_no_tag_digest_or_scheme() {
        assert!(check_repository("reg.local:5000/ocp/release").is_ok());
        assert!(check_repository("reg.local:5000").is_ok());
        assert!(check_repository("https://quay.io/a").is_err());
        assert!(check_repository("quay.io/a@sha256:1").is_err());
        assert!(check_repository("quay.io/a:4.16").is_err());
        assert!(check_repository("").is_err());
        assert!(check_repository("quay.io/a b").is_err());
        assert!(check_repository("quay.io/Bad").is_err());
        assert!(check_repository("mirror/ocp").is_err());
        assert!(check_repository("ubuntu").is_err());
        assert!(check_repository("m.io:99999/x").is_err());
    }
}
