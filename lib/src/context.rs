//! The template context: the model, identity and PKI flattened into the variables that
//! `templates/README.md` documents. Keep the two in step.

use crate::identity::Identity;
use crate::model::Model;
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
        "mirror_kind": model.mirror_kind.map(|k| k.as_str()).unwrap_or_default(),
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
        "installer_version": env!("CARGO_PKG_VERSION"),
        "pki": pki,
    })
}
