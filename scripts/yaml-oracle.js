// The YAML oracle's generator, run by Bun (see scripts/yaml-oracle, which installs
// the pinned Bun and runs this file). It builds frontmatter texts from seeded,
// deterministic generators, one family each, parses every text with
// `Bun.YAML.parse` (the parser of Claude Code's native runtime: Bun 1.4.6 in Claude
// Code 2.1.332, modelled with Bun 1.4.5, the closest published) and prints one JSON
// line per text:
//
//   {"family":"whitespace","text":"description:\tx\n","value":{"description":"x"}}
//   {"family":"block-scalars","text":"a: >-\n\tx\n","throws":"YAML Parse error: ...",
//    "retry":{"throws":"YAML Parse error: ..."}}
//
// A row whose text throws also holds `retry`: what Bun gives for the text Claude
// Code's quote-retry rewrite makes of it (`value` or `throws`).
//
// `value` is Bun's result as JSON with these additions, so every JS value the parser
// can give survives the trip: a number JSON cannot hold is `{"$number":"NaN"}`
// (also "Infinity", "-Infinity", "-0"); an object key that starts with `$` gets one
// more `$` in front; object keys are in JavaScript's own order (integer-like keys
// first, ascending), as `Object.keys` gives them; an object met again inside itself
// (an alias inside the node its anchor names) is `{"$cycle":"object"}` or
// `{"$cycle":"array"}`; any other kind of value is `{"$js":"<typeof>"}`.
//
// The output depends only on this file and the Bun version: the generators draw from
// a fixed-seed PRNG per family, and a text produced twice is kept once (its first
// family). Changing a generator changes the data; regenerate and commit both.

"use strict";

// mulberry32: small, fast, and the same in every JS engine.
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const r = {
    next,
    int: (n) => Math.floor(next() * n),
    chance: (p) => next() < p,
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    range: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
  };
  return r;
}

// ---------------------------------------------------------------------------
// Shared pieces.

const KEYS = ["name", "description", "type", "originSessionId", "tags", "a", "b", "k1", "x-y", "_z", "node_type", "modified"];
const PLAIN = [
  "value", "Testing policy", "Integration tests hit a real DB", "user", "feedback", "project", "reference",
  "42", "0", "-1", "3.14", "1e3", "12e", ".inf", "-.inf", ".nan", "true", "False", "null", "~", "yes", "on",
  "2026-07-21", "2026-07-21T13:53:16.297Z", "0x1F", "-0x1F", "0o17", "017", "+.5", "-.5e2", "1_000", "12:30",
  "use C#", "a-b", "x,y", "http://x.y/z?q=1", "a b c", "x\ty", "14a82ccb-8561-4527-8fab-6175f28bf954",
  "-", "--", "a:b", "C# and F#", "50%", "what?", "(parens)", "a=b", "é", "x.y",
];
const SEP = [" ", " ", " ", "\t", " \t", "\t ", "\t\t", "  "];
const TRAIL = ["", "", "", " ", "\t", " \t", "\t ", " # c", "\t# c", " \t# c", "  #c", "\t#\tc"];
const BLANK = ["", " ", "  ", "\t", "\t\t", " \t", "\t ", "  \t  ", "\t \t"];
const COMMENT = ["# c", "#c", "  # c", "\t# c", " \t# c", "#\tc", "# c\t", "#", "# c ", "\t#", "    # deep"];
const INDENT = ["  ", "  ", "    ", " ", "\t", "  \t", "\t  ", " \t ", "   "];

function key(r) {
  return r.pick(KEYS);
}

function pair(r, { seps = SEP, trails = TRAIL, values = PLAIN } = {}) {
  return key(r) + ":" + r.pick(seps) + r.pick(values) + r.pick(trails);
}

function lines(arr) {
  return arr.join("\n") + "\n";
}

// ---------------------------------------------------------------------------
// Families. Each generator returns one text; `count` unique texts are kept.

const FAMILIES = [];
function family(name, seed, count, gen) {
  FAMILIES.push({ name, seed, count, gen });
}

