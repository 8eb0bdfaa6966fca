//! Output directories others can reach: two runs into one directory at once, temporary files
//! in a directory other users write to, links planted inside an output directory, and files
//! that are not bootgen's in a directory to be packed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen::pki::{KeyAlgorithm, Pki, PkiRequest};
use bootgen_conformance::IgnitionView;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Pairs of runs started together. Every tenth starts from no directory at all (both race to
/// make a PKI); the others re-run over the last one's (`--force`), the command people repeat.
const PAIRS: usize = 200;

const BUSY: &str = "is in use by another bootgen run";

fn ignition(out: &Path, extra: &[&str]) -> Command {
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.args(["ignition", "--key-algorithm", "ecdsa-p256", "--force", "-o"])
        .arg(out)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

/// `bootgen package -o TARBALL OUT`.
fn package(out: &Path, tarball: &Path) -> Output {
    bootgen_conformance::bootgen!()
        .args(["package", "-o"])
        .arg(tarball)
        .arg(out)
        .output()
        .unwrap()
}

fn run_pair(out: &Path, extra: &[&str]) -> [Output; 2] {
    let first = ignition(out, extra).spawn().unwrap();
    let second = ignition(out, extra).spawn().unwrap();
    [
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    ]
}

/// Every key in `tls/` is its certificate's (bootgen's own reuse check, which refuses a
/// mismatch), and every certificate `bootstrap.ign` and the pointer configs carry is the one in
/// `tls/`.
fn assert_consistent(out: &Path, round: usize) {
    let now = time::OffsetDateTime::from_unix_timestamp(1_767_229_200).unwrap();
    let request = PkiRequest {
        cluster_name: "example".into(),
        api_host: "api.example.example.com".into(),
        api_int_host: "api-int.example.example.com".into(),
        service_network_ips: vec![[172, 30, 0, 1].into()],
        machine_config_server_ips: Vec::new(),
        kubelet_client_in_all_service_accounts: true,
        key_algorithm: KeyAlgorithm::EcdsaP256,
        signer_key_algorithm: KeyAlgorithm::EcdsaP256,
        now,
        lifetimes: Default::default(),
        renew_expired: true,
    };
    if let Err(e) = Pki::build(&request, Some(&out.join("tls"))) {
        panic!("round {round}: the PKI left behind is not consistent: {e}");
    }
    let bootstrap = IgnitionView::load(&out.join("bootstrap.ign")).unwrap();
    let mut compared = 0;
    for (path, file) in &bootstrap.files {
        let Some(name) = path.strip_prefix("/opt/openshift/tls/") else {
            continue;
        };
        let stored = std::fs::read(out.join("tls").join(name)).unwrap();
        assert_eq!(
            file.contents.as_deref(),
            Some(stored.as_slice()),
            "round {round}: bootstrap.ign's {name} is not tls/{name}"
        );
        compared += 1;
    }
    assert!(
        compared > 20,
        "round {round}: {compared} certificates compared"
    );
    let root_ca = std::fs::read_to_string(out.join("tls/root-ca.crt")).unwrap();
    let master = std::fs::read_to_string(out.join("master.ign")).unwrap();
    let pointer: serde_json::Value = serde_json::from_str(&master).unwrap();
    let trusted = pointer["ignition"]["security"]["tls"]["certificateAuthorities"][0]["source"]
        .as_str()
        .unwrap();
    assert_eq!(
        bootgen_conformance::decode_data_url(trusted).unwrap(),
        root_ca.as_bytes(),
        "round {round}: master.ign trusts another CA than tls/root-ca.crt"
    );
}

#[test]
fn two_runs_into_one_directory_end_consistent_or_refused_never_mixed() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    let mut refused = 0;
    for round in 0..PAIRS {
        if round % 10 == 0 {
            let _ = std::fs::remove_dir_all(&out);
        }
        let outputs = run_pair(&out, &[]);
        let mut succeeded = 0;
        for output in &outputs {
            let stderr = String::from_utf8_lossy(&output.stderr);
            if output.status.success() {
                succeeded += 1;
            } else {
                // The only failure allowed is the clear refusal, with the input-error code.
                assert_eq!(output.status.code(), Some(1), "round {round}: {stderr}");
                assert!(stderr.contains(BUSY), "round {round}: {stderr}");
                assert!(stderr.contains("--wait"), "round {round}: {stderr}");
                refused += 1;
            }
        }
        assert!(
            succeeded >= 1,
            "round {round}: neither run wrote the directory"
        );
        assert_consistent(&out, round);
    }
    // The pairs really overlapped: without that the test proves nothing.
    assert!(refused > 0, "no run of {PAIRS} pairs was ever refused");
}

#[test]
fn with_wait_the_second_run_waits_and_both_succeed() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    for round in 0..10 {
        for output in run_pair(&out, &["--wait"]) {
            assert!(
                output.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        assert_consistent(&out, round);
    }
}

#[test]
fn a_failed_run_leaves_no_directory_behind() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    let output = bootgen_conformance::bootgen!()
        .args(["ignition", "--release-version", "3.1", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(!out.exists(), "the refused run left {}", out.display());
}

#[test]
fn a_link_planted_in_the_output_directory_is_not_written_through() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    let elsewhere = scratch.path().join("elsewhere");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out.join("tls")).unwrap();
    std::fs::set_permissions(
        &elsewhere,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let output = ignition(&out, &[]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("tls is a link"), "{stderr}");
    assert!(stderr.contains("--tls-dir"), "{stderr}");
    assert!(
        std::fs::read_dir(&elsewhere).unwrap().next().is_none(),
        "keys were written through the link"
    );
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&elsewhere).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o755, "the link's target was chmod-ed");
    // Named on purpose with --tls-dir, the same link is used.
    let output = ignition(&out, &["--tls-dir"])
        .arg(out.join("tls"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(elsewhere.join("root-ca.key").exists());
}

#[test]
fn package_refuses_what_bootgen_did_not_write() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    let status = ignition(&out, &[]).status().unwrap();
    assert!(status.success());
    // A hard link to a file elsewhere (as to /etc/shadow), under a name bootgen never writes.
    let elsewhere = scratch.path().join("secret-elsewhere");
    std::fs::write(&elsewhere, "root:$6$not-for-the-tarball").unwrap();
    std::fs::hard_link(&elsewhere, out.join("auth/shadow")).unwrap();
    let tarball = scratch.path().join("cluster.tar.gz");
    let output = package(&out, &tarball);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("auth/shadow"), "{stderr}");
    assert!(!tarball.exists());
    std::fs::remove_file(out.join("auth/shadow")).unwrap();
    let output = package(&out, &tarball);
    assert!(output.status.success(), "{output:?}");
}

