//! The install-config's `featureSet` and, with `CustomNoUpgrade`, its `featureGates`, checked
//! against what the release's installer accepts: a cluster asked for a feature set its release
//! does not have never comes up, and a custom gate the installer cannot parse is refused there.
//! The node image's `osImageStream` hangs on them: a stream other than the release's default
//! needs the OSStreams feature.

use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::release::{
    feature_set_label, Distribution, DistributionFacts, Profile, Switch, Switches,
    CUSTOM_FEATURE_SET, OS_STREAMS_OPT_IN,
};
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
    facts: &DistributionFacts,
    switches: &Switches,
    warnings: &mut Vec<Warning>,
) -> Result<(String, CustomFeatureGates)> {
    let ic = &loaded.config;
    let mut feature_set = ic.feature_set.clone().unwrap_or_default();
    // Before 4.12 the installer has no featureSet field (only the default set).
    if facts.feature_sets.len() <= 1 && ic.feature_set.is_some() {
        super::unknown_fields::ignored_by_release(
            loaded,
            profile.minor,
            &super::unknown_fields::NotInRelease {
                field: "featureSet",
                arrived: crate::release::first_release(|p| {
                    p.distribution(crate::release::Distribution::Ocp)
                        .is_some_and(|facts| facts.feature_sets.len() > 1)
                }),
                consequence: ", so the cluster gets the default feature set",
            },
            warnings,
        );
        feature_set.clear();
    }
    if !facts.feature_sets.contains(&feature_set) {
        let choices: Vec<&str> = facts
            .feature_sets
            .iter()
            .map(|s| feature_set_label(s))
            .collect();
        let okd = if feature_set == "OKD" && facts.distribution == Distribution::Ocp {
            " (OKD is for OKD's installer: OpenShift's refuses it)"
        } else {
            ""
        };
        return Err(loaded.field_error(
            "featureSet",
            format!(
                "`{feature_set}` is not a feature set of {} {}{okd}; use one of: {}",
                facts.distribution.label(),
                profile.minor,
                choices.join(", ")
            ),
        ));
    }
    let mut gates = CustomFeatureGates::default();
    if ic.feature_gates.is_empty() {
        return Ok((feature_set, gates));
    }
    if !switches.has(Switch::CustomFeatureGates) {
        let first = super::unknown_fields::arrived_text(crate::release::first_with(
            Switch::CustomFeatureGates,
        ));
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
            format!(
                "is read only with featureSet: {CUSTOM_FEATURE_SET} (it is {})",
                if feature_set.is_empty() {
                    "unset".to_string()
                } else {
                    format!("`{feature_set}`")
                }
            ),
        ));
    }
    for (i, entry) in ic.feature_gates.iter().enumerate() {
        let parsed = entry
            .split_once('=')
            .filter(|(name, value)| !name.is_empty() && !value.contains('='))
            .and_then(|(name, value)| Some((name, parse_go_bool(value)?)));
        // Any gate name is taken (the cluster's feature gates are many); one that nearly spells
        // a gate this release's bootstrap acts on is likely that one, misspelled.
        if let Some((name, _)) = parsed {
            let known = profile.opt_ins.iter().flat_map(|o| &o.feature_gates);
            if !known.clone().any(|g| g == name) {
                if let Some(meant) = crate::config::nearest(name, known.map(String::as_str)) {
                    warnings.push(loaded.warning(
                        &format!("featureGates.{i}"),
                        format!("`{name}` is no feature gate bootgen knows: did you mean {meant}?"),
                    ));
                }
            }
        }
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

/// The OS stream of the node image: the install-config's `osImageStream`, or the release's
/// default. Before the installer read the field it is ignored with a warning, as that
/// installer ignores unknown keys.
pub(crate) fn os_image_stream(
    loaded: &LoadedConfig,
    profile: &Profile,
    facts: &DistributionFacts,
    feature_set: &str,
    custom: &CustomFeatureGates,
    warnings: &mut Vec<Warning>,
) -> Result<String> {
    let default = facts.os_image_stream.clone();
    let name = facts.distribution.label();
    let Some(asked) = loaded
        .config
        .os_image_stream
        .as_deref()
        .filter(|s| !s.is_empty())
    else {
        return Ok(default);
    };
    if facts.os_image_streams.is_empty() {
        let first = super::unknown_fields::arrived_text(crate::release::first_release(|p| {
            p.distribution(facts.distribution)
                .is_some_and(|f| !f.os_image_streams.is_empty())
        }));
        warnings.push(loaded.warning(
            "osImageStream",
            format!(
                "the {name} {} installer does not read osImageStream{first}; ignored",
                profile.minor
            ),
        ));
        return Ok(default);
    }
    if !facts.os_image_streams.iter().any(|s| s == asked) {
        return Err(loaded.field_error(
            "osImageStream",
            format!(
                "`{asked}` is not an OS image stream of {name} {}; use one of: {}",
                profile.minor,
                facts.os_image_streams.join(", ")
            ),
        ));
    }
    if asked != default {
        let opt_in = profile.opt_ins.iter().find(|o| o.name == OS_STREAMS_OPT_IN);
        if !opt_in.is_some_and(|o| o.chosen_by(feature_set, &custom.enabled)) {
            let how = opt_in.map_or_else(String::new, |o| format!(": {}", o.chosen_with()));
            return Err(loaded.field_error(
                "osImageStream",
                format!(
                    "`{asked}` is not {name} {}'s default stream ({default}): choosing another \
                     needs the OSStreams feature gate{how}",
                    profile.minor
                ),
            ));
        }
    }
    Ok(asked.to_string())
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

    /// A minimal install-config ending in `yaml_tail` (which starts on line 8), and the
    /// profile of `version`.
    fn config(version: &str, yaml_tail: &str) -> (LoadedConfig, &'static Profile) {
        let text = format!(
            "apiVersion: v1\nmetadata:\n  name: demo\nbaseDomain: example.com\nplatform:\n  none: {{}}\npullSecret: '{{}}'\n{yaml_tail}"
        );
        let loaded = crate::config::parse(&text, "install-config.yaml").unwrap();
        let release = crate::release::select(Some(version), None).unwrap();
        (loaded, release.profile)
    }

    fn selection(version: &str, yaml_tail: &str) -> Result<(String, CustomFeatureGates)> {
        selection_of(Distribution::Ocp, version, yaml_tail)
    }

    fn selection_of(
        distribution: Distribution,
        version: &str,
        yaml_tail: &str,
    ) -> Result<(String, CustomFeatureGates)> {
        let (loaded, profile) = config(version, yaml_tail);
        let facts = profile.distribution(distribution).unwrap();
        feature_selection(
            &loaded,
            profile,
            facts,
            &profile.switches(Default::default()),
            &mut Vec::new(),
        )
    }

    fn stream(version: &str, yaml_tail: &str) -> (Result<String>, Vec<Warning>) {
        stream_of(Distribution::Ocp, version, yaml_tail)
    }

    fn stream_of(
        distribution: Distribution,
        version: &str,
        yaml_tail: &str,
    ) -> (Result<String>, Vec<Warning>) {
        let (loaded, profile) = config(version, yaml_tail);
        let facts = profile.distribution(distribution).unwrap();
        let mut warnings = Vec::new();
        let switches = profile.switches(Default::default());
        let chosen = feature_selection(&loaded, profile, facts, &switches, &mut warnings).and_then(
            |(set, custom)| os_image_stream(&loaded, profile, facts, &set, &custom, &mut warnings),
        );
        (chosen, warnings)
    }

    #[test]
    fn okd_has_one_os_stream_and_its_own_feature_set() {
        let okd = |version: &str, tail: &str| stream_of(Distribution::Okd, version, tail).0;
        assert_eq!(okd("4.21.0", "").unwrap(), "");
        assert_eq!(okd("4.22.0", "").unwrap(), "centos-10");
        assert_eq!(okd("5.0.0", "").unwrap(), "centos-10");
        assert_eq!(
            okd("5.0.0", "osImageStream: centos-10\n").unwrap(),
            "centos-10"
        );
        let refused = okd("4.22.0", "osImageStream: rhel-9\n")
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("osImageStream") && refused.contains("OKD 4.22"),
            "{refused}"
        );
        // The OKD feature set is OKD's installer's alone, from 4.22.
        assert!(selection_of(Distribution::Okd, "4.22.0", "featureSet: OKD\n").is_ok());
        assert!(selection_of(Distribution::Okd, "4.21.0", "featureSet: OKD\n").is_err());
        let ocp = selection("4.22.0", "featureSet: OKD\n")
            .unwrap_err()
            .to_string();
        assert!(ocp.contains("OpenShift's refuses it"), "{ocp}");
    }

    #[test]
    fn a_misspelled_feature_gate_is_warned_of_with_the_gate_meant() {
        let (loaded, profile) = config(
            "5.0.0",
            "featureSet: CustomNoUpgrade\nfeatureGates:\n- OSStream=true\n- SomeOtherGate=true\n",
        );
        let facts = profile.distribution(Distribution::Ocp).unwrap();
        let mut warnings = Vec::new();
        let switches = profile.switches(Default::default());
        feature_selection(&loaded, profile, facts, &switches, &mut warnings).unwrap();
        let said: Vec<String> = warnings.iter().map(ToString::to_string).collect();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].contains("featureGates[0]") && said[0].contains("did you mean OSStreams?"),
            "{said:?}"
        );
    }

    #[test]
    fn os_image_stream_is_the_release_default_unless_the_feature_lets_a_cluster_choose() {
        let chosen = |version: &str, tail: &str| stream(version, tail).0.unwrap();
        let refused = |version: &str, tail: &str| stream(version, tail).0.unwrap_err().to_string();
        assert_eq!(chosen("4.21.0", ""), "");
        assert_eq!(chosen("4.22.0", ""), "rhel-9");
        assert_eq!(chosen("5.0.0", ""), "rhel-10");
        // The default may always be named; 4.22 lets preview clusters try RHEL 10.
        assert_eq!(chosen("4.22.0", "osImageStream: rhel-9\n"), "rhel-9");
        assert_eq!(
            chosen(
                "4.22.0",
                "featureSet: TechPreviewNoUpgrade\nosImageStream: rhel-10\n"
            ),
            "rhel-10"
        );
        assert_eq!(
            chosen(
                "4.22.0",
                "featureSet: CustomNoUpgrade\nfeatureGates:\n- OSStreams=true\nosImageStream: rhel-10\n"
            ),
            "rhel-10"
        );
        // 5.0 has the feature by default, so staying on RHEL 9 needs no preview set.
        assert_eq!(chosen("5.0.0", "osImageStream: rhel-9\n"), "rhel-9");
        let off = refused("4.22.0", "osImageStream: rhel-10\n");
        assert!(
            off.contains("osImageStream") && off.contains("line 8"),
            "{off}"
        );
        assert!(
            off.contains("not OpenShift 4.22's default stream (rhel-9)")
                && off.contains("featureSet TechPreviewNoUpgrade or DevPreviewNoUpgrade, or CustomNoUpgrade with OSStreams"),
            "{off}"
        );
        let custom_off = refused(
            "5.0.0",
            "featureSet: CustomNoUpgrade\nfeatureGates:\n- OSStreams=false\nosImageStream: rhel-9\n",
        );
        assert!(
            custom_off.contains("needs the OSStreams feature gate"),
            "{custom_off}"
        );
        let unknown = refused("5.0.0", "osImageStream: rhel-8\n");
        assert!(
            unknown.contains(
                "`rhel-8` is not an OS image stream of OpenShift 5.0; use one of: rhel-9, rhel-10"
            ),
            "{unknown}"
        );
        // Before 4.22 the installer warns that the key is unknown and goes on without it.
        let (old, warnings) = stream("4.21.0", "osImageStream: rhel-10\n");
        assert_eq!(old.unwrap(), "");
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].field, "osImageStream");
        assert!(
            warnings[0]
                .message
                .contains("does not read osImageStream (it arrived in 4.22)"),
            "{:?}",
            warnings[0]
        );
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
