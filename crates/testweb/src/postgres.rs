//! A throwaway PostgreSQL server for tests and benchmarks (the state-store suite, the
//! multi-node crawl tests): `initdb` into a temporary
//! directory, `pg_ctl start` on a free loopback port (trust authentication, no fsync), one
//! fresh database per test, `pg_ctl stop` when the last test using it drops it. As root the
//! server runs as the `postgres` (or `nobody`) user, because PostgreSQL refuses root. Missing
//! binaries fail the test: `.ci/run` installs them. Test infrastructure: it panics, with
//! the reason, when the server cannot be set up.

use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// A running server; stopped on drop.
pub struct PgServer {
    bin_dir: PathBuf,
    data_dir: PathBuf,
    port: u16,
    run_as: Option<(u32, u32)>,
    // Dropped last: the server must be stopped before its directory goes.
    _dir: tempfile::TempDir,
}

static SHARED: Mutex<Weak<PgServer>> = Mutex::new(Weak::new());
static DATABASES: AtomicUsize = AtomicUsize::new(0);

/// The server the tests running now share, started if none is running.
pub fn shared_server() -> Arc<PgServer> {
    let mut shared = SHARED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(server) = shared.upgrade() {
        return server;
    }
    let server = Arc::new(PgServer::start());
    *shared = Arc::downgrade(&server);
    server
}

/// A server of the caller's own, for a test that stops and restarts it (the shared one
/// serves other tests meanwhile).
pub fn private_server() -> PgServer {
    PgServer::start()
}

impl PgServer {
    fn start() -> Self {
        let bin_dir = server_binaries();
        let dir = tempfile::tempdir().unwrap();
        let run_as = unprivileged_user();
        if let Some((uid, gid)) = run_as {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).unwrap();
        }
        let data_dir = dir.path().join("data");
        let mut server = Self {
            bin_dir,
            data_dir,
            port: 0,
            run_as,
            _dir: dir,
        };
        server.run(
            "initdb",
            &[
                "-D",
                &server.data_dir.display().to_string(),
                "-U",
                "ldwarc",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ],
        );
        server.port = free_port();
        server.start_again();
        server
    }

    /// Starts the server (again, after [`PgServer::stop`]) on its port, with its data.
    pub fn start_again(&self) {
        let mut options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=60",
            self.port,
            self.socket_dir().display()
        );
        if self.has_statement_statistics() {
            options.push_str(" -c shared_preload_libraries=pg_stat_statements");
        }
        self.run(
            "pg_ctl",
            &[
                "-D",
                &self.data_dir.display().to_string(),
                "-l",
                &self.socket_dir().join("server.log").display().to_string(),
                "-o",
                &options,
                "-w",
                "-t",
                "60",
                "start",
            ],
        );
    }

    /// Stops the server (fast shutdown: clients are disconnected); its data stays.
    pub fn stop(&self) {
        self.run(
            "pg_ctl",
            &[
                "-D",
                &self.data_dir.display().to_string(),
                "-m",
                "fast",
                "-w",
                "stop",
            ],
        );
    }

    /// Whether the server loads `pg_stat_statements` (statements executed per database, for
    /// the multi-node benchmark): when its library ships beside the server binaries (found
    /// through links to them on PATH), as in Debian's `postgresql` package. A database
    /// counts statements once `CREATE EXTENSION pg_stat_statements` ran in it.
    pub fn has_statement_statistics(&self) -> bool {
        let initdb = self.bin_dir.join("initdb");
        let initdb = initdb.canonicalize().unwrap_or(initdb);
        initdb
            .parent()
            .and_then(Path::parent)
            .is_some_and(|dir| dir.join("lib").join("pg_stat_statements.so").is_file())
    }

    fn socket_dir(&self) -> &Path {
        self.data_dir.parent().unwrap_or(&self.data_dir)
    }

    /// Runs one of the server's programs as the server's user; panics with its output (and
    /// the server log) when it fails.
    fn run(&self, program: &str, args: &[&str]) {
        let mut command = Command::new(self.bin_dir.join(program));
        command
            .args(args)
            .current_dir(self.socket_dir())
            .env("LC_ALL", "C")
            .env_remove("PGDATA");
        if let Some((uid, gid)) = self.run_as {
            command.uid(uid).gid(gid);
        }
        let output = command
            .output()
            .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
        if !output.status.success() {
            let log =
                std::fs::read_to_string(self.socket_dir().join("server.log")).unwrap_or_default();
            panic!(
                "{program} {args:?} failed ({}):\n{}{}\nserver log:\n{log}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }

    /// Creates a new, empty database; returns its connection URL.
    pub fn fresh_database(&self, purpose: &str) -> String {
        let name = format!(
            "{purpose}_{}_{}",
            std::process::id(),
            DATABASES.fetch_add(1, Ordering::SeqCst)
        );
        let mut admin = postgres::Client::connect(&self.url("postgres"), postgres::NoTls)
            .unwrap_or_else(|e| panic!("cannot connect to the test server: {e}"));
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        self.url(&name)
    }

    fn url(&self, database: &str) -> String {
        format!("postgres://ldwarc@127.0.0.1:{}/{database}", self.port)
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let mut command = Command::new(self.bin_dir.join("pg_ctl"));
        command
            .args(["-D", &self.data_dir.display().to_string()])
            .args(["-m", "fast", "-w", "stop"])
            .current_dir(self.socket_dir());
        if let Some((uid, gid)) = self.run_as {
            command.uid(uid).gid(gid);
        }
        // Best effort: a failing stop must not turn a passing test into a panic in drop.
        let _ = command.output();
    }
}

/// The directory holding `initdb` and `pg_ctl`: on PATH, else Debian's newest
/// `/usr/lib/postgresql/<version>/bin`.
fn server_binaries() -> PathBuf {
    let has_both = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    let path = std::env::var_os("PATH").unwrap_or_default();
    if let Some(dir) = std::env::split_paths(&path).find(|dir| has_both(dir)) {
        return dir;
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, bin)| has_both(bin))
        .collect();
    versions.sort();
    match versions.pop() {
        Some((_, bin)) => bin,
        None => panic!(
            "PostgreSQL server binaries (initdb, pg_ctl) are missing: not on PATH nor in \
             /usr/lib/postgresql/*/bin. `.ci/run` installs them (Debian package postgresql); \
             the PostgreSQL state-store tests cannot run without them"
        ),
    }
}

/// As root: the uid and gid of `postgres` (or else `nobody`) from /etc/passwd; otherwise
/// `None` (run as ourselves).
fn unprivileged_user() -> Option<(u32, u32)> {
    let uid = std::fs::metadata("/proc/self").map(|m| m.uid()).ok()?;
    if uid != 0 {
        return None;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let lookup = |wanted: &str| {
        passwd.lines().find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            match fields.as_slice() {
                [name, _, uid, gid, ..] if *name == wanted => {
                    Some((uid.parse().ok()?, gid.parse().ok()?))
                }
                _ => None,
            }
        })
    };
    let user = lookup("postgres").or_else(|| lookup("nobody"));
    assert!(
        user.is_some(),
        "running as root, and neither `postgres` nor `nobody` is in /etc/passwd to run \
         PostgreSQL as"
    );
    user
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}
