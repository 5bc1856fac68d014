//! `memctl mcp` (SPEC v3 §13): a JSON-RPC conversation over the server's stdin and
//! stdout, one request at a time (each answer is read before the next request is
//! written, so no test depends on timing). Every tool's result must be the
//! command's own `--json` document, every tool must be marked read-only, a bad
//! call must be a tool error the server survives, and nothing may be written.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use memctl::paths::sanitize::sanitize;
use serde_json::{Value, json};

use crate::support::{Env, write_aged};

/// One running `memctl mcp` and the JSON-RPC ids used so far.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    /// Start `memctl mcp` in `env` and complete the MCP handshake.
    fn start(env: &Env) -> Session {
        Session::start_with_stderr(env, Stdio::inherit())
    }

    /// [`Session::start`] with the server's standard error sent to `stderr`.
    fn start_with_stderr(env: &Env, stderr: Stdio) -> Session {
        let mut cmd = env.command();
        cmd.arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr);
        let mut child = cmd.spawn().expect("memctl mcp starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut s = Session {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let init = s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "memctl-test", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "memctl", "{init}");
        assert!(init["result"]["capabilities"]["tools"].is_object(), "{init}");
        s.send_line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        s
    }

    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Send one request and read lines until its answer (the whole JSON-RPC message).
    #[track_caller]
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_line(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        self.answer(id)
    }

    #[track_caller]
    fn answer(&mut self, id: u64) -> Value {
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).unwrap();
            assert!(n > 0, "memctl mcp closed stdout before answering request {id}");
            let msg: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {line}"));
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    /// `tools/call`: the call's result object.
    #[track_caller]
    fn call(&mut self, tool: &str, args: Value) -> Value {
        let msg = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert!(msg["error"].is_null(), "tools/call {tool} was a protocol error: {msg}");
        let result = msg["result"].clone();
        // The text block carries the same document, for clients that read only text.
        let text = result["content"][0]["text"].as_str().expect("a text block");
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            result["structuredContent"]
        );
        result
    }

    /// Close stdin (the client leaves) and return the exit code.
    fn finish(mut self) -> i32 {
        drop(self.stdin.take());
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut self.stdout, &mut rest);
        assert_eq!(rest, "", "output after the last answer");
        self.child.wait().unwrap().code().unwrap_or(-1)
    }
}

fn key(p: &Path) -> String {
    sanitize(&p.to_string_lossy()).key
}

/// A transcript whose first line names `cwd`, so `memctl projects` knows its path.
fn transcript(home: &Path, cwd: &Path) {
    let p = home
        .join(".claude/projects")
        .join(key(cwd))
        .join("11111111-1111-1111-1111-111111111111.jsonl");
    let line = format!("{{\"cwd\":{:?}}}\n", cwd.display().to_string());
    write_aged(&p, line.as_bytes(), 1.0);
}

/// A home with two projects; the server runs in `src/alpha`. Alpha: a testing
/// memory and an index of 201 lines whose last entry Claude Code drops, and one
/// memory without a description (a lint finding). Beta: a deploy memory.
fn home() -> (Env, PathBuf) {
    let env = Env::new().resolved();
    let home = env.home();
    let alpha = home.join("src/alpha");
    let beta = home.join("src/beta");
    for p in [&alpha, &beta] {
        fs::create_dir_all(p).unwrap();
        transcript(&home, p);
    }
    let a = home.join(".claude/projects").join(key(&alpha)).join("memory");
    let testing = "---\nname: testing\ndescription: run the tests with cargo nextest\ntype: feedback\n---\nAlways run the tests before pushing.\n";
    write_aged(&a.join("testing.md"), testing.as_bytes(), 3.0);
    write_aged(
        &a.join("bare.md"),
        b"---\nname: bare\ntype: user\n---\nNo description here.\n",
        5.0,
    );
    let mut index = String::from("- [testing](testing.md) \u{2014} run the tests with cargo nextest\n");
    for i in 0..199 {
        index.push_str(&format!("- note {i}\n"));
    }
    index.push_str("- [bare](bare.md) \u{2014} the entry past line 200\n");
    write_aged(&a.join("MEMORY.md"), index.as_bytes(), 3.0);
    let b = home.join(".claude/projects").join(key(&beta)).join("memory");
    let deploy =
        "---\nname: beta_deploy\ndescription: how deploys run\ntype: feedback\n---\nDeploy freeze on Fridays.\n";
    write_aged(&b.join("beta_deploy.md"), deploy.as_bytes(), 30.0);
    write_aged(
        &b.join("MEMORY.md"),
        "- [beta_deploy](beta_deploy.md) \u{2014} how deploys run\n".as_bytes(),
        30.0,
    );
    (env.cwd(alpha.clone()), alpha)
}

