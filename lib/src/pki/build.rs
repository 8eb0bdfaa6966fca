//! Generate or reuse: load what a tls directory has, decide per certificate whether to keep,
//! issue or re-issue it, generate the missing keys in parallel, import (with every check) the
//! reused keys that sign or get a certificate now, then sign.

use std::path::Path;

use rayon::prelude::*;
use time::OffsetDateTime;

use super::cert::CertInfo;
use super::issue::{issue_leaf, self_signed_ca, Authority, LeafSubject};
use super::keys::{verify_signature, PrivateKey};
use super::record::KeyRecord;
use super::store::{invalid, key_path, load_certified, load_key_pair, refuse_foreign_dir, Stored};
use super::table::{LeafSpec, BOOTSTRAP_SSH, FRESH_KEY_COUNT, LEAVES, SERVICE_ACCOUNT, SIGNERS};
use super::wanted::{san_change, sorted, wanted_organizations, wanted_sans};
use super::{rfc3339, ExpiredCertificate, KeyAlgorithm, PkiError, PkiNotice, PkiRequest};

/// A key with its certificate, as the finished PKI holds it.
#[derive(Debug)]
pub(crate) struct Certified {
    pub key: PrivateKey,
    pub cert: CertInfo,
}

/// Everything [`super::Pki`] is made of, in table order.
pub(crate) struct Built {
    pub signers: Vec<Certified>,
    pub leaves: Vec<Certified>,
    pub service_account: PrivateKey,
    pub ssh: PrivateKey,
    pub notices: Vec<PkiNotice>,
}

/// Why a leaf gets a new certificate.
#[derive(Debug)]
enum Plan {
    Keep,
    Issue,
    Reissue(String),
}

