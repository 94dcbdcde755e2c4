# SPDX-License-Identifier: GPL-2.0
"""The tree's walls, checked on every make check.

The README's map says how kvmtop is laid out: a folder per pipeline stage
under src/ (the program's own files beside them), arch/ at the top, the
views in ui/ and outputs/.  These cases hold the code to that map, so a
change that breaks a wall fails here instead of being found by a reader:

- every .c under src/ is in a stage folder, but the program's own files;
- no header includes itself round a circle of headers, and no file (.c
  or .h) includes a header of a room above its own (LAYERS: a room may
  lean on the rooms below it, never the other way: the readers of
  context/ and ident/ know no model, the samplers write it);
- the tracing libraries' headers only in sources/, decode/, arch/ and the
  driver; curses only in ui/ and the program;
- the views (ui/, outputs/) only read the model: no file of theirs
  includes model/model_feed.h, directly or through other headers;
- no circle of files calling each other: read from the built objects
  (nm), a file A that uses a symbol file B defines depends on B, and no
  file may depend on itself through others;
- no function over 80 lines in src/, ui/, outputs/ and arch/ (kernel
  style: a body opens with '{' and closes with '}' in column 0);
- README's layout map is the tree: it names every room and every .c
  of it (by name or a pattern such as pane_*.c), and nothing that is not
  there;
- every mutation of make mutate still finds its text once
  (tests/mutate.py --check), so a change that moves code keeps that list.

The first oracle is the source text and the compiler's own symbol tables;
none of it is kvmtop's output.
"""
import fnmatch
import os
import re
import subprocess
import sys

from tap import ok, skip, done

