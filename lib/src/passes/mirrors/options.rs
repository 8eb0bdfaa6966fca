//! The mirror options, checked: every malformed value is an error that names the setting and
//! the value (never a credential). Rules, host entries and insecure registries parse with
//! `FromStr` (an [`InvalidValue`] saying what is wrong with the value); `parse` names the
//! setting too.

use crate::error::{Error, InvalidValue, OptionField, Result};
use crate::ignition::read::{normalize_auth_key, parse_certificates, Certificate};
use crate::release::check_repository;
use base64::Engine;
use serde_json::Value;
use std::net::IpAddr;
use std::path::Path;

fn invalid(option: OptionField, message: String) -> Error {
    Error::InvalidOption { option, message }
}

/// A mirror rule, `SOURCE=MIRROR`: pull `SOURCE/...` from `MIRROR/...`.
///
/// Made only by [`MirrorRule::parse`] or `FromStr`, which check both sides; a rule cannot be
/// put together unchecked:
///
/// ```compile_fail
/// let rule = bootgen::passes::mirrors::MirrorRule { source: "quay.io/ocp".into(), mirror: "".into() };
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirrorRule {
    /// The repository prefix images are named by.
    pub(crate) source: String,
    /// Where they are really pulled from.
    pub(crate) mirror: String,
}

impl MirrorRule {
    /// The repository prefix images are named by.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Where they are really pulled from.
    pub fn mirror(&self) -> &str {
        &self.mirror
    }

    /// Parses `SOURCE=MIRROR`; an error names [`OptionField::Mirror`].
    pub fn parse(value: &str) -> Result<MirrorRule> {
        value
            .parse()
            .map_err(|e: InvalidValue| e.for_option(OptionField::Mirror))
    }
}

impl std::str::FromStr for MirrorRule {
    type Err = InvalidValue;

    fn from_str(value: &str) -> std::result::Result<MirrorRule, InvalidValue> {
        const EXAMPLE: &str =
            "write SOURCE=MIRROR, e.g. quay.io/openshift-release-dev/ocp-release=mirror.example.com:5000/ocp/release";
        let fail = InvalidValue;
        let (source, mirror) = value
            .split_once('=')
            .ok_or_else(|| fail(format!("`{value}` has no `=`; {EXAMPLE}")))?;
        let (source, mirror) = (source.trim(), mirror.trim());
        if source.is_empty() {
            return Err(fail(format!(
                "`{value}` is a mirror without a source; {EXAMPLE}"
            )));
        }
        if mirror.is_empty() {
            return Err(fail(format!(
                "`{value}` is a source without a mirror; {EXAMPLE}"
            )));
        }
        for (what, reference) in [("source", source), ("mirror", mirror)] {
            check_repository(reference).map_err(|m| fail(format!("{what} {}", m.0)))?;
        }
        if source.eq_ignore_ascii_case(mirror) {
            return Err(fail(format!("`{value}` mirrors {source} to itself")));
        }
        Ok(MirrorRule {
            source: source.to_string(),
            mirror: mirror.to_string(),
        })
    }
}

/// Checks `host[:port]`: a DNS name, an IPv4 address or a bracketed IPv6 address, and an
/// optional port 1-65535.
pub fn check_host_port(value: &str) -> Result<(), String> {
    let (host, port) = if let Some(rest) = value.strip_prefix('[') {
        let (inner, after) = rest
            .split_once(']')
            .ok_or_else(|| format!("`{value}` opens `[` without closing it"))?;
        if inner.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!("`{inner}` in brackets is not an IPv6 address"));
        }
        match after {
            "" => return Ok(()),
            _ => match after.strip_prefix(':') {
                Some(port) => (None, Some(port)),
                None => return Err(format!("`{value}` has `{after}` after the address")),
            },
        }
    } else {
        match value.rsplit_once(':') {
            Some((host, port)) => (Some(host), Some(port)),
            None => (Some(value), None),
        }
    };
    if let Some(port) = port {
        match port.parse::<u16>() {
            Ok(p) if p > 0 => {}
            _ => return Err(format!("`{port}` is not a port number (1-65535)")),
        }
    }
    match host {
        Some(host) if host.parse::<std::net::Ipv4Addr>().is_ok() => Ok(()),
        Some(host) => check_hostname(host),
        None => Ok(()),
    }
}

