//! Boot media (`bootgen iso`, `bootgen pxe`, `bootgen ignition --iso`): live ISOs made here
//! with `xorriso` in today's layout (`/coreos/igninfo.json`, `kargs.json`, `features.json`,
//! `/images/pxeboot`) for x86_64 and aarch64, and in the older `coreiso+`/`coreKarg` header
//! layout; what bootgen writes read back by the real `coreos-installer`, compared member by
//! member with what `coreos-installer iso customize` embeds for the same inputs, unpacked by
//! the real `xz` and `cpio` as the initrd does, and applied with the real Ignition; and every
//! bad input refused with the input unchanged.

use bootgen_conformance::live_iso::{
    boot_configs, coreos_installer, header_iso, lba_offset, live_iso, xorriso, DEFAULT_KARGS,
    EMBED_SIZE,
};
use bootgen_conformance::{decode_resource, repo, BaseRoot};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run_ok(cmd: &mut Command) -> Output {
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        output.status.success(),
        "{cmd:?}: {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn bootgen(args: &[&std::ffi::OsStr]) -> Output {
    bootgen_conformance::bootgen!().args(args).output().unwrap()
}

macro_rules! args {
    ($($a:expr),* $(,)?) => { &[$(std::ffi::OsStr::new($a)),*] };
}

fn digest(path: &Path) -> Vec<u8> {
    Sha256::digest(fs::read(path).unwrap()).to_vec()
}

/// A cluster's output directory made with the fixture PKI (fast, no key generation).
fn cluster(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let pki = repo().join("fixtures/pki");
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.args(["ignition", "--now", "2026-01-01T00:00:00Z", "--tls-dir"])
        .arg(&pki)
        .args(extra)
        .arg("-o")
        .arg(&out);
    run_ok(&mut cmd);
    out
}

/// The files of the archive in `iso`'s embed area, unpacked by the real xz and cpio.
fn unpack_area(iso: &Path, area_path: &str, into: &Path) -> BTreeMap<String, Vec<u8>> {
    let offset = lba_offset(iso, area_path) as usize;
    let bytes = fs::read(iso).unwrap();
    let area = &bytes[offset..offset + EMBED_SIZE];
    let end = area.iter().rposition(|b| *b != 0).unwrap() + 1;
    let archive = into.with_extension("cpio.xz");
    fs::write(&archive, &area[..end]).unwrap();
    fs::create_dir_all(into).unwrap();
    run_ok(Command::new("sh").arg("-c").arg(format!(
        "xz -dc --single-stream '{}' | (cd '{}' && cpio -idm --quiet)",
        archive.display(),
        into.display()
    )));
    bootgen_conformance::dir_contents(into)
        .unwrap()
        .into_iter()
        .map(|(path, (_, contents))| (path, contents))
        .collect()
}

/// `value` without its null members (unset fields, as a parser that writes every field has them).
fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

/// A config's files as (mode, decoded contents) by path.
fn config_files(config: &[u8]) -> BTreeMap<String, (Option<u64>, Vec<u8>)> {
    let doc: Value = serde_json::from_slice(config).unwrap();
    doc["storage"]["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            let contents = decode_resource(&f["contents"]).unwrap().unwrap_or_default();
            (
                f["path"].as_str().unwrap().to_string(),
                (f["mode"].as_u64(), contents),
            )
        })
        .collect()
}

fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn single_node_live_iso_reads_back_in_coreos_installer() {
    let dir = tempfile::tempdir().unwrap();
    let Some(installer) = coreos_installer() else {
        return;
    };
    for (arch, bootgen_arch) in [("x86_64", "amd64"), ("aarch64", "arm64")] {
        let out = cluster(
            dir.path(),
            &format!("sno-{arch}"),
            &[
                "--single-node",
                "--installation-disk",
                "/dev/sda",
                "--arch",
                bootgen_arch,
            ],
        );
        let live = out.join("bootstrap-in-place-for-live-iso.ign");
        let iso = live_iso(dir.path(), arch, EMBED_SIZE);
        let before = digest(&iso);
        let result = dir.path().join(format!("sno-{arch}.iso"));
        let output = bootgen(args![
            "iso",
            &iso,
            "-c",
            &out,
            "-o",
            &result,
            "--live-karg-append",
            "console=ttyS0",
            "--live-karg-delete",
            "mitigations=auto,nosmt"
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        assert_eq!(digest(&iso), before, "the input ISO is left as it was");
        // The copy carries the cluster's private keys: for its owner only.
        assert_eq!(mode_of(&result), 0o600, "{}", result.display());
        let shown = run_ok(
            Command::new(&installer)
                .args(["iso", "ignition", "show"])
                .arg(&result),
        );
        assert_eq!(
            shown.stdout,
            fs::read(&live).unwrap(),
            "{arch}: the embedded config"
        );
        let kargs = run_ok(
            Command::new(&installer)
                .args(["iso", "kargs", "show"])
                .arg(&result),
        );
        assert_eq!(
            String::from_utf8_lossy(&kargs.stdout).trim(),
            format!(
                "{} console=ttyS0",
                DEFAULT_KARGS.trim_start_matches("mitigations=auto,nosmt ")
            )
        );
        // Read back by bootgen too: the config, the arguments, no install target.
        let inspect = bootgen(args!["inspect", &result]);
        let text = String::from_utf8_lossy(&inspect.stdout);
        assert!(inspect.status.success(), "{}", stderr(&inspect));
        assert!(text.contains("console=ttyS0"), "{text}");
        assert!(text.contains("installs: nothing"), "{text}");
        let validate = bootgen(args!["validate", "--now", "2026-01-01T01:00:00Z", &result]);
        assert!(validate.status.success(), "{}", stderr(&validate));
    }
}

#[test]
fn install_isos_per_role_match_coreos_installer_and_apply() {
    let dir = tempfile::tempdir().unwrap();
    let Some(installer) = coreos_installer() else {
        return;
    };
    let out = cluster(dir.path(), "out", &[]);
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let keyfile = dir.path().join("eth0.nmconnection");
    fs::write(&keyfile, "[connection]\nid=eth0\ntype=ethernet\n").unwrap();
    for role in ["bootstrap", "master", "worker"] {
        let config = out.join(format!("{role}.ign"));
        let ours = dir.path().join(format!("{role}-bootgen.iso"));
        let theirs = dir.path().join(format!("{role}-coreos-installer.iso"));
        let flags = [
            "--dest-device",
            "/dev/disk/by-id/wwn-0x5000c500a0b1c2d3",
            "--dest-karg-append",
            "nosmt",
            "--network-keyfile",
            keyfile.to_str().unwrap(),
        ];
        let output = bootgen_conformance::bootgen!()
            .arg("iso")
            .arg(&iso)
            .arg("-c")
            .arg(&config)
            .arg("-o")
            .arg(&ours)
            .args(flags)
            .args(["--console", "ttyS0,115200n8"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{role}: {}", stderr(&output));
        run_ok(
            Command::new(&installer)
                .args(["iso", "customize", "--dest-ignition"])
                .arg(&config)
                .args(flags)
                .args(["--dest-console", "ttyS0,115200n8", "-o"])
                .arg(&theirs)
                .arg(&iso),
        );
        let ours_members = unpack_area(
            &ours,
            "/images/ignition.img",
            &dir.path().join(format!("{role}-ours")),
        );
        let theirs_members = unpack_area(
            &theirs,
            "/images/ignition.img",
            &dir.path().join(format!("{role}-theirs")),
        );
        assert_eq!(
            ours_members.keys().collect::<Vec<_>>(),
            theirs_members.keys().collect::<Vec<_>>(),
            "{role}: the archives' members"
        );
        let keyfile_member = "etc/coreos-firstboot-network/eth0.nmconnection";
        assert_eq!(ours_members[keyfile_member], theirs_members[keyfile_member]);
        // The live configs write the same files: the role's config (the same JSON) and the
        // same installer config (the same YAML), with the same modes.
        let ours_files = config_files(&ours_members["config.ign"]);
        let theirs_files = config_files(&theirs_members["config.ign"]);
        assert_eq!(
            ours_files.keys().collect::<Vec<_>>(),
            theirs_files.keys().collect::<Vec<_>>()
        );
        for (path, (mode, contents)) in &ours_files {
            let (their_mode, their_contents) = &theirs_files[path];
            assert_eq!(mode, their_mode, "{role}: mode of {path}");
            if path.ends_with(".ign") {
                // Ours is the role's config byte for byte; coreos-installer's is the same
                // config as its own parser writes it back (every unset field as null).
                let original = fs::read(&config).unwrap();
                assert!(
                    *contents == original,
                    "{role}: {path} is not the role's config"
                );
                let b = without_nulls(serde_json::from_slice(their_contents).unwrap());
                let original = without_nulls(serde_json::from_slice(&original).unwrap());
                assert!(
                    b == original,
                    "{role}: coreos-installer's {path} is another config"
                );
            } else {
                let a: serde_yaml_ng::Value = serde_yaml_ng::from_slice(contents).unwrap();
                let b: serde_yaml_ng::Value = serde_yaml_ng::from_slice(their_contents).unwrap();
                assert_eq!(a, b, "{role}: {path}");
            }
        }
        // bootgen reads coreos-installer's (xz with preset 9's 64 MiB dictionary) as its own,
        // and replaces what it holds with --force.
        let inspect = bootgen(args!["inspect", &theirs]);
        let text = String::from_utf8_lossy(&inspect.stdout);
        assert!(inspect.status.success(), "{role}: {}", stderr(&inspect));
        assert!(
            text.contains("installs to: /dev/disk/by-id/wwn-0x5000c500a0b1c2d3"),
            "{text}"
        );
        let again = bootgen(args!["iso", &theirs, "-c", &config, "--force"]);
        assert!(again.status.success(), "{role}: {}", stderr(&again));
        // coreos-installer reads ours as its own.
        let shown = run_ok(
            Command::new(&installer)
                .args(["iso", "ignition", "show"])
                .arg(&ours),
        );
        assert_eq!(config_files(&shown.stdout), ours_files);
        // The real Ignition applies the live config: the installer finds its files on disk.
        let live = dir.path().join(format!("{role}-live.ign"));
        fs::write(&live, &ours_members["config.ign"]).unwrap();
        if let Some(root) = BaseRoot::new().apply(&live).unwrap() {
            let dest = fs::read(root.join("/etc/coreos/dest.ign")).unwrap();
            let dest: Value = serde_json::from_slice(&dest).unwrap();
            let original: Value = serde_json::from_slice(&fs::read(&config).unwrap()).unwrap();
            assert_eq!(
                dest, original,
                "{role}: the installed system's config on disk"
            );
            let yaml = fs::read_to_string(root.join("/etc/coreos/installer.d/0000-customize.yaml"))
                .unwrap();
            assert!(
                yaml.contains("dest-device: /dev/disk/by-id/wwn-0x5000c500a0b1c2d3"),
                "{yaml}"
            );
        }
        // bootgen reads it back: the install target and the role's config.
        let inspect = bootgen(args!["inspect", &ours]);
        let text = String::from_utf8_lossy(&inspect.stdout);
        assert!(
            text.contains("installs to: /dev/disk/by-id/wwn-0x5000c500a0b1c2d3"),
            "{text}"
        );
        assert!(text.contains("/etc/coreos/dest.ign"), "{text}");
    }
}

#[test]
fn header_layout_isos_take_the_config_and_kargs() {
    let dir = tempfile::tempdir().unwrap();
    let config = repo().join("fixtures/ign/minimal.ign");
    let config = if config.exists() {
        config
    } else {
        write_small_config(dir.path())
    };
    // As 2020-2021 images are: the header and /images/ignition.img name the same area.
    let iso = header_iso(dir.path(), "images/ignition.img");
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(&iso, fs::Permissions::from_mode(0o644)).unwrap();
    }
    let output = bootgen(args![
        "iso",
        &iso,
        "-c",
        &config,
        "--live-karg-append",
        "quiet"
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    // Written in place with a config that carries no secret, the image keeps its mode without
    // a word (one that carries keys is made private: foreign_files.rs).
    assert!(!stderr(&output).contains("private"), "{}", stderr(&output));
    assert_eq!(mode_of(&iso), 0o644);
    let members = unpack_area(
        &iso,
        "/images/ignition.img",
        &dir.path().join("header-members"),
    );
    assert_eq!(members["config.ign"], fs::read(&config).unwrap());
    if let Some(installer) = coreos_installer() {
        let kargs = run_ok(
            Command::new(&installer)
                .args(["iso", "kargs", "show"])
                .arg(&iso),
        );
        assert_eq!(
            String::from_utf8_lossy(&kargs.stdout).trim(),
            format!("{DEFAULT_KARGS} quiet")
        );
        let shown = run_ok(
            Command::new(&installer)
                .args(["iso", "ignition", "show"])
                .arg(&iso),
        );
        assert_eq!(shown.stdout, fs::read(&config).unwrap());
    }
    // Found through the coreiso+ header alone.
    let iso = header_iso(dir.path(), "images/area.img");
    let output = bootgen(args!["iso", &iso, "-c", &config]);
    assert!(output.status.success(), "{}", stderr(&output));
    let members = unpack_area(&iso, "/images/area.img", &dir.path().join("header-only"));
    assert_eq!(members["config.ign"], fs::read(&config).unwrap());
    let inspect = bootgen(args!["inspect", &iso]);
    assert!(String::from_utf8_lossy(&inspect.stdout).contains(DEFAULT_KARGS));
}

fn write_small_config(dir: &Path) -> PathBuf {
    let path = dir.join("small.ign");
    fs::write(
        &path,
        r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,hello"},"mode":420}]}}"#,
    )
    .unwrap();
    path
}

/// Runs `bootgen iso` on `iso` expecting exit 1, a message with every fragment, and the input
/// unchanged.
fn refused(iso: &Path, args: &[&std::ffi::OsStr], fragments: &[&str]) {
    let before = digest(iso);
    let output = bootgen_conformance::bootgen!()
        .arg("iso")
        .arg(iso)
        .args(args)
        .output()
        .unwrap();
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    for fragment in fragments {
        assert!(message.contains(fragment), "{fragment:?} not in: {message}");
    }
    assert_eq!(
        digest(iso),
        before,
        "the input ISO is left as it was: {message}"
    );
}

#[test]
fn bad_inputs_are_clear_errors_with_nothing_lost() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_small_config(dir.path());
    let c = config.as_os_str();
    // Not a CoreOS live ISO: an ISO without an embed area, and no ISO at all.
    let plain = xorriso(dir.path(), "plain", &[("README", b"hello".to_vec())]);
    refused(
        &plain,
        args!["-c", c],
        &["plain.iso", "not a CoreOS live ISO"],
    );
    refused(
        &config.clone(),
        args!["-c", c],
        &["small.ign", "not an ISO image"],
    );
    // Already customized: refused without --force, which replaces it.
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let output = bootgen(args!["iso", &iso, "-c", c]);
    assert!(output.status.success(), "{}", stderr(&output));
    refused(
        &iso,
        args!["-c", c],
        &["already customized", "config.ign", "--force"],
    );
    let output = bootgen(args!["iso", &iso, "-c", c, "--force"]);
    assert!(output.status.success(), "{}", stderr(&output));
    // A kernel argument to delete that the image does not have.
    let plain_iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    refused(
        &plain_iso,
        args!["-c", c, "--live-karg-delete", "nomodeset"],
        &["\"nomodeset\"", "kargs area"],
    );
    // Another architecture, named both ways.
    let arm = live_iso(dir.path(), "aarch64", EMBED_SIZE);
    let out = cluster(dir.path(), "out", &[]);
    refused(
        &arm,
        args!["-c", &out.join("worker.ign"), "--dest-device", "/dev/sda"],
        &["aarch64", "x86_64", "boot files"],
    );
    // A config larger than the area: both sizes, and the ways that work.
    let small = live_iso(dir.path(), "x86_64", 8 * 1024);
    refused(
        &small,
        args![
            "-c",
            &out.join("bootstrap.ign"),
            "--dest-device",
            "/dev/sda"
        ],
        &[
            "8192",
            "bootgen pointer",
            "bootgen pxe",
            "/images/ignition.img",
        ],
    );
    // An output location nothing can be written to (even by root): the input is untouched.
    let fresh = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    refused(
        &fresh,
        args!["-c", c, "-o", "/sys/bootgen-media-test.iso"],
        &["cannot write", "/sys/bootgen-media-test.iso"],
    );
    // A damaged image: cut short, or an embed area holding neither zeros nor an archive.
    let cut = dir.path().join("cut.iso");
    let bytes = fs::read(&fresh).unwrap();
    fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    refused(&cut, args!["-c", c], &["cut.iso", "incomplete"]);
    let garbage = dir.path().join("garbage.iso");
    let mut bytes = fs::read(&fresh).unwrap();
    let area = lba_offset(&fresh, "/images/ignition.img") as usize;
    bytes[area..area + 16].copy_from_slice(b"not an archive!!");
    fs::write(&garbage, bytes).unwrap();
    refused(
        &garbage,
        args!["-c", c, "--force"],
        &["/images/ignition.img", "neither zeros nor"],
    );
    // An image whose live system cannot install itself (no installer-config feature).
    let old = header_iso(dir.path(), "images/ignition.img");
    refused(
        &old,
        args!["-c", c, "--dest-device", "/dev/sda"],
        &["/coreos/features.json", "installer-config"],
    );
    // An embed area whose archive unpacks to more than 64 MiB (an xz bomb) is refused unread.
    let bomb = run_ok(
        Command::new("sh")
            .arg("-c")
            .arg("head -c 70M /dev/zero | xz -1 --check=crc32"),
    )
    .stdout;
    let bombed = dir.path().join("bomb.iso");
    let mut bytes = fs::read(&fresh).unwrap();
    bytes[area..area + bomb.len()].copy_from_slice(&bomb);
    fs::write(&bombed, bytes).unwrap();
    refused(
        &bombed,
        args!["-c", c, "--force"],
        &["/images/ignition.img", "more than 67108864 bytes"],
    );
    // Offsets the image's own info files choose are checked, never trusted.
    let (mut files, _) = boot_configs();
    files.extend([
        (
            "coreos/kargs.json",
            br#"{"default":"quiet","files":[{"path":"EFI/BOOT/grub.cfg","offset":18446744073709551615}],"size":1024}"#.to_vec(),
        ),
        ("images/ignition.img", vec![0; 4096]),
    ]);
    let hostile = xorriso(dir.path(), "hostile", &files);
    refused(
        &hostile,
        args!["-c", c],
        &["/coreos/kargs.json", "past the file's end"],
    );
    // An embed area with no room (a link in its place reads as an empty file) says so.
    let (mut files, _) = boot_configs();
    files.push(("images/ignition.img", Vec::new()));
    let empty = xorriso(dir.path(), "empty-area", &files);
    refused(
        &empty,
        args!["-c", c],
        &["/images/ignition.img", "embed area is empty (0 bytes)"],
    );
    // An existing output is not replaced without --force.
    let existing = dir.path().join("existing.iso");
    fs::write(&existing, b"keep").unwrap();
    refused(
        &fresh,
        args!["-c", c, "-o", &existing],
        &["existing.iso", "--force"],
    );
    assert_eq!(fs::read(&existing).unwrap(), b"keep");
}

#[test]
fn ignition_iso_writes_one_iso_per_role_beside_the_configs() {
    let dir = tempfile::tempdir().unwrap();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let before = digest(&iso);
    let iso_flag = format!("--iso={}", iso.display());
    // Checked before anything is written: the install ISOs need a disk, and the architecture.
    for (extra, fragment) in [
        (vec![], "--dest-device"),
        (
            vec!["--dest-device", "/dev/sda", "--arch", "arm64"],
            "aarch64",
        ),
    ] {
        let out = dir.path().join("refused");
        let output = bootgen_conformance::bootgen!()
            .args(["ignition", "--now", "2026-01-01T00:00:00Z", "--tls-dir"])
            .arg(repo().join("fixtures/pki"))
            .arg(&iso_flag)
            .args(&extra)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(stderr(&output).contains(fragment), "{}", stderr(&output));
        assert!(!out.join("bootstrap.ign").exists(), "nothing written");
    }
    let out = cluster(
        dir.path(),
        "cluster",
        &[&iso_flag, "--dest-device", "/dev/sda"],
    );
    assert_eq!(digest(&iso), before, "the live ISO is left as it was");
    let installer = coreos_installer();
    // The embedded example has no compute replicas: no compute media.
    assert!(!out.join("media/worker.iso").exists());
    for role in ["bootstrap", "master"] {
        let media = out.join("media").join(format!("{role}.iso"));
        let inspect = bootgen(args!["inspect", &media]);
        let text = String::from_utf8_lossy(&inspect.stdout);
        assert!(text.contains("installs to: /dev/sda"), "{role}: {text}");
        if let Some(installer) = &installer {
            let shown = run_ok(
                Command::new(installer)
                    .args(["iso", "ignition", "show"])
                    .arg(&media),
            );
            let files = config_files(&shown.stdout);
            assert!(
                files["/etc/coreos/dest.ign"].1
                    == fs::read(out.join(format!("{role}.ign"))).unwrap(),
                "{role}: coreos-installer reads another config"
            );
        }
    }
    // An ISO already customized is refused as the source, unless --force.
    let customized = out.join("media/master.iso");
    let again = dir.path().join("again");
    for force in [false, true] {
        let mut cmd = bootgen_conformance::bootgen!();
        cmd.args(["ignition", "--now", "2026-01-01T00:00:00Z", "--tls-dir"])
            .arg(repo().join("fixtures/pki"))
            .arg(format!("--iso={}", customized.display()))
            .args(["--dest-device", "/dev/sda", "-o"])
            .arg(&again);
        if force {
            cmd.arg("--force");
        }
        let output = cmd.output().unwrap();
        if force {
            assert!(output.status.success(), "{}", stderr(&output));
            assert!(again.join("media/master.iso").exists());
        } else {
            assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
            assert!(
                stderr(&output).contains("already customized"),
                "{}",
                stderr(&output)
            );
            assert!(!again.join("bootstrap.ign").exists(), "nothing written");
        }
    }
    // The media are not packed, and do not stop the directory from being packed.
    let package = dir.path().join("cluster.tar.gz");
    let output = bootgen(args!["package", &out, "-o", &package]);
    assert!(output.status.success(), "{}", stderr(&output));
    // A single node: its live ISO.
    let out = cluster(
        dir.path(),
        "sno",
        &[
            "--single-node",
            "--installation-disk",
            "/dev/sda",
            &iso_flag,
        ],
    );
    let media = out.join("media/bootstrap-in-place-for-live-iso.iso");
    if let Some(installer) = &installer {
        let shown = run_ok(
            Command::new(installer)
                .args(["iso", "ignition", "show"])
                .arg(&media),
        );
        assert!(shown.stdout == fs::read(out.join("bootstrap-in-place-for-live-iso.ign")).unwrap());
    }
    let inspect = bootgen(args!["inspect", &media]);
    assert!(String::from_utf8_lossy(&inspect.stdout).contains("installs: nothing"));
}

/// What coreos-installer reads out of an install medium: the installed system's config (from
/// the live config `show` prints) and the network keyfiles `network` extracts into `into`.
fn read_by_coreos_installer(
    installer: &Path,
    show: [&str; 3],
    network: [&str; 3],
    medium: &Path,
    into: &Path,
) -> (Vec<u8>, BTreeMap<String, Vec<u8>>) {
    let shown = run_ok(Command::new(installer).args(show).arg(medium));
    let installed = config_files(&shown.stdout)
        .remove("/etc/coreos/dest.ign")
        .map(|(_, contents)| contents)
        .unwrap_or_default();
    fs::create_dir_all(into).unwrap();
    run_ok(
        Command::new(installer)
            .args(network)
            .arg("-C")
            .arg(into)
            .arg(medium),
    );
    let keyfiles = bootgen_conformance::dir_contents(into)
        .unwrap()
        .into_iter()
        .map(|(path, (_, contents))| (path, contents))
        .collect();
    (installed, keyfiles)
}

/// With a hosts file, each control-plane host gets an install ISO of its own: its
/// `hosts/HOST.ign` as the installed system's config, on its `rootDeviceHints` disk, and its
/// keyfiles as the live initrd's first-boot network (which coreos-installer carries over, so the
/// installed system's first boot reaches the machine-config server with its static address).
#[test]
fn hosts_get_install_media_with_their_own_network() {
    let dir = tempfile::tempdir().unwrap();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let iso_flag = format!("--iso={}", iso.display());
    let install_config = repo().join("fixtures/network/install-config.yaml");
    let hosts = repo().join("fixtures/network/agent-config.yaml");
    let out = cluster(
        dir.path(),
        "static",
        &[
            "--install-config",
            install_config.to_str().unwrap(),
            "--hosts",
            hosts.to_str().unwrap(),
            &iso_flag,
            "--dest-device",
            "/dev/sda",
            &format!("--pxe={}", iso.display()),
            "--pxe-base-url",
            "http://192.0.2.10/pxe",
        ],
    );
    let installer = coreos_installer();
    let role_iso = out.join("media/master.iso");
    let inspect = bootgen(args!["inspect", &role_iso]);
    assert!(String::from_utf8_lossy(&inspect.stdout).contains("installs to: /dev/sda"));
    // The bootstrap host's own ISO installs bootstrap.ign, with its keyfiles in the live initrd.
    let bootstrap = out.join("media/hosts/bootstrap.iso");
    let members = unpack_area(
        &bootstrap,
        "/images/ignition.img",
        &dir.path().join("bootstrap"),
    );
    assert!(
        members.contains_key("etc/coreos-firstboot-network/eno1.nmconnection"),
        "{:?}",
        members.keys().collect::<Vec<_>>()
    );
    if let Some(installer) = &installer {
        let shown = run_ok(
            Command::new(installer)
                .args(["iso", "ignition", "show"])
                .arg(&bootstrap),
        );
        let installed = config_files(&shown.stdout)
            .remove("/etc/coreos/dest.ign")
            .map(|(_, contents)| contents);
        assert!(
            installed == Some(fs::read(out.join("bootstrap.ign")).unwrap()),
            "the bootstrap host's ISO installs another config"
        );
    }
    for host in ["master-0", "master-1", "master-2"] {
        let media = out.join(format!("media/hosts/{host}.iso"));
        let host_config = fs::read(out.join(format!("hosts/{host}.ign"))).unwrap();
        let inspect = bootgen(args!["inspect", &media]);
        let text = String::from_utf8_lossy(&inspect.stdout);
        assert!(text.contains("installs to: /dev/sda"), "{host}: {text}");
        // The keyfiles the host's config writes, and those the ISO's live initrd carries.
        let written: BTreeMap<String, Vec<u8>> = config_files(&host_config)
            .into_iter()
            .filter_map(|(path, (_, contents))| {
                let name = path.strip_prefix("/etc/NetworkManager/system-connections/")?;
                Some((name.to_string(), contents))
            })
            .collect();
        assert!(!written.is_empty(), "{host}: its config carries keyfiles");
        // Each matches its NIC by MAC, whatever the machine's kernel names it.
        for (name, contents) in &written {
            let text = String::from_utf8_lossy(contents);
            assert!(
                !text.contains("interface-name=eno"),
                "{host} {name}: {text}"
            );
        }
        assert!(
            written
                .values()
                .any(|c| String::from_utf8_lossy(c).contains("mac-address=")),
            "{host}: no keyfile matches a NIC by MAC"
        );
        let members = unpack_area(&media, "/images/ignition.img", &dir.path().join(host));
        let carried: BTreeMap<String, Vec<u8>> = members
            .iter()
            .filter_map(|(path, contents)| {
                let name = path.strip_prefix("etc/coreos-firstboot-network/")?;
                Some((name.to_string(), contents.clone()))
            })
            .collect();
        assert_eq!(
            carried, written,
            "{host}: the live initrd's network is the host's"
        );
        if let Some(installer) = &installer {
            let (installed, network) = read_by_coreos_installer(
                installer,
                ["iso", "ignition", "show"],
                ["iso", "network", "extract"],
                &media,
                &dir.path().join(format!("{host}-network")),
            );
            assert!(
                installed == host_config,
                "{host}: the ISO installs another config"
            );
            assert_eq!(
                network, written,
                "{host}: coreos-installer extracts its keyfiles"
            );
        }
        // Its PXE entries: its own initramfs, the control-plane set's kernel and rootfs.
        let pxe = out.join("media/pxe");
        let initrd = pxe.join(format!("hosts/{host}-initrd.img"));
        assert_eq!(mode_of(&initrd), 0o600, "the config's carrier");
        let ipxe = fs::read_to_string(pxe.join(format!("hosts/{host}.ipxe"))).unwrap();
        for expected in [
            "kernel http://192.0.2.10/pxe/master-vmlinuz ".to_string(),
            format!("initrd --name main http://192.0.2.10/pxe/hosts/{host}-initrd.img"),
            "coreos.live.rootfs_url=http://192.0.2.10/pxe/master-rootfs.img ".to_string(),
        ] {
            assert!(ipxe.contains(&expected), "{host}: {ipxe}");
        }
        assert!(pxe.join("master-vmlinuz").exists() && pxe.join("master-rootfs.img").exists());
        if let Some(installer) = &installer {
            let (installed, network) = read_by_coreos_installer(
                installer,
                ["pxe", "ignition", "unwrap"],
                ["pxe", "network", "unwrap"],
                &initrd,
                &dir.path().join(format!("{host}-pxe-network")),
            );
            assert!(
                installed == host_config,
                "{host}: the initramfs installs another config"
            );
            assert_eq!(
                network, written,
                "{host}: coreos-installer unwraps its keyfiles"
            );
        }
    }
}

/// The names in `dir`, sorted (none when it is missing).
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The run's one line saying why it removes an earlier run's files holds `why`, and comes
/// before the first file removed.
fn assert_says_why_first(stdout: &str, why: &str) {
    let lines: Vec<&str> = stdout.lines().collect();
    let said = lines
        .iter()
        .position(|l| l.starts_with("removing ") && l.contains(why));
    let first_removed = lines.iter().position(|l| l.starts_with("removed "));
    assert!(
        said.is_some() && said < first_removed,
        "no line saying {why:?} before the first removal:\n{stdout}"
    );
    assert!(
        lines[said.unwrap()]
            .ends_with("they would boot machines with that run's configs and secrets"),
        "{stdout}"
    );
}

/// A re-run leaves in `media/hosts/` and `media/pxe/hosts/` the media of its own hosts only:
/// without `--iso` the hosts' ISOs go, without `--hosts` their PXE files too, and the output
/// names each file removed. The roles' media go the same way; a user's file there stays.
#[test]
fn a_rerun_removes_the_per_host_media_it_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let install_config = repo().join("fixtures/network/install-config.yaml");
    let hosts = repo().join("fixtures/network/agent-config.yaml");
    let iso_flag = format!("--iso={}", iso.display());
    let pxe_flag = format!("--pxe={}", iso.display());
    let out = dir.path().join("static");
    let run = |extra: &[&str]| {
        let mut cmd = bootgen_conformance::bootgen!();
        cmd.args([
            "ignition",
            "--now",
            "2026-01-01T00:00:00Z",
            "--force",
            "--tls-dir",
        ])
        .arg(repo().join("fixtures/pki"))
        .arg("--install-config")
        .arg(&install_config)
        .args(["--dest-device", "/dev/sda", "-o"])
        .arg(&out)
        .args(extra);
        String::from_utf8_lossy(&run_ok(&mut cmd).stdout).into_owned()
    };
    let hosts_flag = ["--hosts", hosts.to_str().unwrap()];
    let pxe = ["--pxe-base-url", "http://192.0.2.10/pxe", &pxe_flag];
    run(&[&hosts_flag[..], &pxe[..], &[&iso_flag]].concat());
    let machines = ["bootstrap", "master-0", "master-1", "master-2"];
    let isos: Vec<String> = machines.iter().map(|h| format!("{h}.iso")).collect();
    assert_eq!(names_in(&out.join("media/hosts")), isos);
    assert_eq!(names_in(&out.join("media/pxe/hosts")).len(), 12);
    fs::write(out.join("media/hosts/README"), "mine").unwrap();
    fs::write(out.join("media/rhcos-live.iso"), "mine").unwrap();

    // Without --iso: the hosts' ISOs go, their PXE files stay; the run says why first.
    let stdout = run(&[&hosts_flag[..], &pxe[..]].concat());
    assert_says_why_first(
        &stdout,
        "removing 6 files an earlier run wrote and this one did not (per-host ISOs: no --iso; ISOs: no --iso)",
    );
    assert_eq!(names_in(&out.join("media/hosts")), ["README"]);
    for iso in &isos {
        let removed = format!("removed {}", out.join("media/hosts").join(iso).display());
        assert!(stdout.contains(&removed), "{stdout}");
    }
    assert_eq!(names_in(&out.join("media/pxe/hosts")).len(), 12);
    assert_eq!(
        fs::read_to_string(out.join("media/hosts/README")).unwrap(),
        "mine"
    );
    // The roles' ISOs go too (the bootstrap's holds the earlier run's secrets); a user's
    // live ISO kept beside them stays, with a warning.
    for role in ["bootstrap", "master"] {
        let path = out.join(format!("media/{role}.iso"));
        assert!(!path.exists(), "{role}.iso stays");
        assert!(
            stdout.contains(&format!("removed {}", path.display())),
            "{stdout}"
        );
    }
    assert_eq!(fs::read(out.join("media/rhcos-live.iso")).unwrap(), b"mine");
    assert!(
        out.join("media/pxe/bootstrap.ipxe").exists(),
        "PXE sets stay"
    );

    // Without --hosts: the hosts' PXE files go, the roles' PXE sets stay.
    let stdout = run(&pxe);
    assert_says_why_first(
        &stdout,
        "removing 15 files an earlier run wrote and this one did not (per-host configs: no --hosts; per-host PXE files: no --hosts)",
    );
    assert!(names_in(&out.join("media/pxe/hosts")).is_empty());
    for suffix in ["-initrd.img", ".ipxe", "-grub.cfg"] {
        let path = out.join(format!("media/pxe/hosts/master-1{suffix}"));
        assert!(
            stdout.contains(&format!("removed {}", path.display())),
            "{stdout}"
        );
    }
    assert!(out.join("media/pxe/master.ipxe").exists());
    assert!(names_in(&out.join("hosts")).is_empty());

    // Without --pxe: the roles' PXE sets go, and the directory they leave empty.
    let stdout = run(&[]);
    assert_says_why_first(&stdout, "(PXE sets: no --pxe)");
    let path = out.join("media/pxe/bootstrap-initrd.img");
    assert!(
        stdout.contains(&format!("removed {}", path.display())),
        "{stdout}"
    );
    assert!(!out.join("media/pxe").exists());
    assert_eq!(names_in(&out.join("media")), ["hosts", "rhcos-live.iso"]);
}

#[test]
fn pxe_sets_read_back_in_coreos_installer() {
    let dir = tempfile::tempdir().unwrap();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let tree = dir
        .path()
        .join(format!("live-x86_64-{EMBED_SIZE}.tree/images/pxeboot"));
    let sno = cluster(
        dir.path(),
        "sno",
        &["--single-node", "--installation-disk", "/dev/sda"],
    );
    let out = cluster(dir.path(), "out", &[]);
    let pxe = dir.path().join("pxe");
    let url = "http://192.0.2.10/pxe";
    let output = bootgen(args![
        "pxe",
        &iso,
        "-c",
        &sno,
        "-o",
        &pxe,
        "--base-url",
        url
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let name = "bootstrap-in-place-for-live-iso";
    let output = bootgen(args![
        "pxe",
        &iso,
        "-c",
        &out.join("worker.ign"),
        "-o",
        &pxe,
        "--base-url",
        url,
        "--dest-device",
        "/dev/sda"
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    // The kernel and rootfs as the ISO has them; the initramfs its own, the config appended.
    for (ours, theirs) in [("vmlinuz", "vmlinuz"), ("rootfs.img", "rootfs.img")] {
        assert_eq!(
            fs::read(pxe.join(format!("{name}-{ours}"))).unwrap(),
            fs::read(tree.join(theirs)).unwrap()
        );
    }
    assert_eq!(
        mode_of(&pxe.join(format!("{name}-initrd.img"))),
        0o600,
        "the config's carrier"
    );
    assert_eq!(mode_of(&pxe.join(format!("{name}-vmlinuz"))), 0o644);
    let base = fs::read(tree.join("initrd.img")).unwrap();
    let initrd = fs::read(pxe.join(format!("{name}-initrd.img"))).unwrap();
    assert!(initrd.starts_with(&base) && initrd.len() > base.len());
    let ipxe = fs::read_to_string(pxe.join(format!("{name}.ipxe"))).unwrap();
    assert!(ipxe.contains(&format!("coreos.live.rootfs_url={url}/{name}-rootfs.img ignition.firstboot ignition.platform.id=metal")), "{ipxe}");
    assert!(
        ipxe.contains(&format!("initrd --name main {url}/{name}-initrd.img")),
        "{ipxe}"
    );
    let grub = fs::read_to_string(pxe.join(format!("{name}-grub.cfg"))).unwrap();
    assert!(
        grub.contains(&format!("linux {name}-vmlinuz coreos.live.rootfs_url=")),
        "{grub}"
    );
    // bootgen reads the initramfs back.
    let inspect = bootgen(args!["inspect", &pxe.join("worker-initrd.img")]);
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(
        text.contains("PXE initramfs") && text.contains("installs to: /dev/sda"),
        "{text}"
    );
    if let Some(installer) = coreos_installer() {
        let unwrapped = run_ok(
            Command::new(&installer)
                .args(["pxe", "ignition", "unwrap"])
                .arg(pxe.join(format!("{name}-initrd.img"))),
        );
        assert!(unwrapped.stdout == fs::read(sno.join(format!("{name}.ign"))).unwrap());
        let unwrapped = run_ok(
            Command::new(&installer)
                .args(["pxe", "ignition", "unwrap"])
                .arg(pxe.join("worker-initrd.img")),
        );
        let files = config_files(&unwrapped.stdout);
        assert!(files["/etc/coreos/dest.ign"].1 == fs::read(out.join("worker.ign")).unwrap());
    }
    // An existing set is not replaced without --force.
    let before = fs::read(pxe.join("worker.ipxe")).unwrap();
    let output = bootgen(args![
        "pxe",
        &iso,
        "-c",
        &out.join("worker.ign"),
        "-o",
        &pxe,
        "--base-url",
        "http://other/"
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("--force"), "{}", stderr(&output));
    assert_eq!(fs::read(pxe.join("worker.ipxe")).unwrap(), before);
    // ignition --pxe: a set per role beside the configs.
    let iso_flag = format!("--pxe={}", iso.display());
    let both = cluster(
        dir.path(),
        "both",
        &[
            &iso_flag,
            "--pxe-base-url",
            url,
            "--dest-device",
            "/dev/sda",
        ],
    );
    for role in ["bootstrap", "master"] {
        let initrd = both.join(format!("media/pxe/{role}-initrd.img"));
        let inspect = bootgen(args!["inspect", &initrd]);
        assert!(
            String::from_utf8_lossy(&inspect.stdout).contains("installs to: /dev/sda"),
            "{role}"
        );
    }
}

#[test]
fn diff_and_extract_read_what_isos_carry() {
    let dir = tempfile::tempdir().unwrap();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let config = write_small_config(dir.path());
    let make = |name: &str, device: &str| {
        let out = dir.path().join(name);
        let output = bootgen(args![
            "iso",
            &iso,
            "-c",
            &config,
            "--dest-device",
            device,
            "-o",
            &out
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        out
    };
    let (a, b) = (make("a.iso", "/dev/sda"), make("b.iso", "/dev/vdb"));
    let copy = dir.path().join("copy.iso");
    fs::copy(&a, &copy).unwrap();
    let same = bootgen(args!["diff", &a, &copy]);
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&same.stdout)
    );
    // The same config, another install target: the difference is named.
    let other = bootgen(args!["diff", &a, &b]);
    let text = String::from_utf8_lossy(&other.stdout);
    assert_eq!(other.status.code(), Some(1), "{text}");
    assert!(
        text.contains("-installs to: /dev/sda") && text.contains("+installs to: /dev/vdb"),
        "{text}"
    );
    // extract writes the installed system's files.
    let tree = dir.path().join("tree");
    let output = bootgen(args!["extract", &a, "-o", &tree]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(fs::read(tree.join("etc/motd")).unwrap(), b"hello");
}

/// Damaged images are errors, never a panic: a made live ISO with bytes of its volume
/// descriptors, directories and info files changed at random (a fixed seed), read in process;
/// and the same for an initramfs whose appended archive is damaged.
#[test]
fn damaged_images_are_errors_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    let iso = fs::read(live_iso(dir.path(), "x86_64", EMBED_SIZE)).unwrap();
    // Everything before the first file's data: descriptors, path tables, directories.
    let metadata = lba_offset(
        &dir.path().join(format!("live-x86_64-{EMBED_SIZE}.iso")),
        "/coreos/features.json",
    ) as usize
        + 2048;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |bound: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize % bound
    };
    let mut read_ok = 0;
    for _ in 0..800 {
        let mut bytes = iso.clone();
        for _ in 0..1 + next(4) {
            let at = 32 * 1024 + next(metadata - 32 * 1024);
            bytes[at] = next(256) as u8;
        }
        let mut image = std::io::Cursor::new(bytes);
        if let Ok(live) = bootgen::media::LiveIso::read(&mut image, "damaged.iso") {
            read_ok += 1;
            let customization = bootgen::media::Customization {
                live_config: Some(b"{}".to_vec()),
                ..Default::default()
            };
            if let Ok(patch) = live.plan(&customization, true) {
                patch.apply(&mut image).unwrap();
            }
        }
    }
    assert!(read_ok > 0, "some damage leaves the image readable");
    let mut members = bootgen::media::Members::new();
    members.insert(
        "config.ign".into(),
        b"{\"ignition\":{\"version\":\"3.2.0\"}}".to_vec(),
    );
    let customization = bootgen::media::Customization {
        live_config: Some(members["config.ign"].clone()),
        ..Default::default()
    };
    let features = bootgen::media::Features::default();
    let archive = bootgen::media::pxe_archive(&customization, features, "x").unwrap();
    for _ in 0..800 {
        let mut bytes = b"base initramfs".to_vec();
        bytes.extend(&archive);
        let at = 14 + next(archive.len());
        bytes[at] = next(256) as u8;
        let _ = bootgen::media::initramfs_members(&mut std::io::Cursor::new(bytes), "damaged.img");
    }
}

/// A link planted where `ignition --iso/--pxe` puts its media (`media/`, `media/hosts/`,
/// `media/pxe/`, `media/pxe/hosts/`) would send ISOs carrying the cluster's keys wherever it
/// points: the run refuses it, naming it, before writing anything, configs included.
#[test]
fn a_link_where_the_media_go_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let install_config = repo().join("fixtures/network/install-config.yaml");
    let hosts = repo().join("fixtures/network/agent-config.yaml");
    for (n, linked) in ["media", "media/hosts", "media/pxe", "media/pxe/hosts"]
        .into_iter()
        .enumerate()
    {
        let out = dir.path().join(format!("out-{n}"));
        let elsewhere = dir.path().join(format!("elsewhere-{n}"));
        fs::create_dir_all(&elsewhere).unwrap();
        let at = out.join(linked);
        fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &at).unwrap();
        let output = bootgen_conformance::bootgen!()
            .args(["ignition", "--now", "2026-01-01T00:00:00Z", "--tls-dir"])
            .arg(repo().join("fixtures/pki"))
            .arg("--install-config")
            .arg(&install_config)
            .arg("--hosts")
            .arg(&hosts)
            .arg(format!("--iso={}", iso.display()))
            .arg(format!("--pxe={}", iso.display()))
            .args(["--pxe-base-url", "http://192.0.2.10/pxe"])
            .args(["--dest-device", "/dev/sda", "-o"])
            .arg(&out)
            .output()
            .unwrap();
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{linked}: {text}");
        assert!(
            text.contains(&at.display().to_string()) && text.contains("link"),
            "{linked}: {text}"
        );
        assert!(names_in(&elsewhere).is_empty(), "{linked}: written through");
        assert!(
            !out.join("bootstrap.ign").exists(),
            "{linked}: configs written"
        );
    }
}

/// Values the node's installer or boot loader would refuse or misread (a console, a disk, a
/// kernel argument on two lines, a PXE URL or name that splits an entry) are refused when the
/// media are made, naming the flag, with nothing written; coreos-installer judges the consoles.
#[test]
fn values_the_node_would_refuse_are_refused_when_the_media_are_made() {
    let dir = tempfile::tempdir().unwrap();
    let out = cluster(dir.path(), "out", &[]);
    let master = out.join("master.ign");
    let m = master.as_os_str();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let cases: [(&[&str], &str); 6] = [
        (&["--dest-device", ""], "--dest-device"),
        (&["--dest-device", "sda"], "`/dev/sda`"),
        (&["--dest-device", "/dev/sd\na"], "--dest-device"),
        (
            &["--dest-device", "/dev/sda", "--console", "bogus"],
            "--console: \"bogus\"",
        ),
        (
            &["--dest-device", "/dev/sda", "--dest-karg-append", "a\nb"],
            "--dest-karg-append",
        ),
        (
            &["--live-karg-append", "console=ttyS0\nfoo"],
            "--live-karg-append",
        ),
    ];
    for (flags, says) in cases {
        let mut all = vec![std::ffi::OsStr::new("-c"), m];
        all.extend(flags.iter().map(std::ffi::OsStr::new));
        refused(&iso, &all, &[says]);
    }
    // The consoles bootgen takes are those coreos-installer takes, and no others.
    if let Some(installer) = coreos_installer() {
        for console in [
            "ttyS0,115200n8",
            "ttyAMA1",
            "tty0",
            "bogus",
            "ttyS0,abc",
            "ttyS0,9600n9",
        ] {
            let ours = bootgen(args![
                "iso",
                &iso,
                "-c",
                m,
                "--dest-device",
                "/dev/sda",
                "--console",
                console,
                "-o",
                &dir.path().join("ours.iso"),
                "--force"
            ]);
            let _ = fs::remove_file(dir.path().join("theirs.iso"));
            let theirs = Command::new(&installer)
                .args([
                    "iso",
                    "customize",
                    "--dest-device",
                    "/dev/sda",
                    "--dest-ignition",
                ])
                .arg(&master)
                .args(["--dest-console", console, "-o"])
                .arg(dir.path().join("theirs.iso"))
                .arg(&iso)
                .output()
                .unwrap();
            assert_eq!(
                ours.status.success(),
                theirs.status.success(),
                "{console}: bootgen {}, coreos-installer {}",
                stderr(&ours),
                stderr(&theirs)
            );
        }
    }
    // PXE: the base URL and the set's name go into boot entries unquoted.
    let pxe = dir.path().join("pxe");
    for (url, says) in [
        ("http://admin:hunter2@192.0.2.10/pxe", "credentials"),
        ("http://192.0.2.10/my pxe", "escape it as %20"),
        ("http://192.0.2.10/pxe?token=1", "query or fragment"),
        ("192.0.2.10/pxe", "no scheme"),
    ] {
        let output = bootgen(args!["pxe", &iso, "-c", m, "-o", &pxe, "--base-url", url]);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{url}: {message}");
        assert!(
            message.contains("--base-url") && message.contains(says),
            "{message}"
        );
        assert!(!message.contains("hunter2"), "{message}");
        assert!(
            !pxe.exists(),
            "{url}: the refused run wrote {}",
            pxe.display()
        );
    }
    let quoted = dir.path().join("it's worker.ign");
    fs::copy(out.join("worker.ign"), &quoted).unwrap();
    let url = "http://192.0.2.10/pxe";
    let output = bootgen(args![
        "pxe",
        &iso,
        "-c",
        &quoted,
        "-o",
        &pxe,
        "--base-url",
        url
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("give one with --name"),
        "{}",
        stderr(&output)
    );
    let output = bootgen(args![
        "pxe",
        &iso,
        "-c",
        &quoted,
        "-o",
        &pxe,
        "--base-url",
        url,
        "--name",
        "a b"
    ]);
    assert!(
        stderr(&output).contains("--name: \"a b\""),
        "{}",
        stderr(&output)
    );
    assert!(!pxe.exists());
    // `ignition` refuses them before it generates or writes anything.
    let fresh = dir.path().join("fresh");
    let iso_text = iso.to_str().unwrap();
    let cases: [&[&str]; 2] = [
        &["--iso", iso_text, "--dest-device", "sda"],
        &[
            "--pxe",
            iso_text,
            "--pxe-base-url",
            "http://u:pw@192.0.2.10/x",
            "--dest-device",
            "/dev/sda",
        ],
    ];
    for flags in cases {
        let mut all = vec![
            std::ffi::OsStr::new("ignition"),
            std::ffi::OsStr::new("-o"),
            fresh.as_os_str(),
        ];
        all.extend(flags.iter().map(std::ffi::OsStr::new));
        let output = bootgen(&all);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(!stderr(&output).contains(":pw@"), "{}", stderr(&output));
        assert!(!fresh.exists(), "{}", stderr(&output));
    }
}

/// A killed media write leaves a temporary copy of an ISO (with the config in it) beside the
/// media; `recover` and the next run remove it, and nothing else.
#[test]
fn what_a_killed_media_write_left_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let out = dir.path().join("out");
    let run = args![
        "ignition",
        "-o",
        &out,
        "--iso",
        &iso,
        "--dest-device",
        "/dev/sda"
    ];
    let make = |extra: &[&std::ffi::OsStr]| {
        let output = bootgen(&[run, extra].concat());
        assert!(output.status.success(), "{}", stderr(&output));
    };
    make(&[]);
    let media = out.join("media");
    let left = media.join(".worker.iso.Ab12Cd.bootgen-tmp");
    let kept = media.join("notes.txt");
    fs::write(&left, b"half an ISO").unwrap();
    fs::write(&kept, b"mine").unwrap();
    let output = bootgen(args!["recover", &out]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains(".worker.iso.Ab12Cd.bootgen-tmp"));
    assert!(!left.exists() && kept.exists());
    fs::write(&left, b"half an ISO").unwrap();
    make(args!["--force"]);
    assert!(!left.exists() && kept.exists());

    // Killed once its configs are in place and before their media are made: recover finishes
    // the configs and says the media are the old ones; the next run makes them again.
    let killed = bootgen_conformance::bootgen!()
        .args(run)
        .args(["--force", "--debug"])
        .env("BOOTGEN_TEST_KILL_AT_STEP", "finish")
        .output()
        .unwrap();
    assert!(!killed.status.success());
    let output = bootgen(args!["recover", &out]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("were made from the configs before the killed run"),
        "{}",
        stderr(&output)
    );
    make(args!["--force", "--debug"]);
    assert!(!out.join(bootgen::output::MEDIA_PENDING).exists());
    let again = bootgen(args!["recover", &out]);
    assert!(!stderr(&again).contains("killed run"), "{}", stderr(&again));
}

/// `bootgen iso -o` and `bootgen pxe -o` into an output directory (its `media/`, or the
/// directory itself) wait for a run that holds it: that run would otherwise replace the same
/// images, or remove the medium's temporary copy as a killed run's.
#[test]
fn media_written_into_an_output_directory_wait_for_its_lock() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let out = cluster(dir.path(), "out", &[]);
    fs::create_dir(out.join("media")).unwrap();
    let config = out.join("worker.ign");
    let mine = out.join("media/mine.iso");
    let runs: [(&[&std::ffi::OsStr], PathBuf); 2] = [
        (args!["iso", &iso, "-c", &config, "-o", &mine], mine.clone()),
        (
            args![
                "pxe",
                &iso,
                "-c",
                &config,
                "-o",
                &out,
                "--base-url",
                "http://192.0.2.1/"
            ],
            out.join("worker.ipxe"),
        ),
    ];
    for (run, written) in runs {
        let lock = bootgen::output::DirLock::acquire(
            &out,
            bootgen::output::Access::Write,
            bootgen::output::WhenBusy::Refuse,
        )
        .unwrap();
        let mut waiting = bootgen_conformance::bootgen!()
            .args(run)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(500));
        assert!(
            waiting.try_wait().unwrap().is_none(),
            "{run:?} did not wait"
        );
        assert!(
            !written.exists(),
            "{run:?} wrote while the directory was held"
        );
        drop(lock);
        let output = waiting.wait_with_output().unwrap();
        assert!(output.status.success(), "{run:?}: {}", stderr(&output));
        assert!(
            stderr(&output).contains("waiting for the other bootgen run using"),
            "{}",
            stderr(&output)
        );
        assert!(written.is_file(), "{run:?} wrote nothing");
    }
}

/// `ignition` for the static-network fixture cluster with `hosts` and one media flag, into
/// `out`, the media installing to /dev/sda (the hosts' deviceName); it must succeed.
fn static_cluster(hosts: &Path, media: &str, out: &Path) -> Output {
    let output =
        bootgen_conformance::static_network_ignition(bootgen_conformance::bootgen!(), hosts)
            .arg(media)
            .args(["--dest-device", "/dev/sda", "-o"])
            .arg(out)
            .output()
            .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    output
}

/// The hosts file's `bootArtifactsBaseURL` is the PXE sets' base URL when `--pxe-base-url` is
/// absent: each role's and each host's boot entries fetch from it.
#[test]
fn pxe_sets_are_served_from_the_hosts_files_boot_artifacts_url() {
    let dir = tempfile::tempdir().unwrap();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let hosts = dir.path().join("agent-config.yaml");
    let text = fs::read_to_string(repo().join("fixtures/network/agent-config.yaml")).unwrap();
    fs::write(
        &hosts,
        format!("bootArtifactsBaseURL: http://192.0.2.77/artifacts\n{text}"),
    )
    .unwrap();
    let out = dir.path().join("out");
    static_cluster(&hosts, &format!("--pxe={}", iso.display()), &out);
    for entry in ["media/pxe/master.ipxe", "media/pxe/hosts/master-0.ipxe"] {
        let text = fs::read_to_string(out.join(entry)).unwrap();
        assert!(
            text.contains("http://192.0.2.77/artifacts/"),
            "{entry}: {text}"
        );
    }
}

/// A cluster without compute replicas gets no compute media: nothing would boot from them.
#[test]
fn a_cluster_without_compute_replicas_gets_no_compute_media() {
    let dir = tempfile::tempdir().unwrap();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let install_config = dir.path().join("install-config.yaml");
    let text = fs::read_to_string(repo().join("fixtures/install-configs/valid/minimal.yaml"))
        .unwrap()
        .replacen("  replicas: 2\n", "  replicas: 0\n", 1);
    fs::write(&install_config, text).unwrap();
    let install = install_config.to_str().unwrap().to_string();
    let iso_flag = format!("--iso={}", iso.display());
    let pxe_flag = format!("--pxe={}", iso.display());
    let out = cluster(
        dir.path(),
        "out",
        &[
            "--install-config",
            &install,
            &iso_flag,
            &pxe_flag,
            "--pxe-base-url",
            "http://192.0.2.10/pxe",
            "--dest-device",
            "/dev/sda",
        ],
    );
    let media = names_in(&out.join("media"));
    assert!(media.iter().any(|n| n == "master.iso"), "{media:?}");
    assert!(media.iter().all(|n| !n.starts_with("worker")), "{media:?}");
    let pxe = names_in(&out.join("media/pxe"));
    assert!(pxe.iter().any(|n| n == "master.ipxe"), "{pxe:?}");
    assert!(pxe.iter().all(|n| !n.starts_with("worker")), "{pxe:?}");
}

/// After a run with `--hosts`, one line a host: the files it boots from, the disk its install
/// media install to, its addresses.
#[test]
fn a_run_ends_with_one_line_a_host_naming_its_media_disk_and_addresses() {
    let dir = tempfile::tempdir().unwrap();
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let out = dir.path().join("static");
    let hosts = repo().join("fixtures/network/agent-config.yaml");
    let output = static_cluster(&hosts, &format!("--iso={}", iso.display()), &out);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("host ")).collect();
    let o = out.display();
    assert_eq!(
        lines,
        [
            format!("host bootstrap (bootstrap): {o}/bootstrap.ign, {o}/media/hosts/bootstrap.iso; disk /dev/sda; 192.168.111.10/24 on eno1"),
            format!("host master-0 (master): {o}/hosts/master-0.ign, {o}/media/hosts/master-0.iso; disk /dev/sda; 192.168.111.20/24 on bond0.300"),
            format!("host master-1 (master): {o}/hosts/master-1.ign, {o}/media/hosts/master-1.iso; disk /dev/sda; 192.168.111.21/24 on bond0.300"),
            format!("host master-2 (master): {o}/hosts/master-2.ign, {o}/media/hosts/master-2.iso; disk /dev/sda; 192.168.111.22/24 on eno1, fd2e:6f44:5dd8:c956::22/64 on eno1"),
        ],
        "{stdout}"
    );
}

/// `bootgen iso --network-keyfile` holds the keyfile to NetworkManager's rules as `ignition`
/// does: `method=manul` is refused naming the file, key and value, with no ISO written.
#[test]
fn iso_refuses_a_keyfile_network_manager_would_not_take() {
    let dir = tempfile::tempdir().unwrap();
    let out = cluster(dir.path(), "out", &[]);
    let iso = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let keyfile = dir.path().join("eth0.nmconnection");
    fs::write(
        &keyfile,
        "[connection]\nid=eth0\ntype=ethernet\n\n[ipv4]\nmethod=manul\n",
    )
    .unwrap();
    let made = dir.path().join("master.iso");
    let output = bootgen_conformance::bootgen!()
        .arg("iso")
        .arg(&iso)
        .arg("-c")
        .arg(out.join("master.ign"))
        .args(["--dest-device", "/dev/sda", "--network-keyfile"])
        .arg(&keyfile)
        .arg("-o")
        .arg(&made)
        .output()
        .unwrap();
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!("{}:6", keyfile.display()))
            && text.contains("[ipv4] method")
            && text.contains("`manul`"),
        "{text}"
    );
    assert!(!made.exists());
}
