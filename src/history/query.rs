//! Reading a store: the log, states, blobs, and the revision forms of SPEC §8.3.

use std::path::Path;

use chrono::{DateTime, Utc};

use super::read::{self, Change, ChangeDoc, Snap, State, change_doc};
use super::{Fresh, OutsideFile, Settings, Store, outside, tracked};
use crate::error::{Error, Kind};

impl Store {
    /// Open the store of `main` for reading: `history_off` when history is off or
    /// the dir has none yet.
    pub fn open_existing(settings: &Settings, main: &Path, now: DateTime<Utc>) -> Result<Store, Error> {
        let off = || {
            Error::new(
                Kind::HistoryOff,
                format!("no history for {}", crate::paths::with_sep(main)),
            )
        };
        match settings {
            Settings::Off => Err(off().hint(
                "history is off (--no-history or MEMCTL_HISTORY=off); unset it, and memctl records a snapshot on every write",
            )),
            Settings::On { .. } => Store::open(settings, main, None, false, now)?
                .ok_or_else(|| off().hint("memctl records history from its first write here; `memctl snapshot` starts it now")),
        }
    }

    /// Every snapshot, newest first.
    pub fn log(&self) -> Result<Vec<Snap>, Error> {
        read::log(&self.repo, self.head_id()).map_err(|e| self.read_err(&e))
    }

    /// The states of the `n` newest snapshots of `log` (all when `n` exceeds it),
    /// newest first.
    pub fn states(&self, log: &[Snap], n: usize) -> Result<Vec<State>, Error> {
        log.iter().take(n).map(|s| self.state(s.id)).collect()
    }

    /// The files and lock a snapshot recorded.
    pub fn state(&self, id: gix::ObjectId) -> Result<State, Error> {
        read::load_state(&self.repo, id).map_err(|e| self.read_err(&e))
    }

    /// The dir `main` now, as a state (nothing is stored), with the bytes of the
    /// files that were read.
    pub fn state_now(&mut self, main: &Path) -> Result<(State, Fresh), Error> {
        let head = self.head_id();
        let prev = match (head, &self.head) {
            (Some(h), Some((id, st))) if *id == h => st.clone(),
            (Some(h), _) => self.state(h)?,
            (None, _) => State::default(),
        };
        let (files, state, mut fresh) = self.scan(main, head, &prev, None)?;
        // The readers of a state now (diff, undo's plan) need the bytes of the large
        // files the scan only hashed (nothing is stored for them here).
        for f in files.iter().filter(|f| self.streamed.contains(&f.rel)) {
            let stored = state
                .files
                .get(&f.rel)
                .is_some_and(|s| gix::objs::Exists::exists(&self.repo.objects, &s.oid));
            if !stored && let Ok(bytes) = tracked::read(main, f) {
                fresh.insert(f.rel.clone(), bytes);
            }
        }
        Ok((state, fresh))
    }

    /// The report items of `changes`: line counts from the stored blobs (a file
    /// read now but not stored yet comes from `fresh`).
    pub fn change_docs(&self, changes: &[Change], fresh: &Fresh) -> Vec<ChangeDoc> {
        changes
            .iter()
            .map(|c| {
                change_doc(c, &mut |id| {
                    self.blob(id).unwrap_or_else(|_| {
                        c.after
                            .as_ref()
                            .filter(|a| a.oid == id)
                            .and_then(|_| fresh.get(&c.rel).cloned())
                            .unwrap_or_default()
                    })
                })
            })
            .collect()
    }