#[test]
fn a_tarball_written_into_a_shared_directory_is_nobody_elses() {
    // The directory others write to (as /tmp without its sticky bit): every name a temporary
    // file could have had before is taken by a link to a file of the victim's, and by files
    // someone else holds open.
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    assert!(ignition(&out, &[]).status().unwrap().success());
    let shared = scratch.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let victim = scratch.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let mut spies = Vec::new();
    let next_pid = std::process::id();
    for pid in next_pid..next_pid + 200 {
        let name = shared.join(format!(".cluster.tar.gz.bootgen-{pid}"));
        if pid % 2 == 0 {
            std::os::unix::fs::symlink(&victim, &name).unwrap();
        } else {
            std::fs::write(&name, "").unwrap();
            std::fs::set_permissions(&name, std::os::unix::fs::PermissionsExt::from_mode(0o666))
                .unwrap();
            spies.push(std::fs::File::open(&name).unwrap());
        }
    }
    let tarball = shared.join("cluster.tar.gz");
    let output = package(&out, &tarball);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    for mut spy in spies {
        let mut seen = Vec::new();
        std::io::Read::read_to_end(&mut spy, &mut seen).unwrap();
        assert!(
            seen.is_empty(),
            "a file held open by someone else became the tarball"
        );
    }
    let meta = std::fs::symlink_metadata(&tarball).unwrap();
    assert!(meta.file_type().is_file());
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
        0o600
    );
}

#[test]
fn a_run_inside_its_output_directory_reusing_its_own_tls_is_not_refused_by_its_own_lock() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    assert!(ignition(&out, &[]).status().unwrap().success());
    // `cd out; bootgen ignition -o . --tls-dir tls`: the PKI's directory is the output's.
    let output = ignition(Path::new("."), &["--tls-dir", "tls"])
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
}

