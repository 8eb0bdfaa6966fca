//! The validated cluster: every default applied here, once, and every value checked, so the
//! rest of bootgen never sees an `Option` that means "whatever the default is".

pub(crate) use crate::arch;
mod capabilities;
mod distribution;
mod features;
pub(crate) mod fields;
pub(crate) mod mirrors;
pub(crate) mod network;
mod network_rules;
mod platform;
mod pool_rules;
mod proxy;
mod single_node;
mod unknown_fields;
mod vsphere;

pub use arch::{Arch, PayloadArch, UnknownArch};
pub use features::CustomFeatureGates;
pub use mirrors::{MirrorKind, Registry};
pub use network::Networks;
pub use proxy::ProxySettings;
pub use single_node::SingleNode;

use crate::config::{InstallConfig, LoadedConfig, Warning};
use crate::error::{Error, OptionField, Result, OPTIONS_SOURCE};
use crate::release::{Feature, FeatureSet};

/// Platforms bootgen can generate for.
pub use platform::{ExternalPlatform, SUPPORTED_PLATFORMS};
pub use vsphere::{
    DataDisk, FailureDomain, Topology, VCenter, VSphereMachinePool, VSphereMachinePools,
    VSpherePlatform,
};

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

/// A machine pool after defaults.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Pool {
    /// Pool name.
    pub name: String,
    /// Machine count.
    pub replicas: u32,
    /// The install-config wrote `replicas` (false: the default was taken, so the count is
    /// open).
    pub replicas_written: bool,
    /// `Enabled` or `Disabled`.
    pub hyperthreading: String,
    /// CPU architecture.
    pub architecture: Arch,
}

