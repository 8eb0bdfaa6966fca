//! Nothing lost: a run that fails part way (the disk fills up between files) or is killed with
//! SIGKILL while writing leaves the previous output directory exactly as it was; --force
//! replaces configs but never the keys.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// relative path -> (mode, inode, bytes)
type Tree = BTreeMap<String, (u32, u64, Vec<u8>)>;

fn tree(dir: &Path) -> Tree {
    bootgen_conformance::dir_tree(dir)
        .unwrap()
        .into_iter()
        .map(|(path, f)| (path, (f.mode, f.inode, f.bytes)))
        .collect()
}

/// Contents and modes, without inodes (restoring the old state between tries makes new ones).
fn contents(tree: &Tree) -> BTreeMap<String, (u32, Vec<u8>)> {
    tree.iter()
        .map(|(k, (m, _, b))| (k.clone(), (*m, b.clone())))
        .collect()
}

fn bootgen(out: &Path, extra: &[&str]) -> Command {
    bootgen_with_keys(out, "ecdsa-p256", extra)
}

/// RSA where two runs must give the same bytes: re-issuing a certificate signs it again, and
/// ECDSA signatures differ on every signing while RSA's (PKCS#1 v1.5) do not.
fn bootgen_with_keys(out: &Path, algorithm: &str, extra: &[&str]) -> Command {
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.args(["ignition", "--key-algorithm", algorithm, "--output"])
        .arg(out)
        .args(extra)
        .env("SOURCE_DATE_EPOCH", "1767229200");
    cmd
}

fn manifests(dir: &Path, count: usize, size: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for i in 0..count {
        let filler: String = (0..size / 64)
            .map(|j| format!("  k{j:05}: \"{:0>48}\"\n", i * j))
            .collect();
        std::fs::write(
            dir.join(format!("cm-{i:05}.yaml")),
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: default\ndata:\n{filler}"),
        )
        .unwrap();
    }
}

/// A write's scratch files left in `parent` (the live-ISO estimate is an output, written and
/// committed with the rest, not scratch).
fn leftovers(parent: &Path) -> Vec<String> {
    std::fs::read_dir(parent)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| is_scratch(n))
        .collect()
}

fn is_scratch(name: &str) -> bool {
    (name.starts_with(".bootgen") || name.contains(".bootgen-"))
        && name != bootgen::output::ISO_ESTIMATE_FILE
        && name != bootgen::output::LOCK_FILE
}

fn is_root() -> bool {
    rustix_like_uid() == 0
}

fn rustix_like_uid() -> u32 {
    std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(1)
}

struct Tmpfs(PathBuf);

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_part_way_through_leaves_the_previous_output() {
    if !is_root() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run as root to mount a tmpfs"
        );
        eprintln!("SKIPPED: mounting a small tmpfs needs root");
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let mount = scratch.path().join("small-disk");
    std::fs::create_dir(&mount).unwrap();
    let status = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=3m", "tmpfs"])
        .arg(&mount)
        .status()
        .unwrap();
    assert!(status.success());
    let _guard = Tmpfs(mount.clone());
    let out = mount.join("out");
    let first = bootgen(&out, &[]).output().unwrap();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let before = tree(&out);

    // Fill the disk, then free ~300 KiB: enough to start writing, not enough to finish.
    let filler = mount.join("filler");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&filler).unwrap();
        let chunk = vec![0u8; 64 * 1024];
        while f.write_all(&chunk).is_ok() {}
        let _ = f.flush();
    }
    let len = std::fs::metadata(&filler).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&filler)
        .unwrap()
        .set_len(len.saturating_sub(300 * 1024))
        .unwrap();

    let big = scratch.path().join("manifests");
    manifests(&big, 40, 20 * 1024);
    let second = bootgen(&out, &["--force", "--manifests-dir", big.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "the run must fail: {stderr}");
    assert!(
        stderr.contains("No space left") || stderr.contains("os error 28"),
        "{stderr}"
    );
    assert_eq!(tree(&out), before, "previous output changed");
    for dir in [&mount, &out] {
        assert!(
            leftovers(dir).is_empty(),
            "staging left behind: {:?}",
            leftovers(dir)
        );
    }
}

