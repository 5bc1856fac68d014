//! Which `MEMORY.md` lines link each memory file, loaded while the readers read
//! (see [`super::scan_with_index`]): compact link tables, looked up by relative path.

use std::io::Seek;
use std::path::{Path, PathBuf};

use crate::index;
use crate::memdir::{INDEX, MemoryDir, Scope};

/// Which index lines link each memory file: the dir's `MEMORY.md`, and for files
/// under `team/` (when scanning the main dir) `team/MEMORY.md`.
#[derive(Clone, Debug)]
pub struct Indexed {
    main: LinkTable,
    team: Option<LinkTable>,
    memdir: MemoryDir,
}

/// An index's memory links, compact: (hash, length, line) of each target, sorted.
/// A 64-bit SipHash plus the length makes a false match less likely than a
/// hardware fault, and large indexes (20 000 lines) stay small.
#[derive(Clone, Debug, Default)]
struct LinkTable {
    links: Vec<(u64, u32, u32)>,
    /// The file lines Claude Code loads in full (SPEC §2.7: the truncation model),
    /// sorted; at most 200.
    loaded: Vec<u32>,
}

fn target_key(t: &str) -> (u64, u32) {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    t.hash(&mut h);
    (h.finish(), t.len() as u32)
}

impl LinkTable {
    fn build(text: &str) -> LinkTable {
        let mut links: Vec<(u64, u32, u32)> = index::extract_links(text)
            .iter()
            .filter_map(|l| l.memory_target().map(target_key).map(|(h, n)| (h, n, l.line as u32)))
            .collect();
        links.sort_unstable();
        links.dedup();
        let loaded = if links.is_empty() {
            Vec::new()
        } else {
            loaded_lines(text)
        };
        LinkTable { links, loaded }
    }

    /// The table of the index at `path`, read in chunks (see
    /// [`index::stream_links`]): neither its text nor its links are held whole.
    /// An index that cannot be streamed (not UTF-8, or too large) is read whole.
    fn read(path: &Path) -> Option<LinkTable> {
        if let Ok(mut file) = crate::fsread::open_regular(path)
            && let Some(table) = LinkTable::stream(&mut file)
        {
            return Some(table);
        }
        index::read_index(path)
            .ok()
            .map(|b| LinkTable::build(&String::from_utf8_lossy(&b)))
    }

    /// [`LinkTable::read`] keeping only the links to files whose base name is
    /// `base` (the lines that can hold no such link are not parsed for links).
    fn read_for(path: &Path, base: &str) -> Option<LinkTable> {
        if let Ok(mut file) = crate::fsread::open_regular(path)
            && let Some(table) = LinkTable::stream_where(&mut file, Some(base))
        {
            return Some(table);
        }
        LinkTable::read(path)
    }

    fn stream(file: &mut std::fs::File) -> Option<LinkTable> {
        LinkTable::stream_where(file, None)
    }

    /// [`LinkTable::stream`]; with `base`, only lines that hold `base` or a `%`
    /// (a percent-encoded destination) are parsed for links: a link's target is
    /// its destination decoded and normalized, whose last segment is written in
    /// the line (issue 31: `show` of one file parsed every link of the index).
    fn stream_where(file: &mut std::fs::File, base: Option<&str>) -> Option<LinkTable> {
        let finder = base.map(|b| memchr::memmem::Finder::new(b.as_bytes()));
        let may_link = |line: &str| {
            finder
                .as_ref()
                .is_none_or(|f| f.find(line.as_bytes()).is_some() || line.contains('%'))
        };
        let mut links = Vec::new();
        let streamed = index::stream_links_where(file, crate::index::check::MAX_INDEX_BYTES, may_link, |l| {
            if let Some((h, n)) = l.memory_target().map(target_key) {
                links.push((h, n, l.line as u32));
            }
        });
        if !streamed.ok()? {
            return None;
        }
        links.sort_unstable();
        links.dedup();
        links.shrink_to_fit();
        let loaded = if links.is_empty() {
            Vec::new()
        } else {
            file.seek(std::io::SeekFrom::Start(0)).ok()?;
            match index::load::load_stream(file, 1) {
                Ok(Some(s)) => kept_lines(&s.load),
                // What the streamed model declines, the whole-text one models.
                _ => {
                    file.seek(std::io::SeekFrom::Start(0)).ok()?;
                    let bytes =
                        crate::fsread::read_bounded(file.try_clone().ok()?, crate::index::check::MAX_INDEX_BYTES)
                            .ok()?;
                    kept_lines(&index::load::load(&String::from_utf8_lossy(&bytes)))
                }
            }
        };
        Some(LinkTable { links, loaded })
    }

