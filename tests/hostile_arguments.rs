//! Every subcommand with hostile arguments. The subcommands and their options are read from
//! `ldwarc --help` and each command's own `--help` (recursively), so a new command or flag is
//! covered without editing this file. Each option that takes a value is given absurd numbers,
//! negative and enormous durations and sizes, empty strings, invalid UTF-8, and for paths a
//! nonexistent file, a FIFO and a directory where a file is expected; every command also gets
//! such paths as its positional argument. Every run must end with exit status 2 and exactly
//! one line on stderr (never a panic, never clap's multi-line usage), and create nothing: the
//! runs happen in an empty directory, against a `--root` that does not exist.

use crate::common;

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::ldwarc;

/// One subcommand path (`["plan", "currency"]`) and its options that take values.
struct Subcommand {
    path: Vec<String>,
    /// (long name, value name)
    options: Vec<(String, String)>,
    takes_root: bool,
}

fn help_of(path: &[String]) -> String {
    let output = ldwarc()
        .args(path)
        .arg("--help")
        .output()
        .expect("run --help");
    assert!(output.status.success(), "{path:?} --help failed");
    String::from_utf8(output.stdout).expect("UTF-8 help")
}

/// The names in the `Commands:` block of a help text (without `help`).
fn command_names(help: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if line.starts_with("Commands:") {
            inside = true;
            continue;
        }
        if inside {
            if !line.starts_with("  ") {
                if line.trim().is_empty() {
                    continue;
                }
                break;
            }
            // Continuation lines of a description are indented further.
            if line.starts_with("   ") {
                continue;
            }
            if let Some(name) = line.split_whitespace().next()
                && name != "help"
            {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// `--long <VALUE>` options of a help text.
fn value_options(help: &str) -> Vec<(String, String)> {
    let mut options = Vec::new();
    for line in help.lines() {
        let line = line.trim_start();
        let line = match line.split_once(", --") {
            Some((short, rest)) if short.starts_with('-') && short.len() == 2 => rest,
            _ => match line.strip_prefix("--") {
                Some(rest) => rest,
                None => continue,
            },
        };
        let mut words = line.split_whitespace();
        let (Some(name), Some(value)) = (words.next(), words.next()) else {
            continue;
        };
        if let Some(value) = value.strip_prefix('<').and_then(|v| v.strip_suffix('>')) {
            options.push((name.to_string(), value.to_string()));
        }
    }
    options.sort();
    options.dedup();
    options
}

fn subcommands() -> Vec<Subcommand> {
    let mut found = Vec::new();
    let mut queue: Vec<Vec<String>> = command_names(&help_of(&[]))
        .into_iter()
        .map(|name| vec![name])
        .collect();
    while let Some(path) = queue.pop() {
        let help = help_of(&path);
        let nested = command_names(&help);
        if !nested.is_empty() {
            for name in nested {
                let mut deeper = path.clone();
                deeper.push(name);
                queue.push(deeper);
            }
            continue;
        }
        let options = value_options(&help);
        let takes_root = options.iter().any(|(name, _)| name == "root");
        found.push(Subcommand {
            path,
            options,
            takes_root,
        });
    }
    found
}

/// Hostile values for an option with this value name.
fn hostile_values(value_name: &str, dir: &Path) -> Vec<OsString> {
    let mut values: Vec<OsString> = vec!["".into(), OsString::from_vec(b"\xff\xfe".to_vec())];
    let upper = value_name.to_ascii_uppercase();
    let numeric = ["N", "COUNT", "SECONDS", "NUMBER", "PERCENT", "PORT"];
    if upper.contains("DURATION") || upper.contains("SIZE") || numeric.contains(&upper.as_str()) {
        values.extend(
            [
                "-1",
                "-5s",
                "1e30",
                "1e30s",
                "99999999999999999999999999",
                "NaN",
            ]
            .into_iter()
            .map(OsString::from),
        );
    }
    if ["PATH", "FILE", "DIR"].iter().any(|k| upper.contains(k)) {
        values.push(dir.join("fifo").into());
        values.push(dir.join("missing/nothing.here").into());
    }
    values
}

/// Runs `ldwarc ARGS` in `cwd`, killing it after a while: the outcome and stderr.
fn run_hostile(args: &[OsString], cwd: &Path) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ldwarc"))
        .args(args)
        .current_dir(cwd)
        .env_remove("RUST_LOG")
        .env_remove("LDWARC_SERVE_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ldwarc");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(_status) = child.try_wait().expect("wait") {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return (None, "still running after 20 s".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Every file and directory under `dir`, for comparing before and after.
fn tree(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut paths: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.path().to_path_buf())
        .collect();
    paths.sort();
    paths
}

#[test]
fn every_subcommand_refuses_hostile_arguments_on_one_line() {
    let commands = subcommands();
    assert!(
        commands.len() >= 20,
        "only {} subcommands found in --help",
        commands.len()
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).expect("work dir");
    let fifo = work.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let missing_root = work.join("no-such-root");
    let before = tree(&work);

    let mut failures = Vec::new();
    let mut runs = 0;
    for command in &commands {
        let mut cases: Vec<Vec<OsString>> = Vec::new();
        let base: Vec<OsString> = command.path.iter().map(OsString::from).collect();
        let root: Vec<OsString> = if command.takes_root {
            vec!["--root".into(), missing_root.clone().into()]
        } else {
            Vec::new()
        };
        for (name, value_name) in &command.options {
            if name == "root" || name == "help" {
                continue;
            }
            for value in hostile_values(value_name, &work) {
                let mut flag = OsString::from(format!("--{name}="));
                flag.push(&value);
                cases.push([base.clone(), root.clone(), vec![flag]].concat());
            }
        }
        // Positional arguments: paths that are not what a command reads (demo's one argument
        // is the directory it creates, any name a file system takes included; crawl's and
        // monitor's are seed URLs, of which those that are not http(s) URLs are skipped
        // with a warning).
        let creates_its_argument = command.path == ["demo"];
        let takes_seeds = command.path == ["crawl"] || command.path == ["monitor"];
        if takes_seeds {
            cases.push([base.clone(), root.clone(), vec!["".into()]].concat());
        }
        for positional in [
            OsString::from(""),
            OsString::from_vec(b"\xff".to_vec()),
            fifo.clone().into(),
            work.join("missing.warc.gz").into(),
        ] {
            if (creates_its_argument && !positional.is_empty()) || takes_seeds {
                continue;
            }
            cases.push([base.clone(), root.clone(), vec![positional]].concat());
        }
        if command.takes_root {
            for root_value in [OsString::from(""), fifo.clone().into()] {
                cases.push([base.clone(), vec!["--root".into(), root_value]].concat());
            }
        }
        for args in cases {
            runs += 1;
            let (code, stderr) = run_hostile(&args, &work);
            let lines = stderr.lines().filter(|l| !l.trim().is_empty()).count();
            let shown = format!("ldwarc {:?}", args);
            if code != Some(2) || lines != 1 || stderr.contains("panicked") {
                failures.push(format!("{shown}: exit {code:?}, stderr: {stderr:?}"));
            }
            if tree(&work) != before {
                failures.push(format!("{shown}: created {:?}", tree(&work)));
                // Start the next run from the same empty directory.
                for path in tree(&work).into_iter().rev() {
                    if !before.contains(&path) {
                        let _ =
                            std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} hostile runs misbehaved:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
