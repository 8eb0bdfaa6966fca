//! Each host of a hosts file's media, beside its role's: an install ISO, and a PXE initramfs
//! with entries that share the role's kernel and rootfs; both carry the host's keyfiles and
//! install to the host's disk (its hints, chosen on the node, or `--dest-device`).

use bootgen::media::{Customization, Install, LiveIso};
use bootgen::model::Arch;
use std::path::{Path, PathBuf};

/// One host's medium: its role's config with its own network (`host_customizations`).
#[derive(Clone)]
pub(super) struct HostMedium {
    pub(super) host: String,
    /// `bootstrap`, `master` or `worker`: the PXE set whose kernel and rootfs the host's
    /// entries share.
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

/// Each bootstrap, control-plane and compute host's install medium: its own config (a
/// bootstrap host's is `bootstrap.ign`, which stages every bootstrap host's network; the
/// others' `hosts/HOST.ign`, the role's pointer config with its keyfiles and name), installed
/// to the disk of its `rootDeviceHints` (and `--dest-device`), and its keyfiles in the live
/// initrd's first-boot network, copied to the installed system, whose first boot must reach
/// the machine-config server before any keyfile from its config is on disk.
pub(super) fn host_customizations(
    hosts: &bootgen::network::Hosts,
    files: &[bootgen::output::OutputFile],
    arch: &bootgen::ArchitectureRecord,
    dest_device: Option<&str>,
) -> anyhow::Result<Vec<HostMedium>> {
    use bootgen::network::Role;
    let mut planned = Vec::new();
    for host in &hosts.hosts {
        let (role, role_arch, relative) = match host.role {
            Some(Role::Bootstrap) => (
                "bootstrap",
                arch.bootstrap.as_str(),
                bootgen::BOOTSTRAP_CONFIG.to_string(),
            ),
            Some(Role::Master) => (
                "master",
                arch.control_plane.as_str(),
                format!("{}/{}.ign", bootgen::output::HOSTS_DIR, host.hostname),
            ),
            Some(Role::Worker) => (
                "worker",
                arch.compute
                    .get("worker")
                    .map_or(arch.control_plane.as_str(), String::as_str),
                format!("{}/{}.ign", bootgen::output::HOSTS_DIR, host.hostname),
            ),
            None => continue,
        };
        let Some(file) = files.iter().find(|f| f.relative == relative) else {
            continue;
        };
        let Some(disk) = hosts.install_disk(host, dest_device, "--dest-device")? else {
            anyhow::bail!(
                "{}: host `{}` has no rootDeviceHints, and no --dest-device was given: its media install themselves to a disk; give its rootDeviceHints (serialNumber, wwn, deviceName, ...) or --dest-device",
                hosts.source_name,
                host.hostname
            );
        };
        let customization = Customization {
            install: Some(Install {
                disk,
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
    let area = super::pxe::pxe_file_area(iso, &mut file, initrd_path, &iso_name)?;
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
/// run wrote them), the disk its install media install to (a path, or the hints the node
/// chooses it by), and its addresses. `config` is the config a single node's host boots with
/// (else the bootstrap's), `single_node_disk` a single node's installation disk, and
/// `host_disks` every other host's disk as the run planned its media
/// ([`super::ClusterMedia::host_disks`]).
pub fn host_summary(
    hosts: &bootgen::network::Hosts,
    output: &Path,
    wrote: &std::collections::BTreeSet<String>,
    config: &str,
    single_node_disk: Option<&str>,
    host_disks: &std::collections::BTreeMap<String, String>,
) -> Vec<String> {
    use bootgen::network::Role;
    let single_node = config == bootgen::LIVE_ISO_CONFIG;
    let mut lines = Vec::new();
    for host in &hosts.hosts {
        let role = host.role.map_or("master", Role::name);
        let media = |dir: &str, suffix: &str| {
            format!(
                "{dir}/{}/{}{suffix}",
                bootgen::output::HOSTS_DIR,
                host.hostname
            )
        };
        // A single node boots the role's media; every other host has media of its own.
        let own_config = match host.role {
            Some(Role::Master) | Some(Role::Worker) if !single_node => {
                format!("{}/{}.ign", bootgen::output::HOSTS_DIR, host.hostname)
            }
            _ => config.to_string(),
        };
        let candidates = if single_node {
            let stem = config.trim_end_matches(".ign");
            vec![
                own_config,
                format!("media/{stem}.iso"),
                format!("media/pxe/{stem}.ipxe"),
            ]
        } else {
            vec![
                own_config,
                media("media", ".iso"),
                media("media/pxe", ".ipxe"),
            ]
        };
        let files: Vec<String> = candidates
            .iter()
            .filter(|f| wrote.contains(f.as_str()))
            .map(|f| output.join(f).display().to_string())
            .collect();
        let installs = files.iter().any(|f| f.contains("/media/"));
        let chosen = if single_node {
            single_node_disk.map(str::to_string)
        } else {
            host_disks.get(&host.hostname).cloned()
        };
        let disk = match chosen {
            Some(chosen) if installs => format!("disk {chosen}"),
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
