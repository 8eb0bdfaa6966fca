//! Nothing lost: a run that fails part way (the disk fills up between files) or is killed with
//! SIGKILL while writing leaves the previous output directory exactly as it was; --force
//! replaces configs but never the keys.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

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
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bootgen-under-test"));
    cmd.args(["ignition", "--key-algorithm", "ecdsa-p256", "--output"])
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

fn leftovers(parent: &Path) -> Vec<String> {
    std::fs::read_dir(parent)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".bootgen-"))
        .collect()
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
    assert!(
        leftovers(&mount).is_empty(),
        "staging left behind: {:?}",
        leftovers(&mount)
    );
}

#[test]
fn sigkill_while_writing_leaves_old_or_new_never_a_mix() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    let first = bootgen(&out, &[]).output().unwrap();
    assert!(first.status.success());
    let before = tree(&out);

    // Big enough that writing takes a while: ~25 MiB of manifests.
    let big = scratch.path().join("manifests");
    manifests(&big, 2500, 10 * 1024);
    let mut seen = Vec::new();
    for delay_ms in [30u64, 120, 300, 600, 900, 1300, 2000] {
        let mut child = bootgen(&out, &["--force", "--manifests-dir", big.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        seen.push((delay_ms, tree(&out)));
        // Back to the old state for the next try, if that run completed.
        if contents(&seen.last().unwrap().1) != contents(&before) {
            std::fs::remove_dir_all(&out).unwrap();
            copy_tree(&before, &out);
        }
    }
    // The complete new result, for comparison.
    let keys: Vec<_> = tree(&out)
        .into_iter()
        .filter(|(k, _)| k.ends_with(".key"))
        .map(|(k, v)| (k, v.1, v.2))
        .collect();
    assert!(!keys.is_empty());
    let done = bootgen(&out, &["--force", "--manifests-dir", big.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let after = contents(&tree(&out));
    let mut old_count = 0;
    for (delay, state) in &seen {
        let state_contents = contents(state);
        if state_contents == contents(&before) {
            old_count += 1;
        } else {
            assert_eq!(
                state_contents, after,
                "killed after {delay} ms: a mix of old and new"
            );
        }
    }
    assert!(
        old_count > 0,
        "no kill landed before the swap; the test proves nothing"
    );
    assert!(
        leftovers(scratch.path()).is_empty(),
        "{:?}",
        leftovers(scratch.path())
    );
    // --force rewrote the configs, but the keys are the very same files (same inode, same bytes).
    let final_tree = tree(&out);
    for (key, inode, bytes) in keys {
        assert_eq!(final_tree[&key].1, inode, "{key} was replaced");
        assert_eq!(final_tree[&key].2, bytes, "{key} changed");
        assert_eq!(before[&key].2, bytes, "{key} differs from the first run");
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
