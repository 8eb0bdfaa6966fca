//! The whole pipeline for `bootgen ignition`: install-config → model → PKI → assets →
//! Ignition → passes. Nothing here touches the output directory (see `output`).

use crate::assets;
use crate::checks::preflight::{self, ReleaseChosenBy, Resolution};
use crate::config::{LoadedConfig, Warning};
use crate::context::TemplateContext;
use crate::error::{Error, OptionField, Result};
use crate::identity::{derive_identity, Identity, HASH_CACHE_FILE};
use crate::ignition::{self, IgnitionDoc};
use crate::model::{Model, ModelOptions};
use crate::passes::{self, Change, PassOptions};
use crate::pki::{CertificateLifetimes, KeyAlgorithm, KubeconfigKind, Pki, PkiNotice, PkiRequest};
use crate::render::Renderer;
use crate::report::SizeBudget;
use serde::Serialize;
use std::path::PathBuf;

/// Everything `generate` needs besides the install-config.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// Architecture and release choices.
    pub model: ModelOptions,
    /// User manifests for `/opt/openshift/manifests`.
    pub manifests_dir: Option<PathBuf>,
    /// User manifests for `/opt/openshift/openshift`.
    pub openshift_dir: Option<PathBuf>,
    /// Turn warnings into errors.
    pub strict: bool,
    /// The clock: certificate validity starts here.
    pub now: time::OffsetDateTime,
    /// An existing PKI to reuse (a `tls/` directory).
    pub tls_dir: Option<PathBuf>,
    /// Key type for generated keys.
    pub key_algorithm: KeyAlgorithm,
    /// Re-issue expired leaf certificates instead of failing.
    pub renew_expired: bool,
    /// Unit holds, masks, debug mode.
    pub passes: PassOptions,
    /// Looks up mirror host names for the pre-flight ([`Generated::preflight`]); `None`: names
    /// are not looked up (reported as such).
    pub resolver: Option<NameResolver>,
    /// Each host's network ([`crate::network::load_hosts`]): checked against the cluster, and
    /// the bootstrap's or the single node's keyfiles placed in its config.
    pub hosts: Option<crate::network::Hosts>,
    /// Keyfiles the user wrote ([`crate::network::read_user_keyfile`]), each with the file it
    /// was read from: placed in the bootstrap's or the single node's config.
    pub network_keyfiles: Vec<(String, crate::network::Keyfile)>,
}

/// A host-name lookup the caller provides, e.g. the system resolver with a timeout.
#[derive(Clone)]
pub struct NameResolver(std::sync::Arc<dyn Fn(&str) -> Resolution + Send + Sync>);

impl NameResolver {
    /// Wraps `lookup`.
    pub fn new(lookup: impl Fn(&str) -> Resolution + Send + Sync + 'static) -> NameResolver {
        NameResolver(std::sync::Arc::new(lookup))
    }

    /// Looks `name` up.
    pub fn resolve(&self, name: &str) -> Resolution {
        (self.0)(name)
    }
}

impl std::fmt::Debug for NameResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NameResolver(..)")
    }
}

impl Options {
    /// Defaults for the given clock: RSA 2048, no reuse, no passes.
    pub fn new(now: time::OffsetDateTime) -> Options {
        Options {
            model: ModelOptions::default(),
            manifests_dir: None,
            openshift_dir: None,
            strict: false,
            now,
            tls_dir: None,
            key_algorithm: KeyAlgorithm::Rsa2048,
            renew_expired: false,
            passes: PassOptions::default(),
            resolver: None,
            hosts: None,
            network_keyfiles: Vec::new(),
        }
    }
}

/// `metadata.json`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Metadata {
    /// Cluster name.
    pub cluster_name: String,
    /// Cluster UUID.
    #[serde(rename = "clusterID")]
    pub cluster_id: String,
    /// Infrastructure name.
    #[serde(rename = "infraID")]
    pub infra_id: String,
    /// Architectures.
    pub architecture: ArchitectureRecord,
    /// Release payload.
    pub release_image: String,
    /// bootgen's version.
    pub bootgen_version: String,
    /// The install-config's feature set (`""` when unset), as the installer records it from
    /// 4.15; absent before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature_set: Option<String>,
    /// With `CustomNoUpgrade`: the gates turned on and off (from 4.15; `null` otherwise).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "recorded_feature_gates"
    )]
    pub custom_feature_set: Option<Option<crate::model::CustomFeatureGates>>,
    /// A vSphere cluster's vCenters with their credentials, as the installer records them for
    /// `destroy cluster` (the file is then 0600).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vsphere: Option<VSphereMetadata>,
}

/// The custom feature gates as the installer records them in metadata.json: a list of gates
/// left out when it names none (`{"enabled": ["A"]}`, not `"disabled": []`).
fn recorded_feature_gates<S: serde::Serializer>(
    gates: &Option<Option<crate::model::CustomFeatureGates>>,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let Some(Some(gates)) = gates else {
        return serializer.serialize_none();
    };
    let mut map = serializer.serialize_map(None)?;
    for (key, list) in [("enabled", &gates.enabled), ("disabled", &gates.disabled)] {
        if !list.is_empty() {
            map.serialize_entry(key, list)?;
        }
    }
    map.end()
}

