//! The process table as Linux's `/proc` shows it at one moment: each process's id, parent,
//! state and start time, the processes below a set of others, and the candidate marker in a
//! process's environment. The reaper's sweep reads it to find what a candidate started.
//!
//! A snapshot goes stale as soon as it is read: a process may exit and its id be taken by
//! another. So a process is named by its id *and* its start time ([`Identity`]), which no two
//! processes share, and [`Identity::signal`] checks that the id still names that process
//! before it signals it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;

use rustix::process::{Pid, Signal};

/// A process, as one process id and the time it started (in clock ticks since boot): unlike a
/// process id, never given to another process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Identity {
    /// The process id.
    pub(super) pid: i32,
    /// Its start time (`/proc/PID/stat`'s 22nd field).
    pub(super) start_time: u64,
}

/// One line of the table.
#[derive(Debug, Clone, Copy)]
pub(super) struct Process {
    /// Which process.
    pub(super) identity: Identity,
    /// Its parent's id (0 for the kernel's own).
    pub(super) parent: i32,
    /// A zombie has exited and waits for its parent to reap it: it runs nothing.
    pub(super) zombie: bool,
}

/// Every process `/proc` lists (thread group leaders: a process's threads are not listed).
#[derive(Debug, Default)]
pub(super) struct ProcessTable {
    processes: BTreeMap<i32, Process>,
    children: BTreeMap<i32, Vec<i32>>,
}

impl ProcessTable {
    /// Reads `/proc`; a process that exits while it is read is left out.
    pub(super) fn read() -> io::Result<ProcessTable> {
        let mut table = ProcessTable::default();
        for entry in fs::read_dir("/proc")? {
            let Some(pid) = entry?
                .file_name()
                .to_str()
                .and_then(|name| name.parse::<i32>().ok())
            else {
                continue;
            };
            if let Some(process) = read_process(pid) {
                table.processes.insert(pid, process);
                table.children.entry(process.parent).or_default().push(pid);
            }
        }
        Ok(table)
    }

    /// Every process, by id.
    pub(super) fn processes(&self) -> impl Iterator<Item = &Process> {
        self.processes.values()
    }

    /// The processes in `seeds` and every process below one of them, by id.
    pub(super) fn with_descendants(&self, seeds: impl IntoIterator<Item = i32>) -> BTreeSet<i32> {
        let mut found = BTreeSet::new();
        let mut next: Vec<i32> = seeds.into_iter().collect();
        while let Some(pid) = next.pop() {
            if self.processes.contains_key(&pid) && found.insert(pid) {
                next.extend(self.children.get(&pid).into_iter().flatten());
            }
        }
        found
    }

    /// Every process below `ancestor` (not `ancestor` itself), by id.
    pub(super) fn descendants_of(&self, ancestor: i32) -> BTreeSet<i32> {
        self.with_descendants(self.children.get(&ancestor).into_iter().flatten().copied())
    }
}

/// `/proc/PID/stat`: `PID (COMM) STATE PPID …`, where COMM may hold spaces and parentheses, so
/// the fields are counted from its last `)`.
fn read_process(pid: i32) -> Option<Process> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat
        .get(stat.rfind(')')? + 1..)?
        .split_whitespace()
        .collect();
    // Field 3 of proc(5) is fields[0].
    let field = |number: usize| fields.get(number - 3).copied();
    Some(Process {
        identity: Identity {
            pid,
            start_time: field(22)?.parse().ok()?,
        },
        parent: field(4)?.parse().ok()?,
        zombie: field(3)? == "Z",
    })
}

impl Identity {
    /// Whether the process id still names this process (it may have exited, and its id been
    /// taken by another).
    fn is_current(self) -> bool {
        read_process(self.pid).is_some_and(|process| process.identity == self)
    }

    /// Sends `signal` to this process, if it still runs: through a pidfd, which names the
    /// process itself, checked after it is opened (so that a process id taken by another
    /// process since the table was read is never signalled); with `kill` where pidfds do not
    /// exist (Linux before 5.3), checked just before.
    pub(super) fn signal(self, signal: Signal) {
        let Some(pid) = Pid::from_raw(self.pid) else {
            return;
        };
        match rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()) {
            Ok(pidfd) => {
                if self.is_current() {
                    let _ = rustix::process::pidfd_send_signal(&pidfd, signal);
                }
            }
            Err(rustix::io::Errno::NOSYS) => {
                if self.is_current() {
                    let _ = rustix::process::kill_process(pid, signal);
                }
            }
            // Exited (ESRCH), or not ours to open.
            Err(_) => {}
        }
    }

    /// Whether this process's environment carries `variable` with a value that `accept`s.
    /// `None` when it cannot be read: a zombie has no environment left, and a non-dumpable
    /// process's cannot be read by others.
    pub(super) fn environment_has(
        self,
        variable: &str,
        accept: impl Fn(&str) -> bool,
    ) -> Option<bool> {
        let environ = fs::read(format!("/proc/{}/environ", self.pid)).ok()?;
        if environ.is_empty() || !self.is_current() {
            return None;
        }
        Some(environ.split(|&byte| byte == 0).any(|entry| {
            entry
                .strip_prefix(variable.as_bytes())
                .and_then(|rest| rest.strip_prefix(b"="))
                .and_then(|value| std::str::from_utf8(value).ok())
                .is_some_and(&accept)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_this_process_and_its_children() {
        use std::io::BufRead as _;
        // Until it has exec'd, a child forked a moment ago still shows this process's
        // environment: it says when it has, then becomes `sleep` with the same environment.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "echo started; exec sleep 30"])
            .env("TCH_TABLE_TEST", "yes")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sh starts");
        let mut started = String::new();
        let stdout = child.stdout.take().expect("piped");
        std::io::BufReader::new(stdout)
            .read_line(&mut started)
            .expect("sh says it started");
        assert_eq!(started, "started\n");
        let me = std::process::id() as i32;
        let pid = child.id() as i32;
        let table = ProcessTable::read().expect("/proc reads");
        let found = table.descendants_of(me).contains(&pid);
        let process = table.processes().find(|p| p.identity.pid == pid).copied();
        let marked = process.and_then(|p| {
            p.identity
                .environment_has("TCH_TABLE_TEST", |value| value == "yes")
        });
        let _ = child.kill();
        let _ = child.wait();
        assert!(found, "{pid} is below {me}");
        let process = process.expect("listed");
        assert_eq!(process.parent, me);
        assert!(!process.zombie);
        assert_eq!(marked, Some(true));
        assert!(table.processes().any(|p| p.identity.pid == me));
    }

    #[test]
    fn a_signal_reaches_only_the_process_that_started_then() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep starts");
        let pid = child.id() as i32;
        let identity = read_process(pid).expect("listed").identity;
        // As if the id had been taken by another process since the table was read.
        let stale = Identity {
            start_time: identity.start_time + 1,
            ..identity
        };
        // Two signals, so that what ended it says which arrived (a KILL, once sent, wins).
        stale.signal(Signal::KILL);
        identity.signal(Signal::TERM);
        let status = child.wait().expect("sleep ends");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            status.signal(),
            Some(Signal::TERM.as_raw()),
            "a stale identity was signalled: {status}"
        );
    }
}
