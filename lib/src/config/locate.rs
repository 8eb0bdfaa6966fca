//! Finds the line of a key path in a YAML document, so warnings and errors can say
//! "install-config.yaml:12" rather than just a field name.

use yaml_rust2::parser::{Event, Parser};

/// One step of a path into a YAML document.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A mapping key.
    Key(String),
    /// A sequence index.
    Index(usize),
}

/// Returns the 1-based line where `path` starts in `text`, or `None` if it is not there
/// (or the text does not parse).
pub fn line_of(text: &str, path: &[Step]) -> Option<usize> {
    let mut parser = Parser::new_from_str(text);
    // Skip to the first node of the first document.
    loop {
        let (event, _) = parser.next_token().ok()?;
        match event {
            Event::StreamStart | Event::DocumentStart => continue,
            Event::MappingStart(..) => return find_in_mapping(&mut parser, path),
            Event::SequenceStart(..) => return find_in_sequence(&mut parser, path),
            _ => return None,
        }
    }
}

fn find_in_mapping(parser: &mut Parser<std::str::Chars<'_>>, path: &[Step]) -> Option<usize> {
    loop {
        let (key, mark) = parser.next_token().ok()?;
        let key = match key {
            Event::MappingEnd => return None,
            Event::Scalar(s, ..) => s,
            _ => {
                skip_value_started(parser, &key)?;
                skip_node(parser)?;
                continue;
            }
        };
        if let Some(Step::Key(wanted)) = path.first() {
            if *wanted == key {
                if path.len() == 1 {
                    return Some(mark.line());
                }
                return descend(parser, &path[1..]);
            }
        }
        skip_node(parser)?;
    }
}

fn find_in_sequence(parser: &mut Parser<std::str::Chars<'_>>, path: &[Step]) -> Option<usize> {
    let mut index = 0;
    loop {
        let (event, mark) = parser.next_token().ok()?;
        if matches!(event, Event::SequenceEnd) {
            return None;
        }
        if let Some(Step::Index(wanted)) = path.first() {
            if *wanted == index {
                if path.len() == 1 {
                    return Some(mark.line());
                }
                return match event {
                    Event::MappingStart(..) => find_in_mapping(parser, &path[1..]),
                    Event::SequenceStart(..) => find_in_sequence(parser, &path[1..]),
                    _ => None,
                };
            }
        }
        skip_value_started(parser, &event)?;
        index += 1;
    }
}

fn descend(parser: &mut Parser<std::str::Chars<'_>>, path: &[Step]) -> Option<usize> {
    let (event, _) = parser.next_token().ok()?;
    match event {
        Event::MappingStart(..) => find_in_mapping(parser, path),
        Event::SequenceStart(..) => find_in_sequence(parser, path),
        _ => None,
    }
}

/// Skips one whole node (the next one the parser yields).
fn skip_node(parser: &mut Parser<std::str::Chars<'_>>) -> Option<()> {
    let (event, _) = parser.next_token().ok()?;
    skip_value_started(parser, &event)
}

/// Having read `event`, skips the rest of its node.
fn skip_value_started(parser: &mut Parser<std::str::Chars<'_>>, event: &Event) -> Option<()> {
    let mut depth = match event {
        Event::MappingStart(..) | Event::SequenceStart(..) => 1usize,
        _ => return Some(()),
    };
    while depth > 0 {
        let (event, _) = parser.next_token().ok()?;
        match event {
            Event::MappingStart(..) | Event::SequenceStart(..) => depth += 1,
            Event::MappingEnd | Event::SequenceEnd => depth -= 1,
            Event::StreamEnd => return None,
            _ => {}
        }
    }
    Some(())
}

/// Parses a serde_ignored/field path such as `networking.clusterNetwork.0.foo` into steps.
pub fn parse_dotted(path: &str) -> Vec<Step> {
    path.split('.')
        .filter(|s| !s.is_empty() && *s != "?")
        .map(|s| match s.parse::<usize>() {
            Ok(i) => Step::Index(i),
            Err(_) => Step::Key(s.to_string()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "apiVersion: v1\nmetadata:\n  name: x\nnetworking:\n  clusterNetwork:\n  - cidr: 10.0.0.0/14\n    hostPrefix: 23\n  - cidr: fd01::/48\n    bogus: 1\n";

    #[test]
    fn finds_nested_keys_and_sequence_items() {
        assert_eq!(line_of(DOC, &parse_dotted("metadata.name")), Some(3));
        assert_eq!(
            line_of(DOC, &parse_dotted("networking.clusterNetwork.1.bogus")),
            Some(9)
        );
        assert_eq!(
            line_of(DOC, &parse_dotted("networking.clusterNetwork.1")),
            Some(8)
        );
        assert_eq!(line_of(DOC, &parse_dotted("nothere")), None);
    }
}
