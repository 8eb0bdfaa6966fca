//! `capabilities`: the baseline set and the capabilities the release knows (the release table's
//! `[[capability]]` and `[[capability_set]]` rows), and the dependencies its installer checks.

use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::release::{Minor, Profile, Switch, Switches};

use super::{CloudControllerManager, PlatformSettings};

/// `capabilities.baselineCapabilitySet`: the optional components a cluster starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapabilitySet {
    /// None of them (`None`).
    None,
    /// Those of a release (`v4.11`): what that release had, whatever the cluster runs.
    Release(Minor),
    /// All of them, including those later releases add (`vCurrent`).
    Current,
}

impl CapabilitySet {
    /// The set the install-config's `name` names; `None` for no set's name.
    pub fn from_name(name: &str) -> Option<CapabilitySet> {
        match name {
            "None" => Some(CapabilitySet::None),
            "vCurrent" => Some(CapabilitySet::Current),
            _ => name
                .strip_prefix('v')
                .and_then(|minor| minor.parse().ok())
                .map(CapabilitySet::Release),
        }
    }
}

impl std::fmt::Display for CapabilitySet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CapabilitySet::None => f.write_str("None"),
            CapabilitySet::Release(minor) => write!(f, "v{minor}"),
            CapabilitySet::Current => f.write_str("vCurrent"),
        }
    }
}

/// The capabilities the install-config asks for, as the release's installer reads them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Capabilities {
    /// The baseline set; `None` when the install-config gives no capabilities, or the release
    /// has none (its installer ignores the field).
    pub baseline: Option<CapabilitySet>,
    /// The capabilities enabled besides the baseline's.
    pub additional: Vec<String>,
}

/// The capabilities the release knows, in the table's order.
fn capabilities(profile: &Profile) -> Vec<&str> {
    profile
        .capabilities
        .iter()
        .map(|c| c.name.as_str())
        .collect()
}

/// The baseline sets the release knows (`None`, `v4.N`..., `vCurrent`); empty before 4.11.
pub(super) fn capability_sets(profile: &Profile) -> Vec<&str> {
    if profile.capability_sets.is_empty() {
        return Vec::new();
    }
    let mut sets = vec!["None"];
    sets.extend(profile.capability_sets.iter().map(|s| s.name.as_str()));
    sets.push("vCurrent");
    sets
}