/// `metadata.json`'s `vsphere`.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct VSphereMetadata {
    /// Before 4.17: the first vCenter's server, user and password, flat in this record.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub first: Option<VCenterMetadata>,
    /// Always `vsphere`.
    pub terraform_platform: String,
    /// From 4.17: each vCenter and the user that signs in to it.
    #[serde(rename = "VCenters", skip_serializing_if = "Vec::is_empty")]
    pub vcenters: Vec<VCenterMetadata>,
}

/// One vCenter of [`VSphereMetadata`]. Its `Debug` hides the password.
#[derive(Clone, Serialize)]
#[non_exhaustive]
pub struct VCenterMetadata {
    /// Its server.
    #[serde(rename = "vCenter")]
    pub vcenter: String,
    /// The user.
    pub username: String,
    /// Its password.
    pub password: String,
}

impl std::fmt::Debug for VCenterMetadata {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VCenterMetadata")
            .field("vcenter", &self.vcenter)
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .finish()
    }
}

/// The architectures in `metadata.json`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArchitectureRecord {
    /// Control plane.
    pub control_plane: String,
    /// Each compute pool, by name.
    pub compute: std::collections::BTreeMap<String, String>,
    /// The bootstrap host.
    pub bootstrap: String,
}

/// The result of a generation. Its `Debug` shows no secret: the configs' file contents by
/// their length, the PKI and identity without their keys and password.
#[non_exhaustive]
pub struct Generated {
    /// The validated model.
    pub model: Model,
    /// Cluster ID, infra ID, kubeadmin password.
    pub identity: Identity,
    /// The PKI (new or reused).
    pub pki: Pki,
    /// `bootstrap.ign`.
    pub bootstrap: IgnitionDoc,
    /// `master.ign`.
    pub master: IgnitionDoc,
    /// `worker.ign`.
    pub worker: IgnitionDoc,
    /// Each control-plane and compute host of [`Options::hosts`] by host name: its role's
    /// pointer config with its keyfiles and name (`hosts/<hostname>.ign`).
    pub host_configs: Vec<(String, IgnitionDoc)>,
    /// `metadata.json`.
    pub metadata: Metadata,
    /// `auth/kubeconfig` (external API URL).
    pub admin_kubeconfig: String,
    /// Warnings about the input.
    pub warnings: Vec<Warning>,
    /// What the PKI step reused, re-issued or renewed.
    pub pki_notices: Vec<PkiNotice>,
    /// What the passes changed.
    pub changes: Vec<Change>,
    /// The mirror pre-flight of `bootstrap`: what will fail on the node. Nothing stops
    /// generation here; check [`preflight::Report::verdict`] before writing the output.
    pub preflight: preflight::Report,
    /// The unit-graph lint of `bootstrap` (holds that cannot work, units nothing starts).
    pub unit_lint: Vec<crate::checks::Problem>,
    /// The context the templates were rendered with.
    context: TemplateContext,
}

/// The name of the config a node boots from: `bootstrap.ign` for a bootstrap machine,
/// `bootstrap-in-place-for-live-iso.ign` for a single node (it goes into the live ISO).
pub const BOOTSTRAP_CONFIG: &str = "bootstrap.ign";
/// See [`BOOTSTRAP_CONFIG`].
pub const LIVE_ISO_CONFIG: &str = "bootstrap-in-place-for-live-iso.ign";

impl Generated {
    /// The file name of [`Generated::bootstrap`] in the output directory.
    pub fn bootstrap_name(&self) -> &'static str {
        if self.model.single_node.is_some() {
            LIVE_ISO_CONFIG
        } else {
            BOOTSTRAP_CONFIG
        }
    }

    /// The context every template of this generation was rendered with (`templates/README.md`
    /// documents each variable): to render a template of one's own with exactly what
    /// bootgen's templates saw, or to test a template against a real cluster's values.
    pub fn template_context(&self) -> &TemplateContext {
        &self.context
    }

    /// The size budget of the config the node boots from: its size against the user-data
    /// limits of the clouds and the live ISO's embed area, with what `PassOptions::compress`
    /// would make of it and the way out when it does not fit. A single node's config travels
    /// only in the live ISO: its budget is that area's alone ([`SizeBudget::live_iso_only`]).
    pub fn size_budget(&self) -> SizeBudget {
        let budget = SizeBudget::of_config(
            &self.bootstrap.to_bytes(),
            crate::report::compressed_size(&self.bootstrap),
        );
        if self.model.single_node.is_some() {
            budget.live_iso_only()
        } else {
            budget
        }
    }

    /// The release image the node pulls: the payload of [`Model::release`], or after a mirror
    /// rewrite (a blocked source's tag pointed at its mirror) the mirror's reference.
    pub fn pulled_release_image(&self) -> String {
        passes::mirrors::find_release(&self.bootstrap)
            .ok()
            .flatten()
            .map_or_else(|| self.model.release_image.clone(), |r| r.reference)
    }

    /// Whether the output directory gets `master.ign`: a single node makes its own on the node.
    pub fn writes_master(&self) -> bool {
        self.model.single_node.is_none()
    }

    /// Whether the output directory gets `worker.ign` (a single node's, from 4.11 on, for
    /// workers added later).
    pub fn writes_worker(&self) -> bool {
        self.model.single_node.is_none()
            || self
                .model
                .switches
                .has(crate::release::Switch::SingleNodeWorkerConfig)
    }
}

