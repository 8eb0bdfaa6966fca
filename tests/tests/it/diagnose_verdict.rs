//! `bootgen diagnose` never calls something healthy that is not a bundle, or too damaged to
//! tell: an empty directory, an archive of something else, an archive cut short, records that
//! are all garbage or links exit 2 ("not a bootstrap log bundle", "damaged") where they used to
//! say "No failure found" and exit 0. Links are skipped with a note. Plain `.tar` and `.tar.xz`
//! bundles are read like `.tar.gz`, told apart by their first bytes, not their names.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::io::{Read as _, Write as _};
use std::path::Path;
use std::process::Output;

use serde_json::Value;

/// A service record of a service that finished well, and one of bootkube still running.
const RELEASE_DONE: &str = r#"[
  {"timestamp": "2026-01-01T00:59:00Z", "phase": "service start"},
  {"timestamp": "2026-01-01T00:59:30Z", "phase": "service end", "result": "success"}
]"#;
const BOOTKUBE_RUNNING: &str = r#"[
  {"timestamp": "2026-01-01T01:00:00Z", "phase": "service start"},
  {"timestamp": "2026-01-01T01:00:01Z", "phase": "stage start", "stage": "cb-bootstrap"}
]"#;

enum Entry<'a> {
    File(&'a str, &'a [u8]),
    Link(&'a str, &'a str),
}

/// An uncompressed tar archive of `entries`.
fn tar(entries: &[Entry<'_>]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for entry in entries {
        let mut header = tar::Header::new_gnu();
        header.set_mode(0o644);
        match entry {
            Entry::File(name, contents) => {
                header.set_size(contents.len() as u64);
                builder.append_data(&mut header, name, *contents).unwrap();
            }
            Entry::Link(name, target) => {
                header.set_entry_type(tar::EntryType::Symlink);
                header.set_size(0);
                builder.append_link(&mut header, name, target).unwrap();
            }
        }
    }
    builder.into_inner().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn xz(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    liblzma::read::XzEncoder::new(bytes, 1)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn diagnose(path: &Path) -> (Output, Option<Value>) {
    let output = bootgen_conformance::bootgen!()
        .args(["diagnose", "--json"])
        .arg(path)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&output.stdout).ok();
    (output, report)
}

/// Exit 2, and standard error says `words` of `path`.
fn refused(path: &Path, words: &[&str]) {
    let (output, report) = diagnose(path);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}\n{report:?}");
    let name = path.file_name().unwrap().to_string_lossy();
    assert!(stderr.contains(&*name), "{stderr}");
    for word in words {
        assert!(stderr.contains(word), "wanted {word:?}: {stderr}");
    }
}

#[test]
fn an_empty_directory_or_an_archive_of_something_else_is_not_a_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    refused(&empty, &["not a bootstrap log bundle"]);
    let other = dir.path().join("photos.tar.gz");
    fs::write(
        &other,
        gzip(&tar(&[Entry::File("holiday/a.jpg", b"\xff\xd8")])),
    )
    .unwrap();
    refused(&other, &["not a bootstrap log bundle"]);
    let empty_file = dir.path().join("empty.tar.gz");
    fs::write(&empty_file, b"").unwrap();
    refused(&empty_file, &["not a readable log bundle", "empty"]);
}

#[test]
fn an_archive_cut_short_with_no_failure_before_the_cut_is_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let journal = "2026-01-01T01:00:00+0000 bootstrap kubelet[1]: a line\n".repeat(20_000);
    let names: Vec<String> = (0..20)
        .map(|i| format!("log-bundle-1/bootstrap/journals/u{i}.log"))
        .collect();
    let mut entries = vec![Entry::File(
        "log-bundle-1/bootstrap/services/release-image.json",
        RELEASE_DONE.as_bytes(),
    )];
    entries.extend(names.iter().map(|n| Entry::File(n, journal.as_bytes())));
    let full = gzip(&tar(&entries));
    let cut = dir.path().join("cut.tar.gz");
    fs::write(&cut, &full[..full.len() / 2]).unwrap();
    refused(&cut, &["damaged", "no failure was found"]);
}

