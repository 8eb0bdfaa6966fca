//! The order `ignition-validate` reports unknown keys in: it walks Go's config types, saying
//! an object's own unknown keys first, then going into its fields in the order Go's struct
//! has them, and list entries by index. Go's fields are in the order of their JSON names,
//! except that a file's, directory's or link's node fields (`group`, `overwrite`, `path`,
//! `user`) come before its own. (An object's own unknown keys come in Go's map order, which
//! varies from run to run; bootgen keeps them in the order they are written.)

/// The fields of a storage node, which come first in a file, directory or link entry.
const NODE_FIELDS: &[&str] = &["group", "overwrite", "path", "user"];

/// The lists whose entries are storage nodes.
const NODE_LISTS: &[&str] = &["files", "directories", "links"];

/// Where one step of a path goes, as ignition-validate's walk orders it: an object's own
/// unknown key (the last step) before any of its fields; then list entries by index; then
/// fields, a node's first, by name.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Step {
    Own,
    Entry(usize),
    Field(bool, String),
}

/// The sort key of unknown key `dotted` (`$.storage.files.0.user.bogus`): its steps, each
/// ordered as [`Step`] says.
pub(crate) fn walk_order(dotted: &str) -> Vec<Step> {
    let parts: Vec<&str> = dotted.split('.').skip(1).collect();
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            if i + 1 == parts.len() {
                return Step::Own;
            }
            if let Ok(index) = part.parse() {
                return Step::Entry(index);
            }
            let in_node = i == 3 && parts[0] == "storage" && NODE_LISTS.contains(&parts[1]);
            Step::Field(!(in_node && NODE_FIELDS.contains(part)), part.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_keys_then_fields_in_gos_order() {
        let mut keys = vec![
            "$.systemd.units.0.x",
            "$.storage.files.1.contents.x",
            "$.storage.files.1.user.x",
            "$.storage.files.0.x",
            "$.storage.x",
            "$.storage.disks.0.x",
            "$.passwd.users.10.x",
            "$.passwd.users.9.x",
            "$.x",
            "$.ignition.y",
            "$.ignition.x",
        ];
        keys.sort_by_cached_key(|k| walk_order(k));
        assert_eq!(
            keys,
            [
                "$.x",
                "$.ignition.y",
                "$.ignition.x",
                "$.passwd.users.9.x",
                "$.passwd.users.10.x",
                "$.storage.x",
                "$.storage.disks.0.x",
                "$.storage.files.0.x",
                "$.storage.files.1.user.x",
                "$.storage.files.1.contents.x",
                "$.systemd.units.0.x",
            ]
        );
    }
}
