//! The hubs of `memctl index rebuild` (SPEC §10.1 step 4): what the existing ones
//! hold, their names by slot, the lines the index links them with, and the moved
//! entries written into them, 150 to a hub.

use std::collections::HashSet;

use super::items::{self, Item};
use super::{HUB_ENTRIES, Hub, HubOut, Known};

/// The hubs as the rebuild goes: their texts and, in the same order, the files
/// each holds.
pub(super) struct Hubs {
    pub texts: Vec<HubOut>,
    pub entries: Vec<(String, Vec<String>)>,
}

impl Hubs {
    /// The files the hubs hold.
    pub fn held_files(&self) -> HashSet<String> {
        self.entries.iter().flat_map(|(_, f)| f.iter().cloned()).collect()
    }
}

/// Step 2 for the hubs: what they hold already stays there (a rebuild of a
/// rebuild changes nothing), except lines whose file is gone; each dropped one as
/// (hub, 1-based line, text).
pub(super) fn drop_gone_hub_lines(hubs: &[Hub], known: &Known, dropped: &mut Vec<(String, usize, String)>) -> Hubs {
    let mut out = Hubs {
        texts: Vec::new(),
        entries: Vec::new(),
    };
    for h in hubs {
        let hub_bom = if h.text.starts_with('\u{feff}') { "\u{feff}" } else { "" };
        let mut kept_items = Vec::new();
        let mut files = Vec::new();
        for it in items::parse(&h.text) {
            match it {
                Item::Entry(e) if !e.targets.iter().any(|t| known.exists(t) || known.is_hub(t)) => {
                    dropped.push((h.rel.clone(), e.line, e.lines[0].trim_end().to_string()));
                }
                Item::Entry(e) => {
                    files.push(e.file().to_string());
                    kept_items.push(Item::Entry(e));
                }
                it => kept_items.push(it),
            }
        }
        let changed = dropped.iter().any(|(r, _, _)| *r == h.rel);
        out.texts.push(HubOut {
            rel: h.rel.clone(),
            text: if changed {
                items::render(&kept_items, hub_bom)
            } else {
                h.text.clone()
            },
            old: Some(h.text.clone()),
            changed,
        });
        out.entries.push((h.rel.clone(), files));
    }
    out
}

/// Where hubs go and how the index links them.
pub(super) struct Layout<'a> {
    /// The existing hubs, by slot: each keeps its name and its link (one made with
    /// another `--hub` too).
    existing: Vec<String>,
    /// Entries the existing hubs hold.
    held: usize,
    /// `--hub`: the first new hub's name.
    first: &'a str,
    bom: &'a str,
    eol: &'a str,
}

