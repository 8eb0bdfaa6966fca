//! Conformance harness for bootgen: runs the built binary and checks what it makes with the real
//! tools a node uses (`ignition-validate`, Ignition's `files` stage, `systemctl --root`).
//!
//! The integration tests in `tests/` use it like this:
//!
//! ```no_run
//! use bootgen_conformance::{apply_with_ignition, check_applied, ignition_validate, IgnitionView};
//!
//! # fn demo() -> bootgen_conformance::Result<()> {
//! let out = tempfile::tempdir()?;
//! // Integration tests write `bootgen_conformance::bootgen!()` for the binary Cargo built.
//! let mut cmd = bootgen_conformance::bootgen("bootgen");
//! cmd.args(["ignition", "--output"]).arg(out.path());
//! bootgen_conformance::run(&mut cmd)?;
//! let config = out.path().join("bootstrap.ign");
//! let (clean, report) = ignition_validate(&config);
//! assert!(clean, "{report}");
//! let view = IgnitionView::load(&config)?;
//! if let Some(root) = apply_with_ignition(&config)? {
//!     assert_eq!(check_applied(&view, &root)?, Vec::<String>::new());
//! }
//! # Ok(())
//! # }
//! ```

pub mod failing_node;
pub mod lab;
pub mod live_iso;
pub mod loopback;
pub mod registry;
pub mod templates;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::io::Read as _;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::Value;

/// The real Ignition binary as Debian's `ignition` package installs it (a dracut module).
pub const IGNITION: &str = "/usr/lib/dracut/modules.d/30ignition/ignition";
/// The validator from the same package.
pub const IGNITION_VALIDATE: &str = "/usr/bin/ignition-validate";
/// The preset file Ignition writes for units with `enabled` set.
pub const IGNITION_PRESET: &str = "etc/systemd/system-preset/20-ignition.preset";

/// Library options for a test generation: `release` (`None`: the default one), keys that are
/// quick to make (ECDSA P-256) and a fixed clock (2026-01-01 01:00 UTC), so a test pays little
/// for its PKI and sees the same dates every run.
pub fn quick_options(release: Option<&str>) -> bootgen::Options {
    let now = time::OffsetDateTime::from_unix_timestamp(1_767_229_200).expect("a valid time");
    let mut options = bootgen::Options::new(now);
    options.key_algorithm = bootgen::KeyAlgorithm::EcdsaP256;
    options.model.release_version = release.map(str::to_string);
    options
}

/// A harness failure: what was being done and what went wrong, with any tool output.
pub struct HarnessError(pub String);

impl fmt::Display for HarnessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The message as is: a test returning `Err` prints the error with `{:?}`, and a quoted,
/// escaped Ignition log would be unreadable.
impl fmt::Debug for HarnessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HarnessError {}

impl From<std::io::Error> for HarnessError {
    fn from(err: std::io::Error) -> Self {
        HarnessError(err.to_string())
    }
}

/// Result of every fallible harness function.
pub type Result<T> = std::result::Result<T, HarnessError>;

fn fail<T>(message: impl Into<String>) -> Result<T> {
    Err(HarnessError(message.into()))
}

fn read(path: &Path) -> Result<Vec<u8>> {
    fs::read(path).map_err(|err| HarnessError(format!("cannot read {}: {err}", path.display())))
}

fn write(path: &Path, contents: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, contents)
        .map_err(|err| HarnessError(format!("cannot write {}: {err}", path.display())))
}

/// Writes `contents` to `path` with `mode`, making its parent directories: a stub, a script
/// or a scratch node's file.
pub fn write_file(path: &Path, contents: impl AsRef<[u8]>, mode: u32) -> Result<()> {
    write(path, contents.as_ref())?;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|err| HarnessError(format!("cannot set the mode of {}: {err}", path.display())))
}

// ---------------------------------------------------------------------------------------------
// Running the binary under test

/// The repository root: `fixtures/`, `templates/` and the workspace's crates are below it.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// How the library names its settings (`OptionField` names) in its own messages. The CLI must
/// say the flag instead, so none of these may reach a user's terminal.
pub const LIBRARY_SPELLINGS: &[&str] = &[
    "`model.",
    "passes.mirrors",
    "`tls_dir`",
    "`force`",
    "`strict`",
    "`renew_expired`",
    "`manifests_dir`",
    "`openshift_dir`",
    "`key_algorithm`",
    "`warn_within`",
];

/// A `Command` for the bootgen binary at `path`; from an integration test use [`bootgen!`],
/// which passes the binary Cargo built for this crate.
pub fn bootgen(path: impl AsRef<OsStr>) -> Command {
    Command::new(path)
}