// Tabs and whitespace-only lines in every position a frontmatter can hold them.
family("whitespace", 0x7ab5, 1300, (r) => {
  const out = [];
  if (r.chance(0.15)) out.push(r.pick(BLANK));
  if (r.chance(0.1)) out.push(r.pick(COMMENT));
  const n = r.range(1, 5);
  for (let i = 0; i < n; i++) {
    const kind = r.int(12);
    const lead = r.chance(0.08) ? r.pick(["\t", " ", "\t ", " \t"]) : "";
    if (kind < 5) {
      out.push(lead + pair(r));
    } else if (kind < 7) {
      // a nested mapping
      out.push(lead + key(r) + ":" + r.pick(["", "", " ", "\t", " \t", " # c", "\t# c"]));
      const ind = r.pick(INDENT);
      const m = r.range(1, 3);
      for (let j = 0; j < m; j++) {
        out.push(ind + pair(r));
        if (r.chance(0.25)) out.push(r.pick(BLANK));
        if (r.chance(0.1)) out.push(ind + r.pick(COMMENT));
      }
    } else if (kind < 9) {
      // a block sequence, indented or not
      out.push(lead + key(r) + ":" + r.pick(["", "", " ", "\t", "\t ", " #c"]));
      const ind = r.pick(["", "", "  ", " ", "\t", "  \t"]);
      const m = r.range(1, 3);
      for (let j = 0; j < m; j++) {
        const dash = "-" + r.pick(["", ...SEP]);
        out.push(ind + dash + (dash === "-" ? "" : r.pick(PLAIN)) + r.pick(TRAIL));
        if (r.chance(0.2)) out.push(r.pick(BLANK));
      }
    } else if (kind < 10) {
      // flow collections with tabs around the indicators
      const s = () => r.pick(["", " ", "\t", " \t", "\t "]);
      const v = () => r.pick(["a", "b", "1", "x y", '"q"', "'s'", "true"]);
      const flow = r.chance(0.5)
        ? "[" + s() + v() + s() + "," + s() + v() + s() + "]"
        : "{" + s() + "k" + ":" + r.pick([" ", "\t", " \t"]) + v() + s() + "," + s() + "j:" + r.pick([" ", "\t"]) + v() + s() + "}";
      out.push(lead + key(r) + ":" + r.pick(SEP) + flow + r.pick(TRAIL));
    } else if (kind < 11) {
      // explicit keys
      out.push(lead + "?" + r.pick(SEP) + key(r) + r.pick(TRAIL));
      out.push(":" + r.pick(SEP) + r.pick(PLAIN) + r.pick(TRAIL));
    } else {
      // a block scalar with whitespace-only lines inside
      out.push(lead + key(r) + ":" + r.pick(SEP) + r.pick(["|", ">", "|-", ">-", "|+"]) + r.pick(["", " ", "\t", " # c"]));
      const ind = r.pick(["  ", "  ", "    ", "\t", " \t"]);
      const m = r.range(1, 3);
      for (let j = 0; j < m; j++) {
        out.push(ind + r.pick(["line", "more text", "x\ty", "a: b", "# not a comment"]) + r.pick(["", " ", "\t"]));
        if (r.chance(0.4)) out.push(r.pick(BLANK.concat([ind, ind + "\t", ind + " "])));
      }
    }
    if (r.chance(0.35)) out.push(r.pick(BLANK));
    if (r.chance(0.2)) out.push(r.pick(COMMENT));
    if (r.chance(0.15)) out.push(r.pick(BLANK));
  }
  if (r.chance(0.15)) out.push(r.pick(BLANK));
  return lines(out);
});

