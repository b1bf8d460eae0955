//! Every descendant ends with its candidate (`specs/runner.md` R1.3, `specs/protocol.md` P1.4).
//!
//! A candidate is started here ([`spawn`]): in a process group of its own, with a marker in its
//! environment ([`MARKER_VARIABLE`], one value per candidate process) that the processes it
//! starts inherit, and registered as live. It is ended here ([`Lineage::end`]) with every process
//! it started.
//!
//! On Linux, [`adopt_orphans`] makes this process a child subreaper: a process whose parent
//! exits is re-parented to it, not to init, so a helper that detached (`setsid`, a double fork)
//! stays below it in the process table ([`super::proc_table`]). Ending a candidate kills, again
//! until none is left alive, every process below the candidate's process or carrying its marker
//! (and everything below those), and reaps the orphans that died below this process.
//! [`end_every_candidate`] (the end of a run, a signal) kills every process below this one, and
//! starts nothing after. Elsewhere only a candidate's process group is killed.
//!
//! Only processes found *this way* are reaped (waited for), never a registered candidate's,
//! whose exit status its [`Child`] waits for: `waitpid(-1)` would steal it. Spawning and
//! reaping hold one lock, so that a candidate that exits at once is registered before any
//! reaping could see it.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rustix::process::{Pid, Signal};

#[cfg(target_os = "linux")]
use super::proc_table::{Identity, ProcessTable};
use super::process::StartError;

/// The environment variable that marks a candidate and every process it starts: its value is
/// unique to one candidate process of one `tch` (`PID.NONCE.SERIAL`).
pub const MARKER_VARIABLE: &str = "TCH_CANDIDATE";

/// How long ending a candidate waits for what it killed to die: a process in uninterruptible
/// sleep dies only when it wakes, and `tch` goes on without it.
const SWEEP_BOUND: Duration = Duration::from_secs(5);

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
/// and every orphan that dies below it is reaped. For a program such as `tch`, called before
/// any process is started; a library user that starts other processes should not call it.
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

/// What a sweep kills.
#[cfg(target_os = "linux")]
enum Reach<'a> {
    /// One candidate: its process, the processes carrying its marker, and all below them.
    Candidate { pid: i32, marker: &'a str },
    /// Every candidate of this process: their processes, every process carrying a marker of
    /// this process, and all below them; after [`adopt_orphans`], every process below this one.
    Everything { candidates: &'a [i32] },
}

#[cfg(target_os = "linux")]
impl Reach<'_> {
    /// The processes of `table` this reaches, by id (`me` is never one).
    fn in_table(&self, table: &ProcessTable, me: i32, adopts_orphans: bool) -> BTreeSet<i32> {
        // Only processes below this one can carry a marker of its candidates when it adopts
        // orphans; without that, a detached helper is anywhere.
        let scope: Vec<Identity> = if adopts_orphans {
            let below = table.descendants_of(me);
            table
                .processes()
                .filter(|process| below.contains(&process.identity.pid))
                .map(|process| process.identity)
                .collect()
        } else {
            table.processes().map(|process| process.identity).collect()
        };
        let marked = |accept: &dyn Fn(&str) -> bool| {
            scope
                .iter()
                .filter(|identity| identity.pid != me)
                .filter(|identity| identity.environment_has(MARKER_VARIABLE, accept) == Some(true))
                .map(|identity| identity.pid)
                .collect::<Vec<i32>>()
        };
        let mut seeds = match self {
            Reach::Candidate { pid, marker } => {
                let mut seeds = marked(&|value| value == *marker);
                seeds.push(*pid);
                seeds
            }
            Reach::Everything { candidates } => {
                let mut seeds = marked(&|value| value.starts_with(MARKER_PREFIX.as_str()));
                seeds.extend_from_slice(candidates);
                if adopts_orphans {
                    seeds.extend(table.descendants_of(me));
                }
                seeds
            }
        };
        seeds.retain(|&pid| pid != me);
        let mut reached = table.with_descendants(seeds);
        reached.remove(&me);
        reached
    }
}

/// Kills what `reach` reaches, and again what it reaches next (what the killed started
/// meanwhile, orphans re-parented), until a reading of the process table finds none of it
/// alive, or [`SWEEP_BOUND`] has passed; reaps the orphans among them that died below this
/// process.
#[cfg(target_os = "linux")]
fn sweep(reach: &Reach) {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let adopts_orphans = ADOPTS_ORPHANS.load(Ordering::SeqCst);
    // What an earlier reading reached stays reached: once its parent is killed, an orphan's
    // place in the tree no longer says whose it was, and a zombie's marker can't be read.
    let mut reached_before: BTreeSet<Identity> = BTreeSet::new();
    let deadline = Instant::now() + SWEEP_BOUND;
    let mut pause = Duration::from_millis(1);
    loop {
        let Ok(table) = ProcessTable::read() else {
            return;
        };
        let reached = reach.in_table(&table, me, adopts_orphans);
        let mut alive = 0;
        for process in table.processes() {
            if !(reached.contains(&process.identity.pid)
                || reached_before.contains(&process.identity))
            {
                continue;
            }
            reached_before.insert(process.identity);
            if !process.zombie {
                alive += 1;
                process.identity.signal(Signal::KILL);
            }
        }
        reap(&table, me, adopts_orphans, &reached_before);
        if alive == 0 || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Waits for the zombies below this process that a sweep killed (or, after [`adopt_orphans`],
/// every zombie child), except registered candidates, whose [`Child`] waits for them.
#[cfg(target_os = "linux")]
fn reap(table: &ProcessTable, me: i32, adopts_orphans: bool, swept: &BTreeSet<Identity>) {
    let registry = registry();
    for process in table.processes() {
        let identity = process.identity;
        if process.parent == me
            && process.zombie
            && !registry.live.contains_key(&identity.pid)
            && (adopts_orphans || swept.contains(&identity))
            && let Some(pid) = Pid::from_raw(identity.pid)
        {
            let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG);
        }
    }
}
