//! A sorted set of strings in one allocation: the index's link targets and a
//! directory's entry names, which a 20 000-file dir holds 20 000 of each while the
//! other rules run (one `String` apiece cost about three times the bytes).

use std::cmp::Ordering;

/// Strings, sorted and without repeats, back to back, with the end of each.
#[derive(Debug, Default)]
pub struct Packed {
    text: Box<str>,
    ends: Box<[u32]>,
}

/// The strings of a [`Packed`] as they come, back to back.
#[derive(Default)]
pub struct Builder {
    text: String,
    spans: Vec<(u32, u32)>,
}

impl Builder {
    pub fn push(&mut self, s: &str) {
        self.spans.push((self.text.len() as u32, s.len() as u32));
        self.text.push_str(s);
    }

    /// The set: sorted, repeats dropped.
    pub fn finish(self) -> Packed {
        let Builder { text, mut spans } = self;
        let at = |&(start, len): &(u32, u32)| &text[start as usize..(start + len) as usize];
        spans.sort_unstable_by(|a, b| at(a).cmp(at(b)));
        spans.dedup_by(|a, b| at(a) == at(b));
        let mut packed = String::with_capacity(spans.iter().map(|s| s.1 as usize).sum());
        let ends = spans
            .iter()
            .map(|s| {
                packed.push_str(at(s));
                packed.len() as u32
            })
            .collect();
        Packed {
            text: packed.into_boxed_str(),
            ends,
        }
    }
}

impl Packed {
    /// The set of `items`, in any order, repeats allowed.
    pub fn new<'a>(items: impl IntoIterator<Item = &'a str>) -> Packed {
        let mut b = Builder::default();
        for s in items {
            b.push(s);
        }
        b.finish()
    }

    /// The `i`-th string in order.
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    pub fn contains(&self, s: &str) -> bool {
        let (mut lo, mut hi) = (0, self.ends.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.get(mid).cmp(s) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return true,
            }
        }
        false
    }

    /// Every string, in order.
    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len()).map(|i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_set_holds_exactly_its_strings_sorted() {
        let items = ["b.md", "a.md", "b/c.md", "", "é.md", "zz.md", "a.md", "b.md"];
        let p = Packed::new(items);
        let mut want: Vec<&str> = items.to_vec();
        want.sort();
        want.dedup();
        assert_eq!(p.iter().collect::<Vec<_>>(), want);
        for s in items {
            assert!(p.contains(s), "{s}");
        }
        for s in ["a", "a.mdx", "b", "c.md", "zz.md ", "e.md"] {
            assert!(!p.contains(s), "{s}");
        }
        assert!(!Packed::new([]).contains(""));
    }
}
