//! The output directory: every changed file is staged inside it and committed as one change
//! (see `journal`), so a failed or killed run leaves the previous output, or a commit record the
//! next run finishes. That works the same for a plain directory, a mount point and a symlink.
//! Keys are never replaced.

mod dirs;
mod estimate;
mod extract;
mod extract_plan;
mod extract_walk;
mod host_configs;
mod journal;
mod lock;
mod media;
mod owner;
mod package;
mod prune;
mod same_cluster;
mod unchanged;

pub use crate::ownership::{Control, Foreign};
pub use dirs::{create_dir_below, refuse_linked_dirs};
pub use estimate::{iso_estimate, iso_estimate_kept, ISO_ESTIMATE_FILE};
pub use extract::{extract, extract_split, ExtractReport, UNIT_DIR};
pub use host_configs::{host_configs, read_in_dir, read_no_link};
pub use journal::{interrupted, recover, Recovery, WriteStep, COMMIT_RECORD, STAGING_DIR};
pub use lock::{lock_file, Access, DirLock, WhenBusy, LOCK_FILE};
pub use media::{
    clear_media_pending, media_dirs, media_pending, media_pending_marker, open_in_place,
    patch_to_copy, remove_temp_files, write_streamed, written_dirs, ImageMode, InPlaceImage,
    CONFIG_MEDIA_MODE, MEDIA_PENDING,
};
pub use owner::refuse_foreign_output;
pub use package::{check_package, package_bytes, write_package, PackageReport, CHECKSUMS};
pub use prune::{
    own_file_names, remove_stale_host_files, stale_host_files, StaleFiles, HOST_FILE_DIRS,
    ROLE_MEDIA_DIRS,
};
pub use unchanged::{into_output_files_in, KeptFile, Measured};

use crate::error::{Error, OptionField, Result};
use crate::generate::Generated;
use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// A file of the output directory. Its `Debug` shows the contents' length only (they may be a
/// key).
#[derive(Clone, PartialEq, Eq)]
pub struct OutputFile {
    /// Path relative to the output directory.
    pub relative: String,
    /// The bytes.
    pub contents: Vec<u8>,
    /// Unix mode.
    pub mode: u32,
}

impl std::fmt::Debug for OutputFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputFile")
            .field("relative", &self.relative)
            .field("contents", &format_args!("<{} bytes>", self.contents.len()))
            .field("mode", &format_args!("{:04o}", self.mode))
            .finish()
    }
}

/// Files whose presence means "there is work here" (replaced only with `force`).
pub const CONFIG_FILES: &[&str] = &[
    "bootstrap.ign",
    "bootstrap-in-place-for-live-iso.ign",
    "master.ign",
    "worker.ign",
    METADATA_FILE,
];

/// The directory of an output directory that `ignition --iso` writes boot media into: not
/// packed (an ISO is no config), not foreign either.
pub const MEDIA_DIR: &str = "media";

/// The record of the cluster for `openshift-install destroy` and the like.
pub const METADATA_FILE: &str = "metadata.json";
/// The admin kubeconfig.
pub const ADMIN_KUBECONFIG: &str = "auth/kubeconfig";
/// The kubeadmin password.
pub const KUBEADMIN_PASSWORD: &str = "auth/kubeadmin-password";
/// The bootstrap SSH key pair: a key, which is never replaced, and its public half.
const BOOTSTRAP_SSH_KEY: &str = "auth/bootstrap-ssh-key";
const BOOTSTRAP_SSH_PUBLIC_KEY: &str = "auth/bootstrap-ssh-key.pub";

/// What `auth/` holds, by path in the output directory.
pub const AUTH_FILES: &[&str] = &[
    ADMIN_KUBECONFIG,
    KUBEADMIN_PASSWORD,
    BOOTSTRAP_SSH_KEY,
    BOOTSTRAP_SSH_PUBLIC_KEY,
];

/// True for a path (relative, `/`-separated) that a generation writes into an output
/// directory, or one of its two subdirectories; bootgen's own dot files are not among them.
pub fn is_output_path(relative: &str) -> bool {
    match relative.split_once('/') {
        None => {
            CONFIG_FILES.contains(&relative)
                || relative == "auth"
                || relative == "tls"
                || relative == HOSTS_DIR
        }
        Some(("auth", _)) => AUTH_FILES.contains(&relative),
        Some((HOSTS_DIR, name)) => name.ends_with(".ign") && !name.contains('/'),
        Some(("tls", name)) => {
            name == crate::identity::HASH_CACHE_FILE || crate::pki::is_stored_file(name)
        }
        Some(_) => false,
    }
}

/// The directory of the per-host configs (`hosts/<hostname>.ign`).
pub const HOSTS_DIR: &str = "hosts";

/// Everything a generation writes, sorted by path.
pub fn output_files(generated: &Generated) -> Vec<OutputFile> {
    files_with(generated, Some(generated.bootstrap.to_bytes()))
}

/// [`output_files`], consuming the generation: the bootstrap config's JSON tree is freed as soon
/// as its bytes exist, so a large config is not in memory twice while it is written.
pub fn into_output_files(mut generated: Generated) -> Vec<OutputFile> {
    let bootstrap = std::mem::replace(
        &mut generated.bootstrap,
        crate::ignition::IgnitionDoc {
            value: serde_json::Value::Null,
        },
    );
    let bytes = bootstrap.to_bytes();
    drop(bootstrap);
    files_with(&generated, Some(bytes))
}

