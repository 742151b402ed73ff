#!/usr/bin/env python3
"""Writes a Bristol Fashion circuit of K chained AES-128 encryptions under one
key: block_{i+1} = AES_k(block_i), output block_K. Made from the Bristol
AES-128 file by renumbering its wires, so the result is checked against K
encryptions in plaintext (tandem-run plain). Used to measure tandem-run on
big files (bench/RESULTS.md, "tandem-run --stream").

usage: aes_chain.py AES_128_FILE K > chain.txt
"""
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
    ngates, nwires = int(lines[0][0]), int(lines[0][1])
    assert lines[1] == ['2', '128', '128'] and lines[2] == ['1', '128'], "not the Bristol AES-128 file"
    gates = lines[3:]
    assert len(gates) == ngates
    k = int(sys.argv[2])
    inner = nwires - 256  # wires each copy adds: its gates' outputs
    out = sys.stdout
    total_wires = 256 + k * inner
    out.write(f"{k * ngates} {total_wires}\n2 128 128\n1 128\n\n")
    # Copy c: key = wires 0..127; its block input = bob's wires (c = 0) or the
    # previous copy's output; its own wires w >= 256 go to base + (w - 256).
    # The last copy's output must be the last 128 wires: each copy's outputs
    # are its own last 128 wires, so the last copy ends the numbering.
    prev_out = list(range(128, 256))
    for c in range(k):
        base = 256 + c * inner

        def wire(w):
            w = int(w)
            if w < 128:
                return w
            if w < 256:
                return prev_out[w - 128]
            return base + (w - 256)

        for g in gates:
            nin, nout = int(g[0]), int(g[1])
            ws = [str(wire(w)) for w in g[2:2 + nin + nout]]
            out.write(f"{nin} {nout} {' '.join(ws)} {g[-1]}\n")
        prev_out = [base + (w - 256) for w in range(nwires - 128, nwires)]


if __name__ == "__main__":
    main()