pub(crate) fn build(req: &PkiRequest, tls_dir: Option<&Path>) -> Result<Built, PkiError> {
    let now = whole_seconds_utc(req.now)?;
    if let Some(dir) = tls_dir {
        refuse_foreign_dir(dir)?;
    }
    let record = KeyRecord::read(tls_dir);
    let signers: Vec<Stored> = SIGNERS
        .iter()
        .map(|s| load_certified(tls_dir, s.name, &record))
        .collect::<Result<_, _>>()?;
    let leaves: Vec<Stored> = LEAVES
        .iter()
        .map(|l| load_certified(tls_dir, l.name, &record))
        .collect::<Result<_, _>>()?;
    let service_account = load_key_pair(
        tls_dir,
        SERVICE_ACCOUNT,
        &format!("{SERVICE_ACCOUNT}.pub"),
        &record,
    )?;
    let ssh = load_key_pair(
        tls_dir,
        BOOTSTRAP_SSH,
        &format!("{BOOTSTRAP_SSH}.pub"),
        &record,
    )?;
    let reusing = signers.iter().chain(&leaves).any(|s| s.key.is_some())
        || service_account.is_some()
        || ssh.is_some();
    let mut notices = kept_keys_of_another_type(
        signers
            .iter()
            .zip(SIGNERS)
            .map(|(s, spec)| (spec.name, s.key.as_ref(), req.signer_key_algorithm))
            .chain(
                leaves
                    .iter()
                    .zip(LEAVES)
                    .map(|(s, spec)| (spec.name, s.key.as_ref(), req.key_algorithm)),
            )
            .chain([
                (SERVICE_ACCOUNT, service_account.as_ref(), req.key_algorithm),
                (BOOTSTRAP_SSH, ssh.as_ref(), req.key_algorithm),
            ]),
    );

    check_authorities(&signers, now, tls_dir)?;
    let plans = plan_leaves(req, &signers, &leaves, now)?;
    // Which leaves get a certificate now: their keys, and their CAs' keys, are imported first.
    let issuing: Vec<bool> = plans.iter().map(|p| !matches!(p, Plan::Keep)).collect();

    // Keys: reuse what exists, generate the rest at once on all cores (the signers' apart when
    // their key type is another).
    let missing_signers = signers.iter().filter(|s| s.key.is_none()).count();
    let missing = leaves.iter().filter(|s| s.key.is_none()).count()
        + usize::from(service_account.is_none())
        + usize::from(ssh.is_none());
    let (mut fresh_signers, mut fresh) = if req.signer_key_algorithm == req.key_algorithm {
        let mut all = generate_keys(req.key_algorithm, missing_signers + missing)?;
        let rest = all.split_off(missing_signers);
        (all.into_iter(), rest.into_iter())
    } else {
        (
            generate_keys(req.signer_key_algorithm, missing_signers)?.into_iter(),
            generate_keys(req.key_algorithm, missing)?.into_iter(),
        )
    };
    let mut take_signer_key = |stored: Option<PrivateKey>, name: &str| match stored {
        Some(key) => Ok(key),
        None => fresh_signers.next().ok_or_else(|| PkiError::KeyGeneration {
            name: name.to_string(),
            algorithm: req.signer_key_algorithm,
        }),
    };
    let mut take_key = |stored: Option<PrivateKey>, name: &str| match stored {
        Some(key) => Ok(key),
        None => fresh.next().ok_or_else(|| PkiError::KeyGeneration {
            name: name.to_string(),
            algorithm: req.key_algorithm,
        }),
    };
    let mut say = |condition: bool, message: String| {
        if reusing && condition {
            notices.push(notice(message));
        }
    };
    let mut signer_keys = Vec::with_capacity(SIGNERS.len());
    for (spec, stored) in SIGNERS.iter().zip(signers) {
        let name = spec.name;
        say(stored.key.is_none(), format!("generated missing {name}"));
        say(
            stored.key.is_some() && stored.cert.is_none(),
            format!("re-created the certificate of CA {name} for its existing key"),
        );
        let signs = stored.cert.is_none()
            || LEAVES
                .iter()
                .zip(&issuing)
                .any(|(leaf, &issued)| issued && leaf.issuer == name);
        let mut key = take_signer_key(stored.key, name)?;
        if signs {
            import(&mut key, tls_dir, name)?;
        }
        signer_keys.push((key, stored.cert));
    }
    let mut leaf_keys = Vec::with_capacity(LEAVES.len());
    for ((spec, stored), &issued) in LEAVES.iter().zip(leaves).zip(&issuing) {
        let name = spec.name;
        say(stored.key.is_none(), format!("generated missing {name}"));
        say(
            stored.key.is_some() && stored.cert.is_none(),
            format!("issued the missing certificate {name} for its existing key"),
        );
        let mut key = take_key(stored.key, name)?;
        if issued {
            import(&mut key, tls_dir, name)?;
        }
        leaf_keys.push((key, stored.cert));
    }
    say(
        service_account.is_none(),
        format!("generated missing {SERVICE_ACCOUNT}"),
    );
    say(ssh.is_none(), format!("generated missing {BOOTSTRAP_SSH}"));
    let service_account = take_key(service_account, SERVICE_ACCOUNT)?;
    let ssh = take_key(ssh, BOOTSTRAP_SSH)?;

    let self_signing = signer_keys.iter().any(|(_, cert)| cert.is_none());
    let signers = each(
        signer_keys.into_iter().zip(SIGNERS).collect(),
        self_signing,
        |((key, cert), spec)| {
            let cert = match cert {
                Some(cert) => cert,
                None => self_signed_ca(spec, &key, now, &req.lifetimes)?,
            };
            Ok(Certified { key, cert })
        },
    )
    .into_iter()
    .collect::<Result<Vec<_>, PkiError>>()?;

    let issued = each(
        leaf_keys.into_iter().zip(LEAVES).zip(plans).collect(),
        issuing.contains(&true),
        |(((key, cert), spec), plan)| {
            let cert = match (cert, &plan) {
                (Some(cert), Plan::Keep) => cert,
                _ => {
                    let issuer = signer_of(spec, &signers)?;
                    let authority = Authority {
                        key: &issuer.key,
                        cert: &issuer.cert,
                    };
                    let subject = LeafSubject {
                        organizations: &wanted_organizations(req, spec),
                        sans: &wanted_sans(req, spec.sans),
                    };
                    issue_leaf(spec, &subject, &key, &authority, now, &req.lifetimes)?
                }
            };
            Ok((Certified { key, cert }, plan))
        },
    )
    .into_iter()
    .collect::<Result<Vec<_>, PkiError>>()?;
    let mut leaves = Vec::with_capacity(issued.len());
    for (spec, (certified, plan)) in LEAVES.iter().zip(issued) {
        if let Plan::Reissue(reason) = plan {
            notices.push(notice(format!("re-issued {}: {reason}", spec.name)));
        }
        leaves.push(certified);
    }
    Ok(Built {
        signers,
        leaves,
        service_account,
        ssh,
        notices,
    })
}

