//! Line and column of values and keys of a JSON document, by JSON path, so each problem can say
//! where it is in the file, and a schema error (which serde reports by line and column) can
//! say which field it is in. Nothing is indexed ahead of time: one walk of the document looks
//! for the few paths asked about, so a config of 200,000 files costs no memory per value.
//!
//! Places are given as `ignition-validate` gives them, so the two can be compared: its JSON
//! reader marks an object or an array just inside its opening bracket, a key or any other value
//! at its first byte ([`ignition_offset`]); a value of the wrong type is where Go's decoder
//! stopped reading it ([`path_at`]).

use super::problem::Problem;
use std::collections::HashMap;
use std::fmt::Write as _;

/// What the walk passes by: a key (where it starts), or a value (where it starts and ends),
/// each with its JSON path. Values are reported after their children.
#[derive(Debug, Clone, Copy)]
enum Mark {
    Key(usize),
    Value(usize, usize),
}

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

/// 1-based (line, column) of each of `offsets`, which are ascending.
fn line_columns(bytes: &[u8], offsets: &[usize]) -> Vec<(usize, usize)> {
    let (mut line, mut line_start, mut at) = (1, 0, 0);
    let mut out = Vec::with_capacity(offsets.len());
    for &offset in offsets {
        let end = offset.min(bytes.len()).max(at);
        for (i, b) in bytes[at..end].iter().enumerate() {
            if *b == b'\n' {
                line += 1;
                line_start = at + i + 1;
            }
        }
        at = end;
        out.push((line, offset - line_start + 1));
    }
    out
}

/// Where `ignition-validate` places a value that starts at `start`: its JSON reader marks an
/// object or an array after the bracket it has read.
fn ignition_offset(bytes: &[u8], start: usize) -> usize {
    match bytes.get(start) {
        Some(b'{' | b'[') => start + 1,
        _ => start,
    }
}

/// The offset in `bytes` just past 1-based `line` and `column` (in bytes): serde's position is
/// the last byte it read (column 0: the newline ending the line before).
fn offset_after(bytes: &[u8], line: usize, column: usize) -> Option<usize> {
    let start = match line.checked_sub(1)? {
        0 => 0,
        n => {
            bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .nth(n - 1)?
                .0
                + 1
        }
    };
    Some(start + column)
}

/// The value serde means when it reports a value of the wrong type at 1-based `line`/`column`,
/// by its path, and the line and column `ignition-validate` gives that error. serde has read a
/// scalar (the value holds the position) but not an object or an array (the value starts after
/// it, past blanks); Go's decoder stops just past a scalar, just inside an object or an array.
pub fn path_at(bytes: &[u8], line: usize, column: usize) -> Option<(String, usize, usize)> {
    let read = offset_after(bytes, line, column)?;
    let mut next = read;
    while bytes.get(next).is_some_and(u8::is_ascii_whitespace) {
        next += 1;
    }
    let last = read.checked_sub(1)?;
    let mut exact = None;
    let mut around: Option<(usize, usize, String)> = None;
    walk(bytes, &mut |mark, path| {
        let Mark::Value(start, end) = mark else {
            return;
        };
        if start == next {
            exact = Some((start, end, path.to_string()));
        } else if start <= last
            && last <= end
            && around.as_ref().is_none_or(|(best, _, _)| start >= *best)
        {
            around = Some((start, end, path.to_string()));
        }
    });
    let (start, end, path) = exact.or(around)?;
    let stop = match bytes[start] {
        b'{' | b'[' => ignition_offset(bytes, start),
        _ => end + 1,
    };
    let (line, column) = line_columns(bytes, &[stop])[0];
    Some((path, line, column))
}

/// The path of the object serde means when it reports a field missing at 1-based
/// `line`/`column`: the one whose closing brace is there (serde reads the brace before it says
/// so).
pub fn object_at(bytes: &[u8], line: usize, column: usize) -> Option<String> {
    let brace = offset_after(bytes, line, column)?.checked_sub(1)?;
    let mut object = None;
    walk(bytes, &mut |mark, path| {
        if let Mark::Value(start, end) = mark {
            if end == brace && bytes[start] == b'{' {
                object = Some(path.to_string());
            }
        }
    });
    object
}

