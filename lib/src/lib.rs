//! bootgen builds everything an OpenShift bootstrap node boots from: `bootstrap.ign` (files,
//! the `core` user, systemd units, the TLS bundle, kubeconfigs, manifests), the
//! `master.ign`/`worker.ign` pointer configs and the admin kubeconfig. It also reads, patches
//! and compares Ignition configs that other tools wrote.
//!
//! The library never prints, never reads the environment or the clock, and draws randomness
//! only for keys, temporary file names and the keyed digests that show a hidden secret changed:
//! the clock and every choice come in through [`Options`]. Errors are one [`Error`] type whose
//! messages name the file, field or setting at fault; a setting is named by its
//! [`OptionField`] (a front end such as the `bootgen` CLI maps it to its own flag). A config
//! handed over as an [`ignition::IgnitionDoc`] keeps no file name, so what is found in it
//! names it `<config>`: [`Error::in_config`] puts the name in. No public type shows a secret
//! in its `Debug`. Text the library returns (errors, reports, diffs) quotes what a config
//! holds as it is, control characters included: a front end that prints it to a terminal
//! escapes them, as the `bootgen` CLI does.
//!
//! # Generate
//!
//! ```
//! use bootgen::{config, generate, Options};
//!
//! // The embedded default cluster; use config::load(path) for an install-config.yaml.
//! let loaded = config::load_default()?;
//! let mut options = Options::new(time::OffsetDateTime::UNIX_EPOCH + time::Duration::days(20_000));
//! options.model.arch = Some("arm64".parse()?);
//! options.key_algorithm = "ecdsa-p256".parse()?; // fast for a doctest; RSA 2048 is the default
//! let generated = generate(&loaded, &options)?;
//!
//! assert_eq!(generated.bootstrap.version(), "3.2.0");
//! assert_eq!(generated.metadata.architecture.control_plane, "arm64");
//! let bytes: Vec<u8> = generated.bootstrap.to_bytes(); // what goes into bootstrap.ign
//! assert!(bytes.starts_with(b"{\"ignition\""));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Before writing, look at what `generate` found: [`Generated::preflight`], the mirror
//! pre-flight (what will fail on the node; its `verdict(strict)` says whether to stop), with
//! mirror names looked up by the [`NameResolver`] you set in [`Options::resolver`], and
//! [`Generated::unit_lint`], holds and masks that will not do what was meant;
//! [`Generated::size_budget`] says where the config fits (cloud user data, the live ISO) and
//! [`Generated::pulled_release_image`] what the node will pull. The release it was made for is
//! [`model::Model::release`], with that release's profile from [`release`].
//!
//! To write the output directory use [`output::write_dir`] with [`output::output_files`]; to
//! generate again into the same directory, set [`Options::tls_dir`] to its `tls/` so the PKI is
//! reused (keys are never replaced), as `lib/examples/generate.rs` does.
//!
//! # Patch
//!
//! The passes work on any Ignition config, whoever wrote it:
//!
//! ```
//! use bootgen::ignition::IgnitionDoc;
//! use bootgen::passes::{apply, PassOptions};
//!
//! let text = br#"{"ignition":{"version":"3.2.0"},"systemd":{"units":[
//!     {"name":"bootkube.service","contents":"[Service]\nExecStart=/bin/true\n"}]}}"#;
//! let mut doc = IgnitionDoc::parse(text, "installer.ign")?;
//! let mut options = PassOptions::default();
//! options.hold_units = vec!["bootkube.service".into()];
//! let changes = apply(&mut doc, &options)?;
//! assert!(changes.iter().any(|c| c.target == "bootkube.service"));
//! # Ok::<(), bootgen::Error>(())
//! ```
//!
//! A bad value is an error naming the setting, not a flag:
//!
//! ```
//! use bootgen::passes::mirrors::MirrorRule;
//!
//! let error = MirrorRule::parse("quay.io/ocp").unwrap_err();
//! assert!(matches!(error, bootgen::Error::InvalidOption { option: bootgen::OptionField::Mirror, .. }));
//! let rule: MirrorRule = "quay.io/ocp=mirror.example.com/ocp".parse()?;
//! assert_eq!(rule.mirror(), "mirror.example.com/ocp");
//! # Ok::<(), bootgen::InvalidValue>(())
//! ```
//!
//! # Inspect
//!
//! Any config, whoever wrote it, reads back through [`ignition`]: [`ignition::decode`] every
//! file, unit and user. [`report`] has what a person reads ([`report::summarize`], the size
//! budget, the certificate report, [`report::diff`]: semantic, order and encoding do not
//! matter); [`checks`] has what a program acts on ([`checks::validate`] as Ignition validates,
//! bootgen's lints, the mirror pre-flight).
//!
//! ```
//! use bootgen::ignition::IgnitionDoc;
//!
//! let old = IgnitionDoc::parse(br#"{"ignition":{"version":"3.2.0"}}"#, "old.ign")?;
//! let new = IgnitionDoc::parse(
//!     br#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,hi"}}]}}"#,
//!     "new.ign",
//! )?;
//! let diff = bootgen::report::diff(&old, &new, "old.ign", "new.ign")?;
//! assert!(diff.to_string().contains("+ file /etc/motd"));
//! assert_eq!(bootgen::ignition::decode(&new)?.files[0].contents.as_deref(), Some(&b"hi"[..]));
//! # Ok::<(), bootgen::Error>(())
//! ```
//!
//! # Golden view
//!
//! [`golden::view_dir`] turns an output directory into one text that stays byte-identical
//! across PKIs and clocks, for golden-file tests:
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use bootgen::{config, generate, golden, output, Options};
//!
//! let loaded = config::load_default()?;
//! let now = bootgen::time::OffsetDateTime::UNIX_EPOCH + bootgen::time::Duration::days(20_000);
//! let mut options = Options::new(now);
//! options.key_algorithm = "ecdsa-p256".parse()?;
//! options.model.arch = Some("arm64".parse()?);
//! let out = tempfile::tempdir()?;
//! let files = output::output_files(&generate(&loaded, &options)?);
//! output::write_dir(out.path(), &files, output::ExistingConfigs::Refuse)?;
//! let view = golden::view_dir(out.path())?;
//! assert!(view.contains("\"infraID\": \"<infra-id>\""));
//! assert!(!view.contains("PRIVATE KEY-----"));
//! # Ok(())
//! # }
//! ```
//!
//! The data flows one way: [`config`] → [`model`] → [`pki`] → assets (the node's files and
//! units, rendered from [`templates`]) → [`ignition`] → [`passes`] → [`output`] (see
//! ARCHITECTURE.md in the repository). [`release`] holds what differs by OpenShift release;
//! [`media`] puts a config into a CoreOS live ISO or PXE initramfs and reads it back.
//! Everything else is internal: the modules listed here are the whole public API.

mod arch;
mod assets;
pub mod check;
pub mod checks;
pub mod config;
mod context;
pub mod diagnose;
mod error;
mod generate;
pub mod golden;
mod identity;
pub mod ignition;
pub mod media;
pub mod model;
pub mod network;
pub mod node_requests;
pub mod output;
mod ownership;
pub mod passes;
pub mod pki;
pub mod release;
mod render;
pub mod report;
pub mod templates;
mod url_syntax;

pub use error::{Error, InvalidValue, OptionField, Result, OPTIONS_SOURCE};
pub use generate::{
    generate, ArchitectureRecord, Generated, Metadata, NameResolver, Options, VCenterMetadata,
    VSphereMetadata, BOOTSTRAP_CONFIG, LIVE_ISO_CONFIG,
};
pub use identity::Identity;
pub use model::{Arch, UnknownArch};
pub use output::ExistingConfigs;
pub use pki::KeyAlgorithm;
/// The `time` crate, whose [`time::OffsetDateTime`] is the clock [`Options::new`] takes:
/// re-exported so an embedder uses the same version bootgen does.
pub use time;
