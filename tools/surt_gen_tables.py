#!/usr/bin/env python3
"""Generate the packed nameprep / NFKC tables used by surt.rs.

Run with the same CPython that the interop test uses (3.11, Unicode 14):

    .venv/bin/python gen/gen_tables.py > gen/tables.rs.txt

The tables mirror what CPython's `encodings.idna` (IDNA 2003) really does:
  * B1 / B2 mapping exactly as `stringprep.in_table_b1` / `map_table_b2`
    (B2 uses the *running* Python's str.lower(), not Unicode 3.2),
  * NFKD per code point exactly as `unicodedata.ucd_3_2_0.normalize('NFKD')`,
  * canonical combining classes and composition pairs of the *current*
    unicodedata (CPython's ucd_3_2_0 only swaps in old decompositions),
  * prohibited (C.1.2, C.2.2, C.3-C.9) and bidi (D.1, D.2) sets.
"""
import sys
import unicodedata
import stringprep
from unicodedata import ucd_3_2_0 as u32

ALPHA = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/"
assert len(ALPHA) == 64

SBASE, SCOUNT = 0xAC00, 11172


def enc(n):
    """Unsigned varint: 5-bit groups, most significant first; symbols 32..63
    mean 'more follows', 0..31 terminate."""
    assert n >= 0
    groups = []
    while True:
        groups.append(n & 31)
        n >>= 5
        if not n:
            break
    groups.reverse()
    out = [ALPHA[32 + g] for g in groups[:-1]] + [ALPHA[groups[-1]]]
    return "".join(out)


def zz(n):
    return (n << 1) if n >= 0 else ((-n << 1) - 1)


def chars():
    for c in range(0x110000):
        if 0xD800 <= c < 0xE000:
            continue
        yield c


def map_blob(m):
    """Mapping cp -> str.  Runs of single-char mappings with constant
    delta (step 1 or 2) are packed as one record."""
    items = sorted(m.items())
    out = []
    prev_end = 0
    i = 0
    while i < len(items):
        c, v = items[i]
        out.append(enc(c - prev_end))
        if len(v) == 1:
            d = ord(v) - c
            best = (1, 1)
            for step in (1, 2):
                j, n = i + 1, 1
                while (j < len(items) and items[j][0] == c + n * step
                       and len(items[j][1]) == 1
                       and ord(items[j][1]) - items[j][0] == d):
                    j += 1
                    n += 1
                if n > best[0]:
                    best = (n, step)
            n, step = best
            # header 0 = run
            out.append(enc(0) + enc(n) + enc(step) + enc(zz(d)))
            i += n
            prev_end = c + (n - 1) * step + 1
        else:
            out.append(enc(len(v)) + "".join(enc(zz(ord(x) - c)) for x in v))
            i += 1
            prev_end = c + 1
    return "".join(out)


def ranges(pred):
    rs = []
    start = None
    for c in range(0x110001):
        p = c < 0x110000 and not (0xD800 <= c < 0xE000) and pred(chr(c))
        if 0xD800 <= c < 0xE000 and start is not None:
            # surrogates never occur; let ranges bridge them
            continue
        if p and start is None:
            start = c
        elif not p and start is not None:
            rs.append((start, c))
            start = None
    return rs


def range_blob(rs):
    out = []
    prev = 0
    for a, b in rs:
        out.append(enc(a - prev) + enc(b - a))
        prev = b
    return "".join(out)


def ccc_blob():
    out = []
    prev = 0
    c = 0
    n = 0
    while c < 0x110000:
        k = unicodedata.combining(chr(c)) if not (0xD800 <= c < 0xE000) else 0
        if k:
            start = c
            while c + 1 < 0x110000 and unicodedata.combining(chr(c + 1)) == k:
                c += 1
            out.append(enc(start - prev) + enc(c + 1 - start) + enc(k))
            prev = c + 1
            n += 1
        c += 1
    return "".join(out)


def comp_blob():
    pairs = []
    for c in chars():
        d = unicodedata.decomposition(chr(c))
        if not d or d.startswith("<"):
            continue
        parts = [int(x, 16) for x in d.split()]
        if len(parts) != 2:
            continue
        l, r = parts
        if unicodedata.combining(chr(l)) != 0:
            continue
        if unicodedata.normalize("NFC", chr(l) + chr(r)) == chr(c):
            pairs.append((c, l, r))
    out = []
    prev = 0
    for c, l, r in pairs:
        out.append(enc(c - prev) + enc(zz(l - c)) + enc(zz(r - c)))
        prev = c
    return "".join(out), len(pairs)


def main():
    b2 = {}
    nfkd = {}
    for c in chars():
        ch = chr(c)
        m = stringprep.map_table_b2(ch)
        if m != ch:
            b2[c] = m
        if not (SBASE <= c < SBASE + SCOUNT):
            d = u32.normalize("NFKD", ch)
            if d != ch:
                nfkd[c] = d
    b1 = sorted(stringprep.b1_set)

    def prohibited(ch):
        return (stringprep.in_table_c12(ch) or stringprep.in_table_c22(ch)
                or stringprep.in_table_c3(ch) or stringprep.in_table_c4(ch)
                or stringprep.in_table_c5(ch) or stringprep.in_table_c6(ch)
                or stringprep.in_table_c7(ch) or stringprep.in_table_c8(ch)
                or stringprep.in_table_c9(ch))

    comp, ncomp = comp_blob()
    blobs = [
        ("B1", "code points mapped to nothing (RFC 3454 table B.1)",
         "".join(enc(x) for x in b1)),
        ("B2", "case-fold mapping (RFC 3454 B.2 as computed by CPython)",
         map_blob(b2)),
        ("NFKD", "full compatibility decomposition, Unicode 3.2 (no Hangul)",
         map_blob(nfkd)),
        ("CCC", "canonical combining classes (CPython's current UCD)",
         ccc_blob()),
        ("COMP", "canonical composition pairs (CPython's current UCD)", comp),
        ("PROHIBITED", "RFC 3454 tables C.1.2, C.2.2, C.3-C.9",
         range_blob(ranges(prohibited))),
        ("RANDAL", "bidi R/AL (table D.1)",
         range_blob(ranges(stringprep.in_table_d1))),
        ("LCAT", "bidi L (table D.2)",
         range_blob(ranges(stringprep.in_table_d2))),
    ]
    w = sys.stdout.write
    w("// Generated by gen_tables.py from CPython %s (unicodedata %s); "
      "do not edit by hand.\n" % (sys.version.split()[0],
                                  unicodedata.unidata_version))
    w("// Counts: B2=%d NFKD=%d COMP=%d\n" % (len(b2), len(nfkd), ncomp))
    for name, doc, blob in blobs:
        w("/// Packed %s.\n" % doc)
        w("#[rustfmt::skip]\n")
        if len(blob) <= 96:
            w('pub(super) const %s: &str = "%s";\n' % (name, blob))
            continue
        w("pub(super) const %s: &str = concat!(\n" % name)
        for i in range(0, len(blob), 96):
            w('    "%s",\n' % blob[i:i + 96])
        w(");\n")


main()