// Comments: whole-line, trailing, with and without the separating space, in nested
// blocks, flow collections and after block-scalar indicators.
family("comments", 0xc033, 330, (r) => {
  const out = [];
  const n = r.range(1, 4);
  for (let i = 0; i < n; i++) {
    if (r.chance(0.4)) out.push(r.pick(COMMENT));
    if (r.chance(0.2)) out.push(r.pick(BLANK));
    const kind = r.int(8);
    const c = r.pick([" # c", "\t# c", "# c", " #", " #c#d", "  ## c", " # c: d", " # [x"]);
    if (kind < 3) {
      out.push(key(r) + ": " + r.pick(["x", "use C#", "a#b", "x #y", "#x", "'q' ", '"q"', "[a] ", "{a: 1}", "1"]) + c);
    } else if (kind < 4) {
      out.push(key(r) + ":" + r.pick(["", " ", "\t"]) + c);
      out.push(r.pick(["  ", "\t", " "]) + pair(r, { trails: ["", " # c", "\t# c"] }));
    } else if (kind < 5) {
      out.push(key(r) + ": [a," + c + "\n  b]");
    } else if (kind < 6) {
      out.push(key(r) + ": " + r.pick(["|", ">", "|-"]) + c);
      out.push("  text" + r.pick(["", " # inside"]));
      if (r.chance(0.5)) out.push(r.pick(["  # still text", "# after", "", "\t"]));
    } else if (kind < 7) {
      out.push(key(r) + ":");
      out.push(r.pick(["  ", ""]) + "-" + r.pick([" ", "\t"]) + "x" + c);
      if (r.chance(0.5)) out.push(r.pick(COMMENT));
      out.push(r.pick(["  ", ""]) + "- y");
    } else {
      out.push(r.pick(COMMENT));
      out.push(r.pick(BLANK));
      if (r.chance(0.5)) out.push(r.pick(COMMENT));
    }
  }
  if (r.chance(0.3)) out.push(r.pick(COMMENT));
  if (r.chance(0.2)) out.push(r.pick(BLANK));
  return lines(out);
});

// Quoting: double quotes with escapes and line folding, single quotes with '' and
// folding, quoted keys, and the broken forms around them.
family("quoting", 0x9a07, 330, (r) => {
  const dq = [
    '"plain"', '""', '"a\\tb"', '"a\\nb"', '"\\x41"', '"\\u00e9"', '"\\U0001F600"', '"say \\"hi\\""', '"back\\\\slash"',
    '"\\/"', '"\\q"', '"\\0"', '"\\a\\b\\e\\f\\v\\r"', '"\\_\\N\\L\\P"', '"\\ "', '"a\tb"', '"tail\\', '"unterminated',
    '"a" b', '"a"b', '"x: y"', '"# not comment"', '"\\xZZ"', '"\\u12"', '"\\uD83D\\uDE00"', '"a\\\n  b"',
    '"line one\n  line two"', '"line one\n\n  para"', '"a\n\t b"', '"a  \n  b"', '"a \\\n b"',
  ];
  const sq = [
    "'plain'", "''", "'it''s'", "'a\\nb'", "'a\tb'", "'a\" b'", "'unterminated", "'a' b", "'x: y'", "'# c'",
    "'line one\n  line two'", "'a\n\n  b'", "'a\n\t b'", "''''", "'a''", "'a'''",
  ];
  const out = [];
  const n = r.range(1, 3);
  for (let i = 0; i < n; i++) {
    const v = r.chance(0.55) ? r.pick(dq) : r.pick(sq);
    const k = r.chance(0.15) ? r.pick(['"quoted key"', "'k'", '"a:b"', '""', '"\\t"']) : key(r);
    const lead = r.chance(0.3) ? "metadata:\n  " : "";
    out.push(lead + k + ":" + r.pick([" ", " ", "\t", "  "]) + v + r.pick(["", "", " ", "\t", " # c", "\t# c"]));
  }
  return lines(out);
});

// Flow collections: nesting, empties, trailing commas, multi-line, implicit pairs,
// flow keys, and broken forms.
family("flow", 0xf10e, 330, (r) => {
  const atoms = ["a", "b", "1", "null", "~", "true", '"q"', "'s'", "x y", "-1", "a: b", "a:b", "http://x", "#x", "?", "-"];
  const s = () => r.pick(["", " ", " ", "\t", "\n  ", " \n  "]);
  function flow(depth) {
    const k = r.int(depth > 2 ? 2 : 5);
    if (k === 0) return r.pick(atoms);
    if (k === 1) return r.pick(["[]", "{}", "[ ]", "{ }"]);
    const n = r.range(0, 3);
    const items = [];
    if (r.chance(0.5)) {
      for (let i = 0; i < n; i++) items.push(s() + flow(depth + 1) + s());
      return "[" + items.join(",") + (r.chance(0.15) ? "," : "") + "]";
    }
    for (let i = 0; i < n; i++) {
      const kk = r.chance(0.85) ? r.pick(["k", "j", "a b", '"q"', "1"]) : r.pick(["[a]", "{x: 1}", "? e", ""]);
      items.push(s() + kk + (r.chance(0.9) ? ":" + r.pick([" ", "\t", ""]) + flow(depth + 1) : "") + s());
    }
    return "{" + items.join(",") + (r.chance(0.15) ? "," : "") + "}";
  }
  const out = [];
  const n = r.range(1, 3);
  for (let i = 0; i < n; i++) {
    const f = flow(0);
    if (r.chance(0.1)) out.push(f + ": v");
    else if (r.chance(0.05)) out.push(f);
    else out.push(key(r) + ": " + f + r.pick(["", "", " # c", " x", ",", "]"]));
  }
  return lines(out);
});

