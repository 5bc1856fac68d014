//! The full path: yaml-rust2's events over the prepared text, built into values.

use yaml_rust2::parser::{Event, Parser};

use super::anchors::{Anchors, merge};
use super::entries::Entries;
use super::scalar::resolve_scalar;
use super::{Document, Error, MAX_DEPTH, MAX_TEXT_BYTES, Value, prepare};

enum Frame {
    Seq(Vec<Value>, usize),
    Map(Entries, Option<String>, usize),
}

pub(crate) fn parse_events(text: &str) -> Result<Document, Error> {
    // A byte order mark at the start of the stream is not content.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.len() > MAX_TEXT_BYTES {
        return Err(Error::Limit(format!("text longer than {MAX_TEXT_BYTES} bytes")));
    }
    let prepared = prepare::prepare(text)?;
    let names = prepared.anchors;
    let mut parser = Parser::new_from_str(&prepared.text);
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors = Anchors::new(&names);
    let mut documents = 0usize;
    let mut root: Option<Value> = None;
    let mut duplicate_keys = Vec::new();
    loop {
        let (event, _mark) = parser.next_token().map_err(|e| {
            // yaml-rust2 counts flow nesting in a u8: overflowing it is our depth limit.
            if e.info() == "recursion limit exceeded" {
                Error::Limit(format!("nesting deeper than {MAX_DEPTH} levels"))
            } else {
                Error::Syntax(e.to_string())
            }
        })?;
        let value = match event {
            Event::StreamEnd => break,
            Event::DocumentStart => {
                documents += 1;
                continue;
            }
            Event::StreamStart | Event::DocumentEnd | Event::Nothing => continue,
            Event::SequenceStart(anchor, _) => {
                stack.push(Frame::Seq(Vec::new(), anchor));
                ensure_depth(stack.len())?;
                continue;
            }
            Event::MappingStart(anchor, _) => {
                stack.push(Frame::Map(Entries::default(), None, anchor));
                ensure_depth(stack.len())?;
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (value, anchor) = match stack.pop() {
                    Some(Frame::Seq(items, a)) => (Value::Seq(items), a),
                    Some(Frame::Map(entries, _, a)) => (Value::Map(entries.list), a),
                    None => return Err(Error::Syntax("unbalanced collection end".into())),
                };
                anchors.complete(anchor, &value);
                value
            }
            Event::Scalar(raw, style, anchor, tag) => {
                let value = resolve_scalar(raw, style, tag.as_ref());
                anchors.complete(anchor, &value);
                value
            }
            Event::Alias(id) => {
                // An alias inside the node its anchor names (and no complete node of
                // that name before): Bun builds a cyclic object; memctl holds the
                // back-reference as an empty collection of the same kind.
                let open = stack.iter().rev().find_map(|f| match f {
                    Frame::Seq(_, a) if *a == id => Some(Value::Seq(Vec::new())),
                    Frame::Map(_, _, a) if *a == id => Some(Value::Map(Vec::new())),
                    _ => None,
                });
                anchors.alias(id, open)?
            }
        };
        attach(&mut stack, &mut root, &mut duplicate_keys, value);
    }
    Ok(Document {
        root: if documents > 1 {
            None
        } else {
            Some(root.unwrap_or(Value::Null))
        },
        duplicate_keys,
    })
}

/// Put a complete node where it belongs: the root, the next item of the open
/// sequence, or the open mapping's next key or the value of its pending key.
fn attach(stack: &mut [Frame], root: &mut Option<Value>, duplicate_keys: &mut Vec<String>, value: Value) {
    match stack.last_mut() {
        None => {
            if root.is_none() {
                *root = Some(value);
            }
        }
        Some(Frame::Seq(items, _)) => items.push(value),
        Some(Frame::Map(entries, pending, _)) => match pending.take() {
            None => *pending = Some(value.js_string()),
            Some(key) if key == "<<" && matches!(value, Value::Map(_) | Value::Seq(_)) => merge(entries, value),
            Some(key) => {
                if entries.set(key.clone(), value) {
                    duplicate_keys.push(key);
                }
            }
        },
    }
}

fn ensure_depth(depth: usize) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return Err(Error::Limit(format!("nesting deeper than {MAX_DEPTH} levels")));
    }
    Ok(())
}
