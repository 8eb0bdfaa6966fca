//! Checks on a config, before it boots: Ignition's own validation (what `ignition-validate`
//! and the files stage refuse), bootgen's lints (unit holds and masks that will not do what
//! was meant, secrets readable by others, expired certificates) and the mirror pre-flight
//! (what a disconnected node will fail to pull). Every finding says where it is and how bad.

mod lint;
mod locate;
pub mod preflight;
mod problem;
mod rules;
mod source;
mod syntax;
mod validate;

pub use lint::{lint_certificates, lint_secrets, lint_units, lint_units_with_files};
pub use problem::{Check, Location, Problem, Severity};
pub use validate::{errors_added, validate, ValidateOptions, Validation};
