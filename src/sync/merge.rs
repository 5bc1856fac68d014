//! The merges of SPEC §11.3, pure: one file against the last synced state
//! ([`decide`], step 2), and `MEMORY.md` as lines keyed by link target
//! ([`merge_index`], steps 3 and 4).

use std::collections::{BTreeMap, BTreeSet};

/// What a per-file three-way merge decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Both sides agree (unchanged, or changed the same way): nothing to do.
    Same,
    /// Only the remote side changed: take it (write, add, or delete locally).
    TakeRemote,
    /// Only this side changed: keep it (it goes out with the push).
    KeepLocal,
    /// Both changed differently: the local file stays, the remote one is kept
    /// beside it as a conflict file.
    Conflict,
    /// Deleted here, changed there: the remote version comes back (reported).
    KeptDeletedHere,
    /// Deleted there, changed here: the local version stays (reported).
    KeptDeletedThere,
}

/// The per-file merge table of SPEC §11.3 step 2 (`None`: absent on that side).
pub fn decide<T: PartialEq>(base: Option<&T>, local: Option<&T>, remote: Option<&T>) -> Decision {
    if local == remote {
        return Decision::Same;
    }
    if local == base {
        return Decision::TakeRemote;
    }
    if remote == base {
        return Decision::KeepLocal;
    }
    match (local, remote) {
        (Some(_), Some(_)) => Decision::Conflict,
        (None, _) => Decision::KeptDeletedHere,
        (_, None) => Decision::KeptDeletedThere,
    }
}

/// The memory file an index line is about: its first link into the memory dir.
fn entries(text: &str) -> BTreeMap<usize, String> {
    let mut out = BTreeMap::new();
    for l in crate::index::extract_links(text) {
        if let Some(t) = l.memory_target() {
            out.entry(l.line).or_insert_with(|| t.to_string());
        }
    }
    out
}

/// One side of the index: its raw lines (endings kept) and, per target, its line.
struct Side {
    raw: Vec<String>,
    /// 0-based line → target.
    by_line: BTreeMap<usize, String>,
    /// target → the line (without its ending), first occurrence.
    by_target: BTreeMap<String, String>,
}

fn side(text: &str) -> Side {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let raw: Vec<String> = body.split_inclusive('\n').map(str::to_string).collect();
    let mut by_line = BTreeMap::new();
    let mut by_target = BTreeMap::new();
    for (line, t) in entries(body) {
        let i = line - 1;
        if i < raw.len() && !by_target.contains_key(&t) {
            by_target.insert(t.clone(), bare(&raw[i]).to_string());
            by_line.insert(i, t);
        }
    }
    Side {
        raw,
        by_line,
        by_target,
    }
}

fn bare(l: &str) -> &str {
    l.trim_end_matches(['\n', '\r'])
}

/// The lines of a side that name no memory (headings, free text), in order.
fn free_text(s: &Side) -> Vec<&str> {
    s.raw
        .iter()
        .enumerate()
        .filter(|(i, _)| !s.by_line.contains_key(i))
        .map(|(_, l)| bare(l))
        .collect()
}

