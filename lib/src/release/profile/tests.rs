use super::*;
use crate::release::dimensions::{Dimensions, Platform};
use table::{holds, Bound, Point};

/// Every node a profile can make: each flow, platform and distribution.
fn every_dims() -> Vec<Dimensions> {
    let mut out = Vec::new();
    for flow in [Flow::Cluster, Flow::InPlace] {
        for platform in Platform::ALL {
            for distribution in Distribution::ALL {
                out.push(Dimensions {
                    flow,
                    platform: *platform,
                    distribution: *distribution,
                });
            }
        }
    }
    out
}

/// The table the library embeds (JSON made by build.rs) is `releases.toml`, row for row,
/// and a profile built alone, as a run builds its release's, is the one built with the rest.
#[test]
fn the_embedded_table_and_lone_profiles_are_the_tables() {
    let written = table::load(table::TABLE).unwrap();
    let embedded = table::load_embedded().unwrap();
    assert_eq!(format!("{embedded:?}"), format!("{written:?}"));
    let together = build(&written, true)
        .into_iter()
        .chain(build(&written, false));
    let alone: Vec<&Profile> = PROFILES
        .iter()
        .map(|p| profile_for(p.minor).unwrap())
        .chain(z_stream_profiles())
        .collect();
    let together: Vec<Profile> = together.collect();
    assert_eq!(alone.len(), together.len());
    for (alone, together) in alone.iter().zip(&together) {
        assert_eq!(format!("{alone:?}"), format!("{together:?}"));
    }
    let listed: Vec<(Minor, bool)> = PROFILES.iter().map(|p| (p.minor, p.development)).collect();
    assert_eq!(minors().collect::<Vec<_>>(), listed);
}

#[test]
fn the_table_loads_and_every_minor_is_in_order() {
    let table = table::load(table::TABLE).unwrap();
    assert_eq!(PROFILES.len(), table.release.len());
    let minors: Vec<Minor> = PROFILES.iter().map(|p| p.minor).collect();
    let mut sorted = minors.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(minors, sorted);
    // Every opt-in a stage, file or unit names is an opt-in of that release.
    for profile in PROFILES.iter() {
        let opt_ins = profile
            .files
            .iter()
            .map(|f| (&f.path, &f.scope.opt_in))
            .chain(profile.units.iter().map(|u| (&u.name, &u.scope.opt_in)))
            .chain(profile.stages.iter().map(|s| (&s.name, &s.opt_in)));
        for (name, opt_in) in opt_ins {
            if let Some(opt_in) = opt_in {
                assert!(
                    profile.opt_ins.iter().any(|g| &g.name == opt_in),
                    "{}: {name} is behind opt-in {opt_in}, which the release does not have",
                    profile.minor
                );
            }
        }
    }
    // An opt-in is chosen only with feature sets its release accepts (CustomNoUpgrade chooses opt-ins
    // through their feature gates, never as a listed set), and at most one row per name.
    for profile in PROFILES.iter() {
        let mut names = std::collections::BTreeSet::new();
        for opt_in in &profile.opt_ins {
            assert!(
                names.insert(&opt_in.name),
                "{}: two {} opt-ins",
                profile.minor,
                opt_in.name
            );
            for set in &opt_in.feature_sets {
                assert!(
                    profile
                        .distributions
                        .iter()
                        .any(|d| d.feature_sets.contains(set))
                        && set != CUSTOM_FEATURE_SET,
                    "{}: opt-in {} is chosen with `{set}`, not a feature set the release lists",
                    profile.minor,
                    opt_in.name
                );
            }
        }
        for facts in &profile.distributions {
            assert!(facts.feature_sets.iter().any(|s| s.is_empty()));
            // The installer reads featureSet from 4.12; before, only the default exists.
            assert_eq!(
                facts.feature_sets.iter().any(|s| s == CUSTOM_FEATURE_SET),
                profile.minor >= super::Minor::new(4, 12),
                "{}",
                profile.minor
            );
            assert!(!facts.node_image.is_empty(), "{}", profile.minor);
        }
    }
    // A release that reads osImageStream has a default stream among the ones it accepts,
    // and the OSStreams opt-in that lets a cluster choose another.
    for profile in PROFILES.iter() {
        for facts in &profile.distributions {
            if facts.os_image_streams.is_empty() {
                continue;
            }
            assert!(
                facts.os_image_streams.contains(&facts.os_image_stream),
                "{} {}: default stream `{}` is not one it accepts",
                facts.distribution,
                profile.minor,
                facts.os_image_stream
            );
            assert!(
                profile.opt_ins.iter().any(|g| g.name == OS_STREAMS_OPT_IN),
                "{}: accepts osImageStream but has no {OS_STREAMS_OPT_IN} opt-in",
                profile.minor
            );
        }
    }
    // The PKI opt-in the signers' keys follow is a row of the table.
    assert!(
        PROFILES
            .iter()
            .any(|p| p.opt_ins.iter().any(|o| o.name == CONFIGURABLE_PKI_OPT_IN)),
        "no release has the {CONFIGURABLE_PKI_OPT_IN} opt-in"
    );
    for profile in PROFILES.iter() {
        for stage in &profile.stages {
            if let Some(image) = &stage.image {
                assert!(
                    image == "RELEASE_IMAGE_DIGEST"
                        || profile.images.iter().any(|i| &i.var == image),
                    "{}: stage {} uses {image}, which the release does not resolve",
                    profile.minor,
                    stage.name
                );
            }
        }
    }
}

