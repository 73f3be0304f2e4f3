"""Reads an `ldwarc cdx --format parquet` export with pyarrow and DuckDB for the columnar
tests (tests/columnar.rs) and prints what it read as JSON, for the test to compare with
ldwarc's own answers.

    parquet_probe.py schema DIR        file schema (pyarrow) and the hive partition keys
    parquet_probe.py rows DIR          every row (pyarrow dataset), one JSON object a line
    parquet_probe.py rowgroups DIR     per file: url_surtkey min/max of each row group
    parquet_probe.py lookup DIR KEYS   per SURT key in file KEYS (one a line): DuckDB's rows
"""

import glob
import json
import os
import sys

import pyarrow.dataset as ds
import pyarrow.parquet as pq


def part_files(root):
    return sorted(glob.glob(os.path.join(root, "crawl=*", "subset=*", "*.parquet")))


def schema(root):
    files = part_files(root)
    schemas = [pq.read_schema(f) for f in files]
    first = schemas[0]
    assert all(s.equals(first) for s in schemas), "part files differ in schema"
    dataset = ds.dataset(root, format="parquet", partitioning="hive")
    print(json.dumps({
        "fields": [
            {"name": f.name, "type": str(f.type), "nullable": f.nullable} for f in first
        ],
        "dataset": [f.name for f in dataset.schema],
    }))


def plain(value):
    if hasattr(value, "timestamp"):
        return int(round(value.timestamp() * 1000))
    return value


def rows(root):
    dataset = ds.dataset(root, format="parquet", partitioning="hive")
    for batch in dataset.to_batches():
        for row in batch.to_pylist():
            print(json.dumps({k: plain(v) for k, v in row.items()}))


def rowgroups(root):
    out = {}
    for path in part_files(root):
        pf = pq.ParquetFile(path)
        index = pf.schema_arrow.get_field_index("url_surtkey")
        groups = []
        for g in range(pf.num_row_groups):
            stats = pf.metadata.row_group(g).column(index).statistics
            groups.append([stats.min, stats.max, pf.metadata.row_group(g).num_rows])
        out[os.path.relpath(path, root)] = groups
    print(json.dumps(out))


def lookup(root, keys_file):
    import duckdb

    con = duckdb.connect()
    pattern = os.path.join(root, "crawl=*", "subset=*", "*.parquet")
    with open(keys_file, encoding="utf-8") as f:
        keys = [line.rstrip("\n") for line in f if line.strip()]
    out = {}
    for key in keys:
        result = con.execute(
            "SELECT epoch_ms(fetch_time), url, fetch_status, warc_filename, "
            "warc_record_offset, warc_record_length, content_digest, subset "
            "FROM read_parquet(?, hive_partitioning = true) WHERE url_surtkey = ? "
            "ORDER BY fetch_time, warc_filename, warc_record_offset",
            [pattern, key],
        ).fetchall()
        out[key] = [list(r) for r in result]
    print(json.dumps(out))


if __name__ == "__main__":
    command, root = sys.argv[1], sys.argv[2]
    if command == "schema":
        schema(root)
    elif command == "rows":
        rows(root)
    elif command == "rowgroups":
        rowgroups(root)
    elif command == "lookup":
        lookup(root, sys.argv[3])
    else:
        sys.exit(f"unknown command {command}")
