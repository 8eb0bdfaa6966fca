//! A config's file entries one at a time, wherever they are: in its JSON tree, or raw in a
//! [`super::SplitDoc`]. Checks that read every entry take a [`FileList`], so they run on a
//! large config without its file list ever being a tree, and on a tree alike.

use crate::error::{Error, Result};
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;

/// The file entries of one config, in config order.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FileList<'s> {
    /// Entries of a JSON tree.
    Tree(&'s [Value]),
    /// Raw entries, each parsed when reached.
    Raw(&'s [&'s RawValue]),
}

/// Only the `path` of a raw entry, borrowed when it has no escapes.
#[derive(serde::Deserialize)]
struct PathOnly<'a> {
    #[serde(borrow, default)]
    path: Option<Cow<'a, str>>,
}

/// The `path` of a raw file entry (`None` when it has none), borrowed when it has no escapes.
pub(crate) fn raw_path(raw: &RawValue) -> serde_json::Result<Option<Cow<'_, str>>> {
    Ok(serde_json::from_str::<PathOnly>(raw.get())?.path)
}

fn entry_error(i: usize, e: serde_json::Error) -> Error {
    Error::Ignition {
        file: crate::error::UNNAMED_CONFIG.into(),
        message: format!("$.storage.files[{i}]: not valid JSON: {e}"),
    }
}

impl<'s> FileList<'s> {
    /// The entries of a config's tree (none when `storage.files` is not a list).
    pub(crate) fn of(config: &'s Value) -> FileList<'s> {
        FileList::Tree(
            config
                .pointer("/storage/files")
                .and_then(Value::as_array)
                .map_or(&[], Vec::as_slice),
        )
    }

    /// How many entries.
    pub(crate) fn len(&self) -> usize {
        match self {
            FileList::Tree(list) => list.len(),
            FileList::Raw(list) => list.len(),
        }
    }

    /// Every entry in order: borrowed from a tree, or parsed (and dropped by the caller).
    pub(crate) fn iter(self) -> impl Iterator<Item = Result<Cow<'s, Value>>> {
        (0..self.len()).map(move |i| match self {
            FileList::Tree(list) => Ok(Cow::Borrowed(&list[i])),
            FileList::Raw(list) => serde_json::from_str(list[i].get())
                .map(Cow::Owned)
                .map_err(|e| entry_error(i, e)),
        })
    }

    /// The `path` of every entry (`None` where it is not a string), without parsing the rest
    /// of each: borrowed from a tree, or from the raw text when the path has no escapes.
    pub(crate) fn paths(self) -> Result<Vec<Option<Cow<'s, str>>>> {
        match self {
            FileList::Tree(list) => Ok(list
                .iter()
                .map(|f| f.get("path").and_then(Value::as_str).map(Cow::Borrowed))
                .collect()),
            FileList::Raw(list) => list
                .iter()
                .enumerate()
                .map(|(i, raw)| raw_path(raw).map_err(|e| entry_error(i, e)))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_and_its_raw_entries_read_alike() {
        let text = r#"[{"path":"/a","mode":420},{"path":"\/b"},{"mode":1}]"#;
        let tree: Vec<Value> = serde_json::from_str(text).unwrap();
        let raw: Vec<&RawValue> = serde_json::from_str(text).unwrap();
        let (tree, raw) = (FileList::Tree(&tree), FileList::Raw(&raw));
        assert_eq!(tree.len(), 3);
        assert_eq!(tree.paths().unwrap(), raw.paths().unwrap());
        assert_eq!(
            tree.paths().unwrap(),
            [Some("/a".into()), Some("/b".into()), None]
        );
        fn entries(list: FileList<'_>) -> Vec<Value> {
            list.iter().map(|e| e.unwrap().into_owned()).collect()
        }
        assert_eq!(entries(tree), entries(raw));
        let bad: Vec<&RawValue> = serde_json::from_str(r#"[{"path":7}]"#).unwrap();
        assert!(FileList::Raw(&bad).paths().is_err());
    }
}
