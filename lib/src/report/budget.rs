//! The size budget: a config's size against the user-data limits people hit (AWS 16 KiB first),
//! with the way out when it does not fit: host the config and boot from a pointer config.
//!
//! Each channel says which install-config platforms boot through it ([`channels_for`]), so a
//! generated config is judged only against what can carry it; a config of unknown origin
//! (`bootgen inspect`) against every channel ([`SizeBudget::of_config`]).

use serde::Serialize;
use std::fmt;

/// How a channel carries the config, which decides the size that counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Carriage {
    /// The config's bytes as they are.
    Raw,
    /// Base64-encoded, as a VM property holds it (vSphere's `guestinfo.ignition.config.data`
    /// with `.encoding` `base64`): four bytes for every three.
    Base64,
    /// `coreos-installer iso ignition embed`: the config as `config.ign` in a cpio archive,
    /// xz-compressed, written into the ISO's reserved area.
    XzCpio,
    /// Fetched by the node over the network (PXE or HTTP: `coreos.inst.ignition_url`,
    /// `ignition.config.url`): no limit.
    Fetched,
}

/// One place a config is passed through, and its limit in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Channel {
    /// Where, e.g. `AWS user data`.
    pub name: &'static str,
    /// The limit in bytes; `None` for a channel without one.
    pub limit: Option<u64>,
    /// What counts against the limit.
    pub carriage: Carriage,
    /// The install-config platforms (the key under `platform`) whose nodes boot through it.
    #[serde(skip)]
    pub platforms: &'static [&'static str],
}

impl Channel {
    /// Whether a node of `platform` can get its config through this channel.
    pub fn applies_to(&self, platform: &str) -> bool {
        self.platforms.contains(&platform)
    }
}

/// The limits users hit: AWS 16 KiB, Azure and OpenStack 64 KiB, GCP 256 KiB, a vSphere VM
/// property 64 KiB (base64), and the live ISO's embed area of 256 KiB (which holds the config
/// compressed); and PXE/HTTP, which has none. The cloud limits apply on their own platform only; the live ISO and PXE/HTTP are
/// how a node of platform `none` boots.
pub const CHANNELS: &[Channel] = &[
    Channel {
        name: "AWS user data",
        limit: Some(16 * 1024),
        carriage: Carriage::Raw,
        platforms: &["aws"],
    },
    Channel {
        name: "Azure custom data",
        limit: Some(64 * 1024),
        carriage: Carriage::Raw,
        platforms: &["azure"],
    },
    Channel {
        name: "OpenStack user data",
        limit: Some(64 * 1024),
        carriage: Carriage::Raw,
        platforms: &["openstack"],
    },
    Channel {
        name: "GCP metadata",
        limit: Some(256 * 1024),
        carriage: Carriage::Raw,
        platforms: &["gcp"],
    },
    // One guestinfo value is at most 64 KiB (the VMX's guest message limit), base64 included:
    // a bootstrap config never fits, the pointer configs do.
    Channel {
        name: "vSphere guestinfo",
        limit: Some(64 * 1024),
        carriage: Carriage::Base64,
        platforms: &["vsphere"],
    },
    Channel {
        name: "live ISO embed area",
        limit: Some(256 * 1024),
        carriage: Carriage::XzCpio,
        platforms: &["none"],
    },
    Channel {
        name: "PXE/HTTP",
        limit: None,
        carriage: Carriage::Fetched,
        platforms: &["none"],
    },
];

/// The channels a node of `platform` (the install-config's `platform` key) gets its config
/// through, in [`CHANNELS`] order.
pub fn channels_for(platform: &str) -> impl Iterator<Item = &'static Channel> + '_ {
    CHANNELS.iter().filter(move |c| c.applies_to(platform))
}

/// What gets the config into a channel it does not fit as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WayOut {
    /// It fits as it is.
    None,
    /// Gzipping file contents (`PassOptions::compress`) makes it fit.
    Compress,
    /// Only a small pointer config fits: serve the config over HTTPS.
    Pointer,
}

/// One channel's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BudgetLine {
    /// The channel.
    #[serde(flatten)]
    pub channel: Channel,
    /// The size that counts against this channel's limit.
    pub counted: u64,
    /// Whether the config fits.
    pub fits: bool,
    /// What makes it fit, when it does not.
    pub way_out: WayOut,
}

