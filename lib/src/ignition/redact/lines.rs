//! Hiding secrets in text line by line, as YAML (manifests, kubeconfigs), pretty JSON
//! (`metadata.json`) and everything else (scripts, units, environment files) are written: the
//! value of a secret key (a scalar's, too, under a key named as a secret variable is), every value of a Secret's top-level `data` and `stringData` (a block
//! scalar as one value), and on every other line what [`Redact::inline`] hides.

use super::{is_certificates, is_secret_key, Redact};

/// The text with its secrets hidden, every other byte as it was.
pub(super) fn redact(mode: Redact, text: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let secret_columns = secret_mappings(&lines);
    let mut out = String::with_capacity(text.len());
    // Inside a Secret's `data` or `stringData` (the column of that key): every entry below it
    // is a secret.
    let mut data_at: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let body = line.trim_end_matches(['\n', '\r']);
        let indent = indent_of(body);
        let blank = body.trim().is_empty();
        if !blank && data_at.is_some_and(|column| indent <= column) {
            data_at = None;
        }
        let in_data = data_at.is_some();
        let entry = entry(body);
        if in_data && entry.is_none() && !blank {
            // A line of a Secret's data that is no `key: value` (a folded value): all of it.
            out.push_str(&body[..indent]);
            out.push_str(&mode.shown("redacted", body.trim().as_bytes()));
            out.push_str(&line[body.len()..]);
            i += 1;
            continue;
        }
        if let Some(Entry {
            key,
            column,
            value_at,
        }) = entry
        {
            let value = &body[value_at..];
            let secret_data =
                matches!(key, "data" | "stringData") && secret_columns.at(i).contains(&column);
            if in_data
                || is_secret_key(key)
                || (secret_data && !value.is_empty())
                // `is_secret_key` is false here: only the variable endings are left to ask.
                || (holds_scalar(value) && bootgen_diagnose::is_secret_variable(key))
            {
                let (core, trailer) = split_trailer(value);
                if core.is_empty() || is_block_indicator(core) {
                    let end = block_end(&lines, i + 1, indent);
                    let block: String = lines[i + 1..end].concat();
                    if in_data && is_certificates(&block) {
                        // Certificates are public: the block as it is.
                        lines[i..end]
                            .iter()
                            .for_each(|l| out.push_str(&mode.inline(l)));
                        i = end;
                        continue;
                    }
                    if !block.trim().is_empty() {
                        out.push_str(&body[..value_at]);
                        if !body[..value_at].ends_with(' ') {
                            out.push(' ');
                        }
                        out.push_str(&mode.shown("redacted", block.trim().as_bytes()));
                        out.push('\n');
                        i = end;
                        continue;
                    }
                } else if !(is_empty_literal(core) || in_data && is_certificates(unquote(core))) {
                    out.push_str(&body[..value_at]);
                    out.push_str(&mode.shown("redacted", unquote(core).as_bytes()));
                    out.push_str(trailer);
                    out.push_str(&line[body.len()..]);
                    i += 1;
                    continue;
                }
            }
            if secret_data && value.is_empty() {
                data_at = Some(column);
            }
        }
        out.push_str(&mode.inline(line));
        i += 1;
    }
    out
}

/// For each line, the columns at which its YAML document (between `---` lines) has a mapping
/// of `kind: Secret`: at 0 for a document that is a Secret, further in for the items of a
/// `List`. However `kind` is written (quoted, spaced, followed by a comment), as the YAML
/// parser reads it. A mapping's `data` and `stringData` at such a column are secrets; in a
/// list of several kinds the other items' too, which hides more, never less.
fn secret_mappings(lines: &[&str]) -> SecretMappings {
    // Entry 0 is no document's: the `---` lines between documents keep it.
    let mut mappings = SecretMappings {
        document_of: vec![0; lines.len()],
        columns: vec![Vec::new()],
    };
    let mut start = 0;
    for end in 0..=lines.len() {
        if end < lines.len() && !lines[end].starts_with("---") {
            continue;
        }
        let mut found: Vec<usize> = lines[start..end]
            .iter()
            // Only a line naming `kind` is parsed: most lines of a long text are not.
            .filter(|l| l.contains("kind"))
            .filter_map(|l| entry(l.trim_end_matches(['\n', '\r'])).map(|e| (e, l)))
            .filter(|(e, l)| e.key == "kind" && scalar(&l.trim_end()[e.value_at..]) == "Secret")
            .map(|(e, _)| e.column)
            .collect();
        found.sort_unstable();
        found.dedup();
        mappings.document_of[start..end].fill(mappings.columns.len());
        mappings.columns.push(found);
        start = end + 1;
    }
    mappings
}

