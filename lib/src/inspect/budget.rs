//! The size budget: a config's size against the user-data limits people hit (AWS 16 KiB first),
//! with the way out when it does not fit: host the config and boot from a pointer config.

use serde::Serialize;
use std::fmt;

/// One place a config is passed through, and its limit in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Channel {
    /// Where, e.g. `AWS user data`.
    pub name: &'static str,
    /// The limit in bytes.
    pub limit: u64,
}

/// The limits users hit: AWS 16 KiB, Azure and OpenStack 64 KiB, GCP 256 KiB, and the
/// live ISO's embed area of 256 KiB.
pub const CHANNELS: &[Channel] = &[
    Channel {
        name: "AWS user data",
        limit: 16 * 1024,
    },
    Channel {
        name: "Azure custom data",
        limit: 64 * 1024,
    },
    Channel {
        name: "OpenStack user data",
        limit: 64 * 1024,
    },
    Channel {
        name: "GCP metadata",
        limit: 256 * 1024,
    },
    Channel {
        name: "live ISO embed area",
        limit: 256 * 1024,
    },
];

/// One channel's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BudgetLine {
    /// The channel.
    #[serde(flatten)]
    pub channel: Channel,
    /// Whether the config fits.
    pub fits: bool,
}

/// The size budget of one config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SizeBudget {
    /// The config's size in bytes, as it would be passed.
    pub size: u64,
    /// One line per channel.
    pub channels: Vec<BudgetLine>,
}

impl SizeBudget {
    /// Checks `size` bytes against every channel.
    pub fn of(size: u64) -> SizeBudget {
        SizeBudget {
            size,
            channels: CHANNELS
                .iter()
                .map(|c| BudgetLine {
                    channel: *c,
                    fits: size <= c.limit,
                })
                .collect(),
        }
    }

    /// True when some channel is too small.
    pub fn needs_pointer(&self) -> bool {
        self.channels.iter().any(|c| !c.fits)
    }
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
        writeln!(
            f,
            "size budget: the config is {} ({} bytes)",
            human_size(self.size),
            self.size
        )?;
        for line in &self.channels {
            let verdict = if line.fits {
                format!("fits ({} left)", human_size(line.channel.limit - self.size))
            } else {
                format!(
                    "does not fit ({} over)",
                    human_size(self.size - line.channel.limit)
                )
            };
            writeln!(
                f,
                "  {:<20} {:>9}  {verdict}",
                line.channel.name,
                human_size(line.channel.limit)
            )?;
        }
        if self.needs_pointer() {
            writeln!(
                f,
                "  where it does not fit, serve the config over HTTPS and pass a small pointer config instead:\n    bootgen pointer --url https://HOST/bootstrap.ign [--ca CA.pem] bootstrap.ign -o pointer.ign"
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_where_it_fits_and_suggests_a_pointer() {
        let small = SizeBudget::of(1000);
        assert!(!small.needs_pointer());
        assert!(!small.to_string().contains("bootgen pointer"));
        let medium = SizeBudget::of(20 * 1024);
        let fits: Vec<bool> = medium.channels.iter().map(|c| c.fits).collect();
        assert_eq!(fits, vec![false, true, true, true, true]);
        let text = medium.to_string();
        assert!(text.contains("AWS user data"), "{text}");
        assert!(text.contains("does not fit (4.0 KiB over)"), "{text}");
        assert!(text.contains("bootgen pointer --url"), "{text}");
        assert!(SizeBudget::of(256 * 1024).channels[4].fits);
        assert!(!SizeBudget::of(256 * 1024 + 1).channels[4].fits);
        assert_eq!(human_size(2 * 1024 * 1024), "2.0 MiB");
    }
}
