//! Reading a release payload from a mirror: its manifest (through an index, to the first
//! manifest listed), its layers newest first, and in them `release-manifests/image-references`,
//! the image stream that names every image of the release, and the machine-config operator's
//! `machine-config-osimageurl` ConfigMap.
//!
//! From 4.21 on the payload carries the node images of each OS image stream (5.0: `rhel-9` and
//! `rhel-10`) as tags of its image stream, built from `github.com/openshift/os`;
//! `node-image-pull.service` runs the operator's `machine-config-osimagestream`, which inspects
//! every one of them to find its stream's node image, so each must be in the mirror. The
//! ConfigMap names the default stream's images (`baseOSContainerImage`,
//! `baseOSExtensionsContainerImage`), which the operator reads too.

use super::probe::{Asked, Probes, Transport};
use super::redirect::{get_elsewhere, is_redirect, Location, Reach, MAX_REDIRECTS};
use super::registry::Session;
use serde_json::Value;
use std::collections::BTreeSet;
use std::io::Read;

/// The file of a payload that names its images.
const IMAGE_REFERENCES: &str = "release-manifests/image-references";
/// What the machine-config operator's OS image ConfigMap's file name holds.
const OS_IMAGE_URL: &str = "osimageurl";
/// The keys of that ConfigMap that name node images.
const OS_IMAGE_KEYS: &[&str] = &["baseOSContainerImage", "baseOSExtensionsContainerImage"];
/// Where the OS images are built from, as their tags' annotation says.
const OS_SOURCE: &str = "github.com/openshift/os";
/// The most of one layer read, decompressed.
const MAX_LAYER_BYTES: u64 = 1 << 30;
/// The most of the image-references file read.
const MAX_REFERENCES_BYTES: u64 = 16 << 20;

/// An image the release names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reference {
    /// Its tag in the payload's image stream, or the ConfigMap key that names it.
    pub(crate) name: String,
    /// Its pull spec.
    pub(crate) image: String,
    /// Whether it is a node image of an OS image stream (or its extensions).
    pub(crate) os_stream: bool,
}

/// `/v2/<repository>/manifests/<reference>`.
pub(crate) fn manifest_path(repository: &str, reference: &str) -> String {
    format!("/v2/{repository}/manifests/{reference}")
}

/// Why a payload file could not be read.
#[derive(Debug)]
pub(crate) enum Unread {
    /// The mirror's answer, or what its files hold.
    Mirror(String),
    /// The host a redirect of the mirror's sent the request to, the URL (shown without its
    /// query), and why that failed: the nodes' pulls would fail there too.
    Redirected {
        host: String,
        location: String,
        error: String,
    },
}

impl From<String> for Unread {
    fn from(error: String) -> Unread {
        Unread::Mirror(error)
    }
}

impl From<&str> for Unread {
    fn from(error: &str) -> Unread {
        Unread::Mirror(error.to_string())
    }
}

/// GETs `path` from the mirror, following its redirects as the node does; the hosts other
/// than the mirror that served it go to `served_from`.
fn fetch(
    session: &mut Session,
    probes: &dyn Probes,
    reach: Reach,
    repository: &str,
    path: &str,
    asked: Asked,
    served_from: &mut BTreeSet<String>,
) -> Result<Vec<u8>, Unread> {
    let mut response = session.get(probes, path, repository, asked)?;
    let plain = session.transport == Transport::Plain;
    let mut elsewhere: Option<Location> = None;
    for _ in 0..MAX_REDIRECTS {
        if !is_redirect(response.status) {
            break;
        }
        let header = response.header("location").unwrap_or_default();
        let location = Location::parse(header, &session.host, plain)
            .map_err(|error| format!("{path}: {error}"))?;
        response = if location.host == session.host && location.plain == plain {
            session.get(probes, &location.path, repository, asked)?
        } else {
            let answer = get_elsewhere(probes, &location, reach, asked);
            let (host, shown) = (location.host.clone(), location.shown());
            elsewhere = Some(location);
            answer.map_err(|error| Unread::Redirected {
                host,
                location: shown,
                error,
            })?
        };
    }
    let failed = |error: String| match &elsewhere {
        Some(location) => Unread::Redirected {
            host: location.host.clone(),
            location: location.shown(),
            error,
        },
        None => Unread::Mirror(format!("{path}: {error}")),
    };
    match response.status {
        200 => {
            served_from.extend(elsewhere.map(|l| l.host));
            Ok(response.body)
        }
        status if is_redirect(status) => {
            Err(failed(format!("more than {MAX_REDIRECTS} redirects")))
        }
        status => Err(failed(format!(
            "HTTP {status}: {}",
            response.body_excerpt()
        ))),
    }
}

