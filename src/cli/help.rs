//! The sections every command's help and man page has besides its options: EXAMPLES,
//! EXIT STATUS, ENVIRONMENT and FILES. Each command defines its own next to its arguments
//! (`CRAWL_HELP` in crawl_commands.rs, …), so that a flag and what it does to the exit status
//! change together; this module lists them, holds what several share, and renders them:
//! `--help` shows them as text and the man pages as roff sections.

/// The extra help sections of one command.
pub struct Sections {
    /// `(command line, what it does)`.
    pub examples: &'static [(&'static str, &'static str)],
    /// `(status, meaning)`; the statuses every command shares are added by [`exit_status`].
    pub exit_status: &'static [(&'static str, &'static str)],
    /// `(variable, meaning)` besides those every command reads.
    pub environment: &'static [(&'static str, &'static str)],
    /// `(path, meaning)`.
    pub files: &'static [(&'static str, &'static str)],
}

/// What the commands reading the versioned triple index read.
pub(super) const TRIPLE_FILES: &[(&str, &str)] = &[(
    "<root>/triples/triples.bin.gz",
    "the versioned triple index, derived from the captures (ldwarc index --triples)",
)];

pub(super) const ROOT_FILES: &[(&str, &str)] = &[
    (
        "<root>/warc/YYYY/MM/DD/HH/<pld>/*.warc.gz",
        "the WARC files, the archive's source of truth",
    ),
    (
        "<root>/index/",
        "the capture index, derived from the WARC files (ldwarc index)",
    ),
    (
        "<root>/state/",
        "crawl log, frontier and schedule (SQLite), unless --state names PostgreSQL",
    ),
];

pub(super) const CRAWL_FILES: &[(&str, &str)] = &[
    (
        "<root>/ldwarc.toml",
        "optional [crawl] table: any crawl option by its flag's name (flags win)",
    ),
    (
        "<root>/warc/…/*.warc.gz.open",
        "a WARC file being written; renamed when closed (ldwarc recover finalises it after a kill)",
    ),
    ("<root>/state/", "the crawl log, frontier and URL state"),
];

pub(super) const NETWORK_ENVIRONMENT: &[(&str, &str)] = &[(
    "HTTP_PROXY, HTTPS_PROXY, NO_PROXY",
    "proxy for requests, unless --proxy is given",
)];

/// The sections of the command `path` (`check`, `plan currency`, …); `None` for commands
/// without their own (the top level).
pub fn sections(path: &str) -> Option<Sections> {
    let none: &'static [(&'static str, &'static str)] = &[];
    let sections = match path {
        "ldwarc" => Sections {
            examples: &[
                (
                    "ldwarc demo",
                    "the offline tour: crawl a sample Linked Data web three times, replay, diff",
                ),
                (
                    "ldwarc crawl --root /data/ld http://dbpedia.org/resource/Berlin",
                    "archive Linked Data",
                ),
                (
                    "ldwarc replay --root /data/ld http://dbpedia.org/resource/Berlin@2024-03-15",
                    "its graph on a date",
                ),
                (
                    "ldwarc serve --root /data/ld",
                    "serve the archive to Wayback and Memento tools",
                ),
            ],
            exit_status: &[("1", "the command ran and found problems (see each command)")],
            environment: none,
            files: ROOT_FILES,
        },
        "check" => super::warc_commands::CHECK_HELP,
        "ls" => super::warc_commands::LS_HELP,
        "extract" => super::extract_command::EXTRACT_HELP,
        "export" => super::wacz_commands::EXPORT_HELP,
        "import" => super::wacz_commands::IMPORT_HELP,
        "parse" => super::parse_command::PARSE_HELP,
        "recover" => super::warc_commands::RECOVER_HELP,
        "index" => super::index_commands::INDEX_HELP,
        "cdx" => super::index_commands::CDX_HELP,
        "query" => super::index_commands::QUERY_HELP,
        "crawl" => super::crawl_commands::CRAWL_HELP,
        "monitor" => super::monitor_commands::MONITOR_HELP,
        "replay" => super::replay_commands::REPLAY_HELP,
        "history" => super::replay_commands::HISTORY_HELP,
        "snapshot" => super::replay_commands::SNAPSHOT_HELP,
        "describe" => super::describe::DESCRIBE_HELP,
        "sparql" => super::sparql_command::SPARQL_HELP,
        "diff" => super::replay_commands::DIFF_HELP,
        "when" => super::when_command::WHEN_HELP,
        "demo" => super::DEMO_HELP,
        "stats" => super::stats_commands::STATS_HELP,
        "simulate" => super::schedule_commands::SIMULATE_HELP,
        "serve" => super::serve_commands::SERVE_HELP,
        "plan" | "plan currency" => super::plan_commands::PLAN_HELP,
        "plan crawl-time" => super::plan_commands::PLAN_CRAWL_TIME_HELP,
        _ => return None,
    };
    Some(sections)
}

/// The statuses every command shares, then the command's own.
pub fn exit_status(own: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut statuses = vec![("0", "success")];
    statuses.extend_from_slice(own);
    if !own.iter().any(|(code, _)| *code == "2") {
        statuses.push((
            "2",
            "bad arguments or input: a one-line error names the file, offset, URL or argument",
        ));
    }
    statuses
}

/// The variables every command reads, then the command's own.
pub fn environment(own: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut variables = vec![
        ("LDWARC_ROOT", "the archive root when --root is not given"),
        (
            "RUST_LOG",
            "log filter (e.g. ldwarc_crawl=debug), overriding -v/-q",
        ),
    ];
    variables.extend_from_slice(own);
    variables
}

/// The sections as plain text, for `--help`.
pub fn text(sections: &Sections) -> String {
    let mut out = String::from("EXAMPLES:\n");
    for (line, what) in sections.examples {
        out.push_str(&format!("  {line}\n      {what}\n"));
    }
    out.push_str("\nEXIT STATUS:\n");
    for (code, meaning) in exit_status(sections.exit_status) {
        out.push_str(&format!("  {code}  {meaning}\n"));
    }
    out.push_str("\nENVIRONMENT:\n");
    for (name, meaning) in environment(sections.environment) {
        out.push_str(&format!("  {name}\n      {meaning}\n"));
    }
    if !sections.files.is_empty() {
        out.push_str("\nFILES:\n");
        for (path, meaning) in sections.files {
            out.push_str(&format!("  {path}\n      {meaning}\n"));
        }
    }
    out.trim_end().to_string()
}

/// Adds the sections to every subcommand that has them, recursively.
pub fn attach(command: clap::Command) -> clap::Command {
    attach_under(command, "")
}

fn attach_under(command: clap::Command, prefix: &str) -> clap::Command {
    let path = if prefix.is_empty() {
        command.get_name().to_string()
    } else {
        format!("{prefix} {}", command.get_name())
    };
    let command = match sections(&path) {
        Some(sections) => command.after_long_help(text(&sections)),
        None => command,
    };
    let child_prefix = if prefix.is_empty() && path == "ldwarc" {
        String::new()
    } else {
        path
    };
    command.mut_subcommands(|sub| attach_under(sub, &child_prefix))
}
