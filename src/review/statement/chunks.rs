//! A statement's white-space separated chunks, each with whether it is all
//! ASCII letters and digits (what [`super::cut_into`] reads first of a chunk).

/// The white-space separated chunks of `s`, each with whether it is all ASCII
/// letters and digits: split at ASCII white space when `s` is ASCII without a
/// vertical tab (the same chunks, without decoding chars, read through a table
/// of byte classes once).
#[inline]
pub(super) fn chunks(s: &str, ascii: bool) -> Chunks<'_> {
    if ascii {
        Chunks::Ascii { s, at: 0 }
    } else {
        Chunks::Any(s.split_whitespace())
    }
}

pub(super) enum Chunks<'a> {
    Ascii { s: &'a str, at: usize },
    Any(std::str::SplitWhitespace<'a>),
}

/// [`ASCII_CLASS`]: ASCII white space ([`u8::is_ascii_whitespace`]), an ASCII
/// letter or digit; any other byte is 0.
const WHITE: u8 = 1;
const ALNUM: u8 = 2;
const ASCII_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c.is_ascii_whitespace() {
            WHITE
        } else if c.is_ascii_alphanumeric() {
            ALNUM
        } else {
            0
        };
        b += 1;
    }
    t
};

impl<'a> Iterator for Chunks<'a> {
    type Item = (&'a str, bool);
    #[inline]
    fn next(&mut self) -> Option<(&'a str, bool)> {
        match self {
            Chunks::Ascii { s, at } => {
                let b = s.as_bytes();
                let mut i = *at;
                while i < b.len() && ASCII_CLASS[usize::from(b[i])] == WHITE {
                    i += 1;
                }
                if i >= b.len() {
                    *at = i;
                    return None;
                }
                let start = i;
                let mut alnum = true;
                while i < b.len() {
                    let class = ASCII_CLASS[usize::from(b[i])];
                    if class == WHITE {
                        break;
                    }
                    alnum &= class == ALNUM;
                    i += 1;
                }
                *at = i;
                // ASCII: every index is a char boundary.
                Some((s.get(start..i).unwrap_or_default(), alnum))
            }
            Chunks::Any(i) => i.next().map(|c| (c, all_alnum(c))),
        }
    }
}

/// Whether `c` is all ASCII letters and digits (and not empty).
#[inline]
pub(super) fn all_alnum(c: &str) -> bool {
    !c.is_empty() && c.bytes().all(|b| ASCII_CLASS[usize::from(b)] == ALNUM)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ASCII chunks are `split_ascii_whitespace`'s, and the flag is whether
    /// each is all ASCII letters and digits.
    #[test]
    fn ascii_chunks_are_split_ascii_whitespaces() {
        for s in [
            "",
            "   ",
            "Run cargo test.",
            " a\tb\r\nc\x0cd  e1 `x` --flag src/api/ 4-space\n",
            "trailing ",
            "x",
            "a\x0bb",
        ] {
            let got: Vec<(&str, bool)> = chunks(s, true).collect();
            let want: Vec<(&str, bool)> = s
                .split_ascii_whitespace()
                .map(|c| (c, c.bytes().all(|b| b.is_ascii_alphanumeric())))
                .collect();
            assert_eq!(got, want, "{s:?}");
            let any: Vec<&str> = chunks(s, false).map(|c| c.0).collect();
            assert_eq!(any, s.split_whitespace().collect::<Vec<_>>(), "{s:?}");
        }
        assert_eq!(chunks("é 1a", false).collect::<Vec<_>>(), [("é", false), ("1a", true)]);
    }
}
