//! The validated cluster: every default applied here, once, and every value checked, so the
//! rest of bootgen never sees an `Option` that means "whatever the default is".

pub(crate) use crate::arch;
mod capabilities;
mod choices;
mod distribution;
mod features;
pub(crate) mod fields;
pub(crate) mod mirrors;
pub(crate) mod network;
mod network_rules;
mod ovn;
mod partitioning;
mod payload;
mod pki;
mod platform;
#[cfg(test)]
mod platform_tests;
mod pool_rules;
mod pools;
mod proxy;
mod section;
mod single_node;
mod stored;
mod top_level;
mod trust_bundle;
mod unknown_fields;
mod vsphere;

pub use arch::{Arch, PayloadArch, UnknownArch};
pub use capabilities::{Capabilities, CapabilitySet};
pub use choices::{ClusterFeatureSet, OsImageStream};
pub use features::CustomFeatureGates;
pub use mirrors::{MirrorEntry, MirrorKind, Mirrors, Registry, SourceContact};
pub use network::{NetworkType, Networks};
pub use partitioning::CpuPartitioning;
pub(crate) use pki::profile_key as pki_profile_key;
pub use platform::{CloudControllerManager, ExternalPlatform, PlatformSettings};
pub use pools::{Hyperthreading, Pool};
pub use proxy::ProxySettings;
pub use single_node::SingleNode;
pub use trust_bundle::TrustBundlePolicy;

use crate::config::{LoadedConfig, Warning};
use crate::error::{OptionField, Result};
use crate::release::Switch;

pub(crate) use vsphere::cleaned_path;
pub use vsphere::{
    DataDisk, FailureDomain, Topology, VCenter, VSphereMachinePool, VSphereMachinePools,
    VSpherePlatform,
};

/// The machines a pointer config serves: the pool whose config the machine-config server
/// gives them (`/config/master`, `/config/worker`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointerPool {
    /// The control-plane machines (`master.ign`).
    Master,
    /// The compute machines (`worker.ign`).
    Worker,
}

impl PointerPool {
    /// The pool's name in the machine-config server's path and the config's file name.
    pub fn name(self) -> &'static str {
        match self {
            PointerPool::Master => "master",
            PointerPool::Worker => "worker",
        }
    }
}

/// The API server's port, on `api` and `api-int`.
pub const API_PORT: u16 = 6443;
/// The machine-config server's port on `api-int` (or the first API VIP), where the pointer
/// configs send the nodes.
pub const MACHINE_CONFIG_PORT: u16 = 22623;

/// Choices that come from the command line rather than the install-config.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ModelOptions {
    /// Control-plane architecture; overrides nothing, must agree with the install-config.
    pub arch: Option<Arch>,
    /// The bootstrap host's architecture when it differs from the control plane.
    pub bootstrap_arch: Option<Arch>,
    /// Exact release payload pull spec.
    pub release_image: Option<String>,
    /// OCP version (`4.19.0`) used to derive the payload when no image is given.
    pub release_version: Option<String>,
    /// Accept a payload whose tag names another architecture.
    pub allow_arch_mismatch: bool,
    /// The release image is a multi-architecture payload even though its reference cannot say
    /// so (a digest, or a tag without an architecture suffix).
    pub multi_arch_payload: bool,
    /// Make the single-node live-ISO config (bootstrap in place), even when the install-config
    /// does not say so by itself.
    pub single_node: bool,
    /// The single node's installation disk; overrides `bootstrapInPlace.installationDisk`.
    pub installation_disk: Option<String>,
    /// The distribution, when the release image cannot say it (a digest); `None`: the one the
    /// payload's repository or tag names, OpenShift when it names none.
    pub distribution: Option<crate::release::Distribution>,
    /// Leave out the machine API's Machines, MachineSets and ControlPlaneMachineSet (for
    /// machines the user creates: the installer's UPI documents delete them).
    pub without_machine_manifests: bool,
}