/// Converts Ignition's dotted paths (`$.storage.files.0.path`) to `$.storage.files[0].path`.
pub fn bracket_indices(dotted: &str) -> String {
    let mut out = String::new();
    for (i, part) in dotted.split('.').enumerate() {
        if i > 0 && !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{part}]"));
        } else {
            if i > 0 {
                out.push('.');
            }
            out.push_str(part);
        }
    }
    out
}

/// Walks `bytes` (meant for documents serde_json accepted; on anything else it stops where it
/// cannot go on), telling `visit` of every key and value with its path.
fn walk(bytes: &[u8], visit: &mut dyn FnMut(Mark, &str)) {
    let mut walker = Walker {
        bytes,
        pos: 0,
        path: String::from("$"),
        visit,
    };
    walker.value(0);
}

struct Walker<'a, 'v> {
    bytes: &'a [u8],
    pos: usize,
    /// The path of the value being walked.
    path: String,
    visit: &'v mut dyn FnMut(Mark, &str),
}

impl<'a> Walker<'a, '_> {
    fn skip_space(&mut self) {
        while self
            .bytes
            .get(self.pos)
            .is_some_and(|b| b.is_ascii_whitespace())
        {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Walks one value at `self.path`; false when the input is malformed.
    fn value(&mut self, depth: usize) -> bool {
        self.skip_space();
        let start = self.pos;
        let ok = match self.peek() {
            Some(b'{') if depth < 256 => self.object(depth),
            Some(b'[') if depth < 256 => self.array(depth),
            Some(b'"') => self.string().is_some(),
            Some(_) => {
                while self.peek().is_some_and(|b| !b",]} \t\r\n".contains(&b)) {
                    self.pos += 1;
                }
                self.pos > start
            }
            None => false,
        };
        let end = self.pos.saturating_sub(1).max(start);
        (self.visit)(Mark::Value(start, end), &self.path);
        ok
    }

    fn object(&mut self, depth: usize) -> bool {
        self.pos += 1;
        let parent = self.path.len();
        loop {
            self.skip_space();
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    return true;
                }
                Some(b',') => self.pos += 1,
                Some(b'"') => {
                    let key_start = self.pos;
                    let Some(key) = self.string() else {
                        return false;
                    };
                    self.path.push('.');
                    self.path.push_str(&key);
                    (self.visit)(Mark::Key(key_start), &self.path);
                    self.skip_space();
                    let ok = self.peek() == Some(b':') && {
                        self.pos += 1;
                        self.value(depth + 1)
                    };
                    self.path.truncate(parent);
                    if !ok {
                        return false;
                    }
                }
                _ => return false,
            }
        }
    }

    fn array(&mut self, depth: usize) -> bool {
        self.pos += 1;
        let parent = self.path.len();
        let mut index = 0;
        loop {
            self.skip_space();
            match self.peek() {
                Some(b']') => {
                    self.pos += 1;
                    return true;
                }
                Some(b',') => self.pos += 1,
                Some(_) => {
                    let _ = write!(self.path, "[{index}]");
                    let ok = self.value(depth + 1);
                    self.path.truncate(parent);
                    if !ok {
                        return false;
                    }
                    index += 1;
                }
                None => return false,
            }
        }
    }

    /// Walks a string literal and returns its text: as written when it has no escapes and no
    /// control characters, else as serde_json decodes it (`None` when it cannot).
    fn string(&mut self) -> Option<std::borrow::Cow<'a, str>> {
        let bytes = self.bytes;
        let start = self.pos;
        self.pos += 1;
        while let Some(b) = self.peek() {
            self.pos += 1;
            match b {
                b'\\' => self.pos += 1,
                b'"' => {
                    let raw = bytes.get(start..self.pos)?;
                    let inner = &raw[1..raw.len() - 1];
                    if !inner.iter().any(|b| *b == b'\\' || *b < 0x20) {
                        if let Ok(text) = std::str::from_utf8(inner) {
                            return Some(text.into());
                        }
                    }
                    return serde_json::from_slice::<String>(raw).ok().map(Into::into);
                }
                _ => {}
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::{Check, Severity};

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

    #[test]
    fn converts_dotted_indices() {
        assert_eq!(
            bracket_indices("$.storage.files.10.path"),
            "$.storage.files[10].path"
        );
        assert_eq!(bracket_indices("$"), "$");
    }
}