/// The merged index of SPEC §11.3 steps 3–4, on the local file.
///
/// Entries are keyed by the memory file they link. Per entry, the local line wins
/// when this side changed it, else the remote one (which may remove it). Lines for
/// files `gone` (deleted by this merge) go; a file `kept` (it exists after the
/// merge) keeps a line when either side has one, even if the winning side dropped
/// it (deleted on one side, changed on the other: the kept file stays indexed,
/// SPEC §11.3 step 3's "both sides' lines for files that exist"). The local file is the frame (its free
/// text stays) unless only the remote changed the free text: then the remote file
/// is the frame, since the local still has the base's version. Entries the frame
/// lacks are inserted by §10.2 placement (`type_of` gives a file's memory type),
/// never refused.
pub fn merge_index(
    base: &str,
    local: &str,
    remote: &str,
    gone: &BTreeSet<String>,
    kept: &BTreeSet<String>,
    type_of: &dyn Fn(&str) -> Option<String>,
) -> String {
    if local == remote {
        return drop_gone(local, gone);
    }
    let (b, l, r) = (side(base), side(local), side(remote));
    let local_changed = local != base;
    let remote_changed = remote != base;
    let frame_is_remote =
        !local_changed || (remote_changed && free_text(&l) == free_text(&b) && free_text(&r) != free_text(&b));
    let winner = |t: &str| -> Option<String> {
        let won = if l.by_target.get(t) == b.by_target.get(t) {
            r.by_target.get(t)
        } else {
            l.by_target.get(t)
        };
        won.or_else(|| {
            kept.contains(t)
                .then(|| l.by_target.get(t).or(r.by_target.get(t)))
                .flatten()
        })
        .cloned()
    };
    let (frame_text, frame) = if frame_is_remote { (remote, &r) } else { (local, &l) };
    let bom = if frame_text.starts_with('\u{feff}') {
        "\u{feff}"
    } else {
        ""
    };
    let mut text = String::from(bom);
    let mut placed: BTreeSet<String> = BTreeSet::new();
    for (i, raw) in frame.raw.iter().enumerate() {
        match frame.by_line.get(&i) {
            Some(t) if gone.contains(t) => {}
            Some(t) => {
                if let Some(w) = winner(t) {
                    placed.insert(t.clone());
                    if w == bare(raw) {
                        text.push_str(raw);
                    } else {
                        text.push_str(&w);
                        text.push_str(&raw[bare(raw).len()..]);
                    }
                }
            }
            None => text.push_str(raw),
        }
    }
    let targets: BTreeSet<&String> = l.by_target.keys().chain(r.by_target.keys()).collect();
    let placing: Vec<(String, Option<String>)> = targets
        .into_iter()
        .filter(|t| !placed.contains(t.as_str()) && !gone.contains(t.as_str()))
        .filter_map(|t| winner(t).map(|w| (w, type_of(t))))
        .collect();
    crate::index::place::place_all(&text, &placing).0
}

/// A line of the other machine's `MEMORY.md` that the merged index does not keep.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Replaced {
    /// Its 1-based line in the other machine's `MEMORY.md`.
    pub line: usize,
    /// Its text (without the line ending).
    pub text: String,
    /// The merged line for the same memory (this machine's wording), or `None`
    /// when nothing took its place (free text, or an entry this side removed).
    pub replaced_by: Option<String>,
    /// The fetched commit whose `projects/<identity>/MEMORY.md` holds it (the sync
    /// repository keeps it: the merge commit has it as a parent).
    pub commit: String,
}

/// The lines the other machine wrote (not in the base) that `merged` lacks:
/// the wording `merge_index` replaced or dropped (SPEC §11.3: never a conflict,
/// but reported). Blank lines and the lines of files `gone` are not reported.
pub fn replaced_lines(base: &str, remote: &str, merged: &str, gone: &BTreeSet<String>) -> Vec<Replaced> {
    if remote == merged {
        return Vec::new();
    }
    let (b, r, m) = (side(base), side(remote), side(merged));
    let base_lines: BTreeSet<&str> = b.raw.iter().map(|l| bare(l)).collect();
    let merged_lines: BTreeSet<&str> = m.raw.iter().map(|l| bare(l)).collect();
    let mut out = Vec::new();
    for (i, raw) in r.raw.iter().enumerate() {
        let line = bare(raw);
        if line.trim().is_empty() || base_lines.contains(line) || merged_lines.contains(line) {
            continue;
        }
        let target = r.by_line.get(&i);
        if target.is_some_and(|t| gone.contains(t)) {
            continue;
        }
        out.push(Replaced {
            line: i + 1,
            text: line.to_string(),
            replaced_by: target.and_then(|t| m.by_target.get(t)).cloned(),
            commit: String::new(),
        });
    }
    out
}

