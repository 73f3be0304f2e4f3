"""Compares ldwarc's readings of Turtle documents with pyoxigraph's (the reference parser).

Usage: turtle_reference.py < CASES.json
CASES.json: {"base": IRI, "cases": [{"name": str, "turtle": str,
                                     "readings": {way: N-Quads text, or null for an error}}]}
A reading is right when both refuse the document, or when both read it and the graphs are
isomorphic (compared after pyoxigraph's canonicalisation of blank nodes).
Prints {"wrong": [one line per wrong reading], "valid": [names pyoxigraph reads]} as JSON.
"""
import json
import sys

import pyoxigraph as ox


def canonical(quads):
    dataset = ox.Dataset(quads)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    return sorted(str(quad) for quad in dataset)


def main():
    request = json.load(sys.stdin)
    base = request["base"]
    wrong = []
    valid = []
    for case in request["cases"]:
        name = case["name"]
        try:
            expected = canonical(
                ox.parse(case["turtle"].encode("utf-8"), ox.RdfFormat.TURTLE, base_iri=base)
            )
            valid.append(name)
        except (SyntaxError, ValueError) as error:
            expected = None
            reason = str(error).replace("\n", " ")
        for way, reading in case["readings"].items():
            if reading is None or expected is None:
                if (reading is None) != (expected is None):
                    said = "refuses" if expected is None else "reads"
                    detail = f" ({reason})" if expected is None else f" as {expected[:3]}"
                    wrong.append(f"{name}, {way}: pyoxigraph {said} it{detail}")
                continue
            try:
                actual = canonical(ox.parse(reading.encode("utf-8"), ox.RdfFormat.N_QUADS))
            except (SyntaxError, ValueError) as error:
                wrong.append(f"{name}, {way}: ldwarc wrote invalid N-Quads: {error}")
                continue
            if actual != expected:
                missing = sorted(set(expected) - set(actual))[:3]
                extra = sorted(set(actual) - set(expected))[:3]
                wrong.append(f"{name}, {way}: missing {missing} extra {extra}")
    json.dump({"wrong": wrong, "valid": valid}, sys.stdout)


main()