/// The validated cluster. Its `Debug` leaves out what may hold secrets (the pull secret, the
/// platform's credentials, the proxy's URLs, the stored install-config).
#[derive(Clone)]
pub struct Model {
    /// `metadata.name`.
    pub cluster_name: String,
    /// `baseDomain` without a trailing dot.
    pub base_domain: String,
    /// Control-plane pool.
    pub control_plane: Pool,
    /// Compute pools.
    pub compute: Vec<Pool>,
    /// The bootstrap host's architecture (normally the control plane's).
    pub bootstrap_arch: Arch,
    /// The platform (the install-config's one key under `platform`) with its settings.
    pub platform: PlatformSettings,
    /// The machine API's manifests are left out (see [`ModelOptions::without_machine_manifests`]).
    pub without_machine_manifests: bool,
    /// The distribution the payload belongs to.
    pub distribution: crate::release::Distribution,
    /// What the release is in that distribution: its channel, update graph, node image.
    pub distribution_facts: crate::release::DistributionFacts,
    /// The release table's switches for this node (its release, flow, platform and
    /// distribution).
    pub switches: crate::release::Switches,
    /// Release payload pull spec.
    pub release_image: String,
    /// What the payload reference says about its architecture.
    pub payload_arch: PayloadArch,
    /// OCP version (for the CVO channel), when known.
    pub release_version: String,
    /// The release the bootstrap is made for, with its profile.
    pub release: crate::release::SelectedRelease,
    /// Networks.
    pub networks: Networks,
    /// FIPS mode.
    pub fips: bool,
    /// Pull secret JSON.
    pub pull_secret: String,
    /// SSH public key(s), may be empty.
    pub ssh_key: String,
    /// Additional trust bundle PEM, may be empty.
    pub trust_bundle: String,
    /// Which of the cluster's components trust the additional bundle.
    pub trust_bundle_policy: TrustBundlePolicy,
    /// Proxy, with the computed noProxy.
    pub proxy: ProxySettings,
    /// The install-config's mirrors.
    pub mirrors: Mirrors,
    /// The capabilities the cluster starts with.
    pub capabilities: Capabilities,
    /// The feature set, one the release accepts; `None`: the default one.
    pub feature_set: Option<ClusterFeatureSet>,
    /// With feature set CustomNoUpgrade, the feature gates `featureGates` turns on and off.
    pub custom_feature_gates: CustomFeatureGates,
    /// The OS stream of the node image (install-config `osImageStream` or the release's
    /// default); `None` before releases had streams.
    pub os_image_stream: Option<OsImageStream>,
    /// The Infrastructure's workload partitioning: install-config `cpuPartitioningMode` as the
    /// release's installer carries it out.
    pub cpu_partitioning: CpuPartitioning,
    /// The signer certificates' key the install-config's `pki` names (5.0, ConfigurablePKI
    /// gate on); `None` without one.
    pub pki_signer_key: Option<crate::pki::KeyAlgorithm>,
    /// The install-config as stored in the cluster (pull secret removed).
    pub stored_install_config: String,
    /// The single-node (bootstrap-in-place) settings, when this is a single-node cluster.
    pub single_node: Option<SingleNode>,
    /// Warnings gathered while loading and validating.
    pub warnings: Vec<Warning>,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("cluster_name", &self.cluster_name)
            .field("base_domain", &self.base_domain)
            .field("control_plane", &self.control_plane)
            .field("compute", &self.compute)
            .field("bootstrap_arch", &self.bootstrap_arch)
            .field("platform", &self.platform.kind())
            .field("distribution", &self.distribution)
            .field(
                "release_image",
                &crate::release::without_credentials(&self.release_image),
            )
            .field("release_version", &self.release_version)
            .field("networks", &self.networks)
            .field("fips", &self.fips)
            .field("pull_secret", &"<redacted>")
            .field("ssh_key", &self.ssh_key)
            .field("capabilities", &self.capabilities)
            .field("feature_set", &self.feature_set)
            .field("single_node", &self.single_node)
            .field("warnings", &self.warnings)
            .finish_non_exhaustive()
    }
}

impl Model {
    /// How this cluster bootstraps: on a bootstrap machine, or a single node in place.
    pub fn flow(&self) -> crate::release::Flow {
        if self.single_node.is_some() {
            crate::release::Flow::InPlace
        } else {
            crate::release::Flow::Cluster
        }
    }

