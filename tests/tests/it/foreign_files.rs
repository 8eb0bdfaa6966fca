//! No file another user controls: what a second, unprivileged user on the same machine could
//! do to a run of bootgen (as root, or as any other user) to get the cluster's keys, each
//! reproduced and shown refused. The other user is uid/gid 65534 (`nobody`): the files they
//! "planted" are chowned to it, which needs root; outside CI a run as another user skips, under
//! CI (root) a failed chown fails the test.

use bootgen_conformance::live_iso::{coreos_installer, live_iso, EMBED_SIZE};
use bootgen_conformance::repo;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The uid and gid of the other user.
const OTHER: u32 = 65534;

/// Gives `path` to the other user, or `false` (after saying so) where this process cannot.
fn give_to_other_user(path: &Path) -> bool {
    match std::os::unix::fs::lchown(path, Some(OTHER), Some(OTHER)) {
        Ok(()) => true,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "cannot chown {} to uid {OTHER} ({e}): CI runs as root and must run this test",
                path.display()
            );
            eprintln!("SKIPPED: cannot chown to another user ({e}); run as root");
            false
        }
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn mode_of(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// `bootgen ignition` of the example cluster into `out`, with the fixture PKI unless `tls`.
fn ignition(out: &Path, tls: Option<&Path>) -> Output {
    let pki = repo().join("fixtures/pki");
    bootgen_conformance::bootgen!()
        .args(["ignition", "--now", "2026-01-01T00:00:00Z", "--tls-dir"])
        .arg(tls.unwrap_or(&pki))
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

/// A copy of the fixture PKI at `dir`, as someone would copy it.
fn copy_pki(dir: &Path) -> PathBuf {
    fs::create_dir(dir).unwrap();
    for entry in fs::read_dir(repo().join("fixtures/pki")).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    dir.to_path_buf()
}

#[test]
fn a_tls_dir_another_user_planted_is_refused_before_a_key_is_used() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    fs::create_dir(&out).unwrap();
    // The other user made OUTPUT/tls, holding CAs whose keys they know.
    let planted = copy_pki(&out.join("tls"));
    if !give_to_other_user(&planted) {
        return;
    }
    let output = bootgen_conformance::bootgen!()
        .args(["ignition", "--now", "2026-01-01T00:00:00Z", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains(&format!("belongs to user {OTHER}")),
        "{message}"
    );
    assert!(
        message.contains("write to a new output directory"),
        "{message}"
    );
    assert!(!message.contains("made private again"), "{message}");
    assert!(!out.join("bootstrap.ign").exists(), "nothing is written");
    assert!(!out.join("auth").exists(), "nothing is written");

    // The same PKI named with --tls-dir, from elsewhere: refused too, naming the PKI.
    let elsewhere = dir.path().join("elsewhere");
    let output = ignition(&elsewhere, Some(&planted));
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains(&format!("{} belongs to user {OTHER}", planted.display())),
        "{message}"
    );
    assert!(
        message.contains("reuse only a PKI of your own"),
        "{message}"
    );
    assert!(!elsewhere.join("bootstrap.ign").exists());

    // A key file of the other user's inside a PKI of one's own is refused as well.
    let own = copy_pki(&dir.path().join("own-pki"));
    if !give_to_other_user(&own.join("root-ca.key")) {
        return;
    }
    let output = ignition(&dir.path().join("third"), Some(&own));
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(message.contains("root-ca.key belongs to user"), "{message}");
}

#[test]
fn an_output_directory_others_may_write_is_refused_before_it_is_used() {
    let dir = tempfile::tempdir().unwrap();
    // Every user may write it (the other user made it 0777 for the victim to use).
    let out = dir.path().join("open");
    fs::create_dir(&out).unwrap();
    fs::set_permissions(&out, fs::Permissions::from_mode(0o777)).unwrap();
    let output = ignition(&out, None);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains("may be written by every user") && message.contains("mode 0777"),
        "{message}"
    );
    assert_eq!(
        fs::read_dir(&out).unwrap().count(),
        0,
        "not even a lock file is left"
    );
    // Another user's directory, private or not.
    let theirs = dir.path().join("theirs");
    fs::create_dir(&theirs).unwrap();
    if !give_to_other_user(&theirs) {
        return;
    }
    let output = ignition(&theirs, None);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains(&format!("belongs to user {OTHER}")),
        "{message}"
    );
    // A directory of one's own is taken, and its auth/ and tls/ are private.
    let own = dir.path().join("own");
    let output = ignition(&own, None);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(mode_of(&own.join("auth")) & 0o077, 0);
}

/// A cluster made with the fixture PKI, and a live ISO beside it.
fn cluster_and_iso(dir: &Path) -> (PathBuf, PathBuf) {
    let out = dir.join("out");
    let output = ignition(&out, None);
    assert!(output.status.success(), "{}", stderr(&output));
    (out, live_iso(dir, "x86_64", EMBED_SIZE))
}

