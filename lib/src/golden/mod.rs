//! The golden view: one stable text document for an output directory, for golden-file tests.
//!
//! It shows every file of `bootstrap.ign`, `master.ign` and `worker.ign` (path, mode, owner and
//! contents), their units with drop-ins and users, then `metadata.json` and `auth/`. What changes
//! with each PKI or clock is replaced by what was asked for: a certificate by its subject,
//! issuer, SANs, key type, usages, CA flag and lifetime; a key by its type and size; a pull
//! secret, password hash and the kubeadmin password by a marker; the cluster ID, infra ID and
//! the generated bootstrap SSH key by placeholders. Two runs with different PKIs and clocks
//! give byte-identical views; a change to the install-config or a setting shows as a readable
//! diff.
//!
//! ```no_run
//! let view = bootgen::golden::view_dir(std::path::Path::new("bootgen-out"))?;
//! std::fs::write("golden.txt", view)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod config;
mod pem;
mod text;

pub use text::Redactions;

use crate::error::{Error, Result};
use crate::ignition::{IgnitionDoc, SplitDoc};
use std::fmt::Write as _;
use std::path::Path;

/// The configs of an output directory, in the order the view shows them.
pub const CONFIGS: [&str; 3] = ["bootstrap.ign", "master.ign", "worker.ign"];
/// The configs of a single node's output directory (it has no master.ign: the node makes its
/// own).
pub const SINGLE_NODE_CONFIGS: [&str; 2] = [crate::generate::LIVE_ISO_CONFIG, "worker.ign"];

/// The configs the view of `dir` shows: a single node's when it holds the live-ISO config.
fn configs_of(dir: &Path) -> &'static [&'static str] {
    if dir.join(crate::generate::LIVE_ISO_CONFIG).exists() {
        &SINGLE_NODE_CONFIGS
    } else {
        &CONFIGS
    }
}

/// Placeholders for the values of this directory that depend on its PKI or clock: the cluster
/// and infra IDs (from `metadata.json`, derived from the root CA), the kubeadmin password and
/// the generated bootstrap SSH key (from `auth/`), and the validity times of the certificates
/// in `configs` wherever they are written out (annotations, for example).
pub fn redactions_of_dir(dir: &Path, configs: &[&IgnitionDoc]) -> Result<Redactions> {
    let mut certs = crate::report::CertCollector::default();
    for doc in configs {
        certs.scan_config(doc)?;
    }
    redactions_with(dir, &certs)
}

/// [`redactions_of_dir`] with the configs' certificates already collected.
fn redactions_with(dir: &Path, certs: &crate::report::CertCollector) -> Result<Redactions> {
    let mut redactions = Redactions::none();
    for cert in &certs.certs {
        redactions.add(&crate::pki::rfc3339(cert.not_before), "<not-before>");
        redactions.add(&crate::pki::rfc3339(cert.not_after), "<not-after>");
    }
    if let Some(text) = read_optional(dir, crate::output::METADATA_FILE)? {
        let metadata: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| Error::Parse {
                file: dir.join(crate::output::METADATA_FILE).display().to_string(),
                line: Some(e.line()),
                message: e.to_string(),
            })?;
        for (key, placeholder) in [("clusterID", "<cluster-id>"), ("infraID", "<infra-id>")] {
            if let Some(value) = metadata.get(key).and_then(serde_json::Value::as_str) {
                redactions.add(value, placeholder);
            }
        }
    }
    if let Some(password) = read_optional(dir, crate::output::KUBEADMIN_PASSWORD)? {
        redactions.add(&password, "<kubeadmin-password>");
    }
    if let Some(line) = read_optional(dir, "auth/bootstrap-ssh-key.pub")? {
        // The key itself; its type and comment stay readable.
        if let Some(blob) = line.split_whitespace().nth(1) {
            redactions.add(blob, "<bootstrap-ssh-key>");
        }
    }
    Ok(redactions)
}

/// The text of `relative` in the output directory `dir`, read through no link.
fn read_optional(dir: &Path, relative: &str) -> Result<Option<String>> {
    Ok(crate::output::read_in_dir(dir, relative)?
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned()))
}

