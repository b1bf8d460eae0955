//! The one candidate supervisor, shared by `tch run` (streams and definitions), `tch fuzz` and
//! `tch scale`: it starts candidate processes, checks the first `hello`, replays through a
//! [`Handle`] per job, drops a process after any fault (it ends with every process it started)
//! and starts a new one on next use, counts starts and restarts, and gives up as its
//! [`RestartPolicy`] says.
//!
//! - [`process`]: one candidate process, and the only code that reads a candidate's bytes.
//! - [`reaper`]: starting a candidate, and ending it with every process it started (on Linux,
//!   its `sweep` of the process table, `proc_table`).

pub mod process;
pub mod reaper;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::Value;
use thiserror::Error;

pub use process::{Candidate, Fault, Limits, StartError, Transcript, split_command_line};
pub use reaper::{adopt_orphans, end_every_candidate};

use crate::definitions::Kind;
use crate::dialect::Dialect;
use crate::protocol::{Begin, Hello};

/// When to stop restarting a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestartPolicy {
    /// Restarts (after a crash, hang or garbage) allowed over the whole run; past them, every
    /// replay asked for is [`ReplayError::GaveUp`].
    pub max_restarts: usize,
    /// Starts that fail one after the other before the candidate is taken to no longer start
    /// ([`ReplayError::CannotStart`]).
    pub max_failed_starts: usize,
}

/// Why a replay did not happen.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ReplayError {
    /// The candidate faulted (or could not be restarted): judge it.
    #[error(transparent)]
    Fault(#[from] Fault),
    /// The restarts allowed are used up: nothing more is replayed.
    #[error("the candidate was restarted {0} times")]
    GaveUp(usize),
    /// Starts failed one after the other: the candidate no longer starts.
    #[error("the candidate no longer starts: {0}")]
    CannotStart(Fault),
}

/// Starts and restarts one candidate command.
#[derive(Debug)]
pub struct Supervisor {
    argv: Vec<String>,
    limits: Limits,
    policy: RestartPolicy,
    restarts: AtomicUsize,
    gave_up: AtomicBool,
}

impl Supervisor {
    /// A supervisor of `argv`; nothing is started yet.
    pub fn new(argv: Vec<String>, limits: Limits, policy: RestartPolicy) -> Supervisor {
        Supervisor {
            argv,
            limits,
            policy,
            restarts: AtomicUsize::new(0),
            gave_up: AtomicBool::new(false),
        }
    }

    /// Starts the first process and checks its `hello`: a hello that fails, or that lists
    /// dialect names `tch` does not know, ends everything here.
    pub fn start(&self) -> Result<Handle<'_>, StartError> {
        let candidate = Candidate::start(&self.argv, self.limits)?;
        let unknown: Vec<String> = candidate
            .hello
            .dialects
            .iter()
            .filter(|name| name.parse::<Dialect>().is_err())
            .map(|name| format!("{name:?}"))
            .collect();
        if !unknown.is_empty() {
            return Err(StartError::UnknownDialects {
                unknown: unknown.join(", "),
                known: Dialect::ALL
                    .iter()
                    .map(|d| d.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Ok(Handle {
            hello: candidate.hello.clone(),
            candidate: Some(candidate),
            started: true,
            failed_starts: 0,
            supervisor: self,
        })
    }

    /// Another handle, for another job: it starts its own process on first use (a start,
    /// not a restart). `hello` is the first process's.
    pub fn handle(&self, hello: &Hello) -> Handle<'_> {
        Handle {
            hello: hello.clone(),
            candidate: None,
            started: false,
            failed_starts: 0,
            supervisor: self,
        }
    }

    /// The argv it runs.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// Restarts so far, over every handle.
    pub fn restarts(&self) -> usize {
        self.restarts.load(Ordering::Relaxed)
    }

    /// Whether the restarts allowed are used up.
    pub fn gave_up(&self) -> bool {
        self.gave_up.load(Ordering::Relaxed)
    }
}

/// One job's candidate process, started (again) when needed.
pub struct Handle<'s> {
    supervisor: &'s Supervisor,
    candidate: Option<Candidate>,
    hello: Hello,
    /// Whether this handle has had a process: only later starts are restarts.
    started: bool,
    failed_starts: usize,
}

impl Handle<'_> {
    /// The candidate's `hello` (the first process's).
    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    /// The live process's id; `None` before it starts or after a fault dropped it.
    pub fn process_id(&self) -> Option<u32> {
        self.candidate.as_ref().map(Candidate::process_id)
    }

