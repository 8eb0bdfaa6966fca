//! The command-line definition (clap derive). Values with a library type parse through its
//! `FromStr`, so a bad one is refused by clap with the flag's name.

use bootgen::model::Arch;
use bootgen::passes::mirrors::{check_insecure_registry, HostEntry, MirrorRule};
use bootgen::pki::KeyAlgorithm;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

mod media;
pub use media::{IsoArgs, MediaArgs, PxeArgs};

/// Generate, inspect and patch OpenShift bootstrap Ignition configs.
#[derive(Debug, Parser)]
#[command(name = "bootgen", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Generate bootstrap.ign, master.ign, worker.ign, metadata.json, auth/ and tls/.
    Ignition(Box<IgnitionArgs>),
    /// Apply unit holds/masks, debug mode and mirror settings to any Ignition config (spec 3.0-3.5).
    Patch(Box<PatchArgs>),
    /// Summarize a config (files, units, users, size budget) or report its certificates.
    Inspect(InspectArgs),
    /// Write every file, unit and drop-in of a config below a directory.
    Extract(ExtractArgs),
    /// Semantic diff of two configs, or of every output two directories hold (exit 0 same, 1 different, 2 unreadable or bad usage).
    Diff(DiffArgs),
    /// Check configs with Ignition's rules and bootgen's lints (exit 1 when any is invalid).
    Validate(ValidateArgs),
    /// Write a small spec 3.2.0 config that replaces itself with IN.ign fetched from a URL.
    Pointer(PointerArgs),
    /// Embed a config into a CoreOS live ISO: the live system's config, or (with --dest-device) an ISO that installs itself.
    Iso(Box<IsoArgs>),
    /// Write the PXE set (kernel, initramfs with the config appended, rootfs, iPXE and GRUB entries) from a CoreOS live ISO.
    Pxe(Box<PxeArgs>),
    /// Pack an output directory into a reproducible .tar.gz with SHA256SUMS inside.
    Package(PackageArgs),
    /// Finish (or undo) a write into an output directory that a killed run left, and nothing else.
    Recover(RecoverArgs),
    /// Print shell completions for bash, zsh, fish, elvish or powershell.
    Completions(CompletionsArgs),
    /// Write bootgen's man pages.
    Man(ManArgs),
    /// List the supported OpenShift releases, or what differs between two of them.
    Releases(ReleasesArgs),
    /// Say why a bootstrap failed, from a log bundle or on the node (exit 0 no failure found,
    /// 1 a failure explained, 2 unreadable input or bad usage).
    Diagnose(DiagnoseArgs),
    /// Test, before the nodes boot, the DNS names, load balancer, mirrors and clock the configs
    /// need (exit 0 ready, 1 a test failed or the configs are unreadable).
    Check(CheckArgs),
    /// List the pending certificate requests of a hosts file's machines, from `oc get csr -o
    /// json`: one name a line, for `xargs oc adm certificate approve` (exit 1 unreadable input).
    Csrs(CsrsArgs),
}

/// `bootgen csrs`.
#[derive(Debug, Args)]
pub struct CsrsArgs {
    /// What `oc get csr -o json` printed, or - for standard input.
    #[arg(value_name = "CSRS.json", default_value = "-")]
    pub input: PathBuf,
    /// The machines whose kubelets' requests to list (an agent-config.yaml's hosts).
    #[arg(long, value_name = "FILE")]
    pub hosts: PathBuf,
}