/// The validated cluster.
#[derive(Debug, Clone)]
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
    /// The platform (the install-config's one key under `platform`).
    pub platform: crate::release::Platform,
    /// An external platform's settings (`platform: external`).
    pub external_platform: Option<ExternalPlatform>,
    /// A vSphere platform's vCenters, failure domains and VIPs (`platform: vsphere`).
    pub vsphere_platform: Option<VSpherePlatform>,
    /// The machine API's manifests are left out (see [`ModelOptions::without_machine_manifests`]).
    pub without_machine_manifests: bool,
    /// The distribution the payload belongs to.
    pub distribution: crate::release::Distribution,
    /// What the release is in that distribution: its channel, update graph, node image.
    pub distribution_facts: crate::release::DistributionFacts,
    /// The release table's switches for this node (its release, flow, platform and
    /// distribution).
    pub features: crate::release::FeatureSet,
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
    /// `Proxyonly` or `Always`.
    pub trust_bundle_policy: String,
    /// Proxy, with the computed noProxy.
    pub proxy: ProxySettings,
    /// Mirror rules.
    pub registries: Vec<Registry>,
    /// Which manifest carries them (when there are any).
    pub mirror_kind: Option<MirrorKind>,
    /// Capabilities baseline (`""` when unset).
    pub capabilities_baseline: String,
    /// Extra capabilities.
    pub capabilities_additional: Vec<String>,
    /// Feature set (`""` when unset), one the release accepts.
    pub feature_set: String,
    /// With feature set CustomNoUpgrade, the feature gates `featureGates` turns on and off.
    pub custom_feature_gates: CustomFeatureGates,
    /// The OS stream of the node image (install-config `osImageStream` or the release's
    /// default), `""` before releases had streams.
    pub os_image_stream: String,
    /// The install-config as stored in the cluster (pull secret removed).
    pub stored_install_config: String,
    /// The single-node (bootstrap-in-place) settings, when this is a single-node cluster.
    pub single_node: Option<SingleNode>,
    /// Warnings gathered while loading and validating.
    pub warnings: Vec<Warning>,
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
    /// switches for its flow, platform and distribution, with the gates its install-config
    /// opens.
    pub fn view(&self) -> crate::release::NodeView<'static> {
        let profile = self.release.profile;
        let open = profile.gates_open(
            self.flow(),
            &self.feature_set,
            &self.custom_feature_gates.enabled,
        );
        profile.view(self.flow(), self.platform, self.distribution, &open)
    }

    /// `<name>.<baseDomain>`.
    pub fn cluster_domain(&self) -> String {
        format!("{}.{}", self.cluster_name, self.base_domain)
    }

    /// `api.<cluster domain>`.
    pub fn api_host(&self) -> String {
        format!("api.{}", self.cluster_domain())
    }

    /// `api-int.<cluster domain>`.
    pub fn api_int_host(&self) -> String {
        format!("api-int.{}", self.cluster_domain())
    }

    /// The addresses beside api-int the machine-config server's certificate names: the API VIPs,
    /// from the release whose installer adds them (4.19).
    pub fn machine_config_server_ips(&self) -> Vec<std::net::IpAddr> {
        if !self.features.has(Feature::McsCertificateVips) {
            return Vec::new();
        }
        self.vsphere_platform
            .iter()
            .flat_map(|v| &v.api_vips)
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
        match ic.api_version.as_deref() {
            Some("v1") => {}
            None => {
                return Err(loaded.field_error(
                    "apiVersion",
                    "is required: begin the install-config with `apiVersion: v1`",
                ))
            }
            Some(version) => {
                return Err(loaded.field_error(
                    "apiVersion",
                    format!("`{version}` is not supported; use v1"),
                ))
            }
        }
        // A field the release's installer does not know, where it refuses those, and a vSphere
        // platform in a form it does not take, are refused before any field is read, as that
        // installer does (a release that does not select is said below, in its turn).
        // The release decides what the bootstrap node gets: from the version given, or the
        // release image's tag, or the default (said in a notice by the caller).
        // A pull spec the node's podman would refuse is refused before anything reads it.
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
            let features = release
                .profile
                .features(crate::release::Dimensions::default());
            unknown_fields::refuse_first_unknown(loaded, release.profile, &features)?;
            if ic
                .platform
                .as_ref()
                .is_some_and(|p| p.get("vsphere").is_some())
            {
                platform::check_vsphere_form(loaded, release.profile, &features)?;
            }
        }
        let platform::PlatformSettings {
            platform,
            external: external_platform,
            vsphere: vsphere_platform,
        } = platform::platform_of(loaded, &mut warnings)?;
        let cluster_name = required(
            loaded,
            ic.metadata.name.as_deref(),
            "metadata.name",
            "the cluster name, e.g. `name: mycluster`",
        )?;
        fields::check_cluster_name(&cluster_name)
            .map_err(|m| loaded.field_error("metadata.name", m))?;
        let base_domain = required(
            loaded,
            ic.base_domain.as_deref(),
            "baseDomain",
            "the DNS domain, e.g. `baseDomain: example.com`",
        )?;
        fields::check_domain(&base_domain).map_err(|m| loaded.field_error("baseDomain", m))?;
        let base_domain = base_domain.trim_end_matches('.').to_string();

        let (control_plane, compute) = pools(loaded, options, platform)?;
        let single_node =
            single_node::settings(loaded, options, &control_plane, &compute, &mut warnings)?;
        let release = selected?;
        let release_version = release.version.to_string();
        let distribution = distribution::choose(
            loaded,
            options.release_image.as_deref(),
            options.distribution,
        )?;
        let chosen_by = if options.distribution.is_some() {
            crate::error::OptionField::Distribution
        } else {
            crate::error::OptionField::ReleaseImage
        };
        let distribution_facts =
            distribution::facts(distribution, release.profile, chosen_by)?.clone();
        let features = release.profile.features(crate::release::Dimensions {
            flow: if single_node.is_some() {
                crate::release::Flow::InPlace
            } else {
                crate::release::Flow::Cluster
            },
            platform,
            distribution,
        });
        let mut external_platform = external_platform;
        let mut vsphere_platform = vsphere_platform;
        platform::check_release(
            loaded,
            platform,
            external_platform.as_mut(),
            vsphere_platform.as_ref(),
            release.profile,
            &features,
            &mut warnings,
        )?;
        if let Some(vsphere) = vsphere_platform.as_mut() {
            vsphere::check_architectures(loaded, &control_plane, &compute)?;
            vsphere.machine_pools = vsphere::machine_pools(
                loaded,
                vsphere,
                compute.len(),
                release.profile,
                &features,
                &mut warnings,
            )?;
        }
        pool_rules::check_compute_names(loaded)?;
        pool_rules::check_control_plane_count(
            loaded,
            release.profile,
            &features,
            control_plane.replicas,
        )?;
        let bootstrap_arch = options.bootstrap_arch.unwrap_or(control_plane.architecture);
        let heterogeneous = compute
            .iter()
            .any(|p| p.architecture != control_plane.architecture)
            || bootstrap_arch != control_plane.architecture;
        let release_image = match &options.release_image {
            Some(image) => image.clone(),
            None => {
                let suffix = if heterogeneous {
                    arch::MULTI_SUFFIX
                } else {
                    control_plane.architecture.facts().release_suffix
                };
                distribution::default_release_image(
                    distribution,
                    release.profile,
                    &release_version,
                    suffix,
                )?
            }
        };
        let payload_arch = match PayloadArch::from_reference(&release_image) {
            PayloadArch::Unknown if options.multi_arch_payload => PayloadArch::Multi,
            PayloadArch::Single(arch) if options.multi_arch_payload => {
                return Err(Error::InvalidOption {
                    option: OptionField::MultiArchPayload,
                    message: format!(
                        "`{release_image}` is tagged for {arch} only, so it is not a multi-architecture payload"
                    ),
                })
            }
            known => known,
        };
        if payload_arch == PayloadArch::Multi && !features.has(Feature::MultiArchPayload) {
            let option = if options.multi_arch_payload {
                OptionField::MultiArchPayload
            } else if options.release_image.is_some() {
                OptionField::ReleaseImage
            } else {
                OptionField::ReleaseVersion
            };
            let why = if heterogeneous && options.release_image.is_none() {
                " (mixed architectures need one)"
            } else {
                ""
            };
            return Err(Error::InvalidOption {
                option,
                message: format!(
                    "`{release_image}` is a multi-architecture payload{why}, but release {} has none: they start with 4.11",
                    release.profile.minor
                ),
            });
        }
        check_payload(
            &control_plane,
            &compute,
            bootstrap_arch,
            payload_arch,
            &release_image,
            options,
            &mut warnings,
        )?;

        let networks = network_settings(loaded, &features)?;
        network_rules::check_networks(loaded, release.profile, &features, &networks)?;
        warnings.extend(network_rules::misspelled_plugin(loaded, &networks));
        if let Some(vsphere) = &vsphere_platform {
            vsphere::check_vips(loaded, vsphere, &networks.machine, &mut warnings)?;
        }
        pool_rules::check_single_replica(
            loaded,
            release.profile,
            &features,
            control_plane.replicas,
            single_node.is_some(),
        )?;
        let pull_secret = ic.pull_secret.clone().unwrap_or_default();
        if pull_secret.is_empty() {
            return Err(loaded.field_error(
                "pullSecret",
                "is required: the registry credentials JSON from console.redhat.com",
            ));
        }
        fields::check_pull_secret(&pull_secret).map_err(|m| loaded.field_error("pullSecret", m))?;
        let ssh_key = ic.ssh_key.clone().unwrap_or_default();
        fields::check_ssh_key(&ssh_key).map_err(|m| loaded.field_error("sshKey", m))?;
        if ic.fips == Some(true) {
            fields::check_fips_ssh_key(&ssh_key).map_err(|m| loaded.field_error("sshKey", m))?;
        }
        if ssh_key.trim().is_empty() {
            warnings.push(loaded.warning(
                "sshKey",
                "no SSH key: only the generated bootstrap key can log in",
            ));
        }
        let trust_bundle = ic.additional_trust_bundle.clone().unwrap_or_default();
        if !trust_bundle.trim().is_empty() {
            fields::check_trust_bundle(&trust_bundle)
                .map_err(|m| loaded.field_error("additionalTrustBundle", m))?;
        }
        if ic.additional_trust_bundle_policy.is_some() && !features.has(Feature::TrustBundlePolicy)
        {
            unknown_fields::ignored_by_release(
                loaded,
                release.profile.minor,
                &unknown_fields::NotInRelease {
                    field: "additionalTrustBundlePolicy",
                    arrived: crate::release::first_with(Feature::TrustBundlePolicy),
                    consequence: "",
                },
                &mut warnings,
            );
        }
        // A release whose installer does not know the field ignores it (said above).
        let read_policy = ic
            .additional_trust_bundle_policy
            .as_deref()
            .filter(|_| features.has(Feature::TrustBundlePolicy));
        let trust_bundle_policy = match read_policy {
            None | Some("Proxyonly") => "Proxyonly".to_string(),
            Some("Always") => "Always".to_string(),
            Some(other) => {
                return Err(loaded.field_error(
                    "additionalTrustBundlePolicy",
                    format!("`{other}` must be Proxyonly or Always"),
                ));
            }
        };
        check_publish(loaded)?;
        proxy::check_proxy(loaded, &networks)?;
        let proxy = proxy::settings(loaded, &cluster_name, &base_domain, &networks)?;
        let (registries, mirror_kind) =
            mirror_rules(loaded, release.profile, &features, &mut warnings)?;
        capabilities::check_capabilities(loaded, release.profile, &features, &mut warnings)?;
        let capabilities = ic.capabilities.clone().unwrap_or_default();
        let (feature_set, custom_feature_gates) = features::feature_selection(
            loaded,
            release.profile,
            &distribution_facts,
            &features,
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
        // A vSphere platform is stored as read, without its credentials.
        let mut stored_source = ic.clone();
        if let (Some(read), Some(serde_json::Value::Object(raw))) = (
            &vsphere_platform,
            stored_source
                .platform
                .as_mut()
                .and_then(|p| p.get_mut("vsphere")),
        ) {
            vsphere::store(raw, read, &features);
        }
        if let Some(read) = &vsphere_platform {
            vsphere::store_pools(&mut stored_source, read, &features);
        }
        // Fields the release's installer does not know (ignored, said above) are not stored.
        if distribution_facts.feature_sets.len() <= 1 {
            stored_source.feature_set = None;
        }
        if capabilities::capability_sets(release.profile).is_empty() {
            stored_source.capabilities = None;
        }
        let stored_install_config = stored_install_config(
            &stored_source,
            &control_plane,
            &compute,
            &networks,
            &features,
            single_node.as_ref(),
            // From 4.22 the installer stores the stream it defaulted; older ones drop the key.
            (!distribution_facts.os_image_streams.is_empty()).then_some(os_image_stream.as_str()),
        );
        Ok(Model {
            cluster_name,
            base_domain,
            control_plane,
            compute,
            bootstrap_arch,
            platform,
            external_platform,
            vsphere_platform,
            without_machine_manifests: options.without_machine_manifests,
            distribution,
            distribution_facts,
            features,
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
            registries,
            mirror_kind,
            capabilities_baseline: capabilities.baseline_capability_set.unwrap_or_default(),
            capabilities_additional: capabilities.additional_enabled_capabilities,
            feature_set,
            custom_feature_gates,
            os_image_stream,
            stored_install_config,
            single_node,
            warnings,
        })
    }
}

