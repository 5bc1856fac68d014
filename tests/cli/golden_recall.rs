//! Recall mode against the real client (SPEC v3 §2.13, §2.16): every row of
//! `tests/golden/claude-code-2.1.332/recall.jsonl` (scripts/cc-oracle recall) is a
//! print-mode run with one memory; the client injected MEMORY.md or not. memctl, in
//! the same environment and with the same cached flags, must say recall mode (ML404)
//! exactly when the client did not inject it and sent the manifest instead.

use std::fs;

use serde_json::Value;

use crate::support::Env;

const ROWS: &str = include_str!("../golden/claude-code-2.1.332/recall.jsonl");

#[test]
fn memctl_knows_recall_mode_exactly_when_the_client_injected_no_memory_md() {
    let mut disagreements = Vec::new();
    let rows: Vec<Value> = ROWS.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(rows.len() >= 8, "{} rows", rows.len());
    for row in &rows {
        let mut env = Env::new();
        if let Some(flags) = row["cached_flags"].as_object() {
            let claude = env.home().join(".claude");
            fs::create_dir_all(&claude).unwrap();
            let doc = serde_json::json!({"cachedGrowthBookFeatures": flags});
            fs::write(claude.join(".claude.json"), doc.to_string()).unwrap();
        }
        for (k, v) in row["env"].as_object().unwrap() {
            env = env.env(k, v.as_str().unwrap());
        }
        let doc = env.args(["lint", "--json"]).run().json();
        let recall = doc["findings"].as_array().unwrap().iter().any(|f| f["id"] == "ML404");
        let injected = row["memory_md_injected"].as_bool().unwrap();
        // The client sends the manifest exactly in recall mode (the prompt has a space).
        assert_eq!(row["manifest_sent"].as_bool().unwrap(), !injected, "{row}");
        if recall == injected {
            disagreements.push(format!(
                "{}: client injected={injected}, memctl recall={recall}",
                row["case"]
            ));
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}
