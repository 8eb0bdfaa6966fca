//! `bootgen inspect`: a readable summary of any config (spec version, users, every file with
//! its mode, size, write mode and kind, every unit with its state and drop-ins, sizes) and its
//! size budget. Contents are never printed, so the summary is safe to paste into an issue.

use super::budget::{human_size, SizeBudget};
use crate::error::Result;
use crate::ignition::read::{
    file_entries, file_text, find_release, parse_registries_conf, release_of,
    stored_install_config, stored_vsphere, ReleaseGuess, CLUSTER_CONFIG, CVO_OVERRIDES,
    HOLD_DROPIN, REGISTRIES_CONF, RELEASE_SCRIPTS,
};
use crate::ignition::redact::Redact;
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
    /// Decoded size of contents plus appends.
    pub size: u64,
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

/// The architecture a config was made for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchGuess {
    /// The control plane's architecture (`amd64`, `arm64`, ...), or `multi`.
    pub control_plane: String,
    /// Where it was read.
    pub from: String,
}

/// One mirrored source of the node's registries.conf.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MirrorSummary {
    /// The source repository prefix.
    pub source: String,
    /// Its mirrors, in the order they are tried.
    pub mirrors: Vec<String>,
    /// The source itself is never contacted.
    pub blocked: bool,
}

/// A config Ignition fetches (`ignition.config.merge` or `.replace`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FetchSummary {
    /// `merge` or `replace`.
    pub how: &'static str,
    /// The URL.
    pub source: String,
    /// Whether a hash (`verification.hash`) pins it.
    pub verified: bool,
}

/// The platform the stored install-config names, with the settings that shape the node.
pub fn platform_of(doc: &IgnitionDoc) -> Option<String> {
    let config = stored_install_config(doc)?;
    let platforms = config.get("platform")?.as_mapping()?;
    let (name, settings) = platforms.iter().next()?;
    let name = name.as_str()?;
    let mut detail: Vec<String> = ["platformName", "cloudControllerManager"]
        .iter()
        .filter_map(|key| Some(format!("{key} {}", settings.get(*key)?.as_str()?)))
        .collect();
    if name == "vsphere" {
        detail.extend(vsphere_detail(settings));
    }
    Some(if detail.is_empty() {
        name.to_string()
    } else {
        format!("{name} ({})", detail.join(", "))
    })
}

/// A vSphere platform's vCenters, failure domains and VIPs, as a person checks them.
fn vsphere_detail(settings: &serde_yaml_ng::Value) -> Vec<String> {
    let vsphere = stored_vsphere(settings);
    let mut detail: Vec<String> = vsphere
        .servers
        .iter()
        .map(|server| format!("vCenter {server}"))
        .collect();
    let domains = vsphere.failure_domains;
    if domains > 0 {
        let plural = if domains == 1 { "" } else { "s" };
        detail.push(format!("{domains} failure domain{plural}"));
    }
    for (vips, what) in [
        (&vsphere.api_vips, "API VIP"),
        (&vsphere.ingress_vips, "ingress VIP"),
    ] {
        if !vips.is_empty() {
            detail.push(format!("{what} {}", vips.join(" ")));
        }
    }
    if vsphere.api_vips.is_empty() {
        detail.push("no VIPs (a load balancer of your own)".into());
    }
    detail
}

/// The distribution a config is for: the one its release image names, else the one whose
/// update channel its ClusterVersion names (OKD's `stable-scos-4`).
pub fn distribution_of(
    doc: &IgnitionDoc,
    release_image: Option<&str>,
) -> Option<crate::release::Distribution> {
    use crate::release::{distribution_of_reference, Distribution, PROFILES};
    if let Some(said) = release_image.and_then(distribution_of_reference) {
        return Some(said);
    }
    let text = file_text(doc, CVO_OVERRIDES)?;
    let manifest: serde_yaml_ng::Value = crate::config::depth::from_str(&text).ok()?;
    let channel = manifest.get("spec")?.get("channel")?.as_str()?;
    Distribution::ALL.iter().copied().find(|d| {
        PROFILES
            .iter()
            .any(|p| p.distribution(*d).is_some_and(|f| f.channel == channel))
    })
}

/// The control plane's architecture: from the install-config the cluster stores
/// (`controlPlane.architecture`), else from the release image's tag (`...-aarch64`).
pub fn architecture_of(doc: &IgnitionDoc, release_image: Option<&str>) -> Option<ArchGuess> {
    let stored = stored_install_config(doc).and_then(|config| {
        let name = config
            .get("controlPlane")?
            .get("architecture")?
            .as_str()?
            .to_string();
        let arch = name.parse::<crate::Arch>().ok()?;
        Some(ArchGuess {
            control_plane: arch.to_string(),
            from: format!("controlPlane.architecture in {CLUSTER_CONFIG}"),
        })
    });
    if stored.is_some() {
        return stored;
    }
    let reference = release_image?;
    if reference.contains('@') {
        return None;
    }
    let tag = reference.rsplit('/').next()?.split_once(':')?.1;
    let suffix = tag.rsplit('-').next()?;
    let control_plane = if suffix == crate::arch::MULTI_SUFFIX {
        suffix.to_string()
    } else {
        suffix.parse::<crate::Arch>().ok()?.to_string()
    };
    Some(ArchGuess {
        control_plane,
        from: format!("the release image tag ({reference})"),
    })
}

