//! The YAML oracle (SPEC §2.4.3): `tests/data/yaml-oracle.jsonl` holds generated
//! frontmatter texts and what `Bun.YAML.parse` of Bun 1.4.5 gave for each (Claude
//! Code 2.1.332 runs Bun 1.4.6, which is not published; `scripts/yaml-oracle`
//! regenerates the data).
//! memctl's first parse (`yaml::parse`, the one before any quote-retry) must agree
//! with every row: where Bun throws, the parse fails; where Bun returns a value, the
//! parse succeeds with the same value as JavaScript sees it (numbers by value, NaN
//! equal to NaN and −0 told from 0, mapping keys in JavaScript's property order); a
//! multi-document stream, which memctl does not model, only needs Bun's result to be
//! no mapping.

use serde_json::Value as J;

use super::{Error, Value, parse, parse_events};

const DATA: &str = include_str!("../../tests/data/yaml-oracle.jsonl");

/// Rows where memctl cannot agree with Bun, each listed in the README's "Where
/// memctl and Bun differ" with the reason: (the row's text, why).
const KNOWN: &[(&str, &str)] = &[(
    "node_type: &x1\n  p: 1\n  q: *x1\n<<: *x1\n",
    "a merge key over a node that holds an alias to itself: Bun's merged `q` is that \
     node (a cycle one level down), memctl's the empty stand-in it holds for the cycle",
)];

struct Row {
    family: String,
    text: String,
    /// Bun's value, or `None` when it threw.
    value: Option<Value>,
    message: Option<String>,
    /// Where Bun threw: what it gives for Claude Code's quote-retry rewrite of the
    /// text (SPEC §2.4.4), `None` when that throws too.
    retry: Option<Option<Value>>,
}

fn rows() -> Vec<Row> {
    // MEMCTL_ORACLE_FILE points the test at other rows (scripts/yaml-oracle OUT).
    let data = std::env::var("MEMCTL_ORACLE_FILE").map_or_else(
        |_| DATA.to_string(),
        |p| std::fs::read_to_string(p).expect("MEMCTL_ORACLE_FILE"),
    );
    data.lines()
        .enumerate()
        .map(|(i, line)| {
            let j: J = serde_json::from_str(line).unwrap_or_else(|e| panic!("row {}: {e}", i + 1));
            let field = |k: &str| j.get(k).and_then(J::as_str).map(str::to_string);
            Row {
                family: field("family").expect("family"),
                text: field("text").expect("text"),
                value: j
                    .get("value")
                    .map(|v| decode(v).unwrap_or_else(|e| panic!("row {}: {e}", i + 1))),
                message: field("throws"),
                retry: j.get("retry").map(|r| {
                    r.get("value")
                        .map(|v| decode(v).unwrap_or_else(|e| panic!("row {}: {e}", i + 1)))
                }),
            }
        })
        .collect()
}

/// Bun's JSON (see scripts/yaml-oracle.js for the `$` forms) back into a [`Value`].
fn decode(j: &J) -> Result<Value, String> {
    Ok(match j {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => Value::Number(n.as_f64().ok_or("number")?),
        J::String(s) => Value::String(s.clone()),
        J::Array(items) => Value::Seq(items.iter().map(decode).collect::<Result<_, _>>()?),
        J::Object(map) => {
            if let Some(J::String(n)) = map.get("$number") {
                return Ok(Value::Number(match n.as_str() {
                    "NaN" => f64::NAN,
                    "Infinity" => f64::INFINITY,
                    "-Infinity" => f64::NEG_INFINITY,
                    "-0" => -0.0,
                    other => return Err(format!("unknown $number {other}")),
                }));
            }
            // A node met again inside itself: memctl holds it as an empty
            // collection of its kind (see events.rs).
            match map.get("$cycle").and_then(J::as_str) {
                Some("array") => return Ok(Value::Seq(Vec::new())),
                Some("object") => return Ok(Value::Map(Vec::new())),
                Some(other) => return Err(format!("unknown $cycle {other}")),
                None => {}
            }
            if map.keys().any(|k| k.starts_with('$') && !k.starts_with("$$")) {
                return Err(format!("a JS value memctl cannot hold: {j}"));
            }
            let entries = map
                .iter()
                .map(|(k, v)| Ok((k.strip_prefix('$').unwrap_or(k).to_string(), decode(v)?)))
                .collect::<Result<_, String>>()?;
            Value::Map(entries)
        }
    })
}

/// A canonical array index (`0`, `17`, not `017`) below 2³² − 1: JavaScript lists
/// these keys of an object first, in ascending order.
fn array_index(k: &str) -> Option<u32> {
    if k.is_empty() || (k.len() > 1 && k.starts_with('0')) || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    k.parse::<u32>().ok().filter(|n| *n != u32::MAX)
}