    /// Whether the newest snapshot holds `rel` (below the main dir) with exactly
    /// these bytes (a link's target for a symlink): its copy is safe there. The
    /// newest snapshot's state, once loaded, stays with the store: the next
    /// snapshot (the writer's after-snapshot) takes it as its previous state
    /// instead of making it again, and a second file asked about reads nothing.
    pub fn holds(&mut self, rel: &[u8], bytes: &[u8], link: bool) -> bool {
        self.settle();
        let Some(head) = self.head_id() else { return false };
        if !matches!(&self.head, Some((id, _)) if *id == head) {
            // The stat cache complete for the newest snapshot holds its state (as
            // the next snapshot takes it): its tree is not read then (20 000
            // files: 84 M instructions).
            match super::snapshot::read_cache_full(&self.path, Some(head))
                .map_or_else(|| read::load_state(&self.repo, head), Ok)
            {
                Ok(st) => self.head = Some((head, st)),
                Err(_) => return false,
            }
        }
        let Some((_, state)) = &self.head else { return false };
        let Some(f) = state.files.get(rel) else { return false };
        let oid = gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, bytes);
        f.link == link && oid.is_ok_and(|o| o == f.oid)
    }

    /// The files outside the memory dir that the snapshot `id` recorded changing
    /// (SPEC §12: a review's CLAUDE files), with their previous bytes; empty for
    /// most snapshots.
    pub fn outside(&self, id: gix::ObjectId) -> Result<Vec<OutsideFile>, Error> {
        self.read_outside(id).map_err(|e| self.read_err(&e))
    }

    fn read_outside(&self, id: gix::ObjectId) -> Result<Vec<OutsideFile>, String> {
        read_outside(&self.repo, id)
    }

    /// Whether `bytes` are the blob `id` (what a snapshot recorded, by hash).
    pub fn is_blob(&self, id: gix::ObjectId, bytes: &[u8]) -> bool {
        gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, bytes).is_ok_and(|o| o == id)
    }

    /// A stored blob's bytes.
    pub fn blob(&self, id: gix::ObjectId) -> Result<Vec<u8>, Error> {
        read::blob(&self.repo, id).map_err(|e| self.read_err(&e))
    }

    fn read_err(&self, e: &str) -> Error {
        Error::new(
            Kind::Io,
            format!("cannot read the history store {}: {e}", self.path.display()),
        )
    }

    /// A snapshot named by an id (7 or more hex digits), `@~N` (`@~0` the newest),
    /// or a time (`2026-03-10` = midnight UTC, RFC 3339, `3h`/`2d`/`30m`/`1w`
    /// before now): the newest snapshot at or before it.
    pub fn resolve(&self, spec: &str, log: &[Snap], now: DateTime<Utc>) -> Result<gix::ObjectId, Error> {
        let spec = spec.trim();
        let none =
            |what: String| Error::new(Kind::NotFound, what).hint("`memctl history` lists the snapshots and their ids");
        if let Some(n) = spec.strip_prefix("@~").or(if spec == "@" { Some("0") } else { None }) {
            let n: usize = n.parse().map_err(|_| {
                Error::new(Kind::Usage, format!("not a snapshot: {spec}")).hint("write @~N with a number N")
            })?;
            return log
                .get(n)
                .map(|s| s.id)
                .ok_or_else(|| none(format!("there are only {} snapshots: {spec}", log.len())));
        }
        if spec.len() >= 7 && spec.bytes().all(|b| b.is_ascii_hexdigit()) {
            let lower = spec.to_ascii_lowercase();
            let hits: Vec<&Snap> = log
                .iter()
                .filter(|s| s.id.to_hex().to_string().starts_with(&lower))
                .collect();
            return match hits.as_slice() {
                [one] => Ok(one.id),
                [] => Err(none(format!("no snapshot with id {spec}"))),
                _ => Err(
                    Error::new(Kind::Ambiguous, format!("more than one snapshot starts with {spec}"))
                        .hint("give more digits of the id"),
                ),
            };
        }
        let at = parse_time(spec, now).ok_or_else(|| {
            Error::new(Kind::Usage, format!("not a snapshot: {spec}"))
                .hint("give a snapshot id (7+ hex digits), @~N, a date (2026-03-10), a time (2026-03-10T12:00:00Z) or an age (3h, 2d)")
        })?;
        log.iter()
            .find(|s| s.time <= at.timestamp())
            .map(|s| s.id)
            .ok_or_else(|| {
                none(format!(
                    "no snapshot at or before {}",
                    at.format("%Y-%m-%d %H:%M:%S UTC")
                ))
            })
    }
}

