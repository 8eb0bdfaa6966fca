//! Timings for the report and the benchmark goal; ignored by default.

use super::tests::{request, TestResult};
use super::*;

/// Process CPU time (user + system) in seconds, from /proc (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let after = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .unwrap_or_default();
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// Timings for the report and the benchmark goal (not a timed test):
/// `cargo test --release -p bootgen --lib pki::tests_timing::measure -- --ignored --nocapture`.
/// Wall times suffer when other processes share the cores; CPU times do not.
#[test]
#[ignore]
fn measure_generation_time() -> TestResult {
    use std::time::Instant;
    let rounds = 8;
    for algorithm in [KeyAlgorithm::Rsa2048, KeyAlgorithm::EcdsaP256] {
        let mut wall = [0.0f64; 4];
        let mut cpu = [0.0f64; 3];
        for _ in 0..rounds {
            let (start, start_cpu) = (Instant::now(), cpu_seconds());
            for _ in 0..FRESH_KEY_COUNT {
                keys::PrivateKey::generate(algorithm).map_err(|()| "keygen")?;
            }
            wall[0] += start.elapsed().as_secs_f64();
            cpu[0] += cpu_seconds() - start_cpu;
            let (start, start_cpu) = (Instant::now(), cpu_seconds());
            generate_key_pairs(algorithm, FRESH_KEY_COUNT)?;
            wall[1] += start.elapsed().as_secs_f64();
            cpu[1] += cpu_seconds() - start_cpu;
            let (start, start_cpu) = (Instant::now(), cpu_seconds());
            let (pki, _) = Pki::build(&request(algorithm), None)?;
            wall[2] += start.elapsed().as_secs_f64();
            cpu[2] += cpu_seconds() - start_cpu;
            let dir = tempfile::tempdir()?;
            for file in pki.store_files() {
                std::fs::write(dir.path().join(&file.name), &file.contents)?;
            }
            let start = Instant::now();
            let (again, _) = Pki::build(&request(algorithm), Some(dir.path()))?;
            let _ = again.store_files();
            wall[3] += start.elapsed().as_secs_f64();
        }
        let n = f64::from(rounds);
        let ms = |s: f64| s / n * 1e3;
        println!(
            "{algorithm}: {FRESH_KEY_COUNT} keys, {rounds} rounds, {} threads; per key {:.1} ms wall / {:.1} ms CPU; \
             floor {:.0} ms wall / {:.0} ms CPU; full build {:.0} ms wall / {:.0} ms CPU; \
             ratio {:.3} wall / {:.3} CPU; reuse {:.1} ms",
            rayon::current_num_threads(),
            ms(wall[0]) / FRESH_KEY_COUNT as f64,
            ms(cpu[0]) / FRESH_KEY_COUNT as f64,
            ms(wall[1]),
            ms(cpu[1]),
            ms(wall[2]),
            ms(cpu[2]),
            wall[2] / wall[1],
            cpu[2] / cpu[1],
            ms(wall[3]),
        );
    }
    Ok(())
}
