//! Install-config fields that bootgen reads but the chosen release's installer does not know
//! yet. Each installer treats them its way: 4.9's ignores them silently, 4.10's and 4.11's
//! refuse the install-config (strict decoding), from 4.12 to 4.21 they are ignored with a
//! warning, and from 4.22 refused again (the switch `unknown_fields_refused`).
//! bootgen refuses where the installer refuses ([`refuse_first_unknown`], before anything else)
//! and warns where it ignores ([`ignored_by_release`], where the field is read), naming the
//! release the field arrived in, so that a setting never silently does nothing.

use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::release::{Minor, Profile, Switch, Switches};

/// What a caller says of a field its release does not know.
pub(crate) struct NotInRelease<'a> {
    /// The field's path, e.g. `imageDigestSources`.
    pub field: &'a str,
    /// The release it arrived in (`4.14`), from the release table.
    pub arrived: Option<Minor>,
    /// What ignoring it means for the cluster, appended to the warning (`, so ...`), or "".
    pub consequence: &'a str,
}

/// Says that `field` is ignored: what an installer that does not refuse unknown fields (4.9,
/// 4.12 to 4.21) does with it. Where the installer refuses them (4.10, 4.11, from 4.22),
/// [`refuse_first_unknown`] has refused the install-config before any field is read.
pub(crate) fn ignored_by_release(
    loaded: &LoadedConfig,
    minor: Minor,
    what: &NotInRelease<'_>,
    warnings: &mut Vec<Warning>,
) {
    let NotInRelease {
        field,
        arrived,
        consequence,
    } = what;
    warnings.push(loaded.warning(
        field,
        format!(
            "ignored: OpenShift {minor}'s installer does not know this field{}{consequence}",
            arrived_text(*arrived)
        ),
    ));
}

/// ` (it arrived in 4.N)`, or nothing when no supported release has it.
pub(crate) fn arrived_text(arrived: Option<Minor>) -> String {
    arrived.map_or_else(String::new, |minor| format!(" (it arrived in {minor})"))
}

/// Where the install-config's fields that arrived after 4.9 live, and whether a release knows
/// each: what an installer that refuses unknown fields checks before anything else.
fn later_fields(profile: &Profile, switches: &Switches) -> Vec<(&'static str, bool)> {
    let ocp = profile.distribution(crate::release::Distribution::Ocp);
    vec![
        (
            "additionalTrustBundlePolicy",
            switches.has(Switch::TrustBundlePolicy),
        ),
        // A release with capability sets knows the field (capabilities.rs checks its values).
        ("capabilities", !profile.capability_sets.is_empty()),
        (
            "cpuPartitioningMode",
            switches.has(Switch::CpuPartitioningMode),
        ),
        ("featureGates", switches.has(Switch::CustomFeatureGates)),
        (
            "featureSet",
            ocp.is_some_and(|facts| facts.feature_sets.len() > 1),
        ),
        (
            "imageDigestSources",
            switches.has(Switch::InstallConfigDigestSources),
        ),
        (
            "osImageStream",
            ocp.is_some_and(|facts| !facts.os_image_streams.is_empty()),
        ),
        (
            "networking.ovnKubernetesConfig",
            switches.has(Switch::OvnKubernetesConfig),
        ),
        ("pki", switches.has(Switch::InstallConfigPki)),
        ("platform.external", switches.has(Switch::ExternalPlatform)),
        (
            "platform.vsphere.apiVIPs",
            switches.has(Switch::VsphereVipLists),
        ),
        (
            "platform.vsphere.failureDomains",
            switches.has(Switch::VsphereFailureDomains),
        ),
        (
            "platform.vsphere.ingressVIPs",
            switches.has(Switch::VsphereVipLists),
        ),
        (
            "platform.vsphere.loadBalancer",
            switches.has(Switch::VsphereLoadBalancer),
        ),
        (
            "platform.vsphere.vcenters",
            switches.has(Switch::VsphereFailureDomains),
        ),
    ]
}

/// For an installer that refuses unknown fields (4.10, 4.11, from 4.22): the first field of the
/// install-config it does not know, in its decoding order (keys in byte order, level by level),
/// refused as it refuses it, before anything else is checked.
pub(crate) fn refuse_first_unknown(
    loaded: &LoadedConfig,
    profile: &Profile,
    switches: &Switches,
) -> Result<()> {
    if !switches.has(Switch::UnknownFieldsRefused) {
        return Ok(());
    }
    let mut unknown: Vec<String> = later_fields(profile, switches)
        .into_iter()
        .filter(|(field, known)| !known && loaded.line_of(field).is_some())
        .map(|(field, _)| field.to_string())
        .collect();
    // A vSphere pool's settings: `controlPlane.platform.vsphere.zones`, ...
    let pool_fields = super::vsphere::later_pool_fields(loaded, switches);
    unknown.extend(pool_fields.iter().map(|(field, _)| field.clone()));
    unknown.sort_by(|a, b| a.split('.').cmp(b.split('.')));
    let Some(field) = unknown.first() else {
        return Ok(());
    };
    let arrived = arrived_text(match pool_fields.iter().find(|(f, _)| f == field) {
        Some((_, switch)) => crate::release::first_with(*switch),
        None => crate::release::first_release(|p| {
            let later = p.switches(crate::release::Dimensions::default());
            later_fields(p, &later)
                .iter()
                .any(|(f, known)| f == field && *known)
        }),
    });
    Err(loaded.field_error(
        field,
        format!(
            "the OpenShift {} installer does not know this field{arrived} and refuses an \
             install-config that has it; remove it",
            profile.minor
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::refusal;

    use super::super::MINIMAL_INSTALL_CONFIG as BASE;

    #[test]
    fn a_strict_installer_names_the_first_unknown_field_in_its_order() {
        // featureGates comes before featureSet, as the installer decodes them.
        let both = format!("{BASE}featureSet: CustomNoUpgrade\nfeatureGates: [A=true]\n");
        for version in ["4.10.0", "4.11.0"] {
            let refused = refusal(&both, version);
            assert!(
                refused.contains("`featureGates`") && refused.contains("arrived in 4.14"),
                "{version}: {refused}"
            );
        }
        let set = format!("{BASE}featureSet: TechPreviewNoUpgrade\n");
        assert!(refusal(&set, "4.11.0").contains("`featureSet`"));
        // 4.9's installer ignored it, 4.12's knows it.
        assert_eq!(refusal(&set, "4.9.0"), "");
        assert_eq!(refusal(&set, "4.12.0"), "");
        // A platform it does not know is an unknown field too, named before its settings.
        let external = BASE.replace("  none: {}\n", "  external: {}\n");
        assert!(refusal(&external, "4.11.0").contains("`platform.external`"));
    }
}
