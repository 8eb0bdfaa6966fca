//! `bootgen inspect`: a readable summary of any config (spec version, users, every file with
//! its mode, size, write mode and kind, every unit with its state and drop-ins, sizes) and its
//! size budget. Contents are never printed, so the summary is safe to paste into an issue.

use super::budget::{human_size, SizeBudget};
use crate::error::Result;
use crate::ignition::read::{
    file_entries, find_release, release_of, ReleaseGuess, CLUSTER_CONFIG, CVO_OVERRIDES,
    HOLD_DROPIN, REGISTRIES_CONF, RELEASE_SCRIPTS,
};
use crate::ignition::split::SplitDoc;
use crate::ignition::DecodedFile;
use crate::ignition::IgnitionDoc;
use crate::ignition::{classify, FileKind};
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// A user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UserSummary {
    /// Login name.
    pub name: String,
    /// How many SSH keys.
    pub ssh_keys: usize,
    /// Whether a password hash is set.
    pub password: bool,
}

/// A file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileSummary {
    /// Path on the node.
    pub path: String,
    /// Mode, when set (Ignition's default is 0644).
    pub mode: Option<u32>,
    /// Decoded size of contents plus appends; `None` when some of it is fetched from
    /// elsewhere, whose size the config does not say.
    pub size: Option<u64>,
    /// `overwrite`, `create`, `append`, `overwrite+append` or `create+append`.
    pub write: String,
    /// What the file is.
    pub kind: FileKind,
    /// Some contents are gzip-compressed in the config.
    pub compressed: bool,
}

/// A unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnitSummary {
    /// Unit name.
    pub name: String,
    /// `enabled`, when set.
    pub enabled: Option<bool>,
    /// Masked.
    pub masked: bool,
    /// Held by bootgen (a `10-bootgen-hold.conf` drop-in).
    pub held: bool,
    /// Whether the config carries the unit's text (or only drop-ins or state).
    pub has_contents: bool,
    /// Drop-in names.
    pub dropins: Vec<String>,
}

/// The summary of one config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// `ignition.version`.
    pub version: String,
    /// Users.
    pub users: Vec<UserSummary>,
    /// Files, in config order.
    pub files: Vec<FileSummary>,
    /// Directories (count).
    pub directories: usize,
    /// Links (count).
    pub links: usize,
    /// Units, in config order.
    pub units: Vec<UnitSummary>,
    /// Sum of decoded file sizes.
    pub contents_size: u64,
    /// The size budget of the config as given.
    pub budget: SizeBudget,
    /// The OpenShift release the config was made for, when it can tell, and how it knows.
    pub release: Option<ReleaseGuess>,
    /// bootkube's stages in run order, when the config has bootgen's stage list.
    pub bootkube_stages: Vec<String>,
    /// A single node's installation disk, when the config installs a single node in place.
    pub installation_disk: Option<String>,
    /// The release image the config pulls (its release-image scripts), when they say.
    pub release_image: Option<String>,
    /// The cluster's architecture, when the config says, and how it is known.
    pub architecture: Option<ArchGuess>,
    /// The install-config's platform, as the stored install-config says (`none`, or
    /// `external (platformName oci, cloudControllerManager External)`).
    pub platform: Option<String>,
    /// OpenShift or OKD, as the release image or the ClusterVersion's channel says.
    pub distribution: Option<crate::release::Distribution>,
    /// The mirrored sources of the node's registries.conf.
    pub mirrors: Vec<MirrorSummary>,
    /// The configs Ignition fetches before anything else (a pointer config's merge or
    /// replace), in order.
    pub fetches: Vec<FetchSummary>,
    /// How many CA certificates Ignition trusts for those fetches.
    pub trusted_cas: usize,
    /// The NetworkManager profiles it places (static networks), in config order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub networks: Vec<super::NetworkSummary>,
}

fn write_mode(file: &DecodedFile) -> String {
    let base = if file.overwrite == Some(true) {
        "overwrite"
    } else {
        "create"
    };
    let has_contents = file.contents.is_some() || !file.remote_sources.is_empty();
    match (has_contents, file.append.is_empty()) {
        (_, true) => base.to_string(),
        (true, false) => format!("{base}+append"),
        (false, false) => "append".to_string(),
    }
}

