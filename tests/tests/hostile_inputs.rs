//! Hostile inputs cost bounded memory and time: a config whose one gzip file expands to a GiB,
//! and YAML or JSON nested a hundred thousand levels deep, are refused quickly, naming the file,
//! by every command that reads them. Each child's peak memory is read from the kernel
//! (`wait4`'s `ru_maxrss`) and its time is bounded by killing it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use base64::Engine as _;
use serde_json::json;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Most a command may hold on a hostile input.
const MAX_RSS_BYTES: u64 = 256 << 20;

/// What a child did: its exit code (None when killed), output and peak memory.
struct Measured {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    max_rss_bytes: u64,
}

impl Measured {
    fn output(&self) -> String {
        format!(
            "exit {:?}, {} MiB\n--- stdout\n{}--- stderr\n{}",
            self.code,
            self.max_rss_bytes >> 20,
            self.stdout,
            self.stderr
        )
    }
}

/// Runs `cmd` (output into files, so a pipe never blocks it), killing it after `limit`, and
/// reads its peak resident memory from `wait4`.
// The child is reaped by `wait4`, which `Child::wait` cannot do while giving its rusage.
#[allow(clippy::zombie_processes)]
fn measure(cmd: &mut Command, limit: Duration) -> Measured {
    let scratch = tempfile::tempdir().unwrap();
    let (out_path, err_path) = (scratch.path().join("out"), scratch.path().join("err"));
    let child = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let started = Instant::now();
    let mut killed = false;
    let (status, usage) = loop {
        let mut status = 0;
        // SAFETY: rusage is plain data, zeroed is a valid value; wait4 fills both out-params.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let done = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(done >= 0, "wait4: {}", std::io::Error::last_os_error());
        if done == pid {
            break (status, usage);
        }
        if !killed && started.elapsed() > limit {
            // SAFETY: the child is ours and not yet reaped, so the pid is still its own.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed = true;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Measured {
        code: if killed { None } else { code },
        stdout: std::fs::read_to_string(out_path).unwrap(),
        stderr: std::fs::read_to_string(err_path).unwrap(),
        // Linux gives kilobytes.
        max_rss_bytes: usage.ru_maxrss as u64 * 1024,
    }
}

/// A config with one file, `/etc/pki/bomb.pem`, whose gzip contents expand to `expanded`
/// bytes: `header` (a PEM header makes even the certificate report want it), then zeros.
/// Compressed as a stream, so the test never holds the expanded bytes.
fn bomb_config(dir: &Path, expanded: u64, header: &[u8]) -> PathBuf {
    let started = Instant::now();
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gzip.write_all(header).unwrap();
    let zeros = vec![0u8; 1 << 20];
    let mut left = expanded - header.len() as u64;
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        gzip.write_all(&zeros[..n]).unwrap();
        left -= n as u64;
    }
    let compressed = gzip.finish().unwrap();
    let source = format!(
        "data:;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&compressed)
    );
    let config = json!({"ignition": {"version": "3.2.0"}, "storage": {"files": [
        {"path": "/etc/motd", "mode": 420, "contents": {"source": "data:,hello"}},
        {"path": "/etc/pki/bomb.pem", "mode": 420,
         "contents": {"source": source, "compression": "gzip"}}]}});
    let path = dir.join("bomb.ign");
    std::fs::write(&path, serde_json::to_vec(&config).unwrap()).unwrap();
    eprintln!(
        "bomb of {} MiB: {} KiB of config, made in {:?}",
        expanded >> 20,
        std::fs::metadata(&path).unwrap().len() >> 10,
        started.elapsed()
    );
    path
}