fn required(loaded: &LoadedConfig, value: Option<&str>, field: &str, what: &str) -> Result<String> {
    match value.map(str::trim) {
        Some(v) if !v.is_empty() => Ok(v.to_string()),
        _ => Err(loaded.field_error(field, format!("is required: {what}"))),
    }
}

fn pool(
    loaded: &LoadedConfig,
    at: (&str, crate::release::Platform),
    raw: Option<&crate::config::MachinePool>,
    default_name: &str,
    default_replicas: u32,
    default_arch: Arch,
) -> Result<Pool> {
    let (field, platform) = at;
    let raw = raw.cloned().unwrap_or_default();
    pool_rules::check_pool_platform(loaded, field, platform, raw.platform.as_ref())?;
    let replicas = match raw.replicas {
        None => default_replicas,
        Some(n) if (0..=1000).contains(&n) => n as u32,
        Some(n) => {
            return Err(loaded.field_error(
                &format!("{field}.replicas"),
                format!("{n} is not a machine count (0 to 1000)"),
            ))
        }
    };
    let hyperthreading = match raw.hyperthreading.as_deref() {
        None | Some("Enabled") => "Enabled".to_string(),
        Some("Disabled") => "Disabled".to_string(),
        Some(other) => {
            return Err(loaded.field_error(
                &format!("{field}.hyperthreading"),
                format!("`{other}` must be Enabled or Disabled"),
            ))
        }
    };
    let architecture = match raw.architecture.as_deref() {
        None => default_arch,
        Some(name) => {
            let arch: Arch = name.parse().map_err(|_: arch::UnknownArch| {
                let names: Vec<&str> = Arch::all().map(|a| a.facts().go).collect();
                loaded.field_error(
                    &format!("{field}.architecture"),
                    format!(
                        "`{name}` is not an architecture OpenShift is built for: write one of {}",
                        names.join(", ")
                    ),
                )
            })?;
            // The installer knows each architecture by its Go name only.
            if arch.facts().go != name {
                return Err(loaded.field_error(
                    &format!("{field}.architecture"),
                    format!(
                        "`{name}` is the kernel's name for it; the install-config takes `{}`",
                        arch.facts().go
                    ),
                ));
            }
            arch
        }
    };
    Ok(Pool {
        name: raw.name.unwrap_or_else(|| default_name.to_string()),
        replicas,
        replicas_written: raw.replicas.is_some(),
        hyperthreading,
        architecture,
    })
}

