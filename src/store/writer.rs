//! [`Writer`]: the one door into a memory dir.

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::atomic::{Stamp, create_batch, write_checked, write_checked_at};
use super::lock::{WriteLock, ensure_no_dream, lock};
use super::trash::{move_entry, trash_dir};
use super::update::{keep_original_bytes, read_for_update};
use super::{create_dir, create_new, ensure_ancestor_contained, io_err};
use crate::error::{Error, Kind};
use crate::history::{self, Store, Trigger};
use crate::memdir::MemoryDir;

/// What a write command records in history (SPEC §8.2): its trigger name and
/// where the stores live.
#[derive(Clone, Debug)]
pub struct Recording {
    pub settings: history::Settings,
    /// The trigger of the after-snapshot (`add`, `forget`, …).
    pub command: &'static str,
    /// The project root, recorded in a new store's config.
    pub project: Option<PathBuf>,
}

impl Recording {
    /// No history (tests, and the writes that must not record).
    pub fn off(command: &'static str) -> Recording {
        Recording {
            settings: history::Settings::Off,
            command,
            project: None,
        }
    }
}

/// The one handle through which a command writes into a memory dir. Holding it
/// means holding the main dir's write lock; the dream lock was checked once when it
/// was opened (SPEC §4.2, §4.3).
pub struct Writer {
    dir: MemoryDir,
    now: DateTime<Utc>,
    _lock: WriteLock,
    /// Files this writer created, removed again by [`Writer::roll_back`].
    created: Vec<PathBuf>,
    /// This command's trash dir, created on first use (one per command).
    trash: Option<PathBuf>,
    /// The history store, when on and working; the before-snapshot was taken.
    pub(super) history: Option<Store>,
    /// Files outside the memory dir this command changed (CLAUDE files), kept in
    /// the after-snapshot with their previous bytes (SPEC §12).
    pub(super) outside: Vec<history::OutsideChange>,
    command: &'static str,
    /// Warnings for the command to print (history is advisory: a failure is one).
    warnings: Vec<String>,
    /// Whether the after-snapshot was taken (by [`Writer::finish`]).
    finished: bool,
    /// Whether history is on for this command (its store may still have failed).
    history_on: bool,
    /// Why the store could not be opened or take the before-snapshot.
    history_error: Option<String>,
    /// Every path below the main dir this writer wrote, created, moved or
    /// removed (raw bytes, `/`-separated), for the after-snapshot
    /// ([`Store::snapshot_after`]); `None` once a write went elsewhere (outside
    /// the dir, a directory moved): the after-snapshot walks the dir then.
    touched: Option<Vec<Vec<u8>>>,
}

impl Writer {
    /// Create the dir if missing (mode 0700), take the write lock, and refuse while a
    /// live dream holds the consolidation lock, unless `force`.
    /// With history on, a snapshot of the dir is taken under the lock first
    /// (`external`/`dream` when it changed outside memctl, SPEC §8.2).
    pub fn open(dir: &MemoryDir, now: DateTime<Utc>, force: bool, rec: &Recording) -> Result<Writer, Error> {
        Writer::open_visiting(dir, now, force, rec, None)
    }

    /// [`Writer::open`], showing each entry the before-snapshot's walk reads to
    /// `visit` (see [`history::tracked::Visit`]): a command that needs the dir's
    /// files as they are under the lock (the survey of `add` and of `forget --yes`)
    /// walks it once.
    pub fn open_visiting(
        dir: &MemoryDir,
        now: DateTime<Utc>,
        force: bool,
        rec: &Recording,
        visit: Option<&mut history::tracked::Visit>,
    ) -> Result<Writer, Error> {
        if dir.is_team() {
            // A symlinked `team/` that leaves the memory dir is refused before anything
            // is written through it (SPEC §4.4).
            create_dir(dir.main())?;
            ensure_ancestor_contained(dir.main(), &dir.dir().join("MEMORY.md"))?;
        }
        create_dir(dir.dir())?;
        let held = lock(dir.main())?;
        ensure_no_dream(dir.main(), now, force)?;
        let mut w = Writer {
            dir: dir.clone(),
            now,
            _lock: held,
            created: Vec::new(),
            trash: None,
            history: None,
            outside: Vec::new(),
            command: rec.command,
            warnings: Vec::new(),
            finished: false,
            history_on: rec.settings.is_on(),
            history_error: None,
            touched: Some(Vec::new()),
        };
        w.open_history(rec, visit);
        Ok(w)
    }

