//! The library's one error type. Every variant names what is at fault (file, field, unit,
//! certificate) and never carries secret material.

use crate::arch::UnknownArch;
use std::path::PathBuf;

/// Everything that can go wrong in bootgen.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written.
    #[error("{action} {path}")]
    Io {
        /// What was being done ("cannot read", "cannot write", ...).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },

    /// An input file is not valid YAML or JSON, or has the wrong shape.
    #[error("{file}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Parse {
        /// The file (or `<embedded default>`).
        file: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },

    /// A field has a value bootgen cannot use.
    #[error("{file}: field `{field}`{}: {message}", line.map(|l| format!(" (line {l})")).unwrap_or_default())]
    InvalidField {
        /// The file (or `<embedded default>` / `command line`).
        file: String,
        /// The field path, e.g. `networking.serviceNetwork[0]`.
        field: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// What is wrong and what is expected.
        message: String,
    },

    /// Warnings were raised and `strict` turns them into errors.
    #[error("{count} warning(s) and `strict` is set: {first}")]
    StrictWarnings {
        /// How many warnings.
        count: usize,
        /// The first of them.
        first: String,
    },

    /// A setting the caller gave is wrong.
    #[error("{option}: {message}")]
    InvalidOption {
        /// The setting, e.g. [`OptionField::Arch`].
        option: OptionField,
        /// What is wrong and what is accepted.
        message: String,
    },

    /// A setting the caller gave is refused unless another setting allows it.
    #[error("{option}: {message} ({allowed_by} overrides)")]
    InvalidUnlessAllowed {
        /// The setting at fault.
        option: OptionField,
        /// What is wrong.
        message: String,
        /// The setting that accepts it anyway.
        allowed_by: OptionField,
    },

    /// A template failed to render (a bug in bootgen's templates, not in the input).
    #[error("template {name}: {message}")]
    Template {
        /// The template path under `templates/`.
        name: String,
        /// minijinja's description.
        message: String,
    },

    /// The embedded release table does not load (a bug in bootgen's data, not in the input).
    #[error("bootgen's release table (releases.toml) does not load: {fault}")]
    ReleaseTable {
        /// What is wrong, naming the row or field.
        fault: String,
    },

    /// An Ignition config is invalid or cannot be parsed.
    #[error("{file}: {message}")]
    Ignition {
        /// The config file (or `<generated>`).
        file: String,
        /// What is wrong, with a JSON path where there is one.
        message: String,
    },

    /// A unit named on the command line is not in the config.
    #[error("unit {unit} is not in the config{}; its units are: {known}", meant.as_ref().map(|m| format!(" (did you mean {m}?)")).unwrap_or_default())]
    UnknownUnit {
        /// The unit asked for.
        unit: String,
        /// The unit of the config most likely meant (`bootkube.service` for `bootkube`).
        meant: Option<String>,
        /// The units the config has.
        known: String,
    },

    /// Certificates or keys could not be generated or reused.
    #[error(transparent)]
    Pki(#[from] crate::pki::PkiError),

    /// A pass cannot make a change it was asked for: a file in the config is not what it
    /// expects (an unexpected script, a manifest of another shape).
    #[error("cannot update {path} in the config: {message}")]
    CannotPatch {
        /// The file's path on the node.
        path: String,
        /// What was expected and what was found.
        message: String,
    },

    /// The release a config is made for cannot express what was asked for (blocking a mirrored
    /// source before ImageDigestMirrorSet, ...).
    #[error("release {release} cannot {message}")]
    ReleaseCannot {
        /// The release (`4.12`), or how the config was recognized.
        release: String,
        /// What it cannot do, why, and the ways out.
        message: String,
    },

    /// The mirror pre-flight found problems that would break the boot (or warnings under
    /// `--strict`).
    #[error(
        "pre-flight: {count} problem(s) with the mirror setup; nothing was written. First: {first}"
    )]
    Preflight {
        /// How many problems.
        count: usize,
        /// The first of them.
        first: String,
    },

    /// The output would replace existing work.
    #[error(
        "{}; writing with `force` replaces {} (keys in tls/ are never replaced)",
        Error::existing_files_text(paths),
        if paths.len() == 1 { "it" } else { "them" }
    )]
    WouldOverwrite {
        /// The existing files (at least one), in the order they would be written.
        paths: Vec<PathBuf>,
    },

    /// The output directory holds a different private key where bootgen would write one.
    #[error("{path} exists with a different key; bootgen never replaces keys (reuse that PKI as `tls_dir`, or write to a new output directory)")]
    KeyExists {
        /// The existing key.
        path: PathBuf,
    },

    /// The output directory, or a directory or file in its `auth/` or `tls/`, is another
    /// user's to control: refused before anything is read from it or written into it.
    #[error("{foreign}: another user could read the keys bootgen writes there, or have planted keys they know; write to a new output directory of your own")]
    ForeignOutput {
        /// What is controlled by whom.
        foreign: crate::ownership::Foreign,
    },

    /// A live image to be customized in place is another user's to control: they could read
    /// the config (and its keys) once it is written into the image.
    #[error("{foreign}: another user could read the config written into it, with any key it holds; write a copy of the image to a new file of your own instead")]
    ForeignMedium {
        /// What is controlled by whom.
        foreign: crate::ownership::Foreign,
    },

    /// The output directory holds the configs of another cluster than the ones being written.
    #[error(
        "{dir} holds the output of {on_disk}, not of {new}; write to another output directory"
    )]
    OtherCluster {
        /// The output directory.
        dir: PathBuf,
        /// The cluster its files are for.
        on_disk: String,
        /// The cluster being written.
        new: String,
    },

    /// Another bootgen run holds the lock on the output directory.
    #[error("{dir} is in use by another bootgen run (it holds {dir}/.bootgen-lock); try again when that run is done")]
    OutputBusy {
        /// The output directory.
        dir: PathBuf,
    },

    /// An output directory holds files bootgen did not write, so it is not packed.
    #[error("{dir} holds what bootgen did not write: {}; move it out of the directory (only bootgen's output is packed)", .files.join(", "))]
    ForeignFiles {
        /// The directory.
        dir: PathBuf,
        /// Its paths that bootgen does not write, relative to it.
        files: Vec<String>,
    },

    /// Extracting or packaging would write outside the target directory, or through a link.
    #[error("refusing {path}: {reason}")]
    UnsafePath {
        /// The path as the config or directory names it.
        path: String,
        /// Why it is refused.
        reason: String,
    },

    /// A log bundle cannot be read at all (not a tar archive, plain or compressed with gzip or
    /// xz, nor a directory), holds none of what every bundle has, or is damaged and shows no
    /// failure in what could be read; one that breaks part way after a failure gives a partial
    /// diagnosis instead.
    #[error("{file}: {message}")]
    UnreadableBundle {
        /// The bundle (archive or directory) as given.
        file: String,
        /// What is wrong with it.
        message: String,
    },

    /// A live ISO or PXE initramfs cannot take what was asked: not a CoreOS live image,
    /// already customized, another architecture, an area too small for the config.
    #[error("{file}: {area}: {message}")]
    Media {
        /// The ISO or initramfs as given.
        file: String,
        /// The area or field at fault (`/images/ignition.img`, `kargs area`, ...).
        area: String,
        /// What is wrong, and the way out.
        message: String,
    },
}