    /// What this cluster's bootstrap node gets of its release: files, units, stages and
    /// switches for its flow, platform and distribution, with the opt-ins its install-config
    /// chooses.
    pub fn node_profile(&self) -> crate::release::NodeProfile<'static> {
        self.release.profile.for_node(
            self.flow(),
            self.platform.kind(),
            self.distribution,
            &self.chosen_opt_ins(),
        )
    }

    /// The release's opt-ins this install-config chooses (its feature set and gates).
    fn chosen_opt_ins(&self) -> Vec<String> {
        self.release.profile.opt_ins_chosen(
            self.flow(),
            ClusterFeatureSet::name_of(self.feature_set),
            &self.custom_feature_gates.enabled,
        )
    }

    /// `<name>.<baseDomain>`.
    pub fn cluster_domain(&self) -> String {
        format!("{}.{}", self.cluster_name, self.base_domain)
    }

    /// `api.<cluster domain>`.
    pub fn api_host(&self) -> String {
        format!("api.{}", self.cluster_domain())
    }

    /// The API's URL for clients outside the cluster: `https://api.<cluster domain>:6443`.
    pub fn api_url(&self) -> String {
        format!("https://{}:{API_PORT}", self.api_host())
    }

    /// The API's URL for the nodes: `https://api-int.<cluster domain>:6443`.
    pub fn api_int_url(&self) -> String {
        format!("https://{}:{API_PORT}", self.api_int_host())
    }

    /// Where a pointer config sends a machine of `pool` for its config.
    pub fn machine_config_url(&self, pool: PointerPool) -> String {
        let server = crate::url_syntax::host_port(&self.machine_config_host(), MACHINE_CONFIG_PORT);
        format!("https://{server}/config/{}", pool.name())
    }

    /// Whether the kubelet's bootstrap client certificate names the `system:serviceaccounts`
    /// group too, as the release's installer writes it (from 4.14).
    pub fn kubelet_client_in_all_service_accounts(&self) -> bool {
        self.switches.has(Switch::KubeletClientAllServiceAccounts)
    }

    /// Whether the cluster's certificates follow its release's PKI profile (the ConfigurablePKI
    /// opt-in chosen, as the preview feature sets do in 5.0), whose signers' keys are
    /// [`crate::pki::PROFILE_SIGNER_KEY`] unless the install-config's `pki` names another.
    pub fn certificates_follow_the_pki_profile(&self) -> bool {
        self.chooses_opt_in(crate::release::CONFIGURABLE_PKI_OPT_IN)
    }

    /// Whether this install-config chooses the release's opt-in `name`.
    fn chooses_opt_in(&self, name: &str) -> bool {
        self.chosen_opt_ins().iter().any(|o| o == name)
    }

    /// With the ShortCertRotation feature gate on (the short_cert_rotation opt-in), how many hours
    /// the installer's one-day certificates live instead (its one-year ones twice that): 1 in
    /// 4.19, 2 from 4.20. `None`: their usual lifetimes.
    pub fn short_cert_rotation_hours(&self) -> Option<u8> {
        self.chooses_opt_in(crate::release::SHORT_CERT_ROTATION_OPT_IN)
            .then(|| {
                if self.switches.has(Switch::ShortCertRotationTwoHours) {
                    2
                } else {
                    1
                }
            })
    }

    /// `api-int.<cluster domain>`.
    pub fn api_int_host(&self) -> String {
        format!("api-int.{}", self.cluster_domain())
    }

    /// The host the pointer configs fetch a machine's config from: the first API VIP where the
    /// platform has VIPs (every installer from 4.9 points vSphere's nodes at it, which the
    /// machine-config server's certificate names), else api-int.
    pub fn machine_config_host(&self) -> String {
        match self.platform.api_vips().first() {
            Some(vip) => vip.clone(),
            None => self.api_int_host(),
        }
    }

    /// The addresses beside api-int the machine-config server's certificate names: the API VIPs
    /// (every installer from 4.9 on names them, as IP addresses and as DNS names).
    pub fn machine_config_server_ips(&self) -> Vec<std::net::IpAddr> {
        self.platform
            .api_vips()
            .iter()
            .filter_map(|vip| vip.parse().ok())
            .collect()
    }

    /// The CVO channel: `stable-<major>.<minor>` for OpenShift, `stable-scos-4` for OKD.
    pub fn release_channel(&self) -> String {
        self.distribution_facts.channel.clone()
    }

    /// Validates a loaded install-config and applies every default.
    pub fn new(loaded: &LoadedConfig, options: &ModelOptions) -> Result<Model> {
        let ic = &loaded.config;
        let mut warnings = loaded.warnings.clone();
        top_level::check_api_version(loaded)?;
        // A release that does not select is said below, in its turn.
        let selected = select_release(loaded, options)?;
        let mut platform = platform::platform_of(loaded, &mut warnings)?;
        let top_level::Names {
            cluster_name,
            base_domain,
        } = top_level::Names::read(loaded)?;
        let pools::Pools {
            control_plane,
            compute,
        } = pools::Pools::read(loaded, options, platform.kind(), &mut warnings)?;
        let single_node =
            single_node::settings(loaded, options, &control_plane, &compute, &mut warnings)?;
        let release = selected?;
        let release_version = release.version.to_string();
        let (distribution, distribution_facts) =
            distribution::choose_with_facts(loaded, options, release.profile)?;
        let switches = release.profile.switches(crate::release::Dimensions {
            flow: if single_node.is_some() {
                crate::release::Flow::InPlace
            } else {
                crate::release::Flow::Cluster
            },
            platform: platform.kind(),
            distribution,
        });
        platform.settle(
            loaded,
            (&control_plane, &compute),
            release.profile,
            &switches,
            &mut warnings,
        )?;
        pool_rules::check_compute_names(loaded, platform.kind())?;
        pool_rules::check_control_plane_count(
            loaded,
            release.profile,
            &switches,
            control_plane.replicas,
        )?;
        let payload::Payload {
            bootstrap_arch,
            release_image,
            arch: payload_arch,
        } = payload::Payload::choose(
            options,
            (&control_plane, &compute),
            distribution,
            &release,
            &switches,
            &mut warnings,
        )?;

        let mut networks = Networks::read(loaded, &switches)?;
        networks.ovn_ipv4_join_subnet =
            ovn::join_subnet(loaded, release.profile, &switches, &networks, &mut warnings)?;
        network_rules::check_networks(loaded, release.profile, &switches, &networks)?;
        warnings.extend(network_rules::misspelled_plugin(loaded, &networks));
        if let platform::PlatformSettings::VSphere(vsphere) = &mut platform {
            vsphere::settle_vips(loaded, vsphere, &networks, &switches, &mut warnings)?;
            vsphere::clean_paths(vsphere, &switches);
            vsphere::ignore_unknown_template(
                loaded,
                vsphere,
                release.profile,
                &switches,
                &mut warnings,
            );
        }
        pool_rules::check_single_replica(
            loaded,
            release.profile,
            &switches,
            platform.kind(),
            control_plane.replicas,
            single_node.is_some(),
        )?;
        let top_level::Access {
            pull_secret,
            ssh_key,
        } = top_level::Access::read(loaded, &switches, &mut warnings)?;
        let trust_bundle::TrustBundle {
            pem: trust_bundle,
            policy: trust_bundle_policy,
        } = trust_bundle::TrustBundle::read(loaded, release.profile, &switches, &mut warnings)?;
        top_level::check_publish(loaded, platform.kind())?;
        proxy::check_proxy(loaded, &networks, &switches)?;
        let proxy = proxy::settings(loaded, &cluster_name, &base_domain, &networks)?;
        let mirrors = Mirrors::read(loaded, release.profile, &switches, &mut warnings)?;
        let capabilities = capabilities::check_capabilities(
            loaded,
            release.profile,
            &switches,
            &platform,
            &mut warnings,
        )?;
        let (feature_set, custom_feature_gates) = features::feature_selection(
            loaded,
            release.profile,
            &distribution_facts,
            &switches,
            &mut warnings,
        )?;
        if let platform::PlatformSettings::VSphere(vsphere) = &mut platform {
            vsphere::settle_stated_defaults(
                loaded,
                vsphere,
                release.profile,
                &switches,
                &feature_set,
                &mut warnings,
            )?;
            vsphere::check_legacy_paths(loaded, &switches)?;
        }
        if let Some(vsphere) = platform.vsphere() {
            vsphere::check_legacy_placement(loaded, vsphere, &switches)?;
            vsphere::check_failure_domains(loaded, vsphere, &switches)?;
            vsphere::check_vcenter_servers(loaded, vsphere, &switches)?;
            vsphere::check_multiples(
                loaded,
                vsphere,
                release.profile,
                &switches,
                &feature_set,
                &custom_feature_gates,
            )?;
        }
        let cpu_partitioning = partitioning::cpu_partitioning(
            loaded,
            release.profile,
            &switches,
            ClusterFeatureSet::from_name(&feature_set),
            &mut warnings,
        )?;
        let os_image_stream = features::os_image_stream(
            loaded,
            release.profile,
            &distribution_facts,
            &feature_set,
            &custom_feature_gates,
            &mut warnings,
        )?;
        let stored_install_config = stored::StoredInstallConfig {
            written: ic,
            platform: &platform,
            control_plane: &control_plane,
            compute: &compute,
            networks: &networks,
            profile: release.profile,
            facts: &distribution_facts,
            switches: &switches,
            single_node: single_node.as_ref(),
            os_image_stream: &os_image_stream,
        }
        .to_yaml();
        let mut model = Model {
            cluster_name,
            base_domain,
            control_plane,
            compute,
            bootstrap_arch,
            platform,
            without_machine_manifests: options.without_machine_manifests,
            distribution,
            distribution_facts,
            switches,
            release_image,
            payload_arch,
            release_version,
            release,
            networks,
            fips: ic.fips.unwrap_or(false),
            pull_secret,
            ssh_key,
            trust_bundle,
            trust_bundle_policy,
            proxy,
            mirrors,
            capabilities,
            // Both are words the release table lists, which the types hold (a test says so).
            feature_set: ClusterFeatureSet::from_name(&feature_set),
            custom_feature_gates,
            os_image_stream: OsImageStream::from_name(&os_image_stream),
            cpu_partitioning,
            pki_signer_key: None,
            stored_install_config,
            single_node,
            warnings,
        };
        // After the rest: whether the gate is on is the opt-ins the whole model chooses.
        let gate_on = model.certificates_follow_the_pki_profile();
        model.pki_signer_key = pki::signer_key(
            loaded,
            model.release.profile,
            &model.switches,
            gate_on,
            &mut model.warnings,
        )?;
        Ok(model)
    }
}