/// Generates `count` keys in parallel; also the benchmark's key-generation floor.
pub(crate) fn generate_keys(
    algorithm: KeyAlgorithm,
    count: usize,
) -> Result<Vec<PrivateKey>, PkiError> {
    if count == 0 {
        // Not even rayon's threads are started for nothing (a re-run generates no key).
        return Ok(Vec::new());
    }
    (0..count)
        .into_par_iter()
        .with_max_len(1)
        .map(|_| {
            PrivateKey::generate(algorithm).map_err(|()| PkiError::KeyGeneration {
                name: "a new key pair".to_string(),
                algorithm,
            })
        })
        .collect()
}

/// Imports a reused key with every check before it signs or gets a certificate; the error names
/// its file. (A key not imported was read from `tls_dir`; generated keys are imported already.)
fn import(key: &mut PrivateKey, tls_dir: Option<&Path>, name: &str) -> Result<(), PkiError> {
    key.import().map_err(|reason| {
        let path = tls_dir.map_or_else(|| format!("{name}.key").into(), |dir| key_path(dir, name));
        invalid(&path, reason)
    })
}

/// `work` on every item, one item per task on all cores when anything is `signing` (signing is
/// what takes time), else in this thread: a re-run that signs nothing starts no threads.
fn each<T: Send, R: Send>(
    items: Vec<T>,
    signing: bool,
    work: impl Fn(T) -> R + Sync + Send,
) -> Vec<R> {
    if signing {
        items.into_par_iter().with_max_len(1).map(work).collect()
    } else {
        items.into_iter().map(work).collect()
    }
}

/// One notice per type of reused key that is not the type a key generated now would have
/// (another `--key-algorithm`, or a `pki` field that names the signers' key): reuse keeps a key
/// whatever its type, so the user learns that the PKI is not of the type asked for.
fn kept_keys_of_another_type<'a>(
    keys: impl Iterator<Item = (&'a str, Option<&'a PrivateKey>, KeyAlgorithm)>,
) -> Vec<PkiNotice> {
    let mut kept: Vec<(String, KeyAlgorithm, Vec<&str>)> = Vec::new();
    for (name, key, wanted) in keys {
        let Some(key) = key.filter(|key| !key.is_of(wanted)) else {
            continue;
        };
        let described = key.describe();
        match kept
            .iter_mut()
            .find(|(d, w, _)| *d == described && *w == wanted)
        {
            Some((_, _, names)) => names.push(name),
            None => kept.push((described, wanted, vec![name])),
        }
    }
    kept.into_iter()
        .map(|(described, wanted, names)| {
            let whose = match names.len() {
                1 => format!("key of {}", names[0]),
                FRESH_KEY_COUNT => format!("keys of every certificate and key pair ({FRESH_KEY_COUNT})"),
                n => format!("keys of {} ({n})", names.join(", ")),
            };
            notice(format!(
                "kept the existing {described} {whose}, where a key made now would be {wanted}; remove a key file (with its certificate) to have it made anew"
            ))
        })
        .collect()
}

