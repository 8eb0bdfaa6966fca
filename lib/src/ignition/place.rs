//! Where `ignition-validate` places things in a config, for every command's messages: its JSON
//! reader marks an object or an array just inside its opening bracket, a key or any other value
//! at its first byte ([`ignition_offset`]); a value of the wrong type is where Go's decoder
//! stopped reading it ([`path_at`]); a syntax error one byte past where serde stopped
//! ([`syntax_place`]). `checks::locate` finds the places of a validation's problems with the
//! same walk.

use super::schema::SchemaError;
use std::fmt::Write as _;

/// What the walk passes by: a key (where it starts), or a value (where it starts and ends),
/// each with its JSON path. Values are reported after their children.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mark {
    Key(usize),
    Value(usize, usize),
}

/// 1-based (line, column) of each of `offsets`, which are ascending.
pub(crate) fn line_columns(bytes: &[u8], offsets: &[usize]) -> Vec<(usize, usize)> {
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
pub(crate) fn ignition_offset(bytes: &[u8], start: usize) -> usize {
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
/// it, past blanks); Go's decoder stops just past a scalar, just inside an object or an array,
/// and a rule's refusal of a `null` is at its first byte.
pub(crate) fn path_at(bytes: &[u8], line: usize, column: usize) -> Option<(String, usize, usize)> {
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
        // Go takes a `null` anywhere (as the empty value): what refuses it is a rule, which
        // names the value where it starts.
        b'n' => start,
        _ => end + 1,
    };
    let (line, column) = line_columns(bytes, &[stop])[0];
    Some((path, line, column))
}

/// The path of the object serde means when it reports a field missing at 1-based
/// `line`/`column`: the one whose closing brace is there (serde reads the brace before it says
/// so).
pub(crate) fn object_at(bytes: &[u8], line: usize, column: usize) -> Option<String> {
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

/// Walks `bytes` (meant for documents serde_json accepted; on anything else it stops where it
/// cannot go on), telling `visit` of every key and value with its path.
pub(crate) fn walk(bytes: &[u8], visit: &mut dyn FnMut(Mark, &str)) {
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

/// Line and column of a JSON syntax error `e` as `ignition-validate` gives them: serde names the
/// last byte it read, Go's reader the one after.
pub(crate) fn syntax_place(e: &serde_json::Error) -> (usize, usize) {
    (e.line().max(1), e.column() + 1)
}

/// The JSON path (when found) and line and column of schema error `e` in `bytes`, as
/// `ignition-validate` places it; `None` when the error has no position.
pub(crate) fn schema_place(
    e: &SchemaError,
    bytes: &[u8],
) -> Option<(Option<String>, usize, usize)> {
    let (line, column) = e.position?;
    // serde says a field is missing where it finished reading the object, past its last
    // member: the field is the object's, placed where the object is (`None`: by the caller's
    // walk of its path).
    let missing = e
        .message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'));
    if let Some((field, object)) =
        missing.and_then(|field| Some((field, object_at(bytes, line, column)?)))
    {
        let path = format!("{object}.{field}");
        let place = value_place(bytes, &object).unwrap_or((line, column));
        return Some((Some(path), place.0, place.1));
    }
    let found = path_at(bytes, line, column);
    // A key given twice is bootgen's own error: at the key, where serde found it.
    let (line, column) = match (&found, &e.duplicate_key) {
        (Some((_, line, column)), None) => (*line, *column),
        _ => (line, column),
    };
    Some((found.map(|(path, ..)| path), line, column))
}

/// Where `ignition-validate` places the value at `path`.
fn value_place(bytes: &[u8], path: &str) -> Option<(usize, usize)> {
    first_place(bytes, path, false)
}

/// Where `ignition-validate` places the unknown key at `path` (a path as `validate` writes
/// it): at the key itself, as there is no field for its value.
pub(crate) fn key_place(bytes: &[u8], path: &str) -> Option<(usize, usize)> {
    first_place(bytes, path, true)
}

/// The place of the first key (`key`) or value at `path`: a key given twice is placed at its
/// first, as `checks::locate` places it.
fn first_place(bytes: &[u8], path: &str, key: bool) -> Option<(usize, usize)> {
    let mut offset = None;
    walk(bytes, &mut |mark, at| {
        if offset.is_some() || at != path {
            return;
        }
        offset = match (mark, key) {
            (Mark::Key(start), true) => Some(start),
            (Mark::Value(start, _), false) => Some(ignition_offset(bytes, start)),
            _ => None,
        };
    });
    offset.map(|o| line_columns(bytes, &[o])[0])
}

/// Converts Ignition's dotted paths (`$.storage.files.0.path`) to `$.storage.files[0].path`.
pub(crate) fn bracket_indices(dotted: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_dotted_indices() {
        assert_eq!(
            bracket_indices("$.storage.files.10.path"),
            "$.storage.files[10].path"
        );
        assert_eq!(bracket_indices("$"), "$");
    }

    /// An unknown key at the key, the first of two, in `validate`'s path.
    #[test]
    fn keys_are_placed_at_their_first_byte() {
        let text = b"{\"a\": {\"b\": 1},\n \"c\": [{\"d\": 2, \"d\": 3}]}";
        assert_eq!(key_place(text, "$.a.b"), Some((1, 8)));
        assert_eq!(key_place(text, "$.c[0].d"), Some((2, 9)));
        assert_eq!(key_place(text, "$.e"), None);
    }
}
