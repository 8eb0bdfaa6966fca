//! How much of a bundle is read: the bounds that stop an archive bomb.

/// How much of a bundle is read before the report is made from what came before. The defaults
/// read any real log bundle whole and stop an archive bomb in seconds.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Uncompressed bytes read in all.
    pub max_total_bytes: u64,
    /// Bytes read of one file.
    pub max_file_bytes: u64,
    /// Bytes of one service record file (it is parsed whole).
    pub max_records_bytes: u64,
    /// Archive entries.
    pub max_entries: u64,
    /// Uncompressed to compressed bytes; above it the archive is taken for a bomb...
    pub max_ratio: u64,
    /// ...once this many uncompressed bytes were read.
    pub ratio_applies_after: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_total_bytes: 32 << 30,
            max_file_bytes: 4 << 30,
            max_records_bytes: 16 << 20,
            max_entries: 500_000,
            max_ratio: 200,
            ratio_applies_after: 256 << 20,
        }
    }
}
