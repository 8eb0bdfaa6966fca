//! Boot media: a CoreOS live ISO with a config embedded (`bootgen iso`), and the PXE set
//! (`bootgen pxe`). Pure byte work on `Read + Seek` and `Write + Seek`: no mounting, no other
//! tool. The formats are coreos-installer's (its `docs/iso-embed-ignition.md`): the embed area
//! found through the ISO 9660 tree, an xz-compressed newc cpio holding `config.ign` in it, the
//! kernel-argument areas rewritten in place.
//!
//! [`LiveIso::read`] finds the areas and what they hold; [`LiveIso::plan`] checks a
//! [`Customization`] against them (customized before, features, architecture, size) and gives
//! the [`Patch`]: the few byte runs to write, applied in place or to a copy.

mod archive;
mod areas;
mod disk_choice;
mod install;
mod iso9660;
mod pxe;
mod settings;

pub use archive::{Members, MAX_UNPACKED};
use areas::KargsAreas;
pub use areas::{Area, Features};
pub use disk_choice::{
    choose_unit_text, installer_dropin_text, InstallDisk, RootDeviceHints, CHOOSE_SCRIPT,
    CHOOSE_SCRIPT_TEXT, CHOOSE_UNIT, CHOSEN_CONFIG, HINTS_FILE, INSTALLER_DROPIN,
};
pub use install::{Install, DEST_CONFIG, INSTALLER_CONFIG};
pub use pxe::{
    boot_entries, boot_entries_for, initramfs_members, pxe_archive, BootEntries, PxeFiles,
    GRUB_SUFFIX, HOST_SET_SUFFIXES, INITRD_SUFFIX, IPXE_SUFFIX, KERNEL_SUFFIX, PXE_FILES,
    ROLE_SET_SUFFIXES, ROOTFS_SUFFIX,
};
pub use settings::{
    check_base_url, check_console, check_device_path, check_entry_name, check_kernel_argument,
};

use crate::arch::Arch;
use crate::error::{Error, Result};
use std::io::{Read, Seek, SeekFrom, Write};

/// The member of the embedded archive the live system's Ignition reads.
pub const CONFIG_MEMBER: &str = "config.ign";
/// Where the live initrd reads NetworkManager keyfiles from, in the archive.
pub const NETWORK_DIR: &str = "etc/coreos-firstboot-network";

/// Builds an [`Error::Media`].
pub(crate) fn fault(file: &str, area: &str, message: impl Into<String>) -> Error {
    Error::Media {
        file: file.to_string(),
        area: area.to_string(),
        message: message.into(),
    }
}

/// What to put into an image.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Customization {
    /// The live system's own config (a single node's `bootstrap-in-place-for-live-iso.ign`).
    pub live_config: Option<Vec<u8>>,
    /// Install to a disk with the role's config instead.
    pub install: Option<Install>,
    /// Kernel arguments added to the image's defaults for the live system.
    pub live_karg_append: Vec<String>,
    /// Kernel arguments taken out of the image's defaults for the live system (each must be
    /// there, whole: `quiet`, `console=tty0`).
    pub live_karg_delete: Vec<String>,
    /// NetworkManager keyfiles for the live system (file name, contents), carried to the
    /// installed system when installing.
    pub network_keyfiles: Vec<(String, Vec<u8>)>,
}

impl Customization {
    /// The members of the archive this customization embeds.
    pub fn members(&self, features: Features, file: &str) -> Result<Members> {
        let mut members = Members::new();
        for (name, contents) in &self.network_keyfiles {
            if !features.live_initrd_network {
                return Err(fault(file, "/coreos/features.json", "this image does not read network keyfiles in its live initrd (no live-initrd-network feature)"));
            }
            if name.is_empty() || name.contains('/') || name.starts_with('.') {
                return Err(fault(
                    file,
                    NETWORK_DIR,
                    format!("{name:?} is not a keyfile name"),
                ));
            }
            if members
                .insert(format!("{NETWORK_DIR}/{name}"), contents.clone())
                .is_some()
            {
                return Err(fault(
                    file,
                    NETWORK_DIR,
                    format!("two keyfiles are named {name}"),
                ));
            }
        }
        let config = match (&self.live_config, &self.install) {
            (Some(_), Some(_)) => {
                return Err(fault(
                    file,
                    CONFIG_MEMBER,
                    "a live config and an install to disk cannot share one image",
                ))
            }
            (Some(config), None) => Some(config.clone()),
            (None, Some(install)) => {
                install
                    .check()
                    .map_err(|why| fault(file, INSTALLER_CONFIG, why))?;
                if !features.installer_config {
                    return Err(fault(file, "/coreos/features.json", "this image cannot install itself: it has no installer-config feature (a newer RHCOS or SCOS live ISO has)"));
                }
                if !install.console.is_empty() && !features.installer_config_directives.console {
                    return Err(fault(file, "/coreos/features.json", "this image's installer does not take a console setting (no installer-config-directives console feature)"));
                }
                let mut install = install.clone();
                install.copy_network |= !self.network_keyfiles.is_empty();
                Some(
                    install
                        .live_config()
                        .map_err(|e| fault(file, CONFIG_MEMBER, e.to_string()))?,
                )
            }
            (None, None) => None,
        };
        if let Some(config) = config {
            members.insert(CONFIG_MEMBER.into(), config);
        }
        Ok(members)
    }
}