/// What an error names a config by where the code that found it has no file name.
pub(crate) const UNNAMED_CONFIG: &str = "<config>";

impl Error {
    /// `a already exists`, `a and b already exist`, or the first few and how many more: the
    /// files of [`Error::WouldOverwrite`] as a message names them.
    pub fn existing_files_text(paths: &[PathBuf]) -> String {
        const SHOWN: usize = 5;
        let names: Vec<String> = paths
            .iter()
            .take(SHOWN)
            .map(|p| p.display().to_string())
            .collect();
        match (names.split_last(), paths.len()) {
            (None, _) => "the output already exists".to_string(),
            (Some((only, [])), 1) => format!("{only} already exists"),
            (Some((last, rest)), n) if n <= SHOWN => {
                format!("{} and {last} already exist", rest.join(", "))
            }
            (Some(_), n) => format!("{} and {} more already exist", names.join(", "), n - SHOWN),
        }
    }

    /// Builds an [`Error::Io`].
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// The error with the config it is about named `name`, where the code that found it knew
    /// only "a config" (`<config>`: an entry decoded apart from its file).
    pub fn in_config(self, name: &str) -> Self {
        match self {
            Error::Ignition { file, message } if file == UNNAMED_CONFIG => Error::Ignition {
                file: name.to_string(),
                message,
            },
            other => other,
        }
    }