/// `bootgen check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The output directory `bootgen ignition` wrote, or any bootstrap.ign.
    #[arg(value_name = "OUTPUT|BOOTSTRAP.IGN", default_value = "bootgen-out")]
    pub input: PathBuf,
    /// Ask this DNS server (IP:PORT) instead of the system resolver, for split DNS.
    #[arg(long, value_name = "IP:PORT")]
    pub dns_server: Option<std::net::SocketAddr>,
    /// The API's port on the load balancer.
    #[arg(long, value_name = "PORT", default_value_t = bootgen::check::API_PORT,
          value_parser = clap::value_parser!(u16).range(1..))]
    pub api_port: u16,
    /// The machine-config server's port on the load balancer (default: the pointer config's,
    /// 22623).
    #[arg(long, value_name = "PORT", value_parser = clap::value_parser!(u16).range(1..))]
    pub machine_config_port: Option<u16>,
    /// The port the nodes' NTP servers (the config's /etc/chrony.conf) answer on.
    #[arg(long, value_name = "PORT", default_value_t = bootgen::check::NTP_PORT,
          value_parser = clap::value_parser!(u16).range(1..))]
    pub ntp_port: u16,
    /// Seconds each lookup, connection, handshake or response may take (1 to 600).
    #[arg(long, value_name = "SECONDS", default_value_t = 5,
          value_parser = clap::value_parser!(u64).range(1..=600))]
    pub timeout: u64,
    /// The time (RFC 3339) the certificates must last until; default now. This machine's
    /// clock, compared with the servers', is read as it is.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also print every DNS question, connection and request made.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// After the tests, follow the install on the bootstrap machine (over SSH, as core with
    /// OUTPUT/auth/bootstrap-ssh-key) until it completes (exit 0) or fails or stalls (exit 1,
    /// with diagnose's cause and fix from a log bundle gathered there).
    #[arg(long, requires = "bootstrap")]
    pub watch: bool,
    /// The bootstrap machine's address: SSH to it is tested (as core with
    /// OUTPUT/auth/bootstrap-ssh-key), and --watch follows it.
    #[arg(long, value_name = "HOST")]
    pub bootstrap: Option<String>,
    /// With --watch: seconds between two looks at the bootstrap machine.
    #[arg(long, value_name = "SECONDS", default_value_t = 15)]
    pub interval: u64,
    /// With --watch: seconds without completion after which the install counts as stalled.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    pub stall_after: u64,
}

/// `bootgen diagnose`.
#[derive(Debug, Args)]
pub struct DiagnoseArgs {
    /// A log bundle (`log-bundle-*.tar.gz` from `openshift-install gather bootstrap` or the
    /// node's installer-gather.sh) or its unpacked directory.
    #[arg(
        value_name = "BUNDLE|DIR",
        required_unless_present = "node",
        conflicts_with = "node"
    )]
    pub bundle: Option<PathBuf>,
    /// Diagnose this node: read /var/log/openshift, the .done markers in /opt/openshift, the
    /// journal, crictl and podman (run it as root on the bootstrap node).
    #[arg(long)]
    pub node: bool,
    /// With --node: the present time (RFC 3339), which says how long the node has waited;
    /// default SOURCE_DATE_EPOCH, else now.
    // Refused without --node by `diagnose::run`: clap's `requires = "node"` would take --node's
    // default, false, for given.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `bootgen releases`.
#[derive(Debug, Args)]
pub struct ReleasesArgs {
    /// Two releases to compare (`4.16 4.19`, or patch releases such as `4.9.0 4.9.5` where a
    /// fact changed within a minor); none lists every supported release and z-stream change.
    #[arg(value_name = "MINOR", num_args = 0..=2)]
    pub minors: Vec<String>,
    /// With two releases: also print each one's stages and commands (one release alone
    /// prints them anyway).
    #[arg(long)]
    pub commands: bool,
}

/// Unit transforms shared by `ignition` and `patch`.
#[derive(Debug, Args, Clone, Default)]
pub struct PassArgs {
    /// Hold UNIT (and the units that require it): it does not start at boot, even when wanted; release with `sudo /usr/local/bin/bootgen-release UNIT`.
    #[arg(long = "disable-unit", value_name = "UNIT")]
    pub disable_units: Vec<String>,
    /// Mask UNIT (it cannot be started at all).
    #[arg(long = "mask-unit", value_name = "UNIT")]
    pub mask_units: Vec<String>,
    /// Hold bootkube.service, raise kubelet's log level, explain the manual run in /etc/motd.
    #[arg(long)]
    pub debug: bool,
    /// Gzip each file's contents where that makes the config smaller.
    #[arg(long)]
    pub compress: bool,
    /// Pull SOURCE/... from MIRROR/... (repeatable), e.g. quay.io/openshift-release-dev/ocp-release=mirror.example.com:5000/ocp/release.
    #[arg(
        long = "mirror",
        value_name = "SOURCE=MIRROR",
        help_heading = "Disconnected installs"
    )]
    pub mirrors: Vec<MirrorRule>,
    /// Never contact the mirrored sources: `blocked = true` and NeverContactSource.
    #[arg(long, help_heading = "Disconnected installs")]
    pub block_source: bool,
    /// Allow plain HTTP or an unverified certificate for this registry (repeatable).
    #[arg(
        long = "insecure-registry",
        value_name = "HOST[:PORT]",
        value_parser = check_insecure_registry,
        help_heading = "Disconnected installs"
    )]
    pub insecure_registries: Vec<String>,
    /// Append `IP NAME...` to the node's /etc/hosts (repeatable).
    #[arg(
        long = "add-host",
        value_name = "IP=NAME[,NAME...]",
        help_heading = "Disconnected installs"
    )]
    pub add_hosts: Vec<HostEntry>,
    /// Docker config JSON with the mirror's credentials, merged into the pull secret (its entries win).
    #[arg(long, value_name = "FILE", help_heading = "Disconnected installs")]
    pub registry_auth: Option<PathBuf>,
    /// PEM CA certificates for the mirror: added to the node's anchors and the user-ca-bundle.
    #[arg(long, value_name = "FILE", help_heading = "Disconnected installs")]
    pub trust_bundle: Option<PathBuf>,
}

