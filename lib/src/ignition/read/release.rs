//! The release a config pulls: the release image reference in the release-image scripts
//! (bootgen's and an openshift-install-made config's alike: `RELEASE_IMAGE=<pull spec>`, quoted
//! or not), and the release it was made for.

use super::read_text;
use crate::error::{Error, Result};
use crate::ignition::IgnitionDoc;
use serde::Serialize;
use std::ops::Range;

/// The scripts that carry the release image, in the order they are checked.
pub const RELEASE_SCRIPTS: [&str; 2] = [
    "/usr/local/bin/release-image.sh",
    "/usr/local/bin/release-image-download.sh",
];

/// The release image a config pulls, and where it says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseReference {
    /// The pull spec.
    pub reference: String,
    /// The scripts that name it.
    pub scripts: Vec<&'static str>,
}

impl ReleaseReference {
    /// True when the reference pins a digest (`@sha256:...`).
    pub fn is_digest(&self) -> bool {
        self.reference.contains('@')
    }
}

/// Literal `RELEASE_IMAGE=` assignments in a script: the byte range of each value and the value.
pub fn assignments(text: &str) -> Vec<(Range<usize>, String)> {
    let mut found = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        let mut at = start + (line.len() - trimmed.len());
        let mut rest = trimmed;
        if let Some(after) = rest.strip_prefix("export ") {
            let after_trim = after.trim_start();
            at += rest.len() - after_trim.len();
            rest = after_trim;
        }
        let Some(value) = rest.strip_prefix("RELEASE_IMAGE=") else {
            continue;
        };
        at += "RELEASE_IMAGE=".len();
        let (range, literal) = match value.chars().next() {
            Some(quote @ ('"' | '\'')) => match value[1..].find(quote) {
                Some(end) => (at + 1..at + 1 + end, &value[1..1 + end]),
                None => continue,
            },
            _ => {
                let end = value
                    .find(|c: char| c.is_whitespace() || c == ';')
                    .unwrap_or(value.len());
                (at..at + end, &value[..end])
            }
        };
        let is_literal = !literal.is_empty() && !literal.contains(['$', '`', '\\']);
        if is_literal {
            found.push((range, literal.to_string()));
        }
    }
    found
}

fn cannot(path: &str, message: String) -> Error {
    Error::CannotPatch {
        path: path.to_string(),
        message,
    }
}

/// Where a script names the release image: its `RELEASE_IMAGE=` values when it has any;
/// otherwise every place it spells `reference` out whole. openshift-install's
/// `release-image.sh` has no assignment: it names the payload twice (in `podman inspect` and as
/// the digest's fallback), and `release-image-download.sh` alone says `RELEASE_IMAGE=`.
pub(crate) fn spans(text: &str, reference: &str) -> Vec<Range<usize>> {
    let assigned = assignments(text);
    if !assigned.is_empty() {
        return assigned.into_iter().map(|(range, _)| range).collect();
    }
    mentions(text, reference)
}

/// Every occurrence of `reference` in `text` that is a whole pull spec: neither the character
/// before nor the one after could continue it.
pub(crate) fn mentions(text: &str, reference: &str) -> Vec<Range<usize>> {
    let continues = |c: char| c.is_ascii_alphanumeric() || "._-/:@".contains(c);
    text.match_indices(reference)
        .filter(|(at, _)| {
            let before = text[..*at].chars().next_back();
            let after = text[at + reference.len()..].chars().next();
            !before.is_some_and(continues) && !after.is_some_and(continues)
        })
        .map(|(at, _)| at..at + reference.len())
        .collect()
}

/// Finds the release image in the config's release-image scripts. `None` when the config has
/// neither script. The scripts that say `RELEASE_IMAGE=<pull spec>` give it (they must agree);
/// a script without that line must name the same pull spec (as the installer's
/// `release-image.sh` does). Anything else is an error: no script says which image it pulls,
/// the scripts disagree, or a script names something else.
pub fn find_release(doc: &IgnitionDoc) -> Result<Option<ReleaseReference>> {
    let mut texts = Vec::new();
    for path in RELEASE_SCRIPTS {
        if let Some(text) = read_text(doc, path)? {
            texts.push((path, text));
        }
    }
    if texts.is_empty() {
        return Ok(None);
    }
    let mut found: Option<ReleaseReference> = None;
    for (path, text) in &texts {
        let values = assignments(text);
        let Some((_, first)) = values.first() else {
            continue;
        };
        if let Some((_, other)) = values.iter().find(|(_, v)| v != first) {
            return Err(cannot(
                path,
                format!("the script sets RELEASE_IMAGE to both {first} and {other}"),
            ));
        }
        first
            .parse::<crate::release::PullSpec>()
            .map_err(|m| cannot(path, format!("RELEASE_IMAGE: {m}")))?;
        match &mut found {
            None => {
                found = Some(ReleaseReference {
                    reference: first.clone(),
                    scripts: vec![path],
                })
            }
            Some(known) if known.reference == *first => known.scripts.push(path),
            Some(known) => {
                return Err(cannot(
                    path,
                    format!(
                        "it pulls {first} but {} pulls {}; bootgen will not guess which is meant",
                        known.scripts.join(", "),
                        known.reference
                    ),
                ))
            }
        }
    }
    let Some(mut release) = found else {
        let names: Vec<&str> = texts.iter().map(|(path, _)| *path).collect();
        return Err(cannot(
            names[0],
            format!(
                "no RELEASE_IMAGE=<pull spec> line in {}, so bootgen cannot tell which release image the config pulls; is it an unexpected script?",
                names.join(" or ")
            ),
        ));
    };
    for (path, text) in &texts {
        if release.scripts.contains(path) {
            continue;
        }
        if mentions(text, &release.reference).is_empty() {
            return Err(cannot(
                path,
                format!(
                    "the script neither sets RELEASE_IMAGE nor names {}, which {} pulls; is it an unexpected script?",
                    release.reference,
                    release.scripts.join(", ")
                ),
            ));
        }
        release.scripts.push(path);
    }
    release
        .scripts
        .sort_by_key(|path| RELEASE_SCRIPTS.iter().position(|p| p == path));
    Ok(Some(release))
}

/// Which release a config was made for, and the evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReleaseGuess {
    /// `4.16.3`, or a minor (`4.16`) when only the CVO channel says.
    pub version: String,
    /// Where it was read: the release image's tag, or the CVO channel.
    pub from: String,
}

/// Where the CVO channel is read from.
pub(crate) const CVO_OVERRIDES: &str = "/opt/openshift/manifests/cvo-overrides.yaml";

/// The release a config was made for: the version in its release image's tag, else the minor
/// of its CVO channel (`stable-4.16`).
pub fn release_of(doc: &IgnitionDoc) -> Option<ReleaseGuess> {
    let tagged = find_release(doc)
        .ok()
        .flatten()
        .and_then(|r| crate::release::version_of_reference(&r.reference).map(|v| (v, r.reference)));
    if let Some((version, reference)) = tagged {
        return Some(ReleaseGuess {
            version: version.to_string(),
            from: format!("the release image tag ({reference})"),
        });
    }
    let cvo = super::file_text(doc, CVO_OVERRIDES)?;
    let channel = cvo
        .lines()
        .find_map(|l| l.trim().strip_prefix("channel:"))?
        .trim()
        .trim_matches('"');
    let minor = channel.rsplit('-').next()?;
    minor.parse::<crate::release::Minor>().ok()?;
    Some(ReleaseGuess {
        version: minor.to_string(),
        from: format!("the CVO channel {channel}"),
    })
}