/// The golden view of one config.
pub fn view_config(doc: &IgnitionDoc, redactions: &Redactions) -> Result<String> {
    let mut out = String::new();
    config::render(&mut out, doc, redactions)?;
    Ok(visible(out))
}

/// The view with its control characters shown as escapes: it is read in a terminal and in
/// `git diff`, and printed and written to a file it must be the same text.
fn visible(view: String) -> String {
    match crate::report::terminal_safe(&view) {
        std::borrow::Cow::Borrowed(_) => view,
        std::borrow::Cow::Owned(escaped) => escaped,
    }
}

/// The golden view of an output directory (`bootstrap.ign`, `master.ign`, `worker.ign`, the
/// per-host configs `hosts/*.ign` when there are any, `metadata.json`, `auth/`; `tls/` is the PKI itself and is left out). Files the directory
/// does not have are listed as absent. Control characters are shown as escapes
/// ([`crate::report::terminal_safe`]).
pub fn view_dir(dir: &Path) -> Result<String> {
    if !dir.is_dir() {
        return Err(Error::InvalidOption {
            option: crate::error::OptionField::OutputDir,
            message: format!("{} is not a directory", dir.display()),
        });
    }
    // Each config split (its file entries stay raw JSON, read one at a time): a JSON tree of a
    // large config costs about ten times its size.
    let mut read = Vec::new();
    let mut names: Vec<String> = configs_of(dir).iter().map(|n| n.to_string()).collect();
    // The per-host configs are shown after the others, and read through no link.
    names.extend(crate::output::host_configs(dir)?);
    for name in names {
        let path = dir.join(&name);
        let bytes =
            crate::output::read_no_link(&path)?.map(|bytes| (bytes, path.display().to_string()));
        read.push((name, bytes));
    }
    let mut configs = Vec::new();
    let mut certs = crate::report::CertCollector::default();
    for (name, bytes) in &read {
        let split = match bytes {
            Some((bytes, shown)) => {
                let split = SplitDoc::parse_checked(bytes, shown, |_| false)?;
                certs.scan_config_bytes(bytes, shown)?;
                Some(split)
            }
            None => None,
        };
        configs.push((name, split));
    }
    let redactions = redactions_with(dir, &certs)?;
    let mut out = String::from("bootgen golden view 1\n");
    for (name, split) in &configs {
        let _ = writeln!(out, "\n######## {name}");
        match split {
            Some(split) => config::render_split(&mut out, split, &redactions)?,
            None => out.push_str("(absent)\n"),
        }
    }
    let _ = writeln!(out, "\n######## metadata.json");
    match read_optional(dir, crate::output::METADATA_FILE)? {
        Some(text) => {
            let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            let pretty = serde_json::to_string_pretty(&value).unwrap_or(text);
            out.push_str(&text::normalize(&pretty, &redactions));
            out.push('\n');
        }
        None => out.push_str("(absent)\n"),
    }
    auth(&mut out, dir, &redactions)?;
    Ok(visible(out))
}