/// `bootgen ignition`.
#[derive(Debug, Args)]
pub struct IgnitionArgs {
    /// install-config.yaml to read (default: ./install-config.yaml when it exists, else an embedded example cluster, with warnings).
    #[arg(long, value_name = "FILE")]
    pub install_config: Option<PathBuf>,
    /// Control-plane architecture: amd64, arm64, ppc64le, s390x (or x86_64, aarch64).
    #[arg(long, value_name = "ARCH")]
    pub arch: Option<Arch>,
    /// The bootstrap host's architecture, when it differs from the control plane (needs a multi payload).
    #[arg(long, value_name = "ARCH")]
    pub bootstrap_arch: Option<Arch>,
    /// Release payload pull spec (default: the OCP release for the architecture; OKD's are quay.io/okd/scos-release:X.Y.Z-okd-scos.N).
    #[arg(long, value_name = "REF")]
    pub release_image: Option<String>,
    /// OCP version the default release image is derived from.
    #[arg(long, value_name = "X.Y.Z")]
    pub release_version: Option<String>,
    /// ocp or okd (default: the one the release image or its mirrored source names, else ocp); needed for an OKD payload given by a digest that names neither.
    #[arg(long, value_name = "ocp|okd")]
    pub distribution: Option<bootgen::release::Distribution>,
    /// Accept a release image whose tag names another architecture.
    #[arg(long)]
    pub allow_arch_mismatch: bool,
    /// The release image (e.g. a digest) is a multi-architecture payload, as --bootstrap-arch and mixed pools need.
    #[arg(long)]
    pub multi_arch_payload: bool,
    /// Single-node OpenShift: write bootstrap-in-place-for-live-iso.ign, which installs the one node from the live ISO (also chosen by an install-config with bootstrapInPlace, one control-plane replica and no compute).
    #[arg(long)]
    pub single_node: bool,
    /// The single node's installation disk, e.g. /dev/sda (overrides bootstrapInPlace.installationDisk).
    #[arg(long, value_name = "DEVICE")]
    pub installation_disk: Option<String>,
    /// Leave out the machine API's Machines, MachineSets and ControlPlaneMachineSet of a platform that has them (vSphere): for machines you create yourself, as the installer's UPI documents tell you to delete them.
    #[arg(long)]
    pub without_machine_manifests: bool,
    /// Extra manifests for /opt/openshift/manifests (walked recursively).
    #[arg(long, value_name = "DIR")]
    pub manifests_dir: Option<PathBuf>,
    /// Extra manifests for /opt/openshift/openshift (walked recursively).
    #[arg(long, value_name = "DIR")]
    pub openshift_dir: Option<PathBuf>,
    /// Each host's network (an agent installer's agent-config.yaml, or a hosts file of its
    /// shape): checked against the cluster; the bootstrap's (or the single node's) keyfiles and
    /// host name go into its config, and each control-plane or compute host's into
    /// hosts/HOST.ign. Keyfiles match each NIC by its MAC, whatever the kernel names it.
    #[arg(long, value_name = "FILE")]
    pub hosts: Option<PathBuf>,
    /// A NetworkManager keyfile of your own for the bootstrap (or the single node), placed in
    /// /etc/NetworkManager/system-connections with mode 0600 (repeatable).
    #[arg(long, value_name = "FILE")]
    pub network_keyfile: Vec<PathBuf>,
    /// Output directory.
    #[arg(long, short = 'o', value_name = "DIR", default_value = "bootgen-out")]
    pub output: PathBuf,
    /// Also pack the output directory into this reproducible .tar.gz (see `bootgen package`).
    #[arg(long, value_name = "FILE.tar.gz")]
    pub package: Option<PathBuf>,
    /// Replace existing configs in the output directory (keys are never replaced); with
    /// `--iso`, also take a live ISO that is already customized.
    #[arg(long)]
    pub force: bool,
    /// When another bootgen run is using the output directory, wait for it instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// Write over an output directory made for another cluster (another name, base domain or
    /// infra ID), the embedded example's included.
    #[arg(long)]
    pub replace_cluster: bool,
    /// Treat warnings as errors.
    #[arg(long)]
    pub strict: bool,
    /// Reuse the PKI in DIR (default: OUTPUT/tls when it exists).
    #[arg(long, value_name = "DIR")]
    pub tls_dir: Option<PathBuf>,
    /// Key type: rsa2048 (default), rsa3072, rsa4096, rsa8192, ecdsa-p256, ecdsa-p384,
    /// ecdsa-p521 (the install-config's `pki` names the signers' own).
    #[arg(long, value_name = "ALG", default_value = "rsa2048")]
    pub key_algorithm: KeyAlgorithm,
    /// Re-issue expired leaf certificates under their existing CAs.
    #[arg(long)]
    pub renew_expired: bool,
    /// The time certificates start from (RFC 3339); default SOURCE_DATE_EPOCH, else now.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// Also write boot media from this CoreOS live ISO into OUTPUT/media: the single node's live ISO, or bootstrap, master and worker ISOs that install to --dest-device.
    #[arg(long, value_name = "LIVE.iso", help_heading = "Boot media")]
    pub iso: Option<PathBuf>,
    /// Also write PXE sets from this CoreOS live ISO into OUTPUT/media/pxe, one per role (with --pxe-base-url, or the --hosts file's bootArtifactsBaseURL).
    #[arg(long, value_name = "LIVE.iso", help_heading = "Boot media")]
    pub pxe: Option<PathBuf>,
    /// The URL the PXE sets are served from, for their boot entries (default: the --hosts
    /// file's bootArtifactsBaseURL).
    #[arg(
        long,
        value_name = "URL",
        requires = "pxe",
        help_heading = "Boot media"
    )]
    pub pxe_base_url: Option<String>,
    /// The disk the --iso and --pxe install media install to without asking (e.g. /dev/sda).
    #[arg(long, value_name = "DEVICE", help_heading = "Boot media")]
    pub dest_device: Option<String>,
    /// Unit transforms.
    #[command(flatten)]
    pub passes: PassArgs,
}