// Block scalars: literal and folded, chomping and indentation indicators, blank and
// whitespace-only lines, more-indented lines, tabs, and where they end.
family("block-scalars", 0xb10c, 330, (r) => {
  const ind = r.pick(["|", ">", "|-", ">-", "|+", ">+", "|2", ">1", "|-2", "|2-", ">+1", "|0", "|10", "|--", "| -"]);
  const out = [key(r) + ":" + r.pick([" ", " ", "\t"]) + ind + r.pick(["", "", " ", "\t", " # c", "#c", " x"])];
  const base = r.pick(["  ", "  ", "    ", " ", "\t", "  \t"]);
  const n = r.range(0, 4);
  for (let i = 0; i < n; i++) {
    const k = r.int(10);
    if (k < 5) out.push(base + r.pick(["text", "more text", "a: b", "- item", "# hash", "x\ty", "'q'", "end  ", "tab\t"]));
    else if (k < 6) out.push(base + r.pick(["  ", "\t", " "]) + "more indented");
    else if (k < 8) out.push(r.pick(BLANK.concat([base, base + " ", base + "\t", base + "  "])));
    else if (k < 9) out.push(r.pick(["\ttab led", " one space", "x: outdented", "# comment"]));
    else out.push(base + "...");
  }
  if (r.chance(0.5)) out.push(r.pick(["", " ", "\t"]));
  if (r.chance(0.6)) out.push(pair(r, { trails: ["", " # c"] }));
  return lines(out);
});

// Anchors and aliases, merge keys and unresolved aliases.
family("anchors", 0xa9c0, 280, (r) => {
  const out = [];
  const names = ["a", "x1", "anchor-name", "é", "a.b", "a:b"];
  const defined = [];
  const n = r.range(1, 4);
  for (let i = 0; i < n; i++) {
    const nm = r.pick(names);
    const k = r.int(9);
    if (k < 3) {
      out.push(key(r) + ": &" + nm + r.pick([" ", "\t"]) + r.pick(["v", "42", "[1, 2]", "{p: q}", '"s"', "", "|\n  lit"]));
      defined.push(nm);
    } else if (k < 4) {
      out.push(key(r) + ": &" + nm);
      out.push("  p: 1");
      out.push("  q: " + r.pick(["2", "*" + nm]));
      defined.push(nm);
    } else if (k < 6) {
      out.push(key(r) + ": *" + (defined.length && r.chance(0.8) ? r.pick(defined) : nm) + r.pick(["", " ", "\t", " # c", " x"]));
    } else if (k < 7) {
      out.push("<<: *" + (defined.length ? r.pick(defined) : nm));
    } else if (k < 8) {
      out.push(r.pick(["<<: {m: 1}", "<<: [*a, {m: 2}]", "<<: 5", "<<: [1]", "x:\n  <<: {m: 3}\n  m: 4"]));
    } else {
      out.push("*" + (defined.length ? r.pick(defined) : nm) + " : v");
    }
  }
  return lines(out);
});

// Duplicate keys at every level, with values of different kinds.
family("duplicate-keys", 0xd0b1, 200, (r) => {
  const out = [];
  const ks = ["a", "b", "type"];
  const n = r.range(2, 5);
  for (let i = 0; i < n; i++) {
    const k = r.pick(ks);
    const v = r.pick(["1", "2", "x", "", "[1]", "{c: 1}", "null", "~"]);
    if (r.chance(0.2)) {
      out.push(k + ":");
      out.push("  c: " + r.pick(["1", "2"]));
      if (r.chance(0.6)) out.push("  c: " + r.pick(["3", "4", "{}"]));
    } else {
      out.push(k + ": " + v);
    }
    if (r.chance(0.1)) out.push(r.pick(["1: x", '"1": y', "1.0: z", "~: n", "null: m", "? [a, b]\n: c", '"a,b": d', "'a': q"]));
  }
  return lines(out);
});

