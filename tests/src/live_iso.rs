//! Live ISOs for the media tests, made with `xorriso` in today's layout
//! (`/coreos/igninfo.json`, `kargs.json`, `features.json`, `/images/pxeboot`) or in the
//! 2020-2021 header layout (`coreiso+` and `coreKarg` in the system area), never copied from
//! anyone's fixtures.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn run_ok(cmd: &mut Command) -> std::process::Output {
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        output.status.success(),
        "{cmd:?}: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The kernel arguments the made ISOs ship with.
pub const DEFAULT_KARGS: &str =
    "mitigations=auto,nosmt coreos.liveiso=rhcos-9.6.20260101-0 ignition.firstboot ignition.platform.id=metal";
/// The size of each kernel-argument area.
pub const KARGS_SIZE: usize = 1024;
/// The size of the Ignition embed area.
pub const EMBED_SIZE: usize = 256 * 1024;

/// A kernel-argument area as the ISO build writes it: the defaults, a newline, `#` padding.
pub fn kargs_area() -> String {
    let mut area = format!("{DEFAULT_KARGS}\n");
    while area.len() < KARGS_SIZE {
        area.push('#');
    }
    area
}

/// A file of an ISO's tree: its path and contents.
pub type TreeFile = (&'static str, Vec<u8>);

/// Writes `files` (path, contents) under `tree` and makes an ISO of it with xorriso.
pub fn xorriso(dir: &Path, name: &str, files: &[(&str, Vec<u8>)]) -> PathBuf {
    let tree = dir.join(format!("{name}.tree"));
    for (path, contents) in files {
        let path = tree.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
    }
    let iso = dir.join(format!("{name}.iso"));
    run_ok(
        Command::new("xorriso")
            .args(["-as", "mkisofs", "-quiet", "-V", "rhcos", "-R", "-J", "-o"])
            .arg(&iso)
            .arg(&tree),
    );
    iso
}

/// The boot loader configs, with the kernel-argument area at a known offset in each.
pub fn boot_configs() -> (Vec<TreeFile>, Vec<(&'static str, usize)>) {
    let grub_head = "set timeout=5\nmenuentry 'RHCOS (Live)' {\n  linux /images/pxeboot/vmlinuz ";
    let grub = format!(
        "{grub_head}{}\n  initrd /images/pxeboot/initrd.img /images/ignition.img\n}}\n",
        kargs_area()
    );
    let isolinux_head = "label linux\n  kernel /images/pxeboot/vmlinuz\n  append initrd=/images/pxeboot/initrd.img,/images/ignition.img ";
    let isolinux = format!("{isolinux_head}{}\n", kargs_area());
    (
        vec![
            ("EFI/BOOT/grub.cfg", grub.into_bytes()),
            ("isolinux/isolinux.cfg", isolinux.into_bytes()),
        ],
        vec![
            ("EFI/BOOT/grub.cfg", grub_head.len()),
            ("isolinux/isolinux.cfg", isolinux_head.len()),
        ],
    )
}

/// A live ISO in today's layout for `arch` (`x86_64` or `aarch64`), with an embed area of
/// `embed` bytes.
pub fn live_iso(dir: &Path, arch: &str, embed: usize) -> PathBuf {
    let (mut files, mut offsets) = boot_configs();
    if arch != "x86_64" {
        offsets.retain(|(p, _)| !p.starts_with("isolinux"));
    }
    let kargs = serde_json::json!({
        "default": DEFAULT_KARGS,
        "files": offsets.iter().map(|(p, o)| serde_json::json!({"path": p, "offset": o})).collect::<Vec<_>>(),
        "size": KARGS_SIZE,
    });
    let features = serde_json::json!({
        "installer-config": true,
        "installer-config-directives": {"console": true},
        "live-initrd-network": true,
    });
    let efi = if arch == "x86_64" {
        "EFI/BOOT/BOOTX64.EFI"
    } else {
        "EFI/BOOT/BOOTAA64.EFI"
    };
    files.extend([
        ("coreos/kargs.json", kargs.to_string().into_bytes()),
        (
            "coreos/igninfo.json",
            br#"{"file":"images/ignition.img"}"#.to_vec(),
        ),
        ("coreos/features.json", features.to_string().into_bytes()),
        ("images/ignition.img", vec![0; embed]),
        (
            "images/pxeboot/vmlinuz",
            format!("{arch} kernel\n").repeat(100).into_bytes(),
        ),
        ("images/pxeboot/initrd.img", base_initramfs(dir, arch)),
        ("images/pxeboot/rootfs.img", b"rootfs".repeat(300)),
        (efi, b"MZ loader".to_vec()),
    ]);
    if arch != "x86_64" {
        files.retain(|(p, _)| !p.starts_with("isolinux"));
    }
    xorriso(dir, &format!("live-{arch}-{embed}"), &files)
}

/// Where `path` starts in `iso`, as xorriso reports it.
pub fn lba_offset(iso: &Path, path: &str) -> u64 {
    let output = run_ok(Command::new("xorriso").arg("-indev").arg(iso).args([
        "-find",
        path,
        "-exec",
        "report_lba",
        "--",
    ]));
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().find(|l| l.contains("File data lba:")).unwrap();
    let lba: u64 = line.split(',').nth(1).unwrap().trim().parse().unwrap();
    lba * 2048
}

/// A 2020-2021 live ISO: no /coreos info files; the `coreiso+` header points to the embed
/// area (`embed_file`), the `coreKarg` header to the defaults in `/cmdline` and the areas.
pub fn header_iso(dir: &Path, embed_file: &str) -> PathBuf {
    let (mut files, offsets) = boot_configs();
    files.extend([
        (embed_file, vec![0; EMBED_SIZE]),
        ("cmdline", kargs_area().into_bytes()),
        ("images/pxeboot/vmlinuz", b"kernel".to_vec()),
        ("EFI/BOOT/BOOTX64.EFI", b"MZ".to_vec()),
    ]);
    let iso = xorriso(
        dir,
        &format!("header-{}", embed_file.replace('/', "-")),
        &files,
    );
    let mut bytes = fs::read(&iso).unwrap();
    let mut header = b"coreiso+".to_vec();
    header.extend(lba_offset(&iso, &format!("/{embed_file}")).to_le_bytes());
    header.extend((EMBED_SIZE as u64).to_le_bytes());
    let mut kargs = b"coreKarg".to_vec();
    kargs.extend((KARGS_SIZE as u64).to_le_bytes());
    kargs.extend(lba_offset(&iso, "/cmdline").to_le_bytes());
    for (path, offset) in &offsets {
        kargs.extend((lba_offset(&iso, &format!("/{path}")) + *offset as u64).to_le_bytes());
    }
    kargs.resize(72, 0);
    bytes[32768 - 24 - 72..32768 - 24].copy_from_slice(&kargs);
    bytes[32768 - 24..32768].copy_from_slice(&header);
    fs::write(&iso, bytes).unwrap();
    iso
}

/// A live initramfs as the image build makes one: a gzip-compressed newc cpio (made by the
/// real cpio) holding the live stamp and the OS features.
pub fn base_initramfs(dir: &Path, arch: &str) -> Vec<u8> {
    let root = dir.join(format!("initramfs-{arch}"));
    fs::create_dir_all(root.join("etc/coreos")).unwrap();
    fs::write(root.join("etc/coreos-live-initramfs"), format!("{arch}\n")).unwrap();
    fs::write(
        root.join("etc/coreos/features.json"),
        r#"{"installer-config":true,"installer-config-directives":{"console":true},"live-initrd-network":true}"#,
    )
    .unwrap();
    let output = run_ok(Command::new("sh").arg("-c").arg(format!(
        "cd '{}' && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -9n",
        root.display()
    )));
    output.stdout
}

/// The real coreos-installer, or `None` (after saying so) outside CI; under `CI` a missing one
/// fails, so CI cannot pass by skipping.
pub fn coreos_installer() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("coreos-installer"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "coreos-installer is not on PATH, and CI must check media with it (.ci/run installs it)"
        );
        eprintln!("SKIPPED: coreos-installer is not on PATH; `bash .ci/run` installs it");
    }
    found
}
