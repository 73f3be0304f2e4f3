"""The graph of each HTML page as other processors extract it, compared with ldwarc's replay.

RDFa by pyRdfa3 (embedded script blocks off, so that it gives RDFa alone), JSON-LD and Turtle
script blocks by rdflib (each block parsed on its own, with the page URL as base), and
Microdata by microdata-rdf-streaming-parser (its N-Quads made beforehand by
microdata_rdf.js). The union of the three, each with blank nodes of its own, must be
isomorphic to the page's replay.

Usage: embedded_reference.py JOBS.json
JOBS.json is a list of {"name", "page", "base", "microdata", "actual"} (`actual`: N-Quads of
the replay). Prints one line per page with the statement count each source gave, a line per
mismatch, and exits 1 if there is any; prints "ok N" last otherwise.
"""
import json
import sys

import html5lib
from pyRdfa import Options, pyRdfa
from rdflib import ConjunctiveGraph, Graph
from rdflib.compare import isomorphic, to_isomorphic

SCRIPT_FORMATS = {"application/ld+json": "json-ld", "text/turtle": "turtle"}


def rdfa(page, base):
    processor = pyRdfa(Options(embedded_rdf=False), base=base, media_type="text/html")
    return processor.graph_from_source(page)


def script_blocks(page, base):
    graph = Graph()
    with open(page, "rb") as handle:
        document = html5lib.parse(handle.read(), namespaceHTMLElements=False)
    for script in document.iter("script"):
        media_type = (script.get("type") or "").split(";")[0].strip().lower()
        if media_type in SCRIPT_FORMATS:
            graph.parse(data=script.text or "", format=SCRIPT_FORMATS[media_type], publicID=base)
    return graph


def statement(triple):
    return " ".join(term.n3() for term in triple)


def main():
    bad = 0
    jobs = json.load(open(sys.argv[1]))
    for job in jobs:
        parts = {
            "rdfa": rdfa(job["page"], job["base"]),
            "scripts": script_blocks(job["page"], job["base"]),
            "microdata": Graph().parse(job["microdata"], format="nt"),
        }
        expected = Graph()
        for part in parts.values():
            expected += part
        actual = Graph()
        for triple in ConjunctiveGraph().parse(job["actual"], format="nquads").triples((None, None, None)):
            actual.add(triple)
        counts = ", ".join(f"{name} {len(part)}" for name, part in parts.items())
        print(f"{job['name']}: {counts}; replay {len(actual)}")
        if not isomorphic(expected, actual):
            bad += 1
            expected_c, actual_c = to_isomorphic(expected), to_isomorphic(actual)
            only_expected = sorted(statement(t) for t in set(expected_c) - set(actual_c))
            only_actual = sorted(statement(t) for t in set(actual_c) - set(expected_c))
            print(f"MISMATCH {job['name']}: missing {only_expected} extra {only_actual}")
    if bad:
        sys.exit(1)
    print(f"ok {len(jobs)}")


main()
