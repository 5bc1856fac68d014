//! `memctl mcp` (SPEC v3 §13): a read-only MCP server over stdio, built on rmcp,
//! the official Rust SDK. Each tool is one of memctl's reading commands
//! ([`tools`]), run as with `--json` into a buffer; the tool result is that JSON
//! document. A command that fails, arguments that do not fit the tool, even a
//! panic, become a tool error (`isError: true`) whose document is memctl's JSON
//! error object; the server keeps serving. Nothing is written: no tool builds a
//! writing command, and history is off for every call.

pub mod tools;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Map, Value};

use crate::cli::Command;
use crate::context::{Context, parse_now};
use crate::error::{Error, Kind};
use crate::output::Output;

/// Longest JSON-RPC message (one line) the server reads: tool arguments are a few
/// short strings, so 1 MiB is far beyond any real call; a longer line is dropped
/// by the transport instead of being buffered without end.
pub const MAX_MESSAGE_BYTES: usize = 1 << 20;

const INSTRUCTIONS: &str = "memctl reads Claude Code's auto memory (~/.claude/projects/<project>/memory/) \
    without changing it. Use `search` to find memories by words (this project, or all_projects), `show` \
    to read one, `list` for the index of this project's memories, `truncate_check` to see what of \
    MEMORY.md Claude Code loads and drops, and `lint` for problems that make memories get lost.";

/// What runs a command: `commands::run`, handed in by `memctl mcp` so that this
/// module stays below the commands that use it.
pub type Runner = fn(&Command, &Context, &mut Output) -> anyhow::Result<ExitCode>;

/// The server: the context `memctl mcp` was started with (its `--dir`,
/// `--project`, `--team`, environment and working directory).
#[derive(Clone)]
pub struct Server {
    ctx: Context,
    runner: Runner,
}

impl Server {
    pub fn new(ctx: &Context, runner: Runner) -> Server {
        Server {
            ctx: Context {
                history: crate::history::Settings::Off,
                ..ctx.clone()
            },
            runner,
        }
    }

    /// Run one tool call to its result (a tool error when it fails).
    pub fn call(&self, name: &str, args: &Map<String, Value>) -> CallToolResult {
        let Some(tool) = tools::find(name) else {
            let names: Vec<&str> = tools::TOOLS.iter().map(|t| t.name).collect();
            return failure(
                &Error::new(
                    Kind::Usage,
                    format!("unknown tool `{}`", crate::output::fit_end(name, 60)),
                )
                .hint(format!("the tools are {}", names.join(", "))),
            );
        };
        let command = match tools::command(tool, args) {
            Ok(c) => c,
            Err(tools::Refused(why)) => {
                return failure(
                    &Error::new(Kind::Usage, why)
                        .hint(format!("see the `{}` tool's input schema in tools/list", tool.name)),
                );
            }
        };
        match catch_unwind(AssertUnwindSafe(|| self.run(&command))) {
            Ok(Ok(doc)) => CallToolResult::structured(doc),
            Ok(Err(e)) => failure(&crate::classify(&e)),
            Err(_) => failure(
                &Error::new(Kind::Internal, format!("internal error in the `{name}` tool"))
                    .hint("this is a bug in memctl; please report it with the tool call"),
            ),
        }
    }

    /// The command's `--json` document, run at this moment's "now".
    fn run(&self, command: &Command) -> anyhow::Result<Value> {
        #[cfg(debug_assertions)]
        if self.ctx.env.get_os("MEMCTL_DEBUG_MCP_PANIC").is_some() {
            panic!("MEMCTL_DEBUG_MCP_PANIC is set");
        }
        let ctx = Context {
            now: parse_now(self.ctx.env.get("MEMCTL_NOW").as_deref())?,
            ..self.ctx.clone()
        };
        let mut out = Output::captured();
        (self.runner)(command, &ctx, &mut out)?;
        let bytes = out.take_captured()?;
        // Every tool's command prints one JSON object with --json; anything else is a
        // bug to report, not a result to pass on (structuredContent must be an object).
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(doc @ Value::Object(_)) => Ok(doc),
            _ => Err(Error::new(Kind::Internal, "the command printed no JSON document")
                .hint("this is a bug in memctl; please report it with the tool call")
                .into()),
        }
    }
}

/// A tool error: memctl's JSON error document (`{"error": {kind, message, hint}}`).
fn failure(e: &Error) -> CallToolResult {
    CallToolResult::structured_error(serde_json::json!({ "error": e }))
}

/// The tools as `tools/list` gives them, each annotated read-only, closed-world.
pub fn tool_list() -> Vec<Tool> {
    tools::TOOLS
        .iter()
        .map(|t| {
            let Value::Object(schema) = (t.schema)() else {
                unreachable!("every schema is an object")
            };
            Tool::new(t.name, t.description, schema)
                .with_title(t.title)
                .with_annotations(
                    ToolAnnotations::with_title(t.title)
                        .read_only(true)
                        .destructive(false)
                        .idempotent(true)
                        .open_world(false),
                )
        })
        .collect()
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("memctl", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tool_list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        Ok(self.call(&request.name, &args).into())
    }
}

/// Serve MCP on stdin/stdout until the client closes stdin.
pub fn serve(ctx: &Context, runner: Runner) -> Result<(), Error> {
    // A panic in a tool call becomes that call's tool error (see `Server::call`);
    // the process-wide hook would end the server, so it only reports here.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("memctl: internal error: {info}");
    }));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::new(Kind::Io, format!("could not start the MCP server: {e}")))?;
    let server = Server::new(ctx, runner);
    let served = runtime.block_on(async move {
        let (stdin, stdout) = rmcp::transport::stdio();
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(stdin, stdout)
            .with_max_line_length(MAX_MESSAGE_BYTES);
        let running = server
            .serve(transport)
            .await
            .map_err(|e| Error::new(Kind::Io, format!("MCP session failed to start: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| Error::new(Kind::Internal, format!("MCP server stopped: {e}")))?;
        Ok(())
    });
    // A read of stdin still pending (the session ended on a closed stdout) must
    // not keep the process alive.
    runtime.shutdown_background();
    served
}
