//! `memctl index rebuild` as a pure function (SPEC §10.1): the index rewritten so
//! that what Claude Code loads fits a budget of both caps, every memory still
//! reachable from it or from a hub it links.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::load::{self, MAX_LINES, MAX_UNITS};
use super::place;
use crate::memory::MemoryType;

/// Entries a hub holds at most (it stays under the 200-line read).
pub const HUB_ENTRIES: usize = 150;
/// The default hub file.
pub const DEFAULT_HUB: &str = "reference_memory_index_archive.md";
/// The frontmatter key that marks a hub (kept in `memory`, which reads it).
pub use crate::memory::HUB_KEY;

/// One memory of the index's scope, as the rebuild needs it.
#[derive(Clone, Debug)]
pub struct Memory {
    /// The path relative to the index's dir, as links name it.
    pub rel: String,
    pub title: String,
    /// The description, `None` when it has none (the canonical line then uses
    /// the title).
    pub hook: Option<String>,
    pub ty: Option<MemoryType>,
    pub mtime_ns: i128,
}

/// A hub file already in the dir: its path (relative, as linked) and its text.
#[derive(Clone, Debug)]
pub struct Hub {
    pub rel: String,
    pub text: String,
}

pub struct Input<'a> {
    pub index: &'a str,
    pub memories: &'a [Memory],
    /// Memories another index covers that this index may link too (a `team/`
    /// file the main `MEMORY.md` links: Claude Code loads that line, SPEC §2.13):
    /// their lines are kept like any entry's, but a missing line is not added.
    pub elsewhere: &'a [Memory],
    pub hubs: &'a [Hub],
    /// Files pinned with `--pin` (paths relative to the index's dir).
    pub pins: &'a BTreeSet<String>,
    /// The first hub's name (`--hub`); later ones get `_2`, `_3`, … before `.md`.
    pub hub: &'a str,
    /// Percent of both caps, in (0, 100].
    pub budget: f64,
}

/// What the rebuild did.
#[derive(Clone, Debug, Default)]
pub struct Output {
    pub index: String,
    /// Every hub the index links afterwards, with its new text; `changed` is false
    /// for one left as it was.
    pub hubs: Vec<HubOut>,
    /// (file, 1-based line in the old index) of each entry moved to a hub.
    pub moved: Vec<(String, usize)>,
    /// (file, from, to) of each shortened line.
    pub shortened: Vec<(String, String, String)>,
    /// (1-based line in the old index, text, reason) of each dropped line.
    pub dropped: Vec<(usize, String, &'static str)>,
    /// (file, 1-based line in the new index) of each added canonical line.
    pub added: Vec<(String, usize)>,
    /// (hub, 1-based line in it, text) of each hub line dropped because the file
    /// it links is gone (issue 29 point 15).
    pub hub_dropped: Vec<(String, usize, String)>,
}

#[derive(Clone, Debug)]
pub struct HubOut {
    pub rel: String,
    pub text: String,
    /// The hub's text as planned from, `None` for a new hub: the write refuses
    /// when the file no longer holds it.
    pub old: Option<String>,
    pub changed: bool,
}

/// Pinned entries and free text alone exceed the budget: the pinned files.
#[derive(Debug)]
pub struct OverBudget {
    pub pinned: Vec<String>,
    pub lines: usize,
    pub units: usize,
}

/// The budget in lines and units (floor of PERCENT % of each cap).
pub fn limits(budget: f64) -> (usize, usize) {
    let b = budget.clamp(0.0, 100.0);
    let of = |cap: usize| (cap as f64 * b / 100.0 + 1e-9).floor() as usize;
    (of(MAX_LINES), of(MAX_UNITS))
}

/// Whether `text` loads whole within the budget.
pub fn fits(text: &str, budget: f64) -> bool {
    let l = load::load(text);
    let (lines, units) = limits(budget);
    !l.truncated() && l.line_count <= lines && l.unit_count <= units
}

/// A line of the index: free text, or the head of an entry with the lines below it.
#[derive(Clone, Debug)]
enum Item {
    Text(String),
    Entry(Entry),
}

#[derive(Clone, Debug)]
struct Entry {
    /// The head line and its indented continuation lines, each with its ending.
    lines: Vec<String>,
    /// Memory files the head line links, in order.
    targets: Vec<String>,
    /// 1-based line of the head in the text it was parsed from.
    line: usize,
    pinned: bool,
    /// The head line as the index had it, when step 4 shortened it: an entry
    /// moved to a hub keeps its own wording (SPEC §3.14).
    unshortened: Option<String>,
}

impl Entry {
    fn file(&self) -> &str {
        &self.targets[0]
    }