SRC = os.environ.get("KVMTOP_SRC", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("KVMTOP_BUILD", os.getcwd())

# The program's own files: the command line, the demo guest, main().
PROGRAM = {"src/main.c", "src/options.c", "src/tables.c", "src/demo.c", "src/options.h", "src/tables.h", "src/demo.h"}
# Rooms from the bottom up: a header may include headers of its own room
# and of rooms on a lower layer only.
LAYERS = {
    "src/util": 0, "src/sym": 0,
    "src/decode": 1, "arch": 1, "src/ident": 1, "src/context": 1,
    "src/model": 2,
    "src/sources": 3, "src/samplers": 3,
    "src/driver": 4,
    "outputs": 5, "ui": 5,
    "src": 6,
}
TRACING = re.compile(r'#include <(event-parse\.h|kbuffer\.h|tracefs\.h|trace-cmd\.h|traceevent/[^>]*)>')
CURSES = re.compile(r'#include <(n?curses[^>]*|term\.h)>')
TRACING_ROOMS = {"src/sources", "src/decode", "arch", "src/driver", "src"}
CURSES_ROOMS = {"ui", "src"}
FUNC_MAX = 80


def files(exts):
    out = []
    for top in ("src", "arch", "ui", "outputs"):
        for root, _, names in os.walk(os.path.join(SRC, top)):
            for n in names:
                if n.endswith(exts):
                    out.append(os.path.relpath(os.path.join(root, n), SRC))
    return sorted(out)


def room(path):
    return os.path.dirname(path)


def includes(path):
    """The project headers path includes, resolved as the compiler does: beside the
    file first, then -I src, then -I the top of the tree."""
    out = []
    for name in re.findall(r'^#include "([^"]+)"', open(os.path.join(SRC, path)).read(), re.M):
        if name == "config.h":
            continue
        # a BPF skeleton: written by the build (bpftool) out of the .bpf.c beside it, in the
        # build tree (a VPATH build's is not in the source tree)
        if name.endswith(".skel.h") and os.path.exists(os.path.join(SRC, room(path), name[:-7] + ".bpf.c")):
            continue
        for cand in (os.path.join(room(path), name), os.path.join("src", name), name):
            if os.path.exists(os.path.join(SRC, cand)):
                out.append(os.path.normpath(cand))
                break
        else:
            out.append("?" + name)
    return out


def cycles(graph):
    """The strongly connected parts of graph (node -> set of nodes) with more than one node."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def rooms_case():
    stray = [f for f in files((".c",)) if f.startswith("src/") and room(f) == "src" and f not in PROGRAM]
    ok(not stray, "every .c under src/ is in a stage folder, but the program's own", stray)
    unknown = sorted({room(f) for f in files((".c", ".h"))} - set(LAYERS))
    ok(not unknown, "every folder of code is a room of the map (LAYERS)", unknown)


def includes_case():
    graph, missing, upward = {}, [], []
    for f in files((".c", ".h")):
        inc = includes(f)
        missing += ["%s: %s" % (f, i[1:]) for i in inc if i.startswith("?")]
        graph[f] = {i for i in inc if not i.startswith("?")}
        for i in graph[f]:
            if LAYERS.get(room(i), 99) > LAYERS.get(room(f), -1):
                upward.append("%s includes %s" % (f, i))
    ok(not missing, "every project header included is found where the build looks", missing)
    ok(not cycles(graph), "no circle of headers including each other", cycles(graph))
    ok(not upward, "no file includes a header of a room above its own", upward)


def closure(f, memo):
    """Every project header f includes, directly or through others."""
    if f in memo:
        return memo[f]
    memo[f] = set()
    out = set()
    for i in includes(f):
        if not i.startswith("?"):
            out |= {i} | closure(i, memo)
    memo[f] = out
    return out


def walls_case():
    bad, feeding, memo = [], [], {}
    for f in files((".c", ".h")):
        if f.split("/")[0] in ("ui", "outputs") and "src/model/model_feed.h" in closure(f, memo):
            feeding.append(f)
    ok(not feeding, "the views include no feeder's header (model_feed.h): they only read the model", feeding)
    for f in files((".c", ".h")):
        text = open(os.path.join(SRC, f)).read()
        if TRACING.search(text) and room(f) not in TRACING_ROOMS:
            bad.append("%s: a tracing library's header" % f)
        if CURSES.search(text) and room(f) not in CURSES_ROOMS:
            bad.append("%s: curses" % f)
    ok(not bad, "the tracing headers stay in the sources, the decoder and the driver; curses in ui/", bad)


def objects():
    """Each engine, view and program .c's built object (not a test's or a sanitizer build's)."""
    out = {}
    for f in files((".c",)):
        d, base = os.path.split(f)
        stem = base[:-2]
        bdir = os.path.join(BUILD, d)
        if not os.path.isdir(bdir):
            continue
        for o in sorted(os.listdir(bdir)):
            if o.endswith(".o") and not o.startswith("tests_") and \
                    (o == stem + ".o" or o.endswith("-" + stem + ".o")):
                out[f] = os.path.join(bdir, o)
                break
    return out


def symbols(obj):
    r = subprocess.run(["nm", obj], capture_output=True, text=True)
    defined, used = set(), set()
    for line in r.stdout.splitlines():
        p = line.split()
        if len(p) == 2 and p[0] == "U":
            used.add(p[1])
        elif len(p) == 3 and p[1] in "TDRBCV":
            defined.add(p[2])
    return defined, used


def calls_case():
    objs = objects()
    if len(objs) < 50:
        skip("no circle of files calling each other", "the objects are not built in %s" % BUILD)
        return
    owner, uses = {}, {}
    for f, o in objs.items():
        d, u = symbols(o)
        for s in d:
            owner.setdefault(s, f)
        uses[f] = u
    graph = {f: {owner[s] for s in u if s in owner and owner[s] != f} for f, u in uses.items()}
    found = cycles(graph)
    detail = []
    for part in found:
        for f in part:
            for g in sorted(graph[f] & set(part)):
                detail.append("%s -> %s: %s" % (f, g, ", ".join(sorted(s for s in uses[f]
                                                                   if owner.get(s) == g))))
    ok(not found, "no circle of files calling each other (from the objects' symbols)", "\n".join(detail))


def libraries_case():
    """The rooms' libraries call each other in one direction only: each is linked before the
    ones it calls (Makefile.am's ENGINE_A), which a circle would make impossible."""
    libs = sorted(f for f in os.listdir(BUILD) if f.startswith("lib") and f.endswith(".a"))
    if len(libs) < 5:
        skip("no circle of rooms' libraries", "the libraries are not built in %s" % BUILD)
        return
    owner, uses = {}, {}
    for lib in libs:
        d, u = symbols(os.path.join(BUILD, lib))
        for s in d:
            owner.setdefault(s, lib)
        uses[lib] = u
    graph = {l: {owner[s] for s in u if s in owner and owner[s] != l} for l, u in uses.items()}
    ok(not cycles(graph), "no circle of rooms' libraries calling each other", cycles(graph))
    order = re.search(r"^ENGINE_A = (.*)$", open(os.path.join(SRC, "Makefile.am")).read(), re.M).group(1).split()
    late = ["%s calls %s, linked before it" % (a, b) for i, a in enumerate(order) for b in order[:i]
            if b in graph.get(a, ())]
    ok(not late, "ENGINE_A links each room's library before the ones it calls", late)


def long_functions():
    out = []
    for f in files((".c",)):
        lines = open(os.path.join(SRC, f)).read().split("\n")
        start = None
        for i, line in enumerate(lines):
            if line.startswith("{"):
                start = i
            elif line.startswith("}") and start is not None:
                # a function's body, not a table: the line before '{' names it with its arguments
                head = lines[start - 1] if start else ""
                if ")" in head and i - start + 1 > FUNC_MAX:
                    out.append("%s:%d: %s (%d lines)" % (f, start, head.strip(), i - start + 1))
                start = None
    return out


def functions_case():
    longs = long_functions()
    ok(not longs, "no function over %d lines in src/, ui/, outputs/, arch/" % FUNC_MAX, "\n".join(longs))


def readme_case():
    text = open(os.path.join(SRC, "README")).read()
    start = text.find("\nLayout:")
    if start < 0:
        ok(False, "README has its layout map (a section starting 'Layout:')")
        return
    lmap = text[start:]
    rooms = [r + "/" for r in LAYERS if r != "src"]
    ok(all(r in lmap for r in rooms), "README's layout map names every room",
       [r for r in rooms if r not in lmap])
    named = set(re.findall(r"\b([A-Za-z_*][\w*]*(?:\.bpf)?\.c)\b", lmap))
    sources = [os.path.basename(f) for f in files((".c",))]
    unnamed = [f for f in sources if not any(fnmatch.fnmatch(f, n) for n in named)]
    ok(not unnamed, "README's layout map names every .c of src/, arch/, ui/, outputs/", unnamed)
    stale = sorted(n for n in named if not any(fnmatch.fnmatch(f, n) for f in sources))
    ok(not stale, "every .c README's layout map names is in the tree", stale)


def mutations_case():
    if os.environ.get("KVMTOP_MUTATE") == "1":
        # make mutate runs the suite with one mutation applied: its own text is then not there
        skip("make mutate: every mutation's text is still once in its file",
             "make mutate runs the suite with a mutation applied (tests/mutate.py)")
        return
    r = subprocess.run([sys.executable, os.path.join(SRC, "tests", "mutate.py"), "--src", SRC, "--check"],
                       capture_output=True, text=True)
    ok(r.returncode == 0, "make mutate: every mutation's text is still once in its file",
       r.stdout + r.stderr)


def main():
    rooms_case()
    includes_case()
    walls_case()
    calls_case()
    libraries_case()
    functions_case()
    readme_case()
    mutations_case()
    done()


if __name__ == "__main__":
    main()