    /// Replays one stream: `begin`, a `chunk` per chunk, `end`.
    pub fn run_stream(
        &mut self,
        begin: &Begin,
        chunks: &[&str],
    ) -> Result<Transcript, ReplayError> {
        self.run_stream_within(begin, chunks, None)
    }

    /// [`Handle::run_stream`], stopped as a timeout once past `deadline` (`tch scale
    /// --deadline`): the process is dropped like after any fault.
    pub fn run_stream_within(
        &mut self,
        begin: &Begin,
        chunks: &[&str],
        deadline: Option<Instant>,
    ) -> Result<Transcript, ReplayError> {
        let result = self.live()?.run_stream(begin, chunks, deadline);
        self.settle(result)
    }

    /// Replays one stream of `begin.options.n` choices (`specs/protocol.md` P6.7): one
    /// transcript per choice.
    pub fn run_choices(
        &mut self,
        begin: &Begin,
        chunks: &[&str],
    ) -> Result<Vec<Transcript>, ReplayError> {
        let result = self.live()?.run_choices(begin, chunks, None);
        self.settle(result)
    }

    /// Asks for the parser's non-streaming result of the whole reply `text` under `begin`
    /// (`specs/protocol.md` P2.11).
    pub fn run_non_streaming(
        &mut self,
        begin: &Begin,
        text: &str,
    ) -> Result<Transcript, ReplayError> {
        let result = self.live()?.run_non_streaming(begin, text);
        self.settle(result)
    }

    /// Asks for a definition's contract: `Ok(Ok(value))`, or `Ok(Err(errorText))` when the
    /// candidate refuses the definition.
    pub fn definition(
        &mut self,
        kind: Kind,
        text: &str,
    ) -> Result<Result<Value, String>, ReplayError> {
        let result = self.live()?.definition(kind, text);
        self.settle(result)
    }

    /// Says `bye` to the live process, if any.
    pub fn shutdown(mut self) {
        if let Some(candidate) = self.candidate.take() {
            candidate.shutdown();
        }
    }

    /// A fault drops the process: it ends with every process it started, and the next use
    /// starts a new one.
    fn settle<T>(&mut self, result: Result<T, Fault>) -> Result<T, ReplayError> {
        result.map_err(|fault| {
            self.candidate = None;
            ReplayError::Fault(fault)
        })
    }

    /// The live process, (re)started if the last one was dropped.
    fn live(&mut self) -> Result<&mut Candidate, ReplayError> {
        let supervisor = self.supervisor;
        if self.candidate.is_none() {
            if supervisor.gave_up() {
                return Err(ReplayError::GaveUp(supervisor.policy.max_restarts));
            }
            if self.started {
                let restarts = supervisor.restarts.fetch_add(1, Ordering::Relaxed) + 1;
                if restarts > supervisor.policy.max_restarts {
                    supervisor.gave_up.store(true, Ordering::Relaxed);
                    return Err(ReplayError::GaveUp(supervisor.policy.max_restarts));
                }
            }
            self.started = true;
            match Candidate::start(&supervisor.argv, supervisor.limits) {
                Ok(candidate) => {
                    self.failed_starts = 0;
                    self.candidate = Some(candidate);
                }
                Err(error) => {
                    let fault = match error {
                        StartError::Handshake(fault) => fault,
                        error => Fault::Crash {
                            status: error.to_string(),
                            stderr_tail: String::new(),
                        },
                    };
                    self.failed_starts += 1;
                    if self.failed_starts >= supervisor.policy.max_failed_starts {
                        return Err(ReplayError::CannotStart(fault));
                    }
                    return Err(ReplayError::Fault(fault));
                }
            }
        }
        self.candidate
            .as_mut()
            .ok_or(ReplayError::Fault(Fault::Protocol {
                reason: "no candidate".into(),
            }))
    }
}
