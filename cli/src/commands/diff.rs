//! `bootgen diff`: a semantic diff of two configs, or of every output two directories hold;
//! with `--objects`, the objects the node and its operators read.
//! Exit 0 when they are the same, 1 when they differ, 2 when either cannot be read (as `diff`
//! and `cmp` do).

use crate::args::DiffArgs;
use crate::input::{load, read_path, refuse_interrupted};
use bootgen::ignition::SplitDoc;
use bootgen::output;
use bootgen::report::{diff_file, diff_objects, diff_split, ConfigDiff, ObjectDiff};
use std::path::Path;
use std::process::ExitCode;

/// Exit code when the configs differ.
const EXIT_DIFFERENT: u8 = 1;
/// Exit code when a config cannot be read or parsed (trouble, as for `diff`).
const EXIT_TROUBLE: u8 = 2;

/// Outputs compared as text when both sides are directories (after the configs).
const TEXT_OUTPUTS: [&str; 2] = [output::METADATA_FILE, output::ADMIN_KUBECONFIG];

/// Both configs split: their file entries stay raw JSON, each decoded when compared.
fn compare_configs(old: &Path, new: &Path) -> anyhow::Result<ConfigDiff> {
    let (old_bytes, old_name) = read_path(old)?;
    let (new_bytes, new_name) = read_path(new)?;
    compare_config_bytes((&old_bytes, &old_name, old), (&new_bytes, &new_name, new))
}

/// [`compare_configs`] of bytes already read: each side's bytes, the name its errors give and
/// the path its changes are said of.
fn compare_config_bytes(
    (old_bytes, old_name, old): (&[u8], &str, &Path),
    (new_bytes, new_name, new): (&[u8], &str, &Path),
) -> anyhow::Result<ConfigDiff> {
    let old_split = SplitDoc::parse_checked(old_bytes, old_name, |_| false)?;
    let new_split = SplitDoc::parse_checked(new_bytes, new_name, |_| false)?;
    Ok(diff_split(
        &old_split,
        &new_split,
        &old.display().to_string(),
        &new.display().to_string(),
    )?)
}

/// The bytes of `relative` in the output directory `dir`, read through no link (a link would
/// show a file from elsewhere); JSON pretty-printed so that a diff shows the field that changed.
fn read_optional(dir: &Path, relative: &str) -> anyhow::Result<Option<Vec<u8>>> {
    let Some(bytes) = bootgen::output::read_in_dir(dir, relative)? else {
        return Ok(None);
    };
    Ok(Some(
        serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .filter(|_| relative.ends_with(".json"))
            .and_then(|v| serde_json::to_vec_pretty(&v).ok())
            .map_or(bytes, |mut pretty| {
                pretty.push(b'\n');
                pretty
            }),
    ))
}

/// Every output of two directories: the three configs semantically, then the text outputs.
fn compare_dirs(old: &Path, new: &Path) -> anyhow::Result<Vec<ConfigDiff>> {
    refuse_interrupted(old, old)?;
    refuse_interrupted(new, new)?;
    let (old_name, new_name) = (old.display().to_string(), new.display().to_string());
    let mut diffs = Vec::new();
    // Either kind of config, whichever the directories hold (both exist for a diff across kinds).
    let names = bootgen::golden::CONFIGS
        .into_iter()
        .chain([bootgen::LIVE_ISO_CONFIG]);
    for name in names {
        let read = |dir: &Path| bootgen::output::read_in_dir(dir, name);
        let (a, b) = (old.join(name), new.join(name));
        diffs.push(match (read(old)?, read(new)?) {
            (Some(x), Some(y)) => compare_config_bytes(
                (&x, &a.display().to_string(), &a),
                (&y, &b.display().to_string(), &b),
            )?,
            (None, None) => continue,
            // A config only one side has: added or removed as a whole.
            (had, _) => {
                let had = had.is_some();
                let (x, y) = (had.then_some(&b""[..]), (!had).then_some(&b""[..]));
                diff_file(x, y, &old_name, &new_name, name)
            }
        });
    }
    for name in TEXT_OUTPUTS {
        let (a, b) = (read_optional(old, name)?, read_optional(new, name)?);
        diffs.push(diff_file(
            a.as_deref(),
            b.as_deref(),
            &old_name,
            &new_name,
            name,
        ));
    }
    Ok(diffs)
}

/// What two boot media carry besides their configs (kernel arguments, install target,
/// installer config, archive), as text; nothing unless both are an ISO or initramfs: a config
/// against the medium embedding it is compared with the embedded config alone, which is all
/// the two have in common.
fn compare_media(old: &Path, new: &Path) -> anyhow::Result<Vec<ConfigDiff>> {
    let summary = |path: &Path| -> anyhow::Result<Option<Vec<u8>>> {
        Ok(crate::input::read_media(path)?.map(|m| m.summary().into_bytes()))
    };
    let (a, b) = (summary(old)?, summary(new)?);
    if a.is_none() || b.is_none() {
        return Ok(Vec::new());
    }
    let (old_name, new_name) = (old.display().to_string(), new.display().to_string());
    Ok(vec![diff_file(
        a.as_deref(),
        b.as_deref(),
        &old_name,
        &new_name,
        "boot media",
    )])
}

