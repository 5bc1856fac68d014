//! Anchors, aliases and `<<` merge keys.

use std::collections::HashMap;

use super::entries::Entries;
use super::{Error, MAX_ALIAS_NODES, Value};

/// The anchored nodes seen so far, and how many nodes alias expansion produced.
pub(super) struct Anchors<'n> {
    /// The name of each anchor, in the order yaml-rust2 numbers them.
    names: &'n [String],
    /// The node of each anchor id.
    anchors: HashMap<usize, Value>,
    /// The last complete node of each anchor name.
    completed: HashMap<&'n str, Value>,
    alias_nodes: usize,
}

impl<'n> Anchors<'n> {
    pub(super) fn new(names: &'n [String]) -> Self {
        Anchors {
            names,
            anchors: HashMap::new(),
            completed: HashMap::new(),
            alias_nodes: 0,
        }
    }

    /// A node is complete; `anchor` is its anchor id, or 0.
    pub(super) fn complete(&mut self, anchor: usize, value: &Value) {
        if anchor > 0 {
            if let Some(name) = self.names.get(anchor - 1) {
                self.completed.insert(name, value.clone());
            }
            self.anchors.insert(anchor, value.clone());
        }
    }

    /// The node an alias to anchor `id` stands for; `open` is the stand-in for
    /// the anchored node when the alias is inside it.
    pub(super) fn alias(&mut self, id: usize, open: Option<Value>) -> Result<Value, Error> {
        // Bun resolves an alias to the last complete node of its name; inside the
        // anchored node itself, with no complete node of that name before, to the
        // node being built (a cycle, which memctl cannot hold: `open`).
        let value = match self.anchors.get(&id) {
            Some(v) => v.clone(),
            // yaml-rust2 points the alias at the anchor being defined; Bun at
            // the last complete node of that name, if any.
            None => self
                .names
                .get(id.wrapping_sub(1))
                .and_then(|name| self.completed.get(name.as_str()))
                .cloned()
                .or(open)
                .ok_or_else(|| Error::Syntax("unresolved alias".into()))?,
        };
        self.alias_nodes += value.node_count();
        if self.alias_nodes > MAX_ALIAS_NODES {
            return Err(Error::Limit(format!("alias expansion beyond {MAX_ALIAS_NODES} nodes")));
        }
        Ok(value)
    }
}

/// A `<<` key whose value is a mapping, or a sequence of mappings, adds the keys
/// the mapping does not have yet, each merged mapping's last key first (Bun
/// 1.3.14 and 1.4.5); a key written later still replaces a merged one.
pub(super) fn merge(entries: &mut Entries, value: Value) {
    let maps = match value {
        Value::Map(m) => vec![m],
        Value::Seq(items) => items
            .into_iter()
            .filter_map(|v| match v {
                Value::Map(m) => Some(m),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    for map in maps {
        for (key, v) in map.into_iter().rev() {
            entries.set_missing(key, v);
        }
    }
}
