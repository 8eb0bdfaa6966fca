//! The cluster proxy and the noProxy list the installer computes: the sorted, de-duplicated
//! union of loopback names, `.svc`, `.cluster.local`, `api-int.<cluster>.<domain>`, every
//! cluster, service and machine network, and the user's own entries (`*` alone is kept as is).

use super::fields::check_proxy_url;
use super::network::Networks;
use crate::config::LoadedConfig;
use crate::error::Result;
use crate::release::{Switch, Switches};
use serde::Serialize;
use std::collections::BTreeSet;

/// Proxy settings after validation. Its `Debug` leaves out the URLs' `user:password@`.
#[derive(Clone, Default, PartialEq, Serialize)]
pub struct ProxySettings {
    /// An http or https proxy is set.
    pub enabled: bool,
    /// `""` when unset.
    pub http_proxy: String,
    /// `""` when unset.
    pub https_proxy: String,
    /// The computed list: sorted, de-duplicated, comma-separated; `""` without a proxy.
    pub no_proxy: String,
    /// noProxy as the user wrote it.
    pub user_no_proxy: String,
}

impl std::fmt::Debug for ProxySettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hidden =
            |url: &str| bootgen_diagnose::replace_url_user_info(url, |_| "<redacted>".to_string());
        f.debug_struct("ProxySettings")
            .field("enabled", &self.enabled)
            .field("http_proxy", &hidden(&self.http_proxy))
            .field("https_proxy", &hidden(&self.https_proxy))
            .field("no_proxy", &self.no_proxy)
            .field("user_no_proxy", &self.user_no_proxy)
            .finish()
    }
}

/// The proxy: a URL for at least one of HTTP and HTTPS, an `http://` HTTP proxy, not at an
/// address of the cluster's own pod or service networks or of OVN-Kubernetes' join subnet, and
/// a noProxy list of domains, addresses and CIDRs without spaces or wildcards (`*` alone means
/// all).
pub(super) fn check_proxy(
    loaded: &LoadedConfig,
    networks: &Networks,
    switches: &Switches,
) -> Result<()> {
    let Some(proxy) = &loaded.config.proxy else {
        return Ok(());
    };
    let http = proxy.http_proxy.as_deref().unwrap_or_default();
    let https = proxy.https_proxy.as_deref().unwrap_or_default();
    if http.is_empty() && https.is_empty() {
        return Err(loaded.field_error(
            "proxy",
            "names no proxy: write httpProxy or httpsProxy (or remove the proxy section)",
        ));
    }
    if !http.is_empty() && crate::url_syntax::strip_scheme(http, "http").is_none() {
        return Err(loaded.field_error(
            "proxy.httpProxy",
            format!(
                "`{}` must start with http:// (the proxy for plain HTTP is reached over HTTP)",
                crate::url_syntax::redact_userinfo(http)
            ),
        ));
    }
    for (field, url) in [("proxy.httpProxy", http), ("proxy.httpsProxy", https)] {
        let host = url.split_once("://").map_or("", |(_, rest)| rest);
        let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
        let host = host.split('/').next().unwrap_or_default();
        let host = match host.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or_default(),
            None => host.rsplit_once(':').map_or(host, |(h, _)| h),
        };
        let Ok(address) = host.parse::<std::net::IpAddr>() else {
            continue;
        };
        let cluster = networks.cluster.iter().map(|c| (&c.cidr, "pod network"));
        let service = networks.service.iter().map(|s| (s, "service network"));
        let join = networks
            .ovn_ipv4_join_subnet
            .iter()
            .map(|j| (j, "OVN-Kubernetes IPv4 internal join subnet"));
        let mut own = cluster.chain(service).chain(join);
        if let Some((net, kind)) = own.find(|(n, _)| n.contains(&address)) {
            return Err(loaded.field_error(
                field,
                format!(
                    "points at {address}, inside the cluster's {kind} {net}: the proxy must be reachable outside the cluster's own networks"
                ),
            ));
        }
    }
    let no_proxy = proxy.no_proxy.as_deref().unwrap_or_default();
    if no_proxy.is_empty() || no_proxy == "*" {
        return Ok(());
    }
    if no_proxy.contains(' ') {
        return Err(loaded.field_error(
            "proxy.noProxy",
            format!(
                "`{no_proxy}` has spaces: separate the entries with commas only (`{}`)",
                no_proxy
                    .split([',', ' '])
                    .filter(|entry| !entry.is_empty())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        ));
    }
    for (index, entry) in no_proxy.split(',').enumerate() {
        if entry == "*" {
            return Err(loaded.field_error(
                "proxy.noProxy",
                "`*` (no proxy for anything) must stand alone: write `noProxy: \"*\"`, or list the domains and networks",
            ));
        }
        if entry.contains('*') {
            return Err(loaded.field_error(
                "proxy.noProxy",
                format!(
                    "`{entry}` has a wildcard: write the domain with a leading dot instead (`.{}` covers every name under it), or `*` alone for no proxy at all",
                    entry.trim_start_matches('*').trim_start_matches('.')
                ),
            ));
        }
        let addresses = switches.has(Switch::NoProxyAddresses);
        if !no_proxy_entry_taken(entry, addresses) {
            return Err(loaded.field_error(
                "proxy.noProxy",
                format!(
                    "entry {}: {}; each entry must be a domain (`.example.com` for every name under it), a CIDR{} (the installer refuses the list, and the cluster's network operator would refuse the Proxy)",
                    index + 1,
                    no_proxy_entry_problem(entry),
                    if addresses { " or an IP address" } else { " or an IPv4 address (an IPv6 one as a /128)" }
                ),
            ));
        }
    }
    Ok(())
}

