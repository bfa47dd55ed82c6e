#!/usr/bin/env python3
"""LibTorch's own C++ API tests, ported to nabla by the rename, compiled and run.

The tests are test/cpp/api of PyTorch 1.13.1, the source of Debian's libtorch-dev, taken
from Debian's source package (scripts/libtorch_tests.sh fetches it); they are never kept
in this repository. Each file is ported by scripts/port_from_libtorch.sh and nothing else,
split into its top-level pieces (TEST blocks, helpers), and compiled; every piece an error
points at is dropped and the file compiled again, until it compiles. What is left is linked
with the library and run, each file its own program (a crash costs only that file, and its
tests are then run one by one). The same procedure against LibTorch itself gives the
baseline: the tests that compile and pass there, the denominator of every figure.

  libtorch_tests.py --work DIR --side nabla    ports, builds and runs against nabla
  libtorch_tests.py --work DIR --side libtorch builds and runs against LibTorch
  libtorch_tests.py --work DIR --report        the per-file table and the reasons

DIR holds the extracted sources in DIR/src/test/cpp/{api,common}.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

# The files of test_api (test/cpp/api/CMakeLists.txt) that run without a GPU.
FILES = [
    "autograd", "any", "dataloader", "enum", "expanding-array", "fft", "functional",
    "integration", "init", "jit", "memory", "meta_tensor", "misc", "module", "moduledict",
    "modulelist", "modules", "nested", "parameterdict", "parameterlist", "namespace",
    "nn_utils", "optim", "ordered_dict", "rnn", "sequential", "transformer", "serialize",
    "special", "static", "tensor_indexing", "tensor_options", "tensor", "torch_include",
    "inference_mode", "grad_mode", "operations",
]
HEADERS = ["api/support.h", "common/support.h"]
TEST_RE = re.compile(r"^\s*TEST(?:_F)?\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
NAMESPACE_RE = re.compile(r"^\s*(?:inline\s+)?namespace(?:\s+[\w:]+)?\s*$")


# ---- Splitting a file into top-level pieces -------------------------------------------

def split_pieces(text):
    """(start, end, kind) spans of text: 'keep' (preprocessor lines, namespace braces,
    blank space) or 'item' (a declaration or definition at namespace scope)."""
    pieces = []
    i, n = 0, len(text)
    item_start = None
    depth = 0          # braces inside the current item
    ns_stack = 0       # open namespace braces (kept)
    line_start = True

    def flush_item(end):
        nonlocal item_start
        if item_start is not None and text[item_start:end].strip():
            pieces.append((item_start, end, "item"))
        elif item_start is not None:
            pieces.append((item_start, end, "keep"))
        item_start = None

    while i < n:
        c = text[i]
        if line_start and depth == 0 and item_start is None:
            # Preprocessor line (with continuations) at top level: kept.
            j = i
            while j < n and text[j] in " \t":
                j += 1
            if j < n and text[j] == "#":
                k = j
                while k < n:
                    e = text.find("\n", k)
                    e = n if e < 0 else e
                    if e > 0 and text[e - 1] == "\\":
                        k = e + 1
                        continue
                    k = e
                    break
                pieces.append((i, min(k + 1, n), "keep"))
                i = min(k + 1, n)
                line_start = True
                continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        line_start = False
        if c in " \t\r":
            i += 1
            continue
        # Comments and literals are skipped whole.
        if text.startswith("//", i):
            e = text.find("\n", i)
            i = n if e < 0 else e
            continue
        if text.startswith("/*", i):
            e = text.find("*/", i + 2)
            i = n if e < 0 else e + 2
            continue
        if item_start is None:
            if c == "}" and ns_stack > 0:
                ns_stack -= 1
                pieces.append((i, i + 1, "keep"))
                i += 1
                continue
            item_start = i
        if c == "R" and text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i)
                i = n if end < 0 else end + len(m.group(1)) + 2
                continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == "{":
            if depth == 0 and NAMESPACE_RE.match(text[item_start:i]):
                pieces.append((item_start, i + 1, "keep"))
                item_start = None
                ns_stack += 1
                i += 1
                continue
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                # The item ends here unless a ';' or a declarator follows (struct {...} x;).
                j = i + 1
                while j < n and text[j] in " \t\r\n":
                    j += 1
                head = text[item_start:i]
                if j < n and text[j] == ";":
                    flush_item(j + 1)
                    i = j + 1
                    continue
                if re.match(r"\s*(template\s*<[^{]*>\s*)?(struct|class|enum|union|typedef|using)\b",
                            head) or re.search(r"[^=!<>]=[^=]", outside_parens(head)):
                    i += 1
                    continue  # goes on to its ';'
                flush_item(i + 1)
                i += 1
                continue
        elif c == ";" and depth == 0:
            flush_item(i + 1)
            i += 1
            continue
        i += 1
    if item_start is not None:
        flush_item(n)
    return pieces


def outside_parens(head):
    """`head` with every (...) group removed: a default argument's '=' is not an
    initializer's."""
    head = head.lstrip()
    if head.startswith("template"):  # template <..., typename = X>: not an initializer
        depth, i = 0, len("template")
        for i in range(len("template"), len(head)):
            depth += {"<": 1, ">": -1}.get(head[i], 0)
            if depth == 0 and head[i] == ">":
                break
        head = head[i + 1:]
    prev = None
    while prev != head:
        prev, head = head, re.sub(r"\([^()]*\)", "", head)
    return head.split("{")[0]


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def item_spans(text):
    """[(first_line, last_line, test_name or None, start, end)] of the items."""
    out = []
    for s, e, kind in split_pieces(text):
        if kind != "item":
            continue
        m = TEST_RE.match(text[s:e])
        name = f"{m.group(1)}.{m.group(2)}" if m else None
        out.append((line_of(text, s), line_of(text, e - 1), name, s, e))
    return out