/// `bootgen!()` is [`bootgen()`] for the binary Cargo built for this test crate. It must be a
/// macro: `CARGO_BIN_EXE_*` only exists while compiling integration tests, not this library.
#[macro_export]
macro_rules! bootgen {
    () => {
        $crate::bootgen(env!("CARGO_BIN_EXE_bootgen-under-test"))
    };
}

/// `cmd` (a [`bootgen!`]) set to make the static-network fixture cluster (`fixtures/network/`'s
/// install-config) with the hosts file `hosts`, the fixture PKI and a fixed clock; the caller
/// adds its flags and `-o`.
pub fn static_network_ignition(mut cmd: Command, hosts: &Path) -> Command {
    cmd.args(["ignition", "--now", "2026-01-01T00:00:00Z", "--tls-dir"])
        .arg(repo().join("fixtures/pki"))
        .arg("--install-config")
        .arg(repo().join("fixtures/network/install-config.yaml"))
        .arg("--hosts")
        .arg(hosts);
    cmd
}

/// Runs `cmd` and returns its output; a spawn failure or non-zero exit is an error carrying the
/// command line, exit status, stdout and stderr.
pub fn run(cmd: &mut Command) -> Result<Output> {
    let output = cmd
        .output()
        .map_err(|err| HarnessError(format!("cannot run {cmd:?}: {err}")))?;
    if output.status.success() {
        return Ok(output);
    }
    fail(format!(
        "{cmd:?} failed ({})\n--- stdout\n{}--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

// ---------------------------------------------------------------------------------------------
// Data URLs

/// Decodes an RFC 2397 `data:` URL: base64 when the media type ends in `;base64`, otherwise
/// percent-encoded text.
pub fn decode_data_url(url: &str) -> Result<Vec<u8>> {
    let Some(rest) = url.strip_prefix("data:") else {
        return fail(format!("not a data URL: {url:.60}"));
    };
    let Some((media_type, data)) = rest.split_once(',') else {
        return fail(format!("data URL without a comma: {url:.60}"));
    };
    let bytes = percent_decode(data)?;
    if media_type.rsplit(';').next() == Some("base64") {
        return STANDARD
            .decode(&bytes)
            .map_err(|err| HarnessError(format!("bad base64 in data URL: {err}")));
    }
    Ok(bytes)
}

/// RFC 3986 percent-encoding of everything but unreserved characters, for a data URL.
pub fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn percent_decode(data: &str) -> Result<Vec<u8>> {
    let bytes = data.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                Some(byte) => out.push(byte),
                None => return fail(format!("bad percent escape at byte {i} of a data URL")),
            }
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// Decodes an Ignition resource (`{"source": ..., "compression": ...}`): a data URL, gunzipped
/// when `compression` is `gzip`. A resource without a source is `None`.
pub fn decode_resource(resource: &Value) -> Result<Option<Vec<u8>>> {
    let Some(source) = resource.get("source").and_then(Value::as_str) else {
        return Ok(None);
    };
    let bytes = decode_data_url(source)?;
    match resource.get("compression").and_then(Value::as_str) {
        None | Some("") => Ok(Some(bytes)),
        Some("gzip") => {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(bytes.as_slice())
                .read_to_end(&mut out)
                .map_err(|err| HarnessError(format!("bad gzip data: {err}")))?;
            Ok(Some(out))
        }
        Some(other) => fail(format!("unknown compression {other:?}")),
    }
}

// ---------------------------------------------------------------------------------------------
// A decoded view of a config

/// One `storage.files` entry, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// `mode`, or Ignition's default 0644.
    pub mode: u32,
    /// Decoded `contents`; `None` when the entry has no source.
    pub contents: Option<Vec<u8>>,
    /// Decoded `append` fragments, in order.
    pub append: Vec<Vec<u8>>,
    /// `user.name` (or `user.id` as text), when set.
    pub user: Option<String>,
}

impl FileEntry {
    /// What the file must hold after Ignition ran, given what was there before.
    pub fn expected(&self, before: Option<&[u8]>) -> Vec<u8> {
        let mut out = match &self.contents {
            Some(contents) => contents.clone(),
            None => before.unwrap_or_default().to_vec(),
        };
        self.append
            .iter()
            .for_each(|part| out.extend_from_slice(part));
        out
    }
}

/// One `systemd.units` entry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UnitEntry {
    /// `enabled`: `Some(true)` enable, `Some(false)` disable, `None` leave to the presets.
    pub enabled: Option<bool>,
    /// `mask`.
    pub mask: bool,
    /// `contents`; `None` or empty means Ignition writes no unit file.
    pub contents: Option<String>,
    /// Drop-in name to its contents.
    pub dropins: BTreeMap<String, Option<String>>,
}

/// One `passwd.users` entry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserEntry {
    /// `sshAuthorizedKeys`.
    pub ssh_keys: Vec<String>,
    /// Supplementary `groups`.
    pub groups: Vec<String>,
}

