//! When memctl may trust a read of a file another program may be rewriting in
//! place (issue 29 point 1; SPEC §4.2).
//!
//! Programs that take no lock (Claude Code's Write tool, Node's `writeFileSync`,
//! editors, sync clients) rewrite a file by truncating it and then writing: for a
//! moment, or for as long as a slow disk stalls them, the file holds nothing or only
//! its first part. A read that *looks* torn (empty, cut inside a line, shorter than
//! what the command read when it planned, or missing a line the command saw then)
//! is trusted only once the file has stayed unchanged for [`SETTLE`]; memctl waits
//! for that up to [`DEADLINE`], then refuses with `conflict` and writes nothing.
//! A read that does not look torn costs no wait.
//!
//! "Unchanged" is judged by the file's identity and its size, mtime and ctime (the
//! kernel moves ctime on every write, truncation or `utimes`, and a program cannot
//! set it back), so a file left alone before memctl looked counts from its ctime.
//!
//! The clock is injectable so tests can drive the interleaving exactly (see
//! [`Watch::new`]); the product always uses the real one.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// How long a file that looks torn must have been left unchanged before memctl
/// trusts it. One second: a writer's truncate-to-write gap is microseconds in the
/// common case, and the stalls seen in practice (a loaded or network disk, a sync
/// client, an editor's fsync, a `writeFileSync` behind a busy event loop; issue 29
/// measured 60 to 900 ms) stay well below it; it is also the mtime/ctime
/// granularity of the coarsest common file systems (ext3, HFS+; a whole-second
/// ctime counts as two seconds younger, for FAT's two). Longer would make every
/// command behind a torn-looking index slower without a writer that needs it;
/// shorter is beaten by stalls that happen. It costs nothing when the read does
/// not look torn.
pub const SETTLE: Duration = Duration::from_secs(1);
/// How long memctl keeps waiting for a file that keeps changing.
pub const DEADLINE: Duration = Duration::from_secs(5);
/// How often memctl looks again while it waits.
const POLL: Duration = Duration::from_millis(25);

/// Whether `now` (a fresh read) may be a torn state of the file: empty, cut inside
/// a line, or, against `seen` (what the command read when it planned), shorter or
/// missing one of its lines. `exists`: the file exists (a missing file is torn
/// only if it was seen non-empty).
pub fn looks_torn(now: &[u8], exists: bool, seen: Option<&[u8]>) -> bool {
    let seen = seen.filter(|s| !s.is_empty());
    if !exists {
        return seen.is_some();
    }
    if now.is_empty() || !now.ends_with(b"\n") {
        return true;
    }
    let Some(seen) = seen else { return false };
    if now.len() < seen.len() {
        return true;
    }
    // The usual case (the file as planned): every line is there, without a set
    // of the lines (20 000 of them in a large index: ~85 M instructions).
    if now == seen {
        return false;
    }
    let have: std::collections::HashSet<&[u8]> = now.split(|&b| b == b'\n').collect();
    seen.split(|&b| b == b'\n').any(|l| !have.contains(l))
}

/// A file's identity and the times the kernel moves on every change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mark(Option<(u64, u64, u64, i64, i64, i64, i64)>);

fn mark(path: &Path) -> Mark {
    use std::os::unix::fs::MetadataExt;
    Mark(std::fs::metadata(path).ok().map(|m| {
        (
            m.dev(),
            m.ino(),
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        )
    }))
}

/// Time and waiting, injectable for tests.
trait Clock {
    /// Time since the watch began.
    fn elapsed(&self) -> Duration;
    fn sleep(&mut self, d: Duration);
    /// How long `path` has been unchanged according to its own times (zero if
    /// unknown or in the future).
    fn age(&self, path: &Path) -> Duration;
}

struct RealClock(Instant);

impl Clock for RealClock {
    fn elapsed(&self) -> Duration {
        self.0.elapsed()
    }
    fn sleep(&mut self, d: Duration) {
        std::thread::sleep(d);
    }
    fn age(&self, path: &Path) -> Duration {
        file_age(path, true)
    }
}