    fn is_loaded(&self, line: usize) -> bool {
        u32::try_from(line).is_ok_and(|l| self.loaded.binary_search(&l).is_ok())
    }

    /// The lines (1-based) with a memory link to `rel`.
    fn lines(&self, rel: &str) -> Vec<usize> {
        let (h, n) = target_key(rel);
        let start = self.links.partition_point(|(x, m, _)| (*x, *m) < (h, n));
        let matching = &self.links[start..];
        let count = matching.iter().take_while(|(x, m, _)| (*x, *m) == (h, n)).count();
        matching[..count].iter().map(|(_, _, line)| *line as usize).collect()
    }
}

/// The file lines of `text` that Claude Code loads in full: the processed lines
/// kept by the cut, less a line the unit cap cuts in the middle (its link may be
/// lost; `truncate-check` lists it as dropped too).
fn loaded_lines(text: &str) -> Vec<u32> {
    // The streamed model keeps only the head of a large index (all the cut depends
    // on); it declines what it cannot model, which the whole-text model then does.
    // One dropped entry is quoted: the only one that can be partly kept.
    let l = match index::load::load_stream(&mut text.as_bytes(), 1) {
        Ok(Some(s)) => s.load,
        _ => index::load::load(text),
    };
    kept_lines(&l)
}

/// What [`loaded_lines`] keeps of a load, as the scan's line numbers.
fn kept_lines(l: &index::load::Load) -> Vec<u32> {
    index::load::kept_lines(l)
        .filter_map(|line| u32::try_from(line).ok())
        .collect()
}

impl Indexed {
    /// No index at all: every file is unlinked (for what shows no index column).
    pub fn none(memdir: &MemoryDir) -> Indexed {
        Indexed {
            main: LinkTable::default(),
            team: None,
            memdir: memdir.clone(),
        }
    }

    /// Load the indexes that cover the files of `memdir`.
    pub fn load(memdir: &MemoryDir) -> Indexed {
        let read = |p: PathBuf| LinkTable::read(&p);
        let main = read(memdir.index_path()).unwrap_or_default();
        let team = match memdir.scope() {
            Scope::Main => read(memdir.team_dir().join(INDEX)),
            Scope::Team => None,
        };
        Indexed {
            main,
            team,
            memdir: memdir.clone(),
        }
    }

    /// [`Indexed::load`] for the one memory `rel` (`show`): its links only, and
    /// the lines that cannot link it are not parsed; [`Indexed::lines_for`] and
    /// [`Indexed::line_loaded`] of `rel` answer as after a full load.
    pub fn load_for(memdir: &MemoryDir, rel: &str) -> Indexed {
        let base = rel.rsplit('/').next().unwrap_or(rel);
        // A backslash in the name could be written as `/` in a link: all links.
        let read = |p: PathBuf| {
            if base.contains('\\') {
                LinkTable::read(&p)
            } else {
                LinkTable::read_for(&p, base)
            }
        };
        let main = read(memdir.index_path()).unwrap_or_default();
        let team = match memdir.scope() {
            Scope::Main => read(memdir.team_dir().join(INDEX)),
            Scope::Team => None,
        };
        Indexed {
            main,
            team,
            memdir: memdir.clone(),
        }
    }

    /// The index lines (1-based) linking `rel`.
    pub fn lines_for(&self, rel: &str) -> Vec<usize> {
        match self.memdir.in_team(rel) {
            Some(inner) => self.team.as_ref().map_or_else(Vec::new, |t| t.lines(inner)),
            None => self.main.lines(rel),
        }
    }