/// A config decoded into maps keyed by path or name, so tests compare values, not JSON.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IgnitionView {
    /// `ignition.version`.
    pub version: String,
    /// Files by absolute path.
    pub files: BTreeMap<String, FileEntry>,
    /// Directories by absolute path, with their mode (Ignition's default 0755).
    pub directories: BTreeMap<String, u32>,
    /// Links by absolute path, with their target.
    pub links: BTreeMap<String, String>,
    /// Units by name.
    pub units: BTreeMap<String, UnitEntry>,
    /// Users by name.
    pub users: BTreeMap<String, UserEntry>,
}

fn entries<'a>(config: &'a Value, section: &str, key: &str) -> &'a [Value] {
    config[section][key].as_array().map_or(&[], Vec::as_slice)
}

fn text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

fn insert_unique<T>(map: &mut BTreeMap<String, T>, key: &Value, what: &str, item: T) -> Result<()> {
    let Some(key) = key.as_str() else {
        return fail(format!("a {what} without a name or path"));
    };
    if map.insert(key.to_owned(), item).is_some() {
        return fail(format!("duplicate {what} {key}"));
    }
    Ok(())
}

impl IgnitionView {
    /// Reads and decodes the config at `path`.
    pub fn load(path: &Path) -> Result<Self> {
        Self::parse(&read(path)?).map_err(|err| HarnessError(format!("{}: {err}", path.display())))
    }

    /// Decodes a config from JSON bytes. Duplicate paths or names are errors.
    pub fn parse(json: &[u8]) -> Result<Self> {
        let config: Value =
            serde_json::from_slice(json).map_err(|err| HarnessError(format!("not JSON: {err}")))?;
        let mut view = IgnitionView {
            version: text(&config["ignition"]["version"]).unwrap_or_default(),
            ..Self::default()
        };
        for file in entries(&config, "storage", "files") {
            let append = file["append"].as_array().map_or(&[][..], Vec::as_slice);
            let entry = FileEntry {
                mode: file["mode"].as_u64().map_or(0o644, |m| m as u32),
                contents: decode_resource(&file["contents"])?,
                append: append
                    .iter()
                    .map(|part| Ok(decode_resource(part)?.unwrap_or_default()))
                    .collect::<Result<_>>()?,
                user: text(&file["user"]["name"])
                    .or(file["user"]["id"].as_u64().map(|id| id.to_string())),
            };
            insert_unique(&mut view.files, &file["path"], "file", entry)?;
        }
        for dir in entries(&config, "storage", "directories") {
            let mode = dir["mode"].as_u64().map_or(0o755, |m| m as u32);
            insert_unique(&mut view.directories, &dir["path"], "directory", mode)?;
        }
        for link in entries(&config, "storage", "links") {
            let target = text(&link["target"]).unwrap_or_default();
            insert_unique(&mut view.links, &link["path"], "link", target)?;
        }
        for unit in entries(&config, "systemd", "units") {
            let mut dropins = BTreeMap::new();
            for dropin in unit["dropins"].as_array().map_or(&[][..], Vec::as_slice) {
                insert_unique(
                    &mut dropins,
                    &dropin["name"],
                    "drop-in",
                    text(&dropin["contents"]),
                )?;
            }
            let entry = UnitEntry {
                enabled: unit["enabled"].as_bool(),
                mask: unit["mask"].as_bool().unwrap_or(false),
                contents: text(&unit["contents"]),
                dropins,
            };
            insert_unique(&mut view.units, &unit["name"], "unit", entry)?;
        }
        for user in entries(&config, "passwd", "users") {
            let list = |key: &str| -> Vec<String> {
                let items = user[key].as_array().map_or(&[][..], Vec::as_slice);
                items.iter().filter_map(text).collect()
            };
            let entry = UserEntry {
                ssh_keys: list("sshAuthorizedKeys"),
                groups: list("groups"),
            };
            insert_unique(&mut view.users, &user["name"], "user", entry)?;
        }
        Ok(view)
    }
}

// ---------------------------------------------------------------------------------------------
// ignition-validate

/// Runs `ignition-validate` on `path`. Returns `(clean, output)`: `clean` only when it exits 0
/// and prints nothing, because it reports warnings on output while still exiting 0.
pub fn ignition_validate(path: &Path) -> (bool, String) {
    match Command::new(IGNITION_VALIDATE).arg(path).output() {
        Ok(output) => {
            let mut report = String::from_utf8_lossy(&output.stdout).into_owned();
            report.push_str(&String::from_utf8_lossy(&output.stderr));
            let clean = output.status.success() && report.trim().is_empty();
            (
                clean,
                format!("{} ({}): {report}", path.display(), output.status),
            )
        }
        Err(err) => (false, format!("cannot run {IGNITION_VALIDATE}: {err}")),
    }
}

