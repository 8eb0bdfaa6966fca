//! The release image reference in the release-image scripts: found in bootgen's own scripts
//! and in an openshift-install-made config's alike (`RELEASE_IMAGE=<pull spec>`, quoted or
//! not), and rewritten to its mirror.

use super::read_text;
use super::MirrorRule;
use crate::error::{Error, Result};
use crate::ignition::read::{find_release, registry_for, spans, ReleaseReference, RELEASE_SCRIPTS};
use crate::ignition::IgnitionDoc;
use crate::model::mirrors::{matches_source, Registry};
use crate::passes::doc_edit::set_file_text;
use crate::passes::Change;

fn cannot(path: &str, message: String) -> Error {
    Error::CannotPatch {
        path: path.to_string(),
        message,
    }
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

/// The script every bootstrap config runs: a config with it and without release-image scripts
/// is a bootstrap whose release bootgen cannot find.
const BOOTKUBE_SCRIPT: &str = "/usr/local/bin/bootkube.sh";

/// Points the release-image scripts at the mirror when one of `rules` (the mirrors asked for
/// now) covers the release. A bootstrap config must have them and they must say which image
/// they pull: otherwise the change cannot be made, and that is an error. A config that is no
/// bootstrap config (a pointer config, any other) pulls no release: there is nothing to point,
/// only registries.conf and the rest to write.
///
/// A release no rule covers keeps its name, mirrored or not by the config's own entries, as the
/// installer names it when the install-config lists the same mirrors: registries.conf already
/// sends its pulls by digest to those mirrors (a tag under a blocked source excepted, below).
pub fn rewrite(
    doc: &mut IgnitionDoc,
    registries: &[Registry],
    rules: &[MirrorRule],
) -> Result<Vec<Change>> {
    let Some(release) = find_release(doc)? else {
        let bootstrap = crate::ignition::read::file_entries(doc)
            .iter()
            .any(|f| f.get("path").and_then(serde_json::Value::as_str) == Some(BOOTKUBE_SCRIPT));
        if !bootstrap {
            return Ok(Vec::new());
        }
        return Err(cannot(
            RELEASE_SCRIPTS[0],
            format!(
                "the config has neither {} nor {}, so the release image cannot be pointed at its mirror; is this a bootstrap config?",
                RELEASE_SCRIPTS[0], RELEASE_SCRIPTS[1]
            ),
        ));
    };
    if !rules
        .iter()
        .any(|rule| matches_source(&release.reference, rule.source()))
    {
        return point_blocked_tag_at_mirror(doc, registries);
    }
    point_at_mirror(doc, registries, &release)
}

/// Rewrites every mention of the release in its scripts to its first mirror.
fn point_at_mirror(
    doc: &mut IgnitionDoc,
    registries: &[Registry],
    release: &ReleaseReference,
) -> Result<Vec<Change>> {
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
    let Some(release) = find_release(doc)? else {
        return Ok(Vec::new());
    };
    let blocked_tag = !release.is_digest()
        && registry_for(registries, &release.reference)
            .is_some_and(|r| r.blocked && r.mirror_by_digest_only && !r.mirrors.is_empty());
    if !blocked_tag {
        return Ok(Vec::new());
    }
    point_at_mirror(doc, registries, &release)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ignition::read::assignments;

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