fn pools(
    loaded: &LoadedConfig,
    options: &ModelOptions,
    platform: crate::release::Platform,
) -> Result<(Pool, Vec<Pool>)> {
    let ic = &loaded.config;
    let written_arch = ic
        .control_plane
        .as_ref()
        .and_then(|p| p.architecture.clone());
    let default_arch = options.arch.unwrap_or(Arch::Amd64);
    let control_plane = pool(
        loaded,
        ("controlPlane", platform),
        ic.control_plane.as_ref(),
        "master",
        3,
        default_arch,
    )?;
    if let (Some(cli), Some(_)) = (options.arch, written_arch) {
        if cli != control_plane.architecture {
            return Err(Error::InvalidOption {
                option: OptionField::Arch,
                message: format!(
                    "{cli} disagrees with controlPlane.architecture `{}` in {}{}; drop one or make them equal",
                    control_plane.architecture,
                    loaded.source_name,
                    loaded.line_of("controlPlane.architecture").map(|l| format!(" (line {l})")).unwrap_or_default()
                ),
            });
        }
    }
    if control_plane.replicas == 0 {
        return Err(loaded.field_error(
            "controlPlane.replicas",
            "the control plane needs at least 1 machine",
        ));
    }
    let mut compute = Vec::new();
    for (i, raw) in ic.compute.iter().enumerate() {
        // A compute pool without an architecture is the installer's own (amd64, or the one
        // `--arch` says the installer runs as), not the control plane's.
        compute.push(pool(
            loaded,
            (&format!("compute.{i}"), platform),
            Some(raw),
            "worker",
            3,
            default_arch,
        )?);
    }
    pool_rules::check_same_architecture(loaded, &control_plane, &compute, default_arch)?;
    // Without `compute` the installer makes the default pool: three workers of its own
    // architecture (so the control plane is not schedulable).
    if ic.compute.is_empty() {
        compute.push(pool(
            loaded,
            ("compute", platform),
            None,
            "worker",
            3,
            default_arch,
        )?);
    }
    Ok((control_plane, compute))
}

