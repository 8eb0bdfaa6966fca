//! The cluster proxy and the noProxy list the installer computes: the sorted, de-duplicated
//! union of loopback names, `.svc`, `.cluster.local`, `api-int.<cluster>.<domain>`, every
//! cluster, service and machine network, and the user's own entries (`*` alone is kept as is).

use super::fields::check_proxy_url;
use super::network::Networks;
use crate::config::LoadedConfig;
use crate::error::Result;
use serde::Serialize;
use std::collections::BTreeSet;

/// Proxy settings after validation.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
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