/// Every command that reads a config's files refuses the bomb, naming the file, and none holds
/// more than 256 MiB doing it (before, each held the whole GiB, and more).
#[test]
fn a_gzip_bomb_is_refused_by_every_command_within_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = bomb_config(dir.path(), 1 << 30, b"-----BEGIN CERTIFICATE-----\n");
    let golden_dir = dir.path().join("out");
    std::fs::create_dir(&golden_dir).unwrap();
    std::fs::copy(&bomb, golden_dir.join("bootstrap.ign")).unwrap();
    let plain = dir.path().join("plain.ign");
    std::fs::write(&plain, br#"{"ignition":{"version":"3.2.0"}}"#).unwrap();
    let extracted = dir.path().join("extracted");
    let patched = dir.path().join("patched.ign");
    let commands: Vec<Vec<&std::ffi::OsStr>> = vec![
        vec![
            "extract".as_ref(),
            bomb.as_ref(),
            "-o".as_ref(),
            extracted.as_ref(),
        ],
        vec!["inspect".as_ref(), bomb.as_ref()],
        vec!["inspect".as_ref(), "--certs".as_ref(), bomb.as_ref()],
        vec!["validate".as_ref(), bomb.as_ref()],
        vec!["diff".as_ref(), plain.as_ref(), bomb.as_ref()],
        vec!["inspect".as_ref(), "--golden".as_ref(), golden_dir.as_ref()],
        vec![
            "patch".as_ref(),
            bomb.as_ref(),
            "-o".as_ref(),
            patched.as_ref(),
        ],
    ];
    let mut failures = Vec::new();
    for args in &commands {
        let mut cmd = bootgen_conformance::bootgen!();
        cmd.args(args);
        let run = measure(&mut cmd, Duration::from_secs(60));
        let said = format!("{}{}", run.stdout, run.stderr);
        let refused = matches!(run.code, Some(1 | 2))
            && said.contains("/etc/pki/bomb.pem")
            && said.contains("decompression bomb");
        if !refused || run.max_rss_bytes > MAX_RSS_BYTES {
            failures.push(format!("bootgen {args:?}: {}", run.output()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(!extracted.join("etc/motd").exists(), "extract wrote files");
    assert!(!patched.exists(), "patch wrote its output");
}

/// The certificate report decompresses only files that show a certificate in their first MiB:
/// a bomb of zeros costs it nothing, and the report is made.
#[test]
fn the_certificate_report_leaves_a_bomb_without_certificates_compressed() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = bomb_config(dir.path(), 1 << 30, b"");
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.args(["inspect", "--certs"]).arg(&bomb);
    let run = measure(&mut cmd, Duration::from_secs(60));
    assert!(
        run.code == Some(0) && run.max_rss_bytes < 64 << 20,
        "{}",
        run.output()
    );
}

/// 100,000 levels of flow (`[[[...]]]`) and block (`- - - ...`) nesting.
const LEVELS: usize = 100_000;

fn flow(levels: usize) -> String {
    format!("{}{}", "[".repeat(levels), "]".repeat(levels))
}

fn block(levels: usize) -> String {
    format!("{}x", "- ".repeat(levels))
}

/// Runs bootgen with `args`, killed after 30 seconds (before, a 100,000-level install-config
/// took over a minute).
fn bootgen_within_30s(args: &[&std::ffi::OsStr]) -> Measured {
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.args(args);
    measure(&mut cmd, Duration::from_secs(30))
}

/// An install-config and a manifest of `--manifests-dir` nested 100,000 levels deep are
/// refused at once, naming the file and line.
#[test]
fn deep_yaml_is_refused_quickly_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let head = "apiVersion: v1\nmetadata:\n  name: deep\nbaseDomain: example.com\nplatform:\n  none: {}\npullSecret: '{\"auths\":{}}'\n";
    let cases = [
        (
            "flow.yaml",
            format!("{head}additionalTrustBundle: {}\n", flow(LEVELS)),
            8,
        ),
        (
            "block.yaml",
            format!("{head}compute:\n  {}\n", block(LEVELS)),
            9,
        ),
        (
            "flow.json",
            format!(
                "{{\"apiVersion\": \"v1\",\n\"compute\": {}}}\n",
                flow(LEVELS)
            ),
            2,
        ),
    ];
    let mut failures = Vec::new();
    for (name, text, line) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = dir.path().join(format!("out-{name}"));
        let run = bootgen_within_30s(&[
            "ignition".as_ref(),
            "--install-config".as_ref(),
            path.as_ref(),
            "-o".as_ref(),
            out.as_ref(),
        ]);
        let expected = format!("{name}:{line}: nested deeper than 128 levels");
        if run.code != Some(1) || !run.stderr.contains(&expected) {
            failures.push(format!("{name}: wanted `{expected}`: {}", run.output()));
        }
    }
    let manifests = dir.path().join("manifests");
    std::fs::create_dir(&manifests).unwrap();
    let manifest = format!(
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  x:\n    {}\n",
        block(LEVELS)
    );
    std::fs::write(manifests.join("deep.yaml"), manifest).unwrap();
    let out = dir.path().join("out-manifests");
    let run = bootgen_within_30s(&[
        "ignition".as_ref(),
        "--manifests-dir".as_ref(),
        manifests.as_ref(),
        "-o".as_ref(),
        out.as_ref(),
    ]);
    if run.code != Some(1)
        || !run
            .stderr
            .contains("deep.yaml:5: nested deeper than 128 levels")
    {
        failures.push(format!("--manifests-dir: {}", run.output()));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Ignition configs nested 100,000 levels deep are refused at once by every reader, naming
/// the file and line; a config whose manifests nest that deep (the stored install-config among
/// them) is read at once, those manifests left unread.
#[test]
fn deep_json_configs_and_deep_manifests_inside_them_cost_no_time() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("deep.ign");
    let text = format!(
        "{{\"ignition\": {{\"version\": \"3.2.0\"}},\n\"storage\": {{\"files\": {}}}}}",
        flow(LEVELS)
    );
    std::fs::write(&deep, text).unwrap();
    let scratch = dir.path().join("scratch");
    let commands: Vec<Vec<&std::ffi::OsStr>> = vec![
        vec!["validate".as_ref(), deep.as_ref()],
        vec!["inspect".as_ref(), deep.as_ref()],
        vec!["inspect".as_ref(), "--objects".as_ref(), deep.as_ref()],
        vec![
            "extract".as_ref(),
            deep.as_ref(),
            "-o".as_ref(),
            scratch.as_ref(),
        ],
        vec!["diff".as_ref(), deep.as_ref(), deep.as_ref()],
        vec![
            "patch".as_ref(),
            deep.as_ref(),
            "-o".as_ref(),
            scratch.as_ref(),
        ],
    ];
    let mut failures = Vec::new();
    for args in &commands {
        let run = bootgen_within_30s(args);
        let said = format!("{}{}", run.stdout, run.stderr);
        let named =
            said.contains("deep.ign:2:") || said.contains("deep.ign") && said.contains("line 2");
        if !matches!(run.code, Some(1 | 2)) || !named {
            failures.push(format!("bootgen {args:?}: {}", run.output()));
        }
    }
    let stored = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-config-v1\n  namespace: kube-system\ndata:\n  install-config: |\n    apiVersion: v1\n    baseDomain: {}\n",
        flow(LEVELS)
    );
    let manifest = format!(
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  x:\n    {}\n",
        block(LEVELS)
    );
    let data = |text: &str| {
        format!(
            "data:;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(text)
        )
    };
    let config = json!({"ignition": {"version": "3.2.0"}, "storage": {"files": [
        {"path": "/opt/openshift/manifests/cluster-config.yaml", "contents": {"source": data(&stored)}},
        {"path": "/opt/openshift/manifests/deep.yaml", "contents": {"source": data(&manifest)}}]}});
    let carrying = dir.path().join("carrying.ign");
    std::fs::write(&carrying, serde_json::to_vec(&config).unwrap()).unwrap();
    for args in [
        vec!["inspect".as_ref(), carrying.as_ref()],
        vec!["inspect".as_ref(), "--objects".as_ref(), carrying.as_ref()],
        vec![
            "diff".as_ref(),
            "--objects".as_ref(),
            carrying.as_ref(),
            carrying.as_ref(),
        ],
        vec!["validate".as_ref(), carrying.as_ref()],
    ] {
        let run = bootgen_within_30s(&args);
        if run.code != Some(0) {
            failures.push(format!("bootgen {args:?}: {}", run.output()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A log bundle whose one journal is a bomb, as a plain entry of the `.tar.gz` and as a
/// `.log.gz` inside it: 1 GiB of zeros each. `diagnose` stops inside that entry (before, it
/// read the whole entry and only then looked at the ratio), and with no failure found in what
/// it read, refuses the bundle as damaged instead of calling it healthy.
#[test]
fn a_bomb_inside_one_bundle_entry_is_stopped_inside_it() {
    const RELEASE_DONE: &str = r#"[{"timestamp": "2026-01-01T00:59:00Z", "phase": "service start"},
        {"timestamp": "2026-01-01T00:59:30Z", "phase": "service end", "result": "success"}]"#;
    let dir = tempfile::tempdir().unwrap();
    let append =
        |builder: &mut tar::Builder<_>, name: &str, size: u64, data: &mut dyn std::io::Read| {
            let mut header = tar::Header::new_gnu();
            header.set_size(size);
            header.set_mode(0o644);
            builder.append_data(&mut header, name, data).unwrap();
        };
    let bundle = |name: &str, journal: &str, size: u64, data: &mut dyn std::io::Read| {
        let path = dir.path().join(name);
        let file = std::fs::File::create(&path).unwrap();
        let gzip = flate2::write::GzEncoder::new(file, flate2::Compression::best());
        let mut builder = tar::Builder::new(gzip);
        let records = "log-bundle-1/bootstrap/services/release-image.json";
        append(
            &mut builder,
            records,
            RELEASE_DONE.len() as u64,
            &mut RELEASE_DONE.as_bytes(),
        );
        append(&mut builder, journal, size, data);
        builder.into_inner().unwrap().finish().unwrap();
        path
    };
    let zeros = || std::io::repeat(0).take(1 << 30);
    let started = Instant::now();
    let outer = bundle(
        "outer.tar.gz",
        "log-bundle-1/bootstrap/journals/crio.log",
        1 << 30,
        &mut zeros(),
    );
    let mut inner_gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::copy(&mut zeros(), &mut inner_gz).unwrap();
    let inner_gz = inner_gz.finish().unwrap();
    let inner = bundle(
        "inner.tar.gz",
        "log-bundle-1/bootstrap/journals/journal.log.gz",
        inner_gz.len() as u64,
        &mut &inner_gz[..],
    );
    eprintln!("bundles made in {:?}", started.elapsed());
    let mut failures = Vec::new();
    for (path, journal) in [(&outer, "crio.log"), (&inner, "journal.log.gz")] {
        let mut cmd = bootgen_conformance::bootgen!();
        cmd.arg("diagnose").arg(path);
        let run = measure(&mut cmd, Duration::from_secs(60));
        let refused = run.code == Some(2)
            && run.stderr.contains("damaged")
            && run.stderr.contains(journal)
            && run.stderr.contains("archive bomb");
        if !refused || run.max_rss_bytes > MAX_RSS_BYTES {
            failures.push(format!("diagnose {}: {}", path.display(), run.output()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A config of `files` files, each `text` repeated to 30 MiB and gzipped.
fn text_config(dir: &Path, name: &str, text: &[u8], files: usize) -> PathBuf {
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    for _ in 0..(30 << 20) / text.len() {
        gzip.write_all(text).unwrap();
    }
    let source = format!(
        "data:;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(gzip.finish().unwrap())
    );
    let entries: Vec<_> = (0..files)
        .map(|i| json!({"path": format!("/etc/text{i}"), "contents": {"source": source, "compression": "gzip"}}))
        .collect();
    let config = json!({"ignition": {"version": "3.2.0"}, "storage": {"files": entries}});
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(&config).unwrap()).unwrap();
    path
}

/// Files each within what one may decompress to still cost bounded time and memory where a
/// command's work grows faster than their size (a line diff of two unrelated texts), or with
/// their number (the golden view holds every file's text).
#[test]
fn large_texts_under_the_limit_cost_bounded_time_and_memory() {
    let dir = tempfile::tempdir().unwrap();
    let line = |c: u8| [vec![c; 99], vec![b'\n']].concat();
    let a = text_config(dir.path(), "a.ign", &line(b'a'), 1);
    let b = text_config(dir.path(), "b.ign", &line(b'b'), 1);
    let mut failures = Vec::new();
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.arg("diff").arg(&a).arg(&b);
    let run = measure(&mut cmd, Duration::from_secs(60));
    if run.code != Some(1)
        || !run.stdout.contains("too large for a line diff")
        || run.max_rss_bytes > MAX_RSS_BYTES
    {
        failures.push(format!("diff: {}", run.output()));
    }
    let golden = dir.path().join("out");
    std::fs::create_dir(&golden).unwrap();
    let many = text_config(dir.path(), "many.ign", &line(b'a'), 5);
    std::fs::rename(&many, golden.join("bootstrap.ign")).unwrap();
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.args(["inspect", "--golden"]).arg(&golden);
    let run = measure(&mut cmd, Duration::from_secs(60));
    if !matches!(run.code, Some(1 | 2))
        || !run.stderr.contains("/etc/text")
        || !run.stderr.contains("golden view passes 64 MiB")
        || run.max_rss_bytes > MAX_RSS_BYTES
    {
        failures.push(format!("inspect --golden: {}", run.output()));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The objects view holds every file and parses the structured ones: files that expand past
/// 32 MiB in all are refused, naming the file, and a YAML list of a million tiny items (which
/// would cost some 60 times its text as a tree) is compared by its digest instead of parsed.
#[test]
fn the_objects_view_holds_bounded_files_and_trees() {
    let dir = tempfile::tempdir().unwrap();
    let many = text_config(dir.path(), "many.ign", b"a\n", 2);
    let mut failures = Vec::new();
    for args in [
        ["inspect", "--objects"].as_slice(),
        ["diff", "--objects"].as_slice(),
    ] {
        let mut cmd = bootgen_conformance::bootgen!();
        cmd.args(args).arg(&many);
        if args[0] == "diff" {
            cmd.arg(&many);
        }
        let run = measure(&mut cmd, Duration::from_secs(60));
        let named = run.stderr.contains("/etc/text1") && run.stderr.contains("32 MiB");
        if !matches!(run.code, Some(1 | 2)) || !named || run.max_rss_bytes > MAX_RSS_BYTES {
            failures.push(format!("{args:?} of 2 x 30 MiB: {}", run.output()));
        }
    }
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gzip.write_all(b"items:\n").unwrap();
    for _ in 0..(3 << 20) {
        gzip.write_all(b"- a\n").unwrap();
    }
    let source = format!(
        "data:;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(gzip.finish().unwrap())
    );
    let config = json!({"ignition": {"version": "3.2.0"}, "storage": {"files": [
        {"path": "/opt/openshift/manifests/items.yaml",
         "contents": {"source": source, "compression": "gzip"}}]}});
    let items = dir.path().join("items.ign");
    std::fs::write(&items, serde_json::to_vec(&config).unwrap()).unwrap();
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.args(["inspect", "--objects"]).arg(&items);
    let run = measure(&mut cmd, Duration::from_secs(60));
    if run.code != Some(0)
        || !run.stdout.contains("not parsed")
        || run.max_rss_bytes > MAX_RSS_BYTES
    {
        failures.push(format!("inspect --objects of 3 M items: {}", run.output()));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