fn check_payload(
    control_plane: &Pool,
    compute: &[Pool],
    bootstrap_arch: Arch,
    payload: PayloadArch,
    image: &str,
    options: &ModelOptions,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    let mixed: Vec<String> = compute
        .iter()
        .filter(|p| p.architecture != control_plane.architecture)
        .map(|p| format!("compute pool `{}` is {}", p.name, p.architecture))
        .collect();
    let needs_multi = !mixed.is_empty() || bootstrap_arch != control_plane.architecture;
    if needs_multi && payload != PayloadArch::Multi {
        let mut why = mixed;
        if bootstrap_arch != control_plane.architecture {
            why.push(format!("the bootstrap host is {bootstrap_arch}"));
        }
        let message = if payload == PayloadArch::Unknown {
            format!(
                "the control plane is {} but {}; that needs a multi-architecture payload, and `{image}` does not say it is one: if it is (the digest of a -multi release), say so with {}",
                control_plane.architecture,
                why.join(" and "),
                OptionField::MultiArchPayload
            )
        } else {
            format!(
                "the control plane is {} but {}; that needs a multi-architecture payload (a `-multi` release tag, or a digest with {}), and `{image}` is not one",
                control_plane.architecture,
                why.join(" and "),
                OptionField::MultiArchPayload
            )
        };
        if payload == PayloadArch::Unknown && options.allow_arch_mismatch {
            warnings.push(Warning {
                file: OPTIONS_SOURCE.into(),
                field: OptionField::ReleaseImage.name().into(),
                line: None,
                message,
            });
            return Ok(());
        }
        return Err(Error::InvalidOption {
            option: OptionField::ReleaseImage,
            message,
        });
    }
    if let PayloadArch::Single(payload_arch) = payload {
        if payload_arch != control_plane.architecture {
            let message = format!(
                "release image `{image}` is built for {payload_arch}, but the cluster is {}; use the {} payload or a -multi one",
                control_plane.architecture,
                control_plane.architecture.facts().release_suffix
            );
            if !options.allow_arch_mismatch {
                return Err(Error::InvalidUnlessAllowed {
                    option: OptionField::ReleaseImage,
                    message,
                    allowed_by: OptionField::AllowArchMismatch,
                });
            }
            warnings.push(Warning {
                file: OPTIONS_SOURCE.into(),
                field: OptionField::ReleaseImage.name().into(),
                line: None,
                message,
            });
        }
    }
    Ok(())
}

