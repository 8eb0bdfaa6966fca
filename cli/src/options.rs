//! From flags to the library's options: the one place that knows which flag sets which
//! `bootgen::Options` field.

use crate::args::{IgnitionArgs, PassArgs};
use crate::clock;
use bootgen::config::Warning;
use bootgen::passes::mirrors::{MirrorOptions, RegistryAuth, TrustBundle};
use bootgen::passes::PassOptions;
use bootgen::{Error, OptionField, Options};

/// Builds the library options from the command line.
pub fn ignition_options(args: &IgnitionArgs) -> anyhow::Result<Options> {
    let mut options = Options::new(clock::now(args.now.as_deref())?);
    options.model.arch = args.arch;
    options.model.bootstrap_arch = args.bootstrap_arch;
    options.model.release_image = args.release_image.clone();
    options.model.release_version = args.release_version.clone();
    options.model.distribution = args.distribution;
    options.model.allow_arch_mismatch = args.allow_arch_mismatch;
    options.model.multi_arch_payload = args.multi_arch_payload;
    options.model.single_node = args.single_node;
    options.model.installation_disk = args.installation_disk.clone();
    options.model.without_machine_manifests = args.without_machine_manifests;
    options.manifests_dir = args.manifests_dir.clone();
    options.openshift_dir = args.openshift_dir.clone();
    options.hosts = args
        .hosts
        .as_deref()
        .map(bootgen::network::load_hosts)
        .transpose()?;
    for path in &args.network_keyfile {
        let keyfile = bootgen::network::read_user_keyfile(path)?;
        options
            .network_keyfiles
            .push((path.display().to_string(), keyfile));
    }
    options.strict = args.strict;
    options.key_algorithm = args.key_algorithm;
    options.renew_expired = args.renew_expired;
    let reuse = args.output.join("tls");
    options.tls_dir = args
        .tls_dir
        .clone()
        .or_else(|| reuse.is_dir().then_some(reuse));
    options.passes = args.passes.to_options();
    options.passes.mirrors = args.passes.mirror_options()?;
    // The pre-flight looks mirror names up with the system resolver (with a timeout).
    options.resolver = Some(bootgen::NameResolver::new(crate::resolver::resolve));
    Ok(options)
}

impl PassArgs {
    /// The library's view of the unit transforms.
    pub fn to_options(&self) -> PassOptions {
        let mut options = PassOptions::default();
        options.hold_units = self.disable_units.clone();
        options.mask_units = self.mask_units.clone();
        options.debug = self.debug;
        options.compress = self.compress;
        options
    }
}

impl PassArgs {
    /// The library's view of the mirror flags; reads `--registry-auth` and `--trust-bundle`.
    pub fn mirror_options(&self) -> anyhow::Result<MirrorOptions> {
        let mut options = MirrorOptions::default();
        options.mirrors = self.mirrors.clone();
        options.block_sources = self.block_source;
        options.insecure_registries = self.insecure_registries.clone();
        options.hosts = self.add_hosts.clone();
        options.registry_auth = self
            .registry_auth
            .as_deref()
            .map(|path| RegistryAuth::read(path).map_err(naming(OptionField::RegistryAuth)))
            .transpose()?;
        options.trust_bundle = self
            .trust_bundle
            .as_deref()
            .map(|path| TrustBundle::read(path).map_err(naming(OptionField::TrustBundle)))
            .transpose()?;
        Ok(options)
    }
}

/// A file a flag names that cannot be read is told with the flag (the library names the file).
fn naming(option: OptionField) -> impl Fn(Error) -> anyhow::Error {
    move |error| match error {
        Error::Io {
            action,
            path,
            source,
        } => anyhow::Error::new(source).context(format!(
            "{}: {action} {}",
            flag(option),
            path.display()
        )),
        other => other.into(),
    }
}

/// The flag (or argument) that sets each library setting: library messages name the setting,
/// the CLI's name the flag.
pub fn flag(option: OptionField) -> &'static str {
    match option {
        OptionField::Arch => "--arch",
        OptionField::BootstrapArch => "--bootstrap-arch",
        OptionField::ReleaseImage => "--release-image",
        OptionField::ReleaseVersion => "--release-version",
        OptionField::AllowArchMismatch => "--allow-arch-mismatch",
        OptionField::MultiArchPayload => "--multi-arch-payload",
        OptionField::ManifestsDir => "--manifests-dir",
        OptionField::OpenshiftDir => "--openshift-dir",
        OptionField::Strict => "--strict",
        OptionField::TlsDir => "--tls-dir",
        OptionField::KeyAlgorithm => "--key-algorithm",
        OptionField::RenewExpired => "--renew-expired",
        OptionField::Mirror => "--mirror",
        OptionField::InsecureRegistry => "--insecure-registry",
        OptionField::AddHost => "--add-host",
        OptionField::RegistryAuth => "--registry-auth",
        OptionField::TrustBundle => "--trust-bundle",
        OptionField::OutputDir => "--output",
        OptionField::Force => "--force",
        OptionField::PackageDir => "DIR",
        OptionField::PointerUrl => "--url",
        OptionField::PointerCa => "--ca",
        OptionField::WarnWithin => "--warn-within",
        OptionField::SingleNode => "--single-node",
        OptionField::InstallationDisk => "--installation-disk",
        OptionField::Distribution => "--distribution",
        OptionField::Compress => "--compress",
        OptionField::Hosts => "--hosts",
    }
}

