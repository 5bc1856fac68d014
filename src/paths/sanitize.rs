//! The project key (SPEC §2.2.7): `sanitizePath`, its 200-unit cap, and the djb2
//! suffix of long keys that Claude Code 2.1.332 uses in every host. Wyhash, the
//! suffix of older native builds, is computed only to recognise the memory dirs
//! those builds left behind.

/// Keys longer than this many UTF-16 units get a hash suffix.
pub const MAX_KEY_UNITS: usize = 200;

/// A sanitized key: the key Claude Code 2.1.332 uses, and the legacy long form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// Length of the sanitized string in units, before any cut.
    pub units: usize,
    /// THE key (djb2 suffix when long): the dir Claude Code 2.1.332 reads and creates.
    pub key: String,
    /// The key older native builds used (Wyhash suffix when long); equal to `key`
    /// when the sanitized name is at most 200 units. Only for recognising their dirs.
    pub wyhash: String,
}

impl Key {
    pub fn is_long(&self) -> bool {
        self.units > MAX_KEY_UNITS
    }

    /// `first 200 units + "-"`, shared by both long forms.
    pub fn prefix(&self) -> &str {
        &self.key[..MAX_KEY_UNITS.min(self.key.len()) + usize::from(self.is_long())]
    }
}

/// `sanitizePath(name)`: the djb2 key, with the legacy Wyhash form beside it.
pub fn sanitize(name: &str) -> Key {
    let sanitized: String = name
        .encode_utf16()
        .map(|u| {
            if u < 128 && (u as u8).is_ascii_alphanumeric() {
                u as u8 as char
            } else {
                '-'
            }
        })
        .collect();
    let units = sanitized.len();
    if units <= MAX_KEY_UNITS {
        return Key {
            units,
            key: sanitized.clone(),
            wyhash: sanitized,
        };
    }
    let prefix = &sanitized[..MAX_KEY_UNITS];
    Key {
        units,
        key: format!("{prefix}-{}", base36(u64::from(djb2(name).unsigned_abs()))),
        wyhash: format!("{prefix}-{}", base36(wyhash(name.as_bytes()))),
    }
}

/// A named key (`CLAUDE_CODE_PROJECT_DIR_NAME`, at most 64 units): used as is.
pub fn named(name: &str) -> Key {
    Key {
        units: name.encode_utf16().count(),
        key: name.to_string(),
        wyhash: name.to_string(),
    }
}

/// Lower-case base 36 without padding.
pub fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// djb2 over UTF-16 units with 32-bit signed wrap-around, as Claude Code 2.1.332 does.
pub fn djb2(name: &str) -> i32 {
    name.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

const S0: u64 = 0xa076_1d64_78bd_642f;
const S1: u64 = 0xe703_7ed1_a0b4_28db;
const S2: u64 = 0x8ebc_6af0_9c88_c6e3;
const S3: u64 = 0x5899_65cc_7537_4cc3;

fn mum(a: u64, b: u64) -> (u64, u64) {
    let r = u128::from(a) * u128::from(b);
    (r as u64, (r >> 64) as u64)
}

fn mix(a: u64, b: u64) -> u64 {
    let (lo, hi) = mum(a, b);
    lo ^ hi
}

fn r64(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(w)
}

fn r32(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[i..i + 4]);
    u64::from(u32::from_le_bytes(w))
}