/// What the payload names, and the hosts other than the mirror its blobs came from.
pub(crate) struct Payload {
    pub(crate) references: Vec<Reference>,
    pub(crate) served_from: BTreeSet<String>,
}

/// The images the payload names: its image references, and the node images of its OS image
/// ConfigMap that the references do not already name.
pub(crate) fn image_references(
    session: &mut Session,
    probes: &dyn Probes,
    reach: Reach,
    repository: &str,
    manifest: &[u8],
) -> Result<Payload, Unread> {
    let mut served_from = BTreeSet::new();
    let mut manifest: Value =
        serde_json::from_slice(manifest).map_err(|e| format!("the manifest is not JSON: {e}"))?;
    if let Some(first) = manifest.get("manifests").and_then(|m| m.get(0)) {
        let digest = first
            .get("digest")
            .and_then(Value::as_str)
            .ok_or("an index without digests")?;
        let bytes = fetch(
            session,
            probes,
            reach,
            repository,
            &manifest_path(repository, digest),
            Asked::Manifest,
            &mut served_from,
        )?;
        manifest =
            serde_json::from_slice(&bytes).map_err(|e| format!("the manifest is not JSON: {e}"))?;
    }
    let layers: Vec<String> = manifest
        .get("layers")
        .and_then(Value::as_array)
        .map(|layers| {
            layers
                .iter()
                .filter_map(|l| l.get("digest")?.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    // The payload's own files are in its last layers.
    let mut found = Files::default();
    for digest in layers.iter().rev() {
        let blob = fetch(
            session,
            probes,
            reach,
            repository,
            &format!("/v2/{repository}/blobs/{digest}"),
            Asked::Blob,
            &mut served_from,
        )?;
        find_in_layer(&blob, &mut found)?;
        if let Some(text) = &found.references {
            let mut references = parse_references(text)?;
            for (key, image) in found.os_images.iter().flat_map(|t| os_images_of(t)) {
                if !references.iter().any(|r| r.image == image) {
                    references.push(Reference {
                        name: format!("machine-config-osimageurl {key}"),
                        image,
                        os_stream: true,
                    });
                }
            }
            return Ok(Payload {
                references,
                served_from,
            });
        }
    }
    Err(format!("no layer of the payload holds {IMAGE_REFERENCES}").into())
}

/// The payload files read so far.
#[derive(Default)]
struct Files {
    references: Option<String>,
    os_images: Option<String>,
}

/// Reads the image references and the OS image ConfigMap of a layer (gzip or plain tar), when
/// it has them and they were not found in a newer layer.
fn find_in_layer(blob: &[u8], found: &mut Files) -> Result<(), String> {
    let reader: Box<dyn Read> = if blob.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::GzDecoder::new(blob))
    } else {
        Box::new(blob)
    };
    let mut archive = tar::Archive::new(reader.take(MAX_LAYER_BYTES));
    let entries = archive
        .entries()
        .map_err(|e| format!("a layer is not a tar archive: {e}"))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("a layer is damaged: {e}"))?;
        let path = entry
            .path()
            .map(|p| p.to_string_lossy().trim_start_matches("./").to_string())
            .unwrap_or_default();
        let slot = if path.ends_with(IMAGE_REFERENCES) {
            &mut found.references
        } else if path.contains("release-manifests/") && path.contains(OS_IMAGE_URL) {
            &mut found.os_images
        } else {
            continue;
        };
        if slot.is_some() {
            continue;
        }
        let mut text = String::new();
        entry
            .take(MAX_REFERENCES_BYTES)
            .read_to_string(&mut text)
            .map_err(|e| format!("{path} cannot be read: {e}"))?;
        *slot = Some(text);
    }
    Ok(())
}

