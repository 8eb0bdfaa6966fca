//! vSphere settings bootgen takes only at their defaults, which an install-config may still
//! state: `loadBalancer` (type OpenShiftManagedDefault: keepalived and haproxy on the nodes)
//! and a failure domain's `regionType` and `zoneType` (Datacenter and ComputeCluster). Each is
//! ignored with a warning where the release's installer does not know it, refused where that
//! installer refuses it, and refused with the reason when it asks for what bootgen does not
//! make (a load balancer of the user's own, failure domains of host groups).

use super::{VSpherePlatform, AT};
use crate::config::{nearest, LoadedConfig, Warning};
use crate::error::Result;
use crate::model::choices::ClusterFeatureSet;
use crate::model::unknown_fields::{ignored_by_release, NotInRelease};
use crate::release::{first_with, Profile, Switch, Switches};

/// The default load balancer: keepalived and haproxy on the nodes, serving the VIPs.
const MANAGED_LOAD_BALANCER: &str = "OpenShiftManagedDefault";
/// A load balancer of the user's own in place of the nodes' keepalived and haproxy.
const USER_MANAGED_LOAD_BALANCER: &str = "UserManaged";
/// The region and zone types of the default failure domain: tags on a datacenter and on a
/// compute cluster.
const DEFAULT_REGION_TYPE: &str = "Datacenter";
const DEFAULT_ZONE_TYPE: &str = "ComputeCluster";
/// A zone of host groups inside one compute cluster (whose region type is then ComputeCluster).
const HOST_GROUP_ZONE_TYPE: &str = "HostGroup";
const REGION_TYPES: [&str; 2] = [DEFAULT_REGION_TYPE, "ComputeCluster"];
const ZONE_TYPES: [&str; 2] = [DEFAULT_ZONE_TYPE, HOST_GROUP_ZONE_TYPE];

/// Settles `loadBalancer` and each failure domain's `regionType` and `zoneType` for the
/// release: what its installer does not know is ignored (and cleared), what it or bootgen
/// refuses is an error naming the field.
pub(crate) fn settle_stated_defaults(
    loaded: &LoadedConfig,
    vsphere: &mut VSpherePlatform,
    profile: &Profile,
    switches: &Switches,
    feature_set: &str,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    settle_load_balancer(loaded, vsphere, profile, switches, feature_set, warnings)?;
    settle_failure_domain_types(loaded, vsphere, profile, switches, warnings)
}

fn settle_load_balancer(
    loaded: &LoadedConfig,
    vsphere: &mut VSpherePlatform,
    profile: &Profile,
    switches: &Switches,
    feature_set: &str,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    let Some(kind) = vsphere.load_balancer.as_deref() else {
        return Ok(());
    };
    let field = format!("{AT}.loadBalancer");
    if !switches.has(Switch::VsphereLoadBalancer) {
        let what = NotInRelease {
            field: &field,
            arrived: first_with(Switch::VsphereLoadBalancer),
            consequence: "",
        };
        ignored_by_release(loaded, profile.minor, &what, warnings);
        vsphere.load_balancer = None;
        return Ok(());
    }
    let preview = ClusterFeatureSet::TechPreviewNoUpgrade.as_str();
    if switches.has(Switch::VsphereLoadBalancerNeedsTechPreview) && feature_set != preview {
        return Err(loaded.field_error(
            &field,
            format!(
                "the OpenShift {} installer takes it only with `featureSet: {preview}`; leave it \
                 out for the default, {MANAGED_LOAD_BALANCER} (keepalived and haproxy on the nodes)",
                profile.minor
            ),
        ));
    }
    let type_field = format!("{field}.type");
    match kind {
        MANAGED_LOAD_BALANCER => Ok(()),
        USER_MANAGED_LOAD_BALANCER => Err(loaded.field_error(
            &type_field,
            format!(
                "`{USER_MANAGED_LOAD_BALANCER}` (a load balancer of your own in place of the \
                 nodes' keepalived and haproxy): bootgen does not support it, so the cluster \
                 would not get it; leave loadBalancer out for the default, \
                 {MANAGED_LOAD_BALANCER} (for a load balancer of your own, leave out apiVIPs \
                 and ingressVIPs too)"
            ),
        )),
        other => {
            let kinds = [MANAGED_LOAD_BALANCER, USER_MANAGED_LOAD_BALANCER];
            let hint = nearest(other, kinds)
                .map_or_else(String::new, |meant| format!(" (did you mean {meant}?)"));
            Err(loaded.field_error(
                &type_field,
                format!(
                    "`{other}` is not a load balancer type{hint}: write {MANAGED_LOAD_BALANCER} \
                     (keepalived and haproxy on the nodes), or leave loadBalancer out"
                ),
            ))
        }
    }
}