#[test]
fn an_in_place_iso_swapped_for_a_link_after_its_checks_is_not_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let (out, iso) = cluster_and_iso(dir.path());
    // What the other user wants the keys written into: a file they can read.
    let victim = dir.path().join("victim");
    fs::write(&victim, vec![b'v'; 4 * EMBED_SIZE]).unwrap();
    let before = fs::read(&victim).unwrap();
    let run = bootgen_conformance::bootgen!()
        .arg("iso")
        .arg(&iso)
        .arg("-c")
        .arg(out.join("bootstrap.ign"))
        .env("BOOTGEN_TEST_PAUSE_BEFORE_WRITE_MS", "1500")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // While bootgen waits between its checks and its write, the ISO's name becomes a link.
    std::thread::sleep(std::time::Duration::from_millis(700));
    let moved = dir.path().join("moved.iso");
    fs::rename(&iso, &moved).unwrap();
    std::os::unix::fs::symlink(&victim, &iso).unwrap();
    let output = run.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        fs::read(&victim).unwrap(),
        before,
        "the link's target is untouched"
    );
    // The image checked is the image written: the config is in the moved ISO, as the real
    // coreos-installer reads it.
    if let Some(installer) = coreos_installer() {
        let shown = Command::new(installer)
            .args(["iso", "ignition", "show"])
            .arg(&moved)
            .output()
            .unwrap();
        assert!(shown.status.success(), "{}", stderr(&shown));
        assert_eq!(shown.stdout, fs::read(out.join("bootstrap.ign")).unwrap());
    }
}

#[test]
fn in_place_media_holding_keys_are_made_private_and_foreign_ones_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (out, iso) = cluster_and_iso(dir.path());
    fs::set_permissions(&iso, fs::Permissions::from_mode(0o644)).unwrap();
    let copy = dir.path().join("copy.iso");
    fs::copy(&iso, &copy).unwrap();
    let bootstrap = out.join("bootstrap.ign");
    let output = bootgen_conformance::bootgen!()
        .arg("iso")
        .arg(&iso)
        .arg("-c")
        .arg(&bootstrap)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(mode_of(&iso), 0o600, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("made private (mode 0600, was 0644)"),
        "{}",
        stderr(&output)
    );
    // Kept readable only when asked, and said.
    let output = bootgen_conformance::bootgen!()
        .arg("iso")
        .arg(&copy)
        .arg("-c")
        .arg(&bootstrap)
        .arg("--keep-mode")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(mode_of(&copy), 0o644);
    assert!(
        stderr(&output).contains("others can read it"),
        "{}",
        stderr(&output)
    );
    // A pointer config holds no key: a worker ISO keeps its mode without a word.
    let worker_iso = dir.path().join("worker.iso");
    fs::copy(&copy, &worker_iso).unwrap();
    let output = bootgen_conformance::bootgen!()
        .arg("iso")
        .arg(&worker_iso)
        .arg("-c")
        .arg(out.join("worker.ign"))
        .arg("--force")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(mode_of(&worker_iso), 0o644);
    assert!(!stderr(&output).contains("private"), "{}", stderr(&output));
    // Another user's ISO is not written in place: they would read the keys.
    let theirs = dir.path().join("theirs.iso");
    fs::copy(&worker_iso, &theirs).unwrap();
    if !give_to_other_user(&theirs) {
        return;
    }
    let before = fs::read(&theirs).unwrap();
    let output = bootgen_conformance::bootgen!()
        .arg("iso")
        .arg(&theirs)
        .arg("-c")
        .arg(&bootstrap)
        .arg("--force")
        .output()
        .unwrap();
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains(&format!("belongs to user {OTHER}"))
            && message.contains("write a copy of the image"),
        "{message}"
    );
    assert_eq!(fs::read(&theirs).unwrap(), before);
    assert_eq!(fs::metadata(&theirs).unwrap().uid(), OTHER);
}

#[test]
fn a_config_with_keys_on_a_standard_output_others_can_read_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = cluster_and_iso(dir.path());
    let patch_into = |target: &Path, mode: u32| {
        let file = fs::File::create(target).unwrap();
        file.set_permissions(fs::Permissions::from_mode(mode))
            .unwrap();
        bootgen_conformance::bootgen!()
            .arg("patch")
            .arg(out.join("bootstrap.ign"))
            .args(["-o", "-", "--debug"])
            .stdout(file)
            .output()
            .unwrap()
    };
    // As `bootgen patch ... -o - > debug.ign` leaves it under the usual umask.
    let shared = dir.path().join("debug.ign");
    let output = patch_into(&shared, 0o644);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("standard output is a file others can read (mode 0644)"),
        "{}",
        stderr(&output)
    );
    assert!(fs::metadata(&shared).unwrap().len() > 0);
    let private = dir.path().join("private.ign");
    let output = patch_into(&private, 0o600);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        !stderr(&output).contains("others can read"),
        "{}",
        stderr(&output)
    );
}
