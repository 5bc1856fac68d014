//! What the global options resolve to: the request, the environment snapshot and
//! "now" (`MEMCTL_NOW` or the clock).

use chrono::{DateTime, Utc};

use crate::cli::Cli;
use crate::error::{Error, Kind};
use crate::paths::{self, Env, Request, Resolution};

#[derive(Clone)]
pub struct Context {
    pub request: Request,
    pub env: Env,
    pub now: DateTime<Utc>,
    /// Whether history is on and where its stores live (SPEC §8.1).
    pub history: crate::history::Settings,
    /// Whether the current directory may choose the memory dir (SPEC v3 §3.14,
    /// "Inside a memory dir"): every command but `hook`.
    pub from_cwd: bool,
}

/// "using the memory dir you are in" is said once per run.
static ANNOUNCED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl Context {
    pub fn from_cli(cli: &Cli) -> Result<Context, Error> {
        let env = Env::from_process()?;
        let now = parse_now(env.get("MEMCTL_NOW").as_deref())?;
        let history = crate::history::Settings::from_env(&env, cli.no_history);
        Ok(Context {
            request: Request {
                dir: cli.dir.clone(),
                project: cli.project.clone(),
                team: cli.team,
            },
            env,
            now,
            history,
            from_cwd: !matches!(cli.command, crate::cli::Command::Hook(_)),
        })
    }

    /// Resolve the memory dir (SPEC §2.2).
    pub fn resolve(&self) -> Result<Resolution, Error> {
        self.resolve_request(&self.request)
    }

    /// The memory dir the current directory is inside, when it chooses the dir:
    /// no `--dir`, `MEMCTL_DIR` or `--project` and not `hook` (SPEC v3 §3.14).
    pub fn inside(&self) -> Option<std::path::PathBuf> {
        let named = req_names_dir(&self.request, &self.env);
        (self.from_cwd && !named)
            .then(|| paths::memory_dir_around(&self.env))
            .flatten()
    }

    /// Resolve `req`; inside a memory dir (see [`Context::inside`]) that dir is
    /// used as `--dir` would be, and stderr says so once.
    fn resolve_request(&self, req: &Request) -> Result<Resolution, Error> {
        if !self.from_cwd || req_names_dir(req, &self.env) {
            return paths::resolve(req, &self.env);
        }
        if let Some(dir) = paths::memory_dir_around(&self.env) {
            let mut res = paths::resolve(
                &Request {
                    dir: Some(dir.into_os_string()),
                    ..req.clone()
                },
                &self.env,
            )?;
            res.source = paths::DirSource::InsideDir;
            announce(res.memdir.main());
            return Ok(res);
        }
        // Inside the dir that resolution gives (an `autoMemoryDirectory`, say): the
        // same dir, said once.
        let res = paths::resolve(req, &self.env)?;
        if paths::cwd_inside(&self.env, res.memdir.main()) {
            announce(res.memdir.main());
        }
        Ok(res)
    }

    /// Resolve, and require an explicit dir (`--dir`/`MEMCTL_DIR`) to exist.
    pub fn resolve_existing(&self) -> Result<Resolution, Error> {
        ensure_exists(self.resolve()?)
    }

    /// [`Context::resolve_existing`] as if `--team` were absent: the main memory dir,
    /// for the commands that always work on it (`dream`, `lock`).
    pub fn resolve_main_existing(&self) -> Result<Resolution, Error> {
        let main = Request {
            team: false,
            ..self.request.clone()
        };
        ensure_exists(self.resolve_request(&main)?)
    }

    /// What a write command records in history: its trigger name and the settings.
    pub fn recording(&self, command: &'static str, res: &Resolution) -> crate::store::Recording {
        crate::store::Recording {
            settings: self.history.clone(),
            command,
            project: res
                .project
                .as_ref()
                .map(|p| std::path::PathBuf::from(&p.canonical_root)),
        }
    }

    pub fn now_ms(&self) -> f64 {
        crate::text::millis(self.now)
    }
}

/// Whether `req` or the environment names the memory dir or the project.
fn req_names_dir(req: &Request, env: &paths::Env) -> bool {
    req.dir.is_some() || req.project.is_some() || env.get_os("MEMCTL_DIR").is_some_and(|d| !d.is_empty())
}

fn announce(dir: &std::path::Path) {
    if !ANNOUNCED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        let text = format!("memctl: using the memory dir you are in: {}\n", paths::with_sep(dir));
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), text.as_bytes());
    }
}

/// Require an explicit dir (`--dir`/`MEMCTL_DIR`) to exist.
fn ensure_exists(res: Resolution) -> Result<Resolution, Error> {
    if res.explicit && !res.memdir.main().is_dir() {
        let flag = if res.source == paths::DirSource::DirFlag {
            "--dir"
        } else {
            "MEMCTL_DIR"
        };
        if res.memdir.main().exists() {
            return Err(Error::new(
                Kind::InvalidInput,
                format!("not a directory: {}", res.memdir.main().display()),
            )
            .hint(format!("{flag} must name a memory directory, not a file")));
        }
        return Err(Error::new(
            Kind::NotFound,
            format!("memory dir does not exist: {}", paths::with_sep(res.memdir.main())),
        )
        .hint(format!(
            "check the path given to {flag}, or run `memctl path` to see the resolved dir"
        )));
    }
    Ok(res)
}

/// `MEMCTL_NOW` in RFC 3339 form, or the system clock.
pub fn parse_now(value: Option<&str>) -> Result<DateTime<Utc>, Error> {
    match value {
        None => Ok(Utc::now()),
        Some(v) => DateTime::parse_from_rfc3339(v.trim())
            .map(|t| t.with_timezone(&Utc))
            .map_err(|_| {
                Error::new(Kind::InvalidInput, format!("MEMCTL_NOW is not an RFC 3339 time: `{v}`"))
                    .hint("set MEMCTL_NOW like 2026-03-10T12:00:00Z, or unset it")
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memctl_now_parses_rfc3339() {
        assert_eq!(
            crate::text::iso(parse_now(Some("2026-03-10T12:00:00Z")).unwrap()),
            "2026-03-10T12:00:00.000Z"
        );
        assert_eq!(
            crate::text::iso(parse_now(Some("2026-03-10T13:00:00+01:00")).unwrap()),
            "2026-03-10T12:00:00.000Z"
        );
        assert_eq!(parse_now(Some("yesterday")).unwrap_err().kind, Kind::InvalidInput);
    }
}