/// The output files, with the bootstrap config's `bootstrap` bytes when given.
fn files_with(generated: &Generated, bootstrap: Option<Vec<u8>>) -> Vec<OutputFile> {
    let mut files = Vec::new();
    if let Some(bytes) = bootstrap {
        files.push(file(generated.bootstrap_name(), bytes, 0o600));
    }
    if generated.writes_master() {
        files.push(file("master.ign", generated.master.to_bytes(), 0o644));
    }
    if generated.writes_worker() {
        files.push(file("worker.ign", generated.worker.to_bytes(), 0o644));
    }
    // 0600: a keyfile may hold a Wi-Fi or 802.1X secret.
    for (hostname, config) in &generated.host_configs {
        files.push(file(
            &format!("{HOSTS_DIR}/{hostname}.ign"),
            config.to_bytes(),
            0o600,
        ));
    }
    files.extend([
        file(
            METADATA_FILE,
            serde_json::to_vec(&generated.metadata).unwrap_or_default(),
            // It holds the vCenter credentials of a vSphere cluster.
            if generated.metadata.vsphere.is_some() {
                0o600
            } else {
                0o644
            },
        ),
        file(
            ADMIN_KUBECONFIG,
            generated.admin_kubeconfig.clone().into_bytes(),
            0o600,
        ),
        file(
            KUBEADMIN_PASSWORD,
            generated.identity.kubeadmin_password.clone().into_bytes(),
            0o600,
        ),
        file(
            BOOTSTRAP_SSH_KEY,
            generated.pki.bootstrap_ssh_private_key_pem().into_bytes(),
            0o600,
        ),
        file(
            BOOTSTRAP_SSH_PUBLIC_KEY,
            generated.pki.bootstrap_ssh_public_key().into_bytes(),
            0o644,
        ),
    ]);
    let cache = crate::identity::hash_cache(
        &generated.identity,
        &crate::generate::root_ca_key(&generated.pki),
    );
    files.push(file(
        &format!("tls/{}", crate::identity::HASH_CACHE_FILE),
        cache.into_bytes(),
        0o600,
    ));
    for tls in generated.pki.store_files() {
        files.push(file(&format!("tls/{}", tls.name), tls.contents, tls.mode));
    }
    files.sort_by(|a, b| a.relative.cmp(&b.relative));
    files
}

fn file(relative: &str, contents: Vec<u8>, mode: u32) -> OutputFile {
    OutputFile {
        relative: relative.to_string(),
        contents,
        mode,
    }
}

/// True for private keys, which are never overwritten.
fn is_key(relative: &str) -> bool {
    relative.starts_with("tls/") && relative.ends_with(".key") || relative == BOOTSTRAP_SSH_KEY
}

/// bootgen's own records, which spare a re-run work (the live-ISO estimate, the digests of
/// the verified keys, the kubeadmin hash): remade at will, never a user's work to keep.
fn is_record(relative: &str) -> bool {
    relative == ISO_ESTIMATE_FILE
        || relative.strip_prefix("tls/").is_some_and(|name| {
            name == crate::pki::VERIFIED_KEYS_FILE || name == crate::identity::HASH_CACHE_FILE
        })
}

/// What `write_dir` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// Files written or replaced.
    pub written: Vec<String>,
    /// Files already present with the same bytes.
    pub unchanged: Vec<String>,
    /// Of `written`, the files that were present with other bytes (an edit of the user's, or
    /// a config of another run): what the write replaced.
    pub replaced: Vec<String>,
    /// Files and directories of `auth/` and `tls/` (keys, the admin credentials) that others
    /// could read, made private again (their mode as bootgen writes it, `auth/`, `tls/` 0700).
    pub made_private: Vec<String>,
    /// The other cluster whose output was replaced ([`OtherCluster::Replace`]), as the
    /// directory named it: its keys were kept, as always, so the new cluster shares them.
    pub replaced_cluster: Option<String>,
}

/// What [`write_dir`] does when the directory already holds configs (`bootstrap.ign`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExistingConfigs {
    /// Refuse when the directory holds an earlier run's configs and this run would write over
    /// any of its files (an edit, the output of other inputs): an error naming each
    /// ([`crate::error::Error::WouldOverwrite`]), nothing written. A directory holding exactly this
    /// run's output is left as it is, with no error.
    Refuse,
    /// Replace them (the `force` of the error messages). Keys are never replaced either way.
    Replace,
}

/// Which links inside the output directory [`write_dir`] writes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Links {
    /// None: a file, `tls/` or `auth/` that is a link is refused (keys written through a link
    /// would land wherever it points, and be chmod-ed there).
    #[default]
    Refuse,
    /// `tls/` may be a link: the caller named it on purpose (as `tls_dir`).
    AllowTls,
}

/// What [`write_dir`] does when the directory holds another cluster's output (another name or
/// infra ID in `metadata.json`, another API URL in the admin kubeconfig).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OtherCluster {
    /// Refuse ([`crate::error::Error::OtherCluster`]), before anything is written.
    #[default]
    Refuse,
    /// Replace its configs (its keys are kept, as always).
    Replace,
}