fn drop_gone(text: &str, gone: &BTreeSet<String>) -> String {
    if gone.is_empty() {
        return text.to_string();
    }
    let s = side(text);
    let bom = if text.starts_with('\u{feff}') { "\u{feff}" } else { "" };
    let mut out = String::from(bom);
    for (i, raw) in s.raw.iter().enumerate() {
        if s.by_line.get(&i).is_some_and(|t| gone.contains(t)) {
            continue;
        }
        out.push_str(raw);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Decision::*;
    use super::*;

    #[test]
    fn the_other_machines_replaced_and_dropped_lines_are_reported() {
        let base = "# Index\n- [A](a.md) — alpha\n- [B](b.md) — beta\n";
        let local = "# Index\n- [A](a.md) — alpha, laptop\n- [B](b.md) — beta\nlaptop note\n";
        let remote = "# Index\n- [A](a.md) — alpha, desk\n- [B](b.md) — beta\ndesk note\n\n";
        let none = BTreeSet::new();
        let merged = merge_index(base, local, remote, &none, &none, &|_| None);
        assert_eq!(merged, local, "the local wording and free text win");
        let got = replaced_lines(base, remote, &merged, &none);
        let want = [
            (2, "- [A](a.md) — alpha, desk", Some("- [A](a.md) — alpha, laptop")),
            (4, "desk note", None),
        ];
        let got: Vec<_> = got
            .iter()
            .map(|r| (r.line, r.text.as_str(), r.replaced_by.as_deref()))
            .collect();
        assert_eq!(got, want);
        // Nothing is reported when the remote's lines are all kept, or only its
        // unchanged (base) lines go.
        assert!(replaced_lines(base, base, local, &none).is_empty());
        assert!(replaced_lines(base, remote, remote, &none).is_empty());
        // A deleted file's line goes without a report.
        let gone: BTreeSet<String> = ["a.md".to_string()].into();
        assert_eq!(replaced_lines(base, remote, "# Index\ndesk note\n", &gone), []);
    }

    #[test]
    fn the_per_file_table() {
        let (a, b, c) = (&1, &2, &3);
        // unchanged everywhere, or changed the same way
        assert_eq!(decide(Some(a), Some(a), Some(a)), Same);
        assert_eq!(decide(Some(a), Some(b), Some(b)), Same);
        assert_eq!(decide(None, Some(b), Some(b)), Same);
        assert_eq!(decide(Some(a), None, None), Same);
        // changed on one side → that side
        assert_eq!(decide(Some(a), Some(a), Some(b)), TakeRemote);
        assert_eq!(decide(Some(a), Some(b), Some(a)), KeepLocal);
        assert_eq!(decide(None, None, Some(b)), TakeRemote);
        assert_eq!(decide(None, Some(b), None), KeepLocal);
        // deleted on one side, unchanged on the other → deleted
        assert_eq!(decide(Some(a), Some(a), None), TakeRemote);
        assert_eq!(decide(Some(a), None, Some(a)), KeepLocal);
        // changed on both differently → conflict (added on both too)
        assert_eq!(decide(Some(a), Some(b), Some(c)), Conflict);
        assert_eq!(decide(None, Some(b), Some(c)), Conflict);
        // deleted on one side, changed on the other → kept
        assert_eq!(decide(Some(a), None, Some(c)), KeptDeletedHere);
        assert_eq!(decide(Some(a), Some(b), None), KeptDeletedThere);
    }

    fn none(_: &str) -> Option<String> {
        None
    }

    const BASE: &str = "# Memory\n- [A](a.md) — a\n- [B](b.md) — b\n";

    #[test]
    fn remote_only_lines_are_added_and_local_ones_kept() {
        let local = "# Memory\n- [A](a.md) — a\n- [B](b.md) — b\n- [L](l.md) — local\n";
        let remote = "# Memory\n- [A](a.md) — a\n- [B](b.md) — b\n- [R](r.md) — remote\n";
        let m = merge_index(BASE, local, remote, &BTreeSet::new(), &BTreeSet::new(), &none);
        assert_eq!(
            m,
            "# Memory\n- [A](a.md) — a\n- [B](b.md) — b\n- [L](l.md) — local\n- [R](r.md) — remote\n"
        );
    }

    #[test]
    fn the_local_line_wins_when_both_changed_an_entry() {
        let local = "# Memory\n- [A](a.md) — mine\n- [B](b.md) — b\n";
        let remote = "# Memory\n- [A](a.md) — theirs\n- [B](b.md) — b2\n";
        let m = merge_index(BASE, local, remote, &BTreeSet::new(), &BTreeSet::new(), &none);
        assert_eq!(m, "# Memory\n- [A](a.md) — mine\n- [B](b.md) — b2\n");
    }

    #[test]
    fn lines_of_deleted_files_go_and_removed_entries_stay_removed() {
        let local = "# Memory\n- [A](a.md) — a\n";
        let remote = "# Memory\n- [A](a.md) — a\n- [B](b.md) — b\n- [C](c.md) — c\n";
        let gone: BTreeSet<String> = ["b.md".to_string()].into();
        let m = merge_index(BASE, local, remote, &gone, &BTreeSet::new(), &none);
        assert_eq!(m, "# Memory\n- [A](a.md) — a\n- [C](c.md) — c\n");
        // Local unchanged: the remote file as it is, less the deleted files.
        let m = merge_index(BASE, BASE, remote, &gone, &BTreeSet::new(), &none);
        assert_eq!(m, "# Memory\n- [A](a.md) — a\n- [C](c.md) — c\n");
    }

    #[test]
    fn free_text_local_stays_remote_taken_only_over_the_base() {
        let local = "# Memory (mine)\n- [A](a.md) — a\n- [B](b.md) — b\n";
        let remote = "# Memory (theirs)\n- [A](a.md) — a\n- [B](b.md) — b\n- [R](r.md) — r\n";
        let m = merge_index(BASE, local, remote, &BTreeSet::new(), &BTreeSet::new(), &none);
        assert_eq!(
            m,
            "# Memory (mine)\n- [A](a.md) — a\n- [B](b.md) — b\n- [R](r.md) — r\n"
        );
        // The local free text is the base's: the remote's comes in, local entries kept.
        let local = "# Memory\n- [A](a.md) — a2\n- [B](b.md) — b\n";
        let remote = "# Notes\n- [A](a.md) — a\n- [B](b.md) — b\n";
        let m = merge_index(BASE, local, remote, &BTreeSet::new(), &BTreeSet::new(), &none);
        assert_eq!(m, "# Notes\n- [A](a.md) — a2\n- [B](b.md) — b\n");
    }

    #[test]
    fn remote_lines_go_to_their_types_section_and_crlf_is_kept() {
        let base = "## User\r\n- [U](u.md) — u\r\n\r\n## Feedback\r\n- [F](f.md) — f\r\n";
        let remote = "## User\r\n- [U](u.md) — u\r\n\r\n## Feedback\r\n- [F](f.md) — f\r\n- [G](g.md) — g\r\n";
        let local = "## User\r\n- [U](u.md) — u\r\n- [V](v.md) — v\r\n\r\n## Feedback\r\n- [F](f.md) — f\r\n";
        let ty = |t: &str| (t == "g.md").then(|| "feedback".to_string());
        let m = merge_index(base, local, remote, &BTreeSet::new(), &BTreeSet::new(), &ty);
        assert_eq!(
            m,
            "## User\r\n- [U](u.md) — u\r\n- [V](v.md) — v\r\n\r\n## Feedback\r\n- [F](f.md) — f\r\n- [G](g.md) — g\r\n"
        );
    }

    #[test]
    fn a_file_kept_against_a_deletion_keeps_its_line() {
        // Deleted here (its line removed with it), changed on the remote: kept.
        let local = "# Memory\n- [A](a.md) — a\n";
        let kept: BTreeSet<String> = ["a.md".to_string(), "b.md".to_string()].into();
        let m = merge_index(BASE, local, BASE, &BTreeSet::new(), &kept, &none);
        assert_eq!(m, BASE);
        // Deleted on the remote, changed here: the local line stays.
        let remote = "# Memory\n- [A](a.md) — a\n- [C](c.md) — c\n";
        let m = merge_index(BASE, BASE, remote, &BTreeSet::new(), &kept, &none);
        // (The remote file is the frame, the local is the base's: B is placed anew.)
        assert_eq!(m, "# Memory\n- [A](a.md) — a\n- [C](c.md) — c\n- [B](b.md) — b\n");
        // Not kept: the removal wins.
        let m = merge_index(BASE, BASE, remote, &BTreeSet::new(), &BTreeSet::new(), &none);
        assert_eq!(m, remote);
    }
}