#[test]
fn records_that_are_all_garbage_or_links_are_damage_and_links_are_noted() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.tar.gz");
    fs::write(
        &garbage,
        gzip(&tar(&[
            Entry::File("log-bundle-1/bootstrap/services/bootkube.json", b"{garbage"),
            Entry::File(
                "log-bundle-1/bootstrap/services/release-image.json",
                b"[oops",
            ),
        ])),
    )
    .unwrap();
    refused(&garbage, &["damaged", "none of its 2 service records"]);
    let links = dir.path().join("links.tar.gz");
    fs::write(
        &links,
        gzip(&tar(&[Entry::Link(
            "log-bundle-1/bootstrap/services/bootkube.json",
            "/var/log/openshift/bootkube.json",
        )])),
    )
    .unwrap();
    refused(&links, &["damaged", "none of its 1 service records"]);
    // Beside readable records, a linked one is skipped with the note the README promises.
    let some = dir.path().join("some.tar.gz");
    fs::write(
        &some,
        gzip(&tar(&[
            Entry::File(
                "log-bundle-1/bootstrap/services/release-image.json",
                RELEASE_DONE.as_bytes(),
            ),
            Entry::Link(
                "log-bundle-1/bootstrap/services/bootkube.json",
                "/etc/passwd",
            ),
        ])),
    )
    .unwrap();
    let (output, report) = diagnose(&some);
    let report = report.unwrap();
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert!(
        report["notes"]
            .to_string()
            .contains("skipped log-bundle-1/bootstrap/services/bootkube.json: a link"),
        "{report:#}"
    );
}

#[test]
fn tar_and_tar_xz_bundles_are_read_whatever_their_names() {
    let dir = tempfile::tempdir().unwrap();
    let journal = "Jan 01 01:00:01 bootstrap bootkube.sh[2001]: Starting cluster-bootstrap...\n";
    let plain = tar(&[
        Entry::File(
            "log-bundle-1/bootstrap/services/bootkube.json",
            BOOTKUBE_RUNNING.as_bytes(),
        ),
        Entry::File(
            "log-bundle-1/bootstrap/journals/bootkube.log",
            journal.as_bytes(),
        ),
    ]);
    let mut whats = Vec::new();
    for (name, bytes) in [
        ("bundle.tar.gz", gzip(&plain)),
        ("bundle.tar", plain.clone()),
        ("bundle.tar.xz", xz(&plain)),
        // Named for another format: the first bytes decide.
        ("misnamed.tar.gz", xz(&plain)),
    ] {
        let path = dir.path().join(name);
        fs::write(&path, bytes).unwrap();
        let (output, report) = diagnose(&path);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        whats.push(report.unwrap()["failure"]["what"].clone());
    }
    assert!(whats.iter().all(|w| *w == whats[0]), "{whats:?}");
    assert!(whats[0].to_string().contains("bootkube"), "{whats:?}");
}

/// Limits scaled down so that 64 MiB of zeros is a bomb: the checks are the same at any size.
fn small_limits() -> bootgen::diagnose::Limits {
    bootgen::diagnose::Limits {
        ratio_applies_after: 8 << 20,
        ..Default::default()
    }
}

/// A bomb inside one entry of an xz bundle, and a `.log.gz` bomb in an unpacked directory, are
/// stopped inside that file and named.
#[test]
fn bombs_inside_one_file_of_an_xz_bundle_or_a_directory_are_stopped_there() {
    let zeros = vec![0u8; 64 << 20];
    let plain = tar(&[
        Entry::File(
            "log-bundle-1/bootstrap/services/release-image.json",
            RELEASE_DONE.as_bytes(),
        ),
        Entry::File("log-bundle-1/bootstrap/journals/crio.log", &zeros),
    ]);
    let err = bootgen::diagnose::diagnose_archive(&xz(&plain)[..], "b.tar.xz", &small_limits())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("b.tar.xz: damaged: bootstrap/journals/crio.log cannot be read")
            && err.contains("archive bomb"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("bootstrap/services")).unwrap();
    fs::create_dir_all(dir.path().join("bootstrap/journals")).unwrap();
    fs::write(
        dir.path().join("bootstrap/services/release-image.json"),
        RELEASE_DONE,
    )
    .unwrap();
    fs::write(
        dir.path().join("bootstrap/journals/journal.log.gz"),
        gzip(&zeros),
    )
    .unwrap();
    let err = bootgen::diagnose::diagnose_dir(dir.path(), &small_limits())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("damaged: bootstrap/journals/journal.log.gz cannot be read")
            && err.contains("archive bomb"),
        "{err}"
    );
}
