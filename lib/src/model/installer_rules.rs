//! The install-config rules that change between releases (`installer_rules.toml`: switches,
//! the capabilities and the baseline capability sets each release knows), read with
//! [`applies`], and the check of `capabilities`. The checks the switches guard live beside
//! what they check: `pool_rules.rs`, `network_rules.rs`, `proxy.rs`.

use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::release::{Minor, Profile};
use serde::Deserialize;
use std::sync::LazyLock;

const TABLE: &str = include_str!("installer_rules.toml");

#[derive(Deserialize, Default)]
struct Table {
    rule: Vec<Row>,
    capability: Vec<Row>,
    capability_set: Vec<Row>,
}

/// A row that holds from `since` on, up to `until` (inclusive) when given.
#[derive(Deserialize)]
struct Row {
    name: String,
    since: String,
    #[serde(default)]
    until: Option<String>,
    /// Capabilities: the first baseline set holding it.
    #[serde(default)]
    in_sets_from: Option<String>,
}

/// A release bound of the table (checked by the tests below: a bad one never holds).
fn minor(text: &str) -> Option<Minor> {
    text.parse().ok()
}

impl Row {
    fn holds(&self, release: Minor) -> bool {
        minor(&self.since).is_some_and(|since| since <= release)
            && self
                .until
                .as_deref()
                .is_none_or(|u| minor(u).is_some_and(|until| release <= until))
    }
}

// The table is ours and checked by the tests below; an unreadable one has no rules.
static RULES: LazyLock<Table> = LazyLock::new(|| toml::from_str(TABLE).unwrap_or_default());

/// Whether the installer of `profile`'s release applies the rule `name`.
pub(crate) fn applies(profile: &Profile, name: &str) -> bool {
    let row = RULES.rule.iter().find(|r| r.name == name);
    debug_assert!(row.is_some(), "no rule {name} in installer_rules.toml");
    row.is_some_and(|r| r.holds(profile.minor))
}

/// The capabilities the release knows, in the table's order.
fn capabilities(release: Minor) -> Vec<&'static str> {
    RULES
        .capability
        .iter()
        .filter(|c| c.holds(release))
        .map(|c| c.name.as_str())
        .collect()
}

/// The baseline sets the release knows (`None`, `v4.N`..., `vCurrent`); empty before 4.11.
fn capability_sets(release: Minor) -> Vec<&'static str> {
    let versioned: Vec<&str> = RULES
        .capability_set
        .iter()
        .filter(|s| s.holds(release))
        .map(|s| s.name.as_str())
        .collect();
    if versioned.is_empty() {
        return Vec::new();
    }
    let mut sets = vec!["None"];
    sets.extend(versioned);
    sets.push("vCurrent");
    sets
}

/// The capabilities a baseline set turns on in the release.
fn set_members(release: Minor, set: &str) -> Vec<&'static str> {
    let known = RULES.capability.iter().filter(|c| c.holds(release));
    match set {
        "None" => Vec::new(),
        "vCurrent" => known.map(|c| c.name.as_str()).collect(),
        versioned => {
            let set_minor = minor(versioned.trim_start_matches('v'));
            known
                .filter(|c| {
                    c.in_sets_from
                        .as_deref()
                        .and_then(minor)
                        .is_some_and(|from| Some(from) <= set_minor)
                })
                .map(|c| c.name.as_str())
                .collect()
        }
    }
}

