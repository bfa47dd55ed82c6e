#!/usr/bin/env python3
"""Checks, without a GPU, that host code launches only kernels the device compiled.

nvcc compiles a .cu file twice: once for the device, once for the host. The host side
registers every kernel the device compiled, by name, and launches kernels by the address
of a host stub. If the two compilers see different template arguments for a kernel (the
host compiler sees __device__ functions with their bodies stripped, so a type deduced
from one comes out `void` there: Note [Result types on the device],
src/backend/cuda/elementwise.cu), the host instantiates and launches a kernel that was
never compiled, and every such launch fails with "invalid device function" on a GPU.

For each object file given (nvcc's output for a .cu file): the kernels it registers are
the mangled names stored as strings in it; every class template that appears in their
template arguments (functors, tags) must appear in the host's own symbols only with
arguments some registered kernel uses. Exit status 1 names the ones that do not.

usage: check_cuda_kernels.py OBJECT.cu.o...
"""
import re
import subprocess
import sys


def demangle(names):
    if not names:
        return []
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                         text=True, check=True).stdout.split("\n")
    return out[:len(names)]


def instances(text, templates):
    """Every `Name<...>` in text (brackets balanced) whose Name is in templates."""
    found = []
    for m in re.finditer(r"\b([A-Za-z_]\w*)<", text):
        if m.group(1) not in templates:
            continue
        depth = 0
        for j in range(m.end() - 1, len(text)):
            if text[j] == "<":
                depth += 1
            elif text[j] == ">":
                depth -= 1
                if depth == 0:
                    found.append(text[m.start():j + 1])
                    break
    return found


def canonical(name):
    # nvcc names each file's anonymous namespace; the host compiler says "(anonymous
    # namespace)". Neither matters for the comparison, nor does spacing.
    name = re.sub(r"\(anonymous namespace\)::|_GLOBAL__N__\w+?::", "", name)
    return re.sub(r"\s+", "", name)


def check(obj):
    data = open(obj, "rb").read()
    # The registered kernels: mangled names stored as strings (not symbols) in the object.
    strings = set(m.decode() for m in re.findall(rb"(_Z[A-Za-z0-9_]{8,})\x00", data))
    symbols = [l.split()[-1] for l in subprocess.run(
        ["nm", obj], capture_output=True, text=True, check=True).stdout.splitlines() if l.strip()]
    kernels = sorted(strings - set(symbols))
    registered = [canonical(n) for n in demangle(kernels)]
    templates = set()
    for r in registered:
        args = r[r.find("<") + 1:] if "<" in r else ""
        templates |= set(re.findall(r"([A-Za-z_]\w*)<", args))
    known = set()
    for r in registered:
        known |= set(instances(r, templates))
    host = set()
    for h in demangle(symbols):
        host |= set(instances(canonical(h), templates))
    extra = sorted(host - known)
    for e in extra[:10]:
        print(f"{obj}: host code names {e}, which no compiled kernel uses")
    print(f"{obj}: {len(kernels)} kernels registered, {len(known)} argument types, "
          f"{len(extra)} host-only")
    return not extra


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    # CMake passes a generator expression's list as one argument, ';'-separated.
    objects = [o for arg in sys.argv[1:] for o in arg.split(";") if o]
    if not objects:
        print("check_cuda_kernels.py: no object files given")
        return 1
    ok = all([check(o) for o in objects])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