fn network_settings(loaded: &LoadedConfig, features: &FeatureSet) -> Result<Networks> {
    use network::*;
    let raw = loaded.config.networking.clone().unwrap_or_default();
    let parse =
        |field: String, text: &str| parse_cidr(text).map_err(|m| loaded.field_error(&field, m));
    let mut cluster = Vec::new();
    for (i, entry) in raw.cluster_network.iter().enumerate() {
        let cidr = parse(format!("networking.clusterNetwork.{i}.cidr"), &entry.cidr)?;
        let host_prefix = entry.host_prefix.unwrap_or(if cidr.addr().is_ipv6() {
            64
        } else {
            DEFAULT_HOST_PREFIX
        });
        if host_prefix < cidr.prefix_len() || host_prefix > cidr.max_prefix_len() {
            return Err(loaded.field_error(
                &format!("networking.clusterNetwork.{i}.hostPrefix"),
                format!(
                    "{host_prefix} must lie between the network's prefix /{} and /{}",
                    cidr.prefix_len(),
                    cidr.max_prefix_len()
                ),
            ));
        }
        cluster.push(ClusterNetwork { cidr, host_prefix });
    }
    if cluster.is_empty() {
        cluster.push(ClusterNetwork {
            cidr: parse_cidr(DEFAULT_CLUSTER_NETWORK)
                .map_err(|m| loaded.field_error("networking", m))?,
            host_prefix: DEFAULT_HOST_PREFIX,
        });
    }
    let mut service = Vec::new();
    for (i, text) in raw.service_network.iter().enumerate() {
        service.push(parse(format!("networking.serviceNetwork.{i}"), text)?);
    }
    if service.is_empty() {
        service.push(
            parse_cidr(DEFAULT_SERVICE_NETWORK).map_err(|m| loaded.field_error("networking", m))?,
        );
    }
    if service.len() > 2
        || (service.len() == 2 && service[0].addr().is_ipv6() == service[1].addr().is_ipv6())
    {
        return Err(loaded.field_error(
            "networking.serviceNetwork",
            "takes one network, or two of different families (dual-stack)",
        ));
    }
    let mut machine = Vec::new();
    for (i, entry) in raw.machine_network.iter().enumerate() {
        machine.push(parse(
            format!("networking.machineNetwork.{i}.cidr"),
            &entry.cidr,
        )?);
    }
    if machine.is_empty() {
        machine.push(
            parse_cidr(DEFAULT_MACHINE_NETWORK).map_err(|m| loaded.field_error("networking", m))?,
        );
    }
    for (si, s) in service.iter().enumerate() {
        for (ci, c) in cluster.iter().enumerate() {
            if overlaps(s, &c.cidr) {
                return Err(loaded.field_error(
                    &format!("networking.clusterNetwork.{ci}.cidr"),
                    format!(
                        "{} overlaps serviceNetwork[{si}] {s}: pods and services need separate ranges",
                        c.cidr
                    ),
                ));
            }
        }
    }
    Ok(Networks {
        // The installer's default changed in 4.12, for a single node in 4.11.
        network_type: raw.network_type.unwrap_or_else(|| {
            if features.has(Feature::DefaultNetworkOvn) || features.has(Feature::SingleNodeOvn) {
                "OVNKubernetes".to_string()
            } else {
                "OpenShiftSDN".to_string()
            }
        }),
        cluster,
        service,
        machine,
    })
}

