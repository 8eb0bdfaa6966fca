//! Transforms on an Ignition config. They work on the config, not on bootgen's model, so
//! `bootgen ignition --disable-unit X` and `bootgen patch any.ign --disable-unit X` run the same
//! code, and a config written by someone else keeps everything a pass does not touch.

mod compress;
mod debug;
mod doc_edit;
pub mod mirrors;
mod units;

pub use crate::ignition::read::{file_entries, file_text, unit_names};
pub use compress::{compress_files, compress_saving, CompressSaving};
pub use debug::{debug_motd, DEBUG_KUBELET_VERBOSITY};
pub use doc_edit::set_file_text;
pub use units::{
    hold_dropin, hold_file_text, hold_unit, mask_unit, release_script, HOLD_DIR, HOLD_DROPIN,
    RELEASE_SCRIPT,
};

use crate::error::Result;
use crate::ignition::IgnitionDoc;

/// Which transforms to apply. Start from `PassOptions::default()` and set fields: the struct
/// grows with new transforms, so a literal does not compile outside bootgen:
///
/// ```compile_fail
/// let options = bootgen::passes::PassOptions {
///     hold_units: vec![], mask_units: vec![], debug: false, mirrors: Default::default(), compress: false,
/// };
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PassOptions {
    /// Units to hold: not started at boot, startable once released.
    pub hold_units: Vec<String>,
    /// Units to mask.
    pub mask_units: Vec<String>,
    /// Hold bootkube, raise kubelet verbosity, and explain it all in /etc/motd.
    pub debug: bool,
    /// Mirrors, blocked sources, insecure registries, host entries, mirror credentials and CA.
    pub mirrors: mirrors::MirrorOptions,
    /// Gzip each file's contents where that makes the config smaller (last, after the others).
    pub compress: bool,
}

impl PassOptions {
    /// True when no transform is asked for.
    pub fn is_empty(&self) -> bool {
        *self == PassOptions::default()
    }
}

/// True when [`apply`] with `options`, followed by the mirror pre-flight
/// ([`crate::checks::preflight::check`]), reads and changes only file entries [`reads_file`] accepts,
/// so the passes can run on a [`crate::ignition::split::SplitDoc`] kept with it. The mirror
/// passes and `--compress` read every file.
pub fn reads_known_files_only(options: &PassOptions) -> bool {
    options.mirrors.is_empty() && !options.compress
}

/// The file entries the passes other than the mirror passes and `--compress` read or change
/// (hold files, the release script, kubelet.sh, /etc/motd and the files whose presence the
/// debug motd mentions), and those the mirror pre-flight reads.
pub fn reads_file(path: &str) -> bool {
    use mirrors::{
        HOSTS, NODE_PULL_SECRET, PULL_SECRET_MANIFEST, REGISTRIES_CONF, RELEASE_SCRIPTS,
    };
    const DIRS: [&str; 3] = [
        "/etc/pki/ca-trust/source/anchors/",
        "/etc/containers/certs.d/",
        "/etc/docker/certs.d/",
    ];
    debug::READS.contains(&path)
        || [
            RELEASE_SCRIPT,
            REGISTRIES_CONF,
            NODE_PULL_SECRET,
            PULL_SECRET_MANIFEST,
            HOSTS,
        ]
        .contains(&path)
        || RELEASE_SCRIPTS.contains(&path)
        || path
            .strip_prefix(HOLD_DIR)
            .is_some_and(|rest| rest.starts_with('/'))
        || DIRS.iter().any(|dir| path.starts_with(dir))
}

/// One change a pass made, for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// What was changed: a unit name or a file path.
    pub target: String,
    /// What was done.
    pub action: String,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.target, self.action)
    }
}

/// Applies the passes in a fixed order and returns what changed.
pub fn apply(doc: &mut IgnitionDoc, options: &PassOptions) -> Result<Vec<Change>> {
    apply_for(doc, options, None)
}

/// [`apply`] for a config made for `release`, when the caller knows it (the mirror manifests
/// depend on it); otherwise the passes read it from the config.
pub(crate) fn apply_for(
    doc: &mut IgnitionDoc,
    options: &PassOptions,
    release: Option<crate::release::Minor>,
) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    let mut holds = options.hold_units.clone();
    if options.debug && !holds.iter().any(|u| u == "bootkube.service") {
        holds.push("bootkube.service".to_string());
    }
    for unit in &options.mask_units {
        changes.extend(mask_unit(doc, unit)?);
    }
    for unit in &holds {
        changes.extend(hold_unit(doc, unit)?);
    }
    if options.debug {
        changes.extend(debug::apply_debug(doc, &holds)?);
    }
    if !options.mirrors.is_empty() {
        changes.extend(mirrors::apply_for(doc, &options.mirrors, release)?);
    }
    if options.compress {
        changes.extend(compress_files(doc)?);
    }
    Ok(changes)
}
