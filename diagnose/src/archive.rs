//! Opening a bundle archive by what its first bytes say it is (a tar archive, plain or
//! compressed with gzip or xz), whatever its name; and a reader that stops part way through a
//! file once a check of the bytes read so far says why (a bomb inside one entry).

use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

use flate2::read::GzDecoder;
use liblzma::read::XzDecoder;

/// A reader that counts the bytes that pass through it.
pub(crate) struct Counting<R> {
    pub(crate) inner: R,
    pub(crate) count: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// A tar stream, decompressed as its first bytes say.
pub(crate) enum TarStream<R: Read> {
    /// gzip (`1f 8b`): what the installer's gather script writes.
    Gzip(GzDecoder<R>),
    /// xz (`fd 37 7a 58 5a 00`).
    Xz(XzDecoder<R>),
    /// An uncompressed tar archive (`ustar` at byte 257).
    Plain(R),
}

impl<R: Read> Read for TarStream<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            TarStream::Gzip(r) => r.read(buf),
            TarStream::Xz(r) => r.read(buf),
            TarStream::Plain(r) => r.read(buf),
        }
    }
}

/// Bytes enough to tell the formats apart: a tar header's magic ends at byte 262.
const HEAD: usize = 512;

/// The first bytes of `reader` (fewer only at its end).
pub(crate) fn head(reader: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(HEAD);
    reader.take(HEAD as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// A reader whose first bytes were read already, put back in front.
pub(crate) type Rejoined<R> = io::Chain<io::Cursor<Vec<u8>>, R>;

/// The tar stream in `reader` whose first bytes are `head` (already read from it), or why it
/// is none.
pub(crate) fn open<R: Read>(head: Vec<u8>, reader: R) -> Result<TarStream<Rejoined<R>>, String> {
    let kind = if head.starts_with(&[0x1f, 0x8b]) {
        0
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        1
    } else if head.get(257..262) == Some(b"ustar") {
        2
    } else if head.is_empty() {
        return Err("the file is empty".into());
    } else {
        return Err("neither a tar archive nor one compressed with gzip or xz".into());
    };
    let whole = io::Cursor::new(head).chain(reader);
    Ok(match kind {
        0 => TarStream::Gzip(GzDecoder::new(whole)),
        1 => TarStream::Xz(XzDecoder::new(whole)),
        _ => TarStream::Plain(whole),
    })
}

/// A reader that fails, with the reason, as soon as `check` (given the bytes read through it so
/// far) finds one: the reading stops inside the file rather than after it.
pub(crate) struct Guarded<'a, R> {
    /// The reader guarded.
    pub(crate) inner: R,
    /// Bytes read through it.
    pub(crate) read: u64,
    /// Why the reading must stop, if it must.
    pub(crate) check: &'a dyn Fn(u64) -> Option<String>,
}

impl<R: Read> Read for Guarded<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        match (self.check)(self.read) {
            Some(reason) => Err(io::Error::other(reason)),
            None => Ok(n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tar_of(name: &str, contents: &[u8]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_gnu();
        header.set_size(contents.len() as u64);
        header.set_mode(0o644);
        builder.append_data(&mut header, name, contents).unwrap();
        builder.into_inner().unwrap()
    }

    fn names(bytes: &[u8]) -> Result<Vec<String>, String> {
        let mut reader = bytes;
        let head = head(&mut reader).unwrap();
        let mut archive = tar::Archive::new(open(head, reader)?);
        Ok(archive
            .entries()
            .unwrap()
            .map(|e| e.unwrap().path().unwrap().display().to_string())
            .collect())
    }

    #[test]
    fn plain_gzip_and_xz_archives_are_told_by_their_first_bytes() {
        use std::io::Write as _;
        let tar = tar_of("a/b.log", b"hello\n");
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gzip.write_all(&tar).unwrap();
        let gzip = gzip.finish().unwrap();
        let mut xz = Vec::new();
        liblzma::read::XzEncoder::new(&tar[..], 1)
            .read_to_end(&mut xz)
            .unwrap();
        for bytes in [&tar, &gzip, &xz] {
            assert_eq!(names(bytes).unwrap(), ["a/b.log"]);
        }
        assert!(names(b"").unwrap_err().contains("empty"));
        assert!(names(b"not an archive").unwrap_err().contains("neither"));
    }

    #[test]
    fn a_guarded_reader_stops_inside_the_stream() {
        let zeros = vec![0u8; 1 << 20];
        let check = |read: u64| (read > 1000).then(|| "too much".to_string());
        let mut guarded = Guarded {
            inner: &zeros[..],
            read: 0,
            check: &check,
        };
        let mut buf = [0u8; 600];
        assert!(guarded.read(&mut buf).is_ok());
        let err = guarded.read(&mut buf).unwrap_err();
        assert_eq!(err.to_string(), "too much");
    }
}