/// `v` with every mapping's keys in JavaScript's property order.
fn js_order(v: &Value) -> Value {
    match v {
        Value::Seq(items) => Value::Seq(items.iter().map(js_order).collect()),
        Value::Map(entries) => {
            let mut indexed: Vec<(u32, &(String, Value))> = entries
                .iter()
                .filter_map(|e| array_index(&e.0).map(|n| (n, e)))
                .collect();
            indexed.sort_by_key(|(n, _)| *n);
            let rest = entries.iter().filter(|e| array_index(&e.0).is_none());
            Value::Map(
                indexed
                    .into_iter()
                    .map(|(_, e)| e)
                    .chain(rest)
                    .map(|(k, v)| (k.clone(), js_order(v)))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

/// JavaScript's `Object.is` on numbers, structural equality elsewhere.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (Value::Seq(x), Value::Seq(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        _ => a == b,
    }
}

/// Why memctl's first parse of `row.text` disagrees with Bun, if it does.
fn disagreement(row: &Row) -> Option<String> {
    let ours = parse(&row.text);
    // The fast path must never change a result: check the full parser says the same.
    let full = parse_events(&row.text);
    let agree = match (&ours, &full) {
        (Ok(a), Ok(b)) => {
            a.duplicate_keys == b.duplicate_keys
                && match (&a.root, &b.root) {
                    (Some(x), Some(y)) => same(x, y),
                    (x, y) => x == y,
                }
        }
        (Err(a), Err(b)) => a == b,
        _ => false,
    };
    if !agree {
        return Some(format!("fast path {ours:?} but full parser {full:?}"));
    }
    if let Some(retry) = &row.retry
        && let Some(why) = retry_disagreement(&row.text, retry.as_ref())
    {
        return Some(why);
    }
    match (&row.value, ours) {
        (None, Ok(doc)) => Some(format!(
            "Bun throws ({}), memctl parses {:?}",
            row.message.as_deref().unwrap_or(""),
            doc.root
        )),
        (None, Err(_)) => None,
        (Some(_), Err(e)) => Some(format!("Bun parses, memctl fails: {e}")),
        (Some(bun), Ok(doc)) => match doc.root {
            None if matches!(bun, Value::Map(_)) => Some("Bun gives a mapping, memctl a multi-document stream".into()),
            None => None,
            Some(v) => {
                let v = js_order(&v);
                (!same(&v, bun)).then(|| format!("Bun {bun:?}, memctl {v:?}"))
            }
        },
    }
}

/// Why memctl's parse of the quote-retry rewrite of `text` disagrees with Bun's
/// (`bun` is `None` when Bun threw), if it does.
fn retry_disagreement(text: &str, bun: Option<&Value>) -> Option<String> {
    let rewritten = crate::frontmatter::quote_retry(text);
    match (bun, parse(&rewritten)) {
        (None, Ok(doc)) => Some(format!("the retry: Bun throws, memctl parses {:?}", doc.root)),
        (None, Err(_)) => None,
        // memctl's own limits make the retry fail where Bun's parse succeeds.
        (Some(_), Err(Error::Limit(_))) => None,
        (Some(_), Err(e)) => Some(format!("the retry: Bun parses, memctl fails: {e}")),
        (Some(bun), Ok(doc)) => match doc.root {
            None if matches!(bun, Value::Map(_)) => Some("the retry: Bun gives a mapping".into()),
            None => None,
            Some(v) => {
                let v = js_order(&v);
                (!same(&v, bun)).then(|| format!("the retry: Bun {bun:?}, memctl {v:?}"))
            }
        },
    }
}

#[test]
fn oracle() {
    let rows = rows();
    assert!(rows.len() >= 3000, "the oracle holds {} rows", rows.len());
    let mut unexpected = Vec::new();
    let mut known_seen = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let known = KNOWN.iter().any(|(t, _)| *t == row.text);
        match disagreement(row) {
            Some(why) if !known => unexpected.push(format!("row {} [{}] {:?}: {why}", i + 1, row.family, row.text)),
            Some(_) => known_seen.push(row.text.as_str()),
            None if known => unexpected.push(format!("row {} {:?} is listed as known but agrees", i + 1, row.text)),
            None => {}
        }
    }
    for (t, _) in KNOWN {
        if !rows.iter().any(|r| r.text == *t) {
            unexpected.push(format!("known disagreement {t:?} is in no row"));
        }
    }
    if !unexpected.is_empty() {
        let limit = std::env::var("MEMCTL_ORACLE_SHOW")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(60);
        let shown = unexpected.iter().take(limit).cloned().collect::<Vec<_>>().join("\n");
        panic!("{} rows disagree with Bun:\n{shown}", unexpected.len());
    }
}
