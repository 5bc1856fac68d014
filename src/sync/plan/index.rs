//! SPEC §11.3 step 3: `MEMORY.md` (a team target's `team/MEMORY.md`) rebuilt as
//! a merge of lines keyed by link target ([`merge::merge_index`]), then checked
//! with the truncation model.

use std::collections::{BTreeSet, HashMap};

use gix::ObjectId;

use super::per_file::Merged;
use super::{Act, NewIndex, Sides};
use crate::error::Error;
use crate::index::place::CutEntry;
use crate::sync::merge;
use crate::sync::read::memory_type;
use crate::sync::repo::{Files, SyncRepo};
use crate::sync::{Mode, ProjectReport, Target};

/// Step 3: the merged index, when it differs from the local one (`None`: the
/// index stays as it is). Only rebuilt when the remote has an index or the merge
/// deleted or kept back files.
pub(super) fn rebuild_index(
    r: &SyncRepo,
    t: &Target,
    sides: &Sides,
    mode: Mode,
    merged: &Merged,
    remote_tip: Option<ObjectId>,
    report: &mut ProjectReport,
) -> Result<Option<NewIndex>, Error> {
    let name = t.index();
    let remote_index = if mode == Mode::PushLocal {
        None
    } else {
        index_text(r, &sides.incoming, name)?
    };
    if remote_index.is_none() && merged.gone.is_empty() && report.skipped.is_empty() {
        return Ok(None);
    }
    let base_index = index_text(r, &sides.base, name)?.unwrap_or_default();
    let types = incoming_types(r, &merged.acts)?;
    let type_of = |f: &str| -> Option<String> {
        let f = format!("{}{f}", t.prefix());
        types
            .get(&f)
            .cloned()
            .flatten()
            .or_else(|| sides.local_bytes.get(&f).and_then(|b| memory_type(b)))
    };
    let before = sides
        .local_bytes
        .get(name)
        .map(|b| String::from_utf8_lossy(b).into_owned());
    let local_index = before.clone().unwrap_or_default();
    let (gone, kept) = (linked(&merged.gone, t.prefix()), linked(&merged.kept, t.prefix()));
    let remote_or_base = remote_index.as_deref().unwrap_or(&base_index);
    let after = merge::merge_index(&base_index, &local_index, remote_or_base, &gone, &kept, &type_of);
    if let (Some(ri), Some(tip)) = (&remote_index, remote_tip) {
        report.index_replaced = replaced(&base_index, ri, &after, &gone, tip);
    }
    if after == local_index {
        return Ok(None);
    }
    let (cut, cut_entries) = check_truncation(&local_index, &after);
    report.cut_entries = cut_entries;
    match before {
        Some(_) => report.updated.push(name.to_string()),
        None => report.added.push(name.to_string()),
    }
    Ok(Some(NewIndex { before, after, cut }))
}

/// The text of the index a side holds (`None`: it has none).
fn index_text(r: &SyncRepo, f: &Files, name: &str) -> Result<Option<String>, Error> {
    match f.get(name) {
        Some(b) => Ok(Some(String::from_utf8_lossy(&r.blob(b.oid)?).into_owned())),
        None => Ok(None),
    }
}

/// The memory types of the files the merge takes from the remote (for §10.2
/// placement of their index lines).
fn incoming_types(r: &SyncRepo, acts: &[Act]) -> Result<HashMap<String, Option<String>>, Error> {
    let mut types = HashMap::new();
    for a in acts {
        if let Act::Take { rel, oid, .. } = a {
            types.insert(rel.clone(), memory_type(&r.blob(*oid)?));
        }
    }
    Ok(types)
}

/// The files of `set` as the index links them: relative to its own dir
/// (`team/x.md` is `x.md` in `team/MEMORY.md`); files outside it are left out.
fn linked(set: &BTreeSet<String>, prefix: &str) -> BTreeSet<String> {
    set.iter()
        .filter_map(|rel| rel.strip_prefix(prefix))
        .map(str::to_string)
        .collect()
}

/// The remote's index lines the merge replaced or dropped, each naming the
/// fetched commit `tip` that holds them.
fn replaced(base: &str, remote: &str, merged: &str, gone: &BTreeSet<String>, tip: ObjectId) -> Vec<merge::Replaced> {
    let mut out = merge::replaced_lines(base, remote, merged, gone);
    for e in &mut out {
        e.commit = tip.to_string();
    }
    out
}

/// Step 3's check of the merged index with the truncation model: why Claude Code
/// would cut it (`None`: it loads whole), and the entries the merge put past the
/// cut that `local` loaded or did not have.
fn check_truncation(local: &str, merged: &str) -> (Option<String>, Vec<CutEntry>) {
    let load = crate::index::load::load(merged);
    let entries = crate::index::place::Cuts::of(local, merged, &load).entries(merged);
    let cut = (load.line_truncated || load.unit_truncated).then(|| load.reason.unwrap_or_else(|| "over a cap".into()));
    (cut, entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_team_index_links_its_files_relative_to_its_dir() {
        let s = set(&["a.md", "team/b.md", "team/sub/c.md"]);
        assert_eq!(linked(&s, "team/"), set(&["b.md", "sub/c.md"]));
        assert_eq!(linked(&s, ""), s);
    }

    #[test]
    fn replaced_lines_name_the_fetched_commit() {
        let tip = ObjectId::from_bytes_or_panic(&[7; 20]);
        let got = replaced(
            "",
            "- [A](a.md) — theirs\n",
            "- [A](a.md) — ours\n",
            &BTreeSet::new(),
            tip,
        );
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].line, 1);
        assert_eq!(got[0].replaced_by.as_deref(), Some("- [A](a.md) — ours"));
        assert_eq!(got[0].commit, tip.to_string());
    }

    #[test]
    fn an_index_within_the_caps_is_not_cut() {
        let (cut, entries) = check_truncation("", "- [A](a.md) — a\n");
        assert_eq!(cut, None);
        assert!(entries.is_empty());
    }

    #[test]
    fn an_index_over_the_line_cap_is_cut_and_names_the_entries_past_it() {
        let merged: String = (0..260).map(|i| format!("- [M{i}](m{i}.md) — memory {i}\n")).collect();
        let (cut, entries) = check_truncation("", &merged);
        assert!(cut.is_some());
        assert!(entries.iter().any(|e| e.file == "m259.md"), "{entries:?}");
    }
}
