#!/usr/bin/env python3
"""Writes the seed corpus of cell_parser_fuzz (tests/fuzz/corpus): one valid cell of each kind
after the input's shape bytes, and all of them in one input, so the fuzzer starts from cells that
pass the checks and mutates them field by field. See cell_parser_fuzz.cpp for the input format."""
import os
import struct

# 4 eager slots of 128 bytes, a receive of 100 bytes, bounce chunks of 64 bytes; slot claims
# (rank 0, rank 1, free, rank 0); the 8 requests' sizes.
HEAD = bytes([3, 1, 100, 0]) + bytes([1, 2, 0, 1]) + bytes([40, 200, 100, 50, 10, 20, 30, 0])


def rid(index, generation=1):
    return (generation << 32) | (index + 1)


def cell(source, kind, flags=0, context=0, tag=0, size=0, body=b"", extra=0):
    seq = source | (extra << 8)
    return struct.pack("<IBBHiI", seq, kind, flags, context, tag, size) + body.ljust(48, b"\0")


CELLS = {
    "inline": cell(0, 1, tag=5, size=8, body=b"12345678"),
    "inline_sync": cell(1, 1, flags=1, tag=7, size=40, body=b"x" * 40 + struct.pack("<Q", 77)),
    "eager": cell(0, 2, tag=3, size=100, body=struct.pack("<IIQ", 0, 0, 0)),
    "rts": cell(0, 3, tag=9, body=struct.pack("<QQQ", 60, rid(3), 0x1000), extra=61),
    "ack": cell(0, 4, body=struct.pack("<QQ", rid(0), 0)),
    "fin": cell(1, 5, body=struct.pack("<QQ", rid(1), 0)),
    "cts": cell(0, 6, body=struct.pack("<QQ", rid(2), rid(7))),
    "assist": cell(1, 8, body=struct.pack("<QQQII", rid(3), 0x2000, 50, 1, 4096)),
    "consumed": cell(0, 7),
    "inline_ready": cell(1, 1, flags=2, tag=7, size=48, body=b"r" * 48),
    "eager_ready": cell(1, 2, flags=2, tag=3, size=100, body=struct.pack("<IIQ", 1, 0, 0)),
    "ready": cell(1, 9, body=struct.pack("<QIi", 5, 2, 7), extra=5),
    "withdraw": cell(0, 10, body=struct.pack("<QIi", 3, 0, 9)),
}

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
os.makedirs(here, exist_ok=True)
for name, c in CELLS.items():
    with open(os.path.join(here, name), "wb") as f:
        f.write(HEAD + c)
with open(os.path.join(here, "all"), "wb") as f:
    f.write(HEAD + b"".join(CELLS.values()))