/// Checks a DNS host name: dot-separated labels of letters, digits and inner hyphens.
pub fn check_hostname(name: &str) -> Result<(), String> {
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if name.is_empty() || name.len() > 253 || !name.split('.').all(label_ok) {
        return Err(format!(
            "`{name}` is not a host name (letters, digits and inner hyphens, separated by dots)"
        ));
    }
    Ok(())
}

/// Parses an insecure registry, `HOST[:PORT]`; an error names [`OptionField::InsecureRegistry`].
pub fn parse_insecure_registry(value: &str) -> Result<String> {
    check_insecure_registry(value).map_err(|e| e.for_option(OptionField::InsecureRegistry))
}

/// Checks an insecure registry, `HOST[:PORT]`, and returns it trimmed.
pub fn check_insecure_registry(value: &str) -> std::result::Result<String, InvalidValue> {
    let fail = InvalidValue;
    let value = value.trim();
    if value.contains("://") {
        return Err(fail(format!(
            "`{value}` has a URL scheme; write HOST[:PORT], e.g. mirror.example.com:5000"
        )));
    }
    if value.contains('/') {
        return Err(fail(format!(
            "`{value}` is a repository path; write only the registry's HOST[:PORT]"
        )));
    }
    check_host_port(value).map_err(fail)?;
    Ok(value.to_string())
}

/// A line for the node's /etc/hosts, `IP=NAME[,NAME...]`, made only by [`HostEntry::parse`] or
/// `FromStr`:
///
/// ```compile_fail
/// let entry = bootgen::passes::mirrors::HostEntry { ip: "192.0.2.1".parse().unwrap(), names: vec![] };
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostEntry {
    /// The address.
    pub(crate) ip: IpAddr,
    /// The names it answers to.
    pub(crate) names: Vec<String>,
}

impl HostEntry {
    /// The address.
    pub fn ip(&self) -> IpAddr {
        self.ip
    }

    /// The names it answers to.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Parses `IP=NAME[,NAME...]`; an error names [`OptionField::AddHost`].
    pub fn parse(value: &str) -> Result<HostEntry> {
        value
            .parse()
            .map_err(|e: InvalidValue| e.for_option(OptionField::AddHost))
    }

    /// The /etc/hosts line, with its newline.
    pub fn line(&self) -> String {
        format!("{} {}\n", self.ip, self.names.join(" "))
    }
}

impl std::str::FromStr for HostEntry {
    type Err = InvalidValue;

    fn from_str(value: &str) -> std::result::Result<HostEntry, InvalidValue> {
        let fail = InvalidValue;
        let (ip, names) = value.split_once('=').ok_or_else(|| {
            fail(format!(
                "`{value}` has no `=`; write IP=NAME[,NAME...], e.g. 192.0.2.10=mirror.example.com"
            ))
        })?;
        let ip: IpAddr = ip
            .trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .map_err(|_| fail(format!("`{}` in `{value}` is not an IP address", ip.trim())))?;
        let names: Vec<String> = names.split(',').map(|n| n.trim().to_string()).collect();
        for name in &names {
            if name.is_empty() {
                return Err(fail(format!("`{value}` has an empty name")));
            }
            check_hostname(name).map_err(fail)?;
        }
        Ok(HostEntry { ip, names })
    }
}

/// Registry credentials (a docker config JSON) to merge into the
/// pull secret. Debug output never shows the credentials.
#[derive(Clone, PartialEq, Eq)]
pub struct RegistryAuth {
    /// Where the credentials came from (for messages).
    pub(crate) name: String,
    /// `auths` entries: registry key (host, host/namespace...) and its entry.
    pub(crate) entries: Vec<(String, Value)>,
}

impl std::fmt::Debug for RegistryAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys: Vec<&str> = self.entries.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("RegistryAuth")
            .field("name", &self.name)
            .field("registries", &keys)
            .finish_non_exhaustive()
    }
}