/// A bad table is an error when it loads, naming what is wrong: never a smaller node.
#[test]
fn a_bad_table_is_refused_naming_the_fault() {
    let with = |extra: &str| table::load(&format!("{}\n{extra}", table::TABLE));
    let fault = with("[[switch]]\nname = \"no_such_switch\"\n").unwrap_err();
    assert!(fault.contains("no_such_switch"), "{fault}");
    let fault = with("[[file]]\npath = \"/x\"\nmode = 0o600\nopt_in = \"nope\"\n").unwrap_err();
    assert!(fault.contains("/x: no opt-in `nope`"), "{fault}");
    let fault = with("[[file]]\npath = \"/y\"\nmode = 0o600\noverlay = \"nope\"\n").unwrap_err();
    assert!(fault.contains("/y: no overlay `nope`"), "{fault}");
    let fault = with("[[file]]\npath = \"/z\"\nmode = 0o600\nsince = \"4.99\"\n").unwrap_err();
    assert!(fault.contains("`4.99` is not a supported minor"), "{fault}");
    let fault = with("[[capability_set]]\nname = \"4.11\"\n").unwrap_err();
    assert!(
        fault.contains("capability set `4.11` is not v<minor>"),
        "{fault}"
    );
    // Without a release outside development, a run that names none has nothing to take.
    let all_development = table::TABLE
        .replace("development = true\n", "")
        .replace("[[release]]\n", "[[release]]\ndevelopment = true\n");
    let fault = table::load(&all_development).unwrap_err();
    assert!(fault.contains("no release to default to"), "{fault}");
    let fault = with("[[unit]]\nname = \"v.service\"\nuntil = \"4.9.x\"\n").unwrap_err();
    assert!(fault.contains("`4.9.x` is not a minor"), "{fault}");
    let fault = with("[[file]]\npath = \"/w\"\nmode = 0o600\nwhen = \"sunny\"\n").unwrap_err();
    assert!(fault.contains("sunny"), "{fault}");
    let fault = with("[[unit]]\nname = \"u.service\"\nenabld = true\n").unwrap_err();
    assert!(fault.contains("enabld"), "{fault}");
}

/// Every switch has a row: a switch no row turns on is dead code in waiting.
#[test]
fn every_switch_has_a_row() {
    let table = table::load(table::TABLE).unwrap();
    for switch in Switch::ALL {
        assert!(
            table.switch.iter().any(|r| r.name == *switch),
            "{switch} has no [[switch]] row"
        );
    }
}

