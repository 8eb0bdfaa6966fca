//! The template context: the model, identity and PKI flattened into the variables that
//! `templates/README.md` documents. Keep the two in step.

use crate::arch::ArchFacts;
use crate::identity::Identity;
pub use crate::model::mirrors::MirrorManifest;
use crate::model::mirrors::{lay_out, PolicyLayout};
use crate::model::{MirrorKind, Model, ProxySettings, Registry};
use crate::release::{Each, ImageName, NodeProfile, Switch};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

pub mod vsphere;

/// The context every template sees, as a typed value: each field is a top-level template
/// variable that `templates/README.md` documents (a test keeps the two in step). It is rendered
/// through serde, so the names here are the names templates use.
#[derive(Clone, Serialize)]
#[non_exhaustive]
pub struct TemplateContext {
    /// Names and identities of the cluster.
    pub cluster: ClusterContext,
    /// The install-config's platform.
    pub platform: PlatformContext,
    /// The release payload pull spec the bootstrap pulls.
    pub release_image: String,
    /// The bootstrap host's architecture.
    pub arch: ArchFacts,
    /// The control plane's architecture.
    pub cluster_arch: ArchFacts,
    /// The payload is a multi-arch manifest list.
    pub payload_multi: bool,
    /// install-config `fips`.
    pub fips: bool,
    /// The pull secret JSON, verbatim.
    pub pull_secret: String,
    /// install-config `sshKey`, trimmed.
    pub ssh_key: String,
    /// Additional trust bundle PEM, `""` when none.
    pub trust_bundle: String,
    /// The user-ca-bundle ConfigMap's `ca-bundle.crt`: each certificate of the bundle
    /// re-encoded (64 columns, text around the blocks dropped), as the installer writes it.
    pub user_ca_bundle: String,
    /// `Proxyonly` or `Always`.
    pub trust_bundle_policy: crate::model::TrustBundlePolicy,
    /// Proxy settings with the computed noProxy.
    pub proxy: ProxySettings,
    /// registries.conf's tables: the install-config's mirror entries merged as the release's
    /// installer merges them.
    pub registries: Vec<Registry>,
    /// `""`, `ImageContentSourcePolicy` or `ImageDigestMirrorSet`.
    pub mirror_kind: &'static str,
    /// The release's mirror manifests, one per file.
    pub mirror_manifests: Vec<MirrorManifest>,
    /// The kubelet's node IP choice.
    pub node_ip: NodeIp,
    /// CVO cluster profile, `""` normally.
    pub cluster_profile: String,
    /// kubelet `--v`.
    pub kubelet_verbosity: u8,
    /// The cluster's networks.
    pub networking: Networking,
    /// The control-plane pool.
    pub control_plane: PoolContext,
    /// The compute pools.
    pub compute: Vec<PoolContext>,
    /// Feature set, `""` when unset.
    pub feature_set: String,
    /// With feature set CustomNoUpgrade, the feature gates turned on (`enabled`) and off
    /// (`disabled`); both empty otherwise.
    pub custom_feature_gates: crate::model::CustomFeatureGates,
    /// The node image's OS stream: install-config `osImageStream` or the release's default,
    /// `""` before releases had streams.
    pub os_image_stream: String,
    /// The Infrastructure's `status.cpuPartitioning`: `None` or `AllNodes`.
    pub cpu_partitioning: crate::model::CpuPartitioning,
    /// The signers' key the install-config's `pki` names, as the cluster's PKI object writes it;
    /// `None` (null) without one.
    pub pki_signer_key: Option<PkiKeyContext>,
    /// CVO capabilities.
    pub capabilities: Capabilities,
    /// The install-config as stored in the cluster.
    pub install_config_yaml: String,
    /// bcrypt hash of the kubeadmin password.
    pub kubeadmin_hash: String,
    /// CVO channel.
    pub release_channel: String,
    /// The release and its profile, for the cluster's flow.
    pub release: ReleaseContext,
    /// A single node's settings; `None` (null) for a cluster with a bootstrap machine.
    pub single_node: Option<crate::model::SingleNode>,
    /// bootgen's version.
    pub installer_version: &'static str,
    /// Certificate material for certificate-bearing manifests (see `lib/src/pki`).
    pub pki: Value,
    /// base64 of master.ign / worker.ign, exactly as written, for the machine API's user-data
    /// secrets (`null` until they are made).
    pub user_data: Value,
}

