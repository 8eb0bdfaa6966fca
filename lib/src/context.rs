//! The template context: the model, identity and PKI flattened into the variables that
//! `templates/README.md` documents. Keep the two in step.

use crate::identity::Identity;
use crate::model::{MirrorKind, Model};
use crate::release::Flow;
use serde_json::{json, Value};

/// Builds the context every template sees.
pub fn template_context(model: &Model, identity: &Identity, pki: Value, debug: bool) -> Value {
    let nets = &model.networks;
    json!({
        "cluster": {
            "name": model.cluster_name,
            "base_domain": model.base_domain,
            "domain": model.cluster_domain(),
            "api_host": model.api_host(),
            "api_int_host": model.api_int_host(),
            "id": identity.cluster_id,
            "infra_id": identity.infra_id,
        },
        "release_image": model.release_image,
        "arch": model.bootstrap_arch.facts(),
        "cluster_arch": model.control_plane.architecture.facts(),
        "payload_multi": model.payload_arch == crate::model::PayloadArch::Multi,
        "fips": model.fips,
        "pull_secret": model.pull_secret,
        "ssh_key": model.ssh_key.trim(),
        "trust_bundle": model.trust_bundle.trim_end(),
        "trust_bundle_policy": model.trust_bundle_policy,
        "proxy": model.proxy,
        "registries": model.registries,
        "mirror_kind": mirror_kind(model).map(|k| k.as_str()).unwrap_or_default(),
        "mirror_manifests": mirror_manifests(model),
        "node_ip": {
            "use_ipv6": nets.ipv6_primary(),
            "bootstrap_ip": "",
        },
        "cluster_profile": "",
        "kubelet_verbosity": if debug { 4 } else { 2 },
        "networking": {
            "network_type": nets.network_type,
            "cluster_networks": nets.cluster.iter().map(|c| json!({"cidr": c.cidr.to_string(), "host_prefix": c.host_prefix})).collect::<Vec<_>>(),
            "service_networks": nets.service.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
            "machine_networks": nets.machine.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
        },
        "control_plane": {
            "replicas": model.control_plane.replicas,
            "hyperthreading": model.control_plane.hyperthreading,
            "architecture": model.control_plane.architecture.go(),
        },
        "compute": model.compute.iter().map(|p| json!({
            "name": p.name,
            "replicas": p.replicas,
            "hyperthreading": p.hyperthreading,
            "architecture": p.architecture.go(),
        })).collect::<Vec<_>>(),
        "feature_set": model.feature_set,
        "capabilities": {
            "baseline": model.capabilities_baseline,
            "additional": model.capabilities_additional,
        },
        "install_config_yaml": model.stored_install_config,
        "kubeadmin_hash": identity.kubeadmin_hash,
        "release_channel": model.release_channel(),
        "release": release_context_in(&model.release, flow_of(model)),
        "single_node": model.single_node,
        "installer_version": env!("CARGO_PKG_VERSION"),
        "pki": pki,
    })
}

/// The kind of the cluster's mirror manifests: the install-config's, except that a release
/// without ImageDigestMirrorSet support in its installer gets ImageContentSourcePolicies.
fn mirror_kind(model: &Model) -> Option<MirrorKind> {
    match model.mirror_kind {
        Some(MirrorKind::ImageDigestMirrorSet)
            if !model.release.profile.has("image_digest_mirror_set") =>
        {
            Some(MirrorKind::ImageContentSourcePolicy)
        }
        kind => kind,
    }
}

