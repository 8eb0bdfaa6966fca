//! Every `bootgen` command the README prints runs as printed: each ```sh block's command lines
//! are run by `sh` in a fresh directory holding what the block's words name (an
//! install-config.yaml of the kind the block is about, a bootstrap.ign, an output directory,
//! a CA), with only the README's placeholders filled in. A line that also needs a tool that is
//! not bootgen (coreos-installer, openshift-install, cargo, scp) is not run; the test says
//! how many ran, and fails when fewer than expected do.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::repo;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The commands a line may use to be run here: bootgen, and the text tools the README pipes
/// its output through.
const RUNNABLE: &[&str] = &["bootgen", "grep", "head", "diff"];

/// The README's placeholders and paths outside the sandbox, and what stands in for them.
const FILLED: &[(&str, &str)] = &[
    (
        "@sha256:<digest>",
        "@sha256:4f6b7d8c9e0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071829304",
    ),
    (
        "--mirror ...",
        "--mirror quay.io/openshift-release-dev/ocp-release=mirror.lab:8443/ocp/release",
    ),
    ("/etc/bash_completion.d/bootgen", "bash-completion"),
    ("/usr/local/share/man/man1", "man1"),
];

/// One command line of a ```sh block (continuations joined, comments dropped).
struct Example {
    block: usize,
    line: String,
}