    /// True when the error is the user's input, false when bootgen itself failed.
    pub fn is_input_error(&self) -> bool {
        !matches!(self, Error::Template { .. } | Error::ReleaseTable { .. })
    }
}

/// The `file` of a [`crate::config::Warning`] about a setting rather than about a file; its
/// `field` is then an [`OptionField::name`].
pub const OPTIONS_SOURCE: &str = "options";

/// A setting the caller gives the library: a field of [`crate::generate::Options`] (and of the option
/// structs inside it), or an argument of a toolkit function. Errors name the setting at fault
/// with it, in the library's terms; a front end maps each to its own spelling (the CLI to its
/// flag). Deliberately not `#[non_exhaustive]`: a front end's mapping should stop compiling when
/// a setting is added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OptionField {
    /// `Options::model.arch`: the control-plane architecture.
    Arch,
    /// `Options::model.bootstrap_arch`: the bootstrap host's architecture.
    BootstrapArch,
    /// `Options::model.release_image`: the release payload.
    ReleaseImage,
    /// `Options::model.release_version`: the version the default payload is named after.
    ReleaseVersion,
    /// `Options::model.allow_arch_mismatch`.
    AllowArchMismatch,
    /// `Options::model.multi_arch_payload`: the release image is a multi-architecture payload.
    MultiArchPayload,
    /// `Options::manifests_dir`.
    ManifestsDir,
    /// `Options::openshift_dir`.
    OpenshiftDir,
    /// `Options::strict`: warnings become errors.
    Strict,
    /// `Options::tls_dir`: the PKI to reuse.
    TlsDir,
    /// `Options::key_algorithm`.
    KeyAlgorithm,
    /// `Options::renew_expired`.
    RenewExpired,
    /// `MirrorOptions::mirrors`: mirror rules.
    Mirror,
    /// `MirrorOptions::insecure_registries`.
    InsecureRegistry,
    /// `MirrorOptions::hosts`: `/etc/hosts` entries.
    AddHost,
    /// `MirrorOptions::registry_auth`: registry credentials.
    RegistryAuth,
    /// `MirrorOptions::trust_bundle`: CA certificates for mirrors.
    TrustBundle,
    /// The directory `output::write_dir` writes into.
    OutputDir,
    /// The `existing` argument of `output::write_dir` (`ExistingConfigs::Replace`).
    Force,
    /// The directory `output::write_package` packs.
    PackageDir,
    /// The URL a pointer config fetches its config from.
    PointerUrl,
    /// The CA certificates a pointer config trusts.
    PointerCa,
    /// How soon before expiry a certificate is flagged (`ValidateOptions::warn_within`).
    WarnWithin,
    /// `Options::model.single_node`: make the single-node live-ISO config.
    SingleNode,
    /// `Options::model.installation_disk`: the single node's installation disk.
    InstallationDisk,
    /// `Options::model.distribution`: OpenShift or OKD.
    Distribution,
    /// `PassOptions::compress`: gzip file contents where that makes the config smaller.
    Compress,
    /// `Options::hosts`: the hosts file (an agent-config's hosts, their networks and disks).
    Hosts,
}

