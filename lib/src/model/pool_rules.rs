//! The installer's rules for machine pools: which compute pools there are,
//! how many control-plane machines, each pool's architecture and platform settings.

use super::{Arch, Pool};
use crate::config::LoadedConfig;
use crate::error::Result;
use crate::release::Profile;
use crate::release::{Platform, Switch, Switches};

/// Compute pool names: `worker` only on platforms none, vSphere and external (`edge` needs a
/// cloud's edge zones), and each once; a pool without a name is refused as the installer does
/// not name it.
pub(crate) fn check_compute_names(loaded: &LoadedConfig, platform: Platform) -> Result<()> {
    let mut seen = Vec::new();
    for (i, pool) in loaded.config.compute.iter().enumerate() {
        let field = format!("compute.{i}.name");
        let name = pool.name.as_deref().unwrap_or_default();
        if name != "worker" {
            let what = match name {
                "" => "is required".to_string(),
                "edge" => format!(
                    "`edge` pools need a cloud's edge zones; not on platform {}",
                    platform.name()
                ),
                other => format!("`{other}` is not a compute pool the installer makes (an `infra` pool is made after the install, with a MachineConfigPool)"),
            };
            return Err(loaded.field_error(&field, format!("{what}: write `name: worker`")));
        }
        if seen.contains(&name) {
            return Err(loaded.field_error(
                &field,
                format!("a second `{name}` pool: put all its machines in one pool (add up the replicas)"),
            ));
        }
        seen.push(name);
    }
    Ok(())
}

/// Two control-plane machines make a two-node cluster, which the installer builds only with
/// fencing credentials; bootgen does not make those clusters.
pub(crate) fn check_control_plane_count(
    loaded: &LoadedConfig,
    profile: &Profile,
    switches: &Switches,
    replicas: u32,
) -> Result<()> {
    if replicas == 2 && switches.has(Switch::TwoNodesNeedFencing) {
        return Err(loaded.field_error(
            "controlPlane.fencing",
            format!(
                "controlPlane.replicas 2 makes a two-node cluster, which OpenShift {} builds only with the fencing credentials of both nodes (controlPlane.fencing), and bootgen does not make two-node clusters: use 3 control-plane machines (or 1 for a single node)",
                profile.minor
            ),
        ));
    }
    Ok(())
}

/// One control-plane machine: some releases' installers make a single-node cluster on some
/// platforms only in place, and on others not at all (the installer checks it when it makes
/// the control-plane machines, after the install-config's own checks).
pub(crate) fn check_single_replica(
    loaded: &LoadedConfig,
    profile: &Profile,
    switches: &Switches,
    platform: Platform,
    replicas: u32,
    in_place: bool,
) -> Result<()> {
    if replicas == 1 && switches.has(Switch::SingleReplicaRefused) {
        return Err(loaded.field_error(
            "controlPlane.replicas",
            format!(
                "one control-plane machine: OpenShift {}'s installer makes no single-node cluster on platform {}, with or without bootstrapInPlace; use 3 control-plane machines",
                profile.minor,
                platform.name()
            ),
        ));
    }
    if replicas == 1 && !in_place && switches.has(Switch::SingleReplicaNeedsBootstrapInPlace) {
        return Err(loaded.field_error(
            "controlPlane.replicas",
            format!(
                "one control-plane machine beside a bootstrap machine: OpenShift {}'s installer makes a single-node cluster on this platform only in place; add `bootstrapInPlace: {{installationDisk: /dev/...}}` (or set {}), or use 3 control-plane machines",
                profile.minor,
                crate::error::OptionField::SingleNode
            ),
        ));
    }
    Ok(())
}

