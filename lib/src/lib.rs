//! bootgen builds everything an OpenShift bootstrap node boots from: `bootstrap.ign` (files,
//! the `core` user, systemd units, the TLS bundle, kubeconfigs, manifests), the
//! `master.ign`/`worker.ign` pointer configs and the admin kubeconfig. It also reads and
//! patches Ignition configs that other tools wrote.
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
//! // bootgen::output::write_dir(dir, &bootgen::output::output_files(&generated), false)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The data flows one way: [`config`] → [`model`] → [`pki`] → [`assets`] → [`ignition`] →
//! [`passes`] → [`output`]. The library never prints, never reads the environment or the
//! clock, and draws randomness only for keys.

pub mod assets;
pub mod config;
pub mod context;
pub mod error;
pub mod generate;
pub mod golden;
pub mod identity;
pub mod ignition;
pub mod inspect;
pub mod model;
pub mod output;
pub mod passes;
pub mod pki;
pub mod render;

pub use error::{Error, InvalidValue, OptionField, Result};
pub use generate::{generate, Generated, Options};