/// The install-config's mirrors. `sourcePolicy` is read as the release's installer reads it:
/// from 4.21 on; older installers do not know the field, warn and ignore it, and so does
/// bootgen (the source stays reachable).
fn mirror_rules(
    loaded: &LoadedConfig,
    profile: &crate::release::Profile,
    features: &FeatureSet,
    warnings: &mut Vec<Warning>,
) -> Result<(Vec<Registry>, Option<MirrorKind>)> {
    let ic = &loaded.config;
    if !ic.image_content_sources.is_empty()
        && !ic.image_digest_sources.is_empty()
        && features.has(Feature::OneMirrorList)
    {
        return Err(loaded.field_error("imageContentSources", "cannot be used together with imageDigestSources; move the entries to imageDigestSources"));
    }
    // Before 4.14 the installer does not know imageDigestSources.
    let digest_sources_known = features.has(Feature::InstallConfigDigestSources);
    if !digest_sources_known && !ic.image_digest_sources.is_empty() {
        unknown_fields::ignored_by_release(
            loaded,
            profile.minor,
            &unknown_fields::NotInRelease {
                field: "imageDigestSources",
                arrived: crate::release::first_with(Feature::InstallConfigDigestSources),
                consequence: ", so the cluster gets no mirrors from it; write the entries under imageContentSources for this release",
            },
            warnings,
        );
    }
    let no_sources = Vec::new();
    let (list, field, kind) = if ic.image_content_sources.is_empty() {
        (
            if digest_sources_known {
                &ic.image_digest_sources
            } else {
                &no_sources
            },
            "imageDigestSources",
            MirrorKind::ImageDigestMirrorSet,
        )
    } else {
        (
            &ic.image_content_sources,
            "imageContentSources",
            MirrorKind::ImageContentSourcePolicy,
        )
    };
    let mut rules = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        crate::release::check_repository(&entry.source)
            .map_err(|m| loaded.field_error(&format!("{field}.{i}.source"), m.0))?;
        for (j, mirror) in entry.mirrors.iter().enumerate() {
            crate::release::check_repository(mirror)
                .map_err(|m| loaded.field_error(&format!("{field}.{i}.mirrors.{j}"), m.0))?;
        }
        let policy_field = format!("{field}.{i}.sourcePolicy");
        if entry.source_policy.is_some() && !features.has(Feature::InstallConfigSourcePolicy) {
            warnings.push(loaded.warning(
                &policy_field,
                format!(
                    "ignored: OpenShift {}'s installer does not know this field{}, so the cluster may still contact `{}`; block the source with bootgen's own source blocking instead (ImageDigestMirrorSet releases{})",
                    profile.minor,
                    unknown_fields::arrived_text(crate::release::first_with(
                        Feature::InstallConfigSourcePolicy
                    )),
                    entry.source,
                    crate::release::first_with(Feature::ImageDigestMirrorSet)
                        .map_or_else(String::new, |minor| format!(", {minor} on"))
                ),
            ));
            rules.push((entry.source.clone(), entry.mirrors.clone(), false));
            continue;
        }
        let blocked = match entry.source_policy.as_deref() {
            None | Some("AllowContactingSource") => false,
            Some("NeverContactSource") => true,
            Some(other) => {
                return Err(loaded.field_error(
                    &policy_field,
                    format!("`{other}` must be AllowContactingSource or NeverContactSource"),
                ))
            }
        };
        rules.push((entry.source.clone(), entry.mirrors.clone(), blocked));
    }
    let registries = mirrors::merge(rules);
    let kind = (!registries.is_empty()).then_some(kind);
    Ok((registries, kind))
}

