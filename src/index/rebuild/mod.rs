//! `memctl index rebuild` as a pure function (SPEC §10.1): the index rewritten so
//! that what Claude Code loads fits a budget of both caps, every memory still
//! reachable from it or from a hub it links.

mod hubs;
mod items;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use hubs::Layout;
pub use hubs::hub_name;
use items::{Entry, Item, parse, render, shortened, units, with_ending};

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

/// The files the index may link: memories (its own and another index's) and hubs.
pub(super) struct Known<'a> {
    by_rel: BTreeMap<&'a str, &'a Memory>,
    hubs: BTreeSet<&'a str>,
}

impl<'a> Known<'a> {
    fn new(memories: &'a [Memory], elsewhere: &'a [Memory], hubs: &'a [Hub]) -> Known<'a> {
        Known {
            by_rel: memories.iter().chain(elsewhere).map(|m| (m.rel.as_str(), m)).collect(),
            hubs: hubs.iter().map(|h| h.rel.as_str()).collect(),
        }
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.by_rel.contains_key(rel)
    }

    pub fn is_hub(&self, rel: &str) -> bool {
        self.hubs.contains(rel)
    }

    fn memory(&self, rel: &str) -> Option<&'a Memory> {
        self.by_rel.get(rel).copied()
    }
}

/// Rebuild the index (SPEC §10.1 steps 1–5).
pub fn rebuild(input: &Input) -> Result<Output, OverBudget> {
    let bom = if input.index.starts_with('\u{feff}') {
        "\u{feff}"
    } else {
        ""
    };
    let eol = super::edit::line_ending(input.index);
    let known = Known::new(input.memories, input.elsewhere, input.hubs);
    let mut out = Output::default();
    let structure = keep_structure(input.index);
    let (kept, indexed) = drop_gone_lines(structure, &known, eol, &mut out.dropped);
    let mut hubs = hubs::drop_gone_hub_lines(input.hubs, &known, &mut out.hub_dropped);
    let in_hub = hubs.held_files();
    let linked = |rel: &str| indexed.contains(rel) || in_hub.contains(rel) || known.is_hub(rel);
    let (text, new_files) = add_unindexed(render(&kept, bom), input.memories, linked, bom, eol);
    let mut items = parse(&text);
    let layout = Layout::new(&hubs, input.hub, bom, eol);
    if !fits(&layout.index(&items, layout.needed(0)), input.budget) {
        out.shortened = shorten_long_hooks(&mut items);
    }
    let order = move_order(&items, &known, input.pins);
    let moves = move_until_fits(&items, &order, &layout, input.budget, input.pins)?;
    out.index = layout.index(&moves.kept(&items), moves.hubs);
    hubs::fill_hubs(&mut hubs, &items, &moves.entries, &layout, eol);
    // A moved entry's line is no longer shortened: it keeps its wording.
    let moved: HashSet<&str> = moves.files.iter().map(|(f, _)| f.as_str()).collect();
    out.shortened.retain(|(f, _, _)| !moved.contains(f.as_str()));
    out.added = added_lines(&out.index, new_files, &moved);
    out.hubs = hubs::in_order(hubs.texts);
    out.moved = moves.files;
    Ok(out)
}

/// Step 1: keep the user's structure: the index as items (headings, free text,
/// each entry with its own wording), in order.
fn keep_structure(index: &str) -> Vec<Item> {
    parse(index)
}