/// Every file and dir under `root` with its bytes and mtime: what a write would change.
fn tree(root: &Path) -> BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let meta = fs::symlink_metadata(&p).unwrap();
            let bytes = if meta.is_file() {
                fs::read(&p).unwrap()
            } else {
                Vec::new()
            };
            out.insert(p.clone(), (bytes, meta.modified().unwrap()));
            if meta.is_dir() {
                stack.push(p);
            }
        }
    }
    out
}

/// `memctl <args> --json` in the same environment: the document a tool must return.
fn cli_json(env: &Env, args: &[&str]) -> Value {
    let out = env.command().args(args).arg("--json").output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e})"))
}

#[test]
fn every_tool_returns_its_commands_json_and_nothing_is_written() {
    let (env, _alpha) = home();
    let before = tree(&env.root());
    let mut s = Session::start(&env);

    let list = s.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["search", "show", "list", "truncate_check", "lint"]);
    for t in tools {
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{t}");
        assert_eq!(t["annotations"]["destructiveHint"], false, "{t}");
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
    }

    let here = s.call("search", json!({"query": "deploy"}));
    let everywhere = s.call("search", json!({"query": "deploy", "all_projects": true}));
    let tests = s.call("search", json!({"query": "tests", "types": ["feedback"], "limit": 5}));
    let shown = s.call("show", json!({"ref": "testing"}));
    let listed = s.call("list", json!({}));
    let loaded = s.call("truncate_check", json!({}));
    let linted = s.call("lint", json!({}));
    let linted_all = s.call("lint", json!({"all_projects": true, "min_severity": "error"}));
    for r in [
        &here,
        &everywhere,
        &tests,
        &shown,
        &listed,
        &loaded,
        &linted,
        &linted_all,
    ] {
        assert_eq!(r["isError"], false, "{r}");
    }
    assert_eq!(s.finish(), 0);
    // Nothing under the temp root changed: no memory, no index, no history store.
    assert!(tree(&env.root()) == before, "memctl mcp wrote something");

    // What a user of the model sees: this project has no deploy memory, beta has.
    assert_eq!(here["structuredContent"]["results"], json!([]));
    assert_eq!(everywhere["structuredContent"]["results"][0]["name"], "beta_deploy");
    assert_eq!(tests["structuredContent"]["results"][0]["file"], "testing.md");
    assert_eq!(loaded["structuredContent"]["truncated"], true);
    // Each result is exactly the command's --json document.
    let sc = |r: &Value| r["structuredContent"].clone();
    assert_eq!(sc(&here), cli_json(&env, &["search", "deploy"]));
    assert_eq!(sc(&everywhere), cli_json(&env, &["search", "--all-projects", "deploy"]));
    assert_eq!(
        sc(&tests),
        cli_json(&env, &["search", "--type", "feedback", "--limit", "5", "tests"])
    );
    assert_eq!(sc(&shown), cli_json(&env, &["show", "testing"]));
    assert_eq!(sc(&listed), cli_json(&env, &["list"]));
    assert_eq!(sc(&loaded), cli_json(&env, &["truncate-check"]));
    assert_eq!(sc(&linted), cli_json(&env, &["lint"]));
    assert_eq!(
        sc(&linted_all),
        cli_json(&env, &["lint", "--all-projects", "--min-severity", "error"])
    );
}

#[test]
fn bad_calls_are_tool_errors_and_the_server_keeps_serving() {
    let (env, _alpha) = home();
    let mut s = Session::start(&env);
    let error = |r: &Value| r["structuredContent"]["error"].clone();

    let missing = s.call("show", json!({"ref": "no-such-memory"}));
    assert_eq!(missing["isError"], true);
    assert_eq!(error(&missing)["kind"], "not_found");

    let writing = s.call("lint", json!({"fix": true}));
    assert_eq!(writing["isError"], true);
    assert_eq!(
        error(&writing)["message"],
        "lint: unknown argument `fix` (arguments: all_projects, min_severity)"
    );

    let unknown = s.call("forget", json!({"ref": "testing"}));
    assert_eq!(unknown["isError"], true);
    assert_eq!(error(&unknown)["message"], "unknown tool `forget`");
    assert_eq!(
        error(&unknown)["hint"],
        "the tools are search, show, list, truncate_check, lint"
    );

    let oversized = s.call("search", json!({"query": "x".repeat(5000)}));
    assert_eq!(
        error(&oversized)["message"],
        "search: `query` must be at most 1000 characters"
    );

    let wrong_type = s.call("search", json!({"query": ["deploy"]}));
    assert_eq!(error(&wrong_type)["message"], "search: `query` must be a string");

    // A line that is not JSON, and one over the 1 MiB message bound, are dropped;
    // the next request is still answered.
    s.send_line("this is not JSON-RPC");
    s.send_line(&format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":999,\"method\":\"tools/call\",\"params\":{{\"name\":\"search\",\"arguments\":{{\"query\":\"{}\"}}}}}}",
        "y".repeat(2 << 20)
    ));
    let after = s.call("show", json!({"ref": "testing.md"}));
    assert_eq!(after["isError"], false, "{after}");
    assert_eq!(after["structuredContent"]["name"], "testing");
    assert_eq!(s.finish(), 0);
}

