//! On Linux, what ends a candidate's processes: a *sweep* reads the process table, kills what
//! it reaches, and again, until none of it is alive; then reaps the orphans among them.

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use super::proc_table::{Identity, ProcessTable};
use super::{ADOPTS_ORPHANS, MARKER_PREFIX, MARKER_VARIABLE, registry};

/// How long a sweep waits for what it killed to die: a process in uninterruptible sleep dies
/// only when it wakes, and `tch` goes on without it.
const SWEEP_BOUND: Duration = Duration::from_secs(5);

/// What a sweep kills.
pub(super) enum Reach<'a> {
    /// One candidate: its process, the processes carrying its marker, and all below them.
    Candidate { pid: i32, marker: &'a str },
    /// Every candidate of this process: their processes, every process carrying a marker of
    /// this process, and all below them; after `adopt_orphans`, every process below this one.
    Everything { candidates: &'a [i32] },
}

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
/// alive, or `SWEEP_BOUND` has passed; reaps the orphans among them that died below this
/// process.
pub(super) fn sweep(reach: &Reach) {
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
        let (mut alive, mut unreaped) = (0, 0);
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
            } else if process.parent != me && reached.contains(&process.parent) {
                // Dead below a process of the sweep, which is dead too or soon: it is re-parented
                // to this process (when it adopts orphans), to be reaped in a later round.
                unreaped += 1;
            }
        }
        reap(&table, me, adopts_orphans, &reached_before);
        let done = alive == 0 && (unreaped == 0 || !adopts_orphans);
        if done || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Waits for the zombies below this process that a sweep killed (or, after `adopt_orphans`,
/// every zombie child), except registered candidates, whose `Child` waits for them.
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