/// `bootgen patch`.
#[derive(Debug, Args)]
pub struct PatchArgs {
    /// The config to patch (`-` for standard input).
    #[arg(value_name = "IN.ign")]
    pub input: PathBuf,
    /// Where to write the result (`-` for standard output; may equal the input).
    #[arg(long, short = 'o', value_name = "OUT.ign")]
    pub output: PathBuf,
    /// Treat pre-flight warnings as errors.
    #[arg(long)]
    pub strict: bool,
    /// When another bootgen run is using the output directory OUT.ign is in, wait for it
    /// instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// Unit transforms.
    #[command(flatten)]
    pub passes: PassArgs,
}

/// `bootgen validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The configs to check (`-` for standard input).
    #[arg(value_name = "IN.ign", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Only Ignition's own rules: skip the unit-graph, secret-mode and certificate lints.
    #[arg(long)]
    pub no_lint: bool,
    /// Treat warnings as errors.
    #[arg(long)]
    pub strict: bool,
    /// Warn about certificates expiring within this long (e.g. 24h, 90m, 7d).
    #[arg(long, value_name = "DURATION", default_value = "24h")]
    pub warn_within: String,
    /// The clock for certificate checks (RFC 3339); default SOURCE_DATE_EPOCH, else now.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
}

/// `bootgen inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The config (`-` for standard input), or an output directory (its bootstrap.ign; with
    /// --certs also tls/ and auth/kubeconfig).
    #[arg(value_name = "IN.ign|DIR")]
    pub input: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Report every certificate inside: subject, issuer, SANs, validity, time left. Exits 1 when
    /// any has expired.
    #[arg(long)]
    pub certs: bool,
    /// Print only the size budget: the config against every channel (the user-data limits of
    /// each cloud, the live ISO's embed area, PXE/HTTP), whatever platform it is for.
    #[arg(long, conflicts_with_all = ["certs", "golden"])]
    pub budget: bool,
    /// With --certs: flag certificates expiring within this long (e.g. 24h, 90m, 7d).
    #[arg(long, value_name = "DURATION", default_value = "24h")]
    pub warn_within: String,
    /// With --certs: the clock (RFC 3339); default SOURCE_DATE_EPOCH, else now.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// Print the golden view of an output directory: one stable text (bootstrap, master and
    /// worker configs, metadata.json, auth/) that stays byte-identical across PKIs and clocks,
    /// for golden-file tests.
    #[arg(long, conflicts_with_all = ["certs", "json"])]
    pub golden: bool,
    /// Print the config's objects view as JSON (what `diff --objects` compares): files with
    /// modes and parsed, normalized objects, units with enablement and dependencies, users.
    #[arg(long, conflicts_with_all = ["certs", "golden"])]
    pub objects: bool,
    /// With --golden: write the view to FILE instead of standard output.
    // Refused without --golden by `inspect::run`: clap's `requires = "golden"` would take
    // --golden's default, false, for given.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `bootgen diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The old config, or an output directory: then bootstrap.ign, master.ign, worker.ign,
    /// metadata.json and auth/kubeconfig are compared with the other directory's.
    #[arg(value_name = "A.ign|DIR")]
    pub old: PathBuf,
    /// The new config, or an output directory.
    #[arg(value_name = "B.ign|DIR")]
    pub new: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Compare what the node and its operators read instead of bytes: each file's path and
    /// mode, the parsed objects of every manifest, kubeconfig and JSON/TOML file (keys,
    /// certificates, secrets and per-run IDs as placeholders), each unit's enablement and
    /// dependencies, what it fetches from elsewhere. Of two output directories: each config,
    /// with metadata.json and auth/kubeconfig beside bootstrap.ign. Two runs of the same
    /// cluster compare equal; so does a bootgen config and the installer's for the same
    /// install-config and release, where they agree.
    #[arg(long)]
    pub objects: bool,
}