/// Where the output directory lives: the three shapes users give bootgen.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// A plain directory.
    Plain,
    /// A directory that is itself a mount point (a container's `-v $PWD/out:/out`, NFS, tmpfs).
    MountPoint,
    /// A symlink to a directory elsewhere.
    Symlink,
}

/// Prepares the output directory of `place` below `scratch`; the guard unmounts a tmpfs.
fn output_dir(scratch: &Path, place: Place) -> Option<(PathBuf, Option<Tmpfs>)> {
    let out = scratch.join("out");
    match place {
        Place::Plain => Some((out, None)),
        Place::MountPoint => {
            if !is_root() {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "CI must run as root to mount a tmpfs"
                );
                eprintln!("SKIPPED: mounting a tmpfs needs root");
                return None;
            }
            std::fs::create_dir(&out).unwrap();
            // A tmpfs is 1777 unless told otherwise, and an output directory every user may
            // write is refused (foreign_files.rs): mounted as a user would for bootgen.
            let status = Command::new("mount")
                .args(["-t", "tmpfs", "-o", "size=64m,mode=0755", "tmpfs"])
                .arg(&out)
                .status()
                .unwrap();
            assert!(status.success());
            let guard = Tmpfs(out.clone());
            Some((out, Some(guard)))
        }
        Place::Symlink => {
            let real = scratch.join("elsewhere/real-out");
            std::fs::create_dir_all(&real).unwrap();
            std::os::unix::fs::symlink(&real, &out).unwrap();
            Some((out, None))
        }
    }
}

/// Empties `dir` (keeping the directory itself: it may be a mount point or a link's target) and
/// puts `tree` back.
fn restore(dir: &Path, tree: &Tree) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            std::fs::remove_dir_all(&path).unwrap();
        } else {
            std::fs::remove_file(&path).unwrap();
        }
    }
    copy_tree(tree, dir);
}

