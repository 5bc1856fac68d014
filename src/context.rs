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
}

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
        })
    }

    /// Resolve the memory dir (SPEC §2.2).
    pub fn resolve(&self) -> Result<Resolution, Error> {
        paths::resolve(&self.request, &self.env)
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
        ensure_exists(paths::resolve(&main, &self.env)?)
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