    /// Open the store and take the before-snapshot; a failure is a warning and
    /// leaves history off for this command.
    fn open_history(&mut self, rec: &Recording, visit: Option<&mut history::tracked::Visit>) {
        let main = self.dir.main().to_path_buf();
        let opened = Store::open_for_write(&rec.settings, &main, rec.project.as_deref(), self.now);
        let mut store = match opened {
            Ok(Some(s)) => s,
            Ok(None) => return,
            Err(e) => return self.history_failed(&e.to_string()),
        };
        store.keep_walk = true;
        let req = history::Request {
            trigger: None,
            recorded_by: self.command,
            message: None,
            details: &[],
            claude: false,
            now: self.now,
        };
        let taken = match visit {
            Some(visit) => {
                let mut skipped = Vec::new();
                let files = history::tracked::walk_visiting(&main, &mut skipped, visit);
                store.snapshot_walked(&main, &req, (files, skipped))
            }
            None => store.snapshot(&main, &req),
        };
        self.warnings.append(&mut store.warnings);
        super::between_snapshots();
        match taken {
            Ok(_) => self.history = Some(store),
            Err(e) => self.history_failed(&e.to_string()),
        }
    }

    /// Note that this writer is about to change the entry `target` (before the
    /// change: a write that fails half-way is noted too).
    pub(super) fn touch(&mut self, target: &Path) {
        use std::os::unix::ffi::OsStrExt;
        let Some(touched) = self.touched.as_mut() else { return };
        let Ok(rel) = target.strip_prefix(self.dir.main()) else {
            self.touched = None;
            return;
        };
        let mut bytes = Vec::new();
        for c in rel.components() {
            let std::path::Component::Normal(c) = c else {
                self.touched = None;
                return;
            };
            if !bytes.is_empty() {
                bytes.push(b'/');
            }
            bytes.extend_from_slice(c.as_bytes());
        }
        touched.push(bytes);
    }

    /// The after-snapshot must walk the dir (a write it cannot name by path).
    pub(super) fn touched_unknown(&mut self) {
        self.touched = None;
    }

    fn history_failed(&mut self, why: &str) {
        self.history_error.get_or_insert_with(|| why.to_string());
        self.warnings
            .push(format!("history: {why}; the change is made without a snapshot"));
    }

    /// `undo` and `restore` must themselves be undoable (SPEC v3 §8.1): with history
    /// on, refuse before anything is written when this command's snapshot cannot be
    /// recorded: the store could not be opened or could not take the
    /// before-snapshot (then the newest snapshot may not be the dir's last change),
    /// or it cannot be written now (a full disk, a read-only store; see
    /// [`Store::probe_writable`]). `what` names the command (issue 29 point 6).
    pub fn require_history(&self, what: &str) -> Result<(), Error> {
        if !self.history_on {
            return Ok(());
        }
        let why = match &self.history {
            None => self
                .history_error
                .clone()
                .unwrap_or_else(|| "the history store cannot be opened".to_string()),
            Some(store) => match store.probe_writable() {
                Ok(()) => return Ok(()),
                Err(e) => e,
            },
        };
        Err(Error::new(
            Kind::Io,
            format!("{what} refused: it cannot record its own snapshot, so it could not be undone: {why}"),
        )
        .hint(format!(
            "nothing was written; free space in the history dir (or fix its permissions) and run {what} again"
        )))
    }

    /// The snapshot that holds the dir as it was before this command's changes
    /// (`None` when history is off or failed): a forgotten file's copy is there.
    pub fn before_snapshot(&self) -> Option<String> {
        let id = self.history.as_ref()?.head_id()?;
        Some(id.to_hex_with_len(8).to_string())
    }