/// The outside files a commit recorded (see [`Store::outside`]).
pub(super) fn read_outside(repo: &gix::Repository, id: gix::ObjectId) -> Result<Vec<OutsideFile>, String> {
    let commit = repo.find_commit(id).map_err(|e| e.to_string())?;
    let tree = commit.tree().map_err(|e| e.to_string())?;
    let entry = |tree: &gix::Tree<'_>, name: &[u8]| -> Result<Option<gix::ObjectId>, String> {
        let decoded = tree.decode().map_err(|e| e.to_string())?;
        Ok(decoded
            .entries
            .iter()
            .find(|e| e.filename == name)
            .map(|e| e.oid.to_owned()))
    };
    let Some(meta) = entry(&tree, b".memctl")? else {
        return Ok(Vec::new());
    };
    let meta = repo.find_tree(meta).map_err(|e| e.to_string())?;
    let Some(dir) = entry(&meta, outside::DIR)? else {
        return Ok(Vec::new());
    };
    let dir = repo.find_tree(dir).map_err(|e| e.to_string())?;
    let Some(list) = entry(&dir, outside::LIST)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for l in outside::parse(&read::blob(repo, list)?) {
        let before = match (l.before_mtime, entry(&dir, l.name.as_bytes())?) {
            (Some(ns), Some(id)) => Some((read::blob(repo, id)?, ns)),
            _ => None,
        };
        out.push(OutsideFile {
            name: l.name,
            path: l.path,
            root: l.root,
            before,
            after: l.after,
        });
    }
    Ok(out)
}

/// What `undo`, `diff` and `restore` read from a snapshot, whether it is in the
/// store of the dir or in one set aside as unreadable ([`aside::Aside`]).
pub trait Reader {
    /// The files and lock a snapshot recorded.
    fn state(&self, id: gix::ObjectId) -> Result<State, Error>;
    /// A stored blob's bytes.
    fn blob(&self, id: gix::ObjectId) -> Result<Vec<u8>, Error>;
    /// The files outside the memory dir the snapshot recorded changing.
    fn outside(&self, id: gix::ObjectId) -> Result<Vec<OutsideFile>, Error>;
    /// Whether `bytes` are the blob `id`.
    fn is_blob(&self, id: gix::ObjectId, bytes: &[u8]) -> bool;
}

impl Reader for Store {
    fn state(&self, id: gix::ObjectId) -> Result<State, Error> {
        Store::state(self, id)
    }

    fn blob(&self, id: gix::ObjectId) -> Result<Vec<u8>, Error> {
        Store::blob(self, id)
    }

    fn outside(&self, id: gix::ObjectId) -> Result<Vec<OutsideFile>, Error> {
        Store::outside(self, id)
    }

    fn is_blob(&self, id: gix::ObjectId, bytes: &[u8]) -> bool {
        Store::is_blob(self, id, bytes)
    }
}

/// `2026-03-10`, an RFC 3339 time, or an age (`30m`, `3h`, `2d`, `1w`) before now.
fn parse_time(spec: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(spec) {
        return Some(t.with_timezone(&Utc));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(spec, "%Y-%m-%d") {
        return Some(d.and_hms_opt(0, 0, 0)?.and_utc());
    }
    let unit = spec.chars().last()?;
    let n: i64 = spec[..spec.len() - unit.len_utf8()].parse().ok()?;
    let secs = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        'w' => 7 * 86_400,
        _ => return None,
    };
    now.checked_sub_signed(chrono::TimeDelta::try_seconds(n.checked_mul(secs)?)?)
}