impl<'a> Layout<'a> {
    pub fn new(hubs: &Hubs, first: &'a str, bom: &'a str, eol: &'a str) -> Layout<'a> {
        Layout {
            existing: hubs.entries.iter().map(|(r, _)| r.clone()).collect(),
            held: hubs.entries.iter().map(|(_, f)| f.len()).sum(),
            first,
            bom,
            eol,
        }
    }

    /// The hub in slot `n`: an existing one, else a new one named after `--hub`,
    /// skipping names an existing hub already has.
    pub fn rel(&self, n: usize) -> String {
        if let Some(r) = self.existing.get(n) {
            return r.clone();
        }
        let mut k = 0;
        let mut fresh = self.existing.len();
        loop {
            let name = hub_name(self.first, k);
            if !self.existing.contains(&name) {
                if fresh == n {
                    return name;
                }
                fresh += 1;
            }
            k += 1;
        }
    }

    /// The index line that links the hub `rel`.
    pub fn link_line(&self, rel: &str) -> String {
        let title = match hub_number(rel) {
            Some(k) if rel != self.first => format!("Memory index archive {k}"),
            _ => "Memory index archive".to_string(),
        };
        format!(
            "- [{title}]({}) — older index entries moved out of MEMORY.md",
            crate::index::encode_file(rel)
        )
    }

    /// The index text: `items`, then a link to each of the first `hubs` hubs.
    pub fn index(&self, items: &[Item], hubs: usize) -> String {
        let mut t = items::render(items, self.bom);
        for n in 0..hubs {
            t = crate::index::edit::append_line(&t, &self.link_line(&self.rel(n)), self.eol);
        }
        t
    }

    /// Hubs needed once `moved` more entries go to them: never fewer than exist.
    pub fn needed(&self, moved: usize) -> usize {
        (self.held + moved).div_ceil(HUB_ENTRIES).max(self.existing.len())
    }
}

/// The `_N` of a hub's name, if it has one.
fn hub_number(rel: &str) -> Option<usize> {
    rel.strip_suffix(".md")
        .and_then(|s| s.rsplit_once('_'))
        .and_then(|(_, k)| k.parse::<usize>().ok())
}

/// The name of the n-th hub (0-based): `x.md`, `x_2.md`, …
pub fn hub_name(first: &str, n: usize) -> String {
    if n == 0 {
        return first.to_string();
    }
    let stem = first.strip_suffix(".md").unwrap_or(first);
    format!("{stem}_{}.md", n + 1)
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

/// The moved entries written into the hubs after what they held, 150 to a hub;
/// each its own line as the index had it with its indented lines (SPEC §3.14),
/// or the canonical line for one step 3 added. New hubs get `eol`.
pub(super) fn fill_hubs(hubs: &mut Hubs, items: &[Item], moved: &[usize], layout: &Layout, eol: &str) {
    let mut slot = 0;
    for &i in moved {
        let Item::Entry(e) = &items[i] else { continue };
        let file = e.file().to_string();
        while hubs.entries.get(slot).is_some_and(|(_, f)| f.len() >= HUB_ENTRIES) {
            slot += 1;
        }
        if slot == hubs.entries.len() {
            let rel = layout.rel(slot);
            hubs.entries.push((rel.clone(), Vec::new()));
            hubs.texts.push(HubOut {
                rel,
                text: new_hub(eol),
                old: None,
                changed: true,
            });
        }
        let h = &mut hubs.texts[slot];
        let hub_eol = crate::index::edit::line_ending(&h.text);
        let head = e.unshortened.as_deref().unwrap_or(&e.lines[0]);
        h.text = crate::index::edit::append_line(&h.text, head.trim_end_matches(['\n', '\r']), hub_eol);
        for l in &e.lines[1..] {
            h.text.push_str(l.trim_end_matches(['\n', '\r']));
            h.text.push_str(hub_eol);
        }
        h.changed = true;
        hubs.entries[slot].1.push(file);
    }
}

/// The hubs in the order of their names' numbers (the first has none).
pub(super) fn in_order(mut texts: Vec<HubOut>) -> Vec<HubOut> {
    texts.sort_by_key(|h| (hub_number(&h.rel).unwrap_or(1), h.rel.clone()));
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hubs(names: &[(&str, usize)]) -> Hubs {
        Hubs {
            texts: Vec::new(),
            entries: names
                .iter()
                .map(|(n, k)| (n.to_string(), (0..*k).map(|i| format!("m{i}.md")).collect()))
                .collect(),
        }
    }

    #[test]
    fn new_hubs_are_named_after_the_first_skipping_names_taken() {
        let h = hubs(&[("x_2.md", 3)]);
        let l = Layout::new(&h, "x.md", "", "\n");
        assert_eq!([l.rel(0), l.rel(1), l.rel(2)], ["x_2.md", "x.md", "x_3.md"]);
        assert_eq!(l.needed(0), 1);
        assert_eq!(l.needed(HUB_ENTRIES - 3), 1);
        assert_eq!(l.needed(HUB_ENTRIES - 2), 2);
        assert_eq!(
            l.link_line("x_2.md"),
            "- [Memory index archive 2](x_2.md) — older index entries moved out of MEMORY.md"
        );
        assert_eq!(
            l.index(&[], 2),
            "- [Memory index archive 2](x_2.md) — older index entries moved out of MEMORY.md\n- [Memory index archive](x.md) — older index entries moved out of MEMORY.md\n"
        );
    }

    #[test]
    fn hubs_sort_by_their_number() {
        let out = |rel: &str| HubOut {
            rel: rel.into(),
            text: String::new(),
            old: None,
            changed: false,
        };
        let sorted = in_order(vec![out("h_3.md"), out("h.md"), out("h_2.md")]);
        let names: Vec<&str> = sorted.iter().map(|h| h.rel.as_str()).collect();
        assert_eq!(names, ["h.md", "h_2.md", "h_3.md"]);
    }
}