/// The size budget of one config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SizeBudget {
    /// The config's size in bytes, as it would be passed.
    pub size: u64,
    /// The size embedded in a live ISO: `config.ign` in a cpio archive, xz-compressed; `None`
    /// for a config over [`XZ_ESTIMATE_LIMIT`], whose raw size is counted instead.
    pub iso_embedded: Option<u64>,
    /// The size with file contents gzipped (`PassOptions::compress`), when known and smaller.
    pub compressed: Option<u64>,
    /// One line per channel.
    pub channels: Vec<BudgetLine>,
}

/// Configs up to this size are xz-compressed to judge the live ISO embed area.
pub const XZ_ESTIMATE_LIMIT: u64 = 8 * 1024 * 1024;

/// A pointer config (spec 3.2.0, one URL, one SHA-512, a CA) stays under this, which every
/// channel takes.
const POINTER_SIZE: u64 = 4 * 1024;

impl SizeBudget {
    /// Checks the config's bytes against every channel; `compressed` is the size the same
    /// config has with `PassOptions::compress`, when the caller knows it.
    pub fn of_config(bytes: &[u8], compressed: Option<u64>) -> SizeBudget {
        SizeBudget::of_sizes(bytes.len() as u64, iso_estimate(bytes), compressed)
    }

    /// The budget of a config of `size` bytes against the channels of `platform` only
    /// ([`channels_for`]). `iso_embedded` is its [`xz_cpio_size`] (`None` over
    /// [`XZ_ESTIMATE_LIMIT`]) and `compressed` its size with `PassOptions::compress`: each
    /// is read only when a channel of the platform counts it ([`SizeBudget::counts`]), so a
    /// caller works out only those.
    pub fn for_platform(
        platform: &str,
        size: u64,
        iso_embedded: Option<u64>,
        compressed: Option<u64>,
    ) -> SizeBudget {
        let carried = |carriage| SizeBudget::counts(platform, carriage);
        SizeBudget::of_channels(
            channels_for(platform),
            size,
            iso_embedded.filter(|_| carried(Carriage::XzCpio)),
            compressed.filter(|_| carried(Carriage::Raw)),
        )
    }

    /// Whether a budget for `platform` counts a size carried this way: the live-ISO estimate
    /// is needed only for [`Carriage::XzCpio`], the gzipped size only for a limited
    /// [`Carriage::Raw`] (or [`Carriage::Base64`]) channel.
    pub fn counts(platform: &str, carriage: Carriage) -> bool {
        let same = |c: Carriage| match carriage {
            Carriage::Raw => matches!(c, Carriage::Raw | Carriage::Base64),
            other => c == other,
        };
        channels_for(platform).any(|c| same(c.carriage) && c.limit.is_some())
    }

    /// [`SizeBudget::of_config`] from the config's size and its [`iso_estimate`].
    pub(crate) fn of_sizes(
        size: u64,
        iso_embedded: Option<u64>,
        compressed: Option<u64>,
    ) -> SizeBudget {
        SizeBudget::of_channels(CHANNELS.iter(), size, iso_embedded, compressed)
    }

    fn of_channels<'c>(
        channels: impl Iterator<Item = &'c Channel>,
        size: u64,
        iso_embedded: Option<u64>,
        compressed: Option<u64>,
    ) -> SizeBudget {
        let compressed = compressed.filter(|c| *c < size);
        let channels = channels
            .map(|c| {
                let counted = match c.carriage {
                    Carriage::Raw | Carriage::Fetched => size,
                    Carriage::Base64 => base64_size(size),
                    Carriage::XzCpio => iso_embedded.unwrap_or(size),
                };
                let fits = c.limit.is_none_or(|limit| counted <= limit);
                // The embed area already compresses the whole config harder than gzip would.
                let compress_fits = match c.carriage {
                    Carriage::Raw => compressed,
                    Carriage::Base64 => compressed.map(base64_size),
                    _ => None,
                }
                .is_some_and(|bytes| c.limit.is_none_or(|limit| bytes <= limit));
                let way_out = if fits {
                    WayOut::None
                } else if compress_fits {
                    WayOut::Compress
                } else {
                    WayOut::Pointer
                };
                BudgetLine {
                    channel: *c,
                    counted,
                    fits,
                    way_out,
                }
            })
            .collect();
        SizeBudget {
            size,
            iso_embedded,
            compressed,
            channels,
        }
    }

    /// The budget of a config that only ever travels embedded in a live ISO (a single node's
    /// `bootstrap-in-place-for-live-iso.ign`): the embed area alone counts, and gzipping its
    /// files is not offered, since the area's xz compresses the config better without it
    /// (gzip inside xz makes the embedded archive bigger).
    pub fn live_iso_only(mut self) -> SizeBudget {
        self.channels
            .retain(|line| line.channel.carriage == Carriage::XzCpio);
        self.compressed = None;
        self
    }

    /// True when some channel is too small.
    pub fn needs_pointer(&self) -> bool {
        self.channels.iter().any(|c| c.way_out == WayOut::Pointer)
    }
}