/// What [`write_dir_observed`] guards against besides replacing configs and keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Guards {
    /// The links it writes through.
    pub links: Links,
    /// Another cluster's output.
    pub other_cluster: OtherCluster,
}

/// Writes `files` into `dir`. Refuses to replace existing configs unless `existing` says
/// [`ExistingConfigs::Replace`], never replaces a key with different bytes, writes over no
/// other cluster's output and through no link inside `dir`. An earlier write that was
/// interrupted is finished or undone first (see [`recover`]).
///
/// It holds the directory's [`DirLock`] for writing while it writes (waiting for another
/// writer, in this process or another, to finish), so two writes never mix their files; the
/// lock file ([`LOCK_FILE`]) stays in the directory.
pub fn write_dir(
    dir: &Path,
    files: &[OutputFile],
    existing: ExistingConfigs,
) -> Result<WriteReport> {
    if fs::metadata(dir).is_ok_and(|meta| !meta.is_dir()) {
        return Err(not_a_directory(dir));
    }
    let _lock = DirLock::acquire(dir, Access::Write, WhenBusy::Wait)?;
    write_dir_observed(dir, files, existing, Guards::default(), &mut |_| {})
}

fn not_a_directory(dir: &Path) -> Error {
    Error::InvalidOption {
        option: OptionField::OutputDir,
        message: format!("{} exists and is not a directory", dir.display()),
    }
}

/// [`write_dir`] with a choice of [`Guards`], telling `observe` of each step of the write
/// before it happens. The caller holds the directory's [`DirLock`] for writing (as
/// `bootgen ignition` does for its whole run): without it two writes at once can mix their
/// files.
pub fn write_dir_observed(
    dir: &Path,
    files: &[OutputFile],
    existing: ExistingConfigs,
    guards: Guards,
    observe: &mut dyn FnMut(&WriteStep),
) -> Result<WriteReport> {
    match fs::metadata(dir) {
        Ok(meta) if !meta.is_dir() => return Err(not_a_directory(dir)),
        Ok(_) => {
            recover(dir, guards.links)?;
            // What a killed write left (a copy of a config, with its keys) goes too.
            remove_temp_files(dir)?;
        }
        Err(_) => {}
    }
    refuse_links(dir, files, guards.links)?;
    // Every file is compared once: what differs is written, a key that differs is an error,
    // and the files naming the cluster that differ (read whole) say which cluster the
    // directory holds.
    let mut report = WriteReport::default();
    let mut pending = Vec::new();
    let mut other_key = None;
    let mut naming_cluster = Vec::new();
    let mut buffer = unchanged::buffer();
    // Unchanged keys and credentials others could read (their mode read as they were compared).
    let mut exposed = Vec::new();
    for f in files {
        let target = dir.join(&f.relative);
        match unchanged::holds_exactly(&target, &f.contents, &mut buffer) {
            Ok(Some(mode)) => {
                let linked_tls = guards.links == Links::AllowTls && f.relative.starts_with("tls/");
                if is_secret(&f.relative) && !linked_tls && mode & 0o077 & !f.mode != 0 {
                    exposed.push(f);
                }
                report.unchanged.push(f.relative.clone());
                continue;
            }
            Ok(None) if is_key(&f.relative) => {
                other_key.get_or_insert(target);
                continue;
            }
            Ok(None) => {
                report.replaced.push(f.relative.clone());
                if same_cluster::names_cluster(&f.relative) {
                    if let Ok(Some(existing)) = read_no_link(&target) {
                        naming_cluster.push((f.relative.as_str(), existing));
                    }
                }
            }
            _ => {}
        }
        pending.push(journal::Pending {
            relative: &f.relative,
            contents: &f.contents,
            mode: f.mode,
        });
    }
    // A key that differs is reported as the key it is: keys are never replaced, so no flag
    // about clusters would get past it.
    if other_key.is_none() {
        match same_cluster::refuse_other_cluster(dir, files, &naming_cluster) {
            Err(Error::OtherCluster { on_disk, .. })
                if guards.other_cluster == OtherCluster::Replace =>
            {
                report.replaced_cluster = Some(on_disk);
            }
            other => other?,
        }
    }
    if existing == ExistingConfigs::Refuse && CONFIG_FILES.iter().any(|c| dir.join(c).exists()) {
        // Every file of an earlier run this one would write over (an edit, the output of
        // other inputs, a file it cannot read), named; bootgen's own records do not count,
        // and a directory holding exactly this run's output is no reason to refuse.
        let unchanged: HashSet<&str> = report.unchanged.iter().map(String::as_str).collect();
        let paths: Vec<PathBuf> = files
            .iter()
            .map(|f| f.relative.as_str())
            .filter(|relative| {
                !unchanged.contains(relative) && !is_key(relative) && !is_record(relative)
            })
            .map(|relative| dir.join(relative))
            .filter(|path| fs::symlink_metadata(path).is_ok())
            .collect();
        if !paths.is_empty() {
            return Err(Error::WouldOverwrite { paths });
        }
    }
    if let Some(path) = other_key {
        return Err(Error::KeyExists { path });
    }
    report.made_private = make_private_again(dir, &exposed, guards.links)?;
    if pending.is_empty() {
        report.replaced.clear();
        return Ok(report);
    }
    if !dir.exists() {
        fs::create_dir_all(dir).map_err(|e| Error::io("cannot create", dir, e))?;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o755))
            .map_err(|e| Error::io("cannot set permissions on", dir, e))?;
    }
    journal::commit(dir, &pending, guards.links, &is_secret, observe)?;
    report.written = pending.iter().map(|p| p.relative.to_string()).collect();
    Ok(report)
}