/// The mirror manifests of the release (the context's `mirror_manifests`): one entry per
/// manifest file, with its path, kind, API group, object name and the mirrored sources it
/// holds. Releases without ImageDigestMirrorSet support wrote one ImageContentSourcePolicy per
/// source, numbered from 0 and zero-padded to the digits of the count.
fn mirror_manifests(model: &Model) -> Vec<Value> {
    const DIR: &str = "/opt/openshift/manifests";
    let all = &model.registries;
    match mirror_kind(model) {
        None => Vec::new(),
        Some(MirrorKind::ImageDigestMirrorSet) => vec![json!({
            "path": format!("{DIR}/image-digest-mirror-set.yaml"),
            "kind": "ImageDigestMirrorSet",
            "group": "config.openshift.io",
            "name": "image-digest-mirror",
            "registries": all,
        })],
        Some(MirrorKind::ImageContentSourcePolicy)
            if model.release.profile.has("image_digest_mirror_set") =>
        {
            vec![json!({
                "path": format!("{DIR}/image-content-source-policy.yaml"),
                "kind": "ImageContentSourcePolicy",
                "group": "operator.openshift.io",
                "name": "image-policy",
                "registries": all,
            })]
        }
        Some(MirrorKind::ImageContentSourcePolicy) => {
            let width = all.len().to_string().len();
            all.iter()
                .enumerate()
                .map(|(i, registry)| {
                    json!({
                        "path": format!("{DIR}/image-content-source-policy-{i:0width$}.yaml"),
                        "kind": "ImageContentSourcePolicy",
                        "group": "operator.openshift.io",
                        "name": format!("image-policy-{i:0width$}"),
                        "registries": [registry],
                    })
                })
                .collect()
        }
    }
}

/// The context's `user_data`: base64 of master.ign and worker.ign exactly as written, for the
/// machine API's user-data secrets.
pub fn user_data(
    master: &crate::ignition::IgnitionDoc,
    worker: &crate::ignition::IgnitionDoc,
) -> Value {
    use base64::Engine;
    let encode = |doc: &crate::ignition::IgnitionDoc| {
        base64::engine::general_purpose::STANDARD.encode(doc.to_bytes())
    };
    json!({ "master": encode(master), "worker": encode(worker) })
}

/// How `model`'s cluster bootstraps.
pub fn flow_of(model: &Model) -> Flow {
    if model.single_node.is_some() {
        Flow::InPlace
    } else {
        Flow::Cluster
    }
}

/// What templates know of the release for a cluster with a bootstrap machine.
pub fn release_context(release: &crate::release::SelectedRelease) -> Value {
    release_context_in(release, Flow::Cluster)
}

/// What templates know of the release (the context's `release`) in `flow`: its profile's stages
/// for that flow (each with its command as one line of shell words), images and feature switches.
pub fn release_context_in(release: &crate::release::SelectedRelease, flow: Flow) -> Value {
    let profile = release.profile;
    let stages: Vec<Value> = profile
        .stages_in(flow)
        .map(|stage| {
            json!({
                "name": stage.name,
                "marker": stage.marker,
                "skip_if": stage.skip_if,
                "kind": stage.kind,
                "run": stage.run(),
            })
        })
        .collect();
    let run: serde_json::Map<String, Value> = profile
        .stages_in(flow)
        .map(|stage| (stage.name.clone(), Value::String(stage.run())))
        .collect();
    json!({
        "version": release.version.to_string(),
        "minor": profile.minor.to_string(),
        "development": profile.development,
        "os_image_stream": profile.os_image_stream,
        "stages": stages,
        "run": run,
        "images": profile.images,
        "features": profile.features_in(flow),
        "files": profile.files_in(flow),
        "units": profile.units_in(flow),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every top-level variable templates get is documented in templates/README.md, and every
    /// documented one exists: the table is how template authors learn the context.
    #[test]
    fn the_readme_table_documents_the_context() {
        let readme = include_str!("../../templates/README.md");
        let documented: std::collections::BTreeSet<String> = readme
            .lines()
            .filter(|l| l.starts_with("| `"))
            .flat_map(|l| {
                let first = l.split('|').nth(1).unwrap_or_default();
                first
                    .split('`')
                    .skip(1)
                    .step_by(2)
                    .map(|name| name.split('.').next().unwrap_or_default().to_string())
                    .collect::<Vec<_>>()
            })
            .collect();
        let loaded = crate::config::load_default().unwrap();
        let model = Model::new(&loaded, &Default::default()).unwrap();
        let identity = Identity {
            cluster_id: String::new(),
            infra_id: String::new(),
            kubeadmin_password: String::new(),
            kubeadmin_hash: String::new(),
        };
        let mut context = template_context(&model, &identity, Value::Null, false);
        context["user_data"] = json!({});
        let keys: std::collections::BTreeSet<String> =
            context.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, documented);
        // The release's own entries too.
        for key in context["release"].as_object().unwrap().keys() {
            assert!(
                readme.contains(&format!("`release.{key}`")),
                "release.{key}"
            );
        }
    }
}
