//! CPU time, the clock a series is judged by where Linux shows it (`specs/runner.md` R8.3):
//! the nanoseconds the scheduler ran a process tree, or this thread, from `/proc`.
//!
//! Wall time counts what a loaded machine makes a parser wait for a core; CPU time counts
//! only what it ran, so other work on the machine moves it far less. Each task's figure is
//! the first field of `/proc/PID/task/TID/schedstat` (`sum_exec_runtime`, in nanoseconds,
//! unlike `/proc/PID/stat`'s 10 ms clock ticks). A process's threads are summed, and its
//! children's, found through `/proc/PID/task/TID/children`; on a system without them,
//! nothing is read and callers judge wall time.

use std::fs;
use std::time::Duration;

/// The CPU time the process `pid`, its threads and every descendant alive now have run;
/// `None` when `/proc` does not say (not Linux, or the process is gone).
///
/// A descendant that exits between two readings takes its time with it: a candidate that
/// does its work in short-lived children is under-counted (R8.3 says so).
pub fn process_tree(pid: u32) -> Option<Duration> {
    let mut total = task_group(pid)?;
    let mut pending = children(pid);
    // Guards a cycle that a pid reused mid-walk could make.
    let mut seen = 0usize;
    while let Some(child) = pending.pop() {
        seen += 1;
        if seen > 4096 {
            break;
        }
        if let Some(time) = task_group(child) {
            total += time;
        }
        pending.extend(children(child));
    }
    Some(total)
}

/// The CPU time this thread has run; `None` when `/proc` does not say.
pub fn this_thread() -> Option<Duration> {
    run_time(&fs::read_to_string("/proc/thread-self/schedstat").ok()?)
}

/// Every thread of process `pid`, summed.
fn task_group(pid: u32) -> Option<Duration> {
    let mut total = Duration::ZERO;
    let mut any = false;
    for entry in fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let Ok(entry) = entry else { continue };
        let path = entry.path().join("schedstat");
        if let Some(time) = fs::read_to_string(path).ok().as_deref().and_then(run_time) {
            total += time;
            any = true;
        }
    }
    any.then_some(total)
}

/// The children of every thread of process `pid`.
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|id| id.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

/// A `schedstat` line's first field: nanoseconds run.
fn run_time(schedstat: &str) -> Option<Duration> {
    let nanos = schedstat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schedstat_line_gives_its_run_time() {
        assert_eq!(
            run_time("305779658 356860409 87\n"),
            Some(Duration::from_nanos(305_779_658))
        );
        assert_eq!(run_time(""), None);
        assert_eq!(run_time("x 1 2"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn work_counts_and_a_sleep_does_not() {
        // No clock decides this test: a thread's CPU time grows with its work, and a sleep
        // leaves it nearly where it was, however loaded the machine.
        let before = this_thread().expect("Linux shows schedstat");
        let mut sum = 0u64;
        for i in 0..20_000_000u64 {
            sum = sum.wrapping_add(std::hint::black_box(i) * 3);
        }
        std::hint::black_box(sum);
        let worked = this_thread().expect("still there") - before;
        std::thread::sleep(Duration::from_millis(200));
        let slept = this_thread().expect("still there") - before - worked;
        assert!(worked > Duration::ZERO);
        assert!(slept < Duration::from_millis(100), "{slept:?}");
        let tree = process_tree(std::process::id()).expect("this process");
        assert!(tree >= worked, "{tree:?} {worked:?}");
    }
}