/// The mirrored sources of the node's registries.conf (none when it has none, or settings
/// bootgen does not read).
pub fn mirrors_of(doc: &IgnitionDoc) -> Vec<MirrorSummary> {
    let Some(text) = file_text(doc, REGISTRIES_CONF) else {
        return Vec::new();
    };
    parse_registries_conf(&text)
        .unwrap_or_default()
        .into_iter()
        .filter(|r| !r.mirrors.is_empty())
        .map(|r| MirrorSummary {
            source: r.location,
            mirrors: r.mirrors.into_iter().map(|m| m.location).collect(),
            blocked: r.blocked,
        })
        .collect()
}

/// The configs Ignition fetches first: `ignition.config.replace`, then each `merge`.
pub fn fetches_of(doc: &IgnitionDoc) -> Vec<FetchSummary> {
    let entry = |how: &'static str, value: &Value| {
        value
            .get("source")
            .and_then(Value::as_str)
            .map(|source| FetchSummary {
                how,
                // A URL may carry credentials (`https://user:token@host/...`).
                source: Redact::WithDigest.inline(source),
                verified: value
                    .pointer("/verification/hash")
                    .and_then(Value::as_str)
                    .is_some(),
            })
    };
    let replace = doc
        .value
        .pointer("/ignition/config/replace")
        .and_then(|v| entry("replace", v));
    let merges = doc
        .value
        .pointer("/ignition/config/merge")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| entry("merge", v));
    replace.into_iter().chain(merges).collect()
}

/// bootkube's stages, in run order, from the table in bootgen's `bootkube-stages.sh`.
pub fn bootkube_stages(doc: &IgnitionDoc) -> Vec<String> {
    let Some(text) = file_text(doc, BOOTKUBE_STAGES) else {
        return Vec::new();
    };
    let Some((_, table)) = text.split_once("cat <<'EOF'\n") else {
        return Vec::new();
    };
    table
        .lines()
        .take_while(|l| *l != "EOF")
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .collect()
}