/// `auth/` and `tls/` when their mode lets others read or enter them (a `chmod`, a copy, an
/// unpacking by hand), and the unchanged files of theirs found so (`exposed`): each gets its
/// mode as bootgen writes it again (the files that are written get it anyway). A linked `tls/`
/// (`links` allows it) is not changed: it is the user's. Returns what was changed.
fn make_private_again(dir: &Path, exposed: &[&OutputFile], links: Links) -> Result<Vec<String>> {
    let mut changed = Vec::new();
    for top in ["auth", "tls"] {
        if top == "tls" && links == Links::AllowTls {
            continue;
        }
        let path = dir.join(top);
        let open = fs::symlink_metadata(&path)
            .is_ok_and(|meta| meta.is_dir() && meta.permissions().mode() & 0o077 != 0);
        if open {
            set_private(&path, 0o700)?;
            changed.push(format!("{top}/"));
        }
    }
    for f in exposed {
        set_private(&dir.join(&f.relative), f.mode)?;
        changed.push(f.relative.clone());
    }
    Ok(changed)
}

fn set_private(path: &Path, mode: u32) -> Result<()> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|e| Error::io("cannot set permissions on", path, e))
}

/// An error for the first file of `files`, or directory on its way, that is a link in `dir`, or
/// that is in the way: a directory where a file goes, a file where a directory goes. Found
/// before the write's commit point, so nothing is replaced and no write is left half done.
fn refuse_links(dir: &Path, files: &[OutputFile], links: Links) -> Result<()> {
    let mut checked = std::collections::BTreeSet::new();
    for f in files {
        let mut prefix = std::path::PathBuf::new();
        let parts: Vec<_> = Path::new(&f.relative).components().collect();
        // A name of plain parts only: `..`, `/` or `.` would reach outside `dir` or be no file.
        let plain = !parts.is_empty()
            && parts
                .iter()
                .all(|part| matches!(part, std::path::Component::Normal(_)));
        if !plain {
            return Err(Error::UnsafePath {
                path: f.relative.clone(),
                reason: format!(
                    "it is not a path inside {} (only plain names, no `..` and no leading `/`)",
                    dir.display()
                ),
            });
        }
        for (i, part) in parts.iter().enumerate() {
            prefix.push(part);
            if !checked.insert(prefix.clone()) {
                continue;
            }
            if links == Links::AllowTls && prefix == Path::new("tls") {
                continue;
            }
            let path = dir.join(&prefix);
            let meta = fs::symlink_metadata(&path).ok();
            let last = i + 1 == parts.len();
            let in_the_way = match &meta {
                Some(m) if m.file_type().is_symlink() => None,
                Some(m) if last && m.is_dir() => Some(format!(
                    "it is a directory where bootgen writes the file {}; move it away and run again",
                    f.relative
                )),
                Some(m) if last && !m.is_file() => Some(format!(
                    "it is no regular file (a FIFO, socket or device) where bootgen writes the file {}; move it away and run again",
                    f.relative
                )),
                Some(m) if !last && !m.is_dir() => Some(format!(
                    "it is not a directory, and bootgen writes {} below it; move it away and run again",
                    f.relative
                )),
                _ => None,
            };
            if let Some(reason) = in_the_way {
                return Err(Error::UnsafePath {
                    path: path.display().to_string(),
                    reason,
                });
            }
            if meta.is_some_and(|m| m.file_type().is_symlink()) {
                // The way to use a linked PKI, where the link is the PKI's.
                let hint = if prefix.starts_with("tls") {
                    format!(
                        " (to reuse a PKI kept elsewhere, name it with {})",
                        OptionField::TlsDir
                    )
                } else {
                    String::new()
                };
                return Err(Error::UnsafePath {
                    path: path.display().to_string(),
                    reason: format!(
                        "it is a link, and bootgen writes nothing through a link inside its output directory{hint}"
                    ),
                });
            }
        }
    }
    Ok(())
}

/// auth/ and tls/ hold secrets: their directories stay private to the owner.
fn is_secret(relative: &str) -> bool {
    relative.starts_with("auth/") || relative.starts_with("tls/")
}

/// Writes one file with its mode from the start (no window where a key is world-readable).
/// A link at `path` is refused, never followed.
pub fn write_file(path: &Path, contents: &[u8], mode: u32) -> Result<()> {
    write_file_with(path, contents, mode, true)
}

/// [`write_file`], with the flush to disk left to the caller when `sync` is false (the output
/// directory syncs its whole staging tree once, before the swap).
fn write_file_with(path: &Path, contents: &[u8], mode: u32, sync: bool) -> Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| Error::io("cannot create", parent, e))?;
    }
    let mut handle = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        // A link planted at the name must not redirect the write elsewhere.
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
        .map_err(|e| Error::io("cannot write", path, e))?;
    write_and_set_mode(&mut handle, contents, mode, sync)
        .map_err(|e| Error::io("cannot write", path, e))
}

