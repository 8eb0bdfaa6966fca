//! From flags to the library's options: the one place that knows which flag sets which
//! `bootgen::Options` field.

use crate::args::{IgnitionArgs, PassArgs};
use crate::clock;
use bootgen::model::Arch;
use bootgen::passes::mirrors::{
    parse_insecure_registry, HostEntry, MirrorOptions, MirrorRule, RegistryAuth, TrustBundle,
};
use bootgen::passes::PassOptions;
use bootgen::Options;

fn parse_arch(option: &str, value: &Option<String>) -> anyhow::Result<Option<Arch>> {
    value
        .as_deref()
        .map(|v| {
            v.parse::<Arch>()
                .map_err(|e| bootgen::Error::InvalidOption {
                    option: option.into(),
                    message: e.to_string(),
                })
        })
        .transpose()
        .map_err(Into::into)
}

/// Builds the library options from the command line.
pub fn ignition_options(args: &IgnitionArgs) -> anyhow::Result<Options> {
    let mut options = Options::new(clock::now(args.now.as_deref())?);
    options.model.arch = parse_arch("--arch", &args.arch)?;
    options.model.bootstrap_arch = parse_arch("--bootstrap-arch", &args.bootstrap_arch)?;
    options.model.release_image = args.release_image.clone();
    options.model.release_version = args.release_version.clone();
    options.model.allow_arch_mismatch = args.allow_arch_mismatch;
    options.manifests_dir = args.manifests_dir.clone();
    options.openshift_dir = args.openshift_dir.clone();
    options.strict = args.strict;
    options.key_algorithm =
        args.key_algorithm
            .parse()
            .map_err(|e| bootgen::Error::InvalidOption {
                option: "--key-algorithm".into(),
                message: format!("{e}"),
            })?;
    options.renew_expired = args.renew_expired;
    let reuse = args.output.join("tls");
    options.tls_dir = args
        .tls_dir
        .clone()
        .or_else(|| reuse.is_dir().then_some(reuse));
    options.passes = args.passes.to_options();
    options.passes.mirrors = args.passes.mirror_options()?;
    Ok(options)
}

impl PassArgs {
    /// The library's view of the unit transforms.
    pub fn to_options(&self) -> PassOptions {
        PassOptions {
            hold_units: self.disable_units.clone(),
            mask_units: self.mask_units.clone(),
            debug: self.debug,
            compress: self.compress,
            ..PassOptions::default()
        }
    }
}

impl PassArgs {
    /// The library's view of the mirror flags; reads `--registry-auth` and `--trust-bundle`.
    pub fn mirror_options(&self) -> anyhow::Result<MirrorOptions> {
        Ok(MirrorOptions {
            mirrors: self
                .mirrors
                .iter()
                .map(|m| MirrorRule::parse(m))
                .collect::<Result<_, _>>()?,
            block_sources: self.block_source,
            insecure_registries: self
                .insecure_registries
                .iter()
                .map(|h| parse_insecure_registry(h))
                .collect::<Result<_, _>>()?,
            hosts: self
                .add_hosts
                .iter()
                .map(|h| HostEntry::parse(h))
                .collect::<Result<_, _>>()?,
            registry_auth: self
                .registry_auth
                .as_deref()
                .map(RegistryAuth::read)
                .transpose()?,
            trust_bundle: self
                .trust_bundle
                .as_deref()
                .map(TrustBundle::read)
                .transpose()?,
        })
    }
}