/// The context's `cluster`.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterContext {
    /// `metadata.name`.
    pub name: String,
    /// `baseDomain` without a trailing dot.
    pub base_domain: String,
    /// `<name>.<base_domain>`.
    pub domain: String,
    /// `api.<domain>`.
    pub api_host: String,
    /// `api-int.<domain>`.
    pub api_int_host: String,
    /// `https://api.<domain>:6443`.
    pub api_url: String,
    /// `https://api-int.<domain>:6443`.
    pub api_int_url: String,
    /// Cluster UUID.
    pub id: String,
    /// Infrastructure name.
    pub infra_id: String,
}

/// The context's `platform`.
#[derive(Debug, Clone, Serialize)]
pub struct PlatformContext {
    /// The install-config key, e.g. `none` or `external`.
    pub name: &'static str,
    /// The Infrastructure object's platform type, e.g. `None` or `External`.
    pub infrastructure_type: &'static str,
    /// An external platform's settings; `None` (null) on any other platform.
    pub external: Option<crate::model::ExternalPlatform>,
    /// A vSphere platform's vCenters, failure domains, VIPs and machines; `None` (null) on any
    /// other platform.
    pub vsphere: Option<vsphere::VSphereContext>,
}

/// The context's `node_ip`.
#[derive(Debug, Clone, Serialize)]
pub struct NodeIp {
    /// The first service network is IPv6.
    pub use_ipv6: bool,
    /// A fixed bootstrap node IP, `""` when none.
    pub bootstrap_ip: String,
}

/// The context's `networking`.
#[derive(Debug, Clone, Serialize)]
pub struct Networking {
    /// `OVNKubernetes` by default.
    pub network_type: String,
    /// Pod networks.
    pub cluster_networks: Vec<PodNetwork>,
    /// Service network CIDRs.
    pub service_networks: Vec<String>,
    /// Machine network CIDRs.
    pub machine_networks: Vec<String>,
    /// OVN-Kubernetes' IPv4 join subnet from the install-config, `""` when it gives none.
    pub ovn_internal_join_subnet: String,
}

/// The context's `pki_signer_key`: one key of a PKI profile.
#[derive(Debug, Clone, Serialize)]
pub struct PkiKeyContext {
    /// `RSA` or `ECDSA`.
    pub algorithm: &'static str,
    /// RSA's key size in bits; `None` (null) for ECDSA.
    pub rsa_key_size: Option<i64>,
    /// ECDSA's curve (`P256`, `P384`, `P521`); `None` (null) for RSA.
    pub ecdsa_curve: Option<&'static str>,
}

/// A pod network of `networking.cluster_networks`.
#[derive(Debug, Clone, Serialize)]
pub struct PodNetwork {
    /// The CIDR.
    pub cidr: String,
    /// Each node's prefix length.
    pub host_prefix: u8,
}

/// A machine pool (`control_plane`, an entry of `compute`).
#[derive(Debug, Clone, Serialize)]
pub struct PoolContext {
    /// Pool name.
    pub name: String,
    /// Replicas.
    pub replicas: u32,
    /// `Enabled` or `Disabled`.
    pub hyperthreading: crate::model::Hyperthreading,
    /// Go architecture name.
    pub architecture: &'static str,
}

/// The context's `capabilities`.
#[derive(Debug, Clone, Serialize)]
pub struct Capabilities {
    /// `baselineCapabilitySet`, `""` when unset.
    pub baseline: String,
    /// `additionalEnabledCapabilities`.
    pub additional: Vec<String>,
}

/// The context's `release`: the release and what its profile says.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ReleaseContext {
    /// Full version, e.g. `4.16.3`.
    pub version: String,
    /// Minor, e.g. `4.16`.
    pub minor: String,
    /// Still in development.
    pub development: bool,
    /// The node image's default OS stream, `""` before streams.
    pub os_image_stream: String,
    /// The distribution: `ocp` or `okd`.
    pub distribution: crate::release::Distribution,
    /// The payload's node (CoreOS) image name: `rhel-coreos`, or OKD's `stream-coreos`.
    pub node_image: String,
    /// The update graph the ClusterVersion names; `None`: the CVO's default (OpenShift's).
    pub upstream: Option<String>,
    /// bootkube's stages in order.
    pub stages: Vec<StageContext>,
    /// Stage name to its container's options, image and command as one line of shell words.
    pub run: BTreeMap<String, String>,
    /// Payload images bootkube looks up.
    pub images: Vec<ImageName>,
    /// The table's switches for this node, every one by name.
    pub switches: crate::release::Switches,
    /// The opt-ins the install-config chooses (their stages are among `stages`), e.g. `konnectivity`.
    pub opt_ins: Vec<String>,
}