/// How long ago `path` was last modified by its mtime (and, with `ctime`, its
/// ctime too); zero if unknown or in the future. A whole-second time may come from
/// a file system that keeps only seconds (or FAT's two): it counts as two seconds
/// younger.
fn file_age(path: &Path, ctime: bool) -> Duration {
    use std::os::unix::fs::MetadataExt;
    let Ok(m) = std::fs::metadata(path) else {
        return Duration::ZERO;
    };
    let at = |s: i64, ns: i64| -> Option<SystemTime> {
        let t = SystemTime::UNIX_EPOCH.checked_add(Duration::new(u64::try_from(s).ok()?, ns as u32))?;
        if ns == 0 {
            t.checked_add(Duration::from_secs(2))
        } else {
            Some(t)
        }
    };
    let Some(mut t) = at(m.mtime(), m.mtime_nsec()) else {
        return Duration::ZERO;
    };
    if ctime {
        match at(m.ctime(), m.ctime_nsec()) {
            Some(c) => t = t.max(c),
            None => return Duration::ZERO,
        }
    }
    SystemTime::now().duration_since(t).unwrap_or(Duration::ZERO)
}

/// The test clock (debug builds only): `MEMCTL_TEST_CLOCK` names a Unix socket.
/// Time is virtual; every sleep sends `<virtual ms at its start>\n` and waits for
/// one line back, so a test decides exactly what happens to the file during each
/// pause. A file's own times are ignored (every file starts unchanged for 0 s).
#[cfg(debug_assertions)]
struct TestClock {
    at: Duration,
    conn: std::io::BufReader<std::os::unix::net::UnixStream>,
}

#[cfg(debug_assertions)]
impl Clock for TestClock {
    fn elapsed(&self) -> Duration {
        self.at
    }
    fn sleep(&mut self, d: Duration) {
        use std::io::{BufRead, Write};
        let _ = writeln!(self.conn.get_mut(), "{}", self.at.as_millis());
        let mut line = String::new();
        let _ = self.conn.read_line(&mut line);
        self.at += d;
    }
    fn age(&self, _: &Path) -> Duration {
        Duration::ZERO
    }
}

fn clock() -> Box<dyn Clock> {
    #[cfg(debug_assertions)]
    if let Some(p) = std::env::var_os("MEMCTL_TEST_CLOCK")
        && let Ok(s) = std::os::unix::net::UnixStream::connect(p)
    {
        return Box::new(TestClock {
            at: Duration::ZERO,
            conn: std::io::BufReader::new(s),
        });
    }
    Box::new(RealClock(Instant::now()))
}

/// Whether `path` was modified within the last [`SETTLE`] by its mtime (SPEC v3
/// §8.1 "modified in the last second"; under the test clock, always). Never waits.
pub fn young(path: &Path) -> bool {
    #[cfg(debug_assertions)]
    if std::env::var_os("MEMCTL_TEST_CLOCK").is_some() {
        return true;
    }
    file_age(path, false) < SETTLE
}

/// One read-modify-write's watch over its target: how long it has waited, and
/// since when the file has been unchanged.
pub struct Watch {
    clock: Box<dyn Clock>,
    last: Option<(Mark, Duration)>,
    /// The last complete-looking content seen (its hash) and since when.
    content: Option<(u64, Duration)>,
}

impl Default for Watch {
    fn default() -> Self {
        Watch::new()
    }
}

impl Watch {
    /// A watch on the real clock (in debug builds, the test clock when
    /// `MEMCTL_TEST_CLOCK` names a listening socket).
    pub fn new() -> Watch {
        Watch {
            clock: clock(),
            last: None,
            content: None,
        }
    }

    /// Whether the deadline has passed.
    pub fn expired(&self) -> bool {
        self.clock.elapsed() >= DEADLINE
    }