fn kill_at(out: &Path, step: usize, extra: &[&str]) -> std::process::ExitStatus {
    bootgen_with_keys(out, "rsa2048", extra)
        .env("BOOTGEN_TEST_KILL_AT_STEP", step.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
}

/// Kills a `--force` run that changes the cluster at every step of its write, in every place an
/// output directory can be. After each kill the directory holds the previous output, or the
/// complete new one, or a commit record that readers refuse and the next run completes.
fn killed_at_every_step(place: Place) {
    let scratch = tempfile::tempdir().unwrap();
    let Some((out, _guard)) = output_dir(scratch.path(), place) else {
        return;
    };
    let first = bootgen_with_keys(&out, "rsa2048", &[]).output().unwrap();
    assert!(
        first.status.success(),
        "{place:?}: {}",
        String::from_utf8_lossy(&first.stderr)
    );
    let before = tree(&out);
    let link_target = std::fs::read_link(&out).ok();

    // A change that rewrites most files (another cluster name re-issues certificates) and adds
    // new ones (extra manifests), so the write has many steps.
    let config = scratch.path().join("install-config.yaml");
    std::fs::write(
        &config,
        bootgen::config::DEFAULT_INSTALL_CONFIG.replace("name: example", "name: other"),
    )
    .unwrap();
    let big = scratch.path().join("manifests");
    manifests(&big, 20, 2 * 1024);
    let change = [
        "--force",
        "--replace-cluster",
        "--install-config",
        config.to_str().unwrap(),
        "--manifests-dir",
        big.to_str().unwrap(),
    ];
    // The complete new result, for comparison (then back to the old one).
    let done = bootgen_with_keys(&out, "rsa2048", &change)
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let after = contents(&tree(&out));
    assert!(contents(&before) != after);
    restore(&out, &before);

    let (mut old, mut new, mut pending) = (0, 0, 0);
    for step in 1.. {
        let status = kill_at(&out, step, &change);
        if status.success() {
            assert!(
                contents(&tree(&out)) == after,
                "{place:?}: finished run differs"
            );
            break;
        }
        assert!(step < 2000, "{place:?}: never finished");
        // The staging directory of a run killed before its commit point is hidden and removed
        // by the next run: what the user sees is the rest.
        let state: BTreeMap<_, _> = contents(&tree(&out))
            .into_iter()
            .filter(|(path, _)| !path.starts_with(bootgen::output::STAGING_DIR))
            .collect();
        if out.join(bootgen::output::COMMIT_RECORD).exists() {
            pending += 1;
            // Readers refuse the half-written directory, naming the way out...
            let inspect = bootgen_conformance::bootgen!()
                .arg("inspect")
                .arg(&out)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&inspect.stderr);
            assert_eq!(
                inspect.status.code(),
                Some(1),
                "{place:?} step {step}: {stderr}"
            );
            assert!(stderr.contains("was killed before it finished"), "{stderr}");
            assert!(
                stderr.contains(&format!("bootgen recover {}", out.display())),
                "{stderr}"
            );
            // So do the certificate report and the package (which would ship the mix).
            if pending == 1 {
                let tarball = out.with_extension("tgz");
                for args in [
                    vec![
                        "inspect".into(),
                        "--certs".into(),
                        out.clone().into_os_string(),
                    ],
                    vec![
                        "package".into(),
                        out.clone().into_os_string(),
                        "-o".into(),
                        tarball.clone().into_os_string(),
                    ],
                ] {
                    let refused = bootgen_conformance::bootgen!()
                        .args(&args)
                        .output()
                        .unwrap();
                    let stderr = String::from_utf8_lossy(&refused.stderr);
                    assert_eq!(refused.status.code(), Some(1), "{args:?}: {stderr}");
                    assert!(stderr.contains("was killed before it finished"), "{stderr}");
                }
                assert!(!tarball.exists());
            }
            // ...and completing it alone (that way out), or the next run before its own work,
            // gives the complete new output.
            if pending % 2 == 0 {
                let recover = bootgen_conformance::bootgen!()
                    .arg("recover")
                    .arg(&out)
                    .output()
                    .unwrap();
                let stdout = String::from_utf8_lossy(&recover.stdout);
                assert!(recover.status.success(), "{recover:?}");
                assert!(
                    stdout.contains("finished the interrupted write"),
                    "{stdout}"
                );
            } else {
                let next = bootgen_with_keys(&out, "rsa2048", &change)
                    .output()
                    .unwrap();
                let stderr = String::from_utf8_lossy(&next.stderr);
                assert!(next.status.success(), "{stderr}");
                assert!(
                    stderr.contains("finished an interrupted run's write"),
                    "{stderr}"
                );
            }
            let now = contents(&tree(&out));
            let differing: Vec<_> = after
                .keys()
                .chain(now.keys())
                .filter(|k| after.get(*k) != now.get(*k))
                .collect();
            assert!(
                differing.is_empty(),
                "{place:?} step {step}: not completed: {differing:?}"
            );
        } else if state == contents(&before) {
            old += 1;
        } else {
            let differing: Vec<_> = after
                .keys()
                .chain(state.keys())
                .filter(|k| after.get(*k) != state.get(*k))
                .collect();
            assert!(
                differing.is_empty(),
                "{place:?}: killed at step {step}: a mix of old and new: {differing:?}"
            );
            new += 1;
        }
        restore(&out, &before);
    }
    assert!(
        old > 5 && pending > 5,
        "{place:?}: old {old}, pending {pending}, new {new}"
    );
    // The directory is still what the user made it: a mount point or a link to the same place.
    assert_eq!(std::fs::read_link(&out).ok(), link_target);
    let leftovers = leftovers(&out);
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn killed_at_every_step_of_a_plain_directory() {
    killed_at_every_step(Place::Plain);
}

#[test]
fn killed_at_every_step_of_a_mount_point() {
    killed_at_every_step(Place::MountPoint);
}

#[test]
fn killed_at_every_step_through_a_symlink() {
    killed_at_every_step(Place::Symlink);
}

/// A symlinked output directory stays a symlink, and its target receives the files; keys are
/// the very same files after `--force`.
#[test]
fn a_symlinked_output_is_written_through_and_keys_stay() {
    let scratch = tempfile::tempdir().unwrap();
    let Some((out, _)) = output_dir(scratch.path(), Place::Symlink) else {
        return;
    };
    let real = std::fs::read_link(&out).unwrap();
    assert!(bootgen(&out, &[]).status().unwrap().success());
    assert!(real.join("bootstrap.ign").is_file());
    let keys: Vec<_> = tree(&real)
        .into_iter()
        .filter(|(k, _)| k.ends_with(".key"))
        .collect();
    assert!(!keys.is_empty());
    let again = bootgen(&out, &["--force", "--debug"]).output().unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(
        std::fs::read_link(&out).unwrap(),
        real,
        "the link was replaced"
    );
    let after = tree(&real);
    for (key, (_, inode, bytes)) in keys {
        assert_eq!(after[&key].1, inode, "{key} was replaced");
        assert_eq!(after[&key].2, bytes, "{key} changed");
    }
}

/// An interrupted write planted in a directory (staged files and a commit record, as anyone
/// who can write there could leave) is never finished through a link: not by a run, not by
/// `bootgen recover`. Nothing lands outside, and the run stops naming the link.
#[test]
fn an_interrupted_write_is_never_finished_through_a_link() {
    use bootgen::output::{COMMIT_RECORD, STAGING_DIR};
    let scratch = tempfile::tempdir().unwrap();
    let (out, outside) = (scratch.path().join("out"), scratch.path().join("outside"));
    std::fs::create_dir_all(out.join(STAGING_DIR).join("auth")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        out.join(STAGING_DIR).join("auth/authorized_keys"),
        "planted",
    )
    .unwrap();
    std::fs::write(out.join(COMMIT_RECORD), "auth/authorized_keys\n").unwrap();
    std::os::unix::fs::symlink("../outside", out.join("auth")).unwrap();
    for run in [
        bootgen(&out, &[]).output().unwrap(),
        bootgen_conformance::bootgen!()
            .arg("recover")
            .arg(&out)
            .output()
            .unwrap(),
    ] {
        let said = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{said}");
        assert!(said.contains("auth") && said.contains("link"), "{said}");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "{said}");
        assert!(out.join(COMMIT_RECORD).exists());
    }
}

