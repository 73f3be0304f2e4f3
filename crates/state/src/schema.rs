//! The state store's schema, written once for both backends: the tables, their columns with a
//! backend-neutral type, and their indexes. Each backend spells the types its own way (SQLite's
//! `INTEGER PRIMARY KEY` is PostgreSQL's `BIGSERIAL PRIMARY KEY`, a flag is `INTEGER` in one and
//! `BOOLEAN` in the other), so the two stores cannot drift apart column by column.
//! Everything is `IF NOT EXISTS`: every process (and every PostgreSQL node) runs it at start-up.

/// The backend a schema is spelled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// The embedded store (one file per archive).
    Sqlite,
    /// The store many crawler nodes share.
    Postgres,
}

/// A column's type, independent of the backend.
#[derive(Debug, Clone, Copy)]
enum Type {
    /// The row's generated id, the primary key.
    Id,
    /// A generated sequence number that is not the key (PostgreSQL only: SQLite has `rowid`).
    Serial,
    /// A 64-bit integer.
    Int,
    /// An HTTP status: a 32-bit integer in both backends.
    Status,
    /// A double-precision number.
    Real,
    /// Text (times too: RFC 3339, so both backends read back equal values).
    Text,
    /// A boolean, false unless set.
    Flag,
    /// An instant with its zone (PostgreSQL only: lease and liveness times the server compares).
    Instant,
}

/// One column: name, type, whether it may be NULL, and its default.
struct Column {
    name: &'static str,
    kind: Type,
    not_null: bool,
    default_zero: bool,
    /// The backends whose table has this column.
    postgres_only: bool,
}

const fn col(name: &'static str, kind: Type) -> Column {
    Column {
        name,
        kind,
        not_null: false,
        default_zero: false,
        postgres_only: false,
    }
}

impl Column {
    const fn not_null(mut self) -> Column {
        self.not_null = true;
        self
    }

    const fn default_zero(mut self) -> Column {
        self.default_zero = true;
        self
    }

    const fn postgres_only(mut self) -> Column {
        self.postgres_only = true;
        self
    }

    fn spell(&self, dialect: Dialect) -> String {
        let sqlite = dialect == Dialect::Sqlite;
        let kind = match (self.kind, sqlite) {
            (Type::Id, true) => "INTEGER PRIMARY KEY",
            (Type::Id, false) => "BIGSERIAL PRIMARY KEY",
            (Type::Serial, _) => "BIGSERIAL",
            (Type::Int | Type::Flag, true) | (Type::Status, _) => "INTEGER",
            (Type::Int, false) => "BIGINT",
            (Type::Real, true) => "REAL",
            (Type::Real, false) => "DOUBLE PRECISION",
            (Type::Text, _) => "TEXT",
            (Type::Flag, false) => "BOOLEAN",
            (Type::Instant, _) => "TIMESTAMPTZ",
        };
        let mut text = format!("    {} {kind}", self.name);
        if self.not_null {
            text.push_str(" NOT NULL");
        }
        if self.default_zero {
            let zero = match (self.kind, sqlite) {
                (Type::Flag, false) => "FALSE",
                _ => "0",
            };
            text.push_str(" DEFAULT ");
            text.push_str(zero);
        }
        text
    }
}

/// One table: its columns in order, and its primary key when it spans columns.
struct Table {
    name: &'static str,
    columns: &'static [Column],
    key: Option<&'static str>,
    postgres_only: bool,
}

use Type::{Flag, Id, Instant, Int, Real, Serial, Status, Text};

