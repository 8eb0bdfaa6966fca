//! Line and column of every value of a JSON document, by JSON path, so each problem can say
//! where it is in the file, and a schema error (which serde reports by line and column) can
//! say which field it is in.

/// One value's path and where it starts and ends.
#[derive(Debug, Clone)]
struct Span {
    path: String,
    start: usize,
    end: usize,
}

/// The position index of one document.
#[derive(Debug, Clone, Default)]
pub struct Positions {
    spans: Vec<Span>,
    /// Where each object key starts, by the path of its value.
    keys: Vec<(String, usize)>,
    line_starts: Vec<usize>,
    /// Offsets of whitespace bytes (sorted).
    blanks: Vec<usize>,
}

impl Positions {
    /// Indexes `bytes`. Meant for documents serde_json already accepted; on anything else it
    /// keeps what it managed to index.
    pub fn index(bytes: &[u8]) -> Positions {
        let mut line_starts = vec![0];
        line_starts.extend(
            bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        );
        let mut scanner = Scanner {
            bytes,
            pos: 0,
            spans: Vec::new(),
            keys: Vec::new(),
        };
        scanner.value("$".to_string(), 0);
        Positions {
            spans: scanner.spans,
            keys: scanner.keys,
            line_starts,
            blanks: bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| b.is_ascii_whitespace())
                .map(|(i, _)| i)
                .collect(),
        }
    }

    /// 1-based (line, column) of byte `offset`.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|start| *start <= offset);
        let start = self
            .line_starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(0);
        (line.max(1), offset - start + 1)
    }

    /// Where the value at `path` starts.
    pub fn find(&self, path: &str) -> Option<(usize, usize)> {
        self.spans
            .iter()
            .find(|s| s.path == path)
            .map(|s| self.line_column(s.start))
    }

    /// Where the key of the member at `path` starts (for keys that should not be there).
    pub fn find_key(&self, path: &str) -> Option<(usize, usize)> {
        self.keys
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, offset)| self.line_column(*offset))
    }

    /// The path of the value serde means when it reports an error at 1-based `line`/`column`:
    /// a value starting there (after blanks), else the innermost value ending just before.
    pub fn path_at(&self, line: usize, column: usize) -> Option<&str> {
        let start = *self.line_starts.get(line.checked_sub(1)?)?;
        let offset = start + column.saturating_sub(1);
        let next = self.blanks_after(offset);
        if let Some(span) = self.spans.iter().rev().find(|s| s.start == next) {
            return Some(span.path.as_str());
        }
        let before = offset.saturating_sub(1);
        self.spans
            .iter()
            .filter(|s| s.start <= before && before <= s.end)
            .max_by_key(|s| s.start)
            .map(|s| s.path.as_str())
    }

    fn blanks_after(&self, offset: usize) -> usize {
        let mut at = offset;
        while self.blanks.binary_search(&at).is_ok() {
            at += 1;
        }
        at
    }
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

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    spans: Vec<Span>,
    keys: Vec<(String, usize)>,
}

impl Scanner<'_> {
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

    /// Scans one value, recording its span; returns false when the input is malformed.
    fn value(&mut self, path: String, depth: usize) -> bool {
        self.skip_space();
        let start = self.pos;
        let ok = match self.peek() {
            Some(b'{') if depth < 256 => self.object(&path, depth),
            Some(b'[') if depth < 256 => self.array(&path, depth),
            Some(b'"') => self.string().is_some(),
            Some(_) => {
                while self.peek().is_some_and(|b| !b",]} \t\r\n".contains(&b)) {
                    self.pos += 1;
                }
                self.pos > start
            }
            None => false,
        };
        self.spans.push(Span {
            path,
            start,
            end: self.pos.saturating_sub(1).max(start),
        });
        ok
    }

    fn object(&mut self, path: &str, depth: usize) -> bool {
        self.pos += 1;
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
                    self.keys.push((format!("{path}.{key}"), key_start));
                    self.skip_space();
                    if self.peek() != Some(b':') {
                        return false;
                    }
                    self.pos += 1;
                    if !self.value(format!("{path}.{key}"), depth + 1) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
    }

    fn array(&mut self, path: &str, depth: usize) -> bool {
        self.pos += 1;
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
                    if !self.value(format!("{path}[{index}]"), depth + 1) {
                        return false;
                    }
                    index += 1;
                }
                None => return false,
            }
        }
    }

    /// Scans a string literal and returns its decoded text.
    fn string(&mut self) -> Option<String> {
        let start = self.pos;
        self.pos += 1;
        while let Some(b) = self.peek() {
            self.pos += 1;
            match b {
                b'\\' => self.pos += 1,
                b'"' => {
                    let raw = self.bytes.get(start..self.pos)?;
                    return serde_json::from_slice(raw).ok();
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

    #[test]
    fn finds_values_by_path_and_paths_by_position() {
        let text = b"{\"ignition\": {\"version\": \"3.2.0\"},\n \"storage\": {\"files\": [\n  {\"path\": \"/a\", \"mode\": 420}\n ]}}";
        let positions = Positions::index(text);
        assert_eq!(positions.find("$.ignition.version"), Some((1, 26)));
        assert_eq!(positions.find("$.storage.files[0].path"), Some((3, 12)));
        assert_eq!(positions.find("$.storage.files[0].mode"), Some((3, 26)));
        assert_eq!(positions.path_at(3, 27), Some("$.storage.files[0].mode"));
        assert_eq!(positions.path_at(3, 4), Some("$.storage.files[0]"));
        assert_eq!(positions.find("$.nope"), None);
        assert_eq!(positions.find_key("$.storage.files[0].mode"), Some((3, 18)));
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
