//! The entries of a mapping being built, with an index of their keys.

use std::collections::HashMap;

use super::Value;

/// A mapping being built: its entries in order, and past a few entries an index
/// of their keys, so that a long mapping takes linear time.
#[derive(Default)]
pub(super) struct Entries {
    pub(super) list: Vec<(String, Value)>,
    index: Option<HashMap<String, usize>>,
}

impl Entries {
    pub(super) fn position(&mut self, key: &str) -> Option<usize> {
        if self.index.is_none() && self.list.len() >= 16 {
            self.index = Some(self.list.iter().enumerate().map(|(i, (k, _))| (k.clone(), i)).collect());
        }
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.list.iter().position(|(k, _)| k == key),
        }
    }

    /// Set `key` to `v`, keeping the key's first place; whether it was there.
    pub(super) fn set(&mut self, key: String, v: Value) -> bool {
        if let Some(i) = self.position(&key) {
            self.list[i].1 = v;
            return true;
        }
        if let Some(index) = &mut self.index {
            index.insert(key.clone(), self.list.len());
        }
        self.list.push((key, v));
        false
    }

    /// Set `key` to `v` unless it is there.
    pub(super) fn set_missing(&mut self, key: String, v: Value) {
        if self.position(&key).is_none() {
            self.set(key, v);
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}