    fn units(&self) -> usize {
        self.lines.iter().map(|l| units(l)).sum()
    }
}

/// UTF-16 units a line costs in the loaded text: the line (a CR counts) and its LF.
fn units(line: &str) -> usize {
    line.strip_suffix('\n').unwrap_or(line).encode_utf16().count() + 1
}

/// The index as items: each line linking a memory starts an entry that takes the
/// indented non-blank lines below it.
fn parse(text: &str) -> Vec<Item> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut targets: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for l in super::extract_links(body) {
        if let Some(t) = l.memory_target() {
            let v = targets.entry(l.line).or_default();
            if !v.iter().any(|x| x == t) {
                v.push(t.to_string());
            }
        }
    }
    let mut items = Vec::new();
    for (i, line) in body.split_inclusive('\n').enumerate() {
        let n = i + 1;
        if let Some(t) = targets.remove(&n) {
            let trimmed = line.trim_end();
            items.push(Item::Entry(Entry {
                lines: vec![line.to_string()],
                targets: t,
                line: n,
                pinned: trimmed.ends_with("<!-- pin -->"),
                unshortened: None,
            }));
            continue;
        }
        let indented = line.starts_with([' ', '\t']) && !line.trim().is_empty();
        match items.last_mut() {
            Some(Item::Entry(e)) if indented => e.lines.push(line.to_string()),
            _ => items.push(Item::Text(line.to_string())),
        }
    }
    items
}

fn render(items: &[Item], bom: &str) -> String {
    let mut s = String::from(bom);
    for it in items {
        match it {
            Item::Text(l) => s.push_str(l),
            Item::Entry(e) => e.lines.iter().for_each(|l| s.push_str(l)),
        }
    }
    s
}

/// `line` ending in `eol` (the last line of an index may have none).
fn with_ending(line: &str, eol: &str) -> String {
    if line.ends_with('\n') {
        line.to_string()
    } else {
        format!("{line}{eol}")
    }
}

/// The order entries move in: project, untyped, reference, feedback, user.
fn rank(ty: Option<MemoryType>) -> u8 {
    match ty {
        Some(MemoryType::Project) => 0,
        None => 1,
        Some(MemoryType::Reference) => 2,
        Some(MemoryType::Feedback) => 3,
        Some(MemoryType::User) => 4,
    }
}

fn heading_for(ty: MemoryType) -> &'static str {
    match ty {
        MemoryType::User => "## User",
        MemoryType::Feedback => "## Feedback",
        MemoryType::Project => "## Project",
        MemoryType::Reference => "## Reference",
    }
}

/// The name of the n-th hub (0-based): `x.md`, `x_2.md`, …
pub fn hub_name(first: &str, n: usize) -> String {
    if n == 0 {
        return first.to_string();
    }
    let stem = first.strip_suffix(".md").unwrap_or(first);
    format!("{stem}_{}.md", n + 1)
}

fn canonical(m: Option<&Memory>, file: &str) -> String {
    let (title, hook) = match m {
        Some(m) => (m.title.clone(), m.hook.clone().unwrap_or_else(|| m.title.clone())),
        None => (file.trim_end_matches(".md").to_string(), String::new()),
    };
    super::render_entry(title.trim(), file, hook.trim()).0
}

/// A new hub's text with its frontmatter (SPEC §10.1): the nested shape Claude
/// Code 2.1.332 writes (§2.4.1), with a slug name, so its first touch of the file
/// keeps the name and the type where they are (§2.4.6).
fn new_hub(eol: &str) -> String {
    [
        "---",
        "name: memory-index-archive",
        "description: Older index entries moved out of MEMORY.md by memctl index rebuild",
        "metadata:",
        "  type: reference",
        "  memctl-hub: true",
        "---",
        "",
    ]
    .join(eol)
}