/// Every template of templates/node and templates/units (and of each overlay) has a row
/// saying which nodes have it, and every row names a template: a new file cannot reach (or
/// miss) the node by accident. No node gets two rows for one path or unit.
#[test]
fn every_template_is_declared_by_the_release_table() {
    use crate::render::files_under;
    use std::collections::BTreeSet;
    let table = table::load(table::TABLE).unwrap();
    let overlays: Vec<Option<String>> = std::iter::once(None)
        .chain(table.overlay.iter().map(|o| Some(o.name.clone())))
        .collect();
    for overlay in &overlays {
        let dir = table::files_dir(overlay);
        let templates: BTreeSet<String> = files_under(&dir)
            .iter()
            .map(|t| t.output_name().trim_start_matches(dir.as_str()).to_string())
            .collect();
        let rows: BTreeSet<String> = table
            .file
            .iter()
            .filter(|r| &r.overlay == overlay)
            .map(|r| r.path.clone())
            .collect();
        assert_eq!(
            templates, rows,
            "templates/{dir} and its [[file]] rows differ"
        );

        let dir = table::units_dir(overlay);
        let templates: BTreeSet<String> = files_under(&dir)
            .iter()
            .map(|t| {
                let relative = t.output_name().trim_start_matches(&format!("{dir}/"));
                relative
                    .split_once(".d/")
                    .map_or(relative, |(unit, _)| unit)
                    .to_string()
            })
            .collect();
        let rows: BTreeSet<String> = table
            .unit
            .iter()
            .filter(|r| &r.overlay == overlay)
            .map(|r| r.name.clone())
            .collect();
        assert_eq!(
            templates, rows,
            "templates/{dir} and its [[unit]] rows differ"
        );
    }
    for profile in all_profiles() {
        for dims in every_dims() {
            let all_opt_ins: Vec<String> = profile.opt_ins.iter().map(|g| g.name.clone()).collect();
            let node = profile.for_node(dims.flow, dims.platform, dims.distribution, &all_opt_ins);
            let mut seen = BTreeSet::new();
            for file in &node.files {
                assert!(
                    seen.insert(&file.path),
                    "{} ({dims:?}): two rows for {}",
                    profile.minor,
                    file.path
                );
                assert!(
                    crate::render::template(&file.template).is_some(),
                    "{}: no template {}",
                    file.path,
                    file.template
                );
            }
            let mut seen = BTreeSet::new();
            for unit in &node.units {
                assert!(
                    seen.insert(&unit.name),
                    "{} ({dims:?}): two rows for {}",
                    profile.minor,
                    unit.name
                );
            }
        }
    }
}

/// A row whose template is a Secret manifest is 0600 (the installer ships them 0644, but
/// a pull secret or a key should not be world-readable on the node).
#[test]
fn secret_manifests_are_private_in_the_table() {
    for profile in PROFILES.iter() {
        for file in &profile.files {
            let text = crate::render::template(&file.template)
                .map(|t| String::from_utf8_lossy(t.bytes).into_owned())
                .unwrap_or_default();
            if text.lines().any(|l| l == "kind: Secret") {
                assert_eq!(file.mode, 0o600, "{}", file.path);
            }
        }
    }
}

#[test]
fn a_patch_bound_splits_its_minor_at_that_z_stream() {
    let at = |minor: &str, patch| Point {
        minor: minor.parse().unwrap(),
        patch,
    };
    let from = Some("4.9.5".parse::<Bound>().unwrap());
    assert!(!holds(at("4.9", 4), &from, &None));
    assert!(holds(at("4.9", 5), &from, &None));
    assert!(holds(at("4.10", 0), &from, &None));
    let until = Some("4.9.4".parse::<Bound>().unwrap());
    assert!(holds(at("4.9", 4), &None, &until));
    assert!(!holds(at("4.9", 5), &None, &until));
    let bound: Bound = "4.9.5".parse().unwrap();
    assert_eq!((bound.minor, bound.patch), (Minor::new(4, 9), Some(5)));
    assert_eq!(bound.to_string(), "4.9.5");
    assert!("4.9.x".parse::<Bound>().is_err() && "4".parse::<Bound>().is_err());
    // The z-stream's profile exists and differs from the minor's where the table says so.
    let first = profile_for_patch(Minor::new(4, 9), 0).unwrap();
    let later = profile_for_patch(Minor::new(4, 9), 7).unwrap();
    assert_eq!(first.from_patch, 0);
    assert_eq!(later.from_patch, 5);
    let cluster = Dimensions::default();
    assert!(!first.switches(cluster).has(Switch::CvoOverrides));
    assert!(later.switches(cluster).has(Switch::CvoOverrides));
    let node = later.for_node(Flow::Cluster, Platform::None, Distribution::Ocp, &[]);
    assert!(node
        .file("/opt/openshift/original_cvo_overrides.patch")
        .is_some());
    let node = first.for_node(Flow::Cluster, Platform::None, Distribution::Ocp, &[]);
    assert!(node
        .file("/opt/openshift/original_cvo_overrides.patch")
        .is_none());
}

