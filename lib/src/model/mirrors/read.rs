//! Reading the install-config's mirror entries as the release's installer reads them: each
//! repository checked, `sourcePolicy` read where that installer knows it, and the entries kept
//! as written beside registries.conf's merged tables.

use super::entry::{MirrorEntry, SourceContact};
use super::merge::{merge_entries, Merged};
use super::{MirrorKind, Mirrors};
use crate::config::{display_path, ImageSource, LoadedConfig, Warning};
use crate::error::Result;
use crate::release::{Profile, Switch, Switches};

impl Mirrors {
    /// The install-config's mirrors, each repository checked. `sourcePolicy` is read as the
    /// release's installer reads it: where it knows the field; older installers warn and
    /// ignore it, and so does bootgen (the source stays reachable).
    pub(crate) fn read(
        loaded: &LoadedConfig,
        profile: &Profile,
        switches: &Switches,
        warnings: &mut Vec<Warning>,
    ) -> Result<Mirrors> {
        let ic = &loaded.config;
        if !ic.image_content_sources.is_empty()
            && !ic.image_digest_sources.is_empty()
            && switches.has(Switch::OneMirrorList)
        {
            return Err(loaded.field_error("imageContentSources", "cannot be used together with imageDigestSources; move the entries to imageDigestSources"));
        }
        // Before 4.14 the installer does not know imageDigestSources.
        let digest_sources_known = switches.has(Switch::InstallConfigDigestSources);
        if !digest_sources_known && !ic.image_digest_sources.is_empty() {
            super::super::unknown_fields::ignored_by_release(
                loaded,
                profile.minor,
                &super::super::unknown_fields::NotInRelease {
                    field: "imageDigestSources",
                    arrived: crate::release::first_with(Switch::InstallConfigDigestSources),
                    consequence: ", so the cluster gets no mirrors from it; write the entries under imageContentSources for this release",
                },
                warnings,
            );
        }
        // The installer change that reads imageDigestSources deprecates imageContentSources.
        if digest_sources_known && !ic.image_content_sources.is_empty() {
            warnings.push(loaded.warning(
                "imageContentSources",
                format!(
                    "deprecated{}: write the same entries under imageDigestSources (the cluster \
                     then gets an ImageDigestMirrorSet instead of an ImageContentSourcePolicy)",
                    crate::release::first_with(Switch::InstallConfigDigestSources)
                        .map_or_else(String::new, |minor| format!(" from {minor}"))
                ),
            ));
        }
        let (list, field, kind): (&[ImageSource], _, _) = if !ic.image_content_sources.is_empty() {
            (
                &ic.image_content_sources,
                "imageContentSources",
                MirrorKind::ImageContentSourcePolicy,
            )
        } else if digest_sources_known {
            (
                &ic.image_digest_sources,
                "imageDigestSources",
                MirrorKind::ImageDigestMirrorSet,
            )
        } else {
            (&[], "imageDigestSources", MirrorKind::ImageDigestMirrorSet)
        };
        let reader = EntryReader {
            loaded,
            profile,
            switches,
            field,
            kind,
        };
        let mut entries = Vec::new();
        for (i, written) in list.iter().enumerate() {
            entries.push(reader.entry(i, written, warnings)?);
        }
        let merged = merge_entries(&entries);
        check_tables_of_one_source(loaded, field, &entries, &merged, warnings)?;
        let kind = (!entries.is_empty()).then_some(kind);
        Ok(Mirrors {
            entries,
            registries: merged.into_iter().map(|m| m.registry).collect(),
            kind,
        })
    }
}

/// What reading one entry needs.
struct EntryReader<'a> {
    loaded: &'a LoadedConfig,
    profile: &'a Profile,
    switches: &'a Switches,
    /// `imageContentSources` or `imageDigestSources`.
    field: &'static str,
    kind: MirrorKind,
}

impl EntryReader<'_> {
    /// Entry `i` as the release's installer reads it.
    fn entry(
        &self,
        i: usize,
        written: &ImageSource,
        warnings: &mut Vec<Warning>,
    ) -> Result<MirrorEntry> {
        let (loaded, field) = (self.loaded, self.field);
        let repository = |path: String, value: &str, warnings: &mut Vec<Warning>| {
            check_entry_repository(loaded, self.switches, self.profile, &path, value, warnings)
        };
        repository(format!("{field}.{i}.source"), &written.source, warnings)?;
        for (j, mirror) in written.mirrors.iter().enumerate() {
            repository(format!("{field}.{i}.mirrors.{j}"), mirror, warnings)?;
        }
        let entry = |source_policy| MirrorEntry {
            source: written.source.clone(),
            mirrors: written.mirrors.clone(),
            source_policy,
        };
        let Some(policy) = written.source_policy.as_deref() else {
            return Ok(entry(None));
        };
        let policy_field = format!("{field}.{i}.sourcePolicy");
        // The installer's imageContentSources entries have no such field: it ignores the key
        // (refuses it from 4.22, as it does every unknown key), so the source would not be
        // blocked as the user meant.
        if self.kind == MirrorKind::ImageContentSourcePolicy {
            return Err(loaded.field_error(
                &policy_field,
                "imageContentSources entries have no sourcePolicy (the installer ignores it \
                 there, so the source would still be contacted): it is a setting of \
                 imageDigestSources entries, from 4.14; move the entries there",
            ));
        }
        if !self.switches.has(Switch::InstallConfigSourcePolicy) {
            warnings.push(loaded.warning(
                &policy_field,
                format!(
                    "ignored: OpenShift {}'s installer does not know this field{}, so the cluster may still contact `{}`; block the source with bootgen's own source blocking instead (ImageDigestMirrorSet releases{})",
                    self.profile.minor,
                    super::super::unknown_fields::arrived_text(crate::release::first_with(
                        Switch::InstallConfigSourcePolicy
                    )),
                    written.source,
                    crate::release::first_with(Switch::ImageDigestMirrorSet)
                        .map_or_else(String::new, |minor| format!(", {minor} on"))
                ),
            ));
            return Ok(entry(None));
        }
        if written.mirrors.is_empty() {
            return Err(loaded.field_error(
                &policy_field,
                format!("`{policy}` cannot be configured without a mirror: give the entry mirrors, or remove sourcePolicy"),
            ));
        }
        match SourceContact::parse(policy) {
            Some(contact) => Ok(entry(Some(contact))),
            None => Err(loaded.field_error(
                &policy_field,
                format!("`{policy}` must be AllowContactingSource or NeverContactSource"),
            )),
        }
    }
}