/// The disk a single-node (bootstrap-in-place) config installs to, from its install-to-disk.sh:
/// bootgen's `INSTALLATION_DISK=` line, or the installer's `coreos-installer install` line.
pub fn installation_disk(doc: &IgnitionDoc) -> Option<String> {
    let text = file_text(doc, INSTALL_TO_DISK)?;
    if let Some(value) = text
        .lines()
        .find_map(|l| l.strip_prefix("INSTALLATION_DISK="))
    {
        return Some(value.trim().trim_matches('\'').to_string());
    }
    text.lines()
        .find(|l| l.trim_start().starts_with("coreos-installer install"))
        .and_then(|l| l.split_whitespace().last())
        .map(|d| d.trim_matches(['\'', '"']).to_string())
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

const BOOTKUBE_STAGES: &str = "/usr/local/bin/bootkube-stages.sh";
const INSTALL_TO_DISK: &str = "/usr/local/bin/install-to-disk.sh";

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
                size: size as u64,
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
            has_contents: u.contents.is_some(),
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
        contents_size: files.iter().map(|f| f.size).sum(),
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

fn yes_no(value: bool) -> &'static str {
    if value {
        "yes"
    } else {
        "no"
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Ignition spec {}: {} files ({} decoded), {} directories, {} links, {} units, {} users",
            self.version,
            self.files.len(),
            human_size(self.contents_size),
            self.directories,
            self.links,
            self.units.len(),
            self.users.len()
        )?;
        if let Some(release) = &self.release {
            let name = self.distribution.unwrap_or_default().label();
            writeln!(
                f,
                "made for {name} {} (from {})",
                release.version, release.from
            )?;
        }
        if let Some(image) = &self.release_image {
            writeln!(f, "release image {image}")?;
        }
        if let Some(arch) = &self.architecture {
            writeln!(
                f,
                "architecture {} (control plane, from {})",
                arch.control_plane, arch.from
            )?;
        }
        if let Some(platform) = &self.platform {
            writeln!(f, "platform {platform} (from {CLUSTER_CONFIG})")?;
        }
        if let (None, Some(distribution)) = (&self.release, self.distribution) {
            writeln!(f, "made for {}", distribution.label())?;
        }
        for mirror in &self.mirrors {
            writeln!(
                f,
                "mirror: {} from {}{}",
                mirror.source,
                mirror.mirrors.join(", "),
                if mirror.blocked {
                    " (source never contacted)"
                } else {
                    ""
                }
            )?;
        }
        for fetch in &self.fetches {
            writeln!(
                f,
                "pointer config: Ignition fetches {} and {}{}",
                fetch.source,
                if fetch.how == "merge" {
                    "merges it into this config"
                } else {
                    "replaces this config with it"
                },
                if fetch.verified {
                    ", checked by its hash"
                } else {
                    ""
                }
            )?;
        }
        if self.trusted_cas > 0 {
            writeln!(
                f,
                "Ignition trusts {} CA certificate(s) for its fetches (the certificate report lists them)",
                self.trusted_cas
            )?;
        }
        if let Some(disk) = &self.installation_disk {
            writeln!(
                f,
                "single node (bootstrap in place): boots the live ISO, then installs itself to {disk}"
            )?;
        }
        if !self.bootkube_stages.is_empty() {
            writeln!(f, "bootkube stages: {}", self.bootkube_stages.join(" → "))?;
        }
        if !self.networks.is_empty() {
            writeln!(f, "\nnetwork (NetworkManager keyfiles):")?;
            writeln!(
                f,
                "  {:<12} {:<17} {:<10} {:<36} {:<20} DNS",
                "HOST", "INTERFACE/MAC", "TYPE", "ADDRESSES", "GATEWAYS"
            )?;
            for network in &self.networks {
                writeln!(f, "  {network}")?;
            }
        }
        if !self.users.is_empty() {
            writeln!(f, "\nusers:")?;
            for user in &self.users {
                writeln!(
                    f,
                    "  {:<12} {} SSH key(s), password {}",
                    user.name,
                    user.ssh_keys,
                    if user.password { "set" } else { "not set" }
                )?;
            }
        }
        if !self.files.is_empty() {
            writeln!(f, "\nfiles:")?;
            writeln!(
                f,
                "  {:<5} {:>10}  {:<16} {:<21} PATH",
                "MODE", "SIZE", "WRITE", "KIND"
            )?;
            for file in &self.files {
                let mode = file
                    .mode
                    .map_or_else(|| "-".to_string(), |m| format!("{m:04o}"));
                let kind = if file.compressed {
                    format!("{} (gz)", file.kind)
                } else {
                    file.kind.to_string()
                };
                writeln!(
                    f,
                    "  {mode:<5} {:>10}  {:<16} {kind:<21} {}",
                    human_size(file.size),
                    file.write,
                    file.path
                )?;
            }
        }
        if !self.units.is_empty() {
            writeln!(f, "\nunits:")?;
            writeln!(
                f,
                "  {:<40} {:<8} {:<6} {:<5} {:<9} DROP-INS",
                "NAME", "ENABLED", "MASKED", "HELD", "CONTENTS"
            )?;
            for unit in &self.units {
                let enabled = unit.enabled.map_or("-", yes_no);
                let dropins = if unit.dropins.is_empty() {
                    "-".to_string()
                } else {
                    unit.dropins.join(", ")
                };
                writeln!(
                    f,
                    "  {:<40} {enabled:<8} {:<6} {:<5} {:<9} {dropins}",
                    unit.name,
                    yes_no(unit.masked),
                    yes_no(unit.held),
                    yes_no(unit.has_contents)
                )?;
            }
        }
        write!(f, "\n{}", self.budget)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summarizes_files_units_users_and_budget() {
        let doc = IgnitionDoc {
            value: json!({
                "ignition": {"version": "3.2.0"},
                "passwd": {"users": [{"name": "core", "sshAuthorizedKeys": ["ssh-ed25519 AAAA a"]}]},
                "storage": {"files": [
                    {"path": "/usr/local/bin/a.sh", "mode": 493, "overwrite": true,
                     "contents": {"source": "data:,%23!%2Fbin%2Fsh%0A"}},
                    {"path": "/etc/motd", "append": [{"source": "data:,hi"}]},
                    {"path": "/etc/remote", "contents": {"source": "https://example.com/x"}}
                ]},
                "systemd": {"units": [
                    {"name": "a.service", "enabled": false, "contents": "[Unit]\n",
                     "dropins": [{"name": HOLD_DROPIN, "contents": "[Unit]\n"}]},
                    {"name": "b.service", "mask": true}
                ]}
            }),
        };
        let summary = summarize(&doc, &[b' '; 500]).unwrap();
        assert_eq!(summary.files[0].kind, FileKind::Script);
        assert_eq!(summary.files[0].write, "overwrite");
        assert_eq!(summary.files[1].write, "append");
        assert_eq!(summary.files[2].kind, FileKind::Remote);
        assert!(summary.units[0].held && !summary.units[0].masked);
        assert!(summary.units[1].masked);
        assert_eq!(summary.users[0].ssh_keys, 1);
        let text = summary.to_string();
        assert!(text.contains("0755"), "{text}");
        assert!(text.contains("10-bootgen-hold.conf"), "{text}");
        assert!(text.contains("size budget"), "{text}");
    }
}
