//! What a cause's sentence and fix are made of, beyond their words: details read from the first
//! evidence line (the registry, the name, the flag, the unit, the times) and what the bundle as a
//! whole told ([`Context`]). A row of the cause table (`causes.rs`) asks for them by name; when
//! neither the line nor the bundle carries one, the row says so in general words.

use crate::evidence::Evidence;

/// What the bundle as a whole told, beyond the evidence line.
#[derive(Default)]
pub(crate) struct Context {
    /// The cluster's `api-int` host name (from the Infrastructure manifest).
    pub(crate) api_int_host: Option<String>,
    /// Minutes the bootstrap machine-config server served nothing while the control plane was
    /// awaited, when that proved the cause.
    pub(crate) silent_minutes: Option<i64>,
}

/// The first evidence line of a cause and the bundle's context: what a row's sentence and fix
/// are written from.
pub(crate) struct Clues<'a> {
    /// The first line that shows the cause.
    pub(crate) evidence: &'a Evidence,
    /// What the whole bundle told.
    pub(crate) context: &'a Context,
}

impl Clues<'_> {
    /// The evidence line's text.
    pub(crate) fn line(&self) -> &str {
        &self.evidence.text
    }

    /// Whether the evidence line holds `fragment` (lower case), ignoring ASCII case.
    pub(crate) fn says(&self, fragment: &str) -> bool {
        self.line().to_ascii_lowercase().contains(fragment)
    }

    /// The registry the line names (host and port, as pull secrets name it).
    pub(crate) fn registry(&self) -> Option<String> {
        registry(self.line())
    }

    /// The host name a resolver or client failed on.
    pub(crate) fn host(&self) -> Option<String> {
        name(self.line())
    }

    /// The flag an operator rejected.
    pub(crate) fn flag(&self) -> Option<String> {
        flag(self.line())
    }

    /// The unit named by a hold condition or a mask message.
    pub(crate) fn held_unit(&self) -> Option<String> {
        // systemd 239 names a skipped unit by its description only: the journal's unit.
        held_unit(self.line()).or_else(|| {
            crate::layout::journal_of(&self.evidence.file)
                .filter(|unit| *unit != "journal")
                .map(|unit| format!("{unit}.service"))
        })
    }

    /// " (current time A is after/before B)" from Go's x509 message, or nothing.
    pub(crate) fn times(&self) -> String {
        times(self.line())
            .map(|t| format!(" ({t})"))
            .unwrap_or_default()
    }

    /// The machine-config server's host: from the line (a machine's console names the URL it
    /// fetched), or else the Infrastructure manifest's api-int.
    pub(crate) fn server_host(&self) -> Option<String> {
        self.host().or_else(|| self.context.api_int_host.clone())
    }

    /// The address (`IP:port`) a server failed to listen on (`listen tcp ADDRESS: bind: ...`).
    pub(crate) fn listen_address(&self) -> Option<String> {
        after(self.line(), "listen tcp ", &['"', ','])
            .map(|address| address.trim_end_matches(':').to_string())
            .filter(|address| !address.is_empty())
    }

    /// The container whose log the evidence is in (`.../containers/NAME-ID.log`).
    pub(crate) fn container(&self) -> Option<String> {
        let file = self.evidence.file.rsplit('/').next()?;
        let (name, _id) = file.strip_suffix(".log")?.rsplit_once('-')?;
        (!name.is_empty()).then(|| name.to_string())
    }

    /// The evidence line's message: after a klog header (`E0101 01:05:00.000000 1 run.go:72] `)
    /// when it has one, at most 300 characters (the line is redacted already).
    pub(crate) fn error_message(&self) -> String {
        let line = self.line();
        let klog = line.split_once("] ").filter(|(head, _)| {
            head.len() < 60 && head.starts_with(['I', 'W', 'E', 'F']) && head.contains(".go:")
        });
        let message = klog.map_or(line, |(_, rest)| rest).trim();
        match message.char_indices().nth(300) {
            Some((cut, _)) => format!("{}...", &message[..cut]),
            None => message.to_string(),
        }
    }

    /// The host a `control-plane/HOST/...` bundle path names, for a control-plane host's log.
    pub(crate) fn control_plane_host(&self) -> Option<&str> {
        self.evidence
            .file
            .strip_prefix("control-plane/")
            .and_then(|rest| rest.split('/').next())
    }
}

/// The word after `marker` in `line`, up to a character in `stops`.
fn after(line: &str, marker: &str, stops: &[char]) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    let at = lower.find(&marker.to_ascii_lowercase())? + marker.len();
    let rest = line.get(at..)?;
    let word: String = rest
        .chars()
        .take_while(|c| !c.is_whitespace() && !stops.contains(c))
        .collect();
    (!word.is_empty()).then_some(word)
}

/// The registry (host and port, as pull secrets name it) in an image reference or registry URL
/// in `line`.
fn registry(line: &str) -> Option<String> {
    after(line, "docker://", &['/', '"', '\''])
        .or_else(|| after(line, "pinging container registry ", &['/', '"']))
        .or_else(|| after(line, "registry ", &['/', '"']).filter(|h| h.contains('.')))
        .or_else(|| after(line, "https://", &['/', '"']))
        // `user:password@host`: the registry is the host.
        .map(|registry| {
            let host = registry.rsplit('@').next().unwrap_or(&registry);
            host.trim_end_matches(':').to_string()
        })
}

/// The host name a resolver or client failed on.
fn name(line: &str) -> Option<String> {
    after(line, "lookup ", &[':', '"'])
        .or_else(|| after(line, "could not resolve host: ", &[':', '"']))
        .or_else(|| after(line, "https://", &['/', ':', '"']))
        .or_else(|| {
            line.to_ascii_lowercase()
                .contains("does not resolve yet")
                .then(|| {
                    let before =
                        &line[..line.to_ascii_lowercase().find(" does not resolve yet")?];
                    before.split_whitespace().last().map(str::to_string)
                })
                .flatten()
        })
}

/// The flag an operator rejected.
fn flag(line: &str) -> Option<String> {
    after(line, "unknown flag: ", &['"'])
        .or_else(|| after(line, "flag provided but not defined: ", &['"']))
        .or_else(|| after(line, "unknown shorthand flag: ", &['"']))
}

/// The unit named by a hold condition or a mask message.
fn held_unit(line: &str) -> Option<String> {
    after(line, "/etc/bootgen/hold/", &[')', '"'])
        .or_else(|| after(line, "unit ", &['"']).filter(|u| u.contains('.')))
}

/// "current time A is after/before B" from Go's x509 message.
fn times(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    let at = lower.find("current time ")?;
    Some(line[at..].trim_end().to_string())
}
