"""Peer timings for benches/html_extract.rs: the same generated HTML pages extracted by
pyRdfa3 and by extruct, each on as many worker processes as ldwarc uses threads.

Usage: html_extract_peers.py MODE PAGES.txt WORKERS

PAGES.txt holds one line per page: its path, a tab, its base URL.
Modes:
  pyrdfa    pyRdfa3 (RDFa 1.1 with its embedded Turtle support; vocabulary expansion off)
            into an rdflib graph per page
  extruct   extruct.extract() with syntaxes json-ld, microdata and rdfa (extruct's RDFa
            goes through pyRdfa3 too, its Microdata through its own parser)

Prints one JSON object: pages, bytes, seconds (wall, workers included), items found.
"""

import json
import sys
import time
from multiprocessing import Pool


def pyrdfa_one(job):
    from pyRdfa import Options, pyRdfa

    path, base = job
    processor = pyRdfa(Options(), base=base, media_type="text/html")
    return len(processor.graph_from_source(path))


def extruct_one(job):
    import extruct

    path, base = job
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    found = extruct.extract(
        text, base_url=base, syntaxes=["json-ld", "microdata", "rdfa"], uniform=False
    )
    return sum(len(items) for items in found.values())


MODES = {"pyrdfa": pyrdfa_one, "extruct": extruct_one}


def main():
    mode, listing, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    jobs = []
    size = 0
    with open(listing, encoding="utf-8") as handle:
        for line in handle:
            path, base = line.rstrip("\n").split("\t")
            jobs.append((path, base))
    import os

    size = sum(os.path.getsize(path) for path, _ in jobs)
    # The imports are paid before the clock starts, in each worker too.
    with Pool(workers, initializer=MODES[mode], initargs=(jobs[0],)) as pool:
        start = time.perf_counter()
        found = sum(pool.map(MODES[mode], jobs, chunksize=4))
        seconds = time.perf_counter() - start
    print(json.dumps({"pages": len(jobs), "bytes": size, "seconds": seconds, "found": found}))


if __name__ == "__main__":
    main()
