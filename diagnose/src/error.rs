//! The crate's one error type: what keeps a bundle from being diagnosed at all, naming the
//! file at fault. The `bootgen` library maps each variant to its own error of the same words.

use std::path::PathBuf;

/// Why a bundle could not be diagnosed. Exhaustive, so that the library's mapping to its own
/// error is checked by the compiler when a variant is added.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or directory could not be read.
    #[error("{action} {path}")]
    Io {
        /// What was being done ("cannot read").
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
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
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
