//! How the summary reads for a person: one line per file and unit, then the size budget.

use super::*;

fn yes_no(value: bool) -> &'static str {
    if value {
        "yes"
    } else {
        "no"
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let counted = crate::report::counted;
        writeln!(
            f,
            "Ignition spec {}: {} ({} decoded{}), {}, {}, {}, {}",
            self.version,
            counted(self.files.len(), "file"),
            human_size(self.contents_size),
            match self.files.iter().filter(|f| f.size.is_none()).count() {
                0 => String::new(),
                remote => format!(", {remote} fetched from elsewhere, of unknown size"),
            },
            counted(self.directories, "directory"),
            counted(self.links, "link"),
            counted(self.units.len(), "unit"),
            counted(self.users.len(), "user")
        )?;
        if let Some(release) = &self.release {
            let name = self.distribution.unwrap_or_default().label();
            writeln!(
                f,
                "made for {name} {} (from {})",
                release.version, release.from
            )?;
        }
        if let Some(image) = &self.release_image {
            writeln!(f, "release image {image}")?;
        }
        if let Some(arch) = &self.architecture {
            writeln!(
                f,
                "architecture {} (control plane, from {})",
                arch.control_plane, arch.from
            )?;
        }
        if let Some(platform) = &self.platform {
            writeln!(f, "platform {platform} (from {CLUSTER_CONFIG})")?;
        }
        if let (None, Some(distribution)) = (&self.release, self.distribution) {
            writeln!(f, "made for {}", distribution.label())?;
        }
        for mirror in &self.mirrors {
            writeln!(
                f,
                "mirror: {} from {}{}",
                mirror.source,
                mirror.mirrors.join(", "),
                if mirror.blocked {
                    " (source never contacted)"
                } else {
                    ""
                }
            )?;
        }
        for fetch in &self.fetches {
            writeln!(
                f,
                "pointer config: Ignition fetches {} and {}{}",
                fetch.source,
                if fetch.how == "merge" {
                    "merges it into this config"
                } else {
                    "replaces this config with it"
                },
                if fetch.verified {
                    ", checked by its hash"
                } else {
                    ""
                }
            )?;
        }
        if self.trusted_cas > 0 {
            writeln!(
                f,
                "Ignition trusts {} CA certificate(s) for its fetches (the certificate report lists them)",
                self.trusted_cas
            )?;
        }
        if let Some(disk) = &self.installation_disk {
            writeln!(
                f,
                "single node (bootstrap in place): boots the live ISO, then installs itself to {disk}"
            )?;
        }
        if !self.bootkube_stages.is_empty() {
            writeln!(f, "bootkube stages: {}", self.bootkube_stages.join(" → "))?;
        }
        if !self.networks.is_empty() {
            writeln!(f, "\nnetwork (NetworkManager keyfiles):")?;
            writeln!(
                f,
                "  {:<12} {:<17} {:<10} {:<36} {:<20} DNS",
                "HOST", "INTERFACE/MAC", "TYPE", "ADDRESSES", "GATEWAYS"
            )?;
            for network in &self.networks {
                writeln!(f, "  {network}")?;
            }
        }
        if !self.users.is_empty() {
            writeln!(f, "\nusers:")?;
            for user in &self.users {
                // A user without a name is one Ignition takes (Go reads the name as empty).
                let name = if user.name.is_empty() {
                    "(no name)"
                } else {
                    &user.name
                };
                writeln!(
                    f,
                    "  {:<12} {} SSH key(s), password {}",
                    name,
                    user.ssh_keys,
                    if user.password { "set" } else { "not set" }
                )?;
            }
        }
        if !self.files.is_empty() {
            writeln!(f, "\nfiles:")?;
            writeln!(
                f,
                "  {:<5} {:>10}  {:<16} {:<21} PATH",
                "MODE", "SIZE", "WRITE", "KIND"
            )?;
            for file in &self.files {
                let mode = file
                    .mode
                    .map_or_else(|| "-".to_string(), |m| format!("{m:04o}"));
                let kind = if file.compressed {
                    format!("{} (gz)", file.kind)
                } else {
                    file.kind.to_string()
                };
                writeln!(
                    f,
                    "  {mode:<5} {:>10}  {:<16} {kind:<21} {}",
                    file.size.map_or_else(|| "-".to_string(), human_size),
                    file.write,
                    file.path
                )?;
            }
        }
        if !self.units.is_empty() {
            writeln!(f, "\nunits:")?;
            writeln!(
                f,
                "  {:<40} {:<8} {:<6} {:<5} {:<9} DROP-INS",
                "NAME", "ENABLED", "MASKED", "HELD", "CONTENTS"
            )?;
            for unit in &self.units {
                let enabled = unit.enabled.map_or("-", yes_no);
                let dropins = if unit.dropins.is_empty() {
                    "-".to_string()
                } else {
                    unit.dropins.join(", ")
                };
                writeln!(
                    f,
                    "  {:<40} {enabled:<8} {:<6} {:<5} {:<9} {dropins}",
                    unit.name,
                    yes_no(unit.masked),
                    yes_no(unit.held),
                    yes_no(unit.has_contents)
                )?;
            }
        }
        write!(f, "\n{}", self.budget)?;
        Ok(())
    }
}
