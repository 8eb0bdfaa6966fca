//! Each host of a hosts file's media, beside its role's: an install ISO, and a PXE initramfs
//! with entries that share the role's kernel and rootfs; both carry the host's keyfiles.

use bootgen::media::{Customization, Install, LiveIso};
use bootgen::model::Arch;
use std::path::{Path, PathBuf};

/// One host's medium: its role's config with its own network (`host_customizations`).
#[derive(Clone)]
pub(super) struct HostMedium {
    pub(super) host: String,
    /// `master` or `worker`: the PXE set whose kernel and rootfs the host's entries share.
    pub(super) role: &'static str,
    pub(super) arch: Option<Arch>,
    pub(super) customization: Customization,
}

/// Refuses an ISO for another architecture than a host's role.
pub(super) fn check_hosts_arch(iso: &LiveIso, hosts: &[HostMedium]) -> anyhow::Result<()> {
    for host in hosts {
        if let Some(arch) = host.arch {
            iso.check_arch(
                arch,
                &format!("{}/{}.ign", bootgen::output::HOSTS_DIR, host.host),
            )?;
        }
    }
    Ok(())
}

/// Each control-plane and compute host's install ISO: its own config (`hosts/HOST.ign`: the
/// role's pointer config with its keyfiles and name), installed to its `rootDeviceHints`'
/// `deviceName` or else `--dest-device`, and its keyfiles in the live initrd's first-boot
/// network, copied to the installed system, whose first boot must reach the machine-config
/// server before any keyfile from its config is on disk.
pub(super) fn host_customizations(
    hosts: &bootgen::network::Hosts,
    files: &[bootgen::output::OutputFile],
    arch: &bootgen::ArchitectureRecord,
    dest_device: Option<&str>,
) -> anyhow::Result<Vec<HostMedium>> {
    use bootgen::network::Role;
    let mut planned = Vec::new();
    for host in &hosts.hosts {
        let (role, role_arch) = match host.role {
            Some(Role::Master) => ("master", arch.control_plane.as_str()),
            Some(Role::Worker) => (
                "worker",
                arch.compute
                    .get("worker")
                    .map_or(arch.control_plane.as_str(), String::as_str),
            ),
            Some(Role::Bootstrap) | None => continue,
        };
        let relative = format!("{}/{}.ign", bootgen::output::HOSTS_DIR, host.hostname);
        let Some(file) = files.iter().find(|f| f.relative == relative) else {
            continue;
        };
        let hinted = host
            .root_device_hints
            .as_ref()
            .and_then(|hints| hints.device_name.as_deref());
        let Some(device) = hinted.or(dest_device) else {
            anyhow::bail!(
                "{}: host `{}` has no rootDeviceHints.deviceName, and no --dest-device was given: its ISO installs itself to a disk",
                hosts.source_name,
                host.hostname
            );
        };
        let customization = Customization {
            install: Some(Install {
                dest_device: device.to_string(),
                dest_config: file.contents.clone(),
                ..Install::default()
            }),
            network_keyfiles: bootgen::network::host_keyfiles(host)
                .into_iter()
                .map(|(name, contents)| (name, contents.into_bytes()))
                .collect(),
            ..Customization::default()
        };
        planned.push(HostMedium {
            host: host.hostname.clone(),
            role,
            arch: role_arch.parse::<Arch>().ok(),
            customization,
        });
    }
    Ok(planned)
}