/// `capabilities`: a baseline set and additional capabilities the release knows, and the
/// dependencies its installer checks.
pub(crate) fn check_capabilities(
    loaded: &LoadedConfig,
    profile: &Profile,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    let Some(caps) = &loaded.config.capabilities else {
        return Ok(());
    };
    let release = profile.minor;
    let sets = capability_sets(release);
    if sets.is_empty() {
        // 4.9 and 4.10 have no capabilities; their installer ignores the key.
        warnings.push(loaded.warning(
            "capabilities",
            format!(
                "ignored: OpenShift {release}'s installer does not read capabilities (they arrived in 4.11), so the cluster gets every component"
            ),
        ));
        return Ok(());
    }
    let set = caps.baseline_capability_set.as_deref().unwrap_or_default();
    if !sets.contains(&set) {
        let field = "capabilities.baselineCapabilitySet";
        let what = if set.is_empty() {
            "is required when capabilities are given".to_string()
        } else {
            format!("`{set}` is not a capability set of OpenShift {release}")
        };
        return Err(loaded.field_error(field, format!("{what}; write one of: {}", sets.join(", "))));
    }
    let known = capabilities(release);
    for (i, name) in caps.additional_enabled_capabilities.iter().enumerate() {
        if !known.contains(&name.as_str()) {
            let same_letters = known.iter().find(|k| k.eq_ignore_ascii_case(name));
            let hint = match same_letters {
                Some(k) => format!("write `{k}` (capabilities are case-sensitive)"),
                None => format!("write one of: {}", known.join(", ")),
            };
            return Err(loaded.field_error(
                &format!("capabilities.additionalEnabledCapabilities.{i}"),
                format!("`{name}` is not a capability of OpenShift {release}; {hint}"),
            ));
        }
    }
    let additional: Vec<&str> = caps
        .additional_enabled_capabilities
        .iter()
        .map(String::as_str)
        .collect();
    let mut enabled = set_members(release, set);
    enabled.extend(&additional);
    let needs_olm = applies(profile, "marketplace_needs_olm")
        || (set == "None" && applies(profile, "marketplace_needs_olm_with_none"));
    if needs_olm
        && enabled.contains(&"marketplace")
        && !enabled.contains(&"OperatorLifecycleManager")
    {
        let through = if additional.contains(&"marketplace") {
            String::new()
        } else {
            format!(" (through the {set} set)")
        };
        return Err(loaded.field_error(
            "capabilities.additionalEnabledCapabilities",
            format!(
                "enables marketplace{through} without OperatorLifecycleManager, which the marketplace needs: add OperatorLifecycleManager to the list"
            ),
        ));
    }
    if applies(profile, "ingress_capability_required") && !enabled.contains(&"Ingress") {
        return Err(loaded.field_error(
            "capabilities",
            format!(
                "leaves out the Ingress capability, which every cluster needs: add Ingress to additionalEnabledCapabilities (or use baselineCapabilitySet vCurrent){}",
                if set == "None" {
                    "; a cluster on platform none also keeps CloudCredential and CloudControllerManager"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_parses_and_names_a_rule_used() {
        let table: Table = toml::from_str(TABLE).unwrap();
        assert!(!table.rule.is_empty() && !table.capability.is_empty());
        for row in table
            .rule
            .iter()
            .chain(&table.capability)
            .chain(&table.capability_set)
        {
            let since = minor(&row.since).unwrap();
            if let Some(until) = &row.until {
                assert!(since <= minor(until).unwrap(), "{}", row.name);
            }
            if let Some(from) = &row.in_sets_from {
                assert!(minor(from).is_some(), "{}", row.name);
            }
        }
        for set in &table.capability_set {
            assert!(
                minor(set.name.trim_start_matches('v')).is_some(),
                "{}",
                set.name
            );
        }
        let source = [
            include_str!("installer_rules.rs"),
            include_str!("mod.rs"),
            include_str!("pool_rules.rs"),
            include_str!("network_rules.rs"),
        ]
        .concat();
        for row in &RULES.rule {
            assert!(
                source.contains(&format!("\"{}\"", row.name)),
                "rule {} is read nowhere",
                row.name
            );
        }
    }

    #[test]
    fn capabilities_before_4_11_are_ignored_with_a_warning() {
        let text = "apiVersion: v1\nmetadata:\n  name: demo\nbaseDomain: example.com\nplatform:\n  none: {}\npullSecret: '{\"auths\":{\"r\":{}}}'\ncapabilities:\n  baselineCapabilitySet: None\n";
        let loaded = crate::config::parse(text, "install-config.yaml").unwrap();
        let release = crate::release::select(Some("4.10.0"), None).unwrap();
        let mut warnings = Vec::new();
        check_capabilities(&loaded, release.profile, &mut warnings).unwrap();
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].line, Some(8));
        assert!(
            warnings[0].message.contains("arrived in 4.11"),
            "{:?}",
            warnings[0]
        );
        let newer = crate::release::select(Some("4.11.0"), None).unwrap();
        assert!(check_capabilities(&loaded, newer.profile, &mut warnings).is_ok());
        assert_eq!(warnings.len(), 1);
    }

    #[test]
    fn capability_sets_grow_with_the_release() {
        let m = |t: &str| minor(t).unwrap();
        assert!(capability_sets(m("4.10")).is_empty());
        assert_eq!(
            capability_sets(m("4.12")),
            ["None", "v4.11", "v4.12", "vCurrent"]
        );
        assert!(capability_sets(m("5.0")).contains(&"v4.18"));
        // MachineAPI joined the older sets when it became a capability.
        assert!(set_members(m("4.16"), "v4.11").contains(&"MachineAPI"));
        assert!(!set_members(m("4.12"), "v4.11").contains(&"MachineAPI"));
        assert!(!set_members(m("4.16"), "v4.11").contains(&"OperatorLifecycleManager"));
        assert!(set_members(m("5.0"), "vCurrent").contains(&"ClusterAPI"));
        assert!(!set_members(m("5.0"), "v4.18").contains(&"ClusterAPI"));
    }
}
