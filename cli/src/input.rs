//! Reading what the user names on the command line: a config file, `-` for standard input, or
//! an output directory (its `bootstrap.ign`). Every command reads its configs through here.

use bootgen::ignition::IgnitionDoc;
use std::io::Read;
use std::path::Path;

/// True for `-`: standard input or output.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Refuses `-o -` (standard output) for an output that is no single stream of bytes: `what`
/// says what the command writes, `instead` what to give.
pub fn refuse_stdout(output: &Path, what: &str, instead: &str) -> anyhow::Result<()> {
    if is_stdio(output) {
        anyhow::bail!(
            "-o -: this command writes {what}, which standard output cannot take; give {instead}"
        );
    }
    Ok(())
}

/// Reads a config from a file or `-` (standard input); returns its bytes and display name.
pub fn read_config(path: &Path) -> anyhow::Result<(Vec<u8>, String)> {
    if is_stdio(path) {
        let bytes = bootgen::config::read_stream_at_most(
            std::io::stdin(),
            bootgen::config::IGNITION_CONFIG_LIMIT,
            "<stdin>",
        )?;
        return Ok((bytes, "<stdin>".into()));
    }
    // A file of an output directory whose last write was cut short may be old or new: refuse it
    // rather than report on a mix.
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    refuse_interrupted(path, dir)?;
    if let Some(media) = read_media(path)? {
        let config = media.config.ok_or_else(|| {
            anyhow::anyhow!("{}: the image holds no embedded config", path.display())
        })?;
        return Ok((config.bytes, config.name));
    }
    let bytes = bootgen::config::read_at_most(path, bootgen::config::IGNITION_CONFIG_LIMIT)?;
    Ok((bytes, path.display().to_string()))
}

/// What a live ISO or a PXE initramfs carries.
pub struct Media {
    /// The embedded config (the installed system's, for an image that installs itself).
    pub config: Option<bootgen::ignition::read::EmbeddedConfig>,
    /// The live kernel arguments and the image's own, for an ISO that has kargs areas.
    pub kargs: Option<(String, String)>,
    /// The archive's members.
    pub members: Vec<String>,
    /// An ISO rather than an initramfs.
    pub is_iso: bool,
}

impl Media {
    /// What the image carries besides its config's contents, a line each: the archive's
    /// files, the live kernel arguments, the install target, the config read.
    pub fn summary(&self) -> String {
        let kind = if self.is_iso {
            "live ISO"
        } else {
            "PXE initramfs"
        };
        let members = if self.members.is_empty() {
            "nothing".to_string()
        } else {
            self.members.join(", ")
        };
        let mut text = format!("{kind}: embedded {members}\n");
        if let Some((now, default)) = &self.kargs {
            let own = if now == default {
                " (the image's own)"
            } else {
                ""
            };
            text.push_str(&format!("kernel arguments: {now}{own}\n"));
        }
        match self.config.as_ref().and_then(|c| c.installs_to.as_deref()) {
            Some(device) => text.push_str(&format!(
                "installs to: {device} (without asking, then reboots)\n"
            )),
            None if self.config.is_some() => {
                text.push_str("installs: nothing (the config is the live system's)\n")
            }
            None => {}
        }
        if let Some(installer) = self
            .config
            .as_ref()
            .and_then(|c| c.installer_config.as_deref())
        {
            for line in installer.lines() {
                text.push_str(&format!("installer config: {line}\n"));
            }
        }
        if let Some(config) = &self.config {
            // The member, not the image's path: two images compare by what they hold.
            let inner = if config.name.ends_with(bootgen::media::DEST_CONFIG) {
                bootgen::media::DEST_CONFIG
            } else {
                bootgen::media::CONFIG_MEMBER
            };
            text.push_str(&format!("config: {inner}\n"));
        }
        text
    }
}

/// Reads `path` as boot media: `None` when it is neither a live ISO (an ISO 9660 volume) nor a
/// file that ends in an xz archive (a PXE initramfs), so a config is read as a config.
pub fn read_media(path: &Path) -> anyhow::Result<Option<Media>> {
    use std::io::{Seek, SeekFrom};
    let Ok(mut file) = std::fs::File::open(path) else {
        return Ok(None);
    };
    let name = path.display().to_string();
    let mut magic = [0u8; 5];
    let is_iso = file
        .seek(SeekFrom::Start(32769))
        .and_then(|_| file.read_exact(&mut magic))
        .is_ok()
        && &magic == b"CD001";
    let (members, kargs) = if is_iso {
        let iso = bootgen::media::LiveIso::read(&mut file, &name)?;
        let kargs = iso
            .kargs()
            .zip(iso.default_kargs())
            .map(|(now, default)| (now.to_string(), default.to_string()));
        (iso.members().clone(), kargs)
    } else {
        let mut first = [0u8; 1];
        let looks_binary = file
            .seek(SeekFrom::Start(0))
            .and_then(|_| file.read_exact(&mut first))
            .is_ok()
            && !first[0].is_ascii_whitespace()
            && first[0] != b'{';
        if !looks_binary {
            return Ok(None);
        }
        match bootgen::media::initramfs_members(&mut file, &name)? {
            Some(members) => (members, None),
            None => return Ok(None),
        }
    };
    let config = bootgen::ignition::read::embedded_config(&members, &name)?;
    Ok(Some(Media {
        config,
        kargs,
        members: members.keys().cloned().collect(),
        is_iso,
    }))
}

/// An error when `dir` holds the record of a write that was killed before it finished: its
/// files may be a mix of old and new, so `path` is not read.
pub fn refuse_interrupted(path: &Path, dir: &Path) -> anyhow::Result<()> {
    if bootgen::output::interrupted(dir) {
        anyhow::bail!(
            "{}: a bootgen run writing {} was killed before it finished (it has {}); run `bootgen recover {}` to complete that write",
            path.display(),
            dir.display(),
            bootgen::output::COMMIT_RECORD,
            dir.display()
        );
    }
    Ok(())
}

/// Reads and parses a config named on the command line; a directory means its `bootstrap.ign`.
pub fn load(input: &Path) -> anyhow::Result<(Vec<u8>, IgnitionDoc)> {
    let (bytes, name) = read_path(input)?;
    let doc = IgnitionDoc::parse(&bytes, &name)?;
    Ok((bytes, doc))
}

/// Reads a config named on the command line (a directory means its `bootstrap.ign`) without
/// parsing it; returns its bytes and display name.
pub fn read_path(input: &Path) -> anyhow::Result<(Vec<u8>, String)> {
    read_config(&config_path(input))
}

/// The config file a command-line argument names: a directory means its `bootstrap.ign` (or a
/// single node's live-ISO config), anything else itself.
pub fn config_path(input: &Path) -> std::path::PathBuf {
    if input.is_dir() {
        // A single node's output directory holds the live-ISO config instead.
        let live_iso = input.join(bootgen::LIVE_ISO_CONFIG);
        if live_iso.exists() && !input.join(bootgen::BOOTSTRAP_CONFIG).exists() {
            live_iso
        } else {
            input.join(bootgen::BOOTSTRAP_CONFIG)
        }
    } else {
        input.to_path_buf()
    }
}
