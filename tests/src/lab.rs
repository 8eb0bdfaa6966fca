//! The lab cluster many CLI tests start from, as install-config text.

/// The lab's SSH public key (made up: no private key exists for it).
pub const LAB_SSH_KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f lab@example.com";

/// What varies between the tests that use the lab cluster.
#[derive(Clone, Copy)]
pub struct Lab<'a> {
    /// `baseDomain`.
    pub base_domain: &'a str,
    /// Lines indented under `networking:`, after its machine network.
    pub networking: &'a str,
    /// Whether it has [`LAB_SSH_KEY`].
    pub ssh_key: bool,
    /// Top-level keys at the end.
    pub tail: &'a str,
}

impl Default for Lab<'_> {
    fn default() -> Self {
        Lab {
            base_domain: "example.com",
            networking: "",
            ssh_key: true,
            tail: "",
        }
    }
}

impl Lab<'_> {
    /// A compact cluster `lab` (three control-plane nodes, no workers) on platform none, with
    /// OVN-Kubernetes on the machine network 192.0.2.0/24 and a made-up pull secret. Tests name
    /// its lines by number (`networking` starts at line 15), so keep its shape.
    pub fn install_config(&self) -> String {
        let ssh_key = if self.ssh_key {
            format!("sshKey: {LAB_SSH_KEY}\n")
        } else {
            String::new()
        };
        format!(
            "apiVersion: v1
metadata:
  name: lab
baseDomain: {base_domain}
controlPlane:
  name: master
  replicas: 3
compute:
- name: worker
  replicas: 0
networking:
  networkType: OVNKubernetes
  machineNetwork:
  - cidr: 192.0.2.0/24
{networking}platform:
  none: {{}}
pullSecret: '{{\"auths\":{{\"fake\":{{\"auth\":\"aWQ6cGFzcwo=\"}}}}}}'
{ssh_key}{tail}",
            base_domain = self.base_domain,
            networking = self.networking,
            tail = self.tail,
        )
    }
}