/// A host's PXE entries in `dir/hosts/`: `HOST-initrd.img` (the ISO's initramfs with the host's
/// archive appended), `HOST.ipxe` and `HOST-grub.cfg`, which boot its role's kernel and rootfs
/// from `dir`, so each host adds only its initramfs. Returns the iPXE script's path.
pub(super) fn write_host_pxe(
    iso_path: &Path,
    iso: &LiveIso,
    host: &HostMedium,
    dir: &Path,
    base_url: &str,
) -> anyhow::Result<PathBuf> {
    use std::io::{Read, Seek, SeekFrom, Write};
    let iso_name = iso_path.display().to_string();
    let archive = bootgen::media::pxe_archive(&host.customization, iso.features(), &iso_name)?;
    let mut file = std::fs::File::open(iso_path)
        .map_err(|e| bootgen::Error::io("cannot read", iso_path, e))?;
    let initrd_path = "/images/pxeboot/initrd.img";
    let area = iso
        .file_area(&mut file, initrd_path)?
        .ok_or_else(|| bootgen::Error::Media {
            file: iso_name.clone(),
            area: initrd_path.to_string(),
            message: "the ISO has no such file, which a PXE set needs".into(),
        })?;
    // The caller made `dir/hosts` below the output directory, through no link.
    let hosts_dir = dir.join(bootgen::output::HOSTS_DIR);
    let initrd = format!(
        "{}/{}{}",
        bootgen::output::HOSTS_DIR,
        host.host,
        bootgen::media::INITRD_SUFFIX
    );
    bootgen::output::write_streamed(
        &dir.join(&initrd),
        bootgen::output::CONFIG_MEDIA_MODE,
        true,
        |out| {
            file.seek(SeekFrom::Start(area.offset))?;
            std::io::copy(&mut (&mut file).take(area.length), out)?;
            out.write_all(&archive)
        },
    )?;
    let files = bootgen::media::PxeFiles {
        kernel: format!("{}{}", host.role, bootgen::media::KERNEL_SUFFIX),
        initrd,
        rootfs: format!("{}{}", host.role, bootgen::media::ROOTFS_SUFFIX),
    };
    let entries = bootgen::media::boot_entries_for(&host.host, base_url, &files, &[]);
    let ipxe = hosts_dir.join(format!("{}{}", host.host, bootgen::media::IPXE_SUFFIX));
    bootgen::output::write_atomic(&ipxe, entries.ipxe.as_bytes(), 0o644)?;
    let grub = hosts_dir.join(format!("{}{}", host.host, bootgen::media::GRUB_SUFFIX));
    bootgen::output::write_atomic(&grub, entries.grub.as_bytes(), 0o644)?;
    Ok(ipxe)
}

/// One line a host after a run: the files it boots from (its config, and its media when this
/// run wrote them), the disk its install media install to, and its addresses.
/// `config` is the config a bootstrap host (or a single node's host) boots with, `disk` the
/// disk the role media install to (a single node's installation disk).
pub fn host_summary(
    hosts: &bootgen::network::Hosts,
    output: &Path,
    wrote: &std::collections::BTreeSet<String>,
    config: &str,
    disk: Option<&str>,
) -> Vec<String> {
    use bootgen::network::Role;
    let mut lines = Vec::new();
    for host in &hosts.hosts {
        // A host's own media install to its deviceName; the role media (the bootstrap's, a
        // single node's) install to the role's disk whatever the host's hints say.
        let (role, own_media, candidates) = match host.role {
            Some(Role::Master) | Some(Role::Worker) if config != bootgen::LIVE_ISO_CONFIG => (
                host.role.map_or("master", Role::name),
                true,
                vec![
                    format!("{}/{}.ign", bootgen::output::HOSTS_DIR, host.hostname),
                    format!("media/{}/{}.iso", bootgen::output::HOSTS_DIR, host.hostname),
                    format!(
                        "media/pxe/{}/{}.ipxe",
                        bootgen::output::HOSTS_DIR,
                        host.hostname
                    ),
                ],
            ),
            _ => {
                let stem = config.trim_end_matches(".ign");
                (
                    host.role.map_or("master", Role::name),
                    false,
                    vec![
                        config.to_string(),
                        format!("media/{stem}.iso"),
                        format!("media/pxe/{stem}.ipxe"),
                    ],
                )
            }
        };
        let files: Vec<String> = candidates
            .iter()
            .filter(|f| wrote.contains(f.as_str()))
            .map(|f| output.join(f).display().to_string())
            .collect();
        let installs = files.iter().any(|f| f.contains("/media/"));
        let hinted = host
            .root_device_hints
            .as_ref()
            .and_then(|hints| hints.device_name.as_deref())
            .filter(|_| own_media);
        let disk = match hinted.or(disk) {
            Some(device) if installs => format!("disk {device}"),
            _ => "no install media".to_string(),
        };
        let addresses: Vec<String> = host
            .network
            .interfaces
            .iter()
            .flat_map(|i| {
                i.addresses
                    .iter()
                    .map(move |a| format!("{}/{} on {}", a.ip, a.prefix, i.name))
            })
            .collect();
        let addresses = if addresses.is_empty() {
            "DHCP".to_string()
        } else {
            addresses.join(", ")
        };
        let files = if files.is_empty() {
            "no file of its own".to_string()
        } else {
            files.join(", ")
        };
        lines.push(format!(
            "host {} ({role}): {files}; {disk}; {addresses}",
            host.hostname
        ));
    }
    lines
}
