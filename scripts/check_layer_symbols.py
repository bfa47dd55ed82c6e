#!/usr/bin/env python3
"""Fails when a layer's object files use a symbol that a higher layer defines.

scripts/check_layers.py checks the includes before the build; this checks the links after
it (docs/architecture.md, "Layers"): every object of a layer (the list the build writes
to BUILD_DIR/layers/<layer>.objects) is read with nm, and an undefined symbol of layer L
that a layer above L defines is reported with the objects that use it. Usage: check_layer_symbols.py BUILD_DIR (a build of this tree; unity builds
too). Template instances and inline functions (weak symbols) belong to every object that
uses them and are not counted.

KNOWN lists the crossings still being removed, with the reason; one that no longer occurs
must be deleted, so the list only shrinks.
"""
import collections
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_layers import LAYERS, RANK  # noqa: E402

# (layer, defining layer): why the crossing is still there.
KNOWN = {}


def nm(obj, *flags):
    out = subprocess.run(["nm", "-C", *flags, obj], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    build = sys.argv[1]
    defined, used = {}, collections.defaultdict(lambda: collections.defaultdict(set))
    found = 0
    for layer in LAYERS:
        listing = os.path.join(build, "layers", f"{layer}.objects")
        if not os.path.exists(listing):  # a layer not built (distributed off)
            continue
        for obj in open(listing).read().split():
            found += 1
            for line in nm(obj, "--defined-only", "-g"):
                parts = line.split(" ", 2)
                if len(parts) == 3 and parts[1] in "TDBR":  # strong definitions only
                    defined.setdefault(parts[2], layer)
            for line in nm(obj, "-u"):
                parts = line.split(None, 1)
                if len(parts) == 2 and parts[0] == "U":
                    used[layer][parts[1]].add(os.path.basename(obj))
    if not found:
        print(f"check_layer_symbols: no layer objects under {build}", file=sys.stderr)
        return 2
    problems, seen = [], set()
    for layer in LAYERS:
        for sym, objs in sorted(used[layer].items()):
            owner = defined.get(sym)
            if owner is None or RANK[owner] <= RANK[layer]:
                continue
            if (layer, owner) in KNOWN:
                seen.add((layer, owner))
                continue
            problems.append(f"{layer} uses {owner}'s {sym} (in {', '.join(sorted(objs)[:4])})")
    for key in sorted(set(KNOWN) - seen):
        problems.append(f"KNOWN lists {key[0]} -> {key[1]}, which no longer occurs: delete it")
    for p in problems:
        print("check_layer_symbols:", p)
    if problems:
        return 1
    known = ", ".join(f"{a} -> {b}" for a, b in KNOWN) or "none"
    print(f"check_layer_symbols: {found} objects, no symbol used from a higher layer "
          f"(known crossings: {known})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
