//! Inventory paths of a failure domain's topology: names joined into paths, and the installer's
//! rules for each kind of path.

use crate::config::{LoadedConfig, Warning};
use crate::error::Result;

/// A name where the installer takes a path: joined under the datacenter's folder of its kind
/// (`c1` becomes `/dc1/host/c1`), as the installer does when it cannot ask vCenter, with a
/// warning naming the path to write.
pub(super) fn joined(
    loaded: &LoadedConfig,
    warnings: &mut Vec<Warning>,
    value: String,
    at: &str,
    key: &str,
    datacenter: &str,
    kind: &str,
) -> String {
    if value.is_empty() || value.starts_with('/') {
        return value;
    }
    let path = format!("/{datacenter}/{kind}/{value}");
    warnings.push(loaded.warning(
        &format!("{at}.{key}"),
        format!("`{value}` is a name; read as the path {path}: write the path"),
    ));
    path
}

/// An inventory path as the installer cleans it (Go's `filepath.Clean`): no repeated or
/// trailing slash, no `.` part, and a `..` part taking the part before it away. `""` stays
/// `""` (no path given).
pub(crate) fn cleaned(path: &str) -> String {
    if path.is_empty() {
        return String::new();
    }
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            // Above the root is the root.
            ".." if absolute => {}
            part => parts.push(part),
        }
    }
    match (absolute, parts.is_empty()) {
        (true, _) => format!("/{}", parts.join("/")),
        (false, true) => ".".to_string(),
        (false, false) => parts.join("/"),
    }
}

/// The first part of an inventory path `/<first>/<kind>/<rest>`, as the installer splits it
/// (at the first `/<kind>/`); `None` when the path is not of that form.
fn first_part<'a>(path: &'a str, kind: &str) -> Option<&'a str> {
    let rest = path.strip_prefix('/')?;
    // The part may be empty (`//host/x`): look from the slash that ends it.
    let end = rest.find(&format!("/{kind}/"))?;
    Some(&rest[..end])
}

/// The installer's rule for a compute cluster, datastore or folder path: `/<datacenter>/<kind>/...`
/// in the failure domain's datacenter.
pub(super) fn check_path(
    loaded: &LoadedConfig,
    path: &str,
    field: &str,
    datacenter: &str,
    kind: &str,
    what: &str,
) -> Result<()> {
    let Some(first) = first_part(path, kind) else {
        return Err(loaded.field_error(
            field,
            format!("`{path}`: give the {what}'s full path, /<datacenter>/{kind}/<name>"),
        ));
    };
    if !datacenter.contains(first) {
        return Err(loaded.field_error(
            field,
            format!("`{path}` is not in the failure domain's datacenter {datacenter}"),
        ));
    }
    Ok(())
}

/// The installer's rule for a resource pool: `/<datacenter>/host/<cluster>/...`, in the failure
/// domain's datacenter and compute cluster.
pub(super) fn check_resource_pool(
    loaded: &LoadedConfig,
    path: &str,
    field: &str,
    datacenter: &str,
    compute_cluster: &str,
) -> Result<()> {
    let parts = first_part(path, "host").and_then(|first| {
        let after = &path[first.len() + "//host/".len()..];
        after.split_once('/').map(|(cluster, _)| (first, cluster))
    });
    let Some((first, cluster)) = parts else {
        return Err(loaded.field_error(
            field,
            format!(
                "`{path}`: give the resource pool's full path, /<datacenter>/host/<cluster>/<pool>"
            ),
        ));
    };
    if !datacenter.contains(first) {
        return Err(loaded.field_error(
            field,
            format!("`{path}` is not in the failure domain's datacenter {datacenter}"),
        ));
    }
    // Without a compute cluster (the single-vCenter fields' "legacy UPI"), any cluster's.
    if !compute_cluster.is_empty() && !compute_cluster.contains(cluster) {
        return Err(loaded.field_error(
            field,
            format!("`{path}` is not in the failure domain's compute cluster {compute_cluster}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paths cleaned as Go's `filepath.Clean` cleans them, which the installer uses.
    #[test]
    fn paths_are_cleaned_as_the_installer_cleans_them() {
        for (written, clean) in [
            ("/dc1/host/c1/", "/dc1/host/c1"),
            ("/dc1/host//c1", "/dc1/host/c1"),
            ("/dc1/./datastore/ds1", "/dc1/datastore/ds1"),
            ("/dc1/host/c1/../c2", "/dc1/host/c2"),
            ("/../dc1", "/dc1"),
            ("/", "/"),
            ("c1/", "c1"),
            ("a/..", "."),
            ("../a", "../a"),
            ("", ""),
        ] {
            assert_eq!(cleaned(written), clean, "{written}");
        }
    }
}
