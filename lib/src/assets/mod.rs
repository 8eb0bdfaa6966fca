//! `AssetSet`: the files, units and users of a bootstrap node, before they become Ignition.

pub(crate) mod cvo_overrides;
mod files;
mod replaced_manifests;
mod units;
mod user_manifests;

pub use files::{manifest_mode, node_files};
pub use units::node_units;
pub use user_manifests::{read_manifest_dir, UserManifest};

use crate::context::TemplateContext;
use crate::error::{OptionField, Result};
use crate::model::Model;
use crate::pki::{KubeconfigKind, Pki};
use crate::release::{NodeProfile, Order};
use crate::render::Renderer;

/// The user's manifests, for `/opt/openshift/manifests` and `/opt/openshift/openshift`.
#[derive(Debug, Default)]
pub struct UserManifests {
    /// For `manifests/`.
    pub manifests: Vec<UserManifest>,
    /// For `openshift/`.
    pub openshift: Vec<UserManifest>,
}

/// Everything `node` gets: the table's files and units, the PKI's files and
/// kubeconfigs, the user's manifests (which replace a generated one of the same name, with a
/// warning in `warnings`), the ClusterVersion that lists them all, and the `core` user.
pub fn collect(
    model: &Model,
    pki: &Pki,
    node: &NodeProfile,
    context: &TemplateContext,
    renderer: &Renderer,
    user: UserManifests,
    warnings: &mut Vec<crate::config::Warning>,
) -> Result<AssetSet> {
    let mut set = AssetSet::default();
    for file in node_files(renderer, node, context, Order::Normal)? {
        set.add_file(file);
    }
    for tls in pki.shipped_files() {
        set.add_file(File {
            path: format!("/opt/openshift/tls/{}", tls.name),
            mode: tls.mode,
            contents: tls.contents,
            append: false,
        });
    }
    let internal = model.api_int_url();
    let kubeconfigs = [
        ("kubeconfig", KubeconfigKind::Admin, internal.clone()),
        ("kubeconfig-kubelet", KubeconfigKind::Kubelet, internal),
        (
            "kubeconfig-loopback",
            KubeconfigKind::Loopback,
            format!("https://localhost:{}", crate::model::API_PORT),
        ),
    ];
    for (name, kind, server) in kubeconfigs {
        set.add_file(File {
            path: format!("/opt/openshift/auth/{name}"),
            mode: 0o600,
            contents: pki.kubeconfig(kind, &server).into_bytes(),
            append: false,
        });
    }
    // User manifests come after bootgen's so they can replace a generated manifest of the same
    // name (said, and refused when the copy lacks what the generated one sets). Moved, not
    // copied: with thousands of manifests they are most of the config.
    let generated: std::collections::HashMap<String, usize> = set
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.clone(), i))
        .collect();
    for (dir, list, option) in [
        ("manifests", user.manifests, OptionField::ManifestsDir),
        ("openshift", user.openshift, OptionField::OpenshiftDir),
    ] {
        for manifest in list {
            let path = format!("/opt/openshift/{dir}/{}", manifest.relative);
            if let Some(&index) = generated.get(&path) {
                warnings.push(replaced_manifests::check(
                    &set.files[index],
                    &manifest,
                    option,
                )?);
            }
            set.add_file(File {
                mode: manifest_mode(&manifest.contents),
                path,
                contents: manifest.contents,
                append: false,
            });
        }
    }
    // The ClusterVersion lists every manifest's object, the user's included.
    let extra = serde_json::json!({ "unmanaged_objects": cvo_overrides::unmanaged_objects(&set) });
    for row in node
        .files
        .iter()
        .filter(|r| r.order == Order::AfterManifests)
    {
        set.add_file(File {
            contents: files::render_row(renderer, row, &extra)?,
            path: row.path.clone(),
            mode: row.mode,
            append: row.append,
        });
    }
    for unit in node_units(renderer, node)? {
        set.add_unit(unit);
    }
    let mut keys: Vec<String> = model
        .ssh_key
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    keys.push(pki.bootstrap_ssh_public_key());
    set.users.push(User {
        name: "core".into(),
        ssh_authorized_keys: keys,
    });
    Ok(set.sorted())
}

/// A file to place on the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// Absolute path on the node.
    pub path: String,
    /// Unix permission bits.
    pub mode: u32,
    /// The bytes.
    pub contents: Vec<u8>,
    /// Append to the existing file instead of replacing it.
    pub append: bool,
}

/// A systemd drop-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropin {
    /// File name, e.g. `certs.conf`.
    pub name: String,
    /// The text.
    pub contents: String,
}

/// A systemd unit managed by Ignition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Unit name, e.g. `bootkube.service`.
    pub name: String,
    /// `Some(true)` enables through Ignition's preset; `None` leaves it alone.
    pub enabled: Option<bool>,
    /// Unit text; `None` keeps the OS's unit (drop-ins only), `Some("")` also does.
    pub contents: Option<String>,
    /// Drop-ins, sorted by name.
    pub dropins: Vec<Dropin>,
}

/// A user account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// Login name.
    pub name: String,
    /// authorized_keys entries, in order.
    pub ssh_authorized_keys: Vec<String>,
}

/// Everything a node gets. Files are unique by path and units by name: a later insert replaces
/// an earlier one in place, as the installer lets platform files override common ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AssetSet {
    /// Files, in insertion order until [`AssetSet::sorted`].
    pub files: Vec<File>,
    /// Units.
    pub units: Vec<Unit>,
    /// Users.
    pub users: Vec<User>,
}

impl AssetSet {
    /// Adds a file, replacing one with the same path.
    pub fn add_file(&mut self, file: File) {
        match self.files.iter_mut().find(|f| f.path == file.path) {
            Some(existing) => *existing = file,
            None => self.files.push(file),
        }
    }

    /// Adds a unit, replacing one with the same name.
    pub fn add_unit(&mut self, unit: Unit) {
        match self.units.iter_mut().find(|u| u.name == unit.name) {
            Some(existing) => *existing = unit,
            None => self.units.push(unit),
        }
    }

    /// The set with files sorted by path and units by name, for stable output.
    pub fn sorted(mut self) -> AssetSet {
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        self.units.sort_by(|a, b| a.name.cmp(&b.name));
        self
    }

    /// Looks a file up by path.
    pub fn file(&self, path: &str) -> Option<&File> {
        self.files.iter().find(|f| f.path == path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_files_replace_earlier_ones() {
        let mut set = AssetSet::default();
        for (path, byte) in [("/b", 1), ("/a", 2), ("/b", 3)] {
            set.add_file(File {
                path: path.into(),
                mode: 0o600,
                contents: vec![byte],
                append: false,
            });
        }
        let set = set.sorted();
        assert_eq!(set.files.len(), 2);
        assert_eq!(set.files[0].path, "/a");
        assert_eq!(set.file("/b").unwrap().contents, vec![3]);
    }
}