fn copy_tree(tree: &Tree, dir: &Path) {
    for (relative, (mode, _, bytes)) in tree {
        let path = dir.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(*mode)).unwrap();
    }
}

#[test]
fn another_clusters_output_is_not_replaced_without_asking() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    let config = scratch.path().join("prod.yaml");
    std::fs::write(
        &config,
        bootgen::config::DEFAULT_INSTALL_CONFIG
            .replace("name: example", "name: prod")
            .replace("baseDomain: example.com", "baseDomain: corp.example"),
    )
    .unwrap();
    let made = bootgen(&out, &["--install-config", config.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let before = tree(&out);
    // What the recovery hint used to suggest, run where no install-config.yaml lies: the
    // embedded example cluster, with --force.
    for extra in [&["--force"][..], &[]] {
        let example = bootgen(&out, extra)
            .current_dir(scratch.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&example.stderr);
        assert_eq!(example.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("cluster `prod` (API https://api.prod.corp.example:6443"),
            "{stderr}"
        );
        assert!(stderr.contains("not of cluster `example`"), "{stderr}");
        assert!(stderr.contains("--replace-cluster"), "{stderr}");
        // Nothing was re-issued on disk, so nothing is said to be.
        assert!(!stderr.contains("re-issued"), "{stderr}");
        assert!(
            tree(&out) == before,
            "the refused run changed {}",
            out.display()
        );
    }
    // The same cluster again is no other cluster; asked for, the other one replaces it.
    let again = bootgen(
        &out,
        &["--force", "--install-config", config.to_str().unwrap()],
    )
    .output()
    .unwrap();
    assert!(again.status.success(), "{again:?}");
    let replaced = bootgen(&out, &["--force", "--replace-cluster"])
        .current_dir(scratch.path())
        .output()
        .unwrap();
    assert!(replaced.status.success(), "{replaced:?}");
    // It keeps the other cluster's keys, as ever, and says what that means.
    let said = String::from_utf8_lossy(&replaced.stderr);
    assert!(
        said.contains("note: re-issued kube-apiserver-lb-server: SANs changed"),
        "{said}"
    );
    assert!(
        said.contains("warning:")
            && said.contains("keeps its PKI")
            && said.contains("new directory"),
        "{said}"
    );
    // Run again for the same cluster: nothing replaced, nothing to warn of.
    let again = bootgen(&out, &["--force", "--replace-cluster"])
        .current_dir(scratch.path())
        .output()
        .unwrap();
    assert!(again.status.success(), "{again:?}");
    assert!(!String::from_utf8_lossy(&again.stderr).contains("keeps its PKI"));
    // Without metadata.json and the admin kubeconfig, master.ign still names the cluster.
    std::fs::remove_file(out.join("metadata.json")).unwrap();
    std::fs::remove_file(out.join("auth/kubeconfig")).unwrap();
    let before = tree(&out);
    let other = bootgen(
        &out,
        &["--force", "--install-config", config.to_str().unwrap()],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&other.stderr);
    assert_eq!(other.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "a cluster of unknown name (machine configs from api-int.example.example.com)"
        ),
        "{stderr}"
    );
    assert!(
        tree(&out) == before,
        "the refused run changed {}",
        out.display()
    );
}