    /// Whether index line `line` (one of [`Indexed::lines_for`]`(rel)`) is among
    /// what Claude Code loads (not past the cut).
    pub fn line_loaded(&self, rel: &str, line: usize) -> bool {
        match self.memdir.in_team(rel) {
            Some(_) => self.team.as_ref().is_some_and(|t| t.is_loaded(line)),
            None => self.main.is_loaded(line),
        }
    }

    /// Whether an index line linking `rel` is among what Claude Code loads.
    pub fn loaded(&self, rel: &str) -> bool {
        self.lines_for(rel).iter().any(|l| self.line_loaded(rel, *l))
    }
}

#[cfg(test)]
mod loaded_tests {
    use super::loaded_lines;

    /// The lines the whole-text model loads in full, as a reference.
    fn reference(text: &str) -> Vec<u32> {
        let l = crate::index::load::load(text);
        let partly: Vec<usize> = l.dropped.iter().map(|d| d.line).collect();
        l.processed.origin[..l.kept_lines]
            .iter()
            .filter(|o| !partly.contains(o))
            .map(|o| *o as u32)
            .collect()
    }

    #[test]
    fn loaded_lines_follow_the_cut_streamed_or_whole() {
        let many: String = (0..20_000).map(|i| format!("- [M{i}](m{i}.md) — hook {i}\n")).collect();
        assert_eq!(loaded_lines(&many), (1..=200).collect::<Vec<u32>>());
        let long = format!(
            "- [A](a.md) {}\n- [B](b.md) {}\n- [C](c.md)\n",
            "x".repeat(15_000),
            "y".repeat(15_000)
        );
        assert_eq!(loaded_lines(&long), [1]);
        let split: String = format!(
            "{}- [Z](z.md) {}\n",
            "- [A](a.md)\n".repeat(300_000 / 12),
            "z".repeat(40_000)
        );
        assert_eq!(loaded_lines(&split), reference(&split));
        let commented = format!("<!-- note -->\n{many}");
        assert_eq!(loaded_lines(&commented), reference(&commented));
        assert_eq!(loaded_lines(&commented).first(), Some(&2));
    }
}

#[cfg(test)]
mod load_for_tests {
    use super::Indexed;
    use crate::memdir::{MemoryDir, Scope};

    /// [`Indexed::load_for`] answers for its memory as a full load does: links in
    /// comments and fences, percent-encoded, normalized, with fragments, angle
    /// brackets, reference definitions, two on a line, a CRLF index.
    #[test]
    fn loading_for_one_memory_answers_as_loading_all() {
        let index = "# Index\n- [A](a.md) — a\n- [B](./b.md) — b and [A again](sub/../a.md)\n<!-- - [C](c.md) hidden\n-->\n```\n- [D](d.md) in a fence\n```\n- [D](d.md#frag) — d\n`[E](e.md)` in code, [E2](%65.md) encoded\n[f]: f.md\n- [G](sub/g%20h.md) — g\n- [G2](<sub/g h.md>) — g2\n- [X](sub/a.md)\n";
        for text in [
            index.to_string(),
            index.replace('\n', "\r\n"),
            format!("\u{feff}{index}"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("MEMORY.md"), &text).unwrap();
            let memdir = MemoryDir::open(dir.path(), Scope::Main);
            let all = Indexed::load(&memdir);
            for rel in [
                "a.md",
                "b.md",
                "c.md",
                "d.md",
                "e.md",
                "f.md",
                "sub/g h.md",
                "sub/a.md",
                "z.md",
            ] {
                let one = Indexed::load_for(&memdir, rel);
                let lines = all.lines_for(rel);
                assert_eq!(one.lines_for(rel), lines, "{rel}");
                for l in lines {
                    assert_eq!(one.line_loaded(rel, l), all.line_loaded(rel, l), "{rel}:{l}");
                }
            }
            assert_eq!(all.lines_for("e.md"), [10]);
        }
    }
}