// Tags: local, core, verbatim, on scalars and collections, and %TAG directives.
family("tags", 0x7a95, 280, (r) => {
  const tags = ["!tag", "!t", "!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq", "!<tag:yaml.org,2002:str>",
    "!<!x>", "!", "!!binary", "!!timestamp", "!e!x", "!!", "!a!b"];
  const vals = ["x", "42", "3", "true", "yes", "~", "", '"3"', "'s'", "[1, 2]", "{a: 1}", "1.5", ".inf", "0x10", "2026-07-21"];
  const out = [];
  if (r.chance(0.12)) out.push(r.pick(["%TAG !e! tag:example.com,2000:", "%TAG ! !foo", "%YAML 1.2", "%YAML 1.1"]), "---");
  const n = r.range(1, 4);
  for (let i = 0; i < n; i++) {
    const k = r.int(6);
    const t = r.pick(tags);
    if (k < 4) out.push(key(r) + ": " + t + r.pick([" ", " ", "\t"]) + r.pick(vals) + r.pick(["", " # c"]));
    else if (k < 5) {
      out.push(key(r) + ": " + t);
      out.push("  " + r.pick(["p: 1", "- a"]));
    } else out.push(t + " " + key(r) + ": " + r.pick(vals));
  }
  return lines(out);
});

// Unicode: CJK, emoji, accents, BOMs, NEL, line and paragraph separators, NBSP,
// zero-width and control characters, in keys and values, plain and quoted.
family("unicode", 0x0c0d, 280, (r) => {
  const chars = ["é", "因子", "✓", "😀", "\u00a0", "\u200b", "\ufeff", "\u0085", "\u2028", "\u2029", "\u0001", "\u007f",
    "\u0080", "\u009f", "\ud7ff", "\ue000", "\ufffd", "Ω", "ß", "ﬁ", "\u0301", "\u3000", "\u2003", "\u200e", "\u001f", "\u000b", "\u000c", "\r"];
  const out = [];
  const n = r.range(1, 3);
  for (let i = 0; i < n; i++) {
    const c = r.pick(chars);
    const k = r.int(7);
    if (k < 3) out.push(key(r) + ": " + r.pick(["", "a", "word "]) + c + r.pick(["", "b", " end", c]));
    else if (k < 4) out.push(key(r) + ': "' + r.pick(["", "a"]) + c + r.pick(["", "b"]) + '"');
    else if (k < 5) out.push(key(r) + ": '" + c + "'");
    else if (k < 6) out.push(r.pick(["", "k"]) + c + r.pick(["", "k"]) + ": v");
    else out.push(r.pick([c + key(r) + ": v", key(r) + ":" + c + "v", key(r) + ": v" + "\n" + c, key(r) + ": |\n  " + c]));
  }
  return lines(out);
});

// Indentation: nested mappings and sequences at varied widths, inconsistent and
// over-indented lines, multi-line plain scalars, tabs as indentation.
family("indentation", 0x1de7, 330, (r) => {
  const out = [];
  function block(depth, ind) {
    const n = r.range(1, 3);
    for (let i = 0; i < n; i++) {
      const k = r.int(depth > 2 ? 3 : 6);
      if (k < 2) out.push(ind + pair(r, { seps: [" "], trails: [""], values: ["v", "1", "x y", "true"] }));
      else if (k < 3) {
        out.push(ind + key(r) + ": first");
        out.push(ind + r.pick(["  ", " ", "    ", "\t", " \t"]) + r.pick(["continued", "more: x", "- y", "# c"]));
      } else if (k < 5) {
        out.push(ind + key(r) + ":");
        const step = r.pick(["  ", "  ", " ", "    ", "\t", "   "]);
        block(depth + 1, ind + step);
        if (r.chance(0.15)) out.push(ind + r.pick(["   ", " ", "\t", ""]) + "odd: 1");
      } else {
        out.push(ind + key(r) + ":");
        const step = r.pick(["", "  ", " ", "\t"]);
        const m = r.range(1, 3);
        for (let j = 0; j < m; j++) {
          if (r.chance(0.3)) {
            out.push(ind + step + "- p: 1");
            out.push(ind + step + r.pick(["  ", " ", "   ", "\t"]) + "q: 2");
          } else out.push(ind + step + "- " + r.pick(["a", "b", "- nested", "[x]"]));
        }
      }
    }
  }
  if (r.chance(0.1)) block(0, r.pick([" ", "  ", "\t"]));
  else block(0, "");
  return lines(out);
});

