//! Queries evaluated in a worker process, so that the cost of one query is bounded from
//! outside. The evaluator (oxigraph's) materialises ORDER BY, GROUP BY and DISTINCT inputs and
//! builds cartesian products without ever asking whether it should stop: a 41 KB query can
//! ask it for gigabytes and minutes, and a thread cannot be stopped from outside. A process
//! can: its memory is watched while it runs (anonymous resident memory, sampled every
//! [`SAMPLE_EVERY`]) and it is killed past its limit, at its deadline, or when its caller
//! gives up. Its answer is read from its standard output as it is written, so the caller
//! holds a bounded part of it at a time.

use std::io::{self, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Exit status of a worker whose query (or its arguments) is the client's mistake; its
/// standard error ends with `ldwarc: error: ` and why.
pub const EXIT_BAD_QUERY: i32 = 2;

/// Exit status of a worker whose answer passed its result limit (it wrote that many); its
/// standard error ends with `ldwarc: error: ` and why.
pub const EXIT_TOO_MANY_RESULTS: i32 = 3;

/// Exit status of a worker that failed otherwise (an unreadable archive).
pub const EXIT_FAILED: i32 = 4;

/// How often a worker's memory, its deadline and its caller's interest are checked.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(10);

/// Bytes of a worker's standard output handed over at a time.
const CHUNK_BYTES: usize = 64 * 1024;

/// Bytes of a worker's standard error kept (its last ones: the error, if any, ends it).
const STDERR_BYTES: usize = 64 * 1024;

/// This program, to run as a worker. On Linux the running program itself
/// (`/proc/self/exe`), even when its file was replaced by an upgrade or deleted since it
/// started: a worker of another version could read its arguments otherwise.
pub fn this_program() -> io::Result<std::path::PathBuf> {
    let running = std::path::Path::new("/proc/self/exe");
    if cfg!(target_os = "linux") && running.exists() {
        return Ok(running.to_path_buf());
    }
    std::env::current_exe()
}

/// What a worker may use.
#[derive(Clone, Debug, Default)]
pub struct WorkerLimits {
    /// Anonymous resident memory (heap, stacks) the worker may hold, in bytes: past it, it
    /// is killed ([`WorkerEnd::OverMemory`]).
    pub memory: u64,
    /// When the worker is killed if it has not ended ([`WorkerEnd::TimedOut`]).
    pub deadline: Option<Instant>,
    /// Whether nobody waits for the answer any more (a client that went away), asked at every
    /// sample: a worker that computes for long before it writes is killed then
    /// ([`WorkerEnd::Abandoned`]), not only when its output finds nobody to take it.
    pub abandoned: Option<AbandonedProbe>,
}

/// Tells whether the caller of a worker has gone away.
#[derive(Clone)]
pub struct AbandonedProbe(pub Arc<dyn Fn() -> bool + Send + Sync>);

impl std::fmt::Debug for AbandonedProbe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AbandonedProbe")
    }
}

/// How a worker ended.
#[derive(Debug)]
pub enum WorkerEnd {
    /// It exited by itself, with this status (an exit code, or the signal that ended it);
    /// the last `STDERR_BYTES` of its standard error.
    Exited {
        /// Its exit status.
        status: ExitStatus,
        /// What it wrote to standard error (the end of it).
        stderr: String,
    },
    /// Killed: its memory passed [`WorkerLimits::memory`]; the most it was seen holding.
    OverMemory {
        /// Bytes last sampled.
        seen: u64,
    },
    /// Killed: [`WorkerLimits::deadline`] passed.
    TimedOut,
    /// Killed: the caller stopped taking its output.
    Abandoned,
}

/// Why the watcher killed a worker.
const NOT_KILLED: u8 = 0;
const KILLED_OVER_MEMORY: u8 = 1;
const KILLED_AT_DEADLINE: u8 = 2;
const KILLED_ABANDONED: u8 = 3;

/// Runs `command` (its standard streams are replaced) with `input` on its standard input,
/// hands its standard output to `output` chunk by chunk as it comes (`output` returns false
/// to give the worker up: it is killed), and watches it within `limits`.
pub fn run_worker(
    mut command: Command,
    input: &[u8],
    limits: &WorkerLimits,
    output: &mut dyn FnMut(&[u8]) -> bool,
) -> io::Result<WorkerEnd> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take();
    let mut stdout = child
        .stdout
        .take()
        .ok_or_else(|| io::Error::other("no stdout"))?;
    let mut stderr = child
        .stderr
        .take()
        .ok_or_else(|| io::Error::other("no stderr"))?;
    let pid = child.id();
    let child = Arc::new(Mutex::new(child));
    let killed = Arc::new(AtomicU8::new(NOT_KILLED));
    let seen = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let result = std::thread::scope(|scope| {
        let input = input.to_vec();
        scope.spawn(move || {
            // A worker that ends before reading its input is seen by its exit status.
            if let Some(stdin) = stdin.as_mut() {
                let _ = stdin.write_all(&input);
            }
            drop(stdin);
        });
        let errors = scope.spawn(move || tail_of(&mut stderr));
        let watcher = {
            let (child, killed, seen, done) =
                (child.clone(), killed.clone(), seen.clone(), done.clone());
            let limits = limits.clone();
            scope.spawn(move || watch(pid, &child, &limits, &killed, &seen, &done))
        };
        let mut chunk = vec![0u8; CHUNK_BYTES];
        let read = loop {
            match stdout.read(&mut chunk) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    if !output(&chunk[..n]) {
                        kill(&child, &killed, KILLED_ABANDONED);
                        break Ok(());
                    }
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    kill(&child, &killed, KILLED_ABANDONED);
                    break Err(error);
                }
            }
        };
        // Reaped only after the watcher stopped: it never signals a reused process id.
        done.store(true, Ordering::Release);
        let _ = watcher.join();
        drop(stdout);
        let status = child.lock().unwrap_or_else(|e| e.into_inner()).wait();
        let stderr = errors.join().unwrap_or_default();
        read.and(status.map(|status| (status, stderr)))
    });
    let (status, stderr) = result?;
    Ok(match killed.load(Ordering::Acquire) {
        KILLED_OVER_MEMORY => WorkerEnd::OverMemory {
            seen: seen.load(Ordering::Acquire),
        },
        KILLED_AT_DEADLINE => WorkerEnd::TimedOut,
        KILLED_ABANDONED => WorkerEnd::Abandoned,
        _ => WorkerEnd::Exited { status, stderr },
    })
}