/// A pool's `platform`: on a platform whose pools have settings, that platform's section (on
/// vSphere `vsphere`, read in `vsphere::machine_pools`); elsewhere nothing, or `none: {}`.
pub(crate) fn check_pool_platform(
    loaded: &LoadedConfig,
    field: &str,
    cluster: Platform,
    platform: Option<&serde_json::Value>,
) -> Result<()> {
    let Some(serde_json::Value::Object(platforms)) = platform else {
        return Ok(());
    };
    let cluster_name = cluster.name();
    let own = if cluster.has_pool_settings() {
        cluster.name()
    } else {
        Platform::None.name()
    };
    for (name, settings) in platforms {
        let empty = settings.is_null() || settings.as_object().is_some_and(|m| m.is_empty());
        // `none: {}` says nothing, and was always taken.
        if name != own && !(name == "none" && empty) {
            return Err(loaded.field_error(
                &format!("{field}.platform.{name}"),
                format!(
                    "unknown key: a pool on platform {cluster_name} takes no settings of \
                     platform `{name}`; remove it"
                ),
            ));
        }
        if name == "none" && !empty {
            let key = settings
                .as_object()
                .and_then(|m| m.keys().next())
                .map_or("", |k| k.as_str());
            return Err(loaded.field_error(
                &format!("{field}.platform.none.{key}"),
                "unknown key: platform none has no settings; write `none: {}`",
            ));
        }
    }
    Ok(())
}

