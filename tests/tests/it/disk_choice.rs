//! Install disks chosen by a host's `rootDeviceHints`: the node-side step (`choose-disk.sh`),
//! run as the live system runs it against recorded disk inventories (`fixtures/disks/`: an
//! NVMe, SATA SSDs and a spinning disk, a USB stick the live ISO booted from, two disks of one
//! model, a virtual machine), with `lsblk` and `udevadm` answering from the inventory; and the
//! media `ignition --hosts --iso/--pxe` makes for hosts with hints: read back by the real
//! coreos-installer, applied by the real Ignition, the step then run from the applied root, its
//! units judged by `systemd-analyze verify`. Hints that disagree with the run's disk are refused
//! before anything is written.

use bootgen_conformance::live_iso::{coreos_installer, live_iso, EMBED_SIZE};
use bootgen_conformance::{repo, tools_present, write_file, BaseRoot};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The columns the step asks `lsblk` for; the stand-in refuses any other question, so a step
/// that asks for other facts than the inventories record fails here.
const LSBLK_ARGS: &str =
    "--paths --bytes --pairs --output NAME,PKNAME,TYPE,SIZE,ROTA,RO,HCTL,MODEL,VENDOR,SERIAL,WWN,MOUNTPOINT";

/// `lsblk` and `udevadm` answering from the inventory in `$BOOTGEN_TEST_DISKS`.
fn inventory_tools(dir: &Path) -> PathBuf {
    let bin = dir.join("inventory-bin");
    write_file(
        &bin.join("lsblk"),
        format!(
            "#!/bin/bash\n[ \"$*\" = \"{LSBLK_ARGS}\" ] || {{ echo \"lsblk: unexpected: $*\" >&2; exit 2; }}\ncat \"$BOOTGEN_TEST_DISKS/lsblk\"\n"
        ),
        0o755,
    )
    .unwrap();
    write_file(
        &bin.join("udevadm"),
        "#!/bin/bash\ncase \"$1 $2\" in\n'settle '*) exit 0 ;;\n'info --query=property') name=\"${3#--name=}\"; cat \"$BOOTGEN_TEST_DISKS/udev/${name#/dev/}\" ;;\n*) echo \"udevadm: unexpected: $*\" >&2; exit 2 ;;\nesac\n",
        0o755,
    )
    .unwrap();
    bin
}

/// Runs the step `script` with `hints` (the hints file's text) on the machine `inventory`;
/// returns its output and what it wrote as the installer config (`None`: nothing).
fn choose(script: &Path, inventory: &str, hints: &str) -> (Output, Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let bin = inventory_tools(dir.path());
    let hints_file = dir.path().join("root-device-hints");
    fs::write(&hints_file, hints).unwrap();
    let out = dir.path().join("installer.d/0001-bootgen-chosen-disk.yaml");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let output = Command::new("bash")
        .arg(script)
        .arg(&hints_file)
        .arg(&out)
        .env("PATH", path)
        .env("BOOTGEN_DISK_WAIT", "0")
        .env(
            "BOOTGEN_TEST_DISKS",
            repo().join("fixtures/disks").join(inventory),
        )
        .output()
        .unwrap();
    let written = fs::read_to_string(&out).ok();
    (output, written)
}

/// The step as bootgen embeds it.
fn script_file(dir: &Path) -> PathBuf {
    let path = dir.join("choose-disk.sh");
    fs::write(&path, bootgen::media::CHOOSE_SCRIPT_TEXT).unwrap();
    path
}