/// A source given with more than one `sourcePolicy` gets a registries.conf table per policy,
/// as the installer writes them, all at the same location. podman and CRI-O refuse the whole
/// file when one such table is blocked and another is not, so that is refused here, naming
/// both entries; when none is blocked they read the first table's mirrors only, so a later
/// table's other mirrors are named in a warning.
fn check_tables_of_one_source(
    loaded: &LoadedConfig,
    field: &str,
    entries: &[MirrorEntry],
    merged: &[Merged],
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    let said = |index: usize| {
        entries[index].source_policy.map_or_else(
            || "no sourcePolicy".to_string(),
            |p| format!("sourcePolicy {}", p.as_str()),
        )
    };
    for (at, later) in merged.iter().enumerate() {
        let location = &later.registry.location;
        let Some(first) = merged[..at]
            .iter()
            .find(|m| &m.registry.location == location)
        else {
            continue;
        };
        let (i, j) = (first.first_entry, later.first_entry);
        let here = format!("{field}.{j}.sourcePolicy");
        let also = format!(
            "`{location}` is also given by {} with {}, and this entry has {}",
            display_path(&format!("{field}.{i}.sourcePolicy")),
            said(i),
            said(j)
        );
        if first.registry.blocked != later.registry.blocked {
            return Err(loaded.field_error(
                &here,
                format!(
                    "{also}: the installer writes a registries.conf table for each, one blocked and one not, and podman and CRI-O refuse such a file whole (the registry is defined multiple times with conflicting 'blocked' setting), so the bootstrap node could pull no image; give every entry of `{location}` the same sourcePolicy"
                ),
            ));
        }
        let unused: Vec<&str> = later
            .registry
            .mirrors
            .iter()
            .filter(|m| !first.registry.mirrors.contains(m))
            .map(|m| m.location.as_str())
            .collect();
        if !unused.is_empty() {
            warnings.push(loaded.warning(
                &here,
                format!(
                    "{also}: the installer writes a registries.conf table for each (to it, an explicit AllowContactingSource differs from none), and podman and CRI-O on the bootstrap node use the first table's mirrors only, never trying {}; give every entry of `{location}` the same sourcePolicy",
                    unused.join(", "),
                ),
            ));
        }
    }
    Ok(())
}

/// Checks a mirror entry's source or mirror as the release's installer does. A registry host
/// alone is refused before 4.10 (not a canonical repository name), then checked as a host; a
/// single label then is accepted, with a warning: podman and CRI-O read a name without a dot
/// or port as a Docker Hub repository.
fn check_entry_repository(
    loaded: &LoadedConfig,
    switches: &Switches,
    profile: &Profile,
    field: &str,
    value: &str,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    if value.contains('/') || value.is_empty() {
        return crate::release::check_repository(value).map_err(|m| loaded.field_error(field, m.0));
    }
    if !switches.has(Switch::MirrorBareHost) {
        return Err(loaded.field_error(
            field,
            format!(
                "`{}` is a registry host without a repository, which OpenShift {}'s installer refuses (repository name must be canonical{}): name a repository on it, such as {value}/ocp/release",
                crate::release::without_credentials(value),
                profile.minor,
                crate::release::first_with(Switch::MirrorBareHost)
                    .map_or_else(String::new, |minor| format!("; accepted from {minor}"))
            ),
        ));
    }
    crate::release::check_registry_host(value).map_err(|m| loaded.field_error(field, m.0))?;
    let (name, _) = value.split_once(':').unwrap_or((value, ""));
    if !value.contains(':') && !name.contains('.') && name != "localhost" {
        warnings.push(loaded.warning(
            field,
            format!("`{value}` has no dot and no port: the installer accepts it, but podman and CRI-O on the nodes read such a name as a Docker Hub repository (docker.io/library/{value}), so pulls through it go there; write the host with its domain or its port"),
        ));
    }
    Ok(())
}
