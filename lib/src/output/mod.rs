//! The output directory: every changed file is staged inside it and committed as one change
//! (see `journal`), so a failed or killed run leaves the previous output, or a commit record the
//! next run finishes. That works the same for a plain directory, a mount point and a symlink.
//! Keys are never replaced.

mod estimate;
mod extract;
mod extract_plan;
mod journal;
mod package;

pub use estimate::{iso_estimate, ISO_ESTIMATE_FILE};
pub use extract::{extract, extract_split, ExtractReport, UNIT_DIR};
pub use journal::{interrupted, recover, Recovery, WriteStep, COMMIT_RECORD, STAGING_DIR};
pub use package::{write_package, PackageReport, CHECKSUMS};

use crate::error::{Error, OptionField, Result};
use crate::generate::Generated;
use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// A file of the output directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    /// Path relative to the output directory.
    pub relative: String,
    /// The bytes.
    pub contents: Vec<u8>,
    /// Unix mode.
    pub mode: u32,
}

/// Files whose presence means "there is work here" (replaced only with `force`).
pub const CONFIG_FILES: &[&str] = &[
    "bootstrap.ign",
    "bootstrap-in-place-for-live-iso.ign",
    "master.ign",
    "worker.ign",
    "metadata.json",
];

/// Everything a generation writes, sorted by path.
pub fn output_files(generated: &Generated) -> Vec<OutputFile> {
    files_with(generated, generated.bootstrap.to_bytes())
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
    files_with(&generated, bytes)
}

fn files_with(generated: &Generated, bootstrap: Vec<u8>) -> Vec<OutputFile> {
    let mut files = vec![file(generated.bootstrap_name(), bootstrap, 0o600)];
    if generated.writes_master() {
        files.push(file("master.ign", generated.master.to_bytes(), 0o644));
    }
    if generated.writes_worker() {
        files.push(file("worker.ign", generated.worker.to_bytes(), 0o644));
    }
    files.extend([
        file(
            "metadata.json",
            serde_json::to_vec(&generated.metadata).unwrap_or_default(),
            // It holds the vCenter credentials of a vSphere cluster.
            if generated.metadata.vsphere.is_some() {
                0o600
            } else {
                0o644
            },
        ),
        file(
            "auth/kubeconfig",
            generated.admin_kubeconfig.clone().into_bytes(),
            0o600,
        ),
        file(
            "auth/kubeadmin-password",
            generated.identity.kubeadmin_password.clone().into_bytes(),
            0o600,
        ),
        file(
            "auth/bootstrap-ssh-key",
            generated.pki.bootstrap_ssh_private_key_pem().into_bytes(),
            0o600,
        ),
        file(
            "auth/bootstrap-ssh-key.pub",
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
    relative.starts_with("tls/") && relative.ends_with(".key")
        || relative == "auth/bootstrap-ssh-key"
}

/// What `write_dir` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// Files written or replaced.
    pub written: Vec<String>,
    /// Files already present with the same bytes.
    pub unchanged: Vec<String>,
}

/// What [`write_dir`] does when the directory already holds configs (`bootstrap.ign`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExistingConfigs {
    /// Refuse: an error naming the config ([`crate::Error::WouldOverwrite`]), nothing written.
    Refuse,
    /// Replace them (the `force` of the error messages). Keys are never replaced either way.
    Replace,
}

/// Writes `files` into `dir`. Refuses to replace existing configs unless `existing` says
/// [`ExistingConfigs::Replace`], and never replaces a key with different bytes. An earlier
/// write that was interrupted is finished or undone first (see [`recover`]).
pub fn write_dir(
    dir: &Path,
    files: &[OutputFile],
    existing: ExistingConfigs,
) -> Result<WriteReport> {
    write_dir_observed(dir, files, existing, &mut |_| {})
}

/// [`write_dir`], telling `observe` of each step of the write before it happens.
pub fn write_dir_observed(
    dir: &Path,
    files: &[OutputFile],
    existing: ExistingConfigs,
    observe: &mut dyn FnMut(&WriteStep),
) -> Result<WriteReport> {
    match fs::metadata(dir) {
        Ok(meta) if !meta.is_dir() => {
            return Err(Error::InvalidOption {
                option: OptionField::OutputDir,
                message: format!("{} exists and is not a directory", dir.display()),
            })
        }
        Ok(_) => {
            recover(dir)?;
        }
        Err(_) => {}
    }
    if existing == ExistingConfigs::Refuse {
        for name in CONFIG_FILES {
            let path = dir.join(name);
            if path.exists() {
                return Err(Error::WouldOverwrite { path });
            }
        }
    }
    let mut report = WriteReport::default();
    let mut pending = Vec::new();
    for f in files {
        let target = dir.join(&f.relative);
        match fs::read(&target) {
            Ok(existing) if existing == f.contents => {
                report.unchanged.push(f.relative.clone());
                continue;
            }
            Ok(_) if is_key(&f.relative) => {
                return Err(Error::KeyExists { path: target });
            }
            _ => pending.push(journal::Pending {
                relative: &f.relative,
                contents: &f.contents,
                mode: f.mode,
            }),
        }
    }
    if pending.is_empty() {
        return Ok(report);
    }
    if !dir.exists() {
        fs::create_dir_all(dir).map_err(|e| Error::io("cannot create", dir, e))?;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o755))
            .map_err(|e| Error::io("cannot set permissions on", dir, e))?;
    }
    journal::commit(dir, &pending, &is_secret, observe)?;
    report.written = pending.iter().map(|p| p.relative.to_string()).collect();
    Ok(report)
}

/// auth/ and tls/ hold secrets: their directories stay private to the owner.
fn is_secret(relative: &str) -> bool {
    relative.starts_with("auth/") || relative.starts_with("tls/")
}

/// Writes one file with its mode from the start (no window where a key is world-readable).
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
        .open(path)
        .map_err(|e| Error::io("cannot write", path, e))?;
    handle
        .write_all(contents)
        .and_then(|_| if sync { handle.sync_all() } else { Ok(()) })
        .map_err(|e| Error::io("cannot write", path, e))?;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|e| Error::io("cannot set permissions on", path, e))
}

/// Writes one file atomically: a temporary file beside it, then a rename.
pub fn write_atomic(path: &Path, contents: &[u8], mode: u32) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.bootgen-{}", std::process::id()));
    write_file(&temp, contents, mode)?;
    fs::rename(&temp, path).map_err(|e| {
        let _ = fs::remove_file(&temp);
        Error::io("cannot move into place", path, e)
    })
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
        assert!(matches!(err, Error::WouldOverwrite { .. }));
        assert_eq!(fs::read(dir.path().join("bootstrap.ign")).unwrap(), vec![1]);
        let report = write_dir(dir.path(), &files(2), ExistingConfigs::Replace).unwrap();
        assert_eq!(report.written, vec!["bootstrap.ign"]);
        assert_eq!(report.unchanged, vec!["tls/a.key"]);
        // no staging directory is left behind
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
            .collect();
        assert!(leftovers.is_empty());
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