/// A `tls/` linked to the user's PKI on purpose (`--tls-dir` names it) keeps the mode the user
/// gave that directory, also when a run issues a missing certificate into it.
#[test]
fn a_linked_tls_keeps_its_owners_mode() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = tempfile::tempdir().unwrap();
    let (first, second) = (scratch.path().join("first"), scratch.path().join("second"));
    assert!(ignition(&first, &[]).status().unwrap().success());
    let pki = first.join("tls");
    std::fs::set_permissions(&pki, std::fs::Permissions::from_mode(0o750)).unwrap();
    std::fs::create_dir(&second).unwrap();
    std::os::unix::fs::symlink(&pki, second.join("tls")).unwrap();
    for leaf in ["admin-kubeconfig-client.crt", "admin-kubeconfig-client.key"] {
        std::fs::remove_file(pki.join(leaf)).unwrap();
    }
    let linked = second.join("tls");
    let output = ignition(&second, &["--tls-dir", linked.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(pki.join("admin-kubeconfig-client.key").is_file());
    let mode = std::fs::metadata(&pki).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o750);
}

/// Two `patch -o` of one file in place, started while a third party holds the file: each waits
/// for the one before and reads its result, so neither change is lost. In an output directory
/// a `bootgen ignition` is writing, a patch is refused naming the directory.
#[test]
fn patches_of_one_file_in_place_follow_each_other() {
    use std::os::fd::AsRawFd;
    let scratch = tempfile::tempdir().unwrap();
    let config = scratch.path().join("node.ign");
    let unit = |name: &str| serde_json::json!({"name": name, "enabled": true, "contents": "[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n"});
    let doc = serde_json::json!({"ignition": {"version": "3.2.0"},
        "systemd": {"units": [unit("a.service"), unit("b.service")]}});
    std::fs::write(&config, doc.to_string()).unwrap();
    let holder = std::fs::File::open(&config).unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(unsafe { libc::flock(holder.as_raw_fd(), libc::LOCK_EX) }, 0);
    let patch = |unit: &str| {
        bootgen_conformance::bootgen!()
            .arg("patch")
            .arg(&config)
            .arg("-o")
            .arg(&config)
            .args(["--disable-unit", unit])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (first, second) = (patch("a.service"), patch("b.service"));
    std::thread::sleep(std::time::Duration::from_millis(300));
    drop(holder);
    for run in [first, second] {
        let output = run.wait_with_output().unwrap();
        assert!(output.status.success(), "{output:?}");
    }
    let patched = std::fs::read_to_string(&config).unwrap();
    for held in ["/etc/bootgen/hold/a.service", "/etc/bootgen/hold/b.service"] {
        assert!(patched.contains(held), "{held} lost: {patched}");
    }

    // In an output directory that a run is writing, the patch waits for nothing: it is refused.
    let out = scratch.path().join("out");
    assert!(ignition(&out, &[]).status().unwrap().success());
    let lock = bootgen::output::DirLock::acquire(
        &out,
        bootgen::output::Access::Write,
        bootgen::output::WhenBusy::Refuse,
    )
    .unwrap();
    let before = std::fs::read(out.join("bootstrap.ign")).unwrap();
    let refused = bootgen_conformance::bootgen!()
        .arg("patch")
        .arg(out.join("bootstrap.ign"))
        .arg("-o")
        .arg(out.join("bootstrap.ign"))
        .arg("--debug")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(BUSY), "{stderr}");
    assert_eq!(std::fs::read(out.join("bootstrap.ign")).unwrap(), before);
    drop(lock);
}