impl OptionField {
    /// Every setting, for front ends that map them.
    pub const ALL: [OptionField; 28] = [
        OptionField::Arch,
        OptionField::BootstrapArch,
        OptionField::ReleaseImage,
        OptionField::ReleaseVersion,
        OptionField::AllowArchMismatch,
        OptionField::MultiArchPayload,
        OptionField::ManifestsDir,
        OptionField::OpenshiftDir,
        OptionField::Strict,
        OptionField::TlsDir,
        OptionField::KeyAlgorithm,
        OptionField::RenewExpired,
        OptionField::Mirror,
        OptionField::InsecureRegistry,
        OptionField::AddHost,
        OptionField::RegistryAuth,
        OptionField::TrustBundle,
        OptionField::OutputDir,
        OptionField::Force,
        OptionField::PackageDir,
        OptionField::PointerUrl,
        OptionField::PointerCa,
        OptionField::WarnWithin,
        OptionField::SingleNode,
        OptionField::InstallationDisk,
        OptionField::Distribution,
        OptionField::Compress,
        OptionField::Hosts,
    ];

    /// The setting as the library spells it: the field path below `Options`, or the argument.
    pub fn name(self) -> &'static str {
        match self {
            OptionField::Arch => "model.arch",
            OptionField::BootstrapArch => "model.bootstrap_arch",
            OptionField::ReleaseImage => "model.release_image",
            OptionField::ReleaseVersion => "model.release_version",
            OptionField::AllowArchMismatch => "model.allow_arch_mismatch",
            OptionField::MultiArchPayload => "model.multi_arch_payload",
            OptionField::ManifestsDir => "manifests_dir",
            OptionField::OpenshiftDir => "openshift_dir",
            OptionField::Strict => "strict",
            OptionField::TlsDir => "tls_dir",
            OptionField::KeyAlgorithm => "key_algorithm",
            OptionField::RenewExpired => "renew_expired",
            OptionField::Mirror => "passes.mirrors.mirrors",
            OptionField::InsecureRegistry => "passes.mirrors.insecure_registries",
            OptionField::AddHost => "passes.mirrors.hosts",
            OptionField::RegistryAuth => "passes.mirrors.registry_auth",
            OptionField::TrustBundle => "passes.mirrors.trust_bundle",
            OptionField::OutputDir => "output directory",
            OptionField::Force => "force",
            OptionField::PackageDir => "package directory",
            OptionField::PointerUrl => "pointer URL",
            OptionField::PointerCa => "pointer CA bundle",
            OptionField::WarnWithin => "warn_within",
            OptionField::SingleNode => "model.single_node",
            OptionField::InstallationDisk => "model.installation_disk",
            OptionField::Distribution => "model.distribution",
            OptionField::Compress => "passes.compress",
            OptionField::Hosts => "hosts",
        }
    }

    /// The setting whose [`OptionField::name`] is `name`.
    pub fn from_name(name: &str) -> Option<OptionField> {
        OptionField::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl std::fmt::Display for OptionField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}`", self.name())
    }
}

/// A value that does not parse (the `FromStr` error of mirror rules, host entries, ...). It
/// says what is wrong with the value; the caller knows which setting it was for (clap's
/// `value_parser` adds the flag), and [`InvalidValue::for_option`] names it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidValue(pub String);

impl InvalidValue {
    /// The [`Error::InvalidOption`] for this value given as `option`.
    pub fn for_option(self, option: OptionField) -> Error {
        Error::InvalidOption {
            option,
            message: self.0,
        }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

// Here, not in `arch`: the architecture table is the lowest layer, and knows no error type.
impl UnknownArch {
    /// The [`Error::InvalidOption`] for this name given as `option` (the control plane's
    /// architecture, or the bootstrap host's).
    pub fn for_option(self, option: OptionField) -> Error {
        Error::InvalidOption {
            option,
            message: self.to_string(),
        }
    }
}

/// An unknown name given for the control plane's architecture (`Options::model.arch`); use
/// [`UnknownArch::for_option`] for another setting.
impl From<UnknownArch> for Error {
    fn from(unknown: UnknownArch) -> Error {
        unknown.for_option(OptionField::Arch)
    }
}