/// 64-bit Wyhash, seed 0, in the variant older native builds used (SPEC §2.2.7,
/// legacy): only to recognise the memory dirs they created.
pub fn wyhash(input: &[u8]) -> u64 {
    let len = input.len();
    let seed = 0u64;
    let mut st = [seed ^ mix(seed ^ S0, S1); 3];
    let secrets = [S1, S2, S3];
    let (mut a, mut b);
    if len <= 16 {
        if len >= 4 {
            let q = (len >> 3) << 2;
            a = (r32(input, 0) << 32) | r32(input, q);
            b = (r32(input, len - 4) << 32) | r32(input, len - 4 - q);
        } else if len >= 1 {
            a = (u64::from(input[0]) << 16) | (u64::from(input[len >> 1]) << 8) | u64::from(input[len - 1]);
            b = 0;
        } else {
            a = 0;
            b = 0;
        }
    } else {
        let mut i = 0;
        if len >= 48 {
            while i + 48 < len {
                for k in 0..3 {
                    st[k] = mix(r64(input, i + 16 * k) ^ secrets[k], r64(input, i + 16 * k + 8) ^ st[k]);
                }
                i += 48;
            }
            st[0] ^= st[1] ^ st[2];
        }
        let tail = len - i;
        let mut j = 0;
        while j + 16 < tail {
            st[0] = mix(r64(input, i + j) ^ S1, r64(input, i + j + 8) ^ st[0]);
            j += 16;
        }
        a = r64(input, len - 16);
        b = r64(input, len - 8);
    }
    a ^= S1;
    b ^= st[0];
    let (lo, hi) = mum(a, b);
    mix(lo ^ S0 ^ len as u64, hi ^ S1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_keys_match_appendix_a1() {
        for (input, key) in [
            ("/home/a/my repo", "-home-a-my-repo"),
            ("/Users/foo/my-project", "-Users-foo-my-project"),
            ("C:\\Users\\x\\proj", "C--Users-x-proj"),
            ("plugin:name:server", "plugin-name-server"),
            ("/tmp/\u{fc}ber", "-tmp--ber"),
            ("/tmp/u\u{308}ber", "-tmp-u-ber"),
            ("/tmp/😀", "-tmp---"),
            ("/", "-"),
            ("", ""),
        ] {
            let k = sanitize(input);
            assert_eq!(k.key, key, "{input}");
            assert_eq!(k.wyhash, key, "{input}");
        }
        let exact = format!("/{}", "b".repeat(199));
        let k = sanitize(&exact);
        assert_eq!(k.key, format!("-{}", "b".repeat(199)));
        assert!(!k.is_long());
    }

    #[test]
    fn long_keys_match_appendix_a1() {
        for (input, wy, dj) in [
            (format!("/home/user/{}", "a".repeat(195)), "-16jaymsy6oeq3", "-odqgte"),
            (format!("/{}", "b".repeat(200)), "-17qtydk7w96d8", "-86ms41"),
            (
                format!("/tmp/\u{fc}ber/{}", "c".repeat(200)),
                "-2yv21raboowkr",
                "-8imqff",
            ),
        ] {
            let k = sanitize(&input);
            let prefix: String = input
                .encode_utf16()
                .take(200)
                .map(|u| {
                    if u < 128 && (u as u8).is_ascii_alphanumeric() {
                        u as u8 as char
                    } else {
                        '-'
                    }
                })
                .collect();
            assert_eq!(k.wyhash, format!("{prefix}{wy}"));
            assert_eq!(k.key, format!("{prefix}{dj}"));
            assert_eq!(k.prefix(), format!("{prefix}-"));
        }
    }

    #[test]
    fn the_emoji_vector_of_appendix_a1() {
        let k = sanitize(&format!("/tmp/😀{}", "d".repeat(200)));
        assert_eq!(k.units, 207);
        // The first 200 units are `-tmp---` and 193 `d` (SPEC A.1 says 197 × `d`, which
        // would be 204 units; the suffix is the oracle's).
        assert_eq!(k.key, format!("-tmp---{}-oh45h2", "d".repeat(193)));
    }

    #[test]
    fn wyhash_matches_appendix_a2() {
        assert_eq!(wyhash(b""), 290873116282709081);
        assert_eq!(wyhash(b"a"), 2941419223392617777);
        assert_eq!(wyhash(b"abc"), 190542993387777138);
        assert_eq!(wyhash(b"/home/user/aaaa"), 12826328892689798812);
        assert_eq!(
            wyhash(format!("/home/user/{}", "a".repeat(16)).as_bytes()),
            6997869433570266928
        );
        assert_eq!(base36(wyhash("/tmp/über/project".as_bytes())), "1qkw62fg357vt");
        assert_eq!(base36(wyhash("/tmp/😀".as_bytes())), "2dtn6e4t3rj5b");
        assert_eq!(base36(wyhash(b"")), "27k1wwwhf13t");
        let alphabet = "abcdefghijklmnopqrstuvwxyz0123456789".repeat(3);
        for (n, b36) in [
            (2, "2v9aa834vefak"),
            (4, "13w92m5xe651v"),
            (7, "2pyge65mvqxd8"),
            (8, "s1v3qcb30s5f"),
            (16, "35rdki2ncmc5x"),
            (17, "2uhdd13zsezdn"),
            (32, "26xpxscwfv0c"),
            (33, "1notuc67ql0dk"),
            (48, "1n5z9gooumclm"),
            (49, "c8jgnuugnn4w"),
            (64, "2lpvgibvt3us1"),
            (96, "edvhlsllobtd"),
            (97, "2qmjte4c7hnkw"),
        ] {
            assert_eq!(base36(wyhash(&alphabet.as_bytes()[..n])), b36, "n = {n}");
        }
    }

    #[test]
    fn djb2_matches_appendix_a2() {
        assert_eq!(djb2("a"), 97);
        assert_eq!(base36(97), "2p");
        assert_eq!(djb2("abc"), 96354);
        assert_eq!(base36(96354), "22ci");
    }
}