/// [`secret_mappings`]' answer: each document's columns once, and each line's document.
struct SecretMappings {
    document_of: Vec<usize>,
    columns: Vec<Vec<usize>>,
}

impl SecretMappings {
    /// The columns of the Secrets in line `line`'s document.
    fn at(&self, line: usize) -> &[usize] {
        &self.columns[self.document_of[line]]
    }
}

/// A plain scalar value as YAML reads it: without a trailing comment, a JSON comma or quotes.
fn scalar(value: &str) -> &str {
    let value = value.split(" #").next().unwrap_or_default().trim();
    unquote(split_trailer(value).0)
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// A `key: value` line (YAML, or JSON with the key quoted).
struct Entry<'a> {
    key: &'a str,
    /// Where the key starts (after any list markers `- `): the column of its mapping.
    column: usize,
    /// Where the value starts.
    value_at: usize,
}

/// The entry of a `key: value` line; list markers (`- `) before the key are skipped.
fn entry(line: &str) -> Option<Entry<'_>> {
    let mut at = indent_of(line);
    while line[at..].starts_with("- ") {
        at += 2;
        at += indent_of(&line[at..]);
    }
    let rest = &line[at..];
    let (key, after_key) = match rest.chars().next()? {
        quote @ ('"' | '\'') => {
            let close = rest[1..].find(quote)? + 1;
            (&rest[1..close], at + close + 1)
        }
        _ => {
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || "_.-/".contains(c)))
                .unwrap_or(rest.len());
            (&rest[..len], at + len)
        }
    };
    if key.is_empty() {
        return None;
    }
    let tail = line[after_key..].strip_prefix(':')?;
    if !(tail.is_empty() || tail.starts_with(' ')) {
        return None;
    }
    let value_at = line.len() - tail.trim_start().len();
    Some(Entry {
        key,
        column: at,
        value_at,
    })
}

/// A JSON value's trailing comma apart from the value.
fn split_trailer(value: &str) -> (&str, &str) {
    let value = value.trim_end();
    match value.strip_suffix(',') {
        Some(core) => (core.trim_end(), ","),
        None => (value, ""),
    }
}

/// `|`, `>` and their chomping and indentation variants: the value is the lines below.
fn is_block_indicator(value: &str) -> bool {
    let value = value.split(" #").next().unwrap_or_default().trim();
    value.starts_with(['|', '>'])
        && value[1..]
            .chars()
            .all(|c| c == '-' || c == '+' || c.is_ascii_digit())
}

/// Whether a value written on its key's line is a scalar (or a block scalar's indicator), not a
/// nested map or list, nor a flow map or list (`{name: x}`), nor an anchor or alias.
fn holds_scalar(value: &str) -> bool {
    let (core, _) = split_trailer(value);
    !core.is_empty() && !core.starts_with(['{', '[', '&', '*', '#'])
}

/// Values that hide nothing: an empty string, null, an empty list or map.
fn is_empty_literal(value: &str) -> bool {
    matches!(value, "\"\"" | "''" | "null" | "~" | "{}" | "[]")
}

fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|v| v.strip_suffix(quote))
        {
            return inner;
        }
    }
    value
}

/// The first line from `start` on that is not part of a value indented more than `indent`.
fn block_end(lines: &[&str], start: usize, indent: usize) -> usize {
    let mut end = start;
    for (i, line) in lines.iter().enumerate().skip(start) {
        let body = line.trim_end();
        if body.is_empty() {
            continue;
        }
        if indent_of(body) <= indent {
            break;
        }
        end = i + 1;
    }
    end
}