// ---------------------------------------------------------------------------------------------
// Applying a config with the real Ignition

/// Whether this process runs as root (read from `/proc/self/status`: no libc needed).
pub fn is_root() -> bool {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    let uid = status.lines().find_map(|line| line.strip_prefix("Uid:"));
    uid.and_then(|ids| ids.split_whitespace().nth(1)) == Some("0")
}

/// The files of a minimal RHCOS-like root that Ignition's `files` stage needs: accounts for
/// `useradd --root` (with `login.defs` so `core` gets its own group, as on a node), SELinux config
/// for the relabel step, and the distribution's `disable *` preset so only units Ignition enables
/// end up enabled.
const BASE_FILES: &[(&str, &str, u32)] = &[
    (
        "etc/passwd",
        concat!(
            "root:x:0:0:root:/root:/bin/bash\n",
            "nobody:x:65534:65534:Kernel Overflow User:/:/sbin/nologin\n",
        ),
        0o644,
    ),
    (
        "etc/group",
        "root:x:0:\nadm:x:4:\nwheel:x:10:\nsudo:x:16:\nusers:x:100:\nnobody:x:65534:\n",
        0o644,
    ),
    (
        "etc/shadow",
        "root:*:19000:0:99999:7:::\nnobody:*:19000:0:99999:7:::\n",
        0o600,
    ),
    (
        "etc/gshadow",
        "root:::\nadm:::\nwheel:::\nsudo:::\nusers:::\nnobody:::\n",
        0o600,
    ),
    (
        "etc/login.defs",
        concat!(
            "UID_MIN 1000\nUID_MAX 60000\nSYS_UID_MIN 201\nSYS_UID_MAX 999\n",
            "GID_MIN 1000\nGID_MAX 60000\nSYS_GID_MIN 201\nSYS_GID_MAX 999\n",
            "USERGROUPS_ENAB yes\nCREATE_HOME yes\nHOME_MODE 0700\nUMASK 022\n",
        ),
        0o644,
    ),
    (
        "etc/selinux/config",
        "SELINUX=disabled\nSELINUXTYPE=targeted\n",
        0o644,
    ),
    (
        "usr/lib/systemd/system-preset/99-default-disable.preset",
        "disable *\n",
        0o644,
    ),
];

/// Stand-in for `setfiles`, which Ignition calls to relabel what it wrote.
const SETFILES_STUB: &str =
    "#!/bin/sh\n# The test root has SELinux disabled: nothing to relabel.\nexit 0\n";

/// False (after saying so on stderr) when one of `tools` (absolute paths) is missing outside
/// CI; under `CI` a missing tool fails the test, so CI cannot pass by skipping.
pub fn tools_present(tools: &[&str]) -> bool {
    let missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|t| !Path::new(t).exists())
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must have {missing:?} (.ci/run installs them)"
    );
    eprintln!("SKIPPED: {missing:?} not installed; run `bash .ci/run`");
    false
}

/// A root file system to apply a config to: the base files plus `seed`ed files that stand for
/// what the OS image already has (so appends have something to append to).
#[derive(Debug, Clone, Default)]
pub struct BaseRoot {
    seeds: BTreeMap<String, Vec<u8>>,
}

impl BaseRoot {
    /// The base root with no extra files.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file (absolute node path, mode 0644) present before Ignition runs.
    pub fn seed(mut self, path: &str, contents: &[u8]) -> Self {
        self.seeds.insert(path.to_owned(), contents.to_vec());
        self
    }