/// Runs the whole pipeline.
pub fn generate(loaded: &LoadedConfig, options: &Options) -> Result<Generated> {
    let mut model = Model::new(loaded, &options.model)?;
    let (machine_hosts, held_back) = passes::mirrors::machine_hosts::for_machines(
        &options.passes.mirrors.hosts,
        &model.api_int_host(),
    );
    if let Some(name) = held_back.first() {
        model.warnings.push(Warning {
            file: crate::error::OPTIONS_SOURCE.into(),
            field: OptionField::AddHost.name().into(),
            line: None,
            message: format!("{name} reaches the bootstrap's /etc/hosts only: the control-plane and compute machines resolve it before any config of theirs is on disk, to fetch that config from the machine-config server; add the DNS record {name} IN A (the internal API load balancer) to the DNS server the nodes use"),
        });
    }
    if model.single_node.is_some() && options.passes.compress {
        model.warnings.push(Warning {
            file: crate::error::OPTIONS_SOURCE.into(),
            field: OptionField::Compress.name().into(),
            line: None,
            message: "a single node's config travels only inside the live ISO, whose xz compresses it better without gzip inside: gzipping its files makes the embedded archive larger, not smaller".into(),
        });
    }
    if let Some(hosts) = &options.hosts {
        model.warnings.extend(hosts.warnings.iter().cloned());
        let found = crate::network::check_hosts(hosts, &model)?;
        model.warnings.extend(found);
    }
    if options.strict {
        if let Some(first) = model.warnings.first() {
            return Err(Error::StrictWarnings {
                count: model.warnings.len(),
                first: first.to_string(),
            });
        }
    }
    let user_manifests = read_user_manifests(options)?;
    let request = PkiRequest {
        cluster_name: model.cluster_name.clone(),
        api_host: model.api_host(),
        api_int_host: model.api_int_host(),
        // The primary service network's only: every installer names that one address.
        service_network_ips: model.networks.service_ips().into_iter().take(1).collect(),
        machine_config_server_ips: model.machine_config_server_ips(),
        kubelet_client_in_all_service_accounts: model.kubelet_client_in_all_service_accounts(),
        key_algorithm: options.key_algorithm,
        // The install-config's `pki` names the signers' key; else the profile's signer keys
        // replace the default key type only, not one the user chose.
        signer_key_algorithm: match model.pki_signer_key {
            Some(named) => named,
            None if model.certificates_follow_the_pki_profile()
                && options.key_algorithm == KeyAlgorithm::Rsa2048 =>
            {
                crate::pki::PROFILE_SIGNER_KEY
            }
            None => options.key_algorithm,
        },
        now: options.now,
        lifetimes: model
            .short_cert_rotation_hours()
            .map_or_else(Default::default, CertificateLifetimes::shortened),
        renew_expired: options.renew_expired,
    };
    let (pki, pki_notices) = Pki::build(&request, options.tls_dir.as_deref())?;
    let identity = identity_of(&model, &pki, options.tls_dir.as_deref());
    // The pointer configs come first: the machine API's user-data secrets carry them.
    let master = pointer_config(&model, &pki, crate::model::PointerPool::Master)?;
    let worker = pointer_config(&model, &pki, crate::model::PointerPool::Worker)?;
    let host_configs = host_configs(&model, options.hosts.as_ref(), &master, &worker)?;
    let mut context = TemplateContext::new(
        &model,
        &identity,
        pki.manifest_context(),
        options.passes.debug,
    );
    context.user_data = crate::context::user_data(&master.to_bytes(), &worker.to_bytes());
    let renderer = Renderer::new(&context);
    let mut replaced = Vec::new();
    let assets = assets::collect(
        &model,
        &pki,
        &model.node_profile(),
        &context,
        &renderer,
        user_manifests,
        &mut replaced,
    )?;
    if options.strict {
        if let Some(first) = replaced.first() {
            return Err(Error::StrictWarnings {
                count: model.warnings.len() + replaced.len(),
                first: first.to_string(),
            });
        }
    }
    model.warnings.extend(replaced);
    let mut assets = assets;
    add_network(&mut assets, &model, options)?;
    for (path, contents) in passes::mirrors::machine_hosts::manifests(&machine_hosts) {
        add_own_file(&mut assets, path, contents, OptionField::AddHost)?;
    }
    let mut bootstrap = ignition::build(assets.sorted())?;
    let mut changes = passes::apply_for(
        &mut bootstrap,
        &options.passes,
        Some(model.release.profile.minor),
    )?;
    changes.extend(passes::mirrors::point_blocked_tag_at_mirror(
        &mut bootstrap,
        &model.mirrors.registries,
    )?);
    let admin_kubeconfig = pki.kubeconfig(KubeconfigKind::Admin, &model.api_url());
    // From 4.15 the installer records the feature set in metadata.json.
    let records_features = model
        .switches
        .has(crate::release::Switch::MetadataFeatureSet);
    let metadata = Metadata {
        cluster_name: model.cluster_name.clone(),
        cluster_id: identity.cluster_id.clone(),
        infra_id: identity.infra_id.clone(),
        architecture: ArchitectureRecord {
            control_plane: model.control_plane.architecture.to_string(),
            compute: model
                .compute
                .iter()
                .map(|p| (p.name.clone(), p.architecture.to_string()))
                .collect(),
            bootstrap: model.bootstrap_arch.to_string(),
        },
        release_image: model.release_image.clone(),
        bootgen_version: env!("CARGO_PKG_VERSION").to_string(),
        feature_set: records_features
            .then(|| crate::model::ClusterFeatureSet::name_of(model.feature_set).to_string()),
        custom_feature_set: records_features.then(|| {
            (!model.custom_feature_gates.is_empty()).then(|| model.custom_feature_gates.clone())
        }),
        vsphere: model.platform.vsphere().map(|v| {
            let mut vcenters: Vec<VCenterMetadata> = v
                .vcenters
                .iter()
                .map(|c| VCenterMetadata {
                    vcenter: c.server.clone(),
                    username: c.user.clone(),
                    password: c.password.clone(),
                })
                .collect();
            let listed = model
                .switches
                .has(crate::release::Switch::MetadataVsphereVcenters);
            VSphereMetadata {
                first: (!listed).then(|| vcenters.remove(0)),
                terraform_platform: "vsphere".into(),
                vcenters: if listed { vcenters } else { Vec::new() },
            }
        }),
    };
    let warnings = model.warnings.clone();
    let preflight = preflight::check(&bootstrap, ReleaseChosenBy::Setting, &mut |name: &str| {
        options
            .resolver
            .as_ref()
            .map_or(Resolution::NotChecked, |r| r.resolve(name))
    });
    let unit_lint = crate::checks::lint_units(&bootstrap);
    Ok(Generated {
        model,
        identity,
        pki,
        bootstrap,
        master,
        worker,
        host_configs,
        metadata,
        admin_kubeconfig,
        warnings,
        pki_notices,
        changes,
        preflight,
        unit_lint,
        context,
    })
}