/// A `--force` run that replaces files someone edited names each of them; a re-run that
/// changes nothing names none.
#[test]
fn a_forced_run_names_the_edited_files_it_replaces() {
    let scratch = tempfile::tempdir().unwrap();
    // A directory name with a space: the printed login command is quoted to paste as it is.
    let out = scratch.path().join("out dir");
    let run = || bootgen(&out, &["--force"]).output().unwrap();
    let first = run();
    assert!(first.status.success());
    let key = out.join("auth/bootstrap-ssh-key");
    assert!(
        String::from_utf8_lossy(&first.stdout)
            .contains(&format!("ssh -i '{}' core@", key.display())),
        "{}",
        String::from_utf8_lossy(&first.stdout)
    );
    let again = run();
    assert!(again.status.success());
    assert!(!String::from_utf8_lossy(&again.stderr).contains("replaced"));
    let master = std::fs::read_to_string(out.join("master.ign")).unwrap();
    std::fs::write(
        out.join("master.ign"),
        master.replace("master", "master-custom"),
    )
    .unwrap();
    let mut kubeconfig = std::fs::read_to_string(out.join("auth/kubeconfig")).unwrap();
    kubeconfig.push_str("# my edit\n");
    std::fs::write(out.join("auth/kubeconfig"), kubeconfig).unwrap();
    let forced = run();
    let stderr = String::from_utf8_lossy(&forced.stderr);
    assert!(forced.status.success(), "{stderr}");
    assert!(
        stderr.contains("replaced 2 file(s) that held other contents: auth/kubeconfig, master.ign"),
        "{stderr}"
    );
}

/// Keys and credentials someone made readable to others are made private again by the next
/// run, and said; the boot config (which people serve from a web server) keeps its mode, with a
/// warning.
#[test]
fn secrets_others_could_read_are_made_private_again() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    let run = || bootgen(&out, &["--force"]).output().unwrap();
    assert!(run().status.success());
    let mode = |relative: &str| {
        std::fs::symlink_metadata(out.join(relative))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("bootstrap.ign"), 0o600);
    let set = |relative: &str, mode: u32| {
        std::fs::set_permissions(out.join(relative), std::fs::Permissions::from_mode(mode)).unwrap()
    };
    for (relative, loose) in [
        ("tls/root-ca.key", 0o644),
        ("auth/kubeadmin-password", 0o644),
        ("bootstrap.ign", 0o644),
        ("tls", 0o755),
        ("auth", 0o755),
    ] {
        set(relative, loose);
    }
    let again = run();
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{stderr}");
    assert!(
        stderr.contains("made private again (others could read them): auth/, tls/")
            && stderr.contains("auth/kubeadmin-password")
            && stderr.contains("tls/root-ca.key"),
        "{stderr}"
    );
    assert!(
        stderr.contains("bootstrap.ign is readable by others (mode 0644)"),
        "{stderr}"
    );
    for (relative, private) in [
        ("tls/root-ca.key", 0o600),
        ("auth/kubeadmin-password", 0o600),
        ("tls", 0o700),
        ("auth", 0o700),
    ] {
        assert_eq!(mode(relative), private, "{relative}");
    }
    assert_eq!(mode("bootstrap.ign"), 0o644);
    // Nothing to make private: nothing said.
    set("bootstrap.ign", 0o600);
    let quiet = run();
    let stderr = String::from_utf8_lossy(&quiet.stderr);
    assert!(
        !stderr.contains("private again") && !stderr.contains("readable by others"),
        "{stderr}"
    );
}