/// The tables. The frontier's `links` column is added to existing tables separately (it came
/// later): `sqlite_links::add_links_column` and [`POSTGRES_FRONTIER`].
const TABLES: &[Table] = &[
    Table {
        name: "crawls",
        columns: &[
            col("id", Id),
            col("started", Text).not_null(),
            col("finished", Text),
            col("round", Int).not_null().default_zero(),
            col("options", Text).not_null(),
        ],
        key: None,
        postgres_only: false,
    },
    Table {
        name: "fetches",
        columns: &[
            col("id", Id),
            col("crawl", Int).not_null(),
            col("url", Text).not_null(),
            col("time", Text).not_null(),
            col("round", Int).not_null(),
            col("hops", Int).not_null(),
            col("kind", Text).not_null(),
            col("status", Status),
            col("duration_ms", Real),
            col("bytes", Int),
            col("digest", Text),
            col("change", Text).not_null(),
            col("error", Text),
            col("content_type", Text),
            col("outlinks", Int),
            col("record_id", Text),
            col("warc_file", Text),
            col("warc_offset", Int),
            col("warc_length", Int),
        ],
        key: None,
        postgres_only: false,
    },
    Table {
        name: "url_state",
        columns: &[
            col("url", Text),
            col("digest", Text),
            col("date", Text),
            col("record_id", Text),
            col("warc_file", Text),
            col("warc_offset", Int),
            col("warc_length", Int),
            col("etag", Text),
            col("last_modified", Text),
        ],
        key: Some("url"),
        postgres_only: false,
    },
    Table {
        name: "frontier",
        columns: &[
            // The order URLs were queued in, per PLD, for the leased dequeue of many nodes.
            col("id", Serial).not_null().postgres_only(),
            col("crawl", Int).not_null(),
            col("url", Text).not_null(),
            // The lease key (`lease.rs`).
            col("pld", Text).not_null().postgres_only(),
            col("hops", Int).not_null(),
            col("round", Int).not_null(),
            col("inlinks", Int).not_null(),
            col("via", Text),
            col("path", Text).not_null(),
            col("redirects", Int).not_null().default_zero(),
            col("done", Flag).not_null().default_zero(),
        ],
        key: Some("crawl, url"),
        postgres_only: false,
    },
    Table {
        name: "crawl_nodes",
        columns: &[
            col("crawl", Int).not_null(),
            col("node", Text).not_null(),
            col("seen_at", Instant).not_null(),
        ],
        key: Some("crawl, node"),
        postgres_only: true,
    },
    Table {
        name: "pld_leases",
        columns: &[
            col("crawl", Int).not_null(),
            col("pld", Text).not_null(),
            col("holder", Text),
            col("expires_at", Instant),
        ],
        key: Some("crawl, pld"),
        postgres_only: true,
    },
];

/// Indexes of both backends.
const INDEXES: &[&str] = &[
    "fetches_url ON fetches(url, time)",
    "fetches_crawl ON fetches(crawl)",
    "fetches_time ON fetches(time)",
];

/// PostgreSQL's indexes on its own frontier columns, and the `links` column.
const POSTGRES_FRONTIER: &str =
    "CREATE INDEX IF NOT EXISTS frontier_queued ON frontier(crawl, pld) WHERE NOT done;
CREATE INDEX IF NOT EXISTS frontier_pld_id ON frontier(crawl, pld, id);
ALTER TABLE frontier ADD COLUMN IF NOT EXISTS links TEXT;
";