/// A stage of `release.stages`.
#[derive(Debug, Clone, Serialize)]
pub struct StageContext {
    /// Recorded stage name.
    pub name: String,
    /// Marker file, `-` for none.
    pub marker: String,
    /// File whose presence skips the stage.
    pub skip_if: String,
    /// `files`, `cluster` or `probe`.
    pub kind: String,
    /// Options, image and command as one line of shell words.
    pub run: String,
}

impl TemplateContext {
    /// The context of a cluster, before master.ign and worker.ign exist (`user_data` null).
    pub fn new(model: &Model, identity: &Identity, pki: Value, debug: bool) -> TemplateContext {
        let node = model.node_profile();
        let nets = &model.networks;
        let pool = |p: &crate::model::Pool| PoolContext {
            name: p.name.clone(),
            replicas: p.replicas,
            hyperthreading: p.hyperthreading,
            architecture: p.architecture.go(),
        };
        TemplateContext {
            cluster: ClusterContext {
                name: model.cluster_name.clone(),
                base_domain: model.base_domain.clone(),
                domain: model.cluster_domain(),
                api_host: model.api_host(),
                api_int_host: model.api_int_host(),
                api_url: model.api_url(),
                api_int_url: model.api_int_url(),
                id: identity.cluster_id.clone(),
                infra_id: identity.infra_id.clone(),
            },
            platform: PlatformContext {
                name: model.platform.name(),
                infrastructure_type: model.platform.kind().infrastructure_type(),
                external: model.platform.external().cloned(),
                vsphere: vsphere::context(model, &identity.infra_id),
            },
            release_image: model.release_image.clone(),
            arch: model.bootstrap_arch.facts(),
            cluster_arch: model.control_plane.architecture.facts(),
            payload_multi: model.payload_arch == crate::model::PayloadArch::Multi,
            fips: model.fips,
            pull_secret: model.pull_secret.clone(),
            ssh_key: model.ssh_key.trim().to_string(),
            trust_bundle: model.trust_bundle.trim_end().to_string(),
            user_ca_bundle: pem::parse_many(&model.trust_bundle)
                .map(|blocks| {
                    blocks
                        .iter()
                        .map(|b| crate::pki::pem_text(b.tag(), b.contents()))
                        .collect()
                })
                .unwrap_or_default(),
            trust_bundle_policy: model.trust_bundle_policy,
            proxy: model.proxy.clone(),
            registries: model.mirrors.registries.clone(),
            mirror_kind: mirror_kind(model).map(|k| k.as_str()).unwrap_or_default(),
            mirror_manifests: mirror_manifests(model, &node),
            node_ip: NodeIp {
                use_ipv6: nets.ipv6_primary(),
                bootstrap_ip: String::new(),
            },
            cluster_profile: String::new(),
            kubelet_verbosity: if debug { 4 } else { 2 },
            networking: Networking {
                network_type: nets.network_type.to_string(),
                cluster_networks: nets
                    .cluster
                    .iter()
                    .map(|c| PodNetwork {
                        cidr: c.cidr.to_string(),
                        host_prefix: c.host_prefix,
                    })
                    .collect(),
                service_networks: nets.service.iter().map(|n| n.to_string()).collect(),
                machine_networks: nets.machine.iter().map(|n| n.to_string()).collect(),
                ovn_internal_join_subnet: nets
                    .ovn_ipv4_join_subnet
                    .map(|n| n.to_string())
                    .unwrap_or_default(),
            },
            control_plane: pool(&model.control_plane),
            compute: model.compute.iter().map(pool).collect(),
            feature_set: crate::model::ClusterFeatureSet::name_of(model.feature_set).to_string(),
            custom_feature_gates: model.custom_feature_gates.clone(),
            os_image_stream: crate::model::OsImageStream::name_of(model.os_image_stream)
                .to_string(),
            cpu_partitioning: model.cpu_partitioning,
            pki_signer_key: model.pki_signer_key.map(|key| {
                let (algorithm, rsa_key_size, ecdsa_curve) = crate::model::pki_profile_key(key);
                PkiKeyContext {
                    algorithm,
                    rsa_key_size,
                    ecdsa_curve,
                }
            }),
            capabilities: Capabilities {
                baseline: model
                    .capabilities
                    .baseline
                    .map(|set| set.to_string())
                    .unwrap_or_default(),
                additional: model.capabilities.additional.clone(),
            },
            install_config_yaml: model.stored_install_config.clone(),
            kubeadmin_hash: identity.kubeadmin_hash.clone(),
            release_channel: model.release_channel(),
            release: ReleaseContext::new(&model.release, &node),
            single_node: model.single_node.clone(),
            installer_version: env!("CARGO_PKG_VERSION"),
            pki,
            user_data: Value::Null,
        }
    }