/// Whether the installer takes a noProxy entry: a DNS subdomain (after one leading and one
/// trailing dot), a CIDR, or, with `addresses` (4.13 on), an IP address.
fn no_proxy_entry_taken(entry: &str, addresses: bool) -> bool {
    let name = entry.strip_prefix('.').unwrap_or(entry);
    let name = name.strip_suffix('.').unwrap_or(name);
    super::fields::is_dns_subdomain(name)
        || entry.parse::<ipnet::IpNet>().is_ok()
        || (addresses && entry.parse::<std::net::IpAddr>().is_ok())
}

/// What is wrong with a refused noProxy entry, in words that say what to write.
fn no_proxy_entry_problem(entry: &str) -> String {
    if entry.is_empty() {
        return "is empty (a comma at the start or end, or two together): remove the extra comma"
            .into();
    }
    if let Some((_, rest)) = entry.split_once("://") {
        return format!(
            "`{entry}` is a URL: write its host alone (`{}`)",
            rest.split(['/', ':']).next().unwrap_or_default()
        );
    }
    if let Some((host, _)) = entry
        .split_once('/')
        .filter(|(_, after)| after.parse::<u8>().is_err())
    {
        return format!("`{entry}` has a path: write the host alone (`{host}`)");
    }
    if entry.starts_with('[') {
        return format!("`{entry}` is bracketed: write the address without brackets");
    }
    if let Some((host, _)) = entry
        .rsplit_once(':')
        .filter(|(h, p)| !h.contains(':') && p.bytes().all(|b| b.is_ascii_digit()))
    {
        return format!(
            "`{entry}` has a port: write the host alone (`{host}`); noProxy covers every port"
        );
    }
    if entry.bytes().any(|b| b.is_ascii_uppercase()) {
        return format!(
            "`{entry}` has capital letters: write `{}`",
            entry.to_ascii_lowercase()
        );
    }
    format!("`{entry}` is not a DNS name (lowercase letters, digits, `-` and `.`)")
}

