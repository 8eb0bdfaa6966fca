//! `bootgen --version`: what someone who copied a binary to a bastion host needs to know about
//! it, the version, the commit it was built from and the OpenShift releases it supports.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::repo;
use std::process::Command;

fn version_of(flag: &str) -> String {
    let output = bootgen_conformance::bootgen!().arg(flag).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(output.stderr.is_empty(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn version_names_the_release_list_and_the_commit() {
    let text = version_of("--version");
    assert_eq!(text, version_of("-V"));
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with(&format!("bootgen {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    // Every supported release, from the library's own table, and the default.
    let releases = bootgen::release::supported_list();
    assert!(text.contains(&releases), "{text}");
    for profile in bootgen::release::PROFILES.iter() {
        assert!(text.contains(&profile.minor.to_string()), "{text}");
    }
    assert!(
        bootgen::release::default_minor()
            .is_some_and(|minor| text.contains(&format!("(default {minor})"))),
        "{text}"
    );
    // Built in a git checkout: the commit is the checkout's HEAD (cargo rebuilds the binary
    // when HEAD moves). Without git here, at least a hexadecimal commit or `unknown`.
    let commit = first
        .split("(commit ")
        .nth(1)
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap();
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(repo())
        .output();
    match head {
        Ok(head) if head.status.success() => {
            assert_eq!(commit, String::from_utf8(head.stdout).unwrap().trim());
        }
        _ => assert!(
            commit == "unknown" || commit.bytes().all(|b| b.is_ascii_hexdigit()),
            "{text}"
        ),
    }
}

/// A subcommand has no --version of its own: clap's usual error, exit 1.
#[test]
fn a_subcommand_does_not_take_version() {
    let output = bootgen_conformance::bootgen!()
        .args(["validate", "--version"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
}