/// A live ISO's areas and what they hold now.
#[derive(Debug, Clone)]
pub struct LiveIso {
    file: String,
    volume: iso9660::Volume,
    layout: areas::Layout,
    members: Members,
    kargs: Option<String>,
}

impl LiveIso {
    /// Reads the image `file` names; an image that is no CoreOS live ISO is an error.
    pub fn read<R: Read + Seek>(reader: &mut R, file: &str) -> Result<LiveIso> {
        let Some(volume) = iso9660::Volume::open(reader, file)? else {
            return Err(fault(
                file,
                "ISO 9660 volume",
                "not an ISO image (no ISO 9660 volume descriptor at 32 KiB)",
            ));
        };
        let layout = areas::discover(reader, &volume, file)?;
        let area = layout.ignition;
        if area.length > MAX_UNPACKED {
            return Err(fault(
                file,
                &layout.ignition_source,
                format!(
                    "an embed area of {} bytes is larger than any CoreOS image has",
                    area.length
                ),
            ));
        }
        let mut bytes = vec![0; area.length as usize];
        iso9660::read_at(
            reader,
            area.offset,
            &mut bytes,
            file,
            &layout.ignition_source,
        )?;
        let members =
            archive::unpack(&bytes).map_err(|e| fault(file, &layout.ignition_source, e.0))?;
        let kargs = match &layout.kargs {
            Some(k) => Some(read_kargs(reader, k, file)?),
            None => None,
        };
        Ok(LiveIso {
            file: file.to_string(),
            volume,
            layout,
            members,
            kargs,
        })
    }

    /// Where the file at `path` (`/images/pxeboot/vmlinuz`) lies in the image, `None` when the
    /// image has no such file.
    pub fn file_area<R: Read + Seek>(&self, reader: &mut R, path: &str) -> Result<Option<Area>> {
        Ok(self
            .volume
            .find(reader, path, &self.file)?
            .filter(|e| !e.is_dir)
            .map(|e| Area {
                offset: e.offset,
                length: e.length,
            }))
    }

    /// The image's architecture, as its boot files tell (`None` when they do not).
    pub fn arch(&self) -> Option<Arch> {
        self.layout.arch
    }

    /// What the live system supports.
    pub fn features(&self) -> Features {
        self.layout.features
    }

    /// The embed area.
    pub fn ignition_area(&self) -> Area {
        self.layout.ignition
    }

    /// The files the embed area holds now (none on a pristine image).
    pub fn members(&self) -> &Members {
        &self.members
    }

    /// The live kernel arguments now, when the image has kernel-argument areas.
    pub fn kargs(&self) -> Option<&str> {
        self.kargs.as_deref()
    }

    /// The kernel arguments the image shipped with.
    pub fn default_kargs(&self) -> Option<&str> {
        self.layout.kargs.as_ref().map(|k| k.default.as_str())
    }

    /// True when the image holds a config or keyfiles, or kernel arguments not its own.
    pub fn is_customized(&self) -> bool {
        !self.members.is_empty() || self.kargs() != self.default_kargs()
    }