pub(super) fn settings(
    loaded: &LoadedConfig,
    cluster_name: &str,
    base_domain: &str,
    networks: &Networks,
) -> Result<ProxySettings> {
    let Some(raw) = loaded.config.proxy.clone() else {
        return Ok(ProxySettings::default());
    };
    let http_proxy = raw.http_proxy.unwrap_or_default();
    let https_proxy = raw.https_proxy.unwrap_or_default();
    let user_no_proxy = raw.no_proxy.unwrap_or_default();
    for (field, value) in [
        ("proxy.httpProxy", &http_proxy),
        ("proxy.httpsProxy", &https_proxy),
    ] {
        if !value.is_empty() {
            check_proxy_url(value).map_err(|m| loaded.field_error(field, m))?;
        }
    }
    let enabled = !http_proxy.is_empty() || !https_proxy.is_empty();
    let no_proxy = if !enabled {
        String::new()
    } else if user_no_proxy.trim() == "*" {
        "*".to_string()
    } else {
        let mut entries: BTreeSet<String> = ["127.0.0.1", "localhost", ".svc", ".cluster.local"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        entries.insert(format!("api-int.{cluster_name}.{base_domain}"));
        entries.extend(networks.service.iter().map(|n| n.to_string()));
        entries.extend(networks.machine.iter().map(|n| n.to_string()));
        entries.extend(networks.cluster.iter().map(|n| n.cidr.to_string()));
        entries.extend(
            user_no_proxy
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
        entries.into_iter().collect::<Vec<_>>().join(",")
    };
    Ok(ProxySettings {
        enabled,
        http_proxy,
        https_proxy,
        no_proxy,
        user_no_proxy,
    })
}

#[cfg(test)]
mod tests {
    fn refusal(version: &str, no_proxy: &str) -> String {
        let text = format!(
            "{}proxy:\n  httpProxy: http://proxy.example.com:3128\n  noProxy: '{no_proxy}'\n",
            super::super::MINIMAL_INSTALL_CONFIG
        );
        crate::model::refusal(&text, version)
    }

    // Each entry as the installer takes it: a domain, a CIDR, or (4.13 on) an IP address.
    #[test]
    fn no_proxy_entries_are_taken_as_the_installer_takes_them() {
        for version in ["4.12.0", "4.13.0", "4.22.0"] {
            for taken in [
                "*",
                ".example.com,example.com.,api-int.demo.example.com",
                "192.0.2.10,10.0.0.0/8,fd00::/64,fd00::10/128",
                "a-b.c1.example",
            ] {
                assert_eq!(refusal(version, taken), "", "{version} {taken}");
            }
        }
        assert_eq!(refusal("4.13.0", "fd00::10"), "");
        let ipv6 = refusal("4.12.0", ".example.com,fd00::10");
        assert!(
            ipv6.contains("entry 2: `fd00::10` is not a DNS name") && ipv6.contains("as a /128"),
            "{ipv6}"
        );
        for (entry, said) in [
            (".example.com,", "entry 2: is empty"),
            (",a.example.com", "entry 1: is empty"),
            ("a.example.com,,b.example.com", "entry 2: is empty"),
            (
                "registry.example.com:5000",
                "has a port: write the host alone (`registry.example.com`)",
            ),
            (
                "https://registry.example.com/v2",
                "is a URL: write its host alone (`registry.example.com`)",
            ),
            ("registry.example.com/v2", "has a path"),
            ("[fd00::1]", "is bracketed"),
            ("Registry.Example.com", "write `registry.example.com`"),
            ("my_host.example.com", "is not a DNS name"),
            (".", "is not a DNS name"),
        ] {
            let refused = refusal("4.22.0", entry);
            assert!(
                refused.contains("proxy.noProxy") && refused.contains(said),
                "{entry}: {refused}"
            );
        }
        let spaced = refusal("4.22.0", "a.example.com b.example.com");
        assert!(
            spaced.contains("(`a.example.com,b.example.com`)"),
            "{spaced}"
        );
    }
}
