//! The install-config as the cluster stores it (`cluster-config-v1`): the user's document with
//! the pull secret blanked (it must not land in a world-readable ConfigMap), the fields the
//! release's installer does not know dropped, and the defaults it applies written out, as it
//! does (so the cluster says arm64 even when only `--arch arm64` said so).

use super::{
    capabilities, vsphere, Networks, PlatformSettings, Pool, SingleNode, TrustBundlePolicy,
};
use crate::config::{ClusterNetwork, InstallConfig, MachineNetwork, Networking};
use crate::release::{DistributionFacts, Profile, Switch, Switches};

/// What the stored install-config is written from: the document as written and the settled
/// model it describes.
pub(crate) struct StoredInstallConfig<'a> {
    /// The install-config as the user wrote it.
    pub written: &'a InstallConfig,
    /// The platform, as read.
    pub platform: &'a PlatformSettings,
    /// The control-plane pool after defaults.
    pub control_plane: &'a Pool,
    /// The compute pools after defaults.
    pub compute: &'a [Pool],
    /// The networks after defaults.
    pub networks: &'a Networks,
    /// The release.
    pub profile: &'a Profile,
    /// The release's facts in the cluster's distribution.
    pub facts: &'a DistributionFacts,
    /// The node's switches.
    pub switches: &'a Switches,
    /// The single-node settings, on a single node.
    pub single_node: Option<&'a SingleNode>,
    /// The OS image stream chosen.
    pub os_image_stream: &'a str,
}