/// `publish`: External, the installer's default and the only strategy platform none has (the
/// installer refuses Internal and Mixed there: they need a cloud's private load balancers).
fn check_publish(loaded: &LoadedConfig) -> Result<()> {
    match loaded.config.publish.as_deref() {
        None | Some("External") => Ok(()),
        Some(strategy @ ("Internal" | "Mixed")) => Err(loaded.field_error(
            "publish",
            format!(
                "`{strategy}` is not supported on platform none (it needs a cloud's private load balancers): write `publish: External` or leave it out"
            ),
        )),
        Some(other) => Err(loaded.field_error(
            "publish",
            format!("`{other}` is not a publishing strategy: write `External` (or leave it out)"),
        )),
    }
}

/// The install-config as the cluster stores it: the user's document with the pull secret
/// removed (it must not land in a world-readable ConfigMap) and every pool's architecture
/// written out, so the cluster says arm64 even when only `--arch arm64` said so.
/// The install-config as the cluster stores it (`cluster-config-v1`): the pull secret blanked,
/// and the defaults the installer of that release applies written out, as it does.
fn stored_install_config(
    ic: &InstallConfig,
    control_plane: &Pool,
    compute: &[Pool],
    networks: &Networks,
    features: &FeatureSet,
    single_node: Option<&SingleNode>,
    os_image_stream: Option<&str>,
) -> String {
    use crate::config::{ClusterNetwork, MachineNetwork, Networking};
    let mut stored = ic.clone();
    stored.pull_secret = Some(String::new());
    stored.publish = Some(stored.publish.unwrap_or_else(|| "External".into()));
    // An installer that does not know a field drops it with the other unknown keys.
    if !features.has(Feature::InstallConfigDigestSources) {
        stored.image_digest_sources.clear();
    }
    if !features.has(Feature::TrustBundlePolicy) {
        stored.additional_trust_bundle_policy = None;
    }
    if !features.has(Feature::InstallConfigSourcePolicy) {
        for source in &mut stored.image_digest_sources {
            source.source_policy = None;
        }
    }
    // An installer that does not read an external platform's cloudControllerManager drops it.
    if !features.has(Feature::ExternalCcmFromInstallConfig) {
        if let Some(serde_json::Value::Object(external)) =
            stored.platform.as_mut().and_then(|p| p.get_mut("external"))
        {
            external.remove("cloudControllerManager");
        }
    }
    // bootgen never checks that the host it runs on uses FIPS-validated crypto; from 4.16 the
    // installer records a skipped check in the stored install-config, so the cluster knows.
    if stored.fips == Some(true) && features.has(Feature::HostcryptBypassAnnotation) {
        stored.metadata.annotations.insert(
            "install.openshift.io/hostcrypt-check-bypassed".into(),
            "true".into(),
        );
    }
    let write_pool = |raw: &mut crate::config::MachinePool, pool: &Pool| {
        raw.name = Some(pool.name.clone());
        raw.replicas = Some(i64::from(pool.replicas));
        raw.hyperthreading = Some(pool.hyperthreading.clone());
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
        network_type: Some(networks.network_type.clone()),
        cluster_network: networks
            .cluster
            .iter()
            .map(|c| ClusterNetwork {
                cidr: c.cidr.to_string(),
                host_prefix: Some(c.host_prefix),
                host_subnet_length: None,
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
    if features.has(Feature::TrustBundlePolicy) && stored.additional_trust_bundle_policy.is_none() {
        stored.additional_trust_bundle_policy = Some("Proxyonly".into());
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

/// What [`Model::new`] refuses an install-config `text` with for release `version`; `""` when
/// it accepts it.
#[cfg(test)]
fn refusal(text: &str, version: &str) -> String {
    let loaded = match crate::config::parse(text, "install-config.yaml") {
        Ok(loaded) => loaded,
        Err(e) => return e.to_string(),
    };
    let options = ModelOptions {
        release_version: Some(version.into()),
        ..ModelOptions::default()
    };
    Model::new(&loaded, &options)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}