    /// Refuses an image for another architecture than `config_arch`, naming both.
    pub fn check_arch(&self, config_arch: Arch, what: &str) -> Result<()> {
        match self.arch() {
            Some(iso) if iso != config_arch => Err(fault(
                &self.file,
                "boot files",
                format!(
                    "the image boots {} ({}), {what} is for {} ({}); use the live ISO of {}",
                    iso.facts().kernel,
                    iso.facts().go,
                    config_arch.facts().kernel,
                    config_arch.facts().go,
                    config_arch.facts().kernel
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Checks `customization` against the image and gives the bytes to write. A customized
    /// image is refused unless `force`; the kernel arguments start from the image's defaults.
    pub fn plan(&self, customization: &Customization, force: bool) -> Result<Patch> {
        if self.is_customized() && !force {
            return Err(fault(
                &self.file,
                &self.layout.ignition_source,
                format!(
                    "the image is already customized (it holds {}); {} replaces what it holds",
                    self.customized_what(),
                    crate::error::OptionField::Force
                ),
            ));
        }
        let members = customization.members(self.features(), &self.file)?;
        let mut writes = vec![(self.layout.ignition.offset, self.embed_bytes(&members)?)];
        match &self.layout.kargs {
            Some(areas) => {
                let kargs = edit_kargs(&areas.default, customization, &self.file)?;
                writes.extend(kargs_writes(areas, &kargs, &self.file)?);
            }
            None if !(customization.live_karg_append.is_empty()
                && customization.live_karg_delete.is_empty()) =>
            {
                return Err(fault(&self.file, "kargs area", "this image has no kernel-argument areas (no /coreos/kargs.json or coreKarg header) to add live kernel arguments to"));
            }
            None => {}
        }
        Ok(Patch { writes })
    }

    fn customized_what(&self) -> String {
        let mut what: Vec<String> = self.members.keys().cloned().collect();
        if self.kargs() != self.default_kargs() {
            what.push("kernel arguments not its own".into());
        }
        what.join(", ")
    }

    /// The archive of `members` zero-padded to the embed area; preset 9 first, extreme when
    /// that does not fit; too large for both is refused with both sizes and the ways out.
    fn embed_bytes(&self, members: &Members) -> Result<Vec<u8>> {
        let capacity = self.layout.ignition.length;
        let area = &self.layout.ignition_source;
        let mut bytes = Vec::new();
        if !members.is_empty() {
            for effort in [archive::Effort::Preset9, archive::Effort::Extreme] {
                bytes = archive::pack(members, effort)
                    .map_err(|e| fault(&self.file, area, e.to_string()))?;
                if bytes.len() as u64 <= capacity {
                    break;
                }
            }
        }
        if bytes.len() as u64 > capacity {
            return Err(fault(&self.file, area, format!(
                "the config compresses to {} bytes, more than the embed area's {capacity}; embed a pointer config instead (`bootgen pointer` with the config served over HTTPS), or boot the PXE set (`bootgen pxe`), which has no such limit",
                bytes.len())));
        }
        bytes.resize(capacity as usize, 0);
        Ok(bytes)
    }
}

/// The image's default kernel arguments with `customization`'s deleted, then appended; an
/// argument to delete that the defaults do not have is refused, naming them.
fn edit_kargs(default: &str, customization: &Customization, file: &str) -> Result<String> {
    let mut args: Vec<&str> = default.split_whitespace().collect();
    for gone in &customization.live_karg_delete {
        let Some(at) = args.iter().position(|a| *a == gone.trim()) else {
            return Err(fault(
                file,
                "kargs area",
                format!(
                    "the kernel argument {gone:?} to delete is not among the image's: {default}"
                ),
            ));
        };
        args.remove(at);
    }
    for arg in &customization.live_karg_append {
        check_kernel_argument(arg).map_err(|why| fault(file, "kargs area", why))?;
    }
    args.extend(customization.live_karg_append.iter().map(|a| a.trim()));
    Ok(args.join(" "))
}

/// The live kernel arguments, the same in every area or the image is damaged.
fn read_kargs<R: Read + Seek>(reader: &mut R, areas: &KargsAreas, file: &str) -> Result<String> {
    let mut first: Option<String> = None;
    for karea in &areas.areas {
        let mut bytes = vec![0; karea.area.length as usize];
        iso9660::read_at(reader, karea.area.offset, &mut bytes, file, "kargs area")?;
        let text = areas::kargs_text(&bytes, karea.end, karea.pad);
        match &first {
            Some(seen) if *seen != text => {
                return Err(fault(
                    file,
                    "kargs area",
                    format!(
                        "its copies differ (at offset {}: {text:?}, before: {seen:?})",
                        karea.area.offset
                    ),
                ))
            }
            Some(_) => {}
            None => first = Some(text),
        }
    }
    Ok(first.unwrap_or_default())
}

fn kargs_writes(areas: &KargsAreas, kargs: &str, file: &str) -> Result<Vec<(u64, Vec<u8>)>> {
    let kargs = kargs.trim();
    areas
        .areas
        .iter()
        .map(|karea| {
            let length = karea.area.length as usize;
            if kargs.len() >= length {
                return Err(fault(
                    file,
                    "kargs area",
                    format!(
                        "the kernel arguments take {} bytes, more than the area's {length}",
                        kargs.len() + 1
                    ),
                ));
            }
            let mut bytes = vec![karea.pad; length];
            bytes[..kargs.len()].copy_from_slice(kargs.as_bytes());
            bytes[kargs.len()] = karea.end;
            Ok((karea.area.offset, bytes))
        })
        .collect()
}

/// The byte runs that turn the input image into the customized one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    writes: Vec<(u64, Vec<u8>)>,
}

impl Patch {
    /// The runs, by offset.
    pub fn writes(&self) -> &[(u64, Vec<u8>)] {
        &self.writes
    }

    /// Writes every run into `image` (the input itself, or a copy of it), each in one
    /// positioned write.
    pub fn apply<W: Write + Seek>(&self, image: &mut W) -> std::io::Result<()> {
        for (offset, bytes) in &self.writes {
            image.seek(SeekFrom::Start(*offset))?;
            image.write_all(bytes)?;
        }
        image.flush()
    }
}
