//! install-config.yaml as users write it. Field names follow the installer's camelCase; nothing
//! is defaulted or validated here (that is `model`'s job), so what a user wrote can be shown back.

use serde::{Deserialize, Serialize};

/// The whole install-config document. Its `Debug` hides the pull secret and every password.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallConfig {
    /// Always `v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// Holds the cluster name.
    #[serde(default)]
    pub metadata: Metadata,
    /// DNS domain the cluster lives under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_domain: Option<String>,
    /// The control-plane machine pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_plane: Option<MachinePool>,
    /// Compute machine pools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compute: Vec<MachinePool>,
    /// Cluster, service and machine networks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub networking: Option<Networking>,
    /// The platform; only `none` is supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<serde_json::Map<String, serde_json::Value>>,
    /// Enable FIPS mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fips: Option<bool>,
    /// Docker config JSON with registry credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_secret: Option<String>,
    /// SSH public key for the `core` user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssh_key: Option<String>,
    /// Extra PEM CA certificates to trust.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_trust_bundle: Option<String>,
    /// `Proxyonly` (default) or `Always`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_trust_bundle_policy: Option<String>,
    /// Cluster-wide proxy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<Proxy>,
    /// Deprecated mirror list (ICSP).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_content_sources: Vec<ImageSource>,
    /// Mirror list (IDMS).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_digest_sources: Vec<ImageSource>,
    /// Optional capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Capabilities>,
    /// Feature set, e.g. `TechPreviewNoUpgrade`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature_set: Option<String>,
    /// How the cluster's endpoints are published: `External` (the default), or `Internal` and
    /// `Mixed`, which need a cloud platform's load balancers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publish: Option<String>,
    /// With feature set `CustomNoUpgrade`: the feature gates to turn on or off, each
    /// `Name=true` or `Name=false`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub feature_gates: Vec<String>,
    /// The OS stream of the cluster's node image (`rhel-9`, `rhel-10`), from 4.22 on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_image_stream: Option<String>,
    /// Single-node OpenShift installed from the live ISO (bootstrap in place).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bootstrap_in_place: Option<BootstrapInPlace>,
    /// Workload partitioning: `None` (the default) or `AllNodes`, from 4.13 on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_partitioning_mode: Option<String>,
    /// The signer certificates' key, from 5.0 on (ConfigurablePKI feature gate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pki: Option<PkiConfig>,
}

/// `pki`: how the cluster's certificates are made.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PkiConfig {
    /// The signers' (certificate authorities') certificates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signer_certificates: Option<PkiCertificateConfig>,
}

/// `pki.signerCertificates`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PkiCertificateConfig {
    /// The certificates' key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<PkiKeyConfig>,
}

/// `pki.signerCertificates.key`: the algorithm and its one parameter block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PkiKeyConfig {
    /// `RSA` or `ECDSA`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<String>,
    /// With `RSA`: the key size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rsa: Option<PkiRsaKeyConfig>,
    /// With `ECDSA`: the curve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecdsa: Option<PkiEcdsaKeyConfig>,
}

/// `pki.signerCertificates.key.rsa`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PkiRsaKeyConfig {
    /// Bits: a multiple of 1024 from 2048 to 8192.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_size: Option<i64>,
}

/// `pki.signerCertificates.key.ecdsa`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PkiEcdsaKeyConfig {
    /// `P256`, `P384` or `P521`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curve: Option<String>,
}

/// `bootstrapInPlace`: where the single node installs itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BootstrapInPlace {
    /// The disk coreos-installer writes RHCOS to, e.g. `/dev/sda`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installation_disk: Option<String>,
}

/// `metadata`: the cluster's name, its labels and annotations, and the rest of a Kubernetes
/// object's metadata, which the installer only copies into the cluster's stored install-config
/// (bootgen too; `ownerReferences` and `managedFields` are refused, see `object_metadata`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    /// Cluster name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Labels, which the cluster keeps in its copy of the install-config; each value a string
    /// (a whole number or true/false taken as its text, as the installer takes it).
    #[serde(
        default,
        skip_serializing_if = "std::collections::BTreeMap::is_empty",
        deserialize_with = "super::string_map::deserialize"
    )]
    pub labels: std::collections::BTreeMap<String, String>,
    /// Annotations; the installer records in them what it did not check. Read as `labels`.
    #[serde(
        default,
        skip_serializing_if = "std::collections::BTreeMap::is_empty",
        deserialize_with = "super::string_map::deserialize"
    )]
    pub annotations: std::collections::BTreeMap<String, String>,
    /// `generateName`, kept for the stored copy, as are the fields below.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::object_metadata::text"
    )]
    pub generate_name: Option<String>,
    /// `namespace`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::object_metadata::text"
    )]
    pub namespace: Option<String>,
    /// `selfLink`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::object_metadata::text"
    )]
    pub self_link: Option<String>,
    /// `uid`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::object_metadata::text"
    )]
    pub uid: Option<String>,
    /// `resourceVersion`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::object_metadata::text"
    )]
    pub resource_version: Option<String>,
    /// `generation`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    /// `creationTimestamp`, as the cluster stores it (UTC, whole seconds).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::object_metadata::timestamp"
    )]
    pub creation_timestamp: Option<String>,
    /// `deletionTimestamp`, as `creationTimestamp`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::object_metadata::timestamp"
    )]
    pub deletion_timestamp: Option<String>,
    /// `deletionGracePeriodSeconds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_grace_period_seconds: Option<i64>,
    /// `finalizers`.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "super::object_metadata::texts"
    )]
    pub finalizers: Vec<String>,
}