    /// Applies `config` with Ignition's `fetch-offline` then `files` stages into a fresh root.
    /// `Ok(None)` (after saying so on stderr) when not root outside CI; under `CI` not being root
    /// is an error, so CI cannot pass by skipping.
    pub fn apply(&self, config: &Path) -> Result<Option<AppliedRoot>> {
        if !is_root() {
            let why = "applying with the real Ignition needs root (useradd --root, chown)";
            if std::env::var_os("CI").is_some() {
                return fail(format!("{why}, and CI must run as root"));
            }
            eprintln!("SKIPPED: {why}; run `bash .ci/run` as root");
            return Ok(None);
        }
        let config = fs::canonicalize(config)
            .map_err(|err| HarnessError(format!("{}: {err}", config.display())))?;
        // Under /tmp and 0755 all the way: Ignition writes a user's home as that user.
        let work = tempfile::Builder::new()
            .prefix("bootgen-ignition-")
            .tempdir_in("/tmp")?;
        let root = work.path().join("root");
        for (path, contents, mode) in BASE_FILES {
            write(&root.join(path), contents.as_bytes())?;
            fs::set_permissions(root.join(path), fs::Permissions::from_mode(*mode))?;
        }
        fs::create_dir_all(root.join("home"))?;
        for (path, contents) in &self.seeds {
            write(&root.join(path.trim_start_matches('/')), contents)?;
        }
        let bin = work.path().join("bin");
        write(&bin.join("setfiles"), SETFILES_STUB.as_bytes())?;
        fs::set_permissions(bin.join("setfiles"), fs::Permissions::from_mode(0o755))?;
        fs::set_permissions(work.path(), fs::Permissions::from_mode(0o755))?;
        // The stub first; the sbin directories last, since Ignition runs `useradd` from PATH.
        let inherited = std::env::var("PATH").unwrap_or_default();
        let path = format!(
            "{}:{inherited}:/usr/sbin:/usr/bin:/sbin:/bin",
            bin.display()
        );
        let state = work.path().join("state");
        fs::create_dir_all(&state)?;
        let mut log = String::new();
        for stage in ["fetch-offline", "files"] {
            let output = Command::new(IGNITION)
                .args([
                    "-platform",
                    "file",
                    "-stage",
                    stage,
                    "-log-to-stdout",
                    "-root",
                ])
                .arg(&root)
                .arg("-config-cache")
                .arg(state.join("ignition.json"))
                .arg("-state-file")
                .arg(state.join("state"))
                .arg("-neednet")
                .arg(state.join("neednet"))
                .env("IGNITION_CONFIG_FILE", &config)
                .env("PATH", &path)
                .output()
                .map_err(|err| HarnessError(format!("cannot run {IGNITION}: {err}")))?;
            log.push_str(&String::from_utf8_lossy(&output.stdout));
            log.push_str(&String::from_utf8_lossy(&output.stderr));
            if !output.status.success() {
                return fail(format!(
                    "ignition stage {stage} failed ({})\n{log}",
                    output.status
                ));
            }
        }
        Ok(Some(AppliedRoot {
            work,
            root,
            seeds: self.seeds.clone(),
            log,
        }))
    }
}

/// [`BaseRoot::new`]`.apply(config)`: see there.
pub fn apply_with_ignition(config: &Path) -> Result<Option<AppliedRoot>> {
    BaseRoot::new().apply(config)
}

/// A root Ignition has written to; removed when dropped.
#[derive(Debug)]
pub struct AppliedRoot {
    work: tempfile::TempDir,
    root: PathBuf,
    seeds: BTreeMap<String, Vec<u8>>,
    log: String,
}

impl AppliedRoot {
    /// The root directory (Ignition's `-root`).
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Ignition's log of both stages.
    pub fn log(&self) -> &str {
        &self.log
    }

    /// The host path of an absolute node path such as `/etc/motd`.
    pub fn join(&self, node_path: &str) -> PathBuf {
        self.root.join(node_path.trim_start_matches('/'))
    }

    /// What the file at `node_path` held before Ignition ran, if it was seeded.
    pub fn seeded(&self, node_path: &str) -> Option<&[u8]> {
        self.seeds.get(node_path).map(Vec::as_slice)
    }

    /// The temporary directory holding the root, Ignition's state and the `setfiles` stub.
    pub fn work_dir(&self) -> &Path {
        self.work.path()
    }
}

// ---------------------------------------------------------------------------------------------
// Checking an applied root against the config

/// Every way the applied root differs from `view`: files, directories, links, users, unit files
/// and enablement. Empty when Ignition did exactly what the config says.
pub fn check_applied(view: &IgnitionView, root: &AppliedRoot) -> Result<Vec<String>> {
    let mut problems = check_storage(view, root);
    problems.extend(check_users(view, root)?);
    problems.extend(check_unit_files(view, root));
    problems.extend(check_enablement(view, root.path())?);
    Ok(problems)
}

