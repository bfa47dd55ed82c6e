#!/usr/bin/env python3
"""Fails on an #include that goes up the layers or into another layer's private headers
(docs/architecture.md, "Layers").

A file of layer L (src/L/... or include/nabla/L/...) may include headers of L and of the
layers below it only, named from the root: an include through "../" is refused too. The
headers under src/K/ are K's own: another layer includes K's public headers
(include/nabla/K/, with include/nabla/K/detail/ for what is shared but not API).
Exceptions still being removed are listed in ALLOWED with
the reason; an exception that no longer occurs must be deleted from the list, so the list
only shrinks.
"""
import os
import re
import sys

# serialize (archives and file formats) needs only tensors, so it sits below nn: modules and
# optimizers write themselves into archives.
# graph (the static graph) needs ops and autograd; it sits above nn, optim and data so that
# tracing may record modules.
# distributed (process groups, DDP) wraps modules and hooks into autograd: above graph.
LAYERS = ["core", "backend", "autograd", "ops", "serialize", "nn", "optim", "data", "graph",
          "distributed", "utils"]
RANK = {name: i for i, name in enumerate(LAYERS)}
# The op lists are declarations every layer expands (core/op_list/*.def): they are core's.

# (including file, included header): why it is still there. Empty: every include goes down.
ALLOWED = {}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def layer_of_path(path):
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[:2] == ["include", "nabla"] and len(parts) > 3:
        return parts[2]
    return None


def layer_of_include(inc):
    parts = inc.split("/")
    if parts[0] == "nabla":
        if len(parts) == 2:  # umbrella headers: nabla/nabla.h, nabla/nn.h, ...
            name = parts[1].split(".")[0]
            return "utils" if name == "nabla" else name if name in RANK else None
        return parts[1]
    return parts[0] if parts[0] in RANK else None


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    os.chdir(root)
    violations, seen = [], set()
    for top in ("src", "include/nabla"):
        for dirpath, _, files in os.walk(top):
            for f in files:
                if not f.endswith((".h", ".cpp", ".inc", ".def")):
                    continue
                path = os.path.join(dirpath, f)
                mine = layer_of_path(path)
                if mine not in RANK:
                    continue
                text = open(path, encoding="utf-8").read()
                for inc in INCLUDE.findall(text):
                    if inc.startswith("../") or "/../" in inc:
                        # A relative path out of the folder names no layer: the build's
                        # per-layer include views would not catch where it lands.
                        violations.append(f"{path} includes \"{inc}\": name headers from the "
                                          "root (\"nabla/...\" or \"<layer>/...\"), not by ../")
                        continue
                    theirs = layer_of_include(inc)
                    if (theirs in RANK and theirs != mine and not inc.startswith("nabla/")
                            and os.path.exists(os.path.join("src", inc))):
                        violations.append(f"{path} ({mine}) includes \"{inc}\", a private header "
                                          f"of {theirs}: move what it needs to "
                                          f"include/nabla/{theirs}/ (detail/ if not API)")
                        continue
                    if theirs not in RANK or RANK[theirs] <= RANK[mine]:
                        continue
                    key = (path, inc)
                    if key in ALLOWED:
                        seen.add(key)
                        continue
                    violations.append(f"{path} ({mine}) includes \"{inc}\" ({theirs})")
    stale = sorted(set(ALLOWED) - seen)
    for path, inc in stale:
        violations.append(f"ALLOWED lists {path} -> {inc}, which no longer occurs: delete it")
    if violations:
        print(f"check_layers: {len(violations)} include(s) going up the layers "
              f"({' < '.join(LAYERS)}) or into another layer's private headers:",
              file=sys.stderr)
        for v in violations:
            print("  " + v, file=sys.stderr)
        return 1
    print(f"check_layers: no include goes up or into another layer's src/ "
          f"({len(ALLOWED)} listed exceptions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
