"""Statements per host at a date, computed by Spark over an ldwarc archive's Parquet index.

The job does what cc-pyspark's CCIndexWarcSparkJob does over Common Crawl: it selects
captures with SQL over the columnar index (`ldwarc cdx --format parquet --output TABLE`),
then reads each selected WARC record by range from the archive and works on its payload.
Here: for every URL, its latest capture at or before DATE; when that is a successful
Linked Data answer, the statements of its graph, summed per host. (A revisit's payload is
its original's: the latest response with the same payload digest before it.) The result
is what `ldwarc snapshot @DATE` writes, grouped by the host of each document.

    python examples/spark_statements_per_host.py --root ARCHIVE --table TABLE \
        --date 2026-01-01T01:30:00Z [--output result.json]

Locally it runs Spark in local mode (`pip install pyspark warcio rdflib`, Java 17). On a
cluster, the same file runs with `spark-submit --master yarn|k8s://…|spark://…` when
ARCHIVE and TABLE are paths every executor can read (a shared file system); see
docs/columnar.md.
"""

import argparse
import io
import json
import os
import sys
from datetime import datetime, timezone

# What rdflib calls the syntaxes ldwarc's rdf_syntax column names (HTML pages, whose
# statements are embedded, are left to ldwarc: rdflib has no embedded-RDF reader).
RDFLIB_FORMATS = {
    "ttl": "turtle",
    "nt": "nt",
    "nq": "nquads",
    "trig": "trig",
    "jsonld": "json-ld",
    "rdfxml": "xml",
}

SELECT = """
WITH captures AS (
  SELECT * FROM ccindex WHERE subset <> 'robotstxt'
),
latest AS (
  SELECT *, row_number() OVER (PARTITION BY url ORDER BY fetch_time DESC,
                                warc_filename DESC, warc_record_offset_long DESC) AS n
  -- As ldwarc reads a date: captures of its whole second count (14-digit timestamps).
  FROM captures WHERE fetch_time < TIMESTAMP '{date}' + INTERVAL 1 SECOND
),
responses AS (
  SELECT content_digest, fetch_time, rdf_syntax, warc_filename,
         warc_record_offset_long, warc_record_length_long
  FROM captures WHERE warc_record_type = 'response' AND fetch_status BETWEEN 200 AND 299
),
resolved AS (
  SELECT l.url, l.url_host_name,
         coalesce(o.rdf_syntax, l.rdf_syntax) AS rdf_syntax,
         coalesce(o.warc_filename, l.warc_filename) AS warc_filename,
         coalesce(o.warc_record_offset_long, l.warc_record_offset_long) AS record_offset,
         coalesce(o.warc_record_length_long, l.warc_record_length_long) AS record_length,
         row_number() OVER (PARTITION BY l.url ORDER BY o.fetch_time DESC) AS m
  FROM latest l
  LEFT JOIN responses o
    ON l.warc_record_type = 'revisit' AND o.content_digest = l.content_digest
       AND o.fetch_time <= l.fetch_time
  -- A 2xx answer, or a revisit (also 304 Not Modified) standing for its original.
  WHERE l.n = 1 AND (l.fetch_status BETWEEN 200 AND 299
                     OR (l.warc_record_type = 'revisit' AND l.fetch_status = 304))
)
SELECT url, url_host_name, rdf_syntax, warc_filename, record_offset, record_length
FROM resolved WHERE m = 1 AND rdf_syntax IN ({syntaxes})
"""


def read_payload(root, filename, offset, length):
    """The payload of the record at `filename`@`offset`: one ranged read, parsed by warcio."""
    from warcio.archiveiterator import ArchiveIterator

    with open(os.path.join(root, filename), "rb") as f:
        f.seek(offset)
        data = f.read(length)
    for record in ArchiveIterator(io.BytesIO(data)):
        return record.content_stream().read()
    raise ValueError(f"no record at {filename}@{offset}")


def statements(root, row):
    """(host, statements in the document's graph)."""
    import rdflib

    payload = read_payload(root, row.warc_filename, row.record_offset, row.record_length)
    syntax = RDFLIB_FORMATS[row.rdf_syntax]
    graph = rdflib.Dataset() if syntax in ("nquads", "trig") else rdflib.Graph()
    graph.parse(data=payload, format=syntax, publicID=row.url)
    count = len(list(graph.quads())) if syntax in ("nquads", "trig") else len(graph)
    return row.url_host_name, count


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the archive root (warc_filename is relative to it)")
    parser.add_argument("--table", required=True, help="the folder `ldwarc cdx --format parquet` wrote")
    parser.add_argument("--date", required=True, help="ISO 8601 UTC, e.g. 2026-01-01T01:30:00Z")
    parser.add_argument("--output", help="write {host: statements} as JSON here (default: print)")
    args = parser.parse_args()
    date = datetime.fromisoformat(args.date.replace("Z", "+00:00")).astimezone(timezone.utc)

    # The workers run this Python (with warcio and rdflib), not whatever `python3` is first
    # on PATH.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.appName("ldwarc statements per host")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.read.option("mergeSchema", "true").parquet(args.table).createOrReplaceTempView("ccindex")
    syntaxes = ", ".join(f"'{s}'" for s in RDFLIB_FORMATS)
    selected = spark.sql(
        SELECT.format(date=date.strftime("%Y-%m-%d %H:%M:%S"), syntaxes=syntaxes)
    )
    root = os.path.abspath(args.root)
    per_host = (
        selected.rdd.map(lambda row: statements(root, row))
        .reduceByKey(lambda a, b: a + b)
        .collectAsMap()
    )
    spark.stop()
    text = json.dumps(dict(sorted(per_host.items())), indent=1)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
