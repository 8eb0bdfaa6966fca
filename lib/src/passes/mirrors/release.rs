//! The release image reference in the release-image scripts: found in bootgen's own scripts
//! and in an openshift-install-made config's alike (`RELEASE_IMAGE=<pull spec>`, quoted or
//! not), and rewritten to its mirror.

use super::read_text;
use super::registries_conf::registry_for;
use crate::error::{Error, Result};
use crate::ignition::IgnitionDoc;
use crate::model::mirrors::{check_repository, repository_of, Registry};
use crate::passes::doc_edit::set_file_text;
use crate::passes::Change;
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
fn spans(text: &str, reference: &str) -> Vec<Range<usize>> {
    let assigned = assignments(text);
    if !assigned.is_empty() {
        return assigned.into_iter().map(|(range, _)| range).collect();
    }
    mentions(text, reference)
}

/// Every occurrence of `reference` in `text` that is a whole pull spec: neither the character
/// before nor the one after could continue it.
fn mentions(text: &str, reference: &str) -> Vec<Range<usize>> {
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
pub fn find(doc: &IgnitionDoc) -> Result<Option<ReleaseReference>> {
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
        check_repository(repository_of(first)).map_err(|m| {
            cannot(
                path,
                format!("RELEASE_IMAGE is not an image pull spec: {m}"),
            )
        })?;
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

/// The reference rewritten to the first mirror of the most specific source it lies under
/// (digest or tag kept), with that source; `None` when no mirrored source matches.
pub fn mirrored(registries: &[Registry], reference: &str) -> Option<(String, String)> {
    let registry = registry_for(
        &registries
            .iter()
            .filter(|r| !r.mirrors.is_empty())
            .cloned()
            .collect::<Vec<_>>(),
        reference,
    )?
    .clone();
    let mirror = registry.mirrors.first()?;
    let rest = reference.get(registry.location.len()..)?;
    Some((format!("{}{rest}", mirror.location), registry.location))
}

/// Points the release-image scripts at the mirror. The scripts must be there and must say
/// which image they pull: otherwise the change cannot be made, and that is an error.
pub fn rewrite(doc: &mut IgnitionDoc, registries: &[Registry]) -> Result<Vec<Change>> {
    let Some(release) = find(doc)? else {
        return Err(cannot(
            RELEASE_SCRIPTS[0],
            format!(
                "the config has neither {} nor {}, so the release image cannot be pointed at its mirror; is this a bootstrap config?",
                RELEASE_SCRIPTS[0], RELEASE_SCRIPTS[1]
            ),
        ));
    };
    let Some((rewritten, source)) = mirrored(registries, &release.reference) else {
        return Ok(Vec::new());
    };
    let mut changes = Vec::new();
    for path in &release.scripts {
        let Some(mut text) = read_text(doc, path)? else {
            continue;
        };
        for range in spans(&text, &release.reference).into_iter().rev() {
            text.replace_range(range, &rewritten);
        }
        set_file_text(doc, path, &text, 0o555)?;
        changes.push(Change {
            target: (*path).to_string(),
            action: format!(
                "release image {} -> {rewritten} (the mirror of {source})",
                release.reference
            ),
        });
    }
    Ok(changes)
}

/// A release given by tag under a source that must never be contacted cannot be pulled at all
/// (mirror-by-digest-only sends tags to the blocked source), so it is pointed at its mirror by
/// tag, as `--mirror ... --block-source` does. Whichever way the mirrors came in (install-config
/// `imageDigestSources` with `NeverContactSource`, or the command line), the result is the same:
/// the rewrite, and the pre-flight's warning that a tag can move.
pub fn point_blocked_tag_at_mirror(
    doc: &mut IgnitionDoc,
    registries: &[Registry],
) -> Result<Vec<Change>> {
    let Some(release) = find(doc)? else {
        return Ok(Vec::new());
    };
    let blocked_tag = !release.is_digest()
        && registry_for(registries, &release.reference)
            .is_some_and(|r| r.blocked && r.mirror_by_digest_only && !r.mirrors.is_empty());
    if !blocked_tag {
        return Ok(Vec::new());
    }
    rewrite(doc, registries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_quoted_unquoted_and_exported_assignments() {
        let script = "#!/bin/bash\n# RELEASE_IMAGE=not-this\nRELEASE_IMAGE=q.io/a/b@sha256:01\n  export RELEASE_IMAGE=\"q.io/a/b@sha256:01\" # same\nRELEASE_IMAGE='q.io/a/b@sha256:01'\nRELEASE_IMAGE=\"${RELEASE_IMAGE:-x}\"\necho \"$RELEASE_IMAGE\"\n";
        let found = assignments(script);
        assert_eq!(found.len(), 3);
        for (range, value) in &found {
            assert_eq!(&script[range.clone()], value);
            assert_eq!(value, "q.io/a/b@sha256:01");
        }
    }

    #[test]
    fn mirrors_keep_the_digest_or_tag() {
        let registries = vec![Registry {
            location: "quay.io/openshift-release-dev".into(),
            insecure: false,
            blocked: true,
            mirror_by_digest_only: true,
            mirrors: vec![crate::model::mirrors::Mirror {
                location: "m.example.com:5000/ocp".into(),
                insecure: false,
            }],
        }];
        assert_eq!(
            mirrored(
                &registries,
                "quay.io/openshift-release-dev/ocp-release@sha256:ab"
            ),
            Some((
                "m.example.com:5000/ocp/ocp-release@sha256:ab".into(),
                "quay.io/openshift-release-dev".into()
            ))
        );
        assert_eq!(
            mirrored(
                &registries,
                "quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64"
            )
            .map(|m| m.0),
            Some("m.example.com:5000/ocp/ocp-release:4.19.0-x86_64".into())
        );
        assert_eq!(mirrored(&registries, "quay.io/other/x:1"), None);
    }
}