#[test]
fn the_step_is_shellcheck_clean() {
    if !tools_present(&["/usr/bin/shellcheck"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new("shellcheck")
        .arg(script_file(dir.path()))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

/// Exactly one disk matching every hint is chosen, and said with why; the boot medium, a
/// read-only card, a disk in use and a DVD drive are never candidates.
#[test]
fn the_step_picks_the_one_disk_every_hint_matches() {
    let dir = tempfile::tempdir().unwrap();
    let script = script_file(dir.path());
    for (inventory, hints, chosen) in [
        (
            "workstation",
            "serialNumber=S5GXNX0T123456X\n",
            "/dev/nvme0n1",
        ),
        ("workstation", "wwn=eui.002538b911b2c3d4\n", "/dev/nvme0n1"),
        ("workstation", "rotational=true\n", "/dev/sdb"),
        ("workstation", "hctl=0:0:0:0\n", "/dev/sda"),
        ("workstation", "model=Micron\nvendor=AT\n", "/dev/sda"),
        ("workstation", "minSizeGigabytes=1000\n", "/dev/sdb"),
        (
            "workstation",
            "wwn=0x500a0751f3a1b2c3\nrotational=false\n",
            "/dev/sda",
        ),
        (
            "workstation",
            "deviceName=/dev/disk/by-path/pci-0000:3d:00.0-nvme-1\n",
            "/dev/nvme0n1",
        ),
        (
            "twins",
            "model=SSDSC2KB480G8\nserialNumber=PHYF1234007Y480BGN\n",
            "/dev/sdb",
        ),
        (
            "twins",
            "wwnWithExtension=0x55cd2e4151a1b2c30001\n",
            "/dev/sda",
        ),
        ("twins", "wwnVendorExtension=0x0002\n", "/dev/sdb"),
        ("twins", "vendor=Kingston\n", "/dev/sdc"),
        (
            "virtual",
            "deviceName=/dev/vda\nrotational=true\n",
            "/dev/vda",
        ),
    ] {
        let (output, written) = choose(&script, inventory, hints);
        let said = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{inventory} {hints:?}: {said}");
        assert_eq!(
            written.as_deref(),
            Some(format!("dest-device: \"{chosen}\"\n").as_str()),
            "{inventory} {hints:?}: {said}"
        );
        assert!(
            said.contains(&format!(
                "installing to {chosen}: the one disk that matches"
            )),
            "{said}"
        );
    }
}

/// No match and two matches are refused, naming each disk and the hint it failed; nothing is
/// written, so the installer never starts.
#[test]
fn the_step_refuses_no_match_and_two_matches_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let script = script_file(dir.path());
    for (inventory, hints, fragments) in [
        (
            "twins",
            "model=SSDSC2KB480G8\n",
            &[
                "2 disks match model=SSDSC2KB480G8 (/dev/sda /dev/sdb)",
                "add a hint that tells them apart",
                "/dev/sdc (DataTraveler 3.0, 15 GB): fails model",
            ][..],
        ),
        (
            "workstation",
            "minSizeGigabytes=400\nrotational=false\n",
            &["2 disks match", "/dev/nvme0n1", "/dev/sda"][..],
        ),
        (
            "workstation",
            "model=Cruzer\n",
            &[
                "no disk matches model=Cruzer",
                "/dev/sdc (Cruzer Blade, 30 GB): skipped, the live system runs from it",
                "/dev/sdd (SD/MMC, 31 GB): skipped, it is read-only",
                "/dev/sdb (ST4000NM000A-2HZ100, 4000 GB): fails model: its model \"ST4000NM000A-2HZ100\" does not hold \"Cruzer\"",
            ][..],
        ),
        (
            "workstation",
            "serialNumber=S5GXNX0T999999X\n",
            &[
                "no disk was touched",
                "/dev/nvme0n1 (Samsung SSD 980 PRO 500GB, 512 GB): fails serialNumber: its serial number is S5GXNX0T123456X, not S5GXNX0T999999X",
            ][..],
        ),
        (
            "workstation",
            "deviceName=/dev/nvme0n1\nminSizeGigabytes=600\n",
            &["/dev/nvme0n1 (Samsung SSD 980 PRO 500GB, 512 GB): fails minSizeGigabytes: it holds 512 GB, less than 600"][..],
        ),
        (
            "virtual",
            "serialNumber=QM00001\n",
            &["/dev/vda (unnamed, 128 GB): fails serialNumber: its serial number is none"][..],
        ),
        ("virtual", "", &["holds no hint"][..]),
    ] {
        let (output, written) = choose(&script, inventory, hints);
        let said = String::from_utf8_lossy(&output.stdout);
        assert!(!output.status.success(), "{inventory} {hints:?}: {said}");
        assert_eq!(written, None, "{inventory} {hints:?}: wrote a disk");
        for fragment in fragments {
            assert!(said.contains(fragment), "{inventory} {hints:?}: {fragment:?} in\n{said}");
        }
    }
}

/// The static-network fixture's hosts, each with hints of a different kind, and no disk for
/// the run: every machine, the bootstrap included, boots media of its own.
fn hinted_hosts(dir: &Path) -> PathBuf {
    let text = fs::read_to_string(repo().join("fixtures/network/agent-config.yaml")).unwrap();
    let text = text
        .replacen(
            "  role: bootstrap\n",
            "  role: bootstrap\n  rootDeviceHints:\n    serialNumber: S5GXNX0T123456X\n",
            1,
        )
        .replacen(
            "    deviceName: /dev/sda\n",
            "    model: SSDSC2KB480G8\n    serialNumber: PHYF1234007Y480BGN\n",
            1,
        )
        .replacen("    deviceName: /dev/sda\n", "    hctl: 0:0:0:0\n", 1)
        .replacen(
            "    deviceName: /dev/sda\n",
            "    deviceName: /dev/vda\n",
            1,
        );
    let hosts = dir.join("agent-config.yaml");
    fs::write(&hosts, text).unwrap();
    hosts
}

fn ignition_run(dir: &Path, hosts: &Path, extra: &[&str]) -> (PathBuf, Output) {
    let out = dir.join("out");
    let output =
        bootgen_conformance::static_network_ignition(bootgen_conformance::bootgen!(), hosts)
            .args(extra)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
    (out, output)
}

/// A stand-in for the live image's `coreos-installer.service`, shaped as coreos-installer's
/// own unit (what the drop-in extends must exist for `systemd-analyze verify`).
const INSTALLER_UNIT: &str = "[Unit]\nDescription=CoreOS Installer\nAfter=NetworkManager.service\nConditionDirectoryNotEmpty=|/etc/coreos/installer.d\nOnFailure=emergency.target\n\n[Service]\nType=oneshot\nExecStart=/usr/libexec/coreos-installer-service\n";

/// Without `--dest-device`, each host's media install to the disk its hints choose on the node:
/// no role media, the bootstrap's own ISO; coreos-installer reads the live config back; the
/// real Ignition writes the step, its hints and units; the step, run from that root on a
/// machine of the inventory, names the host's disk in an installer config the installer reads
/// after bootgen's (which names none); `systemd-analyze verify` accepts the units.
#[test]
fn hosts_with_hints_get_media_that_choose_their_disk_on_the_node() {
    let dir = tempfile::tempdir().unwrap();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let hosts = hinted_hosts(dir.path());
    let (out, output) = ignition_run(
        dir.path(),
        &hosts,
        &[
            &format!("--iso={}", iso.display()),
            &format!("--pxe={}", iso.display()),
            "--pxe-base-url",
            "http://192.0.2.10/pxe",
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for role in ["bootstrap", "master", "worker"] {
        assert!(
            !out.join(format!("media/{role}.iso")).exists(),
            "{role}.iso has no disk"
        );
        assert!(!out.join(format!("media/pxe/{role}.ipxe")).exists());
    }
    let o = out.display();
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("host ")).collect();
    assert_eq!(
        lines,
        [
            format!("host bootstrap (bootstrap): {o}/bootstrap.ign, {o}/media/hosts/bootstrap.iso, {o}/media/pxe/hosts/bootstrap.ipxe; disk the disk matching serialNumber=S5GXNX0T123456X; 192.168.111.10/24 on eno1"),
            format!("host master-0 (master): {o}/hosts/master-0.ign, {o}/media/hosts/master-0.iso, {o}/media/pxe/hosts/master-0.ipxe; disk the disk matching model=SSDSC2KB480G8, serialNumber=PHYF1234007Y480BGN; 192.168.111.20/24 on bond0.300"),
            format!("host master-1 (master): {o}/hosts/master-1.ign, {o}/media/hosts/master-1.iso, {o}/media/pxe/hosts/master-1.ipxe; disk the disk matching hctl=0:0:0:0; 192.168.111.21/24 on bond0.300"),
            format!("host master-2 (master): {o}/hosts/master-2.ign, {o}/media/hosts/master-2.iso, {o}/media/pxe/hosts/master-2.ipxe; disk /dev/vda; 192.168.111.22/24 on eno1, fd2e:6f44:5dd8:c956::22/64 on eno1"),
        ],
        "{stdout}"
    );
    // The hosts' PXE entries boot their role's kernel and rootfs, written without a set.
    let pxe = out.join("media/pxe");
    for file in [
        "bootstrap-vmlinuz",
        "bootstrap-rootfs.img",
        "master-vmlinuz",
        "master-rootfs.img",
    ] {
        assert!(pxe.join(file).is_file(), "{file}");
    }
    let ipxe = fs::read_to_string(pxe.join("hosts/bootstrap.ipxe")).unwrap();
    assert!(
        ipxe.contains("kernel http://192.0.2.10/pxe/bootstrap-vmlinuz "),
        "{ipxe}"
    );

    let inspect = bootgen_conformance::bootgen!()
        .arg("inspect")
        .arg(out.join("media/hosts/master-0.iso"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(
        text.contains(
            "installs to: the disk matching model=SSDSC2KB480G8, serialNumber=PHYF1234007Y480BGN"
        ),
        "{text}"
    );

    let Some(installer) = coreos_installer() else {
        return;
    };
    for (host, machine, disk) in [
        ("bootstrap", "workstation", "/dev/nvme0n1"),
        ("master-0", "twins", "/dev/sdb"),
        ("master-1", "workstation", "/dev/sda"),
    ] {
        let shown = Command::new(&installer)
            .args(["iso", "ignition", "show"])
            .arg(out.join(format!("media/hosts/{host}.iso")))
            .output()
            .unwrap();
        assert!(
            shown.status.success(),
            "{}",
            String::from_utf8_lossy(&shown.stderr)
        );
        let live = dir.path().join(format!("{host}-live.ign"));
        fs::write(&live, &shown.stdout).unwrap();
        let (valid, report) = bootgen_conformance::ignition_validate(&live);
        assert!(valid, "{host}: {report}");
        let Some(root) = BaseRoot::new().apply(&live).unwrap() else {
            return;
        };
        let customize = fs::read_to_string(root.join(bootgen::media::INSTALLER_CONFIG)).unwrap();
        assert!(!customize.contains("dest-device"), "{host}: {customize}");
        let unit = root.join(&format!(
            "/etc/systemd/system/{}",
            bootgen::media::CHOOSE_UNIT
        ));
        assert!(unit.is_file(), "{host}: {}", root.log());
        let (installer_unit, dropin) = bootgen::media::INSTALLER_DROPIN;
        assert!(root
            .join(&format!("/etc/systemd/system/{installer_unit}.d/{dropin}"))
            .is_file());
        // The step as Ignition wrote it, run with the paths its unit gives.
        let (output, written) = choose(
            &root.join(bootgen::media::CHOOSE_SCRIPT),
            machine,
            &fs::read_to_string(root.join(bootgen::media::HINTS_FILE)).unwrap(),
        );
        assert_eq!(
            written.as_deref(),
            Some(format!("dest-device: \"{disk}\"\n").as_str()),
            "{host} on {machine}: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        if host == "bootstrap" {
            verify_units(root.path());
        }
    }
}

/// `systemd-analyze verify` of the step's unit and the installer with its drop-in, in the
/// root Ignition wrote.
fn verify_units(root: &Path) {
    bootgen_conformance::verify_units_in(
        root,
        &[bootgen::media::CHOOSE_UNIT, "coreos-installer.service"],
        &[
            (
                "/usr/lib/systemd/system/coreos-installer.service",
                INSTALLER_UNIT,
                0o644,
            ),
            (
                "/usr/libexec/coreos-installer-service",
                "#!/bin/sh\nexit 0\n",
                0o755,
            ),
            ("/bin/bash", "#!/bin/sh\nexit 0\n", 0o755),
        ],
    )
    .unwrap();
}

/// A `deviceName` that is not `--dest-device`, and a single node's hints that could choose
/// another disk than its installation disk, are refused naming both, with nothing written.
#[test]
fn hints_that_disagree_with_the_runs_disk_are_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let hosts = repo().join("fixtures/network/agent-config.yaml");
    let (out, output) = ignition_run(
        dir.path(),
        &hosts,
        &[
            &format!("--iso={}", iso.display()),
            "--dest-device",
            "/dev/vdb",
        ],
    );
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    for fragment in [
        "hosts[1].rootDeviceHints.deviceName",
        "/dev/sda",
        "--dest-device is /dev/vdb",
    ] {
        assert!(said.contains(fragment), "{fragment:?} in {said}");
    }
    assert!(!out.exists(), "a refused run wrote {}", out.display());

    // No disk for the run and a role without a hinted host: named, nothing written.
    let plain = dir.path().join("plain.yaml");
    let text = fs::read_to_string(&hosts).unwrap();
    fs::write(&plain, &text).unwrap();
    let (out, output) = ignition_run(dir.path(), &plain, &[&format!("--iso={}", iso.display())]);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        said.contains("host `bootstrap` has no rootDeviceHints"),
        "{said}"
    );
    assert!(!out.exists());

    let single = dir.path().join("sno.yaml");
    fs::write(
        &single,
        "hosts:\n- hostname: sno\n  role: master\n  rootDeviceHints:\n    serialNumber: S1\n",
    )
    .unwrap();
    let install_config = dir.path().join("install-config.yaml");
    let sno = fs::read_to_string(repo().join("fixtures/install-configs/valid/minimal.yaml"))
        .unwrap()
        .replacen("  replicas: 3\n", "  replicas: 1\n", 1)
        .replacen("  replicas: 2\n", "  replicas: 0\n", 1)
        + "bootstrapInPlace:\n  installationDisk: /dev/sda\n";
    fs::write(&install_config, sno).unwrap();
    let output = bootgen_conformance::bootgen!()
        .args(["ignition", "--now", "2026-01-01T00:00:00Z", "--tls-dir"])
        .arg(repo().join("fixtures/pki"))
        .arg("--install-config")
        .arg(&install_config)
        .arg("--hosts")
        .arg(&single)
        .arg("-o")
        .arg(dir.path().join("sno"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{said}");
    for fragment in [
        "hosts[0].rootDeviceHints.serialNumber",
        "serialNumber=S1",
        "/dev/sda",
    ] {
        assert!(said.contains(fragment), "{fragment:?} in {said}");
    }
    assert!(!dir.path().join("sno").exists());
}