def blank_out(text, start, end):
    """The span replaced by its newlines only (line numbers stay)."""
    return text[:start] + "\n" * text.count("\n", start, end) + text[end:]


# ---- Compiling with pruning --------------------------------------------------------------

ERROR_LINE_RE = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):(?:\d+:)?\s*(?P<rest>.*)$")


def error_refs(output, path):
    """{line: first error message} for every line of `path` an error or its instantiation
    chain points at."""
    refs = {}
    block = []  # the lines of one diagnostic: context lines then the error

    def take(block):
        msg = next((m for _, m in block if m.startswith("error:")), None)
        if msg is None:
            return
        for line, _ in block:
            refs.setdefault(line, msg)

    lines = output.splitlines()
    pending = []
    for raw in lines:
        m = ERROR_LINE_RE.match(raw)
        if not m:
            continue
        rest = m.group("rest")
        same = os.path.abspath(m.group("file")) == os.path.abspath(path)
        if rest.startswith("note:") or rest.startswith("warning:"):
            continue
        if same:
            pending.append((int(m.group("line")), rest))
        if rest.startswith("error:"):
            if not same:
                pending.append((-1, rest))
            take(pending)
            pending = []
    return refs


def compile_unit(cmd, src, obj, log):
    r = subprocess.run(cmd + ["-c", src, "-o", obj], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    with open(log, "a") as f:
        f.write(r.stdout)
    return r.returncode == 0, r.stdout


def prune_compile(cmd, path, obj, log, max_rounds=12):
    """Compiles `path`, dropping the items errors point at, until it compiles. Returns
    (compiled, {test name: reason} of the dropped tests, [(item head, reason)] of other
    dropped items)."""
    dropped_tests, dropped_other = {}, []
    for _ in range(max_rounds):
        ok, out = compile_unit(cmd, path, obj, log)
        if ok:
            return True, dropped_tests, dropped_other
        text = open(path).read()
        refs = error_refs(out, path)
        spans = item_spans(text)
        hit = []
        for first, last, name, s, e in spans:
            msgs = [m for l, m in refs.items() if first <= l <= last]
            if not msgs and name:
                # A template instantiated at the end of the unit may name no line of the
                # test, only its gtest class (Suite_Name_Test::TestBody()::Local).
                tag = name.replace(".", "_") + "_Test::TestBody"
                msgs = [line.split("error:", 1)[1].strip() for line in out.splitlines()
                        if tag in line and "error:" in line][:1]
            if msgs:
                hit.append((s, e, name, msgs[0]))
        if not hit:
            first_error = next((l for l in out.splitlines() if "error:" in l), out[-300:])
            return False, {"*": "does not compile: " + first_error.strip()}, dropped_other
        for s, e, name, msg in sorted(hit, reverse=True):
            if name:
                dropped_tests[name] = msg
            else:
                dropped_other.append((text[s:e].strip().splitlines()[0][:80], msg))
            text = blank_out(text, s, e)
        open(path, "w").write(text)
    return False, {"*": "still failing after pruning"}, dropped_other


# ---- Running --------------------------------------------------------------------------

def run_tests(exe, names, cwd, timeout):
    """{test: ('pass'|'fail'|'crash'|'timeout', message)}"""
    results = {}
    out_json = exe + ".json"
    if os.path.exists(out_json):
        os.remove(out_json)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    try:
        r = subprocess.run([exe, f"--gtest_output=json:{out_json}"], cwd=cwd, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace", timeout=timeout)
        whole_ok = os.path.exists(out_json) and r.returncode in (0, 1)
    except subprocess.TimeoutExpired:
        whole_ok = False
    if whole_ok:
        data = json.load(open(out_json))
        for suite in data.get("testsuites", []):
            for t in suite.get("testsuite", []):
                name = f"{suite['name']}.{t['name']}"
                if t.get("result") == "SKIPPED" or t.get("status") == "NOTRUN":
                    results[name] = ("skip", "")
                elif t.get("failures"):
                    results[name] = ("fail", t["failures"][0].get("failure", "")[:400])
                else:
                    results[name] = ("pass", "")
        return results
    # One by one: which test crashes or hangs.
    for name in names:
        try:
            r = subprocess.run([exe, f"--gtest_filter={name}"], cwd=cwd, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace", timeout=120)
            if r.returncode == 0 and "[  PASSED  ] 1 test" in r.stdout:
                results[name] = ("pass", "")
            elif r.returncode == 1:
                fail = re.search(r"Failure\n(.*?)\n\[  FAILED", r.stdout, re.S)
                results[name] = ("fail", (fail.group(1) if fail else r.stdout[-400:])[:400])
            elif "0 tests" in r.stdout:
                results[name] = ("skip", "")
            else:
                results[name] = ("crash", f"exit {r.returncode}: " + r.stdout[-300:])
        except subprocess.TimeoutExpired:
            results[name] = ("timeout", "over 120 s")
    return results


# ---- One side -------------------------------------------------------------------------

def side_flags(args):
    if args.side == "libtorch":
        cflags = ["-std=gnu++17", "-I/usr/include/torch/csrc/api/include", "-D_GLIBCXX_USE_CXX11_ABI=1"]
        libs = ["-ltorch", "-ltorch_cpu", "-lc10", "-lgtest", "-pthread"]
        pch = "#include <gtest/gtest.h>\n#include <torch/torch.h>\n"
    else:
        pc = ["pkg-config", "--static"]
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(args.prefix, "lib", "pkgconfig"))
        cflags = subprocess.run(pc + ["--cflags", "nabla"], env=env, check=True,
                                stdout=subprocess.PIPE, text=True).stdout.split()
        libs = subprocess.run(pc + ["--libs", "nabla"], env=env, check=True,
                              stdout=subprocess.PIPE, text=True).stdout.split()
        libs += ["-lgmock", "-lgtest", "-pthread"]
        # gmock too: LibTorch's ATen/core/boxing/impl/test_helpers.h, which the rename
        # turns into nabla.h, brought it to the tests that use its matchers.
        pch = "#include <gmock/gmock.h>\n#include <gtest/gtest.h>\n#include <nabla/nabla.h>\n"
    return cflags, libs, pch


def build_side(args):
    root = os.path.join(args.work, args.side)
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(os.path.join(args.work, "src"), root)
    if args.side == "nabla":
        subprocess.run(["bash", args.port, os.path.join(root, "test")], check=True)
    cflags, libs, pch_text = side_flags(args)
    base = ["g++", "-O0", "-g0", "-w", "-fmax-errors=0", "-ftemplate-backtrace-limit=0", "-I", root] + cflags
    # A precompiled header of the library's and gtest's headers, used by every unit.
    pch = os.path.join(root, "pch.h")
    open(pch, "w").write(pch_text)
    subprocess.run(base + ["-x", "c++-header", pch, "-o", pch + ".gch"], check=True)
    cmd = base + ["-include", pch, "-Winvalid-pch"]
    log = os.path.join(root, "build.log")
    api = os.path.join(root, "test", "cpp", "api")
    # The shared helpers first: items of the support headers that do not compile are
    # dropped (the tests that use them then drop in turn).
    helper = os.path.join(api, "support.cpp")
    dropped_helpers = []
    for h in HEADERS:
        hp = os.path.join(root, "test", "cpp", h)
        probe = os.path.join(api, "probe_" + os.path.basename(h) + ".cpp")
        open(probe, "w").write(f'#include "{hp}"\n')
        for _ in range(8):
            ok, out = compile_unit(cmd, probe, probe + ".o", log)
            if ok:
                break
            text = open(hp).read()
            refs = error_refs(out, hp)
            hit = [(s, e) for f, l, _, s, e in item_spans(text)
                   if any(f <= x <= l for x in refs)]
            if not hit:
                break
            for s, e in sorted(hit, reverse=True):
                dropped_helpers.append(text[s:e].strip().splitlines()[0][:80])
                text = blank_out(text, s, e)
            open(hp, "w").write(text)
    ok, _, dropped_support = prune_compile(cmd, helper, helper + ".o", log)
    dropped_helpers += [head for head, _ in dropped_support]
    main = os.path.join(root, "test", "cpp", "common", "main.cpp")
    ok_main, _ = compile_unit(cmd, main, main + ".o", log)
    if not (ok and ok_main):
        sys.exit(f"{args.side}: support.cpp or main.cpp does not compile; see {log}")

    def one(name):
        src = os.path.join(api, name + ".cpp")
        text = open(src).read()
        tests = [t for _, _, t, _, _ in item_spans(text) if t]
        obj = src + ".o"
        flog = src + ".log"
        compiled, dropped, other = prune_compile(cmd, src, obj, flog)
        result = {"tests": tests, "dropped": dropped, "dropped_items": other, "run": {}}
        if compiled:
            exe = os.path.join(api, name + ".exe")
            link = subprocess.run(["g++", obj, helper + ".o", main + ".o", "-o", exe] + libs,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if link.returncode != 0:
                result["dropped"] = {"*": "does not link: " + link.stdout[-300:]}
            else:
                kept = [t for t in tests if t not in dropped]
                result["run"] = run_tests(exe, kept, api, args.timeout)
        print(f"{args.side}: {name}: {len(tests)} tests, {len(dropped)} dropped, "
              f"{sum(1 for v in result['run'].values() if v[0] == 'pass')} pass", flush=True)
        return name, result

    results = {"helpers_dropped": dropped_helpers, "files": {}}
    out = os.path.join(args.work, args.side + ".json")
    if args.files and os.path.exists(out):  # a partial run updates the earlier results
        results["files"] = json.load(open(out)).get("files", {})
    files = args.files or FILES
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, r in pool.map(one, files):
            results["files"][name] = r
    with open(out, "w") as f:
        json.dump(results, f, indent=1)


# ---- The report -----------------------------------------------------------------------

def reason_key(msg):
    """A failing compile's message reduced to what is missing (names, not positions)."""
    msg = re.sub(r"^error:\s*", "", msg)
    msg = re.sub(r"‘|’", "'", msg)
    return msg[:110]


def report(args):
    base = json.load(open(os.path.join(args.work, "libtorch.json")))
    ours = json.load(open(os.path.join(args.work, "nabla.json")))
    rows, totals = [], collections.Counter()
    reasons, failures = collections.Counter(), []
    for name in FILES:
        b = base["files"].get(name)
        o = ours["files"].get(name, {"tests": [], "dropped": {"*": "not run"}, "run": {}})
        if not b:
            continue
        denom = [t for t, (st, _) in b["run"].items() if st == "pass"]
        c = collections.Counter()
        for t in denom:
            if "*" in o["dropped"] or t in o["dropped"] or t not in o["run"]:
                c["no compile"] += 1
                why = o["dropped"].get(t) or o["dropped"].get("*") or "not found"
                reasons[reason_key(why)] += 1
                continue
            st, msg = o["run"][t]
            c["compile"] += 1
            c[st] += 1
            if st != "pass":
                failures.append((name, t, st, msg.replace("\n", " ")[:160]))
        rows.append((name, len(denom), c))
        totals["tests"] += len(denom)
        totals.update(c)
    w = sys.stdout.write
    w("| file | tests | compile | pass | fail | crash/hang |\n| --- | --- | --- | --- | --- | --- |\n")
    for name, n, c in rows:
        w(f"| {name}.cpp | {n} | {c['compile']} | {c['pass']} | {c['fail']} | "
          f"{c['crash'] + c['timeout']} |\n")
    t = totals
    pct = lambda k: f"{100.0 * t[k] / max(t['tests'], 1):.0f}%"
    w(f"| **all** | **{t['tests']}** | **{t['compile']} ({pct('compile')})** | "
      f"**{t['pass']} ({pct('pass')})** | **{t['fail']}** | **{t['crash'] + t['timeout']}** |\n")
    w("\nWhy tests do not compile (first error of each dropped test, by count):\n")
    for msg, k in reasons.most_common(args.reasons):
        w(f"  {k:4d}  {msg}\n")
    w("\nTests that compile but do not pass:\n")
    for name, test, st, msg in failures:
        w(f"  {name}: {test} [{st}] {msg}\n")
    w(f"\nlibtorch_tests: {t['pass']} passed, {t['tests'] - t['pass']} failed\n")
    if args.floor and t["pass"] < args.floor:
        sys.exit(f"libtorch_tests: {t['pass']} passing is below the recorded floor of "
                 f"{args.floor} (scripts/libtorch_tests.floor): a regression")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--side", choices=["nabla", "libtorch"])
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--prefix", help="nabla's install prefix (for pkg-config)")
    ap.add_argument("--port", default=os.path.join(os.path.dirname(__file__),
                                                   "port_from_libtorch.sh"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=900, help="seconds per test program")
    ap.add_argument("--reasons", type=int, default=40)
    ap.add_argument("--floor", type=int, default=0,
                    help="--report fails when fewer tests than this pass")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    args.work = os.path.abspath(args.work)
    if args.side:
        build_side(args)
    if args.report:
        report(args)


if __name__ == "__main__":
    main()
