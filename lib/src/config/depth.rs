//! Refusing YAML (and JSON, which is YAML) nested too deep, before it is parsed.
//!
//! serde_yaml_ng enforces its own depth limit only while deserializing, after the parser has
//! read the whole text, and that reading takes time quadratic in the depth: an install-config
//! nested 100,000 levels (200 KB) took a minute. yaml-rust2's parser reads events one at a time,
//! so counting them stops at the first level too many.

use yaml_rust2::parser::{Event, Parser};

/// The deepest nesting accepted: serde's own limit, far beyond any manifest or install-config
/// (a Kubernetes object nests about 15 levels).
pub const MAX_DEPTH: usize = 128;

/// The 1-based line where `text` nests deeper than [`MAX_DEPTH`] levels of mappings and
/// sequences, or `None` when it does not (or is not YAML at all: its parser says why).
pub fn too_deep(text: &str) -> Option<usize> {
    let mut parser = Parser::new_from_str(text);
    let mut depth = 0usize;
    loop {
        match parser.next_token() {
            Ok((Event::StreamEnd, _)) => return None,
            Ok((Event::MappingStart(..) | Event::SequenceStart(..), mark)) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(mark.line());
                }
            }
            Ok((Event::MappingEnd | Event::SequenceEnd, _)) => depth = depth.saturating_sub(1),
            Ok(_) => {}
            // The parser's own guard against deep flow collections.
            Err(e) if e.info().contains("recursion limit") => return Some(e.marker().line()),
            Err(_) => return None,
        }
    }
}

/// What is said of text nested too deep.
pub fn too_deep_message() -> String {
    format!("nested deeper than {MAX_DEPTH} levels: refused unread")
}

/// `serde_yaml_ng::from_str`, refusing text nested deeper than [`MAX_DEPTH`] first.
pub fn from_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_yaml_ng::Error> {
    if let Some(line) = too_deep(text) {
        return Err(serde::de::Error::custom(format!(
            "line {line}: {}",
            too_deep_message()
        )));
    }
    serde_yaml_ng::from_str(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deep_flow(levels: usize) -> String {
        format!("a: 1\nb: {}{}\n", "[".repeat(levels), "]".repeat(levels))
    }

    fn deep_block(levels: usize) -> String {
        format!("a: 1\nb:\n  {}x\n", "- ".repeat(levels))
    }

    #[test]
    fn deep_flow_and_block_nesting_is_found_at_its_line() {
        assert_eq!(too_deep(&deep_flow(100_000)), Some(2));
        assert_eq!(too_deep(&deep_flow(129)), Some(2));
        assert_eq!(too_deep(&deep_block(100_000)), Some(3));
        assert_eq!(too_deep(&deep_flow(100)), None);
        assert_eq!(too_deep(&deep_block(100)), None);
        let json = format!("{{\n\"a\":\n{}{}}}", "[".repeat(1000), "]".repeat(1000));
        assert_eq!(too_deep(&json), Some(3));
        let err = from_str::<serde_yaml_ng::Value>(&deep_block(1000)).unwrap_err();
        assert!(
            err.to_string().contains("line 3: nested deeper than 128"),
            "{err}"
        );
    }

    #[test]
    fn ordinary_documents_and_syntax_errors_pass_through() {
        let text = include_str!("default-install-config.yaml");
        assert_eq!(too_deep(text), None);
        assert_eq!(too_deep("a: [\n"), None);
    }
}
