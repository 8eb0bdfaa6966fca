//! The conformance tests, one module per topic, in one test binary: linked once instead of once
//! per topic (see ARCHITECTURE.md, "Tests"). Each module runs the built `bootgen` against real
//! tools; none depends on being its own process (none changes the process's environment,
//! working directory or signal handling: every child gets its own).
//!
//! `hostile_inputs.rs` stays a binary of its own: it bounds the peak memory of the bootgen it
//! starts as `wait4` reports it, and Linux counts in a child's peak the parent's own at the
//! moment it was started, so the parent must be a small process, not this one running every
//! other topic beside it (folded in, a 185 MiB parent failed its 64 MiB bound).

mod bad_input;
mod bench_smoke;
mod bootkube_behaviour;
mod check;
mod diagnose_bundles;
mod diagnose_layouts;
mod diagnose_verdict;
mod disconnected_registry;
mod disk_choice;
mod error_table;
mod foreign_files;
mod gather_bundle;
mod golden_view;
mod ignition_apply;
mod installer_certificates;
mod installer_mistakes;
mod installer_objects;
mod machine_hosts;
mod manifests_parse;
mod media;
mod node_requests;
mod nothing_lost;
mod okd;
mod partitioning_and_ovn;
mod patch_installer_configs;
mod pki_field;
mod properties;
mod readme_examples;
mod reproducible;
mod secrets;
mod shared_output;
mod single_node;
mod static_network;
mod templates_lint;
mod terminal_escapes;
mod time_sources;
mod tls_real_clients;
mod toolkit_compress;
mod toolkit_diff;
mod toolkit_extract;
mod toolkit_inspect;
mod toolkit_package;
mod toolkit_validate;
mod unit_holds;
mod user_mistakes;
mod version;
mod vsphere;