/// `bootgen extract`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The config (`-` for standard input).
    #[arg(value_name = "IN.ign")]
    pub input: PathBuf,
    /// The directory to write into (created if needed); nothing is written outside it.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: PathBuf,
    /// Replace files DIR already holds with other contents (else they are refused, naming
    /// them, and nothing is written).
    #[arg(long)]
    pub force: bool,
}

/// `bootgen pointer`.
#[derive(Debug, Args)]
pub struct PointerArgs {
    /// Where the node fetches IN.ign from (https://, http://, s3://, gs://, tftp://).
    #[arg(long, value_name = "URL")]
    pub url: String,
    /// PEM CA certificate(s) that sign the server's certificate (each becomes a trusted CA).
    #[arg(long, value_name = "FILE")]
    pub ca: Option<PathBuf>,
    /// The config that will be served at URL, byte for byte (its SHA-512 goes into the pointer).
    #[arg(value_name = "IN.ign")]
    pub input: PathBuf,
    /// The pointer config to write.
    #[arg(long, short = 'o', value_name = "OUT.ign")]
    pub output: PathBuf,
    /// Replace OUT.ign when it exists (never IN.ign itself).
    #[arg(long)]
    pub force: bool,
}

/// `bootgen completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// bash, elvish, fish, powershell or zsh.
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// `bootgen man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write bootgen.1 and one bootgen-COMMAND.1 per subcommand into DIR (default: print
    /// bootgen.1 to standard output).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: Option<PathBuf>,
}

/// `bootgen recover`.
#[derive(Debug, Args)]
pub struct RecoverArgs {
    /// The output directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// When another bootgen run is using DIR, wait for it instead of failing.
    #[arg(long)]
    pub wait: bool,
}

/// `bootgen package`.
#[derive(Debug, Args)]
pub struct PackageArgs {
    /// The output directory to pack.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The tarball to write (atomically, mode 0600: it holds keys).
    #[arg(long, short = 'o', value_name = "FILE.tar.gz")]
    pub output: PathBuf,
    /// When a bootgen run is writing DIR, wait for it instead of failing.
    #[arg(long)]
    pub wait: bool,
}