/// The statements that create the schema in `dialect`, run as one batch.
pub(crate) fn schema(dialect: Dialect) -> String {
    let postgres = dialect == Dialect::Postgres;
    let mut sql = String::new();
    for table in TABLES.iter().filter(|t| postgres || !t.postgres_only) {
        let mut lines: Vec<String> = table
            .columns
            .iter()
            .filter(|c| postgres || !c.postgres_only)
            .map(|c| c.spell(dialect))
            .collect();
        match table.key {
            // A one-column key is spelled on its column, as both backends' first schemas did.
            Some(key) if !key.contains(',') => {
                let line = lines
                    .iter_mut()
                    .find(|l| l.trim_start().split(' ').next() == Some(key))
                    .expect("the key is a column");
                line.push_str(" PRIMARY KEY");
            }
            Some(key) => lines.push(format!("    PRIMARY KEY ({key})")),
            None => {}
        }
        sql.push_str(&format!(
            "CREATE TABLE IF NOT EXISTS {} (\n{}\n);\n",
            table.name,
            lines.join(",\n")
        ));
        if table.name == "fetches" {
            for index in INDEXES {
                sql.push_str(&format!("CREATE INDEX IF NOT EXISTS {index};\n"));
            }
        }
        if postgres && table.name == "frontier" {
            sql.push_str(POSTGRES_FRONTIER);
        }
    }
    sql
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The columns SQLite reports for `table` (name, declared type, not null, default, key).
    fn sqlite_columns(
        connection: &rusqlite::Connection,
        table: &str,
    ) -> Vec<(String, String, bool, Option<String>, i64)> {
        let mut statement = connection
            .prepare(&format!("PRAGMA table_info({table})"))
            .unwrap();
        statement
            .query_map([], |row| {
                Ok((
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                    row.get(5)?,
                ))
            })
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    #[test]
    fn sqlite_schema_creates_the_tables_the_store_reads() {
        let connection = rusqlite::Connection::open_in_memory().unwrap();
        connection.execute_batch(&schema(Dialect::Sqlite)).unwrap();
        let tables: Vec<String> = connection
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(tables, ["crawls", "fetches", "frontier", "url_state"]);
        let frontier = sqlite_columns(&connection, "frontier");
        let text = |s: &str| s.to_string();
        assert_eq!(
            frontier,
            [
                (text("crawl"), text("INTEGER"), true, None, 1),
                (text("url"), text("TEXT"), true, None, 2),
                (text("hops"), text("INTEGER"), true, None, 0),
                (text("round"), text("INTEGER"), true, None, 0),
                (text("inlinks"), text("INTEGER"), true, None, 0),
                (text("via"), text("TEXT"), false, None, 0),
                (text("path"), text("TEXT"), true, None, 0),
                (text("redirects"), text("INTEGER"), true, Some(text("0")), 0),
                (text("done"), text("INTEGER"), true, Some(text("0")), 0),
            ]
        );
        let crawls = sqlite_columns(&connection, "crawls");
        assert_eq!(crawls[0], (text("id"), text("INTEGER"), false, None, 1));
        let url_state = sqlite_columns(&connection, "url_state");
        assert_eq!(url_state[0], (text("url"), text("TEXT"), false, None, 1));
        assert_eq!(sqlite_columns(&connection, "fetches").len(), 19);
        let indexes: i64 = connection
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'fetches' \
                 AND name LIKE 'fetches_%'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(indexes, 3);
    }

    #[test]
    fn postgres_spelling_differs_only_in_types_and_its_own_columns() {
        let sql = schema(Dialect::Postgres);
        assert!(sql.contains("    id BIGSERIAL PRIMARY KEY,\n    started TEXT NOT NULL,"));
        assert!(sql.contains("    duration_ms DOUBLE PRECISION,\n    bytes BIGINT,"));
        assert!(sql.contains(
            "CREATE TABLE IF NOT EXISTS frontier (\n    id BIGSERIAL NOT NULL,\n    crawl BIGINT NOT NULL,\n    url TEXT NOT NULL,\n    pld TEXT NOT NULL,"
        ));
        assert!(sql.contains(
            "    done BOOLEAN NOT NULL DEFAULT FALSE,\n    PRIMARY KEY (crawl, url)\n);"
        ));
        assert!(sql.contains(
            "CREATE TABLE IF NOT EXISTS pld_leases (\n    crawl BIGINT NOT NULL,\n    pld TEXT NOT NULL,\n    holder TEXT,\n    expires_at TIMESTAMPTZ,\n    PRIMARY KEY (crawl, pld)\n);"
        ));
        assert!(sql.contains("    status INTEGER,"));
        assert!(sql.contains(
            "CREATE INDEX IF NOT EXISTS frontier_pld_id ON frontier(crawl, pld, id);\nALTER TABLE frontier ADD COLUMN IF NOT EXISTS links TEXT;\n"
        ));
        let sqlite = schema(Dialect::Sqlite);
        assert!(
            !sqlite.contains("pld") && !sqlite.contains("BIGINT"),
            "{sqlite}"
        );
    }
}