/// On the platforms bootgen supports every pool has the control plane's architecture (the installer refuses
/// mixed pools there); a pool left out or without an architecture has the installer's default.
pub(crate) fn check_same_architecture(
    loaded: &LoadedConfig,
    control_plane: &Pool,
    compute: &[Pool],
    default_arch: Arch,
) -> Result<()> {
    let wanted = control_plane.architecture;
    if loaded.config.compute.is_empty() && default_arch != wanted {
        return Err(loaded.field_error(
            "compute",
            format!(
                "is not written, so the installer adds a pool of {default_arch} workers to the {wanted} control plane: write a compute pool `{{name: worker, architecture: {wanted}, replicas: 0}}` (0 for a compact cluster)"
            ),
        ));
    }
    for (i, pool) in compute.iter().enumerate() {
        if pool.architecture != wanted {
            let written = loaded
                .config
                .compute
                .get(i)
                .is_some_and(|p| p.architecture.is_some());
            let why = if written {
                format!("is {}", pool.architecture)
            } else {
                format!(
                    "is not written, so it is {} (the installer's default)",
                    pool.architecture
                )
            };
            return Err(loaded.field_error(
                &format!("compute.{i}.architecture"),
                format!(
                    "{why}, but the control plane is {wanted}: on the platforms bootgen supports every pool has the control plane's architecture; write `architecture: {wanted}`"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The refusal of a base config changed by `tail` (placed from line 8 on), for `version`.
    fn refusal(version: &str, pools: &str) -> String {
        let text = format!("{}{pools}", super::super::MINIMAL_INSTALL_CONFIG);
        super::super::refusal(&text, version)
    }

    /// Without `compute`, the installer's default pool: three workers of its architecture.
    #[test]
    fn no_compute_is_three_workers() {
        let text = super::super::MINIMAL_INSTALL_CONFIG;
        let loaded = crate::config::parse(text, "install-config.yaml").unwrap();
        let model = super::super::Model::new(&loaded, &Default::default()).unwrap();
        assert_eq!(model.compute.len(), 1);
        assert_eq!(model.compute[0].name, "worker");
        assert_eq!(model.compute[0].replicas, 3);
        assert_eq!(model.compute[0].architecture, super::Arch::Amd64);
        assert!(model
            .stored_install_config
            .contains("replicas: 3\n  architecture: amd64"));
    }

    /// The control-plane pool is `master` whatever the install-config names it, as the
    /// installer's defaults make it; the other name is warned about, and not stored.
    #[test]
    fn the_control_plane_is_always_master() {
        let text = &format!(
            "{}controlPlane:\n  name: controller\n",
            super::super::MINIMAL_INSTALL_CONFIG
        );
        let loaded = crate::config::parse(text, "install-config.yaml").unwrap();
        let model = super::super::Model::new(&loaded, &Default::default()).unwrap();
        assert_eq!(model.control_plane.name, "master");
        assert!(model
            .stored_install_config
            .contains("controlPlane:\n  name: master\n"));
        assert!(!model.stored_install_config.contains("controller"));
        let warned = model
            .warnings
            .iter()
            .map(|w| w.to_string())
            .collect::<Vec<_>>();
        assert!(
            warned.iter().any(|w| w.contains("controlPlane.name")
                && w.contains("`controller` is replaced by `master`")),
            "{warned:?}"
        );
    }

    /// The cluster's domain (`<name>.<baseDomain>`) fits in a DNS name, as the installer checks.
    #[test]
    fn the_cluster_domain_fits_in_a_dns_name() {
        let config = |domain: &str| {
            format!("apiVersion: v1\nmetadata:\n  name: probe\nbaseDomain: {domain}\nplatform:\n  none: {{}}\npullSecret: '{{\"auths\":{{\"r\":{{\"auth\":\"eDp5\"}}}}}}'\n")
        };
        let label = "b".repeat(62);
        // 6 + 247 characters: the longest that fits.
        let fits = format!("{label}.{label}.{label}.{}.c", "b".repeat(56));
        assert_eq!(super::super::refusal(&config(&fits), "4.16.0"), "");
        let long = format!("{label}.{label}.{label}.{label}.c");
        let refused = super::super::refusal(&config(&long), "4.16.0");
        assert!(
            refused.contains("`baseDomain` (line 4)")
                && refused.contains("is 259 characters, more than the 253"),
            "{refused}"
        );
    }

    /// A pool's `platform` holds settings only of the cluster's platform, and only where that
    /// platform's pools have settings; `none: {}` is taken everywhere.
    #[test]
    fn a_pool_takes_only_its_own_platform_settings() {
        use crate::release::Platform;
        let text = "apiVersion: v1\nmetadata:\n  name: demo\nbaseDomain: example.com\n";
        let loaded = crate::config::parse(text, "install-config.yaml").unwrap();
        let check = |cluster: Platform, section: serde_json::Value| {
            super::check_pool_platform(&loaded, "compute.0", cluster, Some(&section))
                .err()
                .map(|e| e.to_string())
        };
        for cluster in Platform::ALL.iter().copied() {
            let name = cluster.name();
            assert_eq!(check(cluster, serde_json::json!({"none": {}})), None);
            let own = check(cluster, serde_json::json!({ name: {"zones": ["a"]} }));
            match (cluster.has_pool_settings(), own) {
                (true, None) => {}
                (false, Some(refused)) => assert!(
                    refused.contains(&format!("compute[0].platform.{name}")),
                    "{name}: {refused}"
                ),
                (_, own) => panic!("{name}: {own:?}"),
            }
            for other in Platform::ALL
                .iter()
                .filter(|p| **p != cluster && **p != Platform::None)
            {
                let refused = check(cluster, serde_json::json!({ other.name(): {} }));
                assert!(
                    refused.is_some_and(|r| r.contains("takes no settings of platform")),
                    "{name} with {other}"
                );
            }
        }
    }

    #[test]
    fn pools_are_refused_with_line_and_what_to_write() {
        let infra = refusal("4.22.0", "compute:\n- name: infra\n  replicas: 2\n");
        assert!(
            infra.contains("`compute[0].name` (line 9)") && infra.contains("write `name: worker`"),
            "{infra}"
        );
        let arm = refusal(
            "4.22.0",
            "controlPlane:\n  architecture: arm64\ncompute:\n- name: worker\n",
        );
        assert!(
            arm.contains("`compute[0].architecture` (line 11)")
                && arm.contains("is not written, so it is amd64")
                && arm.contains("write `architecture: arm64`"),
            "{arm}"
        );
        let compact_arm = refusal("4.22.0", "controlPlane:\n  architecture: arm64\n");
        assert!(compact_arm.contains("`compute`"), "{compact_arm}");
        let two = refusal("4.22.0", "controlPlane:\n  replicas: 2\n");
        assert!(
            two.contains("`controlPlane.fencing` (line 8)") && two.contains("use 3"),
            "{two}"
        );
        // Before 4.19 a two-node control plane needs no fencing.
        assert_eq!(refusal("4.16.0", "controlPlane:\n  replicas: 2\n"), "");
        let edge = refusal(
            "4.22.0",
            "compute:\n- name: worker\n  platform:\n    none: {}\n- name: worker\n",
        );
        assert!(
            edge.contains("`compute[1].name`") && edge.contains("a second `worker` pool"),
            "{edge}"
        );
    }
}
