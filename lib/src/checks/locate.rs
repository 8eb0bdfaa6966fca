//! Line and column of values and keys of a JSON document, by JSON path, so each problem can say
//! where it is in the file, and a schema error (which serde reports by line and column) can
//! say which field it is in. Nothing is indexed ahead of time: one walk of the document looks
//! for the few paths asked about, so a config of 200,000 files costs no memory per value.
//!
//! Places are given as `ignition-validate` gives them (`crate::ignition::place`, which every
//! command's errors share).

use super::problem::Problem;
use crate::ignition::place::{ignition_offset, line_columns, walk, Mark};
use std::collections::HashMap;

/// The JSON paths of `problem` and of its parents, nearest first: where to point when the
/// path itself is not in the document.
fn candidates(path: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(path), |c| match c.rfind(['.', '[']) {
        Some(cut) if cut > 0 => Some(&c[..cut]),
        _ => None,
    })
}

/// Fills in the line and column of every problem that has none: an unknown key points at the
/// key itself (there is no field for its value), anything else at the value at its JSON path,
/// or at the nearest parent that exists.
pub fn locate(bytes: &[u8], problems: &mut [Problem]) {
    let mut keys: HashMap<String, Option<usize>> = HashMap::new();
    let mut values: HashMap<String, Option<usize>> = HashMap::new();
    for problem in problems.iter() {
        let (Some(path), None) = (&problem.location.path, problem.location.line) else {
            continue;
        };
        if problem.rule == "unknown-key" {
            keys.insert(path.clone(), None);
        }
        for candidate in candidates(path) {
            values.insert(candidate.to_string(), None);
        }
    }
    if keys.is_empty() && values.is_empty() {
        return;
    }
    // The first occurrence of each path (a duplicate key occurs twice).
    walk(bytes, &mut |mark, path| {
        let (found, offset) = match mark {
            Mark::Key(start) => (keys.get_mut(path), start),
            Mark::Value(start, _) => (values.get_mut(path), ignition_offset(bytes, start)),
        };
        if let Some(slot @ None) = found {
            *slot = Some(offset);
        }
    });
    let mut offsets: Vec<usize> = keys
        .values()
        .chain(values.values())
        .flatten()
        .copied()
        .collect();
    offsets.sort_unstable();
    offsets.dedup();
    let places: HashMap<usize, (usize, usize)> = offsets
        .iter()
        .copied()
        .zip(line_columns(bytes, &offsets))
        .collect();
    for problem in problems.iter_mut() {
        let (Some(path), None) = (&problem.location.path, problem.location.line) else {
            continue;
        };
        let key = (problem.rule == "unknown-key")
            .then(|| keys.get(path).copied().flatten())
            .flatten();
        let offset =
            key.or_else(|| candidates(path).find_map(|c| values.get(c).copied().flatten()));
        if let Some((line, column)) = offset.and_then(|o| places.get(&o)) {
            problem.location.line = Some(*line);
            problem.location.column = Some(*column);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::{Check, Severity};
    use crate::ignition::place::{object_at, path_at};

    fn place(text: &[u8], rule: &'static str, path: &str) -> (Option<usize>, Option<usize>) {
        let mut problems = [Problem::new(
            Severity::Error,
            Check::Ignition,
            rule,
            path,
            "",
        )];
        locate(text, &mut problems);
        (problems[0].location.line, problems[0].location.column)
    }

    #[test]
    fn finds_values_by_path_and_paths_by_position() {
        let text = b"{\"ignition\": {\"version\": \"3.2.0\"},\n \"storage\": {\"files\": [\n  {\"path\": \"/a\", \"mode\": 420}\n ]}}";
        let value = |path| place(text, "r", path);
        assert_eq!(value("$.ignition.version"), (Some(1), Some(26)));
        assert_eq!(value("$.storage.files[0].path"), (Some(3), Some(12)));
        assert_eq!(value("$.storage.files[0].mode"), (Some(3), Some(26)));
        // An object or an array just inside its bracket, as `ignition-validate` places it.
        assert_eq!(value("$.storage.files"), (Some(2), Some(24)));
        assert_eq!(value("$.storage.files[0]"), (Some(3), Some(4)));
        // A path not in the document points at its nearest parent.
        assert_eq!(value("$.storage.files[0].nope"), (Some(3), Some(4)));
        assert_eq!(value("$.nope"), (Some(1), Some(2)));
        assert_eq!(
            place(text, "unknown-key", "$.storage.files[0].mode"),
            (Some(3), Some(18))
        );
        // A scalar of the wrong type: serde has read it, Go stops just past it.
        let wrong = |line, column| path_at(text, line, column);
        let mode = "$.storage.files[0].mode".to_string();
        assert_eq!(wrong(3, 28), Some((mode.clone(), 3, 29)));
        assert_eq!(wrong(3, 26), Some((mode, 3, 29)));
        // An object or array: serde stops before it (blanks between), Go just inside it.
        let files = "$.storage.files".to_string();
        assert_eq!(wrong(2, 21), Some((files.clone(), 2, 24)));
        assert_eq!(wrong(2, 22), Some((files, 2, 24)));
        assert_eq!(wrong(2, 23), Some(("$.storage.files[0]".to_string(), 3, 4)));
        assert_eq!(wrong(9, 1), None);
        assert_eq!(
            object_at(text, 3, 29).as_deref(),
            Some("$.storage.files[0]")
        );
    }

    #[test]
    fn the_first_of_a_duplicate_key_and_escaped_keys() {
        let text = b"{\"a\": 1,\n\"a\": 2, \"\\u0062\": 3}";
        assert_eq!(place(text, "r", "$.a"), (Some(1), Some(7)));
        assert_eq!(place(text, "unknown-key", "$.a"), (Some(1), Some(2)));
        assert_eq!(place(text, "r", "$.b"), (Some(2), Some(19)));
    }
}