/// The configs control-plane and compute hosts boot from when they have a network of their own:
/// their role's pointer config (the machine-config server's config merged over it keeps these
/// files) with their keyfiles and name. A single node has its own in the live ISO's config.
fn host_configs(
    model: &Model,
    hosts: Option<&crate::network::Hosts>,
    master: &IgnitionDoc,
    worker: &IgnitionDoc,
) -> Result<Vec<(String, IgnitionDoc)>> {
    let Some(hosts) = hosts.filter(|_| model.single_node.is_none()) else {
        return Ok(Vec::new());
    };
    let mut configs = Vec::new();
    for host in &hosts.hosts {
        let mut config = match host.role {
            Some(crate::network::Role::Master) => master.clone(),
            Some(crate::network::Role::Worker) => worker.clone(),
            Some(crate::network::Role::Bootstrap) | None => continue,
        };
        for file in crate::network::host_config_files(host) {
            passes::set_file_text(&mut config, &file.path, &file.contents, file.mode)?;
        }
        configs.push((host.hostname.clone(), config));
    }
    Ok(configs)
}

/// The bootstrap's or the single node's network files and, when its config serves several
/// hosts, the unit that chooses among them; the hosts file's time sources, for this node and
/// (as MachineConfigs) for every other.
fn add_network(assets: &mut assets::AssetSet, model: &Model, options: &Options) -> Result<()> {
    let sources = options
        .hosts
        .as_ref()
        .map(|hosts| hosts.time_sources.as_slice())
        .unwrap_or_default();
    if !sources.is_empty() {
        let chrony = (
            crate::network::CHRONY_CONF.to_string(),
            crate::network::chrony_conf(sources),
        );
        for (path, contents) in
            std::iter::once(chrony).chain(crate::network::time_source_manifests(sources))
        {
            add_own_file(assets, path, contents, OptionField::Hosts)?;
        }
    }
    let (files, unit) = crate::network::bootstrap_files(
        options.hosts.as_ref(),
        &options.network_keyfiles,
        model.single_node.is_some(),
    )?;
    for file in files {
        assets.add_file(assets::File {
            path: file.path,
            mode: file.mode,
            contents: file.contents.into_bytes(),
            append: false,
        });
    }
    if let Some(text) = unit {
        assets.add_unit(assets::Unit {
            name: crate::network::SELECT_UNIT.into(),
            enabled: Some(true),
            contents: Some(text),
            dropins: Vec::new(),
        });
    }
    Ok(())
}

/// Adds a file bootgen writes for `option` (0644); a file of the user's at its path (a
/// manifest of `--openshift-dir` of the same name) is refused, naming both, not replaced.
fn add_own_file(
    assets: &mut assets::AssetSet,
    path: String,
    contents: String,
    option: OptionField,
) -> Result<()> {
    if assets.file(&path).is_some() {
        return Err(crate::error::InvalidValue(format!(
            "bootgen writes {path} for it, and a manifest of yours (the openshift manifests directory) has the same name: rename yours, or leave this out and keep yours"
        ))
        .for_option(option));
    }
    assets.add_file(assets::File {
        path,
        mode: 0o644,
        contents: contents.into_bytes(),
        append: false,
    });
    Ok(())
}