/// A switch, file or stage limited to one flow is on only there; an overlay's files reach
/// only its nodes.
#[test]
fn node_profiles_follow_flow_and_overlay() {
    let profile = profile_for(Minor::new(4, 16)).unwrap();
    let cluster = profile.for_node(Flow::Cluster, Platform::None, Distribution::Ocp, &[]);
    let single = profile.for_node(Flow::InPlace, Platform::None, Distribution::Ocp, &[]);
    assert!(!cluster.has(Switch::SingleNodeWorkerConfig));
    assert!(single.has(Switch::SingleNodeWorkerConfig));
    assert!(cluster.file("/usr/local/bin/install-to-disk.sh").is_none());
    let install = single.file("/usr/local/bin/install-to-disk.sh").unwrap();
    assert_eq!(install.mode, 0o555);
    assert_eq!(
        install.template,
        "single-node/node/usr/local/bin/install-to-disk.sh.j2"
    );
    assert!(single
        .units
        .iter()
        .any(|u| u.name == "install-to-disk.service" && u.enabled));
    assert!(!cluster
        .units
        .iter()
        .any(|u| u.name == "install-to-disk.service"));
    // registries.conf changed mode in 4.18.
    let mode = |minor| {
        profile_for(Minor::new(4, minor))
            .unwrap()
            .for_node(Flow::Cluster, Platform::None, Distribution::Ocp, &[])
            .file("/etc/containers/registries.conf")
            .unwrap()
            .mode
    };
    assert_eq!((mode(17), mode(18)), (0o600, 0o644));
}

/// A file for some nodes and a range of releases is one row: here a file of the
/// single-node overlay from 4.20 on reaches exactly those nodes.
#[test]
fn a_file_for_one_overlay_and_range_of_releases_is_one_row() {
    let row = "[[file]]\npath = \"/etc/example.conf\"\nmode = 0o644\noverlay = \"single-node\"\nsince = \"4.20\"\n";
    let table = table::load(&format!("{}\n{row}", table::TABLE)).unwrap();
    for profile in &build(&table, true) {
        for dims in every_dims() {
            let node = profile.for_node(dims.flow, dims.platform, dims.distribution, &[]);
            let has = node.file("/etc/example.conf").is_some();
            let wanted = dims.flow == Flow::InPlace && profile.minor >= Minor::new(4, 20);
            assert_eq!(has, wanted, "{} {dims:?}", profile.minor);
            if let Some(file) = node.file("/etc/example.conf") {
                assert_eq!(file.mode, 0o644);
                assert_eq!(file.template, "single-node/node/etc/example.conf");
            }
        }
    }
}

/// The same for a platform: a file only external-platform nodes get from 4.20 on is one row
/// (its template beside the others, or in a platform overlay).
#[test]
fn a_file_for_one_platform_and_range_of_releases_is_one_row() {
    let row = "[[file]]\npath = \"/etc/provider.conf\"\nmode = 0o600\nplatform = \"external\"\nsince = \"4.20\"\n";
    let table = table::load(&format!("{}\n{row}", table::TABLE)).unwrap();
    for profile in &build(&table, true) {
        for dims in every_dims() {
            let node = profile.for_node(dims.flow, dims.platform, dims.distribution, &[]);
            let wanted = dims.platform == Platform::External && profile.minor >= Minor::new(4, 20);
            assert_eq!(
                node.file("/etc/provider.conf").is_some(),
                wanted,
                "{} {dims:?}",
                profile.minor
            );
        }
    }
}

#[test]
fn ranges_are_inclusive() {
    let m = |t: &str| Some(t.parse::<Bound>().unwrap());
    let at = |minor, patch| Point {
        minor: Minor::new(4, minor),
        patch,
    };
    assert!(holds(at(12, 0), &m("4.12"), &None));
    assert!(!holds(at(11, 9), &m("4.12"), &None));
    assert!(holds(at(12, 30), &None, &m("4.12")));
    assert!(!holds(at(13, 0), &None, &m("4.12")));
}
