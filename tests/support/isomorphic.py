"""Checks pairs of RDF files for graph isomorphism with rdflib (a tool nobody at ldwarc wrote).

Usage: isomorphic.py PAIRS.json
PAIRS.json is a list of {"name", "expected", "expected_format", "actual", "actual_format"} with an
optional "actual_graph": the name of the graph to take from a multi-graph actual file.
Prints one line per mismatch and exits 1 if there is any; prints "ok N" otherwise.
"""
import json
import sys

from rdflib import ConjunctiveGraph, Graph, URIRef
from rdflib.compare import isomorphic, to_isomorphic


def load(path, fmt):
    graph = ConjunctiveGraph() if fmt in ("nquads", "trig") else Graph()
    graph.parse(path, format=fmt)
    return graph


DATASETS = {}


def named_graph(path, fmt, name):
    if path not in DATASETS:
        DATASETS[path] = load(path, fmt)
    graph = Graph()
    for triple in DATASETS[path].get_context(URIRef(name)):
        graph.add(triple)
    return graph


def main():
    pairs = json.load(open(sys.argv[1]))
    bad = 0
    for pair in pairs:
        expected = load(pair["expected"], pair["expected_format"])
        if "actual_graph" in pair:
            actual = named_graph(pair["actual"], pair["actual_format"], pair["actual_graph"])
        else:
            actual = load(pair["actual"], pair["actual_format"])
        if not isomorphic(expected, actual):
            bad += 1
            only_expected = set(to_isomorphic(expected)) - set(to_isomorphic(actual))
            only_actual = set(to_isomorphic(actual)) - set(to_isomorphic(expected))
            print(
                f"MISMATCH {pair['name']}: {len(expected)} expected vs {len(actual)} replayed; "
                f"missing {sorted(map(str, only_expected))[:3]} extra {sorted(map(str, only_actual))[:3]}"
            )
    if bad:
        sys.exit(1)
    print(f"ok {len(pairs)}")


main()