fn identity_of(model: &Model, pki: &Pki, tls_dir: Option<&std::path::Path>) -> Identity {
    let root_key = root_ca_key(pki);
    // Only a cache of the running user's own is trusted; any other is recomputed.
    let cache = tls_dir
        .and_then(|dir| crate::ownership::read_own_file(&dir.join(HASH_CACHE_FILE), 1 << 16).ok())
        .flatten()
        .and_then(|bytes| String::from_utf8(bytes).ok());
    derive_identity(
        &model.cluster_name,
        &root_key,
        pki.root_ca_pem().as_bytes(),
        cache.as_deref(),
    )
}

/// The root CA private key PEM (the secret the identity is derived from).
pub(crate) fn root_ca_key(pki: &Pki) -> Vec<u8> {
    pki.root_ca_key_pem().into_bytes()
}

fn pointer_config(
    model: &Model,
    pki: &Pki,
    pool: crate::model::PointerPool,
) -> Result<IgnitionDoc> {
    ignition::pointer(&model.machine_config_url(pool), pki.root_ca_pem())
}

fn read_user_manifests(options: &Options) -> Result<assets::UserManifests> {
    let read = |dir: &Option<PathBuf>, option: OptionField| match dir {
        Some(dir) => assets::read_manifest_dir(dir, option),
        None => Ok(Vec::new()),
    };
    Ok(assets::UserManifests {
        manifests: read(&options.manifests_dir, OptionField::ManifestsDir)?,
        openshift: read(&options.openshift_dir, OptionField::OpenshiftDir)?,
    })
}