// Document markers and directives: `---` with content, `...`, several documents,
// markers with trailing whitespace or comments, near-markers.
family("document-markers", 0xd0c5, 250, (r) => {
  const starts = ["---", "--- ", "---\t", "--- # c", "--- !tag", "--- |", "--- >\n  folded", "--- a: 1", "--- x", "--- [a]",
    "---x", "----", "%YAML 1.2\n---", "%FOO bar\n---", "--- &a", "--- {}", "---\t# c"];
  const ends = ["...", "... ", "...\t", "... # c", "...x", "....", ". . .", "...\t# c", "... x"];
  const out = [];
  const n = r.range(1, 4);
  for (let i = 0; i < n; i++) {
    const k = r.int(6);
    if (k < 2) out.push(r.pick(starts));
    else if (k < 4) out.push(pair(r, { trails: ["", " # c"] }));
    else if (k < 5) out.push(r.pick(ends));
    else out.push(r.pick(["# c", "", "\t", "  ---", "  ...", "a: ---", "a: ...", "- ---", "a: --- x", "... ---"]));
  }
  if (r.chance(0.3)) out.push(pair(r, { trails: [""] }));
  return lines(out);
});

// (2.1.332) The points where Bun 1.4 departs from Bun 1.3.14 that the families above
// touch only in passing (SPEC §2.4.3, §2.4.4): tabs indenting keys and entries,
// `[...]` values (lists or not, which the quote-retry treats apart), surrogate-pair
// escapes, `...` and `---` inside values, tags and anchors with no value before
// the next key, and core-schema numbers.
family("v3", 0x2132, 300, (r) => {
  const out = [];
  const n = r.range(1, 4);
  for (let i = 0; i < n; i++) {
    const k = r.int(7);
    if (k === 0) {
      // a tab (with spaces around it) before a key, an entry or a scalar
      const lead = r.pick(["\t", " \t", "\t ", "  \t", "\t\t", ""]);
      const body = r.pick([key(r) + ": v", "- x", "? k", "plain", '"q"', "[a]", "# c", key(r) + ":"]);
      if (r.chance(0.5)) out.push(key(r) + ":" + r.pick(["", " x"]));
      out.push(lead + body);
    } else if (k === 1) {
      // `[...]` values: lists, broken lists, brackets in text
      const v = r.pick(["[a, b]", "[a, [b, c]]", "[]", "[ ]", "[a, {b: c}]", "[a: b]", "[a]: b]", "[a] x [b]", "[unclosed",
        "[a, b", "a]", "[[a]", "[a, b]]", "[a # c]", "[a, 'b']", '["x: y"]', "[a] # c", "[*x]", "[&x a]", "[!t a]", "[a|b]",
        "[@x]", "[`x`]", "[%x]", "[a,\tb]", "[" + "[".repeat(r.range(1, 5)) + "]".repeat(r.range(1, 6)) + "]"]);
      out.push(key(r) + ":" + r.pick([" ", " ", "\t", "  "]) + v + r.pick(["", "", " ", "\t"]));
    } else if (k === 2) {
      // surrogate pairs and other \u escapes
      const e = r.pick(["\\uD83D\\uDE00", "\\ud83d\\ude00", "\\uD83D", "\\uDE00", "\\uD83D\\u0041", "\\uDE00\\uD83D",
        "\\uD83D\\uDE00\\uD83D\\uDE00", "\\\\uD83D\\uDE00", "\\uD83Dx", "\\U0001F600", "\\u00e9", "\\uD800\\uDC00", "\\uDBFF\\uDFFF"]);
      out.push(key(r) + ': "' + r.pick(["", "a ", "x"]) + e + r.pick(["", " b", "y"]) + '"');
    } else if (k === 3) {
      // `...` and `---` inside values and at the start of lines
      const v = r.pick(["wait...", "Loading... please wait", "a --- b", "...", "---", "a...", "...a", "a ... b", "--- x",
        "x ---", "a...b...c", "....", "- - -", ". . ."]);
      const lead = r.pick(["", "", "", "  "]);
      if (lead) out.push(key(r) + ":");
      out.push(lead + key(r) + ": " + v);
      if (r.chance(0.2)) out.push(r.pick(["...", "---", "... # c", "--- x", "  ...", "  ---"]));
    } else if (k === 4) {
      // a tag or an anchor with no value, then the next line
      const t = r.pick(["!!int", "!!str", "!tag", "!", "&a", "!t &a", "&a !t", "!!null", "!!map", "!!seq"]);
      out.push(key(r) + ": " + t + r.pick(["", " ", "\t", " # c"]));
      out.push(r.pick([key(r) + ": 1", "  " + key(r) + ": 1", "- x", "  - x", "plain", "  plain", "", "# c"]));
    } else if (k === 5) {
      // core-schema numbers and near-numbers
      const v = r.pick(["12e", "+.5", "-.5e2", "-0x1F", "+0x1F", "-0o7", "1-", "1e+", "5.", ".5", "1.e3", "0x", "0o8",
        "-0", "+0", "0.0", "-.inf", "+.inf", ".NaN", "-.nan", "1e400", "0xFFFFFFFFFFFFFFFF", "0x10000000000000000", "1_0", "08"]);
      out.push(key(r) + ": " + v);
    } else {
      // tab-indented block scalar and nested lines
      out.push(key(r) + ": " + r.pick(["|", ">", "|-", ">+"]));
      out.push(r.pick(["  ", "\t", " \t", "  \t"]) + "text");
      if (r.chance(0.5)) out.push(r.pick(["", "\t", "  ", " \t"]));
      if (r.chance(0.5)) out.push(r.pick(["\t" + key(r) + ": 1", key(r) + ": 1", "  more"]));
    }
  }
  return lines(out);
});