/// Every command that can find an output directory busy and say so suggests `--wait` only where
/// it has that flag; `patch --wait` waits for the other run and then patches.
#[test]
fn a_busy_output_suggests_wait_only_where_the_command_has_it() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    assert!(ignition(&out, &[]).status().unwrap().success());
    let master = out.join("master.ign");
    let lock = bootgen::output::DirLock::acquire(
        &out,
        bootgen::output::Access::Write,
        bootgen::output::WhenBusy::Refuse,
    )
    .unwrap();
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let tarball = path(&scratch.path().join("out.tar.gz"));
    // The commands that lock an output directory and refuse when it is busy (`iso` and `pxe`
    // always wait).
    let commands: [Vec<String>; 4] = [
        ["ignition", "--key-algorithm", "ecdsa-p256", "--force", "-o"]
            .map(String::from)
            .into_iter()
            .chain([path(&out)])
            .collect(),
        vec!["patch".into(), path(&master), "-o".into(), path(&master)],
        vec!["package".into(), path(&out), "-o".into(), tarball],
        vec!["recover".into(), path(&out)],
    ];
    for command in &commands {
        let refused = bootgen_conformance::bootgen!()
            .args(command)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{command:?}: {stderr}");
        assert!(stderr.contains(BUSY), "{command:?}: {stderr}");
        if stderr.contains("--wait") {
            let help = bootgen_conformance::bootgen!()
                .args([command[0].as_str(), "--help"])
                .output()
                .unwrap();
            assert!(
                String::from_utf8_lossy(&help.stdout).contains("--wait"),
                "{command:?} suggests --wait, which it does not have: {stderr}"
            );
        }
    }

    let bootstrap = out.join("bootstrap.ign");
    let before = std::fs::read(&bootstrap).unwrap();
    let waiting = bootgen_conformance::bootgen!()
        .arg("patch")
        .arg(&bootstrap)
        .arg("-o")
        .arg(&bootstrap)
        .args(["--wait", "--debug"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    // Still waiting: the lock is held, so nothing is written yet.
    assert_eq!(std::fs::read(&bootstrap).unwrap(), before);
    drop(lock);
    let output = waiting.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("waiting for the other bootgen run"),
        "{stderr}"
    );
    assert_ne!(std::fs::read(&bootstrap).unwrap(), before, "{stderr}");
}

/// `-o /dev/stdout` writes the config to standard output (a pipe here), and never replaces the
/// system's `/dev/stdout` link (a rename over it, as root, once left a file there).
#[test]
fn dash_o_dev_stdout_writes_to_standard_output() {
    let scratch = tempfile::tempdir().unwrap();
    let config = scratch.path().join("node.ign");
    std::fs::write(&config, r#"{"ignition":{"version":"3.2.0"}}"#).unwrap();
    let output = bootgen_conformance::bootgen!()
        .arg("patch")
        .arg(&config)
        .args(["-o", "/dev/stdout"])
        .output()
        .unwrap();
    let link = std::fs::symlink_metadata("/dev/stdout").unwrap();
    if !link.file_type().is_symlink() {
        // Put the machine's link back before failing, so the other tests keep their stdout.
        let _ = std::fs::remove_file("/dev/stdout");
        let _ = std::os::unix::fs::symlink("/proc/self/fd/1", "/dev/stdout");
        panic!("bootgen replaced /dev/stdout");
    }
    assert!(output.status.success(), "{output:?}");
    // No transform: the output is the input, byte for byte.
    assert_eq!(output.stdout, std::fs::read(&config).unwrap());
}

/// A FIFO another user planted under the name of an output (`mkfifo -m 666
/// /tmp/cluster.tar.gz`, then read it) gets nothing: the write is refused naming its owner.
/// One of our own, with a reader, gets the tarball (`-o` of a pipe is a way people stream).
#[test]
fn a_pipe_another_user_planted_at_an_output_path_gets_nothing() {
    if !bootgen_conformance::is_root() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run as root to make a pipe of another user"
        );
        eprintln!("SKIPPED: making a pipe of another user needs root");
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    assert!(ignition(&out, &[]).status().unwrap().success());
    for (owner, taken) in [("65534", false), ("0", true)] {
        let fifo = scratch.path().join(format!("cluster-{owner}.tar.gz"));
        assert!(Command::new("mkfifo")
            .args(["-m", "666"])
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        assert!(Command::new("chown")
            .arg(owner)
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        // The reader the planter would run (so an unrefused write would not block).
        let reader = Command::new("cat")
            .arg(&fifo)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let output = package(&out, &fifo);
        let stderr = String::from_utf8_lossy(&output.stderr);
        if taken {
            assert!(output.status.success(), "{stderr}");
            let read = reader.wait_with_output().unwrap().stdout;
            assert!(read.starts_with(&[0x1f, 0x8b]), "no gzip came through");
        } else {
            assert_eq!(output.status.code(), Some(1), "{stderr}");
            assert!(
                stderr.contains("a pipe or device of another user (uid 65534)"),
                "{stderr}"
            );
            // Let the reader go: open the pipe for writing and close it at once.
            drop(std::fs::OpenOptions::new().write(true).open(&fifo).unwrap());
            assert!(reader.wait_with_output().unwrap().stdout.is_empty());
        }
    }
}