fn count(doc: &IgnitionDoc, pointer: &str) -> usize {
    doc.value
        .pointer(pointer)
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

fn any_compressed(entry: &Value) -> bool {
    let gz = |r: &Value| r.get("compression").and_then(Value::as_str) == Some("gzip");
    entry.get("contents").is_some_and(gz)
        || entry
            .get("append")
            .and_then(Value::as_array)
            .is_some_and(|list| list.iter().any(gz))
}

/// Summarizes `doc`; `config` is the config file's bytes as given.
pub fn summarize(doc: &IgnitionDoc, config: &[u8]) -> Result<Summary> {
    let files = file_entries(doc).into_iter().map(|f| Ok(Cow::Borrowed(f)));
    summarize_parts(doc, files, doc.serialized_len(), config)
}

/// The paths [`summarize_split`] needs as a tree: the files [`release_of`],
/// [`bootkube_stages`] and [`installation_disk`] read.
pub fn summary_reads(path: &str) -> bool {
    RELEASE_SCRIPTS.contains(&path)
        || [
            CVO_OVERRIDES,
            BOOTKUBE_STAGES,
            INSTALL_TO_DISK,
            CLUSTER_CONFIG,
            REGISTRIES_CONF,
        ]
        .contains(&path)
}

/// Summarizes a config split with [`summary_reads`] as its `keep` (one file entry parsed at a
/// time, so a large config is never a JSON tree whole); the same summary as [`summarize`].
pub fn summarize_split(split: &SplitDoc<'_>, config: &[u8]) -> Result<Summary> {
    let files = split.input_files().map(|f| f.map(Cow::Owned));
    summarize_parts(&split.doc, files, split.serialized_len()?, config)
}

/// The summary of a config whose file entries are `files` (in order) and everything else is in
/// `doc`; `serialized_len` is the whole config's length as single-line JSON.
fn summarize_parts<'v>(
    doc: &IgnitionDoc,
    files: impl Iterator<Item = Result<Cow<'v, Value>>>,
    serialized_len: u64,
    config: &[u8],
) -> Result<Summary> {
    // First, while little else is in memory: the compressor is the largest thing summarizing
    // needs besides the config.
    let iso_embedded = super::budget::iso_estimate(config);
    let mut saving = crate::passes::CompressSaving::default();
    let mut networks = Vec::new();
    let files: Vec<FileSummary> = files
        .enumerate()
        .map(|(i, entry)| {
            let entry = entry?;
            saving.add(&entry);
            let f = crate::ignition::decode_file(i, &entry)?;
            if let Some(contents) = &f.contents {
                networks.extend(super::network::network_of(&f.path, contents));
            }
            let size = f.contents.as_ref().map_or(0, Vec::len)
                + f.append.iter().map(Vec::len).sum::<usize>();
            let first = if f.contents.is_none() && f.remote_sources.is_empty() {
                f.append.first()
            } else {
                f.contents.as_ref()
            };
            let kind = if f.contents.is_none() && !f.remote_sources.is_empty() {
                FileKind::Remote
            } else {
                classify(&f.path, Some(first.map(Vec::as_slice).unwrap_or_default()))
            };
            Ok(FileSummary {
                write: write_mode(&f),
                path: f.path,
                mode: f.mode,
                size: f.remote_sources.is_empty().then_some(size as u64),
                kind,
                compressed: any_compressed(&entry),
            })
        })
        .collect::<Result<_>>()?;
    let compressed = saving
        .total()
        .map(|saving| serialized_len.saturating_sub(saving));
    let units = crate::ignition::decode_units(doc)
        .iter()
        .map(|u| UnitSummary {
            name: u.name.clone(),
            enabled: u.enabled,
            masked: u.mask == Some(true),
            held: u.dropins.iter().any(|d| d.name == HOLD_DROPIN),
            // Ignition writes no unit file for empty text.
            has_contents: u.contents.as_deref().is_some_and(|t| !t.is_empty()),
            dropins: u.dropins.iter().map(|d| d.name.clone()).collect(),
        })
        .collect();
    // A config that installs itself to disk is a single node's live-ISO config: it is only
    // ever embedded in the ISO.
    let installation_disk = installation_disk(doc);
    let release_image = find_release(doc).ok().flatten().map(|r| r.reference);
    let budget = SizeBudget::of_sizes(config.len() as u64, iso_embedded, compressed);
    let budget = if installation_disk.is_some() {
        budget.live_iso_only()
    } else {
        budget
    };
    let users = crate::ignition::decode_users(doc)
        .iter()
        .map(|u| UserSummary {
            name: u.name.clone(),
            ssh_keys: u.ssh_authorized_keys.len(),
            password: u.has_password_hash,
        })
        .collect();
    Ok(Summary {
        version: doc.version().to_string(),
        users,
        contents_size: files.iter().filter_map(|f| f.size).sum(),
        files,
        directories: count(doc, "/storage/directories"),
        links: count(doc, "/storage/links"),
        units,
        budget,
        release: release_of(doc),
        bootkube_stages: bootkube_stages(doc),
        installation_disk,
        release_image: release_image.clone(),
        architecture: architecture_of(doc, release_image.as_deref()),
        platform: platform_of(doc),
        distribution: distribution_of(doc, release_image.as_deref()),
        mirrors: mirrors_of(doc),
        fetches: fetches_of(doc),
        trusted_cas: count(doc, "/ignition/security/tls/certificateAuthorities"),
        networks,
    })
}

mod detect;
mod display;

pub use detect::{
    architecture_of, bootkube_stages, distribution_of, fetches_of, installation_disk, mirrors_of,
    platform_of, ArchGuess, FetchSummary, MirrorSummary,
};
use detect::{BOOTKUBE_STAGES, INSTALL_TO_DISK};

#[cfg(test)]
mod tests;