// Fixed vectors: SPEC Appendix A.8's YAML texts and the cases the issue names.
const VECTORS = [
  "name: Testing policy\ndescription: Integration tests hit a real DB\ntype: feedback\n",
  "description: crlf desc\ntype: reference\n",
  "description: x\n  ---\ntype: user\n",
  "description: note: has colon space\n",
  "description: [unclosed\n",
  "description:\ntype: user\n",
  "description: - dash\ntype: user\n",
  "description: @x\n",
  "description: `x`\n",
  "description: use C# #tags\n",
  "description: {a, b}\n",
  "description: 42\n",
  "description: [a, b]\n",
  "description: 0\n",
  "a: 1\na: 2\n",
  "description: yes\n",
  "description: on\n",
  "modified: 2026-07-21T13:53:16.297Z\n",
  "description: x\n...\ntype: user\n",
  "description: x\n...\n",
  "description:\tvalue after tab\n",
  "type:\tuser\ndescription:\t\"quoted\"\n",
  "description: a\t# comment\n",
  "description: a\n\t\ntype: user\n",
  "tags:\n-\tx\n-\ty\n",
  "tags: [a,\tb]\n",
  "description: \t42\n",
  "\tdescription: x\n",
  "metadata:\n  type:\tuser\n",
  "description: >-\n\tfolded\n",
  "description: |\n  lit\n\t\n  more\n",
  "name: feedback-blind-fable-bughunt\ndescription: \"When you think you've found a bug, hand it to a fresh subagent\"\nmetadata:\n  node_type: memory\n  type: feedback\n  originSessionId: 14a82ccb-8561-4527-8fab-6175f28bf954\n  modified: 2026-07-21T13:53:16.297Z\n",
  "metadata: \n  type: user\n",
  "just text\n",
  "- a\n",
  "a: 12e\nb: -0x1F\nc: +.5\nd: -.5e2\n",
  "x: &x {m: 1}\n<<: *x\n",
  "a: ...\n",
  "a: !tag x\nb: !tag 42\nc: !t true\nd: !!str 42\ne: !!int \"3\"\n",
  "a: null\nb: Null\nc: NULL\nd: ~\ne:\n",
  "a: true\nb: True\nc: TRUE\nd: false\ne: FALSE\nf: tRUE\n",
  "a: 1e3\nb: .inf\nc: .nan\nd: -.inf\ne: 017\nf: 0o17\ng: 0x1F\nh: inf\ni: nan\nj: infinity\n",
  "a: 1_000\nb: 12:30\nc: 2026-07-21\nd: off\ne: no\n",
  // An ellipsis or a dash run and a space end the document, even inside a value.
  "description: Loading... please wait\ntype: user\n",
  "description: wait...\ntype: user\n",
  "description: wait...\n",
  "description: a --- b\n",
  "metadata:\n  description: wait... more\n",
  "description: x...y\n",
  "description: \"Loading... please wait\"\n",
  // Tabs around the issue's cases.
  "name: n\ndescription:\tvalue\ntype:\tuser\n",
  "name: n\n# comment\n\t\ndescription: x\n",
  "name: n\ndescription: x\n# comment\n\t\ntype: user\n",
  "name: n\ndescription: x # comment\n\t\ntype: user\n",
  "name: n\ndescription: x\n\t\ntype: user\n",
];