/// A library message with every setting it names (`` `model.arch` ``) told as its flag.
pub fn with_flags(message: &str) -> String {
    OptionField::ALL
        .into_iter()
        .fold(message.to_string(), |text, option| {
            text.replace(&option.to_string(), flag(option))
        })
}

/// A library error in the CLI's words: settings become the flags that set them.
pub fn describe_error(error: &Error) -> String {
    match error {
        Error::InvalidOption { option, message } => {
            format!("{}: {}", flag(*option), with_flags(message))
        }
        Error::InvalidUnlessAllowed {
            option,
            message,
            allowed_by,
        } => format!(
            "{}: {message} ({} overrides)",
            flag(*option),
            flag(*allowed_by)
        ),
        Error::StrictWarnings { count, first } => {
            format!("{count} warning(s) and --strict is set: {}", with_flags(first))
        }
        Error::Preflight { .. } => with_flags(&error.to_string()),
        Error::WouldOverwrite { paths } => {
            // The reassurance belongs beside an output directory's PKI, not beside an ISO.
            // (`auth/kubeconfig` sits one level down.)
            let beside_pki = paths.iter().any(|path| {
                path.ancestors()
                    .skip(1)
                    .take(2)
                    .any(|dir| dir.join("tls").is_dir())
            });
            format!(
                "{}; use --force to replace {}{}",
                Error::existing_files_text(paths),
                if paths.len() == 1 { "it" } else { "them" },
                if beside_pki {
                    " (keys in tls/ are never replaced)"
                } else {
                    ""
                }
            )
        }
        Error::KeyExists { path } => format!(
            "{} exists with a different key; bootgen never replaces keys (reuse it with --tls-dir, or use a new output directory)",
            path.display()
        ),
        Error::OtherCluster { dir, on_disk, new } => format!(
            "{} holds the output of {on_disk}, not of {new}; write to another --output directory, or pass --replace-cluster to replace that cluster's configs",
            dir.display()
        ),
        Error::OutputBusy { dir } => format!(
            "{} is in use by another bootgen run (it holds the lock {}); try again when it is done, or pass --wait to wait for it",
            dir.display(),
            dir.join(bootgen::output::LOCK_FILE).display()
        ),
        // The PKI's messages name a setting only to say that `renew_expired` re-issues
        // expired certificates.
        Error::Pki(_) => error.to_string().replace(
            &OptionField::RenewExpired.to_string(),
            flag(OptionField::RenewExpired),
        ),
        other => with_flags(&other.to_string()),
    }
}

/// A warning in the CLI's words: one about a setting names its flag.
pub fn describe_warning(warning: &Warning) -> String {
    match OptionField::from_name(&warning.field) {
        Some(option) if warning.file == bootgen::OPTIONS_SOURCE => {
            format!("{}: {}", flag(option), warning.message)
        }
        _ => warning.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_has_its_own_flag() {
        let flags: std::collections::BTreeSet<_> = OptionField::ALL.into_iter().map(flag).collect();
        assert_eq!(flags.len(), OptionField::ALL.len());
    }

    #[test]
    fn library_errors_are_told_with_flags() {
        let error = Error::InvalidUnlessAllowed {
            option: OptionField::ReleaseImage,
            message: "built for amd64".into(),
            allowed_by: OptionField::AllowArchMismatch,
        };
        assert_eq!(
            describe_error(&error),
            "--release-image: built for amd64 (--allow-arch-mismatch overrides)"
        );
        let key = Error::KeyExists {
            path: "out/tls/root-ca.key".into(),
        };
        assert!(describe_error(&key).contains("reuse it with --tls-dir"));
        assert!(!describe_error(&key).contains("tls_dir"));
    }

    #[test]
    fn warnings_about_settings_name_the_flag() {
        let warning = Warning {
            file: bootgen::OPTIONS_SOURCE.into(),
            field: OptionField::ReleaseImage.name().into(),
            line: None,
            message: "tag names another architecture".into(),
        };
        assert_eq!(
            describe_warning(&warning),
            "--release-image: tag names another architecture"
        );
    }
}
