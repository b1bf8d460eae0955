//! Every descendant ends with its candidate (`specs/runner.md` R1.3, `specs/protocol.md` P1.4).
//!
//! A candidate is started here (`spawn`): in a process group of its own, with a marker in its
//! environment ([`MARKER_VARIABLE`], one value per candidate process) that the processes it
//! starts inherit, and registered as live. It is ended here (`Lineage::end`) with every process
//! it started.
//!
//! On Linux, [`adopt_orphans`] makes this process a child subreaper: a process whose parent
//! exits is re-parented to it, not to init, so a helper that detached (`setsid`, a double fork)
//! stays below it in the process table (`proc_table`). Ending a candidate kills, again
//! until none is left alive, every process below the candidate's process or carrying its marker
//! (and everything below those), and reaps the orphans that died below this process.
//! [`end_every_candidate`] (the end of a run, a signal) kills every process below this one, and
//! starts nothing after (`sweep`). Elsewhere only a candidate's process group is killed.
//!
//! A live candidate is never reaped here: its [`Child`] waits for its exit status, which
//! `waitpid(-1)` would steal. Only a zombie a sweep killed is, or, after [`adopt_orphans`], any
//! orphan re-parented to this process. Spawning and reaping hold one lock, so that a candidate
//! that exits at once is registered before any reaping could see it.

#[cfg(target_os = "linux")]
mod proc_table;
#[cfg(target_os = "linux")]
mod sweep;

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
#[cfg(target_os = "linux")]
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use rustix::process::{Pid, Signal};

use super::process::StartError;
#[cfg(target_os = "linux")]
use sweep::{Reach, sweep};

/// The environment variable that marks a candidate and every process it starts: its value is
/// unique to one candidate process of one `tch` (`PID.NONCE.SERIAL`).
pub const MARKER_VARIABLE: &str = "TCH_CANDIDATE";

/// The candidates alive, and whether this process is ending.
struct Registry {
    /// Each live candidate's process id, with its marker.
    live: BTreeMap<i32, String>,
    /// Candidates started so far: the last part of each marker.
    started: u64,
    /// Set by [`end_every_candidate`]: nothing is started after.
    ending: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: BTreeMap::new(),
    started: 0,
    ending: false,
});

/// Whether this process declared itself the owner of its orphans ([`adopt_orphans`]).
#[cfg(target_os = "linux")]
static ADOPTS_ORPHANS: AtomicBool = AtomicBool::new(false);

/// The first two parts of every marker of this process: its id, and a nonce that tells it from
/// an earlier process that had the same id.
static MARKER_PREFIX: LazyLock<String> = LazyLock::new(|| {
    let nonce = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    format!("{}.{nonce:x}.", std::process::id())
});

fn registry() -> MutexGuard<'static, Registry> {
    // A panic elsewhere while it was held leaves the registry as consistent as it was: keep
    // using it, or nothing would be ended.
    REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Makes this process a child subreaper (Linux: `prctl(PR_SET_CHILD_SUBREAPER)`), so that every
/// process its candidates start stays below it however it detaches, and declares that it
/// starts nothing but candidates: [`end_every_candidate`] then kills *every* process below it,
/// and ending a candidate reaps every orphan that died below it by then, not only those it
/// killed. For a program such as `tch`, called before any process is started; a library user
/// that starts other processes should not call it.
///
/// An error (not Linux, or the call refused) leaves candidates ended by their marker (on Linux)
/// and their process group.
pub fn adopt_orphans() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        rustix::process::set_child_subreaper(Some(rustix::process::getpid()))?;
        ADOPTS_ORPHANS.store(true, Ordering::SeqCst);
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
    }
}

/// A started candidate process: what ends it and everything it started.
#[derive(Debug)]
pub(crate) struct Lineage {
    pid: i32,
    // Read by the sweep, which only Linux has.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    marker: String,
}

/// Starts `command` as a candidate: in a process group of its own, marked, registered.
/// Refused once [`end_every_candidate`] has run.
pub(crate) fn spawn(command: &mut Command, program: &str) -> Result<(Child, Lineage), StartError> {
    let mut registry = registry();
    if registry.ending {
        return Err(StartError::Ending);
    }
    registry.started += 1;
    let marker = format!("{}{}", *MARKER_PREFIX, registry.started);
    let child = command
        .env(MARKER_VARIABLE, &marker)
        .process_group(0)
        .spawn()
        .map_err(|error| StartError::Spawn {
            program: program.to_owned(),
            error,
        })?;
    let pid = Pid::from_child(&child).as_raw_nonzero().get();
    registry.live.insert(pid, marker.clone());
    Ok((child, Lineage { pid, marker }))
}

impl Lineage {
    /// Ends the candidate `child` and every process it started, and waits for it.
    pub(crate) fn end(self, child: &mut Child) {
        // While the candidate still runs, its descendants that kept their parents are found
        // below it; so the process table is read before anything is killed.
        #[cfg(target_os = "linux")]
        sweep(&Reach::Candidate {
            pid: self.pid,
            marker: &self.marker,
        });
        // Its group, for systems without a process table (and whatever the sweep could not
        // read). The candidate is not reaped yet, so its id, and its group's, are still its own.
        if let Some(group) = Pid::from_raw(self.pid) {
            let _ = rustix::process::kill_process_group(group, Signal::KILL);
        }
        let _ = child.kill();
        let _ = child.wait();
        registry().live.remove(&self.pid);
    }
}

/// Ends every candidate and every process they started, and starts none after: for the end of
/// `tch`'s commands and its signal handler (the candidates run in groups of their own, which
/// the terminal's signal does not reach). After [`adopt_orphans`], every process below this one
/// is killed, marked or not.
pub fn end_every_candidate() {
    let candidates: Vec<i32> = {
        let mut registry = registry();
        registry.ending = true;
        if registry.started == 0 {
            // Nothing below this process is a candidate's (`tch parse`, `tch serve`).
            return;
        }
        registry.live.keys().copied().collect()
    };
    #[cfg(target_os = "linux")]
    sweep(&Reach::Everything {
        candidates: &candidates,
    });
    for pid in candidates.into_iter().filter_map(Pid::from_raw) {
        let _ = rustix::process::kill_process_group(pid, Signal::KILL);
    }
}