impl StoredInstallConfig<'_> {
    /// The stored install-config as YAML.
    pub(crate) fn to_yaml(&self) -> String {
        let switches = self.switches;
        // A vSphere platform is stored as read, without its credentials.
        let mut source = self.written.clone();
        if let Some(read) = self.platform.vsphere() {
            if let Some(serde_json::Value::Object(raw)) =
                source.platform.as_mut().and_then(|p| p.get_mut("vsphere"))
            {
                vsphere::store(raw, read, switches);
            }
            vsphere::store_pools(&mut source, read, switches);
        }
        // Fields the release's installer does not know (ignored, with a warning) are not stored.
        if self.facts.feature_sets.len() <= 1 {
            source.feature_set = None;
        }
        if capabilities::capability_sets(self.profile).is_empty() {
            source.capabilities = None;
        }
        let (control_plane, compute, networks) = (self.control_plane, self.compute, self.networks);
        let single_node = self.single_node;
        // From 4.22 the installer stores the stream it defaulted; older ones drop the key.
        let os_image_stream =
            (!self.facts.os_image_streams.is_empty()).then_some(self.os_image_stream);
        let mut stored = source;
        stored.pull_secret = Some(String::new());
        // The installer stores an upconverted `v1beta3` or `v1beta4` document as `v1`.
        stored.api_version = Some("v1".into());
        stored.publish = Some(stored.publish.unwrap_or_else(|| "External".into()));
        // An installer that does not know a field drops it with the other unknown keys.
        if !switches.has(Switch::InstallConfigDigestSources) {
            stored.image_digest_sources.clear();
        }
        if !switches.has(Switch::TrustBundlePolicy) {
            stored.additional_trust_bundle_policy = None;
        }
        if !switches.has(Switch::InstallConfigSourcePolicy) {
            for source in &mut stored.image_digest_sources {
                source.source_policy = None;
            }
        }
        if !switches.has(Switch::CpuPartitioningMode) {
            stored.cpu_partitioning_mode = None;
        }
        if !switches.has(Switch::InstallConfigPki) {
            stored.pki = None;
        }
        // A parameter block holding only its zero value is no block to the installer, which
        // omits it when it stores the key.
        if let Some(key) = stored
            .pki
            .as_mut()
            .and_then(|p| p.signer_certificates.as_mut())
            .and_then(|s| s.key.as_mut())
        {
            key.rsa = key
                .rsa
                .take()
                .filter(|r| r.key_size.is_some_and(|s| s != 0));
            key.ecdsa = key
                .ecdsa
                .take()
                .filter(|e| e.curve.as_deref().is_some_and(|c| !c.is_empty()));
        }
        stored.cpu_partitioning_mode = stored.cpu_partitioning_mode.filter(|m| !m.is_empty());
        // An installer that does not read an external platform's cloudControllerManager drops it.
        if !switches.has(Switch::ExternalCcmFromInstallConfig) {
            if let Some(serde_json::Value::Object(external)) =
                stored.platform.as_mut().and_then(|p| p.get_mut("external"))
            {
                external.remove("cloudControllerManager");
            }
        }
        // bootgen never checks that the host it runs on uses FIPS-validated crypto; from 4.16 the
        // installer records a skipped check in the stored install-config, so the cluster knows.
        if stored.fips == Some(true) && switches.has(Switch::HostcryptBypassAnnotation) {
            stored.metadata.annotations.insert(
                "install.openshift.io/hostcrypt-check-bypassed".into(),
                "true".into(),
            );
        }
        let write_pool = |raw: &mut crate::config::MachinePool, pool: &Pool| {
            raw.name = Some(pool.name.clone());
            raw.replicas = Some(i64::from(pool.replicas));
            raw.hyperthreading = Some(pool.hyperthreading.as_str().to_string());
            raw.architecture = Some(pool.architecture.to_string());
        };
        write_pool(
            stored.control_plane.get_or_insert_with(Default::default),
            control_plane,
        );
        if stored.compute.is_empty() {
            stored.compute = vec![Default::default(); compute.len()];
        }
        for (raw, pool) in stored.compute.iter_mut().zip(compute) {
            write_pool(raw, pool);
        }
        // The deprecated fields the user wrote stay beside the current ones, as the installer
        // keeps them.
        let written = stored.networking.take().unwrap_or_default();
        stored.networking = Some(Networking {
            deprecated_machine_cidr: written.deprecated_machine_cidr,
            deprecated_service_cidr: written.deprecated_service_cidr,
            deprecated_cluster_networks: written.deprecated_cluster_networks,
            deprecated_type: written.deprecated_type,
            // Kept where the release reads it, with the join subnet as the installer prints it.
            ovn_kubernetes_config: written
                .ovn_kubernetes_config
                .filter(|_| switches.has(Switch::OvnKubernetesConfig))
                .map(|mut ovn| {
                    if let (Some(v4), Some(join)) = (&mut ovn.ipv4, networks.ovn_ipv4_join_subnet) {
                        v4.internal_join_subnet = Some(join.to_string());
                    }
                    ovn
                }),
            network_type: Some(networks.network_type.to_string()),
            cluster_network: networks
                .cluster
                .iter()
                .enumerate()
                .map(|(i, c)| ClusterNetwork {
                    cidr: c.cidr.to_string(),
                    // Left out, as the installer's `omitempty` does, when a third party's
                    // plugin takes none.
                    host_prefix: (c.host_prefix != 0).then_some(c.host_prefix),
                    // A deprecated length stays beside the prefix read from it.
                    host_subnet_length: written
                        .cluster_network
                        .get(i)
                        .and_then(|w| w.host_subnet_length)
                        .filter(|l| *l != 0),
                })
                .collect(),
            service_network: networks.service.iter().map(ToString::to_string).collect(),
            machine_network: networks
                .machine
                .iter()
                .map(|m| MachineNetwork {
                    cidr: m.to_string(),
                })
                .collect(),
        });
        // The field exists from 4.12 on, with this default.
        if switches.has(Switch::TrustBundlePolicy)
            && stored.additional_trust_bundle_policy.is_none()
        {
            stored.additional_trust_bundle_policy =
                Some(TrustBundlePolicy::default().as_str().to_string());
        }
        stored.os_image_stream = os_image_stream.map(str::to_string);
        // The disk may have come from an option: the cluster records the one it was installed to.
        if let Some(single) = single_node {
            stored.bootstrap_in_place = Some(crate::config::BootstrapInPlace {
                installation_disk: Some(single.installation_disk.clone()),
            });
        }
        serde_yaml_ng::to_string(&stored).unwrap_or_default()
    }
}
