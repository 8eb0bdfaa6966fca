//! Keeps the benchmark binary (`src/bin/bootgen-bench`) from rotting: its cheapest benchmark in
//! `--quick` mode runs to the end, in process and through the re-executed CLI. Figures are not
//! checked here (a debug build on a busy machine says nothing); BENCHMARKS.md has the real ones.

use std::process::Command;

type TestResult = Result<(), Box<dyn std::error::Error>>;

const BENCH: &str = env!("CARGO_BIN_EXE_bootgen-bench");

#[test]
fn quick_reused_benchmark_runs_and_reports() -> TestResult {
    let output = Command::new(BENCH)
        .args(["--quick", "--only", "reused"])
        .output()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    for expected in [
        "machine: ",
        "3. Reused PKI",
        "3a. reused PKI, same dir, in process: median ",
        "3b. reused PKI, new dir, in process: median ",
        "3c. reused PKI, CLI process: median ",
        "3d. reused PKI, CLI process / in process: ",
        "Summary",
    ] {
        assert!(
            stdout.contains(expected),
            "missing `{expected}` in:\n{stdout}"
        );
    }
    Ok(())
}

#[test]
fn unknown_benchmark_is_refused_with_usage() -> TestResult {
    let output = Command::new(BENCH).args(["--only", "nonsense"]).output()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("unknown benchmark `nonsense`"), "{stderr}");
    assert!(stderr.contains("usage: bootgen-bench"), "{stderr}");
    Ok(())
}