fn settle_failure_domain_types(
    loaded: &LoadedConfig,
    vsphere: &mut VSpherePlatform,
    profile: &Profile,
    switches: &Switches,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    for (i, domain) in vsphere.failure_domains.iter_mut().enumerate() {
        let at = format!("{AT}.failureDomains.{i}");
        if switches.has(Switch::VsphereFailureDomainTypes) {
            check_types(loaded, &at, &domain.region_type, &domain.zone_type)?;
            continue;
        }
        for key in ["regionType", "zoneType"] {
            let field = format!("{at}.{key}");
            if loaded.line_of(&field).is_some() {
                let what = NotInRelease {
                    field: &field,
                    arrived: first_with(Switch::VsphereFailureDomainTypes),
                    consequence: "",
                };
                ignored_by_release(loaded, profile.minor, &what, warnings);
            }
        }
        domain.region_type.clear();
        domain.zone_type.clear();
    }
    Ok(())
}

/// A failure domain's `regionType` and `zoneType` where the release knows them: both or
/// neither (as the installer requires), and then only the defaults.
fn check_types(loaded: &LoadedConfig, at: &str, region: &str, zone: &str) -> Result<()> {
    let region_field = format!("{at}.regionType");
    let zone_field = format!("{at}.zoneType");
    let defaults = format!(
        "leave regionType and zoneType out for the defaults, {DEFAULT_REGION_TYPE} and \
         {DEFAULT_ZONE_TYPE}"
    );
    let unknown = |field: &str, value: &str, what: &str, known: [&str; 2]| {
        let hint = nearest(value, known)
            .map_or_else(String::new, |meant| format!(" (did you mean {meant}?)"));
        loaded.field_error(
            field,
            format!(
                "`{value}` is not a {what} type{hint}: write {} or {}; or {defaults}",
                known[0], known[1]
            ),
        )
    };
    match (region, zone) {
        ("", "") | (DEFAULT_REGION_TYPE, DEFAULT_ZONE_TYPE) => Ok(()),
        ("", _) => Err(loaded.field_error(
            &region_field,
            format!("is required when zoneType is given; or {defaults}"),
        )),
        (_, "") => Err(loaded.field_error(
            &zone_field,
            format!("is required when regionType is given; or {defaults}"),
        )),
        (HOST_GROUP_ZONE_TYPE, _) => Err(loaded.field_error(
            &region_field,
            format!("`{HOST_GROUP_ZONE_TYPE}` is a zone type, not a region type; {defaults}"),
        )),
        (region, _) if !REGION_TYPES.contains(&region) => {
            Err(unknown(&region_field, region, "region", REGION_TYPES))
        }
        (_, zone) if !ZONE_TYPES.contains(&zone) => {
            Err(unknown(&zone_field, zone, "zone", ZONE_TYPES))
        }
        // A ComputeCluster region or HostGroup zones: failure domains of host groups.
        (region, _) => Err(loaded.field_error(
            if region == DEFAULT_REGION_TYPE {
                &zone_field
            } else {
                &region_field
            },
            format!(
                "failure domains of host groups: bootgen does not support them, so the \
                 cluster would not get them; {defaults}"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::read_tests::{CONFIG, LEGACY};
    use crate::model::{model_with_warnings, refusal};

    /// `CONFIG` with `loadBalancer` of `kind` under `platform.vsphere`.
    fn with_balancer(config: &str, kind: &str) -> String {
        config.replace(
            "  vsphere:\n",
            &format!("  vsphere:\n    loadBalancer:\n      type: {kind}\n"),
        )
    }

    /// `CONFIG` with `types` (YAML lines) in its failure domain.
    fn with_types(types: &str) -> String {
        CONFIG.replace("      topology:\n", &format!("{types}      topology:\n"))
    }

    #[test]
    fn the_default_load_balancer_is_taken_where_the_installer_takes_it() {
        let stated = with_balancer(CONFIG, "OpenShiftManagedDefault");
        for version in ["4.16.0", "4.22.0", "5.0.0"] {
            let (model, warnings) = model_with_warnings(&stated, version).unwrap();
            let vsphere = model.platform.vsphere().unwrap();
            assert_eq!(
                vsphere.load_balancer.as_deref(),
                Some("OpenShiftManagedDefault")
            );
            assert!(
                model
                    .stored_install_config
                    .contains("loadBalancer:\n      type: OpenShiftManagedDefault"),
                "{version}: {}",
                model.stored_install_config
            );
            assert!(
                !warnings.iter().any(|w| w.contains("loadBalancer")),
                "{version}: {warnings:?}"
            );
        }
        // 4.13 to 4.15: only with the Tech Preview feature set.
        let refused = refusal(&stated, "4.13.0");
        assert!(
            refused.contains("`platform.vsphere.loadBalancer`")
                && refused.contains("only with `featureSet: TechPreviewNoUpgrade`"),
            "{refused}"
        );
        let preview = format!("featureSet: TechPreviewNoUpgrade\n{stated}");
        assert_eq!(refusal(&preview, "4.15.0"), "");
        // 4.12's installer does not know the field: ignored, and not stored.
        let legacy = with_balancer(LEGACY, "OpenShiftManagedDefault");
        let (model, warnings) = model_with_warnings(&legacy, "4.12.0").unwrap();
        assert_eq!(model.platform.vsphere().unwrap().load_balancer, None);
        assert!(!model.stored_install_config.contains("loadBalancer"));
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("`platform.vsphere.loadBalancer`")
                    && w.contains("ignored")
                    && w.contains("arrived in 4.13")),
            "{warnings:?}"
        );
        // 4.11's refuses an unknown field.
        let refused = refusal(&legacy, "4.11.0");
        assert!(
            refused.contains("`platform.vsphere.loadBalancer`")
                && refused.contains("does not know this field"),
            "{refused}"
        );
    }

    #[test]
    fn another_load_balancer_is_refused_naming_its_type() {
        let own = refusal(&with_balancer(CONFIG, "UserManaged"), "4.22.0");
        assert!(
            own.contains("`platform.vsphere.loadBalancer.type`")
                && own.contains("bootgen does not support it")
                && own.contains("leave loadBalancer out"),
            "{own}"
        );
        let typo = refusal(&with_balancer(CONFIG, "OpenshiftManagedDefault"), "4.22.0");
        assert!(
            typo.contains("is not a load balancer type (did you mean OpenShiftManagedDefault?)"),
            "{typo}"
        );
        let empty = refusal(
            &CONFIG.replace("  vsphere:\n", "  vsphere:\n    loadBalancer: {}\n"),
            "4.22.0",
        );
        assert!(empty.contains("`` is not a load balancer type"), "{empty}");
    }

    #[test]
    fn the_default_failure_domain_types_are_taken_where_the_installer_knows_them() {
        let stated = with_types("      regionType: Datacenter\n      zoneType: ComputeCluster\n");
        let (model, warnings) = model_with_warnings(&stated, "4.19.0").unwrap();
        assert!(!warnings.iter().any(|w| w.contains("Type")), "{warnings:?}");
        let stored = &model.stored_install_config;
        assert!(
            stored.contains("regionType: Datacenter")
                && stored.contains("zoneType: ComputeCluster"),
            "{stored}"
        );
        // Before 4.19: each ignored with a warning, as the installer ignores it, and not stored.
        let (model, warnings) = model_with_warnings(&stated, "4.18.0").unwrap();
        let stored = &model.stored_install_config;
        assert!(
            !stored.contains("regionType") && !stored.contains("zoneType"),
            "{stored}"
        );
        for key in ["regionType", "zoneType"] {
            assert!(
                warnings.iter().any(|w| w
                    .contains(&format!("`platform.vsphere.failureDomains[0].{key}`"))
                    && w.contains("arrived in 4.19")),
                "{key}: {warnings:?}"
            );
        }
        // What a later release refuses, 4.18's installer ignores.
        assert_eq!(
            refusal(&with_types("      zoneType: HostGroup\n"), "4.18.0"),
            ""
        );
    }

    #[test]
    fn other_failure_domain_types_are_refused_naming_the_field() {
        let cases = [
            (
                "      zoneType: ComputeCluster\n",
                "regionType`",
                "is required when zoneType",
            ),
            (
                "      regionType: Datacenter\n",
                "zoneType`",
                "is required when regionType",
            ),
            (
                "      regionType: HostGroup\n      zoneType: HostGroup\n",
                "regionType`",
                "is a zone type, not a region type",
            ),
            (
                "      regionType: ComputeCluster\n      zoneType: ComputeCluster\n",
                "regionType`",
                "failure domains of host groups",
            ),
            (
                "      regionType: Datacenter\n      zoneType: HostGroup\n",
                "zoneType`",
                "failure domains of host groups",
            ),
            (
                "      regionType: DataCenter\n      zoneType: ComputeCluster\n",
                "regionType`",
                "not a region type (did you mean Datacenter?)",
            ),
        ];
        for (types, field, says) in cases {
            let refused = refusal(&with_types(types), "4.22.0");
            assert!(
                refused.contains(&format!("`platform.vsphere.failureDomains[0].{field}"))
                    && refused.contains(says)
                    && refused.contains("leave regionType and zoneType out for the defaults"),
                "{types}: {refused}"
            );
        }
    }
}
