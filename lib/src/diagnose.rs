//! Saying why a bootstrap failed, from a log bundle or from the node's own state: the
//! `bootgen-diagnose` crate, seen from the library. Its types are re-exported as they are; its
//! entry points are wrapped so they fail with the library's [`Error`] (an embedder's `?` and the
//! CLI's exit codes see one error type), and [`OptionField`] names the settings its fixes name.
//!
//! A bundle is what `openshift-install gather bootstrap` or the node's `installer-gather.sh`
//! writes (`log-bundle-ID.tar.gz`, read as a stream, never unpacked), or the unpacked directory.
//! On the node, the caller collects the same files ([`NodeState`]) and passes them in; this
//! module reads no environment, clock or command output itself.
//!
//! ```no_run
//! let diagnosis = bootgen::diagnose::diagnose_path(
//!     std::path::Path::new("log-bundle-20260101010000.tar.gz"),
//!     &bootgen::diagnose::Limits::default(),
//! )?;
//! if let Some(failure) = &diagnosis.failure {
//!     println!("{}: {}", failure.what, failure.sentence);
//! }
//! # Ok::<(), bootgen::Error>(())
//! ```

use std::io::Read;
use std::path::Path;

pub use bootgen_diagnose::{
    journal_json_to_text, Cause, Diagnosis, Event, Evidence, Failure, Limits, NodeFile, NodeState,
    Setting,
};

use crate::error::{Error, OptionField, Result};

/// Diagnoses a bundle archive read from `reader` (a tar archive, plain or compressed with gzip
/// or xz, as its first bytes say), in one pass; `name` names it in messages. A bundle is
/// gathered because the bootstrap did not complete, so a service that had not finished is
/// taken for the failure. What holds none of what every bundle has, or is damaged where no
/// failure was found, is an error ([`Error::UnreadableBundle`]), not a clean report.
pub fn diagnose_archive(reader: impl Read, name: &str, limits: &Limits) -> Result<Diagnosis> {
    Ok(bootgen_diagnose::diagnose_archive(reader, name, limits)?)
}

/// Diagnoses an unpacked bundle directory, judged as [`diagnose_archive`] judges an archive.
pub fn diagnose_dir(dir: &Path, limits: &Limits) -> Result<Diagnosis> {
    Ok(bootgen_diagnose::diagnose_dir(dir, limits)?)
}

/// Diagnoses a bundle given by path: a directory, or else an archive.
pub fn diagnose_path(path: &Path, limits: &Limits) -> Result<Diagnosis> {
    Ok(bootgen_diagnose::diagnose_path(path, limits)?)
}

/// Diagnoses a bundle given by path together with what was seen of the node while it ran
/// (`seen`'s files, named apart from the bundle's: `check --watch` gives the CSRs the API
/// listed at its last look, which a bundle gathered when the API no longer answers lacks).
/// Judged as [`diagnose_path`] judges the bundle alone.
pub fn diagnose_path_with(path: &Path, seen: &NodeState, limits: &Limits) -> Result<Diagnosis> {
    Ok(bootgen_diagnose::diagnose_path_with(path, seen, limits)?)
}

/// Diagnoses the state the caller collected on the node itself. Unlike a bundle's, a service
/// still running here is a failure only when there is evidence of a cause: it may be busy.
pub fn diagnose_node(state: &NodeState, limits: &Limits) -> Diagnosis {
    bootgen_diagnose::diagnose_node(state, limits)
}

/// diagnose's errors in the library's words: the same variants, the same fields.
impl From<bootgen_diagnose::Error> for Error {
    fn from(error: bootgen_diagnose::Error) -> Self {
        match error {
            bootgen_diagnose::Error::Io {
                action,
                path,
                source,
            } => Error::Io {
                action,
                path,
                source,
            },
            bootgen_diagnose::Error::UnreadableBundle { file, message } => {
                Error::UnreadableBundle { file, message }
            }
        }
    }
}

/// The library's setting a fix names.
impl From<Setting> for OptionField {
    fn from(setting: Setting) -> Self {
        match setting {
            Setting::Arch => OptionField::Arch,
            Setting::ReleaseImage => OptionField::ReleaseImage,
            Setting::RenewExpired => OptionField::RenewExpired,
            Setting::AddHost => OptionField::AddHost,
            Setting::RegistryAuth => OptionField::RegistryAuth,
            Setting::TrustBundle => OptionField::TrustBundle,
            Setting::OutputDir => OptionField::OutputDir,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fix shows a setting as the library's messages do, so a front end tells both alike.
    #[test]
    fn each_setting_reads_as_its_option_field() {
        for setting in Setting::ALL {
            assert_eq!(setting.to_string(), OptionField::from(setting).to_string());
        }
    }
}