/// Files land with their mode, owner and exact contents (appends after what was there);
/// directories with their mode; links with their target.
pub fn check_storage(view: &IgnitionView, root: &AppliedRoot) -> Vec<String> {
    let mut problems = Vec::new();
    for (path, file) in &view.files {
        let host = root.join(path);
        let Ok(meta) = fs::symlink_metadata(&host) else {
            problems.push(format!("{path}: missing"));
            continue;
        };
        if !meta.is_file() {
            problems.push(format!("{path}: not a regular file"));
            continue;
        }
        if meta.mode() & 0o7777 != file.mode {
            problems.push(format!(
                "{path}: mode {:04o}, config says {:04o}",
                meta.mode() & 0o7777,
                file.mode
            ));
        }
        if matches!(file.user.as_deref(), Some("root" | "0")) && meta.uid() != 0 {
            problems.push(format!(
                "{path}: owner uid {}, config says root",
                meta.uid()
            ));
        }
        let expected = file.expected(root.seeded(path));
        match fs::read(&host) {
            Ok(actual) if actual == expected => {}
            Ok(actual) => problems.push(format!(
                "{path}: {} bytes differ from the {} the config gives{}",
                actual.len(),
                expected.len(),
                if file.append.is_empty() {
                    ""
                } else {
                    " (with appends)"
                }
            )),
            Err(err) => problems.push(format!("{path}: {err}")),
        }
    }
    for (path, mode) in &view.directories {
        match fs::symlink_metadata(root.join(path)) {
            Ok(meta) if meta.is_dir() && meta.mode() & 0o7777 == *mode => {}
            Ok(meta) => problems.push(format!(
                "{path}: not a directory of mode {mode:04o} ({:o})",
                meta.mode()
            )),
            Err(_) => problems.push(format!("{path}: directory missing")),
        }
    }
    for (path, target) in &view.links {
        match fs::read_link(root.join(path)) {
            Ok(actual) if actual == Path::new(target) => {}
            Ok(actual) => problems.push(format!(
                "{path}: links to {}, not {target}",
                actual.display()
            )),
            Err(_) => problems.push(format!("{path}: link missing")),
        }
    }
    problems
}

/// The `/etc/passwd` line of `name` in `root`, split into fields.
pub fn passwd_entry(root: &Path, name: &str) -> Result<Option<Vec<String>>> {
    let passwd = String::from_utf8_lossy(&read(&root.join("etc/passwd"))?).into_owned();
    Ok(passwd
        .lines()
        .map(|line| line.split(':').map(str::to_owned).collect::<Vec<_>>())
        .find(|fields| fields.first().map(String::as_str) == Some(name)))
}

/// Each user exists in `/etc/passwd`, is in its groups, and every SSH key is in
/// `~/.ssh/authorized_keys.d/ignition` (where Ignition 2.x writes them).
pub fn check_users(view: &IgnitionView, root: &AppliedRoot) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let group = String::from_utf8_lossy(&read(&root.join("/etc/group"))?).into_owned();
    for (name, user) in &view.users {
        let Some(fields) = passwd_entry(root.path(), name)? else {
            problems.push(format!("user {name}: not in /etc/passwd"));
            continue;
        };
        for wanted in &user.groups {
            let member = group.lines().any(|line| {
                let fields: Vec<&str> = line.split(':').collect();
                fields.first() == Some(&wanted.as_str())
                    && fields
                        .get(3)
                        .is_some_and(|members| members.split(',').any(|m| m == name))
            });
            if !member {
                problems.push(format!("user {name}: not in group {wanted}"));
            }
        }
        if user.ssh_keys.is_empty() {
            continue;
        }
        let home = fields.get(5).map_or("", String::as_str);
        let keys_path = format!("{home}/.ssh/authorized_keys.d/ignition");
        let keys = fs::read_to_string(root.join(&keys_path)).unwrap_or_default();
        for key in &user.ssh_keys {
            if !keys.lines().any(|line| line == key.trim()) {
                problems.push(format!("user {name}: key {key:.40}... not in {keys_path}"));
            }
        }
    }
    Ok(problems)
}

/// Unit files and drop-ins with contents are in `/etc/systemd/system` byte for byte; units and
/// drop-ins without contents are not written; masked units link to `/dev/null`.
pub fn check_unit_files(view: &IgnitionView, root: &AppliedRoot) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, unit) in &view.units {
        let path = format!("/etc/systemd/system/{name}");
        if unit.mask {
            if fs::read_link(root.join(&path)).ok().as_deref() != Some(Path::new("/dev/null")) {
                problems.push(format!("{path}: masked but not linked to /dev/null"));
            }
        } else {
            problems.extend(compare_unit_file(root, &path, &unit.contents));
        }
        for (dropin, contents) in &unit.dropins {
            problems.extend(compare_unit_file(
                root,
                &format!("{path}.d/{dropin}"),
                contents,
            ));
        }
    }
    problems
}