/// A panic inside a tool is that call's tool error; the server does not exit, and its
/// standard error names the panic once per call (for the client's MCP log).
#[cfg(debug_assertions)]
#[test]
fn a_panicking_tool_is_a_tool_error() {
    let (env, _alpha) = home();
    let env = env.env("MEMCTL_DEBUG_MCP_PANIC", "1");
    let log = env.root().join("mcp-stderr.log");
    let mut s = Session::start_with_stderr(&env, Stdio::from(fs::File::create(&log).unwrap()));
    for _ in 0..2 {
        let r = s.call("list", json!({}));
        assert_eq!(r["isError"], true, "{r}");
        assert_eq!(r["structuredContent"]["error"]["kind"], "internal");
    }
    assert_eq!(s.finish(), 0);
    let stderr = fs::read_to_string(&log).unwrap();
    assert_eq!(
        stderr.matches("memctl: internal error: panicked at").count(),
        2,
        "{stderr}"
    );
}

/// What the shipped client 2.1.332 did with `memctl mcp`, registered both ways
/// (`claude mcp add`, the plugin's `.mcp.json`): scripts/cc-oracle mcp.
const GOLDEN: &str = include_str!("../golden/claude-code-2.1.332/mcp.jsonl");

/// `observed` holds every key of `expected` with the same value (memctl may add
/// fields to a document; the ones the client delivered must not change).
#[track_caller]
fn holds(expected: &Value, observed: &Value, what: &str) {
    match (expected, observed) {
        (Value::Object(e), Value::Object(o)) => {
            for (k, v) in e {
                let got = o
                    .get(k)
                    .unwrap_or_else(|| panic!("{what}: memctl no longer gives `{k}`"));
                holds(v, got, &format!("{what}.{k}"));
            }
        }
        _ => assert_eq!(expected, observed, "{what}"),
    }
}

/// The client offers the model every tool under its own prefix, with memctl's
/// description and input schema unchanged, and hands the model each call's text
/// (and its error flag) as memctl serves it now.
#[test]
fn the_real_client_gets_the_tools_and_results_memctl_serves() {
    let rows: Vec<Value> = GOLDEN.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 8, "two registrations, each a tools row and three calls");
    let env = Env::new();
    let mut s = Session::start(&env);
    let served = s.request("tools/list", json!({}))["result"]["tools"].clone();
    let served: Vec<&Value> = served.as_array().unwrap().iter().collect();
    assert_eq!(s.finish(), 0);
    for row in rows.iter().filter(|r| r["kind"] == "tools") {
        let prefix = match row["registration"].as_str() {
            Some("mcp add") => "mcp__memctl__",
            _ => "mcp__plugin_memctl_memctl__",
        };
        let all: Vec<String> = served
            .iter()
            .map(|t| format!("{prefix}{}", t["name"].as_str().unwrap()))
            .collect();
        let mut all_sorted = all.clone();
        all_sorted.sort();
        assert_eq!(row["deferred"], json!(all_sorted), "the client lists every tool");
        for d in row["definitions"].as_array().unwrap() {
            let name = d["name"].as_str().unwrap().strip_prefix(prefix).unwrap();
            let tool = served.iter().find(|t| t["name"] == name).expect("a served tool");
            assert_eq!(d["description"], tool["description"], "{name}");
            assert_eq!(d["input_schema"], tool["inputSchema"], "{name}");
        }
    }
    for row in rows.iter().filter(|r| r["kind"] == "call") {
        let mut env = Env::new();
        for (file, text) in row["memory"].as_object().unwrap() {
            env = env.memory(file, text.as_str().unwrap());
        }
        let tool = row["tool"].as_str().unwrap().rsplit("__").next().unwrap().to_string();
        let mut s = Session::start(&env);
        let result = s.call(&tool, row["input"].clone());
        assert_eq!(s.finish(), 0);
        let observed = row["result"].as_str().unwrap().replace("$MEMDIR/", &env.dir_shown());
        let observed: Value = serde_json::from_str(&observed).unwrap();
        holds(
            &observed,
            &result["structuredContent"],
            &format!("{tool} ({})", row["registration"]),
        );
        assert_eq!(row["is_error"], result["isError"], "{tool}");
    }
}