/// Step 2: drop lines whose target is gone (as (line, text, reason)) and collapse
/// several lines for one file into its first, whose entry takes the repeats'
/// indented lines (the user's words, SPEC §3.14). Lines linking only hubs go too:
/// the hub links are made anew at the end. Returns the items kept and the files
/// they link.
fn drop_gone_lines(
    parsed: Vec<Item>,
    known: &Known,
    eol: &str,
    dropped: &mut Vec<(usize, String, &'static str)>,
) -> (Vec<Item>, HashSet<String>) {
    let mut seen: HashSet<String> = HashSet::new();
    let mut kept: Vec<Item> = Vec::new();
    // The item a file's first line is, for the indented lines of its repeats.
    let mut first_of: HashMap<String, usize> = HashMap::new();
    for it in parsed {
        let Item::Entry(e) = it else {
            kept.push(it);
            continue;
        };
        let head = e.lines[0].trim_end().to_string();
        if e.targets.iter().all(|t| known.is_hub(t)) {
            continue;
        }
        if !e.targets.iter().any(|t| known.exists(t)) {
            dropped.push((e.line, head, "the file it links is gone"));
            continue;
        }
        if e.targets.iter().all(|t| seen.contains(t)) {
            dropped.push((e.line, head, "another line links the same file"));
            if let Some(Item::Entry(first)) = first_of.get(e.file()).and_then(|&k| kept.get_mut(k)) {
                first.lines.extend(e.lines[1..].iter().map(|l| with_ending(l, eol)));
            }
            continue;
        }
        for t in &e.targets {
            if seen.insert(t.clone()) {
                first_of.insert(t.clone(), kept.len());
            }
        }
        kept.push(Item::Entry(e));
    }
    (kept, seen)
}

/// Step 3: a canonical line (SPEC §2.9) for every memory not `linked`, under a
/// heading for its type (created at the end if absent); the lines of one type are
/// placed together (one pass over the text a type, not one a memory). Returns the
/// text and the files added.
fn add_unindexed(
    mut text: String,
    memories: &[Memory],
    linked: impl Fn(&str) -> bool,
    bom: &str,
    eol: &str,
) -> (String, Vec<String>) {
    let mut new_files = Vec::new();
    let mut by_type: Vec<(Option<MemoryType>, Vec<String>)> = Vec::new();
    for m in memories.iter().filter(|m| !linked(&m.rel)) {
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
    (text, new_files)
}

/// Step 4, first: shorten the head lines over 150 characters (at a word boundary,
/// with `…`), each as (file, from, to).
fn shorten_long_hooks(items: &mut [Item]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for it in items {
        if let Item::Entry(e) = it
            && let Some(short) = shortened(&e.lines[0])
        {
            out.push((
                e.file().to_string(),
                e.lines[0].trim_end().to_string(),
                short.trim_end().to_string(),
            ));
            e.unshortened = Some(std::mem::replace(&mut e.lines[0], short));
        }
    }
    out
}

/// Pinned by `--pin` or by a line ending in `<!-- pin -->`: never moves.
fn is_pinned(e: &Entry, pins: &BTreeSet<String>) -> bool {
    e.pinned || e.targets.iter().any(|t| pins.contains(t))
}

/// Step 4, the order of moving: the unpinned entries by type (project, untyped,
/// reference, feedback, user), within a type the oldest mtime first.
fn move_order(items: &[Item], known: &Known, pins: &BTreeSet<String>) -> Vec<usize> {
    let mut order: Vec<usize> = items
        .iter()
        .enumerate()
        .filter_map(|(i, it)| match it {
            Item::Entry(e) if !is_pinned(e, pins) => Some(i),
            _ => None,
        })
        .collect();
    let key = |i: usize| match &items[i] {
        Item::Entry(e) => {
            let m = known.memory(e.file());
            (rank(m.and_then(|m| m.ty)), m.map_or(0, |m| m.mtime_ns))
        }
        Item::Text(_) => (u8::MAX, 0),
    };
    order.sort_by_key(|&i| key(i));
    order
}

/// The entries moved to hubs.
#[derive(Debug, Default)]
struct Moves {
    removed: BTreeSet<usize>,
    /// Their places among the items, in the order they moved.
    entries: Vec<usize>,
    /// (file, 1-based line in the old index) of each file they link.
    files: Vec<(String, usize)>,
    /// How many hubs the index links.
    hubs: usize,
}

impl Moves {
    /// The items that stay in the index.
    fn kept(&self, items: &[Item]) -> Vec<Item> {
        items
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.removed.contains(i))
            .map(|(_, it)| it.clone())
            .collect()
    }
}

/// Step 4, then step 5: move whole entries in `order` until the index, re-checked
/// with the truncation model, loads whole within the budget (a running count of
/// lines and units skips the full check while clearly over); `over_budget` when
/// nothing is left to move.
fn move_until_fits(
    items: &[Item],
    order: &[usize],
    layout: &Layout,
    budget: f64,
    pins: &BTreeSet<String>,
) -> Result<Moves, OverBudget> {
    let (max_lines, max_units) = limits(budget);
    let mut moves = Moves {
        hubs: layout.needed(0),
        ..Moves::default()
    };
    let first = load::load(&layout.index(items, moves.hubs));
    let (mut lines, mut units_now) = (first.line_count, first.unit_count);
    let mut next = order.iter();
    loop {
        let over =
            lines > max_lines || units_now > max_units || !fits(&layout.index(&moves.kept(items), moves.hubs), budget);
        if !over {
            return Ok(moves);
        }
        let Some(&i) = next.next() else {
            return Err(over_budget(items, pins, lines, units_now));
        };
        let Item::Entry(e) = &items[i] else { continue };
        moves.removed.insert(i);
        lines -= e.lines.len();
        units_now -= e.units();
        moves.files.extend(e.targets.iter().map(|t| (t.clone(), e.line)));
        moves.entries.push(i);
        while moves.hubs < layout.needed(moves.entries.len()) {
            lines += 1;
            units_now += units(&layout.link_line(&layout.rel(moves.hubs)));
            moves.hubs += 1;
        }
    }
}

/// Step 5, refused: pinned entries and free text alone exceed the budget.
fn over_budget(items: &[Item], pins: &BTreeSet<String>, lines: usize, units: usize) -> OverBudget {
    let pinned = items
        .iter()
        .filter_map(|it| match it {
            Item::Entry(e) if is_pinned(e, pins) => Some(e.file().to_string()),
            _ => None,
        })
        .collect();
    OverBudget { pinned, lines, units }
}

/// (file, 1-based line in the new index) of each file step 3 added that stayed.
fn added_lines(index: &str, new_files: Vec<String>, moved: &HashSet<&str>) -> Vec<(String, usize)> {
    let mut first_line: BTreeMap<String, usize> = BTreeMap::new();
    for l in super::extract_links(index) {
        if let Some(t) = l.memory_target() {
            first_line.entry(t.to_string()).or_insert(l.line);
        }
    }
    new_files
        .into_iter()
        .filter(|f| !moved.contains(f.as_str()))
        .filter_map(|f| first_line.get(&f).map(|&n| (f, n)))
        .collect()
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

fn canonical(m: Option<&Memory>, file: &str) -> String {
    let (title, hook) = match m {
        Some(m) => (m.title.clone(), m.hook.clone().unwrap_or_else(|| m.title.clone())),
        None => (file.trim_end_matches(".md").to_string(), String::new()),
    };
    super::render_entry(title.trim(), file, hook.trim()).0
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

    fn known<'a>(ms: &'a [Memory], hubs: &'a [Hub]) -> Known<'a> {
        Known::new(ms, &[], hubs)
    }

    #[test]
    fn step_2_drops_gone_and_repeated_lines_and_hub_links() {
        let ms = [mem("a.md", None, 1)];
        let hubs = [Hub {
            rel: "h.md".into(),
            text: String::new(),
        }];
        let parsed = keep_structure("# T\n- [a](a.md)\n- [again](a.md)\n  - more\n- [h](h.md)\n- [x](x.md)\n");
        let mut dropped = Vec::new();
        let (kept, seen) = drop_gone_lines(parsed, &known(&ms, &hubs), "\n", &mut dropped);
        assert_eq!(render(&kept, ""), "# T\n- [a](a.md)\n  - more\n");
        assert_eq!(seen, HashSet::from(["a.md".to_string()]));
        let reasons: Vec<_> = dropped.iter().map(|d| (d.0, d.2)).collect();
        assert_eq!(
            reasons,
            [
                (3, "another line links the same file"),
                (6, "the file it links is gone")
            ]
        );
    }

    #[test]
    fn step_3_adds_canonical_lines_under_their_type_heading() {
        let ms = [
            mem("user_a.md", Some(MemoryType::User), 1),
            mem("b.md", None, 2),
            mem("user_c.md", Some(MemoryType::User), 3),
        ];
        let (text, added) = add_unindexed("# T\n".into(), &ms, |rel| rel == "user_c.md", "", "\n");
        assert_eq!(added, ["user_a.md", "b.md"]);
        assert!(
            text.starts_with("# T\n")
                && text.contains("\n## User\n- [user a](user_a.md) — about user_a.md\n")
                && text.contains("- [b](b.md) — about b.md\n"),
            "{text}"
        );
        let (empty, _) = add_unindexed(String::new(), &ms[..1], |_| false, "\u{feff}", "\n");
        assert_eq!(empty, "\u{feff}## User\n- [user a](user_a.md) — about user_a.md\n");
    }

    #[test]
    fn step_4_shortens_long_heads_and_orders_moves_by_type_then_age() {
        let long = format!("- [a](a.md) — {}\n", "word ".repeat(40));
        let mut items = keep_structure(&format!("{long}- [b](b.md) — short\n"));
        let short = shorten_long_hooks(&mut items);
        assert_eq!(short.len(), 1);
        assert_eq!(short[0].0, "a.md");
        let Item::Entry(e) = &items[0] else { panic!("an entry") };
        assert_eq!(e.unshortened.as_deref(), Some(long.as_str()));

        let ms = [
            mem("u.md", Some(MemoryType::User), 1),
            mem("p_new.md", Some(MemoryType::Project), 9),
            mem("p_old.md", Some(MemoryType::Project), 2),
            mem("n.md", None, 0),
            mem("pin.md", Some(MemoryType::Project), 0),
        ];
        let items = keep_structure(
            "# T\n- [u](u.md)\n- [p](p_new.md)\n- [p](p_old.md)\n- [n](n.md)\n- [pin](pin.md) <!-- pin -->\n",
        );
        let order = move_order(&items, &known(&ms, &[]), &BTreeSet::new());
        assert_eq!(order, [3, 2, 4, 1]);
        let pins = BTreeSet::from(["p_old.md".to_string()]);
        assert_eq!(move_order(&items, &known(&ms, &[]), &pins), [2, 4, 1]);
    }

    #[test]
    fn step_5_moves_until_it_fits_or_refuses_naming_the_pins() {
        let index: String = (0..150).map(|i| format!("- [m{i}](m{i}.md)\n")).collect();
        let items = keep_structure(&index);
        let hubs = hubs::Hubs {
            texts: Vec::new(),
            entries: Vec::new(),
        };
        let layout = Layout::new(&hubs, DEFAULT_HUB, "", "\n");
        let order: Vec<usize> = (0..150).collect();
        let moves = move_until_fits(&items, &order, &layout, 70.0, &BTreeSet::new()).unwrap();
        // 140 lines: 139 entries and the hub's link.
        assert_eq!((moves.entries.len(), moves.hubs), (11, 1));
        assert_eq!(moves.files[0], ("m0.md".to_string(), 1));
        let pins: BTreeSet<String> = ["m1.md".to_string()].into();
        let err = move_until_fits(&items, &order[..5], &layout, 70.0, &pins).unwrap_err();
        assert_eq!(err.pinned, ["m1.md"]);
    }

    #[test]
    fn added_lines_are_the_new_files_that_stayed() {
        let moved = HashSet::from(["b.md"]);
        let added = added_lines("# T\n- [a](a.md)\n", vec!["a.md".into(), "b.md".into()], &moved);
        assert_eq!(added, [("a.md".to_string(), 2)]);
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
