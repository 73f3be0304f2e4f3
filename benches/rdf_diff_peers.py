"""Peer timings for benches/rdf_diff.rs: the same graph diff and parse done by rdflib and
pyoxigraph on the same N-Triples files.

Usage: rdf_diff_peers.py MODE OLD.nt NEW.nt

Modes (each run in its own process, so that the peak RSS printed is that mode's alone):
  rdflib-diff        parse both with rdflib, then to_isomorphic() both and graph_diff()
                     (rdflib's documented recipe for comparing graphs with blank nodes)
  pyoxigraph-canon   parse both into pyoxigraph Datasets, canonicalize() both with
                     RDFC-1.0, then compare the quad sets
  pyoxigraph-parse   parse both into pyoxigraph Datasets (parse throughput)
  pyoxigraph-bulk    bulk_load both into in-memory pyoxigraph Stores (parse throughput
                     without Python objects per statement)

Prints one JSON object: seconds per phase, the counts found, and peak RSS in bytes.
"""

import json
import resource
import sys
import time


def peak_rss():
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def rdflib_diff(old, new):
    import rdflib
    from rdflib.compare import graph_diff, to_isomorphic

    start = time.perf_counter()
    g_old = rdflib.Graph()
    g_old.parse(old, format="nt")
    g_new = rdflib.Graph()
    g_new.parse(new, format="nt")
    parsed = time.perf_counter()
    iso_old = to_isomorphic(g_old)
    iso_new = to_isomorphic(g_new)
    _in_both, in_old, in_new = graph_diff(iso_old, iso_new)
    done = time.perf_counter()

    def ground(graph):
        return sum(1 for t in graph if not any(isinstance(term, rdflib.BNode) for term in t))

    return {
        "removed_ground": ground(in_old),
        "added_ground": ground(in_new),
        "parse_s": parsed - start,
        "diff_s": done - parsed,
        "total_s": done - start,
        "triples": len(g_old) + len(g_new),
        "removed": len(in_old),
        "added": len(in_new),
    }


def pyoxigraph_canon(old, new):
    from pyoxigraph import CanonicalizationAlgorithm, Dataset, RdfFormat, parse

    start = time.perf_counter()
    d_old = Dataset(parse(path=old, format=RdfFormat.N_TRIPLES))
    d_new = Dataset(parse(path=new, format=RdfFormat.N_TRIPLES))
    parsed = time.perf_counter()
    d_old.canonicalize(CanonicalizationAlgorithm.RDFC_1_0)
    d_new.canonicalize(CanonicalizationAlgorithm.RDFC_1_0)
    canonical = time.perf_counter()
    s_old = set(d_old)
    s_new = set(d_new)
    removed = len(s_old - s_new)
    added = len(s_new - s_old)
    done = time.perf_counter()
    return {
        "parse_s": parsed - start,
        "canon_s": canonical - parsed,
        "diff_s": done - parsed,
        "total_s": done - start,
        "triples": len(d_old) + len(d_new),
        "removed": removed,
        "added": added,
    }


def pyoxigraph_parse(old, new):
    from pyoxigraph import Dataset, RdfFormat, parse

    start = time.perf_counter()
    d_old = Dataset(parse(path=old, format=RdfFormat.N_TRIPLES))
    d_new = Dataset(parse(path=new, format=RdfFormat.N_TRIPLES))
    done = time.perf_counter()
    return {"parse_s": done - start, "triples": len(d_old) + len(d_new)}


def pyoxigraph_bulk(old, new):
    from pyoxigraph import RdfFormat, Store

    start = time.perf_counter()
    s_old = Store()
    s_old.bulk_load(path=old, format=RdfFormat.N_TRIPLES)
    s_new = Store()
    s_new.bulk_load(path=new, format=RdfFormat.N_TRIPLES)
    done = time.perf_counter()
    return {"parse_s": done - start, "triples": len(s_old) + len(s_new)}


MODES = {
    "rdflib-diff": rdflib_diff,
    "pyoxigraph-canon": pyoxigraph_canon,
    "pyoxigraph-parse": pyoxigraph_parse,
    "pyoxigraph-bulk": pyoxigraph_bulk,
}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in MODES:
        sys.exit(__doc__)
    result = MODES[sys.argv[1]](sys.argv[2], sys.argv[3])
    result["mode"] = sys.argv[1]
    result["peak_rss"] = peak_rss()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