/// The length of `size` bytes in padded base64.
fn base64_size(size: u64) -> u64 {
    size.div_ceil(3) * 4
}

/// The size of `bytes` embedded in a live ISO, for a config up to [`XZ_ESTIMATE_LIMIT`]: xz's
/// memory grows with its input, and a huge config is not compressed just to say that it does
/// not fit.
pub(crate) fn iso_estimate(bytes: &[u8]) -> Option<u64> {
    (bytes.len() as u64 <= XZ_ESTIMATE_LIMIT).then(|| xz_cpio_size(bytes))
}

/// The size `doc` would have with `PassOptions::compress` (worked out file by file, without a
/// copy of the config), when anything would shrink.
pub fn compressed_size(doc: &crate::ignition::IgnitionDoc) -> Option<u64> {
    let saving = crate::passes::compress_saving(doc)?;
    Some(doc.serialized_len().saturating_sub(saving))
}

/// The size of `config.ign` holding `bytes` in a newc cpio archive compressed with xz, as
/// `coreos-installer iso ignition embed` writes it (preset 9, CRC32 check).
pub fn xz_cpio_size(bytes: &[u8]) -> u64 {
    xz_cpio(bytes).map_or(bytes.len() as u64, |xz| xz.len() as u64)
}

fn xz_cpio(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
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
fn xz_window(size: u64) -> u32 {
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

/// `12.3 KiB`, or bytes below 1 KiB.
pub fn human_size(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    }
}

impl fmt::Display for SizeBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let embedded = self
            .channels
            .iter()
            .any(|line| line.channel.carriage == Carriage::XzCpio);
        writeln!(
            f,
            "size budget: the config is {} ({} bytes){}{}",
            human_size(self.size),
            self.size,
            self.compressed
                .map(|c| format!(", {} with its files gzipped", human_size(c)))
                .unwrap_or_default(),
            if embedded {
                format!(
                    "; in a live ISO (xz-compressed cpio) {}",
                    self.iso_embedded.map_or_else(
                        || format!("not estimated (over {})", human_size(XZ_ESTIMATE_LIMIT)),
                        human_size
                    )
                )
            } else {
                String::new()
            },
        )?;
        for line in &self.channels {
            let verdict = match line.channel.limit {
                None => "no limit (the node fetches the config)".to_string(),
                Some(limit) if line.fits => {
                    format!("fits ({} left)", human_size(limit - line.counted))
                }
                Some(limit) => {
                    let how = match line.way_out {
                        WayOut::Compress => "; fits with its files gzipped",
                        _ => "; needs a pointer config",
                    };
                    format!(
                        "does not fit ({} over{how})",
                        human_size(line.counted - limit)
                    )
                }
            };
            let counted = match line.channel.carriage {
                Carriage::Raw | Carriage::Fetched => String::new(),
                Carriage::Base64 => format!(" (base64: {})", human_size(line.counted)),
                Carriage::XzCpio => {
                    format!(" (embedded xz-compressed: {})", human_size(line.counted))
                }
            };
            writeln!(
                f,
                "  {:<20} {:>9}  {verdict}{counted}",
                line.channel.name,
                line.channel
                    .limit
                    .map_or_else(|| "-".to_string(), human_size)
            )?;
        }
        if self.needs_pointer() {
            writeln!(
                f,
                "  where it does not fit, serve the config over HTTPS and boot from a small pointer config (under {}) that fetches it",
                human_size(POINTER_SIZE)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Up to [`XZ_EXACT_LIMIT`], the smaller dictionary gives exactly what `xz -9` (preset 9,
    /// as coreos-installer compresses) gives.
    #[test]
    fn the_estimate_is_exact_up_to_the_limit() {
        fn preset_9(bytes: &[u8]) -> u64 {
            use std::io::Write;
            let check = liblzma::stream::Check::Crc32;
            let stream = liblzma::stream::Stream::new_easy_encoder(9, check).unwrap();
            let encoder = liblzma::write::XzEncoder::new_stream(Vec::new(), stream);
            let mut entry = cpio::newc::Builder::new("config.ign")
                .mode(0o100644)
                .nlink(1)
                .write(encoder, bytes.len() as u32);
            entry.write_all(bytes).unwrap();
            let xz = cpio::newc::trailer(entry.finish().unwrap()).unwrap();
            xz.finish().unwrap().len() as u64
        }
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n".repeat(11000);
        for bytes in [
            incompressible(100),
            incompressible(300 * 1024),
            text.as_bytes()[..XZ_EXACT_LIMIT as usize].to_vec(),
        ] {
            assert_eq!(xz_cpio_size(&bytes), preset_9(&bytes), "{}", bytes.len());
        }
        assert_eq!(xz_window(100), 4096);
        assert_eq!(xz_window(XZ_EXACT_LIMIT), 1024 * 1024);
        assert_eq!(xz_window(1_500_000), 128 * 1024);
        assert_eq!(xz_window(3_717_977), 256 * 1024);
        assert_eq!(xz_window(XZ_ESTIMATE_LIMIT), 1024 * 1024);
    }

    /// A config of `size` bytes that compresses about as well as random text does not.
    fn incompressible(size: usize) -> Vec<u8> {
        let mut state = 0x2545_f491_u32;
        (0..size)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                b'!' + (state % 90) as u8
            })
            .collect()
    }

    #[test]
    fn says_where_it_fits_and_what_makes_it_fit() {
        let small = SizeBudget::of_config(&incompressible(1000), None);
        assert!(!small.needs_pointer());
        assert!(!small.to_string().contains("pointer config"));
        // 20 KiB that gzip brings to 10 KiB: AWS takes it compressed, the rest as it is.
        let medium = SizeBudget::of_config(&incompressible(20 * 1024), Some(10 * 1024));
        let ways: Vec<WayOut> = medium.channels.iter().map(|c| c.way_out).collect();
        let fits = WayOut::None;
        assert_eq!(
            ways,
            vec![WayOut::Compress, fits, fits, fits, fits, fits, fits]
        );
        let text = medium.to_string();
        assert!(
            text.contains("does not fit (4.0 KiB over; fits with its files gzipped)"),
            "{text}"
        );
        assert!(!text.contains("pointer config"), "{text}");
        // Without a smaller compressed form, only a pointer helps.
        let stuck = SizeBudget::of_config(&incompressible(20 * 1024), Some(19 * 1024));
        assert_eq!(stuck.channels[0].way_out, WayOut::Pointer);
        assert!(stuck
            .to_string()
            .contains("boot from a small pointer config"));
    }

    #[test]
    fn the_live_iso_counts_the_compressed_archive() {
        // 400 KiB of repetitive text: far over 256 KiB raw, a few KiB once xz-compressed.
        let text = "apiVersion: v1\nkind: ConfigMap\n".repeat(400 * 1024 / 30);
        let budget = SizeBudget::of_config(text.as_bytes(), None);
        let iso = &budget.channels[5];
        assert_eq!(iso.channel.carriage, Carriage::XzCpio);
        assert!(iso.fits, "{budget}");
        assert!(budget.iso_embedded.unwrap() < 16 * 1024, "{budget}");
        assert!(!budget.channels[3].fits);
        // Random bytes do not compress: over the area even compressed.
        let noise = SizeBudget::of_config(&incompressible(400 * 1024), None);
        assert!(!noise.channels[5].fits);
        assert!(noise.iso_embedded.unwrap() > 256 * 1024);
        assert_eq!(human_size(2 * 1024 * 1024), "2.0 MiB");
    }

    /// A generated config is judged against the channels of its platform only, and the sizes
    /// no such channel counts are neither needed nor shown.
    #[test]
    fn a_platform_gets_its_own_channels() {
        let size = 300 * 1024;
        let none = SizeBudget::for_platform("none", size, Some(30 * 1024), Some(100 * 1024));
        let names: Vec<&str> = none.channels.iter().map(|l| l.channel.name).collect();
        let expected: Vec<&str> = CHANNELS
            .iter()
            .filter(|c| c.platforms.contains(&"none"))
            .map(|c| c.name)
            .collect();
        assert_eq!(names, expected);
        assert_eq!(names.len(), 2, "{none}");
        assert!(none.channels.iter().all(|l| l.fits), "{none}");
        // No limited raw channel on platform none: the gzipped size is not shown.
        assert_eq!(none.compressed, None);
        let text = none.to_string();
        assert!(
            text.contains("in a live ISO (xz-compressed cpio) 30.0 KiB"),
            "{text}"
        );
        assert!(text.contains("no limit"), "{text}");
        assert!(!text.contains("AWS") && !text.contains("gzipped"), "{text}");
        assert!(SizeBudget::counts("none", Carriage::XzCpio));
        assert!(!SizeBudget::counts("none", Carriage::Raw));

        let aws = SizeBudget::for_platform("aws", size, Some(30 * 1024), Some(10 * 1024));
        assert_eq!(aws.channels.len(), 1);
        assert_eq!(aws.channels[0].way_out, WayOut::Compress);
        assert_eq!(aws.iso_embedded, None);
        assert!(!aws.to_string().contains("live ISO"), "{aws}");
        assert!(!SizeBudget::counts("aws", Carriage::XzCpio));
        // A platform without a channel here gets an empty table, and needs nothing computed.
        assert!(SizeBudget::for_platform("external", size, None, None)
            .channels
            .is_empty());
        // Every channel applies somewhere.
        assert!(CHANNELS.iter().all(|c| !c.platforms.is_empty()));
    }

    #[test]
    fn a_vsphere_vm_property_holds_a_pointer_config_not_a_bootstrap_config() {
        assert!(SizeBudget::counts("vsphere", Carriage::Raw));
        // 48 KiB is 64 KiB in base64: it just fits; one byte more does not.
        let fits = SizeBudget::for_platform("vsphere", 48 * 1024, None, None);
        assert!(fits.channels[0].fits, "{fits}");
        let bootstrap = SizeBudget::for_platform("vsphere", 48 * 1024 + 1, None, None);
        let line = &bootstrap.channels[0];
        assert_eq!(line.channel.name, "vSphere guestinfo");
        assert!(!line.fits);
        assert_eq!(line.way_out, WayOut::Pointer);
        let text = bootstrap.to_string();
        assert!(text.contains("vSphere guestinfo"), "{text}");
        assert!(text.contains("needs a pointer config"), "{text}");
        assert!(text.contains("(base64: 64.0 KiB)"), "{text}");
        let gzipped = SizeBudget::for_platform("vsphere", 200 * 1024, None, Some(40 * 1024));
        assert_eq!(gzipped.channels[0].way_out, WayOut::Compress, "{gzipped}");
    }

    /// The archive is what coreos-installer's initrd reader sees: one `config.ign`, intact.
    #[test]
    fn the_embedded_archive_holds_the_config() {
        use std::io::Read;
        let config = br#"{"ignition":{"version":"3.2.0"}}"#;
        let xz = xz_cpio(config).unwrap();
        assert_eq!(xz_cpio_size(config), xz.len() as u64);
        let mut archive = Vec::new();
        liblzma::read::XzDecoder::new(&xz[..])
            .read_to_end(&mut archive)
            .unwrap();
        let mut reader = cpio::newc::Reader::new(&archive[..]).unwrap();
        assert_eq!(reader.entry().name(), "config.ign");
        assert_eq!(reader.entry().mode(), 0o100644);
        let mut read_back = Vec::new();
        reader.read_to_end(&mut read_back).unwrap();
        assert_eq!(read_back, config);
        let rest = reader.finish().unwrap();
        assert!(cpio::newc::Reader::new(rest).unwrap().entry().is_trailer());
    }

    /// A live-ISO config is judged by the embed area only: no cloud user-data limit, and no
    /// gzip, which makes the embedded archive bigger rather than smaller.
    #[test]
    fn a_live_iso_config_is_judged_by_the_embed_area_only() {
        use std::io::Write;
        // Text that gzip shrinks a lot and xz more: the shape of a real config's scripts.
        let text = (0..6000)
            .map(|i| format!("line {i}: kubelet --node-ip=10.0.{}.{}\n", i % 7, i % 251))
            .collect::<String>();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(text.as_bytes()).unwrap();
        let gzipped = gz.finish().unwrap();
        // Gzip inside xz: bigger embedded than the plain text embedded.
        assert!(xz_cpio_size(&gzipped) > xz_cpio_size(text.as_bytes()));

        let everywhere = SizeBudget::of_config(text.as_bytes(), Some(gzipped.len() as u64));
        assert!(everywhere
            .channels
            .iter()
            .any(|c| c.way_out == WayOut::Compress));
        let live_iso = everywhere.live_iso_only();
        let names: Vec<&str> = live_iso.channels.iter().map(|c| c.channel.name).collect();
        assert_eq!(names, ["live ISO embed area"]);
        assert!(live_iso
            .channels
            .iter()
            .all(|c| c.way_out != WayOut::Compress));
        let shown = live_iso.to_string();
        assert!(!shown.contains("gzip") && !shown.contains("AWS"), "{shown}");
    }
}