    /// The context as JSON, the form the renderer and the file rules read.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl ReleaseContext {
    /// What templates know of `release` on the node `node`: its stages (each with its
    /// command as one line of shell words), images, switches and chosen opt-ins.
    pub fn new(release: &crate::release::SelectedRelease, node: &NodeProfile) -> ReleaseContext {
        let profile = node.profile;
        let distribution = node.dims.distribution;
        let facts = profile.distribution(distribution);
        ReleaseContext {
            version: release.version.to_string(),
            minor: profile.minor.to_string(),
            development: profile.development,
            os_image_stream: facts.map(|f| f.os_image_stream.clone()).unwrap_or_default(),
            distribution,
            node_image: facts.map(|f| f.node_image.clone()).unwrap_or_default(),
            upstream: facts.and_then(|f| f.upstream.clone()),
            stages: node
                .stages()
                .map(|stage| StageContext {
                    name: stage.name.clone(),
                    marker: stage.marker.clone(),
                    skip_if: stage.skip_if.clone(),
                    kind: stage.kind.clone(),
                    run: stage.run(),
                })
                .collect(),
            run: node
                .stages()
                .map(|stage| (stage.name.clone(), stage.run()))
                .collect(),
            images: profile.images.clone(),
            switches: node.switches.clone(),
            opt_ins: node.opt_ins.clone(),
        }
    }
}

/// The context's `release` as JSON for a bootstrap machine on platform none with no opt-in chosen:
/// for rendering a template of the release without a whole cluster.
pub fn release_context(release: &crate::release::SelectedRelease) -> Value {
    use crate::release::{Distribution, Flow, Platform};
    let node = release
        .profile
        .for_node(Flow::Cluster, Platform::None, Distribution::Ocp, &[]);
    serde_json::to_value(ReleaseContext::new(release, &node)).unwrap_or(Value::Null)
}

/// The kind of the cluster's mirror manifests: the install-config's, except that a release
/// without ImageDigestMirrorSet support in its installer gets ImageContentSourcePolicies.
fn mirror_kind(model: &Model) -> Option<MirrorKind> {
    match model.mirrors.kind {
        Some(MirrorKind::ImageDigestMirrorSet)
            if !model.switches.has(Switch::ImageDigestMirrorSet) =>
        {
            Some(MirrorKind::ImageContentSourcePolicy)
        }
        kind => kind,
    }
}

/// The mirror manifests of the node (the context's `mirror_manifests`): the install-config's
/// entries as written, laid out as the release's installer lays them out, at the paths of the
/// node's row of that kind.
fn mirror_manifests(model: &Model, node: &NodeProfile) -> Vec<MirrorManifest> {
    let Some(kind) = mirror_kind(model) else {
        return Vec::new();
    };
    let each = match kind {
        MirrorKind::ImageDigestMirrorSet => Each::ImageDigestMirrorSet,
        MirrorKind::ImageContentSourcePolicy => Each::ImageContentSourcePolicy,
    };
    let Some(row) = node.files.iter().find(|f| f.each == Some(each)) else {
        return Vec::new();
    };
    let layout = if node.has(Switch::ImageDigestMirrorSet) {
        PolicyLayout::Single
    } else {
        PolicyLayout::PerEntry
    };
    lay_out(kind, &model.mirrors.entries, row, layout)
}

/// The context's `user_data`: base64 of master.ign and worker.ign exactly as written, for the
/// machine API's user-data secrets (`master` and `worker` are the configs' bytes).
pub fn user_data(master: &[u8], worker: &[u8]) -> Value {
    use base64::Engine;
    let encode = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    json!({ "master": encode(master), "worker": encode(worker) })
}

/// The context without what may hold secrets (the PKI's keys, the pull secret, the platform's
/// and the proxy's credentials), for an embedder's logs; the rest is what `templates/README.md`
/// documents.
impl std::fmt::Debug for TemplateContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TemplateContext")
            .field(
                "release_image",
                &crate::release::without_credentials(&self.release_image),
            )
            .field("fips", &self.fips)
            .field("pull_secret", &"<redacted>")
            .field("ssh_key", &self.ssh_key)
            .field("mirror_kind", &self.mirror_kind)
            .field("cluster_profile", &self.cluster_profile)
            .field("kubelet_verbosity", &self.kubelet_verbosity)
            .finish_non_exhaustive()
    }
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
        let context = TemplateContext::new(&model, &identity, Value::Null, false).to_value();
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