    /// Look at `path`: whether it has now stayed unchanged for [`SETTLE`].
    pub fn settled(&mut self, path: &Path) -> bool {
        let m = mark(path);
        let now = self.clock.elapsed();
        let since = match self.last {
            Some((prev, since)) if prev == m => since,
            _ => {
                let since = now.saturating_sub(self.clock.age(path));
                self.last = Some((m, since));
                since
            }
        };
        now.saturating_sub(since) >= SETTLE
    }

    /// Whether the complete-looking content `bytes` of `path` (a read that lacks
    /// lines the command saw when it planned, but is not cut itself) has been the
    /// file's content for [`SETTLE`]: every such read since then gave the same
    /// bytes (reads that look cut are another program's rewrite in progress and
    /// neither count nor reset it). A program that keeps writing back the same
    /// text does not keep memctl waiting; one whose text keeps changing does.
    pub fn content_settled(&mut self, path: &Path, bytes: &[u8]) -> bool {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut h);
        let hash = h.finish();
        let now = self.clock.elapsed();
        let since = match self.content {
            Some((prev, since)) if prev == hash => since,
            Some(_) => {
                self.content = Some((hash, now));
                now
            }
            None => {
                let since = now.saturating_sub(self.clock.age(path));
                self.content = Some((hash, since));
                since
            }
        };
        now.saturating_sub(since) >= SETTLE
    }

    /// Wait a little before looking again.
    pub fn pause(&mut self) {
        self.clock.sleep(POLL);
    }

    /// Wait until a read of `path` that gave `bytes` can be trusted: at once if it
    /// does not look torn (see [`looks_torn`]), else once the file has stayed
    /// unchanged for [`SETTLE`]. `Ok(true)`: trust it (the file still holds what
    /// was read); `Ok(false)`: the file changed meanwhile, read it again;
    /// `Err`: the deadline passed (`conflict`).
    pub fn trust(&mut self, path: &Path, bytes: &[u8], seen: Option<&[u8]>) -> Result<bool, crate::error::Error> {
        let exists = std::fs::symlink_metadata(path).is_ok();
        if !looks_torn(bytes, exists, seen) {
            return Ok(true);
        }
        self.wait_settled(path)
    }

    /// Wait until `path` has stayed unchanged for [`SETTLE`] (`Ok(true)`), or
    /// changes (`Ok(false)`); past the deadline, `conflict`.
    pub fn wait_settled(&mut self, path: &Path) -> Result<bool, crate::error::Error> {
        let first = mark(path);
        loop {
            if self.settled(path) {
                return Ok(mark(path) == first);
            }
            if mark(path) != first {
                return Ok(false);
            }
            if self.expired() {
                return Err(busy(path));
            }
            self.pause();
        }
    }
}

/// The refusal when a file kept changing (or kept looking torn) past the deadline.
pub fn busy(path: &Path) -> crate::error::Error {
    crate::error::Error::new(
        crate::error::Kind::Conflict,
        format!("{} keeps changing while memctl writes it", path.display()),
    )
    .hint("another program (Claude Code?) is writing it; try again in a moment")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_looks_torn() {
        assert!(looks_torn(b"", true, None));
        assert!(!looks_torn(b"", false, None));
        assert!(looks_torn(b"", false, Some(b"a\n")));
        assert!(looks_torn(b"- a\n- b", true, None));
        assert!(!looks_torn(b"- a\n- b\n", true, None));
        assert!(!looks_torn(b"- a\n- b\n- c\n", true, Some(b"- a\n- b\n")));
        assert!(looks_torn(b"- a\n- c\n", true, Some(b"- a\n- b\n")));
        assert!(looks_torn(b"- a\n", true, Some(b"- a\n- a\n")));
        // The file as planned: whole, unless it is cut inside a line.
        assert!(!looks_torn(b"- a\n- b\n", true, Some(b"- a\n- b\n")));
        assert!(looks_torn(b"- a\n- b", true, Some(b"- a\n- b")));
        assert!(looks_torn(b"", true, Some(b"")));
    }
}
