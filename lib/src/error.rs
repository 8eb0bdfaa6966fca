//! The library's one error type. Every variant names what is at fault (file, field, unit,
//! certificate) and never carries secret material.

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
        /// The file (or "<embedded default>").
        file: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },

    /// A field has a value bootgen cannot use.
    #[error("{file}: field `{field}`{}: {message}", line.map(|l| format!(" (line {l})")).unwrap_or_default())]
    InvalidField {
        /// The file (or "<embedded default>" / "command line").
        file: String,
        /// The field path, e.g. `networking.serviceNetwork[0]`.
        field: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// What is wrong and what is expected.
        message: String,
    },

    /// Warnings were raised and `strict` turns them into errors.
    #[error("{count} warning(s) and --strict is set: {first}")]
    StrictWarnings {
        /// How many warnings.
        count: usize,
        /// The first of them.
        first: String,
    },

    /// A command-line or option value is wrong.
    #[error("{option}: {message}")]
    InvalidOption {
        /// The option, e.g. `--arch`.
        option: String,
        /// What is wrong and what is accepted.
        message: String,
    },

    /// A template failed to render (a bug in bootgen's templates, not in the input).
    #[error("template {name}: {message}")]
    Template {
        /// The template path under `templates/`.
        name: String,
        /// minijinja's description.
        message: String,
    },

    /// An Ignition config is invalid or cannot be parsed.
    #[error("{file}: {message}")]
    Ignition {
        /// The config file (or "<generated>").
        file: String,
        /// What is wrong, with a JSON path where there is one.
        message: String,
    },

    /// A unit named on the command line is not in the config.
    #[error("unit {unit} is not in the config; its units are: {known}")]
    UnknownUnit {
        /// The unit asked for.
        unit: String,
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

    /// The mirror pre-flight found problems that would break the boot (or warnings under
    /// `--strict`).
    #[error("pre-flight: {count} problem(s) with the mirror setup (listed above); nothing was written. First: {first}")]
    Preflight {
        /// How many problems.
        count: usize,
        /// The first of them.
        first: String,
    },

    /// The output would replace existing work.
    #[error("{path} already exists; use --force to replace it (keys in tls/ are never replaced)")]
    WouldOverwrite {
        /// The existing file.
        path: PathBuf,
    },

    /// Extracting or packaging would write outside the target directory, or through a link.
    #[error("refusing {path}: {reason}")]
    UnsafePath {
        /// The path as the config or directory names it.
        path: String,
        /// Why it is refused.
        reason: String,
    },
}

impl Error {
    /// Builds an [`Error::Io`].
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// True when the error is the user's input, false when bootgen itself failed.
    pub fn is_input_error(&self) -> bool {
        !matches!(self, Error::Template { .. })
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