/// Whether an image stream tag is an OS image stream's node image (or its extensions): built
/// from the OS repository, or named as the payloads name them (`rhel-coreos`,
/// `rhel-coreos-10-extensions`, `stream-coreos`, `centos-stream-coreos-10`).
fn is_os_stream_tag(tag: &Value) -> bool {
    let source = tag
        .pointer("/annotations/io.openshift.build.source-location")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let name = tag.get("name").and_then(Value::as_str).unwrap_or_default();
    source.trim_end_matches('/').ends_with(OS_SOURCE)
        || (name.contains("coreos")
            && ["rhel-", "stream-", "centos-"]
                .iter()
                .any(|p| name.starts_with(p)))
}

/// `spec.tags[]` of the image stream: each tag's name and `from.name`.
fn parse_references(text: &str) -> Result<Vec<Reference>, String> {
    let stream: Value =
        serde_json::from_str(text).map_err(|e| format!("{IMAGE_REFERENCES} is not JSON: {e}"))?;
    let tags = stream
        .pointer("/spec/tags")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{IMAGE_REFERENCES} has no spec.tags"))?;
    Ok(tags
        .iter()
        .filter_map(|tag| {
            Some(Reference {
                name: tag.get("name")?.as_str()?.to_string(),
                image: tag.pointer("/from/name")?.as_str()?.to_string(),
                os_stream: is_os_stream_tag(tag),
            })
        })
        .collect())
}