/// The capabilities a baseline set turns on in the release.
fn set_members<'p>(profile: &'p Profile, set: &str) -> Vec<&'p str> {
    let known = profile.capabilities.iter();
    match set {
        "None" => Vec::new(),
        "vCurrent" => known.map(|c| c.name.as_str()).collect(),
        versioned => {
            let set_minor = profile
                .capability_sets
                .iter()
                .find(|s| s.name == versioned)
                .map(|s| s.minor);
            known
                .filter(|c| c.in_sets_from.is_some_and(|from| Some(from) <= set_minor))
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
    switches: &Switches,
    platform: &PlatformSettings,
    warnings: &mut Vec<Warning>,
) -> Result<Capabilities> {
    let Some(caps) = &loaded.config.capabilities else {
        return Ok(Capabilities::default());
    };
    let release = profile.minor;
    let sets = capability_sets(profile);
    if sets.is_empty() {
        // 4.9 and 4.10 have no capabilities.
        super::unknown_fields::ignored_by_release(
            loaded,
            release,
            &super::unknown_fields::NotInRelease {
                field: "capabilities",
                arrived: crate::release::first_release(|p| !p.capability_sets.is_empty()),
                consequence: ", so the cluster gets every component",
            },
            warnings,
        );
        return Ok(Capabilities::default());
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
    let known = capabilities(profile);
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
    let mut enabled = set_members(profile, set);
    enabled.extend(&additional);
    let needs_olm = switches.has(Switch::MarketplaceNeedsOlm)
        || (set == "None" && switches.has(Switch::MarketplaceNeedsOlmWithNone));
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
    if switches.has(Switch::IngressCapabilityRequired) && !enabled.contains(&"Ingress") {
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
    check_platform_needs(loaded, platform, switches, &enabled)?;
    Ok(Capabilities {
        baseline: CapabilitySet::from_name(set),
        additional: caps.additional_enabled_capabilities.clone(),
    })
}

/// The capabilities the platform cannot do without, as the release's installer decides:
/// CloudCredential off platform none, and CloudControllerManager on vSphere and on an
/// external platform whose provider runs its own cloud controller manager.
fn check_platform_needs(
    loaded: &LoadedConfig,
    platform: &PlatformSettings,
    switches: &Switches,
    enabled: &[&str],
) -> Result<()> {
    let key = platform.name();
    if switches.has(Switch::CloudCredentialCapabilityNeeded)
        && !enabled.contains(&"CloudCredential")
    {
        return Err(loaded.field_error(
            "capabilities",
            format!(
                "leaves out the CloudCredential capability, which platform {key} needs (only a cluster on platform none may go without it): add CloudCredential to additionalEnabledCapabilities"
            ),
        ));
    }
    let own_ccm = platform.external().is_none_or(|external| {
        external.cloud_controller_manager == CloudControllerManager::External
    });
    if switches.has(Switch::CloudControllerManagerCapabilityNeeded)
        && own_ccm
        && !enabled.contains(&"CloudControllerManager")
    {
        let why = if platform.external().is_some() {
            "which platform.external.cloudControllerManager External needs: add CloudControllerManager to additionalEnabledCapabilities, or leave cloudControllerManager out"
        } else {
            "without which the nodes stay tainted as uninitialized: add CloudControllerManager to additionalEnabledCapabilities"
        };
        return Err(loaded.field_error(
            "capabilities",
            format!("leaves out the CloudControllerManager capability on platform {key}, {why}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_before_4_11_are_ignored_by_4_9_and_refused_by_4_10() {
        let text = &format!(
            "{}capabilities:\n  baselineCapabilitySet: None\n",
            super::super::MINIMAL_INSTALL_CONFIG
        );
        let loaded = crate::config::parse(text, "install-config.yaml").unwrap();
        // 4.10's installer refuses a field it does not know, before anything else.
        let refused = super::super::refusal(text, "4.10.0");
        assert!(
            refused.contains("`capabilities`") && refused.contains("arrived in 4.11"),
            "{refused}"
        );
        // 4.9's ignores it.
        let release = crate::release::select(Some("4.9.0"), None).unwrap();
        let switches = release.profile.switches(Default::default());
        let mut warnings = Vec::new();
        let read = check_capabilities(
            &loaded,
            release.profile,
            &switches,
            &PlatformSettings::None,
            &mut warnings,
        )
        .unwrap();
        // What the installer ignores does not reach the ClusterVersion either.
        assert_eq!(read, Capabilities::default());
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].line, Some(8));
        assert!(
            warnings[0].message.contains("arrived in 4.11"),
            "{:?}",
            warnings[0]
        );
        let newer = crate::release::select(Some("4.11.0"), None).unwrap();
        let switches = newer.profile.switches(Default::default());
        let read = check_capabilities(
            &loaded,
            newer.profile,
            &switches,
            &PlatformSettings::None,
            &mut warnings,
        )
        .unwrap();
        assert_eq!(read.baseline, Some(CapabilitySet::None));
        assert_eq!(warnings.len(), 1);
    }

    /// Every set a release's table rows name is one [`CapabilitySet`] reads, and reads back.
    #[test]
    fn every_capability_set_is_typed() {
        for profile in crate::release::PROFILES.iter() {
            for name in capability_sets(profile) {
                let set = CapabilitySet::from_name(name);
                assert_eq!(set.map(|s| s.to_string()).as_deref(), Some(name));
            }
        }
    }

    #[test]
    fn capability_sets_grow_with_the_release() {
        let m = |t: &str| crate::release::profile_for(t.parse().unwrap()).unwrap();
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