    /// Whether the before-snapshot holds the entry `target` with these bytes.
    pub fn history_holds(&mut self, target: &Path, bytes: &[u8], link: bool) -> bool {
        use std::os::unix::ffi::OsStrExt;
        let Some(store) = self.history.as_mut() else {
            return false;
        };
        let Ok(rel) = target.strip_prefix(self.dir.main()) else {
            return false;
        };
        store.holds(rel.as_os_str().as_bytes(), bytes, link)
    }

    /// Take the after-snapshot (labelled with the command) and hand over the
    /// warnings for the command to print. Call once, after the last write.
    pub fn finish(&mut self) -> Vec<String> {
        self.record_after();
        std::mem::take(&mut self.warnings)
    }

    fn record_after(&mut self) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        let Some(store) = self.history.as_mut() else { return };
        let req = history::Request {
            trigger: Some(Trigger::Own(self.command)),
            recorded_by: self.command,
            message: None,
            details: &[],
            claude: false,
            now: self.now,
        };
        let main = self.dir.main().to_path_buf();
        let taken = store.snapshot_after(&main, &req, &self.outside, self.touched.as_deref());
        self.warnings.append(&mut store.warnings);
        if let Err(e) = taken {
            self.history_failed(&e.to_string());
        }
    }

    /// Remove the entry `target` (a memory whose copy the before-snapshot keeps).
    /// Like a trash move, only the parent's real path is checked: the entry itself
    /// is handled with lstat semantics (a symlink is removed, never followed).
    pub fn remove(&mut self, target: &Path) -> Result<(), Error> {
        self.ensure_parent_contained(target)?;
        self.touch(target);
        fs::remove_file(target).map_err(|e| super::io_err("cannot remove", target, e))?;
        if let Some(parent) = target.parent() {
            let _ = super::atomic::sync_dir(parent);
        }
        super::fault_point();
        Ok(())
    }

    /// The dir a write to `target` must stay inside: the dir worked on, except the
    /// main index under `--team`, the one file outside the team dir memctl writes
    /// there (a team memory's line is loaded from it, SPEC §3.7, §2.13).
    fn root_for(&self, target: &Path) -> &Path {
        if self.dir.is_team() && target == self.dir.main().join(crate::memdir::INDEX) {
            self.dir.main()
        } else {
            self.dir.dir()
        }
    }

    fn ensure_parent_contained(&self, target: &Path) -> Result<(), Error> {
        let root = super::real(self.root_for(target))?;
        let parent = target.parent().unwrap_or(self.dir.dir());
        if super::real(parent)?.starts_with(&root) {
            return Ok(());
        }
        Err(Error::new(
            Kind::Containment,
            format!("write target resolves outside the memory dir: {}", target.display()),
        )
        .hint("memctl does not write through symlinks that leave the memory dir; edit the target directly"))
    }

    /// Put `content` at `target` with the modification time `mtime_ns` (ns since
    /// the epoch), creating or replacing it atomically (`restore`, `undo`): the
    /// temp file gets the bytes and the mtime before the rename, so the target never
    /// shows anything else. A symlink at `target` is replaced, not written through
    /// (the entry comes back as it was recorded). Parent dirs are created (0700).
    pub fn put(&mut self, target: &Path, content: &[u8], mtime_ns: i128) -> Result<(), Error> {
        ensure_ancestor_contained(self.root_for(target), target)?;
        if let Some(parent) = target.parent() {
            create_dir(parent)?;
        }
        self.ensure_parent_contained(target)?;
        self.touch(target);
        if fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_symlink()) {
            fs::remove_file(target).map_err(|e| super::io_err("cannot replace", target, e))?;
        }
        write_checked_at(
            self.root_for(target),
            target,
            content,
            &|| true,
            Some(system_time(mtime_ns)),
        )?;
        super::fault_point();
        Ok(())
    }

    /// Put a symlink to `link` at `target` with the mtime `mtime_ns` (the link's
    /// own, not its target's): made beside it under a temp name and renamed over.
    pub fn put_link(&mut self, target: &Path, link: &[u8], mtime_ns: i128) -> Result<(), Error> {
        use std::os::unix::ffi::OsStrExt;
        ensure_ancestor_contained(self.root_for(target), target)?;
        let parent = target.parent().unwrap_or(self.dir.dir()).to_path_buf();
        create_dir(&parent)?;
        self.ensure_parent_contained(target)?;
        let base = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = parent.join(super::temp_name(&base));
        self.touch(target);
        let result = (|| -> std::io::Result<()> {
            std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(link), &tmp)?;
            let t = timespec(mtime_ns);
            rustix::fs::utimensat(
                rustix::fs::CWD,
                &tmp,
                &rustix::fs::Timestamps {
                    last_access: t,
                    last_modification: t,
                },
                rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
            )?;
            fs::rename(&tmp, target)?;
            super::atomic::sync_dir(&parent)
        })();
        result.map_err(|e| {
            let _ = fs::remove_file(&tmp);
            super::io_err("cannot write", target, e)
        })?;
        super::fault_point();
        Ok(())
    }

    /// Open writers on two memory dirs, taking their locks in the byte order of
    /// their real paths, so two commands that write both never deadlock. Each dir
    /// records its own history (`ra` for `a`, `rb` for `b`).
    pub fn open_two(
        a: &MemoryDir,
        b: &MemoryDir,
        now: DateTime<Utc>,
        force: bool,
        (ra, rb): (&Recording, &Recording),
    ) -> Result<(Writer, Writer), Error> {
        create_dir(a.dir())?;
        create_dir(b.dir())?;
        let key = |d: &MemoryDir| fs::canonicalize(d.main()).unwrap_or_else(|_| d.main().to_path_buf());
        if key(a).as_os_str().as_encoded_bytes() <= key(b).as_os_str().as_encoded_bytes() {
            let wa = Writer::open(a, now, force, ra)?;
            Ok((wa, Writer::open(b, now, force, rb)?))
        } else {
            let wb = Writer::open(b, now, force, rb)?;
            Ok((Writer::open(a, now, force, ra)?, wb))
        }
    }

    /// Create `target` (which must not exist) with `content` and the modification
    /// time `mtime_ns`, parent dirs made (0700): the temp file gets the bytes and
    /// the mtime before it is renamed into place, so the file never shows another
    /// mtime (`projects merge` keeps a moved memory's age and scan order). An entry
    /// that appears at `target` meanwhile is `exists`, and nothing is written.
    pub fn create_at(&mut self, target: &Path, content: &[u8], mtime_ns: i128) -> Result<(), Error> {
        ensure_ancestor_contained(self.root_for(target), target)?;
        if let Some(parent) = target.parent() {
            create_dir(parent)?;
        }
        self.ensure_parent_contained(target)?;
        let absent = || fs::symlink_metadata(target).is_err();
        self.touch(target);
        if !absent()
            || !write_checked_at(
                self.root_for(target),
                target,
                content,
                &absent,
                Some(system_time(mtime_ns)),
            )?
        {
            return Err(Error::new(Kind::Exists, format!("file exists: {}", target.display()))
                .hint("another program created it meanwhile; run the command again"));
        }
        self.created.push(target.to_path_buf());
        super::fault_point();
        Ok(())
    }

    /// [`Writer::create_at`] for many new files (`import`): each directory
    /// checked (containment, SPEC §4.4) and created once, before any file is
    /// written; the files written in batches (see [`create_batch`]), each on disk
    /// before its rename (its own fsync, or one `syncfs` for a group); each directory
    /// fsynced once after its last file, not once per file. A file that exists is
    /// `exists`, and nothing after it is written.
    pub fn create_all_at(&mut self, files: &[(PathBuf, &[u8], i128)]) -> Result<(), Error> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        for (target, _, _) in files {
            let parent = target.parent().unwrap_or(self.dir.dir());
            if !dirs.iter().any(|d| d == parent) {
                ensure_ancestor_contained(self.root_for(target), target)?;
                create_dir(parent)?;
                self.ensure_parent_contained(target)?;
                dirs.push(parent.to_path_buf());
            }
        }
        for (target, _, _) in files {
            self.touch(target);
        }
        let batch: Vec<(&Path, &[u8], std::time::SystemTime)> = files
            .iter()
            .map(|(target, content, mtime_ns)| (target.as_path(), *content, system_time(*mtime_ns)))
            .collect();
        let created = &mut self.created;
        create_batch(&batch, &mut |t| {
            created.push(t.to_path_buf());
            super::fault_point();
        })?;
        for d in &dirs {
            super::atomic::sync_dir(d).map_err(|e| io_err("cannot sync", d, e))?;
        }
        Ok(())
    }

    pub fn memdir(&self) -> &MemoryDir {
        &self.dir
    }

    /// Create `target` (a new file, never overwriting), with its parent dirs.
    pub fn create(&mut self, target: &Path, content: &[u8]) -> Result<(), Error> {
        ensure_ancestor_contained(self.root_for(target), target)?;
        if let Some(parent) = target.parent() {
            create_dir(parent)?;
        }
        self.touch(target);
        create_new(self.root_for(target), target, content)?;
        self.created.push(target.to_path_buf());
        super::fault_point();
        Ok(())
    }

    /// Replace `target` atomically.
    pub fn replace(&mut self, target: &Path, content: &[u8]) -> Result<(), Error> {
        self.touch(target);
        write_checked(self.root_for(target), target, content, None)?;
        super::fault_point();
        Ok(())
    }

    /// Replace `target` only if it still holds `old` (read when the command
    /// planned): else `conflict`, and nothing is written. Lines `new` keeps from
    /// `old` keep their bytes.
    pub fn replace_expecting(&mut self, target: &Path, old: &[u8], new: &[u8]) -> Result<(), Error> {
        self.replace_expecting_at(target, old, new, false)
    }

    /// [`Writer::replace_expecting`] for a mechanical rewrite (`lint --fix`): the
    /// file keeps its modification time to the nanosecond, so Claude Code still
    /// sees the memory's age and its place in the scan.
    pub fn replace_expecting_keep_mtime(&mut self, target: &Path, old: &[u8], new: &[u8]) -> Result<(), Error> {
        self.replace_expecting_at(target, old, new, true)
    }

    fn replace_expecting_at(&mut self, target: &Path, old: &[u8], new: &[u8], keep_mtime: bool) -> Result<(), Error> {
        let mtime = if keep_mtime {
            Some(
                std::fs::metadata(target)
                    .and_then(|m| m.modified())
                    .map_err(|e| io_err("cannot read the mtime of", target, e))?,
            )
        } else {
            None
        };
        let current = read_for_update(target)?;
        let same = current == old || String::from_utf8_lossy(&current).as_bytes() == old;
        // The plan was made from `old`: if it looks like a half-written file, it is
        // trusted only once the file has stayed unchanged (issue 29 point 1).
        let same = same && super::settle::Watch::new().trust(target, &current, None)?;
        let content = match std::str::from_utf8(new) {
            Ok(text) => keep_original_bytes(&current, text),
            Err(_) => std::borrow::Cow::Borrowed(new),
        };
        let unchanged = || read_for_update(target).is_ok_and(|b| b == current);
        self.touch(target);
        if same && write_checked_at(self.root_for(target), target, &content, &unchanged, mtime)? {
            super::fault_point();
            return Ok(());
        }
        Err(Error::new(
            Kind::Conflict,
            format!("{} changed while memctl was writing it", target.display()),
        )
        .hint("another program changed it; run the command again"))
    }

    /// Replace `target` with exactly `new` and the mtime `mtime_ns`, only if it
    /// still holds exactly `old` right before the rename (size, mtime and content
    /// re-checked; `sync` takes a remote version this way). `Ok(false)`: it changed
    /// meanwhile, and nothing was written.
    pub fn replace_holding(&mut self, target: &Path, old: &[u8], new: &[u8], mtime_ns: i128) -> Result<bool, Error> {
        self.ensure_parent_contained(target)?;
        let Ok(current) = read_for_update(target) else {
            return Ok(false);
        };
        if current != old || !super::settle::Watch::new().trust(target, &current, None)? {
            return Ok(false);
        }
        let stamp = super::atomic::stamp(target);
        let unchanged = || super::atomic::stamp(target) == stamp && read_for_update(target).is_ok_and(|b| b == current);
        self.touch(target);
        let wrote = write_checked_at(
            self.root_for(target),
            target,
            new,
            &unchanged,
            Some(system_time(mtime_ns)),
        )?;
        if wrote {
            super::fault_point();
        }
        Ok(wrote)
    }

    /// Replace `target` only if it still has the stamp `expect`; whether it wrote.
    /// A target that looks half-written (see [`super::settle`]) must first stay
    /// unchanged for a while; if it changes meanwhile, nothing is written.
    pub fn replace_if(&mut self, target: &Path, content: &[u8], expect: Stamp) -> Result<bool, Error> {
        if super::atomic::stamp(target) != expect {
            return Ok(false);
        }
        let current = read_for_update(target)?;
        if !super::settle::Watch::new().trust(target, &current, None)? {
            return Ok(false);
        }
        self.touch(target);
        let wrote = write_checked(self.root_for(target), target, content, Some(expect))?;
        if wrote {
            super::fault_point();
        }
        Ok(wrote)
    }

    /// Require `target` to still hold `planned` (what the command read when it
    /// planned; empty for a missing file), and that read to be one memctl may trust
    /// (issue 29 point 1): a file that looks half-written (empty, cut inside a
    /// line, or missing lines of the settled copy the before-snapshot kept) must
    /// first stay unchanged for a while. Else `conflict`, and the caller writes
    /// nothing. For a command that plans several writes from one read (`projects
    /// merge`): checked before its first write.
    pub fn ensure_settled(&mut self, target: &Path, planned: &[u8]) -> Result<(), Error> {
        let exists = fs::symlink_metadata(target).is_ok();
        let current = if exists { read_for_update(target)? } else { Vec::new() };
        let same = current == planned || String::from_utf8_lossy(&current).as_bytes() == planned;
        let baseline = self.torn_baseline(target).map(<[u8]>::to_vec);
        if same && super::settle::Watch::new().trust(target, &current, baseline.as_deref())? {
            return Ok(());
        }
        Err(Error::new(
            Kind::Conflict,
            format!("{} changed while memctl was writing it", target.display()),
        )
        .hint("another program changed it; run the command again"))
    }

    /// The last settled copy of `target` when the before-snapshot found it shrunk
    /// and just changed (possibly another program's half-write).
    fn torn_baseline(&self, target: &Path) -> Option<&[u8]> {
        use std::os::unix::ffi::OsStrExt;
        let h = self.history.as_ref()?;
        let rel = target.strip_prefix(self.dir.main()).ok()?;
        h.torn.get(rel.as_os_str().as_bytes()).map(Vec::as_slice)
    }

    /// Read-modify-write `target` against its fresh content; `seen` is what the
    /// command read when it planned (see [`super::update`]).
    pub fn update(
        &mut self,
        target: &Path,
        seen: Option<&[u8]>,
        mut change: impl FnMut(&str) -> Result<String, Error>,
    ) -> Result<(String, String), Error> {
        self.update_raw(target, seen, |t| change(t).map(std::borrow::Cow::Owned))
            .map(|u| (u.old, u.new.into_owned()))
    }

    /// [`Writer::update`], also giving the exact bytes it replaced; `change`
    /// may give a text it holds already (see [`super::update_raw`]).
    pub fn update_raw<'c>(
        &mut self,
        target: &Path,
        seen: Option<&[u8]>,
        change: impl FnMut(&str) -> Result<std::borrow::Cow<'c, str>, Error>,
    ) -> Result<super::Updated<'c>, Error> {
        // The before-snapshot found the index shrunk and just changed (possibly
        // another program's half-write, which the command may also have planned
        // from): the last settled copy is the baseline no read may lose lines of.
        self.touch(target);
        let baseline = self.torn_baseline(target);
        let seen = match (baseline, seen) {
            (Some(b), Some(s)) if b.len() > s.len() => Some(b),
            (Some(b), None) => Some(b),
            (_, s) => s,
        };
        let done = super::update_raw(self.root_for(target), target, seen, change)?;
        super::fault_point();
        Ok(done)
    }

    /// This command's trash dir, `<dir>.trash/<UTC stamp>[-n]/` (SPEC §4.5): created
    /// on the first call (after its containment check), the same dir afterwards.
    pub fn trash_dir(&mut self) -> Result<PathBuf, Error> {
        if let Some(t) = &self.trash {
            return Ok(t.clone());
        }
        let t = trash_dir(self.dir.dir(), self.now)?;
        self.trash = Some(t.clone());
        Ok(t)
    }

    /// Move the entry `path` into `trash` as `<rel>.deleted`, the one trash layout.
    pub fn trash(&mut self, trash: &Path, rel: &str, path: &Path) -> Result<PathBuf, Error> {
        let dest = trash.join(format!("{rel}.deleted"));
        // A directory moved takes the files below it along: walked again.
        if fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
            self.touched_unknown();
        }
        self.touch(path);
        self.touch(&dest);
        move_entry(self.dir.dir(), path, &dest)?;
        super::fault_point();
        Ok(dest)
    }

    /// Put an entry moved by [`Writer::trash`] back where it was (undoing a command
    /// that failed half-way).
    pub fn untrash(&mut self, moved: &Path, back: &Path) -> Result<(), Error> {
        if fs::symlink_metadata(moved).is_ok_and(|m| m.is_dir()) {
            self.touched_unknown();
        }
        self.touch(moved);
        self.touch(back);
        move_entry(self.dir.dir(), moved, back)
    }

    /// Write a side file into `trash` (the removed index lines of a forgotten
    /// memory), atomically: a full disk leaves no empty or partial note.
    pub fn trash_note(&mut self, trash: &Path, name: &str, content: &[u8]) -> Result<(), Error> {
        let f = trash.join(name);
        if let Some(p) = f.parent() {
            create_dir(p)?;
        }
        self.touch(&f);
        create_new(self.dir.dir(), &f, content)
            .map_err(|e| e.hint("nothing was forgotten; free some space (or fix the permissions) and run it again"))?;
        self.created.push(f);
        Ok(())
    }

    /// Remove what this writer created: a command that fails after creating a file
    /// leaves nothing behind.
    pub fn roll_back(&mut self) {
        for p in self.created.drain(..) {
            let _ = fs::remove_file(&p);
        }
        self.discard_empty_trash();
    }

    /// Remove this command's trash dir again if nothing was moved into it (with
    /// the subdirectories made for nested names): a failed command leaves no empty
    /// stamp dir.
    pub fn discard_empty_trash(&mut self) {
        let Some(t) = self.trash.take() else { return };
        fn prune(d: &Path) -> bool {
            let Ok(entries) = fs::read_dir(d) else { return false };
            let mut empty = true;
            for e in entries.filter_map(Result::ok) {
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                empty &= is_dir && prune(&e.path());
            }
            empty && fs::remove_dir(d).is_ok()
        }
        if !prune(&t) {
            self.trash = Some(t);
        }
    }
}

/// A time `ns` nanoseconds after the epoch (before it when negative).
pub fn system_time(ns: i128) -> std::time::SystemTime {
    let d = |n: i128| std::time::Duration::from_nanos(u64::try_from(n.unsigned_abs()).unwrap_or(u64::MAX));
    if ns >= 0 {
        std::time::UNIX_EPOCH + d(ns)
    } else {
        std::time::UNIX_EPOCH - d(ns)
    }
}

fn timespec(ns: i128) -> rustix::fs::Timespec {
    let secs = ns.div_euclid(1_000_000_000);
    rustix::fs::Timespec {
        tv_sec: i64::try_from(secs).unwrap_or(i64::MAX),
        tv_nsec: ns.rem_euclid(1_000_000_000) as _,
    }
}

impl Drop for Writer {
    /// A command that returns early (an error after some writes) still records
    /// what it changed; its warnings have no one to print them then.
    fn drop(&mut self) {
        self.record_after();
    }
}