/// A problem when the file at `path` does not hold `contents`, or exists though `contents` is
/// empty or absent (Ignition writes no file then).
fn compare_unit_file(root: &AppliedRoot, path: &str, contents: &Option<String>) -> Option<String> {
    let actual = fs::read_to_string(root.join(path)).ok();
    match contents.as_deref().filter(|c| !c.is_empty()) {
        Some(wanted) if actual.as_deref() != Some(wanted) => {
            Some(format!("{path}: missing or different"))
        }
        None if root.join(path).exists() => Some(format!("{path}: written without contents")),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Enablement, as systemd reads it

/// The `enable`/`disable` lines of Ignition's preset file in `root`, by unit name.
pub fn read_preset(root: &Path) -> Result<BTreeMap<String, bool>> {
    let path = root.join(IGNITION_PRESET);
    if !path.exists() {
        return Ok(BTreeMap::new());
    }
    let mut preset = BTreeMap::new();
    for line in String::from_utf8_lossy(&read(&path)?).lines() {
        match line.split_whitespace().collect::<Vec<_>>()[..] {
            ["enable", unit] => preset.insert(unit.to_owned(), true),
            ["disable", unit] => preset.insert(unit.to_owned(), false),
            [] => None,
            _ => return fail(format!("{}: unexpected line {line:?}", path.display())),
        };
    }
    Ok(preset)
}

fn systemctl(root: &Path, args: &[&str]) -> Result<Output> {
    Command::new("systemctl")
        .arg(format!("--root={}", root.display()))
        .args(args)
        .output()
        .map_err(|err| HarnessError(format!("cannot run systemctl: {err}")))
}

/// `systemctl --root=ROOT preset-all`: what first boot does with the presets.
pub fn preset_all(root: &Path) -> Result<()> {
    run(Command::new("systemctl")
        .arg(format!("--root={}", root.display()))
        .arg("preset-all"))?;
    Ok(())
}

/// `systemctl --root=ROOT is-enabled UNIT`: `enabled`, `disabled`, `static`, `masked`, ...
pub fn is_enabled(root: &Path, unit: &str) -> Result<String> {
    let output = systemctl(root, &["is-enabled", unit])?;
    let state = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if state.is_empty() {
        return fail(format!(
            "is-enabled {unit}: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(state)
}

/// The enabled units after `preset-all`, as `systemctl --root list-unit-files` reports them.
pub fn enabled_units(root: &Path) -> Result<BTreeSet<String>> {
    let output = systemctl(
        root,
        &[
            "list-unit-files",
            "--state=enabled",
            "--no-legend",
            "--no-pager",
        ],
    )?;
    let listing = String::from_utf8_lossy(&output.stdout).into_owned();
    Ok(listing
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect())
}

/// Stand-in unit file for units the OS image ships (the config enables them or adds drop-ins but
/// has no contents), so systemd has something to enable.
const STOCK_UNIT_STUB: &str = "[Unit]\nDescription=stand-in for a unit the OS image ships\n\n[Service]\nExecStart=/bin/true\n\n[Install]\nWantedBy=multi-user.target\n";

/// Checks enablement twice: the preset file has exactly one line per unit with `enabled` set,
/// and after `systemctl preset-all` (with the distribution's `disable *` and stand-ins in
/// `/usr/lib/systemd/system` for units the config does not write) exactly the enabled units are
/// enabled and masked units are masked.
pub fn check_enablement(view: &IgnitionView, root: &Path) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let wanted: BTreeMap<String, bool> = view
        .units
        .iter()
        .filter_map(|(name, unit)| unit.enabled.map(|on| (name.clone(), on)))
        .collect();
    let preset = read_preset(root)?;
    if preset != wanted {
        problems.push(format!("preset {preset:?}, config says {wanted:?}"));
    }
    for (name, unit) in &view.units {
        let stock = root.join("usr/lib/systemd/system").join(name);
        if unit.contents.as_deref().is_none_or(str::is_empty) && !unit.mask && !stock.exists() {
            write(&stock, STOCK_UNIT_STUB.as_bytes())?;
        }
    }
    preset_all(root)?;
    let enabled = enabled_units(root)?;
    let expected: BTreeSet<String> = wanted
        .iter()
        .filter(|(_, on)| **on)
        .map(|(name, _)| name.clone())
        .collect();
    if enabled != expected {
        problems.push(format!(
            "after preset-all, enabled but not by the config: {:?}; enabled by the config but not enabled: {:?}",
            enabled.difference(&expected).collect::<Vec<_>>(),
            expected.difference(&enabled).collect::<Vec<_>>(),
        ));
    }
    for (name, unit) in &view.units {
        let state = is_enabled(root, name)?;
        let ok = match (unit.mask, unit.enabled) {
            (true, _) => state == "masked",
            (false, Some(true)) => state == "enabled",
            (false, _) => state != "enabled",
        };
        if !ok {
            problems.push(format!("unit {name}: is-enabled says {state}"));
        }
    }
    Ok(problems)
}

/// Runs `systemd-analyze verify` on `unit` in `root`: `None` when it says nothing, else its
/// exit code and messages. Any message at all is a finding, since systemd only warns (exit 0)
/// about unknown keys and bad values.
pub fn systemd_verify(root: &Path, unit: &str) -> Result<Option<String>> {
    let output = Command::new("systemd-analyze")
        .args(["verify", "--man=no", "--recursive-errors=one"])
        .arg(format!("--root={}", root.display()))
        .arg(unit)
        .env("SYSTEMD_LOG_COLOR", "0")
        .output()?;
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if output.status.success() && said.trim().is_empty() {
        return Ok(None);
    }
    Ok(Some(format!(
        "{unit} (exit {:?}):\n{}",
        output.status.code(),
        said.trim_end()
    )))
}

/// `systemd-analyze verify` of `units` in `root` (a root the real Ignition wrote), beside the
/// host's own unit files (for the targets they name) and `stand_ins`: (path in the root, text)
/// for what the node's image has and the root lacks; a message of [`systemd_verify`] is an
/// error. `Ok(false)` (after saying so) when systemd-analyze is missing outside CI.
pub fn verify_units_in(
    root: &Path,
    units: &[&str],
    stand_ins: &[(&str, &str, u32)],
) -> Result<bool> {
    if !tools_present(&["/usr/bin/systemd-analyze"]) {
        return Ok(false);
    }
    fs::create_dir_all(root.join("usr/lib/systemd"))?;
    let copied = Command::new("cp")
        .arg("-a")
        .arg("/usr/lib/systemd/system")
        .arg(root.join("usr/lib/systemd"))
        .status()?;
    if !copied.success() {
        return fail("cannot copy the host's unit files");
    }
    for (path, text, mode) in stand_ins {
        write_file(&root.join(path.trim_start_matches('/')), text, *mode)?;
    }
    for unit in units {
        if let Some(finding) = systemd_verify(root, unit)? {
            return fail(format!("systemd-analyze verify: {finding}"));
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_base64_and_percent_data_urls() -> Result<()> {
        assert_eq!(
            decode_data_url("data:text/plain;charset=utf-8;base64,aGk6Cg==")?,
            b"hi:\n"
        );
        assert_eq!(decode_data_url("data:;base64,")?, b"");
        assert_eq!(decode_data_url("data:,a%20b%0A%25")?, b"a b\n%");
        assert_eq!(decode_data_url("data:text/plain,x,y")?, b"x,y");
        assert!(decode_data_url("https://example.com/x").is_err());
        assert!(decode_data_url("data:,bad%zz").is_err());
        assert!(decode_data_url("data:;base64,!!!").is_err());
        Ok(())
    }

    #[test]
    fn view_decodes_entries_and_rejects_duplicates() -> Result<()> {
        let config = br#"{"ignition":{"version":"3.2.0"},
            "storage":{"files":[{"path":"/a","contents":{"source":"data:,x"},"append":[{"source":"data:,y"}]},
                                {"path":"/b","mode":365}]},
            "systemd":{"units":[{"name":"u.service","enabled":false,"dropins":[{"name":"d.conf"}]}]},
            "passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 AAAA"]}]}}"#;
        let view = IgnitionView::parse(config)?;
        assert_eq!(view.version, "3.2.0");
        assert_eq!(view.files["/a"].expected(Some(b"old")), b"xy");
        assert_eq!(view.files["/a"].mode, 0o644);
        assert_eq!(view.files["/b"].mode, 0o555);
        assert_eq!(view.files["/b"].expected(Some(b"old")), b"old");
        assert_eq!(view.units["u.service"].enabled, Some(false));
        assert_eq!(view.units["u.service"].dropins["d.conf"], None);
        assert_eq!(view.users["core"].ssh_keys, ["ssh-ed25519 AAAA"]);
        let duplicate = br#"{"storage":{"files":[{"path":"/a"},{"path":"/a"}]}}"#;
        assert!(IgnitionView::parse(duplicate).is_err());
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Output directories

/// One file of a directory tree: its mode bits, inode and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFile {
    /// Permission bits (`& 0o7777`).
    pub mode: u32,
    /// The inode, to tell a file kept in place from one written anew.
    pub inode: u64,
    /// Contents.
    pub bytes: Vec<u8>,
}

/// Every regular file under `dir`, by path relative to it.
pub fn dir_tree(dir: &Path) -> Result<BTreeMap<String, TreeFile>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in fs::read_dir(&current)? {
            let entry = entry?;
            let meta = entry.metadata()?;
            if meta.is_dir() {
                stack.push(entry.path());
                continue;
            }
            let relative = entry
                .path()
                .strip_prefix(dir)
                .map_err(|err| HarnessError(err.to_string()))?
                .display()
                .to_string();
            let file = TreeFile {
                mode: meta.permissions().mode() & 0o7777,
                inode: meta.ino(),
                bytes: read(&entry.path())?,
            };
            files.insert(relative, file);
        }
    }
    Ok(files)
}

/// [`dir_tree`] without inodes: what two separate runs must agree on.
pub fn dir_contents(dir: &Path) -> Result<BTreeMap<String, (u32, Vec<u8>)>> {
    Ok(dir_tree(dir)?
        .into_iter()
        .map(|(path, file)| (path, (file.mode, file.bytes)))
        .collect())
}