// ---------------------------------------------------------------------------
// Claude Code 2.1.332's quote-retry rewrite (its own function, SPEC §2.4.4): quote a
// top-level value holding YAML indicators or `: ` unless it is quoted or a list,
// then turn each leading run of tabs into two spaces per tab.

const RETRY_SPECIAL = /[{}[\]*&#!|>%@`]|: /;
function quoteRetry(text) {
  const out = [];
  for (const line of text.split("\n")) {
    const m = line.match(/^([a-zA-Z_-]+):\s+(\S.*)$/);
    if (m) {
      const [, k, v] = m;
      if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) {
        out.push(line);
        continue;
      }
      if (v.startsWith("[") && v.endsWith("]")) {
        try {
          if (Array.isArray(Bun.YAML.parse(v))) {
            out.push(line);
            continue;
          }
        } catch {}
      }
      if (RETRY_SPECIAL.test(v)) {
        out.push(`${k}: "${v.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`);
        continue;
      }
    }
    out.push(line);
  }
  return out.join("\n").replace(/^\t+/gm, (t) => "  ".repeat(t.length));
}

// ---------------------------------------------------------------------------
// Encoding Bun's result.

function encode(v, stack) {
  if (v === null) return null;
  switch (typeof v) {
    case "string":
    case "boolean":
      return v;
    case "number":
      if (Number.isNaN(v)) return { $number: "NaN" };
      if (v === Infinity) return { $number: "Infinity" };
      if (v === -Infinity) return { $number: "-Infinity" };
      if (Object.is(v, -0)) return { $number: "-0" };
      return v;
    case "object": {
      if (stack.includes(v)) return { $cycle: Array.isArray(v) ? "array" : "object" };
      stack.push(v);
      let out;
      if (Array.isArray(v)) out = v.map((x) => encode(x, stack));
      else {
        out = {};
        for (const k of Object.keys(v)) out[k.startsWith("$") ? "$" + k : k] = encode(v[k], stack);
      }
      stack.pop();
      return out;
    }
    default:
      return { $js: typeof v };
  }
}

// ---------------------------------------------------------------------------

const seen = new Set();
const rows = [];
function add(familyName, text) {
  if (seen.has(text)) return false;
  seen.add(text);
  const row = { family: familyName, text };
  try {
    row.value = encode(Bun.YAML.parse(text), []);
  } catch (e) {
    row.throws = String(e && e.message ? e.message : e);
    // Claude Code's retry (SPEC §2.4.4) on the rewritten text.
    try {
      row.retry = { value: encode(Bun.YAML.parse(quoteRetry(text)), []) };
    } catch (e2) {
      row.retry = { throws: String(e2 && e2.message ? e2.message : e2) };
    }
  }
  rows.push(row);
  return true;
}

// YAML_ORACLE_SEED (default 0, the committed data) draws other texts from the same
// generators: a check on texts the code was not tuned on.
const SEED = Number(process.env.YAML_ORACLE_SEED || 0);
if (SEED === 0) for (const t of VECTORS) add("vectors", t);
for (const f of FAMILIES) {
  const r = rng(f.seed + SEED * 0x9e3779b1);
  let kept = 0;
  for (let tries = 0; kept < f.count && tries < f.count * 50; tries++) {
    if (add(f.name, f.gen(r))) kept++;
  }
  if (kept < f.count) throw new Error(`family ${f.name}: only ${kept} unique texts of ${f.count}`);
}

let out = "";
for (const row of rows) out += JSON.stringify(row) + "\n";
await Bun.write(Bun.stdout, out);
const counts = {};
for (const row of rows) counts[row.family] = (counts[row.family] || 0) + 1;
console.error(`${rows.length} texts: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(", ")}`);
