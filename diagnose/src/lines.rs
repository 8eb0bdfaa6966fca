//! Reading text a line at a time with a bound on memory: a line longer than [`MAX_LINE`] bytes
//! keeps its first [`MAX_LINE`] bytes and the rest is skipped, so a file without newlines costs
//! no more than one short line.

use std::io::{self, BufRead};

/// The longest line kept, in bytes; the rest of a longer line is dropped.
pub(crate) const MAX_LINE: usize = 4096;

/// Calls `each` with every line of `reader` (without its newline, lossily decoded as UTF-8) and
/// its 1-based number, until the end or `limit` bytes. Returns the bytes read and whether the
/// limit cut the text short.
pub(crate) fn for_each_line(
    reader: &mut dyn BufRead,
    limit: u64,
    mut each: impl FnMut(u64, &str),
) -> io::Result<(u64, bool)> {
    let mut line = Vec::with_capacity(256);
    let mut number = 0u64;
    let mut total = 0u64;
    loop {
        if total >= limit {
            return Ok((total, true));
        }
        let (consumed, ended) = {
            let buf = match reader.fill_buf() {
                Ok(buf) => buf,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if buf.is_empty() {
                if !line.is_empty() {
                    number += 1;
                    each(number, &String::from_utf8_lossy(&line));
                }
                return Ok((total, false));
            }
            let newline = buf.iter().position(|&b| b == b'\n');
            let chunk = &buf[..newline.unwrap_or(buf.len())];
            let room = MAX_LINE.saturating_sub(line.len());
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            match newline {
                Some(at) => (at + 1, true),
                None => (buf.len(), false),
            }
        };
        reader.consume(consumed);
        total += consumed as u64;
        if ended {
            number += 1;
            let text = String::from_utf8_lossy(&line);
            each(number, text.trim_end_matches('\r'));
            line.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(text: &[u8], limit: u64) -> (Vec<(u64, String)>, bool) {
        let mut seen = Vec::new();
        let mut reader = io::BufReader::with_capacity(7, text);
        let (_, cut) = for_each_line(&mut reader, limit, |n, l| seen.push((n, l.to_string())))
            .unwrap_or_default();
        (seen, cut)
    }

    #[test]
    fn numbers_lines_and_keeps_a_last_line_without_newline() {
        let (seen, cut) = lines_of(b"one\r\ntwo\n\nthree", u64::MAX);
        assert!(!cut);
        let expected: Vec<(u64, String)> = vec![
            (1, "one".into()),
            (2, "two".into()),
            (3, String::new()),
            (4, "three".into()),
        ];
        assert_eq!(seen, expected);
    }

    #[test]
    fn a_long_line_is_cut_to_the_maximum() {
        let mut text = vec![b'x'; MAX_LINE * 3];
        text.extend_from_slice(b"\nafter\n");
        let (seen, _) = lines_of(&text, u64::MAX);
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0].1.len(), MAX_LINE);
        assert_eq!(seen[1], (2, "after".to_string()));
    }

    #[test]
    fn stops_at_the_limit_and_says_so() {
        let (seen, cut) = lines_of(b"aaaa\nbbbb\ncccc\n", 6);
        assert!(cut);
        assert_eq!(seen.len(), 1);
    }
}