/// The files of an output directory compared beside its bootstrap config, which names the
/// per-run IDs they hold.
const BESIDE_BOOTSTRAP: [&str; 2] = [output::METADATA_FILE, output::ADMIN_KUBECONFIG];

fn compare_objects(old: &Path, new: &Path) -> anyhow::Result<ObjectDiff> {
    compare_objects_with(old, new, &[])
}

/// Compares two configs' objects; `beside` names files of the configs' directories to compare
/// with them (read through no link).
fn compare_objects_with(old: &Path, new: &Path, beside: &[&str]) -> anyhow::Result<ObjectDiff> {
    let view = |path: &Path| -> anyhow::Result<bootgen::report::ObjectView> {
        let (_, doc) = load(path)?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut files: Vec<(&str, Vec<u8>)> = Vec::new();
        for name in beside {
            if let Some(bytes) = bootgen::output::read_in_dir(dir, name)? {
                files.push((name, bytes));
            }
        }
        let files: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, b.as_slice())).collect();
        Ok(bootgen::report::object_view_with(&doc, &files)
            .map_err(|e| e.in_config(&path.display().to_string()))?)
    };
    Ok(diff_objects(
        &view(old)?,
        &view(new)?,
        &old.display().to_string(),
        &new.display().to_string(),
    ))
}

/// `--objects`: the configs' objects; for two directories, each config both hold (a config
/// only one holds is named as such).
fn compare_objects_of(args: &DiffArgs) -> anyhow::Result<bool> {
    let pairs: Vec<(std::path::PathBuf, std::path::PathBuf)> =
        if args.old.is_dir() && args.new.is_dir() {
            refuse_interrupted(&args.old, &args.old)?;
            refuse_interrupted(&args.new, &args.new)?;
            let mut pairs = Vec::new();
            for name in bootgen::golden::CONFIGS
                .into_iter()
                .chain([bootgen::LIVE_ISO_CONFIG])
            {
                let (a, b) = (args.old.join(name), args.new.join(name));
                match (a.exists(), b.exists()) {
                    (true, true) => pairs.push((a, b)),
                    (false, false) => {}
                    (true, false) => anyhow::bail!(
                        "{} has {name} but {} does not",
                        args.old.display(),
                        args.new.display()
                    ),
                    (false, true) => anyhow::bail!(
                        "{} has {name} but {} does not",
                        args.new.display(),
                        args.old.display()
                    ),
                }
            }
            pairs
        } else {
            vec![(args.old.clone(), args.new.clone())]
        };
    let directories = args.old.is_dir() && args.new.is_dir();
    let diffs = pairs
        .iter()
        .map(|(a, b)| {
            // metadata.json and the admin kubeconfig go with the config that names the
            // cluster: bootstrap.ign, or a single node's live config.
            let names_cluster = a
                .file_name()
                .is_some_and(|n| n == bootgen::BOOTSTRAP_CONFIG || n == bootgen::LIVE_ISO_CONFIG);
            if directories && names_cluster {
                compare_objects_with(a, b, &BESIDE_BOOTSTRAP)
            } else {
                compare_objects(a, b)
            }
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let same = diffs.iter().all(ObjectDiff::is_empty);
    if args.json {
        match diffs.as_slice() {
            [one] => crate::report::emit_json(one)?,
            all => crate::report::emit_json(&all)?,
        }
    } else {
        crate::report::emit(diffs.iter().map(ToString::to_string).collect::<String>())?;
    }
    Ok(same)
}

fn compare(args: &DiffArgs) -> anyhow::Result<bool> {
    if args.objects {
        return compare_objects_of(args);
    }
    let diffs = if args.old.is_dir() && args.new.is_dir() {
        compare_dirs(&args.old, &args.new)?
    } else {
        let mut diffs = compare_media(&args.old, &args.new)?;
        diffs.push(compare_configs(&args.old, &args.new)?);
        diffs
    };
    let same = diffs.iter().all(ConfigDiff::is_empty);
    if args.json {
        match diffs.as_slice() {
            [one] if !(args.old.is_dir() && args.new.is_dir()) => crate::report::emit_json(one)?,
            all => crate::report::emit_json(&all)?,
        }
    } else if diffs.len() == 1 {
        crate::report::emit(diffs[0].to_string())?;
    } else {
        let mut text: String = diffs
            .iter()
            .filter(|d| !d.is_empty())
            .map(ToString::to_string)
            .collect();
        if same {
            text = format!(
                "{} and {} hold the same outputs\n",
                args.old.display(),
                args.new.display()
            );
        }
        crate::report::emit(text)?;
    }
    Ok(same)
}

/// Runs `bootgen diff`.
pub fn run(args: DiffArgs) -> anyhow::Result<ExitCode> {
    match compare(&args) {
        Ok(true) => Ok(ExitCode::SUCCESS),
        Ok(false) => Ok(ExitCode::from(EXIT_DIFFERENT)),
        Err(error) => {
            crate::report::print_error(&error);
            Ok(ExitCode::from(EXIT_TROUBLE))
        }
    }
}
