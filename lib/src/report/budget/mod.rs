//! The size budget: a config's size against the user-data limits people hit (AWS 16 KiB first),
//! with the way out when it does not fit: host the config and boot from a pointer config.
//!
//! Each channel says which install-config platforms boot through it ([`channels_for`]), so a
//! generated config is judged only against what can carry it; a config of unknown origin
//! (`bootgen inspect`) against every channel ([`SizeBudget::of_config`]).

mod live_iso;

pub(crate) use live_iso::iso_estimate;
pub use live_iso::{xz_cpio_size, XZ_ESTIMATE_LIMIT, XZ_EXACT_LIMIT};

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

/// The size `doc` would have with `PassOptions::compress` (worked out file by file, without a
/// copy of the config), when anything would shrink.
pub fn compressed_size(doc: &crate::ignition::IgnitionDoc) -> Option<u64> {
    let saving = crate::passes::compress_saving(doc)?;
    Some(doc.serialized_len().saturating_sub(saving))
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
mod tests;
