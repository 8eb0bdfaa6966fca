//! The size a config takes embedded in a live ISO: `config.ign` in a newc cpio archive
//! compressed with xz, as `coreos-installer iso ignition embed` writes it.

/// Configs up to this size are xz-compressed to judge the live ISO embed area.
pub const XZ_ESTIMATE_LIMIT: u64 = 8 * 1024 * 1024;

/// The size of `bytes` embedded in a live ISO, for a config up to [`XZ_ESTIMATE_LIMIT`]: xz's
/// memory grows with its input, and a huge config is not compressed just to say that it does
/// not fit.
pub(crate) fn iso_estimate(bytes: &[u8]) -> Option<u64> {
    (bytes.len() as u64 <= XZ_ESTIMATE_LIMIT).then(|| xz_cpio_size(bytes))
}

/// The size of `config.ign` holding `bytes` in a newc cpio archive compressed with xz, as
/// `coreos-installer iso ignition embed` writes it (preset 9, CRC32 check).
pub fn xz_cpio_size(bytes: &[u8]) -> u64 {
    xz_cpio(bytes).map_or(bytes.len() as u64, |xz| xz.len() as u64)
}

pub(super) fn xz_cpio(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let mut options = liblzma::stream::LzmaOptions::new_preset(9)?;
    options.dict_size(xz_window(bytes.len() as u64));
    let mut filters = liblzma::stream::Filters::new();
    filters.lzma2(&options);
    let stream =
        liblzma::stream::Stream::new_stream_encoder(&filters, liblzma::stream::Check::Crc32)?;
    let encoder = liblzma::write::XzEncoder::new_stream(Vec::new(), stream);
    let size = u32::try_from(bytes.len()).map_err(|_| std::io::ErrorKind::InvalidInput)?;
    let mut entry = cpio::newc::Builder::new("config.ign")
        .mode(0o100644)
        .nlink(1)
        .write(encoder, size);
    entry.write_all(bytes)?;
    cpio::newc::trailer(entry.finish()?)?.finish()
}

/// Configs up to this size are compressed exactly as `xz -9` does; above it, the estimate
/// looks back a window of an eighth of the config, at least 128 KiB.
pub const XZ_EXACT_LIMIT: u64 = 512 * 1024;

/// The LZMA dictionary of the estimate for a config of `size` bytes. Preset 9's dictionary is
/// 64 MiB, and its encoder needs about 15 bytes of memory per byte of dictionary in use (a
/// binary tree, hash tables and the window) plus 64 MiB of hash table it clears whatever the
/// input: `bootgen inspect` peaked at 73 MiB for a 263-byte config, 110 MiB for 1.4 MiB. A
/// dictionary at least as
/// large as the input gives the same archive as preset 9 (nothing is farther back than the
/// start), so configs up to [`XZ_EXACT_LIMIT`] get the smallest such power of two above the
/// archive's size and exactly
/// coreos-installer's size. A larger config gets a window of an eighth of its size, at least
/// 128 KiB (a power of two: the encoder needs about 15 bytes per byte of window, so at most
/// twice the config's size): matches farther back than that are not found, so the estimate
/// differs from the real archive by some 10%, either way (21.7 KiB instead of 19.9 KiB for a
/// config of 20,000 small files, 48.8 KiB instead of 55.9 KiB for 50,000).
pub(super) fn xz_window(size: u64) -> u32 {
    const MIN: u64 = 4096;
    let window = if size <= XZ_EXACT_LIMIT {
        // The cpio archive is the config plus a header and a trailer of a few hundred bytes.
        (size + 1024).max(MIN).next_power_of_two()
    } else {
        let eighth = (size / 8).max(128 * 1024);
        1 << eighth.ilog2()
    };
    window.min(64 * 1024 * 1024) as u32
}