/// Writes, flushes when asked, and sets the mode on the open descriptor: the mode is the one
/// asked for whatever the umask, or whoever made the file before us.
fn write_and_set_mode(
    handle: &mut fs::File,
    contents: &[u8],
    mode: u32,
    sync: bool,
) -> std::io::Result<()> {
    handle.set_permissions(fs::Permissions::from_mode(mode))?;
    handle.write_all(contents)?;
    if sync {
        handle.sync_all()?;
    }
    Ok(())
}

/// An exclusive temporary file (`O_EXCL`, an unpredictable name, mode 0600) in `path`'s
/// directory, to be renamed over `path` once written; removed when dropped.
/// What is at `path` when it is a character device or a pipe (`-o /dev/null`, `-o >(...)`),
/// opened for writing: such a target is written into, never renamed over (a rename as root
/// would put a regular file, with the output, where /dev/null was). Anything else there that is
/// not a regular file or a link (a directory, a socket, a block device) is refused, naming it.
/// A pipe or device of another user is refused ([`refuse_others_stream`]). `None` for a regular
/// file, a link, or nothing.
pub(crate) fn device_at(path: &Path) -> Result<Option<fs::File>> {
    use std::os::unix::fs::FileTypeExt;
    if names_open_descriptor(path) {
        // The kernel's own link to a descriptor of this process (`-o /dev/stdout`), not one
        // anybody planted: written into, appending (after what the process wrote there already,
        // and as `>>` asked), never replaced. As root a rename over `/dev/stdout` replaced the
        // system's link with a file.
        let stream = fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| Error::io("cannot write", path, e))?;
        return Ok(Some(stream));
    }
    let Ok(meta) = fs::symlink_metadata(path) else {
        return Ok(None);
    };
    let kind = meta.file_type();
    if kind.is_char_device() || kind.is_fifo() {
        refuse_others_stream(path, &meta)?;
        let device = fs::OpenOptions::new()
            .write(true)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(path)
            .map_err(|e| Error::io("cannot write", path, e))?;
        // What was opened, not what was looked at: it may have been swapped in between.
        let opened = device
            .metadata()
            .map_err(|e| Error::io("cannot write", path, e))?;
        refuse_others_stream(path, &opened)?;
        return Ok(Some(device));
    }
    if kind.is_file() || kind.is_symlink() {
        return Ok(None);
    }
    Err(Error::UnsafePath {
        path: path.display().to_string(),
        reason: "it is no regular file (a directory, socket or block device), and bootgen replaces only files".into(),
    })
}

/// Refuses a pipe or device at an output path that belongs to another user: a FIFO planted
/// in a shared directory such as /tmp under the name of our output would hand its owner every
/// key we write. Ours and root's (`/dev/null`, `/dev/tty`; nobody else can make a device) are
/// written into.
fn refuse_others_stream(path: &Path, meta: &fs::Metadata) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let owner = meta.uid();
    if owner == 0 || owner == rustix::process::geteuid().as_raw() {
        return Ok(());
    }
    Err(Error::UnsafePath {
        path: path.display().to_string(),
        reason: format!(
            "it is a pipe or device of another user (uid {owner}), who would read what bootgen writes into it"
        ),
    })
}

/// Whether `path` names one of this process's open descriptors: `/dev/stdout`, `/dev/stderr`,
/// `/dev/fd/N` or `/proc/self/fd/N` (what a shell's `>(...)` hands over), as the kernel's links
/// do; an absolute path only, compared by its words.
fn names_open_descriptor(path: &Path) -> bool {
    let Some(text) = path.to_str() else {
        return false;
    };
    if matches!(text, "/dev/stdout" | "/dev/stderr") {
        return true;
    }
    ["/dev/fd/", "/proc/self/fd/"].iter().any(|dir| {
        text.strip_prefix(dir)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// How every temporary file of an atomic write ends (`.NAME.XXXXXX.bootgen-tmp`): made by
/// [`temp_file_beside`], recognized by [`is_temp_file_name`] where a killed run left one.
const TEMP_FILE_SUFFIX: &str = ".bootgen-tmp";

/// A fresh, unpredictable temporary name for a file to be named `name` once whole, in the
/// form [`is_temp_file_name`] knows (`.NAME.XXXXXX.bootgen-tmp`).
pub(crate) fn temp_name_for(name: &str) -> String {
    use std::hash::{BuildHasher, Hasher};
    // std's hasher keys come from the OS's randomness (once a thread); a counter makes each
    // name of a run new. The name is defence in depth: the file is created exclusively anyway.
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let mut bits = hasher.finish();
    let random: String = (0..6)
        .map(|_| {
            let c = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                [(bits % 62) as usize];
            bits /= 62;
            char::from(c)
        })
        .collect();
    format!(".{name}.{random}{TEMP_FILE_SUFFIX}")
}

/// Whether `name` is one of [`temp_file_beside`]'s temporary files.
pub(crate) fn is_temp_file_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(TEMP_FILE_SUFFIX)
}

pub(crate) fn temp_file_beside(path: &Path) -> Result<tempfile::NamedTempFile> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(TEMP_FILE_SUFFIX)
        .tempfile_in(dir)
        .map_err(|e| Error::io("cannot write", path, without_temp_name(dir, e)))
}

/// Why a temporary file could not be made in `dir`, in terms of what the user named: the
/// directory when it is missing or no directory, else the system's reason without tempfile's
/// `at path ".NAME.XXXXXX.bootgen-tmp"`, a name the user never gave.
fn without_temp_name(dir: &Path, error: std::io::Error) -> std::io::Error {
    let reason = match fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            format!("the directory {} does not exist", dir.display())
        }
        Ok(meta) if !meta.is_dir() => format!("{} is not a directory", dir.display()),
        _ => {
            let text = error.to_string();
            match text.split_once(" at path ") {
                Some((reason, _)) => reason.to_string(),
                None => text,
            }
        }
    };
    std::io::Error::new(error.kind(), reason)
}