/// Rebuild the index (SPEC §10.1 steps 1–5).
pub fn rebuild(input: &Input) -> Result<Output, OverBudget> {
    let bom = if input.index.starts_with('\u{feff}') {
        "\u{feff}"
    } else {
        ""
    };
    let eol = super::edit::line_ending(input.index);
    let by_rel: BTreeMap<&str, &Memory> = input
        .memories
        .iter()
        .chain(input.elsewhere)
        .map(|m| (m.rel.as_str(), m))
        .collect();
    let hub_rels: BTreeSet<&str> = input.hubs.iter().map(|h| h.rel.as_str()).collect();
    let mut out = Output::default();

    // 1–2: keep what exists, drop what is gone and the repeats; hub links are
    // made anew at the end.
    let mut seen: HashSet<String> = HashSet::new();
    let mut items: Vec<Item> = Vec::new();
    // The item a file's first line is, for the indented lines of its repeats.
    let mut first_of: HashMap<String, usize> = HashMap::new();
    for it in parse(input.index) {
        let Item::Entry(e) = it else {
            items.push(it);
            continue;
        };
        let head = e.lines[0].trim_end().to_string();
        if e.targets.iter().all(|t| hub_rels.contains(t.as_str())) {
            continue;
        }
        if !e.targets.iter().any(|t| by_rel.contains_key(t.as_str())) {
            out.dropped.push((e.line, head, "the file it links is gone"));
            continue;
        }
        if e.targets.iter().all(|t| seen.contains(t)) {
            out.dropped.push((e.line, head, "another line links the same file"));
            // Its indented lines are the user's words: they join the first line's
            // entry (SPEC §3.14).
            if let Some(Item::Entry(first)) = first_of.get(e.file()).and_then(|&k| items.get_mut(k)) {
                first.lines.extend(e.lines[1..].iter().map(|l| with_ending(l, eol)));
            }
            continue;
        }
        for t in &e.targets {
            if seen.insert(t.clone()) {
                first_of.insert(t.clone(), items.len());
            }
        }
        items.push(Item::Entry(e));
    }
    // What the hubs hold already stays there (a rebuild of a rebuild changes
    // nothing), except lines whose file is gone (step 2 for the hubs).
    let mut hub_texts: Vec<HubOut> = Vec::new();
    let mut hub_entries: Vec<(String, Vec<String>)> = Vec::new();
    for h in input.hubs {
        let hub_bom = if h.text.starts_with('\u{feff}') { "\u{feff}" } else { "" };
        let mut kept_items = Vec::new();
        let mut files = Vec::new();
        for it in parse(&h.text) {
            match it {
                Item::Entry(e)
                    if !e
                        .targets
                        .iter()
                        .any(|t| by_rel.contains_key(t.as_str()) || hub_rels.contains(t.as_str())) =>
                {
                    out.hub_dropped
                        .push((h.rel.clone(), e.line, e.lines[0].trim_end().to_string()));
                }
                Item::Entry(e) => {
                    files.push(e.file().to_string());
                    kept_items.push(Item::Entry(e));
                }
                it => kept_items.push(it),
            }
        }
        let changed = out.hub_dropped.iter().any(|(r, _, _)| *r == h.rel);
        hub_texts.push(HubOut {
            rel: h.rel.clone(),
            text: if changed {
                render(&kept_items, hub_bom)
            } else {
                h.text.clone()
            },
            old: Some(h.text.clone()),
            changed,
        });
        hub_entries.push((h.rel.clone(), files));
    }
    let in_hub: HashSet<String> = hub_entries.iter().flat_map(|(_, f)| f.iter().cloned()).collect();
    // The hubs by slot: the existing ones under their own names (a hub made with
    // another `--hub` keeps its name and its link), then new ones named after
    // `--hub`, skipping names an existing hub already has.
    let existing: Vec<String> = hub_entries.iter().map(|(r, _)| r.clone()).collect();
    let hub_rel = |n: usize| -> String {
        if let Some(r) = existing.get(n) {
            return r.clone();
        }
        let mut k = 0;
        let mut fresh = existing.len();
        loop {
            let name = hub_name(input.hub, k);
            if !existing.contains(&name) {
                if fresh == n {
                    return name;
                }
                fresh += 1;
            }
            k += 1;
        }
    };

    // 3: a canonical line for every unindexed memory, under its type's heading;
    // the lines of one type are placed together (one pass over the text a type,
    // not one a memory).
    let mut text = render(&items, bom);
    let mut new_files = Vec::new();
    let mut by_type: Vec<(Option<MemoryType>, Vec<String>)> = Vec::new();
    for m in input.memories {
        if seen.contains(&m.rel) || in_hub.contains(&m.rel) || hub_rels.contains(m.rel.as_str()) {
            continue;
        }
        let line = canonical(Some(m), &m.rel);
        match by_type.iter_mut().find(|(t, _)| *t == m.ty) {
            Some((_, lines)) => lines.push(line),
            None => by_type.push((m.ty, vec![line])),
        }
        new_files.push(m.rel.clone());
    }
    for (ty, lines) in &by_type {
        if let Some(ty) = ty {
            let all: Vec<&str> = text.split_inclusive('\n').collect();
            if place::section_end(&all, ty.as_str()).is_none() {
                // A heading of its own at the end, after one blank line.
                text = if text.trim().is_empty() {
                    String::from(bom)
                } else {
                    super::edit::append_line(&text, "", eol)
                };
                text.push_str(heading_for(*ty));
                text.push_str(eol);
            }
        }
        text = place::place(&text, &lines.join(eol), ty.map(MemoryType::as_str), false).text;
    }
    let mut items = parse(&text);

    let pinned = |e: &Entry| e.pinned || e.targets.iter().any(|t| input.pins.contains(t));
    let hub_line = |rel: &str| {
        let n = rel
            .strip_suffix(".md")
            .and_then(|s| s.rsplit_once('_'))
            .and_then(|(_, k)| k.parse::<usize>().ok());
        let title = match n {
            Some(k) if rel != input.hub => format!("Memory index archive {k}"),
            _ => "Memory index archive".to_string(),
        };
        format!(
            "- [{title}]({}) — older index entries moved out of MEMORY.md",
            super::encode_file(rel)
        )
    };
    let with_hubs = |items: &[Item], hubs: usize| {
        let mut t = render(items, bom);
        for n in 0..hubs {
            t = super::edit::append_line(&t, &hub_line(&hub_rel(n)), eol);
        }
        t
    };
    let hubs_needed = |moved: usize| {
        let held: usize = hub_entries.iter().map(|(_, f)| f.len()).sum();
        (held + moved).div_ceil(HUB_ENTRIES).max(hub_entries.len())
    };

    // 4: shorten long lines, only when over budget.
    if !fits(&with_hubs(&items, hubs_needed(0)), input.budget) {
        for it in &mut items {
            if let Item::Entry(e) = it
                && let Some(short) = shortened(&e.lines[0])
            {
                out.shortened.push((
                    e.file().to_string(),
                    e.lines[0].trim_end().to_string(),
                    short.trim_end().to_string(),
                ));
                e.unshortened = Some(std::mem::replace(&mut e.lines[0], short));
            }
        }
    }

    // 5: move whole entries, least important first, until it fits.
    let mut order: Vec<usize> = items
        .iter()
        .enumerate()
        .filter_map(|(i, it)| match it {
            Item::Entry(e) if !pinned(e) => Some(i),
            _ => None,
        })
        .collect();
    let key = |i: usize| match &items[i] {
        Item::Entry(e) => {
            let m = by_rel.get(e.file());
            (rank(m.and_then(|m| m.ty)), m.map_or(0, |m| m.mtime_ns))
        }
        Item::Text(_) => (u8::MAX, 0),
    };
    order.sort_by_key(|&i| key(i));
    let (max_lines, max_units) = limits(input.budget);
    let first = load::load(&with_hubs(&items, hubs_needed(0)));
    let (mut lines, mut units_now) = (first.line_count, first.unit_count);
    let mut removed: BTreeSet<usize> = BTreeSet::new();
    let mut next = order.iter();
    let hub_cost = |n: usize| units(&hub_line(&hub_rel(n)));
    let mut hubs = hubs_needed(0);
    let estimate_over = |lines: usize, units: usize| lines > max_lines || units > max_units;
    let mut moved_files: Vec<(String, usize)> = Vec::new();
    let mut moved_entries: Vec<usize> = Vec::new();
    loop {
        let over = if estimate_over(lines, units_now) {
            true
        } else {
            let kept: Vec<Item> = items
                .iter()
                .enumerate()
                .filter(|(i, _)| !removed.contains(i))
                .map(|(_, it)| it.clone())
                .collect();
            !fits(&with_hubs(&kept, hubs), input.budget)
        };
        if !over {
            break;
        }
        let Some(&i) = next.next() else {
            let pinned: Vec<String> = items
                .iter()
                .filter_map(|it| match it {
                    Item::Entry(e) if pinned(e) => Some(e.file().to_string()),
                    _ => None,
                })
                .collect();
            return Err(OverBudget {
                pinned,
                lines,
                units: units_now,
            });
        };
        let Item::Entry(e) = &items[i] else { continue };
        removed.insert(i);
        lines -= e.lines.len();
        units_now -= e.units();
        for t in &e.targets {
            moved_files.push((t.clone(), e.line));
        }
        moved_entries.push(i);
        let want = hubs_needed(moved_entries.len());
        while hubs < want {
            lines += 1;
            units_now += hub_cost(hubs);
            hubs += 1;
        }
    }
    let kept: Vec<Item> = items
        .iter()
        .enumerate()
        .filter(|(i, _)| !removed.contains(i))
        .map(|(_, it)| it.clone())
        .collect();
    out.index = with_hubs(&kept, hubs);

    // The hubs: what they held, then the moved entries, 150 to a hub; each its
    // own line as the index had it with its indented lines (SPEC §3.14), or the
    // canonical line for one step 3 added.
    let mut slot = 0;
    for &i in &moved_entries {
        let Item::Entry(e) = &items[i] else { continue };
        let file = e.file().to_string();
        while hub_entries.get(slot).is_some_and(|(_, f)| f.len() >= HUB_ENTRIES) {
            slot += 1;
        }
        if slot == hub_entries.len() {
            let rel = hub_rel(slot);
            hub_entries.push((rel.clone(), Vec::new()));
            hub_texts.push(HubOut {
                rel,
                text: new_hub(eol),
                old: None,
                changed: true,
            });
        }
        let h = &mut hub_texts[slot];
        let hub_eol = super::edit::line_ending(&h.text);
        let head = e.unshortened.as_deref().unwrap_or(&e.lines[0]);
        h.text = super::edit::append_line(&h.text, head.trim_end_matches(['\n', '\r']), hub_eol);
        for l in &e.lines[1..] {
            h.text.push_str(l.trim_end_matches(['\n', '\r']));
            h.text.push_str(hub_eol);
        }
        h.changed = true;
        hub_entries[slot].1.push(file);
    }
    // A moved entry's line is no longer shortened: it keeps its wording.
    let moved_heads: HashSet<&str> = moved_files.iter().map(|(f, _)| f.as_str()).collect();
    out.shortened.retain(|(f, _, _)| !moved_heads.contains(f.as_str()));
    // Hubs are named by their place: make sure the index links every one.
    let number = |rel: &str| {
        rel.strip_suffix(".md")
            .and_then(|s| s.rsplit_once('_'))
            .and_then(|(_, k)| k.parse::<usize>().ok())
            .unwrap_or(1)
    };
    hub_texts.sort_by_key(|h| (number(&h.rel), h.rel.clone()));
    out.hubs = hub_texts;
    out.moved = moved_files;
    let moved: HashSet<&str> = out.moved.iter().map(|(f, _)| f.as_str()).collect();
    let mut first_line: BTreeMap<String, usize> = BTreeMap::new();
    for l in super::extract_links(&out.index) {
        if let Some(t) = l.memory_target() {
            first_line.entry(t.to_string()).or_insert(l.line);
        }
    }
    let added: Vec<(String, usize)> = new_files
        .into_iter()
        .filter(|f| !moved.contains(f.as_str()))
        .filter_map(|f| first_line.get(&f).map(|&n| (f, n)))
        .collect();
    out.added = added;
    Ok(out)
}