/// The node images the OS image ConfigMap's data names (`key: image`, one a line, as the
/// payload's YAML writes them), with their keys.
fn os_images_of(text: &str) -> Vec<(&'static str, String)> {
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.trim().split_once(':')?;
            let key = OS_IMAGE_KEYS.iter().find(|k| **k == key.trim())?;
            let image = value.trim().trim_matches(|c| c == '"' || c == '\'');
            (!image.is_empty()).then(|| (*key, image.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::probe::{Contact, Handshake, Lookup, Request, Response};
    use std::cell::RefCell;
    use std::net::{IpAddr, SocketAddr};

    /// A mirror (`mirror.lab`, basic auth) that redirects its blobs: the first to a path of its
    /// own, which redirects to a signed URL on `blobs.lab`. Every request is kept.
    struct Redirecting {
        layer: Vec<u8>,
        asked: RefCell<Vec<(String, String, Option<String>)>>,
    }

    impl Probes for Redirecting {
        fn resolve(&self, _: &str) -> Lookup {
            Lookup::Addresses(vec![IpAddr::from([192, 0, 2, 7])])
        }
        fn connect(&self, _: SocketAddr) -> Result<(), super::super::probe::Unconnected> {
            Ok(())
        }
        fn handshake(&self, _: SocketAddr, _: &str, _: &[Vec<u8>]) -> Handshake {
            Handshake::NoCertificate("unused".into())
        }
        fn get(&self, request: &Request) -> Result<Response, String> {
            let authorization = request
                .headers
                .iter()
                .find(|(n, _)| n == "Authorization")
                .map(|(_, v)| v.clone());
            self.asked.borrow_mut().push((
                request.host.to_string(),
                request.path.to_string(),
                authorization.clone(),
            ));
            let redirect = |to: &str| Response {
                status: 307,
                headers: vec![("Location".into(), to.into())],
                body: Vec::new(),
            };
            Ok(
                match (request.host, request.path, authorization.is_some()) {
                    ("mirror.lab", "/v2/", false) => Response {
                        status: 401,
                        headers: vec![("WWW-Authenticate".into(), "Basic realm=\"r\"".into())],
                        body: Vec::new(),
                    },
                    ("mirror.lab", "/v2/", true) => Response {
                        status: 200,
                        ..Response::default()
                    },
                    ("mirror.lab", "/v2/ocp/blobs/sha256:1", true) => redirect("/storage/1"),
                    ("mirror.lab", "/v2/ocp/blobs/sha256:2", true) => {
                        redirect("https://blobs.lab/2/data?X-Amz-Signature=s1gn3d")
                    }
                    ("mirror.lab", "/storage/1", true) => {
                        redirect("https://blobs.lab/1/data?X-Amz-Signature=s1gn3d")
                    }
                    ("blobs.lab", "/1/data?X-Amz-Signature=s1gn3d", false) => Response {
                        status: 200,
                        body: self.layer.clone(),
                        ..Response::default()
                    },
                    _ => Response {
                        status: 404,
                        ..Response::default()
                    },
                },
            )
        }
        fn contacts(&self) -> Vec<Contact> {
            Vec::new()
        }
    }

    fn layer_with_references() -> Vec<u8> {
        let text = br#"{"spec":{"tags":[{"name":"cli","from":{"name":"q.io/art@sha256:9"}}]}}"#;
        let mut builder = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, IMAGE_REFERENCES, &text[..])
            .unwrap();
        builder.into_inner().unwrap()
    }

    #[test]
    fn redirected_blobs_are_fetched_without_the_mirrors_credentials() {
        let probes = Redirecting {
            layer: layer_with_references(),
            asked: RefCell::new(Vec::new()),
        };
        let credentials = vec![("mirror.lab".to_string(), "dTpw".to_string())];
        let mut session = Session::open(
            &probes,
            "mirror.lab",
            &["ocp".to_string()],
            None,
            false,
            &[],
            &credentials,
            &mut Vec::new(),
        )
        .unwrap_or_else(|refusal| panic!("{}", refusal.what));
        let manifest = br#"{"layers":[{"digest":"sha256:1"}]}"#;
        let reach = Reach {
            roots: &[],
            node_hosts: &[],
        };
        let payload = image_references(&mut session, &probes, reach, "ocp", manifest).unwrap();
        assert_eq!(payload.references[0].image, "q.io/art@sha256:9");
        assert_eq!(
            payload.served_from.into_iter().collect::<Vec<_>>(),
            ["blobs.lab"]
        );
        let asked = probes.asked.borrow();
        let to_blobs: Vec<_> = asked
            .iter()
            .filter(|(host, ..)| host == "blobs.lab")
            .collect();
        assert_eq!(to_blobs.len(), 1, "{asked:?}");
        assert_eq!(
            to_blobs[0].2, None,
            "credentials sent to another host: {asked:?}"
        );
        // On the mirror's own host the redirect keeps them.
        assert!(asked
            .iter()
            .any(|(h, p, a)| h == "mirror.lab" && p == "/storage/1" && a.is_some()));
        drop(asked);

        // A blob host that does not serve the blob fails as the redirect's, its signature not
        // shown.
        let other = br#"{"layers":[{"digest":"sha256:2"}]}"#;
        match image_references(&mut session, &probes, reach, "ocp", other) {
            Err(Unread::Redirected {
                host,
                location,
                error,
            }) => {
                assert_eq!(host, "blobs.lab");
                assert_eq!(location, "https://blobs.lab/2/data?...");
                assert!(error.starts_with("HTTP 404"), "{error}");
            }
            other => panic!("{:?}", other.err()),
        }
    }

    #[test]
    fn os_stream_images_are_told_by_source_or_name() {
        let text = r#"{"spec":{"tags":[
            {"name":"machine-config-operator","from":{"name":"q.io/art@sha256:1"}},
            {"name":"rhel-coreos-10","from":{"name":"q.io/art@sha256:2"}},
            {"name":"node-10","annotations":{"io.openshift.build.source-location":"https://github.com/openshift/os"},"from":{"name":"q.io/art@sha256:3"}},
            {"name":"coreos-installer","from":{"name":"q.io/art@sha256:4"}}
        ]}}"#;
        let streams: Vec<bool> = parse_references(text)
            .unwrap()
            .iter()
            .map(|r| r.os_stream)
            .collect();
        assert_eq!(streams, [false, true, true, false]);
    }

    #[test]
    fn the_configmap_names_the_default_streams_images() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: machine-config-osimageurl\ndata:\n  releaseVersion: 5.0.0\n  baseOSContainerImage: \"q.io/art@sha256:5\"\n  baseOSExtensionsContainerImage: q.io/art@sha256:6\n  osImageURL: \"\"\n";
        assert_eq!(
            os_images_of(text),
            [
                ("baseOSContainerImage", "q.io/art@sha256:5".to_string()),
                (
                    "baseOSExtensionsContainerImage",
                    "q.io/art@sha256:6".to_string()
                )
            ]
        );
    }
}