fn sh_blocks(readme: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in readme.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```sh") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            _ => {}
        }
    }
    blocks
}

/// The line without a trailing ` # comment` (the README's commands quote no `#`).
fn without_comment(line: &str) -> &str {
    match line
        .find(" #")
        .or_else(|| line.starts_with('#').then_some(0))
    {
        Some(at) => line[..at].trim_end(),
        None => line.trim_end(),
    }
}

fn command_lines(block: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut pending = String::new();
    for raw in block.lines() {
        let line = without_comment(raw);
        if let Some(start) = line.strip_suffix('\\') {
            pending.push_str(start);
            continue;
        }
        pending.push_str(line);
        let joined = pending.split_whitespace().collect::<Vec<_>>().join(" ");
        if !joined.is_empty() {
            lines.push(joined);
        }
        pending.clear();
    }
    lines
}

/// The first word of each command of a line (split at `&&`, `|`, `;`).
fn commands(line: &str) -> Vec<&str> {
    line.split(['|', ';', '&'])
        .filter_map(|part| part.split_whitespace().next())
        .collect()
}

fn examples(readme: &str) -> (Vec<Example>, Vec<String>) {
    let mut run = Vec::new();
    let mut skipped = Vec::new();
    for (block, text) in sh_blocks(readme).iter().enumerate() {
        for line in command_lines(text) {
            let words = commands(&line);
            if words.contains(&"bootgen") && words.iter().all(|w| RUNNABLE.contains(w)) {
                let filled = FILLED
                    .iter()
                    .fold(line, |text, (from, to)| text.replace(from, to));
                run.push(Example {
                    block,
                    line: filled,
                });
            } else {
                skipped.push(line);
            }
        }
    }
    (run, skipped)
}

/// A directory with `bootgen` first on its PATH.
fn bin_dir(scratch: &Path) -> PathBuf {
    let bin = scratch.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("bootgen");
    if !link.exists() {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_bootgen-under-test"), link).unwrap();
    }
    bin
}

/// The install-config a block is about: its words say which kind.
fn install_config_for(block: &str) -> PathBuf {
    if block.contains("agent-config.yaml") {
        return repo().join("fixtures/network/install-config.yaml");
    }
    let name = if block.contains("oci-cluster") {
        "valid/external.yaml"
    } else if block.contains("vsphere-cluster") {
        "valid/vsphere.yaml"
    } else if block.contains("-o sno") {
        "single-node/edge-arm64.yaml"
    } else if block.contains("--mirror") {
        "valid/mirrors.yaml"
    } else {
        "valid/minimal.yaml"
    };
    repo().join("fixtures/install-configs").join(name)
}

fn bootgen(bin: &Path, dir: &Path, args: &[&str]) {
    let output = Command::new(bin.join("bootgen"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "setup {args:?}: {output:?}");
}

fn copy_dir(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

/// Lays out in `dir` what the block's commands read but do not make.
fn prepare(bin: &Path, dir: &Path, block: &str) {
    std::fs::copy(install_config_for(block), dir.join("install-config.yaml")).unwrap();
    let made = dir.join(".made");
    bootgen(
        bin,
        dir,
        &["ignition", "--key-algorithm", "ecdsa-p256", "-o", ".made"],
    );
    let mentions = |word: &str| {
        block
            .split(|c: char| c.is_whitespace() || c == '<' || c == '>')
            .any(|w| w == word || w.trim_end_matches('/') == word)
    };
    for file in ["bootstrap.ign", "master.ign"] {
        if mentions(file) {
            std::fs::copy(made.join(file), dir.join(file)).unwrap();
        }
    }
    for (file, source) in [("old.ign", "bootstrap.ign"), ("new.ign", "master.ign")] {
        if mentions(file) {
            std::fs::copy(made.join(source), dir.join(file)).unwrap();
        }
    }
    for name in ["ca.pem", "mirror-ca.pem"] {
        if mentions(name) {
            std::fs::copy(made.join("tls/root-ca.crt"), dir.join(name)).unwrap();
        }
    }
    if mentions("rhcos-live.iso") {
        // A live ISO in today's layout, for the architecture the block generates for.
        let arch = if block.contains("--arch arm64") {
            "aarch64"
        } else {
            "x86_64"
        };
        let scratch = tempfile::tempdir().unwrap();
        let iso = bootgen_conformance::live_iso::live_iso(
            scratch.path(),
            arch,
            bootgen_conformance::live_iso::EMBED_SIZE,
        );
        std::fs::copy(iso, dir.join("rhcos-live.iso")).unwrap();
    }
    if mentions("agent-config.yaml") {
        std::fs::copy(
            repo().join("fixtures/network/agent-config.yaml"),
            dir.join("agent-config.yaml"),
        )
        .unwrap();
    }
    if mentions("mirror-auth.json") {
        std::fs::write(
            dir.join("mirror-auth.json"),
            r#"{"auths":{"mirror.lab:8443":{"auth":"cmVhZG1lOmV4YW1wbGU="}}}"#,
        )
        .unwrap();
    }
    // Output directories the block reads without making them first.
    let makes =
        |out: &str| block.contains(&format!("-o {out}\n")) || block.contains(&format!("-o {out} "));
    for out in ["bootgen-out", "out-old", "out-new", "installer", "out"] {
        if mentions(out) && !makes(out) {
            copy_dir(&made, &dir.join(out));
        }
    }
    if mentions("golden.txt") {
        // The view committed before: the same install-config's, from another PKI.
        let view = Command::new(bin.join("bootgen"))
            .args(["inspect", "--golden", ".made"])
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(view.status.success(), "{view:?}");
        std::fs::write(dir.join("golden.txt"), view.stdout).unwrap();
    }
}

#[test]
fn every_bootgen_command_in_the_readme_runs_as_printed() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let (examples, skipped) = examples(&readme);
    let scratch = tempfile::tempdir().unwrap();
    let bin = bin_dir(scratch.path());
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let blocks = sh_blocks(&readme);
    let mut failures = Vec::new();
    let mut prepared = None;
    for example in &examples {
        let dir = scratch.path().join(format!("block-{}", example.block));
        if prepared != Some(example.block) {
            std::fs::create_dir_all(&dir).unwrap();
            prepare(&bin, &dir, &blocks[example.block]);
            prepared = Some(example.block);
        }
        let output = Command::new("sh")
            .args(["-c", &example.line])
            .current_dir(&dir)
            .env("PATH", &path)
            .env("SOURCE_DATE_EPOCH", "1767229200")
            .output()
            .unwrap();
        let code = output.status.code();
        // `diff` says "different" with exit 1, as the README says.
        let fine = code == Some(0) || (example.line.starts_with("bootgen diff") && code == Some(1));
        if !fine {
            failures.push(format!(
                "block {}: {}\n  exit {code:?}\n  {}",
                example.block,
                example.line,
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Most of the README's commands are bootgen's own: if far fewer ran, the extraction broke.
    assert!(
        examples.len() >= 25,
        "only {} README commands ran; skipped: {skipped:#?}",
        examples.len()
    );
}

#[test]
fn the_extraction_sees_continuations_placeholders_and_skips_other_tools() {
    let readme = "```sh\nbootgen ignition \\\n  --release-image quay.io/x/y@sha256:<digest> \\\n  -o out   # note\ncoreos-installer iso ignition embed x\nbootgen inspect out | grep '^platform'\n```\n";
    let (run, skipped) = examples(readme);
    let lines: Vec<&str> = run.iter().map(|e| e.line.as_str()).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("bootgen ignition --release-image quay.io/x/y@sha256:4f6b"));
    assert!(lines[0].ends_with("-o out"), "{}", lines[0]);
    assert_eq!(lines[1], "bootgen inspect out | grep '^platform'");
    assert_eq!(skipped, vec!["coreos-installer iso ignition embed x"]);
}

/// The first date in `text` (`YYYY-MM-DD`, or `YYYY-MM` alone).
fn date_in(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let digits = |from: usize, n: usize| {
        bytes
            .get(from..from + n)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    (0..bytes.len()).find_map(|at| {
        let starts = at == 0 || !bytes[at - 1].is_ascii_alphanumeric();
        if !(starts && digits(at, 4) && bytes.get(at + 4) == Some(&b'-') && digits(at + 5, 2)) {
            return None;
        }
        let day = bytes.get(at + 7) == Some(&b'-') && digits(at + 8, 2);
        Some(text[at..at + if day { 10 } else { 7 }].to_string())
    })
}

/// The dates of the installers each release was checked against agree in the three places
/// that state them: `bootgen releases` (the release table's `source`), the recording of what
/// that installer wrote (`recorded.toml`), and the README's table.
#[test]
fn the_readme_installer_table_has_the_dates_bootgen_releases_prints() {
    let output = bootgen_conformance::bootgen!()
        .arg("releases")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let listed = String::from_utf8(output.stdout).unwrap();
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let table: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("| release | installer it was checked against"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(table.len() > 10, "no installer table in the README");
    let mut compared = 0;
    for row in listed.lines().skip(1) {
        let release = row.split_whitespace().next().unwrap();
        if release.ends_with('+') {
            continue; // a z-stream point: not a row of its own in the README
        }
        let program = date_in(row);
        let readme_row = table
            .iter()
            .find(|l| {
                l.split('|')
                    .nth(1)
                    .and_then(|c| c.split_whitespace().next())
                    == Some(release)
            })
            .unwrap_or_else(|| panic!("the README's installer table has no row for {release}"));
        let installer = readme_row.split('|').nth(2).unwrap();
        assert_eq!(
            date_in(installer),
            program,
            "{release}: README {readme_row}\nbootgen releases: {row}"
        );
        let recorded = repo().join(format!(
            "tests/expectations/installer/{release}/recorded.toml"
        ));
        let recorded: toml::Value =
            toml::from_str(&std::fs::read_to_string(&recorded).unwrap()).unwrap();
        let source = recorded["installer_source"].as_str().unwrap();
        if program.is_some() {
            assert_eq!(
                date_in(source),
                program,
                "{release}: recorded {source}\nbootgen releases: {row}"
            );
        }
        compared += 1;
    }
    assert!(compared > 10, "{listed}");
}