/// A machine pool (`controlPlane` or an entry of `compute`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MachinePool {
    /// `master`, `worker`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Number of machines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i64>,
    /// `amd64`, `arm64`, `ppc64le` or `s390x`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub architecture: Option<String>,
    /// `Enabled` or `Disabled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hyperthreading: Option<String>,
    /// Platform-specific pool settings (kept, unused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<serde_json::Value>,
}

/// `networking`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Networking {
    /// CNI plugin, `OVNKubernetes` by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_type: Option<String>,
    /// Pod networks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_network: Vec<ClusterNetwork>,
    /// Service networks (CIDRs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub service_network: Vec<String>,
    /// Machine networks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub machine_network: Vec<MachineNetwork>,
    /// Deprecated `machineCIDR`: one machine network (upconverted, see `config::deprecated`).
    #[serde(
        default,
        rename = "machineCIDR",
        skip_serializing_if = "Option::is_none"
    )]
    pub deprecated_machine_cidr: Option<String>,
    /// Deprecated `serviceCIDR`: one service network.
    #[serde(
        default,
        rename = "serviceCIDR",
        skip_serializing_if = "Option::is_none"
    )]
    pub deprecated_service_cidr: Option<String>,
    /// Deprecated `clusterNetworks`: the pod networks.
    #[serde(
        default,
        rename = "clusterNetworks",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub deprecated_cluster_networks: Vec<ClusterNetwork>,
    /// Deprecated `type`: the network type.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub deprecated_type: Option<String>,
    /// OVN-Kubernetes' settings, from 4.18 on.
    #[serde(
        default,
        rename = "ovnKubernetesConfig",
        skip_serializing_if = "Option::is_none"
    )]
    pub ovn_kubernetes_config: Option<OvnKubernetesConfig>,
}

/// `networking.ovnKubernetesConfig`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OvnKubernetesConfig {
    /// The IPv4 settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipv4: Option<OvnKubernetesIpv4Config>,
}

/// `networking.ovnKubernetesConfig.ipv4`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OvnKubernetesIpv4Config {
    /// The subnet OVN-Kubernetes joins its routers with, instead of 100.64.0.0/16.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal_join_subnet: Option<String>,
}

/// An entry of `networking.clusterNetwork`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterNetwork {
    /// The pod CIDR.
    #[serde(default)]
    pub cidr: String,
    /// Prefix length of each node's slice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_prefix: Option<u8>,
    /// Deprecated: the bits of each node's slice (`hostPrefix` is the address size less it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_subnet_length: Option<u8>,
}

/// An entry of `networking.machineNetwork`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineNetwork {
    /// The machines' CIDR.
    #[serde(default)]
    pub cidr: String,
}

/// `proxy`. Its `Debug` hides the URLs' credentials.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Proxy {
    /// HTTP proxy URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_proxy: Option<String>,
    /// HTTPS proxy URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub https_proxy: Option<String>,
    /// Comma-separated exclusions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_proxy: Option<String>,
}

/// An entry of `imageContentSources` or `imageDigestSources`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageSource {
    /// The repository images are referenced by.
    #[serde(default)]
    pub source: String,
    /// Where they can be pulled from instead.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mirrors: Vec<String>,
    /// `AllowContactingSource` or `NeverContactSource` (imageDigestSources only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_policy: Option<String>,
}

/// `capabilities`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    /// e.g. `None`, `vCurrent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_capability_set: Option<String>,
    /// Extra capabilities.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_enabled_capabilities: Vec<String>,
}

impl std::fmt::Debug for InstallConfig {
    /// Every field but the secrets: the pull secret is a marker, the platform's settings (a
    /// vCenter's password) only its name, the proxy's URLs without their credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let platform: Option<Vec<&String>> = self.platform.as_ref().map(|p| p.keys().collect());
        f.debug_struct("InstallConfig")
            .field("api_version", &self.api_version)
            .field("metadata", &self.metadata)
            .field("base_domain", &self.base_domain)
            .field("control_plane", &self.control_plane)
            .field("compute", &self.compute)
            .field("networking", &self.networking)
            .field("platform", &platform)
            .field("fips", &self.fips)
            .field(
                "pull_secret",
                &self.pull_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("ssh_key", &self.ssh_key)
            .field("additional_trust_bundle", &self.additional_trust_bundle)
            .field(
                "additional_trust_bundle_policy",
                &self.additional_trust_bundle_policy,
            )
            .field("proxy", &self.proxy)
            .field("image_content_sources", &self.image_content_sources)
            .field("image_digest_sources", &self.image_digest_sources)
            .field("capabilities", &self.capabilities)
            .field("feature_set", &self.feature_set)
            .field("publish", &self.publish)
            .field("feature_gates", &self.feature_gates)
            .field("os_image_stream", &self.os_image_stream)
            .field("bootstrap_in_place", &self.bootstrap_in_place)
            .field("cpu_partitioning_mode", &self.cpu_partitioning_mode)
            .field("pki", &self.pki)
            .finish()
    }
}

impl std::fmt::Debug for Proxy {
    /// The URLs without their `user:password@`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hidden = |url: &Option<String>| {
            url.as_deref().map(|url| {
                bootgen_diagnose::replace_url_user_info(url, |_| "<redacted>".to_string())
            })
        };
        f.debug_struct("Proxy")
            .field("http_proxy", &hidden(&self.http_proxy))
            .field("https_proxy", &hidden(&self.https_proxy))
            .field("no_proxy", &self.no_proxy)
            .finish()
    }
}