/// Samples the worker until `done`, killing it past its limits.
fn watch(
    pid: u32,
    child: &Mutex<Child>,
    limits: &WorkerLimits,
    killed: &AtomicU8,
    seen: &std::sync::atomic::AtomicU64,
    done: &AtomicBool,
) {
    while !done.load(Ordering::Acquire) {
        if let Some(bytes) = anonymous_memory(pid) {
            seen.store(bytes, Ordering::Release);
            if bytes > limits.memory {
                kill(child, killed, KILLED_OVER_MEMORY);
                return;
            }
        }
        if limits
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            kill(child, killed, KILLED_AT_DEADLINE);
            return;
        }
        if limits.abandoned.as_ref().is_some_and(|probe| (probe.0)()) {
            kill(child, killed, KILLED_ABANDONED);
            return;
        }
        std::thread::sleep(SAMPLE_EVERY);
    }
}

/// Kills the worker once, recording why (the first reason wins).
fn kill(child: &Mutex<Child>, killed: &AtomicU8, why: u8) {
    if killed
        .compare_exchange(NOT_KILLED, why, Ordering::AcqRel, Ordering::Acquire)
        .is_ok()
    {
        let _ = child.lock().unwrap_or_else(|e| e.into_inner()).kill();
    }
}

/// The anonymous resident memory of process `pid` (`RssAnon` of `/proc/PID/status`), in
/// bytes; none where there is no such file (the limit is then not enforced).
fn anonymous_memory(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("RssAnon:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// The last [`STDERR_BYTES`] of a stream, as text.
fn tail_of(stream: &mut dyn Read) -> String {
    let mut kept: Vec<u8> = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                kept.extend_from_slice(&buffer[..n]);
                if kept.len() > 2 * STDERR_BYTES {
                    kept.drain(..kept.len() - STDERR_BYTES);
                }
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    if kept.len() > STDERR_BYTES {
        kept.drain(..kept.len() - STDERR_BYTES);
    }
    String::from_utf8_lossy(&kept).into_owned()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn shell(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        command
    }

    const ENOUGH: u64 = 1 << 40;

    #[test]
    fn output_streams_and_the_exit_status_and_errors_come_back() {
        let mut got = Vec::new();
        let end = run_worker(
            shell("cat; echo oops >&2; exit 3"),
            b"the query\n",
            &WorkerLimits {
                memory: ENOUGH,
                deadline: None,
                abandoned: None,
            },
            &mut |chunk| {
                got.extend_from_slice(chunk);
                true
            },
        )
        .unwrap();
        assert_eq!(got, b"the query\n");
        match end {
            WorkerEnd::Exited { status, stderr } => {
                assert_eq!(status.code(), Some(3));
                assert_eq!(stderr, "oops\n");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_worker_is_killed_at_its_deadline_over_its_memory_or_when_given_up() {
        let started = Instant::now();
        let end = run_worker(
            shell("exec sleep 30"),
            b"",
            &WorkerLimits {
                memory: ENOUGH,
                deadline: Some(Instant::now() + Duration::from_millis(200)),
                abandoned: None,
            },
            &mut |_| true,
        )
        .unwrap();
        assert!(matches!(end, WorkerEnd::TimedOut), "{end:?}");
        assert!(started.elapsed() < Duration::from_secs(5));

        // A shell reading 256 MiB of text into a variable, against a limit of 16 MiB.
        let hog = "x=$(head -c 268435456 /dev/zero | tr '\\0' a); exec sleep 30";
        let end = run_worker(
            shell(hog),
            b"",
            &WorkerLimits {
                memory: 16 << 20,
                deadline: Some(Instant::now() + Duration::from_secs(20)),
                abandoned: None,
            },
            &mut |_| true,
        )
        .unwrap();
        match end {
            WorkerEnd::OverMemory { seen } => assert!(seen > 16 << 20, "{seen}"),
            other => panic!("{other:?}"),
        }

        let started = Instant::now();
        let end = run_worker(
            shell("exec yes"),
            b"",
            &WorkerLimits {
                memory: ENOUGH,
                deadline: None,
                abandoned: None,
            },
            &mut |_| false,
        )
        .unwrap();
        assert!(matches!(end, WorkerEnd::Abandoned), "{end:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