/// The release the node is made for: from the version given, or the release image's tag, or
/// the default (said in a notice by the caller). A pull spec the node's podman would refuse is
/// refused first; then, for a release that selects, a field its installer does not know where it
/// refuses those, and a vSphere platform in a form it does not take, before any field is read,
/// as that installer does. The inner result is the selection, said in its turn.
fn select_release(
    loaded: &LoadedConfig,
    options: &ModelOptions,
) -> Result<Result<crate::release::SelectedRelease>> {
    if let Some(image) = &options.release_image {
        image
            .parse::<crate::release::PullSpec>()
            .map_err(|e| e.for_option(OptionField::ReleaseImage))?;
    }
    let selected = crate::release::select(
        options.release_version.as_deref(),
        options.release_image.as_deref(),
    );
    if let Ok(release) = &selected {
        let switches = release
            .profile
            .switches(crate::release::Dimensions::default());
        unknown_fields::refuse_first_unknown(loaded, release.profile, &switches)?;
        let platform = loaded.config.platform.as_ref();
        if platform.is_some_and(|p| p.get("vsphere").is_some()) {
            vsphere::check_form(loaded, release.profile, &switches)?;
        }
    }
    Ok(selected)
}

/// The model of an install-config `text` for release `version` and its warnings, or what
/// [`Model::new`] refuses it with.
#[cfg(test)]
fn model_with_warnings(text: &str, version: &str) -> Result<(Model, Vec<String>), String> {
    let loaded = crate::config::parse(text, "install-config.yaml").map_err(|e| e.to_string())?;
    let options = ModelOptions {
        release_version: Some(version.into()),
        ..ModelOptions::default()
    };
    let model = Model::new(&loaded, &options).map_err(|e| e.to_string())?;
    let warnings = model.warnings.iter().map(|w| w.to_string()).collect();
    Ok((model, warnings))
}

/// The smallest install-config the model takes (cluster `demo` on platform none), which tests
/// end with the part they test.
#[cfg(test)]
const MINIMAL_INSTALL_CONFIG: &str = "apiVersion: v1\nmetadata:\n  name: demo\nbaseDomain: example.com\nplatform:\n  none: {}\npullSecret: '{\"auths\":{\"r\":{\"auth\":\"eDp5\"}}}'\n";

/// What [`Model::new`] refuses an install-config `text` with for release `version`; `""` when
/// it accepts it.
#[cfg(test)]
fn refusal(text: &str, version: &str) -> String {
    model_with_warnings(text, version).err().unwrap_or_default()
}