/// A head line over 150 chars cut at a word boundary with `…`: its hook after
/// ` — ` when it has one, else the text after its last `)`.
fn shortened(line: &str) -> Option<String> {
    let full = line.trim_end_matches(['\n', '\r']);
    let ending = &line[full.len()..];
    if full.chars().count() <= super::MAX_ENTRY_CHARS {
        return None;
    }
    // A pin mark stays at the end; the cut never leaves an unclosed `<!--`.
    const PIN: &str = " <!-- pin -->";
    let (body, pin) = match full.trim_end().strip_suffix(PIN.trim_start()) {
        Some(b) => (b.trim_end(), PIN),
        None => (full, ""),
    };
    let split = body
        .rfind(" — ")
        .map(|k| k + " — ".len())
        .or_else(|| body.rfind(')').map(|k| k + 1))?;
    let (head, tail) = body.split_at(split);
    let room = super::MAX_ENTRY_CHARS.checked_sub(head.chars().count() + 1 + pin.chars().count())?;
    if room < 2 || tail.chars().count() <= room {
        return None;
    }
    let mut cut = super::shorten(tail, room);
    if let Some(k) = cut.find("<!--") {
        cut.truncate(k);
        cut = format!("{}…", cut.trim_end());
    }
    Some(format!("{head}{cut}{pin}{ending}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(rel: &str, ty: Option<MemoryType>, age: i128) -> Memory {
        Memory {
            rel: rel.to_string(),
            title: rel.trim_end_matches(".md").replace('_', " "),
            hook: Some(format!("about {rel}")),
            ty,
            mtime_ns: age,
        }
    }

    fn run(index: &str, memories: &[Memory], hubs: &[Hub], pins: &[&str], budget: f64) -> Result<Output, OverBudget> {
        let pins: BTreeSet<String> = pins.iter().map(|s| s.to_string()).collect();
        rebuild(&Input {
            index,
            memories,
            elsewhere: &[],
            hubs,
            pins: &pins,
            hub: DEFAULT_HUB,
            budget,
        })
    }

    /// Every memory is linked from the index or a hub the index links, and the
    /// index loads whole within the budget.
    fn assert_nothing_lost(out: &Output, memories: &[Memory], budget: f64) {
        assert!(fits(&out.index, budget), "over budget:\n{}", out.index);
        let index_links: BTreeSet<String> = super::super::extract_links(&out.index)
            .iter()
            .filter_map(|l| l.memory_target().map(String::from))
            .collect();
        let mut reachable = index_links.clone();
        for h in &out.hubs {
            assert!(index_links.contains(&h.rel), "hub {} not linked", h.rel);
            reachable.extend(
                super::super::extract_links(&h.text)
                    .iter()
                    .filter_map(|l| l.memory_target().map(String::from)),
            );
            assert!(super::super::lines(&h.text).len() < 200);
        }
        for m in memories {
            if !reachable.contains(&m.rel) {
                let lines: Vec<&str> = out
                    .index
                    .lines()
                    .filter(|l| l.contains(&format!("({})", m.rel)))
                    .collect();
                let near: Vec<String> = out
                    .index
                    .lines()
                    .collect::<Vec<_>>()
                    .windows(3)
                    .filter(|w| w[1].contains(&format!("({})", m.rel)))
                    .map(|w| format!("{:?}", w))
                    .collect();
                panic!("{} lost: lines {lines:?}; around {near:?}", m.rel);
            }
        }
    }

    #[test]
    fn keeps_structure_drops_gone_and_repeated_lines_adds_the_unindexed() {
        let index = "# Memory\r\n\r\nSome words.\r\n## Feedback\r\n- [Tests](feedback_a.md) — my own words\r\n  - detail\r\n- [Again](feedback_a.md) — dup\r\n- [Gone](gone.md) — x\r\n";
        let ms = [
            mem("feedback_a.md", Some(MemoryType::Feedback), 1),
            mem("feedback_b.md", Some(MemoryType::Feedback), 2),
            mem("user_c.md", Some(MemoryType::User), 3),
        ];
        let out = run(index, &ms, &[], &[], 70.0).unwrap();
        assert_eq!(
            out.index,
            "# Memory\r\n\r\nSome words.\r\n## Feedback\r\n- [Tests](feedback_a.md) — my own words\r\n  - detail\r\n- [feedback b](feedback_b.md) — about feedback_b.md\r\n\r\n## User\r\n- [user c](user_c.md) — about user_c.md\r\n"
        );
        let reasons: Vec<_> = out.dropped.iter().map(|d| (d.0, d.2)).collect();
        assert_eq!(
            reasons,
            [
                (7, "another line links the same file"),
                (8, "the file it links is gone")
            ]
        );
        assert_eq!(
            out.added,
            [("feedback_b.md".to_string(), 7), ("user_c.md".to_string(), 10)]
        );
        assert!(out.moved.is_empty() && out.hubs.is_empty());
        assert_nothing_lost(&out, &ms, 70.0);
        // A rebuild of the result changes nothing.
        let again = run(&out.index, &ms, &[], &[], 70.0).unwrap();
        assert_eq!(again.index, out.index);
    }

    #[test]
    fn moves_projects_oldest_first_into_a_hub_and_never_a_pin() {
        let mut ms = Vec::new();
        let mut index = String::new();
        for i in 0..180 {
            let ty = [MemoryType::Project, MemoryType::User, MemoryType::Feedback][i % 3];
            let m = mem(&format!("{}_{i:03}.md", ty.as_str()), Some(ty), (1000 - i) as i128);
            index.push_str(&format!("- [{}]({}) — {}\n", m.title, m.rel, m.hook.clone().unwrap()));
            ms.push(m);
        }
        let out = run(&index, &ms, &[], &["project_000.md"], 70.0).unwrap();
        assert_nothing_lost(&out, &ms, 70.0);
        assert!(out.index.contains("project_000.md"), "pinned stays");
        assert!(
            out.moved.iter().all(|(f, _)| f.starts_with("project_")),
            "{:?}",
            out.moved
        );
        // Oldest first: the highest i has the oldest mtime.
        assert_eq!(out.moved[0].0, "project_177.md");
        let load = load::load(&out.index);
        assert!(load.line_count <= 140);
        assert_eq!(out.hubs.len(), 1);
        assert!(out.hubs[0].text.starts_with("---\nname: memory-index-archive\n"));
        assert!(
            out.hubs[0]
                .text
                .contains("\nmetadata:\n  type: reference\n  memctl-hub: true\n---\n")
        );
        // Rebuilding again moves nothing and keeps the hub as it is.
        let hubs = [Hub {
            rel: out.hubs[0].rel.clone(),
            text: out.hubs[0].text.clone(),
        }];
        let mut with_hub = ms.clone();
        with_hub.retain(|m| m.rel != DEFAULT_HUB);
        let again = run(&out.index, &with_hub, &hubs, &["project_000.md"], 70.0).unwrap();
        assert_eq!(again.index, out.index);
        assert!(again.moved.is_empty() && again.added.is_empty());
    }

    /// Issue 32 point 10 (SPEC §3.14): an entry moved into a hub keeps its own
    /// line's wording and its indented lines; a repeated line's indented lines
    /// join the first line's entry.
    #[test]
    fn moved_entries_keep_their_wording_and_indented_lines() {
        let mut index = String::from(
            "- [Old project](project_old.md) — my words, not the description\n  - port 8443\n  - ask Sam first\n",
        );
        let mut ms = vec![mem("project_old.md", Some(MemoryType::Project), 0)];
        for i in 0..150 {
            let m = mem(&format!("user_{i:03}.md"), Some(MemoryType::User), 1000 + i as i128);
            index.push_str(&format!("- [{}]({}) — {}\n", m.title, m.rel, m.hook.clone().unwrap()));
            ms.push(m);
        }
        let out = run(&index, &ms, &[], &[], 70.0).unwrap();
        assert_eq!(out.moved[0], ("project_old.md".to_string(), 1));
        let hub = &out.hubs[0].text;
        assert!(
            hub.contains(
                "\n- [Old project](project_old.md) — my words, not the description\n  - port 8443\n  - ask Sam first\n"
            ),
            "{hub}"
        );
        assert!(!out.index.contains("port 8443"));
        assert_nothing_lost(&out, &ms, 70.0);

        let dup = "- [A](feedback_a.md) — a\n  - first detail\n- [A again](feedback_a.md) — dup\n  - second detail\n- [B](feedback_b.md) — b\n";
        let ms = [
            mem("feedback_a.md", Some(MemoryType::Feedback), 1),
            mem("feedback_b.md", Some(MemoryType::Feedback), 2),
        ];
        let out = run(dup, &ms, &[], &[], 70.0).unwrap();
        assert_eq!(
            out.index,
            "- [A](feedback_a.md) — a\n  - first detail\n  - second detail\n- [B](feedback_b.md) — b\n"
        );
        assert_eq!(out.dropped.len(), 1);
    }

    #[test]
    fn budget_boundary_is_inclusive() {
        // One line of exactly 17 500 units = 70 % of 25 000.
        let (_, units) = limits(70.0);
        let pad = "x".repeat(units - "- [a](a.md) — ".encode_utf16().count());
        let index = format!("- [a](a.md) — {pad}");
        assert!(fits(&index, 70.0), "exactly at the budget fits");
        assert!(!fits(&format!("{index}y"), 70.0), "one unit over does not");
    }

    #[test]
    fn frontmatter_and_html_comments_do_not_count_against_the_budget() {
        // 300 lines of comment and a frontmatter block: stripped before the cut,
        // so nothing moves and the text is kept as it is.
        let comment: String = (0..300).map(|i| format!("note {i}\n")).collect();
        let index = format!("---\ntitle: x\n---\n<!--\n{comment}-->\n- [a](a.md) — a\n");
        let ms = [mem("a.md", Some(MemoryType::User), 1)];
        let out = run(&index, &ms, &[], &[], 70.0).unwrap();
        assert_eq!(out.index, index);
        assert!(out.moved.is_empty() && out.hubs.is_empty());
    }

    #[test]
    fn pinned_and_free_text_over_the_budget_is_refused() {
        let mut index = "text\n".repeat(150);
        index.push_str("- [a](a.md) — a <!-- pin -->\n");
        let ms = [mem("a.md", None, 1)];
        let err = run(&index, &ms, &[], &[], 70.0).unwrap_err();
        assert_eq!(err.pinned, ["a.md"]);
    }

    #[test]
    fn long_hooks_are_shortened_at_a_word_boundary_only_when_over() {
        let long = format!("- [a](a.md) — {}\n", "word ".repeat(40));
        assert!(shortened(&long).unwrap().trim_end().chars().count() <= 150);
        assert!(shortened(&long).unwrap().trim_end().ends_with('…'));
        let pinned = format!("- [a](a.md) — {} <!-- pin -->\n", "word ".repeat(40));
        let short = shortened(&pinned).unwrap();
        assert!(
            short.ends_with("… <!-- pin -->\n") && short.trim_end().chars().count() <= 150,
            "{short}"
        );
        let ms = [mem("a.md", Some(MemoryType::User), 1)];
        let out = run(&long, &ms, &[], &[], 70.0).unwrap();
        assert!(out.shortened.is_empty(), "within budget: left alone");
    }

    /// Generated indexes: random sizes, headings, duplicates, dangling lines, pins,
    /// long lines, CJK and emoji, CRLF: nothing is lost and nothing is cut.
    #[test]
    fn nothing_is_lost_on_generated_indexes() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n.max(1)
        };
        let words = ["alpha", "数据库", "🚀", "mémoire", "build", "テスト", "ok"];
        for _round in 0..60 {
            let n = 1 + rnd(400) as usize;
            let eol = if rnd(4) == 0 { "\r\n" } else { "\n" };
            let mut ms = Vec::new();
            let mut index = String::new();
            if rnd(5) == 0 {
                index.push_str(&format!("---{eol}title: index{eol}---{eol}"));
            }
            for i in 0..n {
                if rnd(40) == 0 {
                    index.push_str(&format!("<!-- a note{eol}over lines -->{eol}"));
                }
                let ty = match rnd(5) {
                    0 => None,
                    k => Some(MemoryType::ALL[k as usize - 1]),
                };
                let rel = format!("m_{i}.md");
                let hook: String = (0..1 + rnd(60))
                    .map(|_| words[rnd(7) as usize])
                    .collect::<Vec<_>>()
                    .join(" ");
                if rnd(10) != 0 {
                    ms.push(Memory {
                        rel: rel.clone(),
                        title: format!("M {i}"),
                        hook: Some(hook.clone()),
                        ty,
                        mtime_ns: rnd(1000) as i128,
                    });
                }
                match rnd(12) {
                    0 => index.push_str(&format!(
                        "## {}{eol}",
                        ["User", "Feedback", "Projects", "Notes"][rnd(4) as usize]
                    )),
                    1 => index.push_str(&format!("free text {hook}{eol}")),
                    _ => {}
                }
                if rnd(8) != 0 {
                    let pin = if rnd(30) == 0 { " <!-- pin -->" } else { "" };
                    index.push_str(&format!("- [M {i}]({rel}) — {hook}{pin}{eol}"));
                    if rnd(15) == 0 {
                        index.push_str(&format!("- [dup]({rel}) — again{eol}"));
                    }
                }
            }
            let budget = [50.0, 70.0, 100.0][rnd(3) as usize];
            match run(&index, &ms, &[], &[], budget) {
                Ok(out) => assert_nothing_lost(&out, &ms, budget),
                Err(e) => assert!(
                    !e.pinned.is_empty() || index.contains("free text"),
                    "refused without a reason"
                ),
            }
        }
    }
}
