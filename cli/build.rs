//! Records the commit the binary is built from, for `bootgen --version`: from git when building
//! in a checkout, else from the `.cargo_vcs_info.json` cargo puts into a published package, else
//! `unknown`. Never fails the build.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let commit = from_git(&dir)
        .or_else(|| from_package(&dir))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=BOOTGEN_COMMIT={commit}");
    println!("cargo:rerun-if-changed=build.rs");
    watch(&dir.join(".cargo_vcs_info.json"));
}

/// Reruns this script when `path` changes; a path that does not exist is not watched (cargo
/// would rerun the script on every build).
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

/// `git rev-parse HEAD` in `dir`, and the files whose change means another commit.
fn from_git(dir: &Path) -> Option<String> {
    let git = |args: &[&str]| -> Option<String> {
        let output = Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .ok()?;
        let text = String::from_utf8(output.stdout).ok()?;
        (output.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
    };
    let commit = git(&["rev-parse", "HEAD"])?;
    if !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    // HEAD names a branch whose ref file (or packed-refs) moves with each commit; a worktree
    // keeps HEAD in its own git directory and the refs in the common one.
    let git_path = |name: &str| git(&["rev-parse", "--path-format=absolute", "--git-path", name]);
    let branch = git(&["symbolic-ref", "-q", "HEAD"]);
    for name in ["HEAD", "packed-refs"].into_iter().chain(branch.as_deref()) {
        if let Some(path) = git_path(name) {
            watch(Path::new(&path));
        }
    }
    Some(commit)
}

/// The `"sha1": "..."` of the `.cargo_vcs_info.json` in a package built from crates.io.
fn from_package(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
    let after = text.split_once("\"sha1\"")?.1;
    let value = after.split('"').nth(1)?;
    (value.len() >= 7 && value.bytes().all(|b| b.is_ascii_hexdigit())).then(|| value.to_string())
}