/// `auth/` of the output directory `top`: each file with its mode; secrets as markers, the
/// kubeconfig summarized. Nothing is read through a link: `auth/` or a file in it that is one
/// is refused, naming it.
fn auth(out: &mut String, top: &Path, redactions: &Redactions) -> Result<()> {
    let _ = writeln!(out, "\n######## auth/");
    let dir = top.join("auth");
    if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
        // Refused as a link, by the reader every other name goes through.
        crate::output::read_in_dir(top, crate::output::ADMIN_KUBECONFIG)?;
    }
    let mut names = Vec::new();
    match std::fs::read_dir(&dir) {
        Ok(entries) => {
            for entry in entries {
                let entry = entry.map_err(|e| Error::io("cannot read", &dir, e))?;
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            out.push_str("(absent)\n");
            return Ok(());
        }
        Err(e) => return Err(Error::io("cannot read", &dir, e)),
    }
    names.sort();
    for name in names {
        use std::os::unix::fs::PermissionsExt as _;
        let path = dir.join(&name);
        let meta =
            std::fs::symlink_metadata(&path).map_err(|e| Error::io("cannot read", &path, e))?;
        if meta.is_dir() {
            continue;
        }
        // A link (or anything but a regular file) is refused here, naming it.
        let contents = read_optional(top, &format!("auth/{name}"))?.unwrap_or_default();
        let mode = meta.permissions().mode() & 0o7777;
        let _ = writeln!(out, "\n== auth/{name} mode {mode:04o}");
        let shown = match name.as_str() {
            "kubeadmin-password" => "<kubeadmin-password>".to_string(),
            "bootstrap-ssh-key" => "<bootstrap-ssh-key: private key>".to_string(),
            _ => text::normalize(&contents, redactions),
        };
        out.push_str(shown.trim_end());
        out.push('\n');
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::generate::Options;
    use crate::{config, generate, output};

    /// Split, each file entry read when rendered: the same view as from the whole tree, on
    /// every valid fixture config.
    #[test]
    fn a_split_config_renders_as_its_tree() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/ign/valid");
        let mut compared = 0;
        for entry in std::fs::read_dir(root).unwrap() {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            let name = path.display().to_string();
            let Ok(doc) = IgnitionDoc::parse(&bytes, &name) else {
                continue;
            };
            let split = SplitDoc::parse_checked(&bytes, &name, |_| false).unwrap();
            let none = text::Redactions::none();
            let mut from_split = String::new();
            super::config::render_split(&mut from_split, &split, &none).unwrap();
            assert_eq!(view_config(&doc, &none).unwrap(), from_split, "{name}");
            compared += 1;
        }
        assert!(compared >= 5, "{compared}");
    }

    fn generate_into(dir: &Path, yaml: &str, now: time::OffsetDateTime) {
        let loaded = config::parse(yaml, "install-config.yaml").unwrap();
        let mut options = Options::new(now);
        options.key_algorithm = crate::pki::KeyAlgorithm::EcdsaP256;
        let generated = generate(&loaded, &options).unwrap();
        output::write_dir(
            dir,
            &output::output_files(&generated),
            output::ExistingConfigs::Refuse,
        )
        .unwrap();
    }

    #[test]
    fn other_pki_and_clock_same_view_other_input_readable_diff() {
        let scratch = tempfile::tempdir().unwrap();
        let yaml = config::DEFAULT_INSTALL_CONFIG;
        let (a, b, c) = (
            scratch.path().join("a"),
            scratch.path().join("b"),
            scratch.path().join("c"),
        );
        let day = time::OffsetDateTime::UNIX_EPOCH + time::Duration::days(20_000);
        generate_into(&a, yaml, day);
        generate_into(
            &b,
            yaml,
            day + time::Duration::days(40) + time::Duration::minutes(7),
        );
        let (view_a, view_b) = (view_dir(&a).unwrap(), view_dir(&b).unwrap());
        assert_ne!(
            std::fs::read(a.join("tls/root-ca.crt")).unwrap(),
            std::fs::read(b.join("tls/root-ca.crt")).unwrap()
        );
        assert_eq!(view_a, view_b);
        for hidden in ["BEGIN", "$2a$", "\"auths\""] {
            assert!(!view_a.contains(hidden), "{hidden} in the view");
        }
        assert!(view_a.contains("clusterID\": \"<cluster-id>\""));

        generate_into(&c, &yaml.replace("  name: example", "  name: other"), day);
        let view_c = view_dir(&c).unwrap();
        let changed: Vec<&str> = view_a
            .lines()
            .zip(view_c.lines())
            .filter(|(x, y)| x != y)
            .map(|(_, y)| y)
            .collect();
        assert!(!changed.is_empty());
        assert!(
            changed.iter().any(|l| l.contains("api.other.example.com")),
            "{changed:?}"
        );
    }

    #[test]
    fn a_missing_directory_is_an_error_naming_it() {
        let message = view_dir(Path::new("/nonexistent/out"))
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("/nonexistent/out is not a directory"),
            "{message}"
        );
    }
}
