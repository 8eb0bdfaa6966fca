//! The install-config's `featureSet` and, with `CustomNoUpgrade`, its `featureGates`, checked
//! against what the release's installer accepts: a cluster asked for a feature set its release
//! does not have never comes up, and a custom gate the installer cannot parse is refused there.

use crate::config::LoadedConfig;
use crate::error::Result;
use crate::release::{Profile, CUSTOM_FEATURE_SET, PROFILES};
use serde::Serialize;

/// The feature gates `featureGates` turns on and off (only with `CustomNoUpgrade`), in the
/// install-config's order; the FeatureGate manifest carries them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CustomFeatureGates {
    /// `Name=true` entries.
    pub enabled: Vec<String>,
    /// `Name=false` entries.
    pub disabled: Vec<String>,
}

impl CustomFeatureGates {
    /// True when the install-config lists none.
    pub fn is_empty(&self) -> bool {
        self.enabled.is_empty() && self.disabled.is_empty()
    }
}

/// The feature set (`""` when unset) and the custom feature gates, or an error naming the field.
pub(crate) fn feature_selection(
    loaded: &LoadedConfig,
    profile: &Profile,
) -> Result<(String, CustomFeatureGates)> {
    let ic = &loaded.config;
    let feature_set = ic.feature_set.clone().unwrap_or_default();
    if !profile.feature_sets.contains(&feature_set) {
        let choices: Vec<&str> = profile
            .feature_sets
            .iter()
            .map(|s| if s.is_empty() { "(unset)" } else { s.as_str() })
            .collect();
        let okd = if feature_set == "OKD" {
            " (OKD is for OKD's installer: OpenShift's refuses it)"
        } else {
            ""
        };
        return Err(loaded.field_error(
            "featureSet",
            format!(
                "`{feature_set}` is not a feature set of OpenShift {}{okd}; use one of: {}",
                profile.minor,
                choices.join(", ")
            ),
        ));
    }
    let mut gates = CustomFeatureGates::default();
    if ic.feature_gates.is_empty() {
        return Ok((feature_set, gates));
    }
    if !profile.has("custom_feature_gates") {
        let first = PROFILES
            .iter()
            .find(|p| p.has("custom_feature_gates"))
            .map_or_else(String::new, |p| format!(" (it arrived in {})", p.minor));
        return Err(loaded.field_error(
            "featureGates",
            format!(
                "the OpenShift {} installer does not read featureGates{first}",
                profile.minor
            ),
        ));
    }
    if feature_set != CUSTOM_FEATURE_SET {
        return Err(loaded.field_error(
            "featureGates",
            format!("is read only with featureSet: {CUSTOM_FEATURE_SET} (it is `{feature_set}`)"),
        ));
    }
    for (i, entry) in ic.feature_gates.iter().enumerate() {
        let parsed = entry
            .split_once('=')
            .filter(|(name, value)| !name.is_empty() && !value.contains('='))
            .and_then(|(name, value)| Some((name, parse_go_bool(value)?)));
        match parsed {
            Some((name, true)) => gates.enabled.push(name.to_string()),
            Some((name, false)) => gates.disabled.push(name.to_string()),
            None => {
                return Err(loaded.field_error(
                    &format!("featureGates.{i}"),
                    format!("`{entry}` must be <FeatureGateName>=<true|false>"),
                ))
            }
        }
    }
    Ok((feature_set, gates))
}

/// A boolean as the installer parses it (Go's `strconv.ParseBool`).
fn parse_go_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selection(version: &str, yaml_tail: &str) -> Result<(String, CustomFeatureGates)> {
        let text = format!(
            "apiVersion: v1\nmetadata:\n  name: demo\nbaseDomain: example.com\nplatform:\n  none: {{}}\npullSecret: '{{}}'\n{yaml_tail}"
        );
        let loaded = crate::config::parse(&text, "install-config.yaml").unwrap();
        let release = crate::release::select(Some(version), None).unwrap();
        feature_selection(&loaded, release.profile)
    }

    #[test]
    fn custom_gates_split_into_enabled_and_disabled() {
        let (set, gates) = selection(
            "5.0.0",
            "featureSet: CustomNoUpgrade\nfeatureGates:\n- OSStreams=true\n- ClusterAPIMachineManagement=F\n- CRDCompatibilityRequirementOperator=1\n",
        )
        .unwrap();
        assert_eq!(set, "CustomNoUpgrade");
        assert_eq!(
            gates.enabled,
            ["OSStreams", "CRDCompatibilityRequirementOperator"]
        );
        assert_eq!(gates.disabled, ["ClusterAPIMachineManagement"]);
    }

    #[test]
    fn refusals_name_the_field_and_the_way_out() {
        let err = |version: &str, tail: &str| selection(version, tail).unwrap_err().to_string();
        let bad = err("4.22.0", "featureSet: TechPreview\n");
        assert!(
            bad.contains("featureSet") && bad.contains("line 8"),
            "{bad}"
        );
        assert!(
            bad.contains(
                "use one of: (unset), TechPreviewNoUpgrade, CustomNoUpgrade, DevPreviewNoUpgrade"
            ),
            "{bad}"
        );
        let okd = err("5.0.0", "featureSet: OKD\n");
        assert!(okd.contains("OpenShift's refuses it"), "{okd}");
        // LatencySensitive left after 4.15; DevPreviewNoUpgrade came in 4.16.
        assert!(selection("4.15.0", "featureSet: LatencySensitive\n").is_ok());
        assert!(err("4.16.0", "featureSet: LatencySensitive\n")
            .contains("not a feature set of OpenShift 4.16"));
        assert!(err("4.15.0", "featureSet: DevPreviewNoUpgrade\n")
            .contains("not a feature set of OpenShift 4.15"));
        let old = err(
            "4.13.0",
            "featureSet: CustomNoUpgrade\nfeatureGates:\n- A=true\n",
        );
        assert!(
            old.contains("does not read featureGates (it arrived in 4.14)"),
            "{old}"
        );
        let not_custom = err(
            "4.22.0",
            "featureSet: TechPreviewNoUpgrade\nfeatureGates:\n- A=true\n",
        );
        assert!(
            not_custom.contains("only with featureSet: CustomNoUpgrade"),
            "{not_custom}"
        );
        for entry in ["A", "A=yes", "=true", "A=true=false"] {
            let text = err(
                "4.22.0",
                &format!("featureSet: CustomNoUpgrade\nfeatureGates:\n- B=true\n- '{entry}'\n"),
            );
            assert!(
                text.contains("featureGates[1]") && text.contains("line 11"),
                "{text}"
            );
            assert!(
                text.contains("must be <FeatureGateName>=<true|false>"),
                "{text}"
            );
        }
    }
}
