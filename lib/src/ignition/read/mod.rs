//! Reading what a config puts on the node, whoever made it: its file entries and units, the text
//! of a file, and the parsers of the files bootgen knows (registries.conf, the pull secrets,
//! /etc/hosts, the trust anchors, the release-image scripts, the stored install-config). Every part of bootgen that reads a
//! config (`passes`, `report`, `checks`, `golden`, `output`) reads through here, so a reader never
//! depends on the code that edits.

mod entries;
mod hosts;
mod install_config;
mod media;
mod pull_secret;
mod registries;
mod release;
mod trust;

pub use entries::{file_entries, file_text, has_manifests, holds_secrets, read_text, unit_names};
pub use hosts::{configured_lines, maps_name, HOSTS};
pub use install_config::{
    stored_install_config, stored_vsphere, vcenter_servers, StoredVSphere, CLUSTER_CONFIG,
};
pub use media::{embedded_config, EmbeddedConfig};
pub use pull_secret::{
    auth_key_for, auth_keys, has_credentials, manifest_auth_keys, normalize_auth_key,
    NODE_PULL_SECRET, PULL_SECRET_MANIFEST,
};
pub use registries::{parse_registries_conf, registry_for, REGISTRIES_CONF};
pub use release::{
    assignments, find_release, release_of, ReleaseGuess, ReleaseReference, RELEASE_SCRIPTS,
};
pub(crate) use release::{spans, CVO_OVERRIDES};
pub use trust::{ca_count, parse_certificates, Certificate, ANCHORS, USER_CA_BUNDLE};

/// Where bootgen's unit holds live on the node: a held unit does not start while
/// `HOLD_DIR/<unit>` exists.
pub const HOLD_DIR: &str = "/etc/bootgen/hold";
/// The drop-in that carries a unit's hold condition.
pub const HOLD_DROPIN: &str = "10-bootgen-hold.conf";

/// The line of a [`HOLD_DROPIN`] that holds its unit while `held`'s hold file exists.
pub(crate) fn hold_condition(held: &str) -> String {
    format!("ConditionPathExists=!{HOLD_DIR}/{held}")
}

/// The units whose holds a [`HOLD_DROPIN`] text names (one [`hold_condition`] line each): the
/// unit itself, or units it requires, held with them.
pub(crate) fn holds_in_dropin(text: &str) -> Vec<String> {
    let prefix = hold_condition("");
    text.lines()
        .filter_map(|line| line.trim().strip_prefix(prefix.as_str()))
        .map(str::to_string)
        .collect()
}
