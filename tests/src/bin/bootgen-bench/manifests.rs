//! User manifests for the scale and patch benchmarks: valid YAML ConfigMaps of about 10 KiB,
//! each with different data (so nothing about them is uniform enough to flatter a compressor or
//! a cache).

use std::fmt::Write as _;
use std::path::Path;

use crate::Result;

/// The size each manifest is padded to.
pub const MANIFEST_BYTES: usize = 10 * 1024;

/// A small deterministic generator (xorshift64*): varied data, the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn text(&mut self, out: &mut String, len: usize) {
        const ALPHABET: &[u8] =
            b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.";
        for _ in 0..len {
            let i = (self.next() % ALPHABET.len() as u64) as usize;
            out.push(char::from(ALPHABET[i]));
        }
    }
}

/// One ConfigMap: quoted values and literal blocks of varying lengths, about
/// [`MANIFEST_BYTES`] long.
fn manifest(index: usize, rng: &mut Rng) -> Result<String> {
    let mut s = String::with_capacity(MANIFEST_BYTES + 256);
    writeln!(
        s,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bench-{index:05}\n  namespace: bootgen-bench\n  labels:\n    app.kubernetes.io/part-of: bootgen-bench\n    bench.example.com/index: \"{index}\"\ndata:"
    )?;
    let mut key = 0;
    while s.len() < MANIFEST_BYTES - 160 {
        let len = 40 + (rng.next() % 100) as usize;
        if key % 7 == 3 {
            writeln!(s, "  block-{key:03}.conf: |")?;
            for _ in 0..3 {
                // A letter first: a leading space would change the block's indentation.
                s.push_str("    L");
                rng.text(&mut s, len / 3);
                s.push('\n');
            }
        } else {
            write!(s, "  key-{key:03}: \"")?;
            rng.text(&mut s, len);
            s.push_str("\"\n");
        }
        key += 1;
    }
    write!(s, "  padding: \"")?;
    let pad = MANIFEST_BYTES.saturating_sub(s.len() + 2);
    rng.text(&mut s, pad);
    s.push_str("\"\n");
    Ok(s)
}

/// Writes `count` manifests into `dir` (created); returns their total size in bytes.
pub fn write_manifests(dir: &Path, count: usize) -> Result<u64> {
    std::fs::create_dir_all(dir)?;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ count as u64);
    let mut total = 0;
    for index in 0..count {
        let text = manifest(index, &mut rng)?;
        total += text.len() as u64;
        std::fs::write(dir.join(format!("bench-{index:05}.yaml")), text)?;
    }
    Ok(total)
}