impl RegistryAuth {
    /// Where the credentials came from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The registries it has credentials for (its `auths` keys), in file order.
    pub fn registries(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(key, _)| key.as_str())
    }

    /// Reads and checks a docker config JSON file.
    pub fn read(path: &Path) -> Result<RegistryAuth> {
        let bytes = crate::config::read_at_most(path, crate::config::INSTALL_CONFIG_LIMIT)?;
        RegistryAuth::parse(&path.display().to_string(), &bytes)
    }

    /// Checks `{"auths": {"HOST": {"auth": "base64(user:password)"}, ...}}`.
    pub fn parse(name: &str, bytes: &[u8]) -> Result<RegistryAuth> {
        let fail = |m: String| invalid(OptionField::RegistryAuth, format!("{name}: {m}"));
        // serde_json's message points at the line and column only, never at the text.
        let value: Value = serde_json::from_slice(bytes).map_err(|e| {
            fail(format!(
                "is not JSON (line {}, column {}); expected a docker config such as {{\"auths\":{{\"mirror.example.com:5000\":{{\"auth\":\"...\"}}}}}}",
                e.line(),
                e.column()
            ))
        })?;
        let auths = value
            .get("auths")
            .and_then(Value::as_object)
            .ok_or_else(|| fail("has no `auths` object; expected a docker config JSON".into()))?;
        if auths.is_empty() {
            return Err(fail("has no registry under `auths`".into()));
        }
        let mut entries = Vec::new();
        for (key, entry) in auths {
            check_auth_key(key).map_err(&fail)?;
            check_auth_entry(key, entry).map_err(&fail)?;
            entries.push((key.clone(), entry.clone()));
        }
        Ok(RegistryAuth {
            name: name.to_string(),
            entries,
        })
    }
}

fn check_auth_key(key: &str) -> Result<(), String> {
    let normalized = normalize_auth_key(key);
    let host = normalized.split('/').next().unwrap_or_default();
    check_host_port(host).map_err(|m| format!("`auths` key `{key}`: {m}"))
}

fn check_auth_entry(key: &str, entry: &Value) -> Result<(), String> {
    let object = entry
        .as_object()
        .ok_or_else(|| format!("the entry for `{key}` is not an object"))?;
    if object
        .get("identitytoken")
        .and_then(Value::as_str)
        .is_some()
    {
        return Ok(());
    }
    let auth = object
        .get("auth")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("the entry for `{key}` has no `auth` (base64 of user:password)"))?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(auth.trim())
        .map_err(|_| format!("the `auth` for `{key}` is not base64"))?;
    match std::str::from_utf8(&decoded) {
        Ok(text) if text.contains(':') => Ok(()),
        _ => Err(format!(
            "the `auth` for `{key}` does not decode to user:password"
        )),
    }
}

/// PEM CA certificates for the mirror (a trust bundle).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustBundle {
    /// Where the bundle came from (for messages).
    pub(crate) name: String,
    /// The certificates, in file order.
    pub(crate) certificates: Vec<Certificate>,
}

impl TrustBundle {
    /// Where the bundle came from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The certificates, in file order.
    pub fn certificates(&self) -> &[Certificate] {
        &self.certificates
    }

    /// Reads and checks a PEM file.
    pub fn read(path: &Path) -> Result<TrustBundle> {
        let bytes = crate::config::read_at_most(path, crate::config::INSTALL_CONFIG_LIMIT)?;
        TrustBundle::parse(&path.display().to_string(), &bytes)
    }

    /// Checks that `bytes` hold PEM certificates and nothing else.
    pub fn parse(name: &str, bytes: &[u8]) -> Result<TrustBundle> {
        let fail = |m: String| invalid(OptionField::TrustBundle, format!("{name}: {m}"));
        let certificates = parse_certificates(bytes).map_err(fail)?;
        if certificates.is_empty() {
            return Err(fail(
                "holds no PEM certificate (-----BEGIN CERTIFICATE-----)".into(),
            ));
        }
        Ok(TrustBundle {
            name: name.to_string(),
            certificates,
        })
    }
}