/// Writes one file atomically: a temporary file beside it, then a rename over `path`.
///
/// The temporary file is created exclusively (`O_EXCL`) under an unpredictable name, with mode
/// 0600 until its own mode is set on the open descriptor, so in a directory others can write to
/// nobody can plant a link or a file of theirs to be written through or renamed into place. The
/// rename replaces a link at `path` itself, never what it points to.
pub fn write_atomic(path: &Path, contents: &[u8], mode: u32) -> Result<()> {
    if let Some(mut device) = device_at(path)? {
        return device
            .write_all(contents)
            .map_err(|e| Error::io("cannot write", path, e));
    }
    let mut temp = temp_file_beside(path)?;
    write_and_set_mode(temp.as_file_mut(), contents, mode, true)
        .map_err(|e| Error::io("cannot write", path, e))?;
    // On failure the temporary file is removed when `temp` is dropped.
    temp.persist(path)
        .map(drop)
        .map_err(|e| Error::io("cannot move into place", path, e.error))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(byte: u8) -> Vec<OutputFile> {
        vec![
            file("bootstrap.ign", vec![byte], 0o600),
            file("tls/a.key", vec![1], 0o600),
        ]
    }

    /// A character device or a pipe at the path is written into, never replaced; a directory
    /// there is refused.
    #[test]
    fn a_device_is_written_into_and_never_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        // As root (where a rename would replace it) a node of the null device of our own, so
        // that a regression breaks no more than this test; else /dev/null itself.
        let own = dir.path().join("null");
        let device = match rustix::fs::mknodat(
            rustix::fs::CWD,
            &own,
            rustix::fs::FileType::CharacterDevice,
            rustix::fs::Mode::from_raw_mode(0o666),
            rustix::fs::makedev(1, 3),
        ) {
            Ok(()) => own,
            Err(_) => std::path::PathBuf::from("/dev/null"),
        };
        write_atomic(&device, b"{}", 0o600).unwrap();
        assert!(fs::symlink_metadata(&device)
            .unwrap()
            .file_type()
            .is_char_device());
        let err = write_atomic(dir.path(), b"{}", 0o600)
            .unwrap_err()
            .to_string();
        assert!(err.contains("no regular file"), "{err}");
    }

    /// A FIFO where a file of the output goes is refused, not waited on (a reader of a FIFO
    /// waits for a writer forever).
    #[test]
    fn a_fifo_in_the_output_is_refused_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let mut all = files(1);
        all.push(file("metadata.json", b"{}".to_vec(), 0o644));
        write_dir(dir.path(), &all, ExistingConfigs::Refuse).unwrap();
        fs::remove_file(dir.path().join("metadata.json")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(dir.path().join("metadata.json"))
            .status()
            .unwrap();
        assert!(made.success());
        let (send, receive) = std::sync::mpsc::channel();
        let path = dir.path().to_path_buf();
        std::thread::spawn(move || {
            let _ = send
                .send(write_dir(&path, &all, ExistingConfigs::Replace).map_err(|e| e.to_string()));
        });
        let result = receive
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("write_dir waited on the FIFO");
        let err = result.unwrap_err();
        assert!(
            err.contains("metadata.json") && err.contains("no regular file"),
            "{err}"
        );
        let err = read_no_link(&dir.path().join("metadata.json"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("no regular file"), "{err}");
    }

    /// The temporary files a killed write left (each may be a copy of a config with its keys)
    /// are removed by the next write, in the directory and in auth/ and tls/; nothing else is.
    #[test]
    fn a_write_removes_the_temporary_files_a_killed_write_left() {
        let dir = tempfile::tempdir().unwrap();
        write_dir(dir.path(), &files(1), ExistingConfigs::Refuse).unwrap();
        let left = [
            ".bootstrap.ign.Ab12Cd.bootgen-tmp",
            "..bootgen-commit.Xy34Zw.bootgen-tmp",
            "tls/.a.key.Qq11Rr.bootgen-tmp",
        ];
        for name in left {
            fs::write(dir.path().join(name), "keys").unwrap();
        }
        fs::write(dir.path().join("notes.bootgen-tmp"), "mine").unwrap();
        write_dir(dir.path(), &files(1), ExistingConfigs::Replace).unwrap();
        for name in left {
            assert!(!dir.path().join(name).exists(), "{name}");
        }
        assert!(dir.path().join("notes.bootgen-tmp").exists());
    }

    /// A path naming an open descriptor of the process (`/dev/fd/N`, `/proc/self/fd/N`, and so
    /// `/dev/stdout`) is written into, after what it holds, and never replaced.
    #[test]
    fn an_open_descriptor_is_written_into_never_replaced() {
        use std::os::fd::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("stream");
        let mut held = fs::File::create(&target).unwrap();
        std::io::Write::write_all(&mut held, b"before ").unwrap();
        for path in [
            format!("/proc/self/fd/{}", held.as_raw_fd()),
            format!("/dev/fd/{}", held.as_raw_fd()),
        ] {
            write_atomic(Path::new(&path), b"config ", 0o600).unwrap();
            assert!(fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_symlink());
        }
        assert_eq!(
            fs::read_to_string(&target).unwrap(),
            "before config config "
        );
        assert!(names_open_descriptor(Path::new("/dev/stdout")));
        assert!(!names_open_descriptor(Path::new("/dev/fd/")));
        assert!(!names_open_descriptor(Path::new("/dev/fd/1/x")));
        assert!(!names_open_descriptor(Path::new("/tmp/dev/stdout")));
    }

    /// A file's relative path stays inside the directory, whoever made the list.
    #[test]
    fn no_file_is_written_outside_the_directory() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("out");
        let outside = top.path().join("escaped");
        for relative in [
            "../escaped".to_string(),
            "sub/../../escaped".to_string(),
            outside.display().to_string(),
            "./".to_string(),
            String::new(),
        ] {
            let err = write_dir(
                &dir,
                &[file(&relative, b"x".to_vec(), 0o644)],
                ExistingConfigs::Replace,
            )
            .unwrap_err()
            .to_string();
            assert!(err.contains("is not a path inside"), "{relative}: {err}");
            assert!(!outside.exists(), "{relative}");
            assert!(!dir.exists(), "{relative}");
        }
    }

    /// What stands where the write puts a file or a directory is refused before the commit
    /// point: the old files stay, and no interrupted write is left that `recover` cannot end.
    #[test]
    fn what_is_in_the_way_is_refused_before_anything_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let more = |byte| {
            let mut all = files(byte);
            all.push(file("worker.ign", vec![byte], 0o644));
            all
        };
        write_dir(dir.path(), &more(1), ExistingConfigs::Refuse).unwrap();
        fs::remove_file(dir.path().join("worker.ign")).unwrap();
        fs::create_dir(dir.path().join("worker.ign")).unwrap();
        let err = write_dir(dir.path(), &more(2), ExistingConfigs::Replace)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("worker.ign") && err.contains("is a directory where bootgen writes"),
            "{err}"
        );
        assert_eq!(fs::read(dir.path().join("bootstrap.ign")).unwrap(), vec![1]);
        assert!(!interrupted(dir.path()));
        assert!(!dir.path().join(journal::STAGING_DIR).exists());

        let fresh = tempfile::tempdir().unwrap();
        fs::write(fresh.path().join("tls"), "a file").unwrap();
        let err = write_dir(fresh.path(), &files(1), ExistingConfigs::Refuse)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("tls") && err.contains("is not a directory, and bootgen writes tls/a.key"),
            "{err}"
        );
        assert!(!fresh.path().join("bootstrap.ign").exists());
        assert!(!interrupted(fresh.path()));
    }

    #[test]
    fn refuses_to_overwrite_without_force_and_keeps_modes() {
        let dir = tempfile::tempdir().unwrap();
        write_dir(dir.path(), &files(1), ExistingConfigs::Refuse).unwrap();
        let mode = fs::metadata(dir.path().join("tls/a.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let err = write_dir(dir.path(), &files(2), ExistingConfigs::Refuse).unwrap_err();
        let Error::WouldOverwrite { paths } = &err else {
            panic!("{err}")
        };
        assert_eq!(paths, &[dir.path().join("bootstrap.ign")]);
        assert_eq!(fs::read(dir.path().join("bootstrap.ign")).unwrap(), vec![1]);
        // Exactly the output that is there: nothing to refuse, nothing written.
        let again = write_dir(dir.path(), &files(1), ExistingConfigs::Refuse).unwrap();
        assert!(again.written.is_empty(), "{again:?}");
        assert_eq!(again.unchanged.len(), 2);
        // Every file written over is named, bootgen's own records are not; a new file is no
        // reason to refuse.
        let mut more = files(2);
        more.push(file("master.ign", vec![7], 0o644));
        more.push(file(ISO_ESTIMATE_FILE, b"other".to_vec(), 0o644));
        more.push(file("worker.ign", vec![8], 0o644));
        fs::write(dir.path().join("master.ign"), b"my edit").unwrap();
        fs::write(dir.path().join(ISO_ESTIMATE_FILE), b"old").unwrap();
        let err = write_dir(dir.path(), &more, ExistingConfigs::Refuse).unwrap_err();
        let Error::WouldOverwrite { paths } = &err else {
            panic!("{err}")
        };
        let named: Vec<_> = ["bootstrap.ign", "master.ign"]
            .map(|name| dir.path().join(name))
            .to_vec();
        assert_eq!(paths, &named);
        assert!(
            err.to_string()
                .contains("master.ign already exist; writing with `force` replaces them"),
            "{err}"
        );
        assert!(!dir.path().join("worker.ign").exists());
        for planted in ["master.ign", ISO_ESTIMATE_FILE] {
            fs::remove_file(dir.path().join(planted)).unwrap();
        }
        let report = write_dir(dir.path(), &files(2), ExistingConfigs::Replace).unwrap();
        assert_eq!(report.written, vec!["bootstrap.ign"]);
        assert_eq!(report.unchanged, vec!["tls/a.key"]);
        assert_eq!(report.replaced, vec!["bootstrap.ign"]);
        // A file written where there was none replaced nothing.
        let mut more = files(2);
        more.push(file("worker.ign", vec![3], 0o644));
        let report = write_dir(dir.path(), &more, ExistingConfigs::Replace).unwrap();
        assert_eq!(report.written, vec!["worker.ign"]);
        assert!(report.replaced.is_empty());
        // no staging directory is left behind, only the lock file
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with('.'))
            .collect();
        assert_eq!(leftovers, [LOCK_FILE]);
    }

    /// Writes from several threads at once into one directory are one after another: each
    /// leaves the directory whole (its files all of one write), none fails for the other.
    #[test]
    fn writes_at_once_do_not_mix() {
        let dir = tempfile::tempdir().unwrap();
        let writes: Vec<_> = (1..=6u8)
            .map(|byte| {
                let path = dir.path().to_path_buf();
                std::thread::spawn(move || {
                    let all: Vec<_> = (0..20)
                        .map(|i| file(&format!("f{i}.ign"), vec![byte; 4096], 0o644))
                        .collect();
                    write_dir(&path, &all, ExistingConfigs::Replace).map(|_| ())
                })
            })
            .collect();
        for write in writes {
            write.join().unwrap().unwrap();
        }
        let first = fs::read(dir.path().join("f0.ign")).unwrap();
        for i in 1..20 {
            assert_eq!(
                fs::read(dir.path().join(format!("f{i}.ign"))).unwrap(),
                first
            );
        }
        assert!(!dir.path().join(journal::STAGING_DIR).exists());
    }

    #[test]
    fn writes_through_no_link_inside_the_directory() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("out");
        let elsewhere = top.path().join("elsewhere");
        fs::create_dir_all(&dir).unwrap();
        fs::create_dir_all(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir.join("tls")).unwrap();
        let err = write_dir(&dir, &files(1), ExistingConfigs::Replace).unwrap_err();
        assert!(err.to_string().contains("out/tls"), "{err}");
        assert!(fs::read_dir(&elsewhere).unwrap().next().is_none());
        assert!(!dir.join("bootstrap.ign").exists());
        // Named on purpose, the link is written through.
        let guards = Guards {
            links: Links::AllowTls,
            ..Guards::default()
        };
        write_dir_observed(
            &dir,
            &files(1),
            ExistingConfigs::Replace,
            guards,
            &mut |_| {},
        )
        .unwrap();
        assert!(elsewhere.join("a.key").exists());
        // A config file that is a link is refused too.
        fs::remove_file(dir.join("bootstrap.ign")).unwrap();
        std::os::unix::fs::symlink(top.path().join("victim"), dir.join("bootstrap.ign")).unwrap();
        assert!(write_dir(&dir, &files(2), ExistingConfigs::Replace).is_err());
        assert!(!top.path().join("victim").exists());
    }

    /// The name a temporary file of `write_atomic` had before it was made unpredictable.
    fn old_temp_name(dir: &Path, name: &str) -> std::path::PathBuf {
        dir.join(format!(".{name}.bootgen-{}", std::process::id()))
    }

    #[test]
    fn an_atomic_write_goes_through_no_planted_link() {
        let top = tempfile::tempdir().unwrap();
        let victim = top.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, old_temp_name(top.path(), "out.tgz")).unwrap();
        // A link at the target itself is replaced, not written through.
        std::os::unix::fs::symlink(&victim, top.path().join("out.tgz")).unwrap();
        write_atomic(&top.path().join("out.tgz"), b"keys", 0o600).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        let meta = fs::symlink_metadata(top.path().join("out.tgz")).unwrap();
        assert!(meta.file_type().is_file());
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn an_atomic_write_never_becomes_a_file_someone_else_holds_open() {
        let top = tempfile::tempdir().unwrap();
        let planted = old_temp_name(top.path(), "out.tgz");
        fs::write(&planted, "").unwrap();
        fs::set_permissions(&planted, fs::Permissions::from_mode(0o666)).unwrap();
        let mut spy = fs::File::open(&planted).unwrap();
        write_atomic(&top.path().join("out.tgz"), b"keys", 0o600).unwrap();
        let mut seen = Vec::new();
        std::io::Read::read_to_end(&mut spy, &mut seen).unwrap();
        assert!(seen.is_empty(), "the planted file became the output");
        assert_eq!(fs::read(top.path().join("out.tgz")).unwrap(), b"keys");
        // Nothing of ours is left beside it.
        let names: Vec<_> = fs::read_dir(top.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| is_temp_file_name(n))
            .collect();
        assert!(names.is_empty(), "{names:?}");
    }

    #[test]
    fn never_replaces_a_key() {
        let dir = tempfile::tempdir().unwrap();
        write_dir(dir.path(), &files(1), ExistingConfigs::Refuse).unwrap();
        let mut changed = files(2);
        changed[1].contents = vec![9];
        assert!(write_dir(dir.path(), &changed, ExistingConfigs::Replace).is_err());
        assert_eq!(fs::read(dir.path().join("tls/a.key")).unwrap(), vec![1]);
        assert_eq!(fs::read(dir.path().join("bootstrap.ign")).unwrap(), vec![1]);
    }
}
