//! Benchmark 4: many user manifests through `bootgen ignition --manifests-dir`, as a process so
//! its peak memory can be measured (`ru_maxrss` from `wait4`), against the size of its output.
//! The PKI is reused, so key generation (random, and the same at every size) stays out of the
//! growth factors.

use std::path::PathBuf;
use std::process::Stdio;

use crate::manifests::write_manifests;
use crate::measure::{dir_size, mib, ms, run_child, Samples};
use crate::{remove_dir, Bench, Ratio, Result};

struct Point {
    count: usize,
    dir: Option<PathBuf>,
    input: u64,
    rounds: usize,
    wall: Samples,
    peak_rss: Vec<u64>,
    ignition: u64,
    output: u64,
}

impl Point {
    fn median_rss(&self) -> u64 {
        let mut v = self.peak_rss.clone();
        v.sort_unstable();
        v.get(v.len() / 2).copied().unwrap_or(0)
    }
}

/// Runs benchmark 4.
pub fn run(bench: &mut Bench) -> Result<()> {
    let (small, large) = if bench.quick {
        (100, 1_000)
    } else {
        (1_000, 10_000)
    };
    println!("\n4. Scale: `bootgen ignition --tls-dir T --manifests-dir D` as a process, ~10 KiB ConfigMaps");
    let tls = bench.base()?.join("tls");
    let mut points = vec![Point {
        count: 0,
        dir: None,
        input: 0,
        rounds: bench.iterations(1, 3),
        wall: Samples::default(),
        peak_rss: Vec::new(),
        ignition: 0,
        output: 0,
    }];
    for (count, rounds) in [
        (small, bench.iterations(1, 3)),
        (large, bench.iterations(1, 2)),
    ] {
        let dir = bench.path(&format!("manifests-{count}"));
        let input = write_manifests(&dir, count)?;
        points.push(Point {
            count,
            dir: Some(dir),
            input,
            rounds,
            wall: Samples::default(),
            peak_rss: Vec::new(),
            ignition: 0,
            output: 0,
        });
    }
    let rounds = points.iter().map(|p| p.rounds).max().unwrap_or(1);
    let out = bench.path("scale-out");
    for round in 0..rounds {
        let mut order: Vec<usize> = (0..points.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for i in order {
            let Some(point) = points.get_mut(i) else {
                continue;
            };
            if round >= point.rounds {
                continue;
            }
            remove_dir(&out)?;
            let mut cmd = bench.cli();
            cmd.arg("ignition")
                .arg("--tls-dir")
                .arg(&tls)
                .arg("--output")
                .arg(&out);
            if let Some(dir) = &point.dir {
                cmd.arg("--manifests-dir").arg(dir);
            }
            let what = format!("bootgen ignition with {} manifests", point.count);
            let run = run_child(&mut cmd, Stdio::null(), &what)?;
            point.wall.push(run.wall);
            point.peak_rss.push(run.peak_rss);
            point.ignition = std::fs::metadata(out.join("bootstrap.ign"))?.len();
            point.output = dir_size(&out)?;
            remove_dir(&out)?;
        }
    }
    println!(
        "  {:>9}  {:>10}  {:>14}  {:>10}  {:>10}  {:>10}  {:>13}",
        "manifests", "input", "bootstrap.ign", "output dir", "wall", "peak RSS", "RSS / output"
    );
    for p in &points {
        println!(
            "  {:>9}  {:>10}  {:>14}  {:>10}  {:>10}  {:>10}  {:>13}",
            p.count,
            mib(p.input),
            mib(p.ignition),
            mib(p.output),
            ms(p.wall.median()),
            mib(p.median_rss()),
            format!("{:.2}x", p.median_rss() as f64 / p.output as f64),
        );
    }
    let [base, small, large] = points.as_slice() else {
        return Err("scale: expected three points".into());
    };
    let factor = large.count as f64 / small.count as f64;
    let time_growth = large.wall.median() / small.wall.median();
    let rss_growth = large.median_rss() as f64 / small.median_rss() as f64;
    let output_growth = large.output as f64 / small.output as f64;
    // Above the fixed cost of a run without manifests: what the manifests themselves cost.
    let marginal = |l: f64, s: f64, b: f64| (l - b) / (s - b);
    println!(
        "  growth {} -> {} manifests (x{factor:.0}): output x{output_growth:.2}, time x{time_growth:.2}, peak RSS x{rss_growth:.2}",
        small.count, large.count
    );
    println!(
        "  above the run without manifests ({} , {}): time x{:.2}, peak RSS x{:.2}",
        ms(base.wall.median()),
        mib(base.median_rss()),
        marginal(large.wall.median(), small.wall.median(), base.wall.median()),
        marginal(
            large.median_rss() as f64,
            small.median_rss() as f64,
            base.median_rss() as f64
        ),
    );
    // Linear: growing no faster than the input, with 25% allowance for noise.
    let limit = factor * 1.25;
    let ceiling = |value: f64, goal: f64| Ratio {
        value,
        goal,
        at_least: false,
    };
    bench.ratio_verdict(
        "4a. scale: time grows linearly",
        format!(
            "x{time_growth:.2} for x{factor:.0} manifests ({} -> {}; goal <= x{limit:.1})",
            ms(small.wall.median()),
            ms(large.wall.median())
        ),
        ceiling(time_growth, limit),
    );
    bench.ratio_verdict(
        "4b. scale: peak memory grows linearly",
        format!(
            "x{rss_growth:.2} for x{factor:.0} manifests ({} -> {}; goal <= x{limit:.1})",
            mib(small.median_rss()),
            mib(large.median_rss())
        ),
        ceiling(rss_growth, limit),
    );
    let ratio = large.median_rss() as f64 / large.output as f64;
    bench.ratio_verdict(
        "4c. scale: peak memory / output size",
        format!(
            "{ratio:.2}x at {} manifests ({} peak RSS, {} output; goal < 3x)",
            large.count,
            mib(large.median_rss()),
            mib(large.output)
        ),
        ceiling(ratio, 3.0),
    );
    Ok(())
}