fn notice(message: String) -> PkiNotice {
    PkiNotice { message }
}

/// The injected clock in UTC, truncated to what X.509 times can say.
fn whole_seconds_utc(now: OffsetDateTime) -> Result<OffsetDateTime, PkiError> {
    OffsetDateTime::from_unix_timestamp(now.unix_timestamp()).map_err(|_| {
        PkiError::ValidityOutOfRange {
            name: "the clock".to_string(),
            now,
        }
    })
}

/// An expired CA cannot be fixed in place: everything it signed would have to change with it.
fn check_authorities(
    signers: &[Stored],
    now: OffsetDateTime,
    tls_dir: Option<&Path>,
) -> Result<(), PkiError> {
    let expired: Vec<ExpiredCertificate> = SIGNERS
        .iter()
        .zip(signers)
        .filter_map(|(spec, stored)| {
            let cert = stored.cert.as_ref()?;
            (cert.not_after <= now).then(|| ExpiredCertificate {
                name: spec.name.to_string(),
                not_after: cert.not_after,
            })
        })
        .collect();
    match (expired.is_empty(), tls_dir) {
        (false, Some(dir)) => Err(PkiError::ExpiredAuthorities {
            expired,
            dir: dir.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

fn plan_leaves(
    req: &PkiRequest,
    signers: &[Stored],
    leaves: &[Stored],
    now: OffsetDateTime,
) -> Result<Vec<Plan>, PkiError> {
    let mut expired = Vec::new();
    let mut plans = Vec::with_capacity(LEAVES.len());
    for (spec, stored) in LEAVES.iter().zip(leaves) {
        let Some(cert) = &stored.cert else {
            plans.push(Plan::Issue);
            continue;
        };
        let issuer_key = SIGNERS
            .iter()
            .position(|s| s.name == spec.issuer)
            .and_then(|i| signers.get(i))
            .and_then(|s| s.key.as_ref());
        let plan = match issuer_key {
            None => Plan::Reissue(format!("its CA {} was generated anew", spec.issuer)),
            Some(key)
                if !verify_signature(key, &cert.signature_oid, &cert.tbs, &cert.signature) =>
            {
                Plan::Reissue(format!("it was not signed by the current {}", spec.issuer))
            }
            Some(_) => {
                let wanted = sorted(wanted_sans(req, spec.sans));
                let have = cert.sorted_sans();
                let organizations = wanted_organizations(req, spec);
                if wanted != have {
                    Plan::Reissue(format!("SANs changed ({})", san_change(&have, &wanted)))
                } else if cert.organizations != organizations {
                    Plan::Reissue(format!(
                        "Organizations changed ({} → {})",
                        cert.organizations.join(", "),
                        organizations.join(", ")
                    ))
                } else if cert.not_after <= now {
                    if req.renew_expired {
                        Plan::Reissue(format!(
                            "renewed under the existing {}; it expired at {}",
                            spec.issuer,
                            rfc3339(cert.not_after)
                        ))
                    } else {
                        expired.push(ExpiredCertificate {
                            name: spec.name.to_string(),
                            not_after: cert.not_after,
                        });
                        Plan::Keep
                    }
                } else {
                    Plan::Keep
                }
            }
        };
        plans.push(plan);
    }
    if expired.is_empty() {
        Ok(plans)
    } else {
        Err(PkiError::ExpiredCertificates { expired })
    }
}

fn signer_of<'a>(spec: &LeafSpec, signers: &'a [Certified]) -> Result<&'a Certified, PkiError> {
    SIGNERS
        .iter()
        .position(|s| s.name == spec.issuer)
        .and_then(|i| signers.get(i))
        .ok_or_else(|| PkiError::Issue {
            name: spec.name.to_string(),
            reason: format!("no signer named {}", spec.issuer),
        })
}