impl std::fmt::Debug for Generated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generated")
            .field("model", &self.model)
            .field("identity", &self.identity)
            .field("pki", &self.pki)
            .field("bootstrap", &self.bootstrap)
            .field("master", &self.master)
            .field("worker", &self.worker)
            .field("host_configs", &self.host_configs)
            .field("metadata", &self.metadata)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::preflight::NameCheck;
    use crate::passes::mirrors::MirrorRule;
    use std::sync::{Arc, Mutex};

    fn options() -> Options {
        let now = time::OffsetDateTime::from_unix_timestamp(1_767_229_200).unwrap();
        let mut options = Options::new(now);
        options.key_algorithm = KeyAlgorithm::EcdsaP256;
        options
    }

    /// 5.0's preview feature sets give the signers the PKI profile's keys in place of the
    /// default key type only: a key type the user chose holds for every key.
    #[test]
    fn the_pki_profile_applies_where_chosen_and_a_chosen_key_type_wins() {
        let text = crate::config::load_default().unwrap().text;
        let preview = format!("{text}featureSet: TechPreviewNoUpgrade\n");
        let loaded = crate::config::parse(&preview, "install-config.yaml").unwrap();
        let follows = |version: &str, loaded: &crate::config::LoadedConfig| {
            let mut options = options();
            options.model.release_version = Some(version.into());
            Model::new(loaded, &options.model)
                .unwrap()
                .certificates_follow_the_pki_profile()
        };
        assert!(follows("5.0.0", &loaded));
        assert!(!follows("4.22.0", &loaded));
        let plain = crate::config::parse(&text, "install-config.yaml").unwrap();
        assert!(!follows("5.0.0", &plain));

        let mut chosen = options();
        chosen.model.release_version = Some("5.0.0".into());
        let fresh = generate(&loaded, &chosen).unwrap();
        let view = crate::report::object_view(&fresh.bootstrap).unwrap();
        let key = |path: &str| {
            let pem = serde_json::to_value(&view.files[path].pem).unwrap();
            pem.pointer("/file/0/key").cloned()
        };
        let signer = key("/opt/openshift/tls/kube-control-plane-signer.key");
        assert_eq!(signer, key("/opt/openshift/tls/kubelet-client.key"));
        assert!(
            signer
                .as_ref()
                .and_then(|k| k.as_str())
                .is_some_and(|k| k.starts_with("EC")),
            "{signer:?}"
        );
    }

    /// metadata.json records the custom gates as the installer does: a list only when it names
    /// a gate.
    #[test]
    fn metadata_records_only_the_lists_of_custom_gates_that_name_one() {
        let text = crate::config::load_default().unwrap().text;
        let custom =
            format!("{text}featureSet: CustomNoUpgrade\nfeatureGates: [NoSuchGate=true]\n");
        let loaded = crate::config::parse(&custom, "install-config.yaml").unwrap();
        let mut options = options();
        options.model.release_version = Some("4.22.0".into());
        let fresh = generate(&loaded, &options).unwrap();
        let recorded = serde_json::to_value(&fresh.metadata).unwrap();
        assert_eq!(
            recorded["customFeatureSet"],
            serde_json::json!({"enabled": ["NoSuchGate"]})
        );
        let plain = crate::config::parse(&text, "install-config.yaml").unwrap();
        let fresh = generate(&plain, &options).unwrap();
        let recorded = serde_json::to_value(&fresh.metadata).unwrap();
        assert_eq!(recorded["customFeatureSet"], serde_json::Value::Null);
    }

    /// An embedder gets the mirror pre-flight from `generate`, with mirror names looked up by the
    /// resolver it passed (or reported as not looked up), and the unit lint of the same config.
    #[test]
    fn generate_returns_the_preflight_and_the_unit_lint() {
        let loaded = crate::config::load_default().unwrap();
        let fresh = generate(&loaded, &options()).unwrap();
        assert!(fresh.preflight.is_empty(), "no mirrors, nothing to check");
        assert!(fresh.unit_lint.is_empty(), "{:?}", fresh.unit_lint);

        let mut mirrored = options();
        mirrored.passes.mirrors.mirrors =
            vec![
                MirrorRule::parse("quay.io/openshift-release-dev=mirror.lab.internal:5000/ocp")
                    .unwrap(),
            ];
        let unchecked = generate(&loaded, &mirrored).unwrap();
        assert_eq!(unchecked.preflight.hosts.len(), 1);
        assert_eq!(
            unchecked.preflight.hosts[0].host,
            "mirror.lab.internal:5000"
        );
        assert_eq!(unchecked.preflight.hosts[0].name, NameCheck::NotChecked);
        assert!(unchecked.preflight.summary()[0].contains("name not looked up"));

        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&asked);
        mirrored.resolver = Some(NameResolver::new(move |name: &str| {
            seen.lock().unwrap().push(name.to_string());
            Resolution::Failed("NXDOMAIN".into())
        }));
        let checked = generate(&loaded, &mirrored).unwrap();
        assert_eq!(*asked.lock().unwrap(), ["mirror.lab.internal"]);
        assert_eq!(
            checked.preflight.hosts[0].name,
            NameCheck::Unresolved("NXDOMAIN".into())
        );
        assert!(
            checked
                .preflight
                .findings
                .iter()
                .any(|f| f.message.contains("mirror.lab.internal")),
            "{:?}",
            checked.preflight.findings
        );

        // The context it reports is the one its files were rendered with.
        let context = fresh.template_context();
        let bootkube = crate::render::files_under("node/usr/local/bin/")
            .into_iter()
            .find(|f| f.output_name() == "node/usr/local/bin/bootkube.sh")
            .unwrap();
        let rendered = Renderer::new(&context.to_value())
            .render(&bootkube)
            .unwrap();
        let written = crate::passes::file_text(&fresh.bootstrap, "/usr/local/bin/bootkube.sh");
        assert_eq!(Some(String::from_utf8(rendered).unwrap()), written);
        assert_eq!(context.cluster.infra_id, fresh.identity.infra_id);
        assert!(context.user_data["master"].as_str().is_some());

        // The size budget and the pulled image an embedder reads from the same result.
        let budget = fresh.size_budget();
        assert_eq!(budget.size, fresh.bootstrap.to_bytes().len() as u64);
        assert!(budget.to_string().contains("AWS"), "{budget}");
        assert_eq!(fresh.pulled_release_image(), fresh.model.release_image);
        let mut blocked = options();
        blocked.passes.mirrors.mirrors = mirrored.passes.mirrors.mirrors.clone();
        blocked.passes.mirrors.block_sources = true;
        let rewritten = generate(&loaded, &blocked).unwrap();
        assert!(
            rewritten
                .pulled_release_image()
                .starts_with("mirror.lab.internal:5000/ocp/ocp-release:"),
            "{}",
            rewritten.pulled_release_image()
        );

        let mut masked = options();
        masked.passes.mask_units = vec!["release-image.service".into()];
        let linted = generate(&loaded, &masked).unwrap();
        assert!(
            linted
                .unit_lint
                .iter()
                .any(|p| p.message.contains("release-image.service is masked")
                    && p.message.contains("crio-configure.service")),
            "{:?}",
            linted.unit_lint
        );
    }

    /// Each release gets the mirror manifests its installer writes for the same mirrors: one
    /// ImageContentSourcePolicy per source before 4.14 (no ImageDigestMirrorSet beside them),
    /// an ImageDigestMirrorSet from 4.14; blocking a source before 4.14 is refused naming the
    /// release, whether the config is generated or patched.
    #[test]
    fn mirror_manifests_follow_the_release() {
        let loaded = crate::config::load_default().unwrap();
        let manifests = |doc: &IgnitionDoc| -> Vec<String> {
            crate::passes::file_entries(doc)
                .iter()
                .filter_map(|f| f.get("path").and_then(serde_json::Value::as_str))
                .filter(|p| p.contains("image-content-source") || p.contains("image-digest"))
                .map(str::to_string)
                .collect()
        };
        let rules = vec![
            MirrorRule::parse(
                "quay.io/openshift-release-dev/ocp-release=mirror.lab.internal:5000/ocp/release",
            )
            .unwrap(),
            MirrorRule::parse(
                "quay.io/openshift-release-dev/ocp-v4.0-art-dev=mirror.lab.internal:5000/ocp/art",
            )
            .unwrap(),
        ];
        for version in ["4.9.0", "4.12.0", "4.13.0", "4.14.0", "4.16.0"] {
            let mut mirrored = options();
            mirrored.model.release_version = Some(version.into());
            mirrored.passes.mirrors.mirrors = rules.clone();
            let generated = generate(&loaded, &mirrored).unwrap();
            let paths = manifests(&generated.bootstrap);
            let legacy = ["4.9.0", "4.12.0", "4.13.0"].contains(&version);
            if legacy {
                assert_eq!(
                    paths,
                    [
                        "/opt/openshift/manifests/image-content-source-policy-0.yaml",
                        "/opt/openshift/manifests/image-content-source-policy-1.yaml"
                    ],
                    "{version}"
                );
                let second = crate::passes::file_text(&generated.bootstrap, &paths[1]).unwrap();
                assert!(
                    second.contains("kind: ImageContentSourcePolicy"),
                    "{second}"
                );
                assert!(second.contains("name: image-policy-1"), "{second}");
                assert!(second.contains("ocp-v4.0-art-dev"), "{second}");
            } else {
                assert_eq!(
                    paths,
                    ["/opt/openshift/manifests/image-digest-mirror-set.yaml"],
                    "{version}"
                );
            }

            // Patching the unmirrored config of that release gives the same manifests.
            let mut plain = options();
            plain.model.release_version = Some(version.into());
            let mut patched = generate(&loaded, &plain).unwrap().bootstrap;
            crate::passes::mirrors::apply(&mut patched, &mirrored.passes.mirrors).unwrap();
            assert_eq!(manifests(&patched), paths, "patched {version}");

            let mut blocked = mirrored.clone();
            blocked.passes.mirrors.block_sources = true;
            let result = generate(&loaded, &blocked);
            let patch_result = crate::passes::mirrors::apply(
                &mut generate(&loaded, &plain).unwrap().bootstrap,
                &blocked.passes.mirrors,
            );
            if legacy {
                let minor = &version[..version.len() - 2];
                for err in [result.err().unwrap(), patch_result.unwrap_err()] {
                    let text = err.to_string();
                    assert!(
                        matches!(err, Error::ReleaseCannot { .. })
                            && text.starts_with(&format!("release {minor} cannot"))
                            && text.contains("NeverContactSource (ImageDigestMirrorSet manifests come with 4.14); mirror without blocking the source, or make the config for 4.14 or later"),
                        "{text}"
                    );
                }
            } else {
                assert!(result.is_ok() && patch_result.is_ok(), "{version}");
            }
        }

        // The install-config's way of asking (imageDigestSources with NeverContactSource) is
        // read from 4.21, as the installer reads it; before, it is ignored with a warning
        // naming the field and the release, and the source stays reachable.
        let text = format!(
            "{}imageDigestSources:\n- source: quay.io/openshift-release-dev/ocp-release\n  mirrors:\n  - mirror.lab.internal:5000/ocp/release\n  sourcePolicy: NeverContactSource\n",
            crate::config::DEFAULT_INSTALL_CONFIG
        );
        let blocking = crate::config::parse(&text, "ic.yaml").unwrap();
        let registries_conf = |generated: &Generated| {
            crate::passes::file_text(&generated.bootstrap, "/etc/containers/registries.conf")
                .unwrap_or_default()
        };
        for (version, honoured) in [("4.12.0", false), ("4.16.0", false), ("4.21.0", true)] {
            let mut opts = options();
            opts.model.release_version = Some(version.into());
            let generated = generate(&blocking, &opts).unwrap();
            let warned = generated.warnings.iter().any(|w| {
                let text = w.to_string();
                // 4.12 ignores the whole list (imageDigestSources arrived in 4.14), 4.16 the
                // policy (it arrived in 4.21).
                text.contains("imageDigestSources") && text.contains("ignored")
            });
            assert_eq!(warned, !honoured, "{version}");
            // Both arrivals are read from the release table.
            let said: Vec<String> = generated.warnings.iter().map(|w| w.to_string()).collect();
            let expected = match version {
                "4.12.0" => Some("(it arrived in 4.14)"),
                "4.16.0" => Some("(it arrived in 4.21)"),
                _ => None,
            };
            if let Some(expected) = expected {
                assert!(
                    said.iter().any(|w| w.contains(expected)),
                    "{version}: {said:?}"
                );
            }
            assert_eq!(
                registries_conf(&generated).contains("blocked = true"),
                honoured,
                "{version}"
            );
        }
    }

    /// The additional trust bundle as the installer takes it: text before a block is skipped,
    /// text after the last block is refused (naming the field), and the user-ca-bundle
    /// ConfigMap holds each certificate re-encoded at 64 columns, nothing else.
    #[test]
    fn the_trust_bundle_is_refused_with_a_tail_and_re_encoded_for_the_cluster() {
        let ca = include_str!("../../fixtures/trust/mirror-ca.crt");
        let body: String = ca.lines().filter(|l| !l.starts_with("-----")).collect();
        let wrapped: Vec<String> = body
            .as_bytes()
            .chunks(76)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect();
        let as_written = format!(
            "# Mirror CA\n-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
            wrapped.join("\n")
        );
        let config = |bundle: &str| {
            let indented: String = bundle.lines().map(|l| format!("  {l}\n")).collect();
            let text = format!(
                "{}additionalTrustBundlePolicy: Always\nadditionalTrustBundle: |\n{indented}",
                crate::config::DEFAULT_INSTALL_CONFIG
            );
            crate::config::parse(&text, "install-config.yaml").unwrap()
        };
        let generated = generate(&config(&as_written), &options()).unwrap();
        let manifest = crate::passes::file_text(
            &generated.bootstrap,
            "/opt/openshift/manifests/user-ca-bundle-config.yaml",
        )
        .unwrap();
        let manifest: serde_yaml_ng::Value = serde_yaml_ng::from_str(&manifest).unwrap();
        assert_eq!(manifest["data"]["ca-bundle.crt"].as_str(), Some(ca));

        let refused = generate(&config(&format!("{ca}# comment after\n")), &options())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            refused.contains("additionalTrustBundle")
                && refused.contains("has text (`# comment after`) after its last certificate"),
            "{refused}"
        );
    }

    /// 4.9's installer ignores `capabilities` (it warns that the cluster gets every component):
    /// the ClusterVersion says nothing of them either; 4.11's reads them.
    #[test]
    fn capabilities_a_release_ignores_do_not_reach_the_cluster_version() {
        let text = format!(
            "{}capabilities:\n  baselineCapabilitySet: vCurrent\n",
            crate::config::DEFAULT_INSTALL_CONFIG
        );
        let loaded = crate::config::parse(&text, "ic.yaml").unwrap();
        for (version, read) in [("4.9.0", false), ("4.11.0", true)] {
            let mut opts = options();
            opts.model.release_version = Some(version.into());
            let generated = generate(&loaded, &opts).unwrap();
            let cluster_version = crate::passes::file_text(
                &generated.bootstrap,
                "/opt/openshift/manifests/cvo-overrides.yaml",
            )
            .unwrap();
            assert_eq!(
                cluster_version.contains("baselineCapabilitySet: \"vCurrent\""),
                read,
                "{version}: {cluster_version}"
            );
        }
    }

    /// A manifest of the user's with the name of one bootgen writes is refused, naming both,
    /// never replaced.
    #[test]
    fn a_users_manifest_is_not_replaced_by_one_bootgen_writes() {
        use crate::passes::mirrors::HostEntry;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("99-worker-bootgen-hosts.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n  namespace: default\n",
        )
        .unwrap();
        let loaded = crate::config::load_default().unwrap();
        let mut opts = options();
        opts.openshift_dir = Some(dir.path().to_path_buf());
        opts.passes.mirrors.hosts = vec![HostEntry::parse("192.0.2.10=mirror.lab").unwrap()];
        let refused = generate(&loaded, &opts).unwrap_err();
        assert!(
            matches!(
                &refused,
                Error::InvalidOption {
                    option: OptionField::AddHost,
                    ..
                }
            ),
            "{refused:?}"
        );
        assert!(
            refused
                .to_string()
                .contains("/opt/openshift/openshift/99-worker-bootgen-hosts.yaml"),
            "{refused}"
        );
    }

    /// `--add-host` entries reach every machine through the MachineConfigs
    /// 99-{master,worker}-bootgen-hosts, a single node's installed system included (so nothing
    /// says they stay on the live ISO); one for api-int stays on the bootstrap, with a warning
    /// naming the DNS record (an error under `strict`).
    #[test]
    fn host_entries_reach_every_machine_but_api_int_is_said_to_need_dns() {
        use crate::passes::mirrors::{machine_hosts, HostEntry};
        let loaded = crate::config::load_default_single_node().unwrap();
        let mut single = options();
        single.model.installation_disk = Some("/dev/vda".into());
        single.passes.mirrors.hosts = vec![HostEntry::parse("192.0.2.10=mirror.lab").unwrap()];
        let generated = generate(&loaded, &single).unwrap();
        assert!(generated
            .warnings
            .iter()
            .all(|w| w.field != OptionField::AddHost.name()));
        let change = generated
            .changes
            .iter()
            .find(|c| c.target == "/etc/hosts")
            .unwrap();
        assert!(!change.action.contains("installed"), "{change}");
        for role in ["master", "worker"] {
            let manifest =
                crate::passes::file_text(&generated.bootstrap, &machine_hosts::manifest_path(role))
                    .unwrap();
            assert_eq!(
                machine_hosts::entries_of_manifest(&manifest),
                ["192.0.2.10 mirror.lab"]
            );
        }

        let loaded = crate::config::load_default().unwrap();
        let mut cluster = options();
        cluster.passes.mirrors.hosts = vec![
            HostEntry::parse("192.0.2.10=mirror.lab").unwrap(),
            HostEntry::parse("192.0.2.11=api-int.example.example.com").unwrap(),
        ];
        let generated = generate(&loaded, &cluster).unwrap();
        let warning = generated
            .warnings
            .iter()
            .find(|w| w.field == OptionField::AddHost.name())
            .unwrap();
        assert!(
            warning
                .message
                .contains("add the DNS record api-int.example.example.com"),
            "{warning}"
        );
        let manifest = crate::passes::file_text(
            &generated.bootstrap,
            &machine_hosts::manifest_path("worker"),
        )
        .unwrap();
        assert_eq!(
            machine_hosts::entries_of_manifest(&manifest),
            ["192.0.2.10 mirror.lab"]
        );
        cluster.strict = true;
        assert!(matches!(
            generate(&loaded, &cluster),
            Err(Error::StrictWarnings { .. })
        ));
    }
}
