#!/usr/bin/env python3
"""Module-dependency graph and import cycles of a Rust crate, from source text only.

Usage:  python3 scripts/module-cycles.py [CRATE_SRC_DIR] [--tests] [--edges] [--why A B]

  CRATE_SRC_DIR  default: core/src (relative to the current directory)
  --tests        also count references inside `#[cfg(test)]` items (default: left out)
  --edges        print every edge with the file:line of its first few references
  --why A B      print the references that make the edge A -> B
  --dot          print the graph in Graphviz dot form

A module is a file (`foo.rs`) or a directory module (`foo/mod.rs`); inline `mod x { }`
blocks are folded into the file that holds them. References counted: `use crate::...`
(with `{...}` groups), `crate::a::b` paths anywhere in code, `super::` and `self::` paths
(resolved against the file and inline-module nesting). Comments, strings and `$crate`
are ignored. Prints the strongly connected components of size > 1 (Tarjan), biggest
first, and exits 1 when there is at least one (so it can gate CI), else 0.
No dependencies beyond the Python 3 standard library.
"""
import os
import re
import sys
from collections import defaultdict


def strip_comments_and_strings(text):
    """Replace comments and string/char literals by spaces, keeping newlines (so line
    numbers stay right)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth += 1
                    j += 2
                elif text.startswith("*/", j):
                    depth -= 1
                    j += 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r(#*)"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            close = '"' + m.group(1)
            j = text.find(close, i + len(m.group(0)))
            j = n if j < 0 else j + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            # char literal ('a', '\n', '\u{..}') vs lifetime ('a)
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:i + 12])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def discover(src):
    """Map module path (tuple) -> file path."""
    mods = {}
    for root, _dirs, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            full = os.path.join(root, f)
            rel = os.path.relpath(full, src)[:-3].split(os.sep)
            if rel == ["lib"] or rel == ["main"]:
                key = ()
            elif rel[-1] == "mod":
                key = tuple(rel[:-1])
            else:
                key = tuple(rel)
            mods[key] = full
    return mods


def resolve(path, mods):
    """Longest prefix of `path` that is a known module."""
    for k in range(len(path), -1, -1):
        if tuple(path[:k]) in mods:
            return tuple(path[:k])
    return ()


def expand_use(tree):
    """Expand a `use` tree text like `crate::{a::{B, c}, d}` into list of paths."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)

    def split_top(s):
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        if cur:
            parts.append(cur)
        return parts

    def rec(s):
        i = s.find("{")
        if i < 0:
            return [s]
        prefix = s[:i]
        inner = s[i + 1:s.rfind("}")]
        res = []
        for part in split_top(inner):
            for p in rec(part):
                res.append(prefix + p)
        return res

    return rec(tree)


IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def scan(src, include_tests):
    mods = discover(src)
    edges = defaultdict(list)  # (a, b) -> [file:line]
    for mod, path in sorted(mods.items()):
        raw = open(path, encoding="utf-8").read()
        text = strip_comments_and_strings(raw).replace("$crate", "      ")
        lines_at = [0]
        for m in re.finditer("\n", text):
            lines_at.append(m.end())

        def lineno(pos):
            lo, hi = 0, len(lines_at) - 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if lines_at[mid] <= pos:
                    lo = mid
                else:
                    hi = mid - 1
            return lo + 1

        # inline-module and cfg(test) regions via brace tracking
        # region list: (start, end, depth_of_inline_mod, is_test)
        regions = []
        stack = []  # entries: (kind, start, is_test) kind in {"mod", "other"}
        pending_mod = None
        pending_test = False
        tok = re.compile(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]|\bmod\s+" + IDENT + r"\s*\{|[{};]")
        for m in tok.finditer(text):
            t = m.group(0)
            if t.startswith("#"):
                pending_test = True
            elif t.startswith("mod"):
                stack.append(("mod", m.end(), pending_test))
                pending_test = False
            elif t == "{":
                stack.append(("other", m.end(), pending_test))
                pending_test = False
            elif t == "}":
                if stack:
                    kind, start, is_test = stack.pop()
                    regions.append((start, m.start(), kind, is_test))
            elif t == ";":
                pending_test = False

        def context(pos):
            depth, test = 0, False
            for start, end, kind, is_test in regions:
                if start <= pos < end:
                    if kind == "mod":
                        depth += 1
                    if is_test:
                        test = True
            return depth, test

        def add(target_path, pos):
            depth, test = context(pos)
            if test and not include_tests:
                return
            tgt = resolve(target_path, mods)
            ref = "%s:%d" % (os.path.relpath(path), lineno(pos))
            if tgt != mod and ref not in edges[(mod, tgt)]:
                edges[(mod, tgt)].append(ref)

        def rel_base(kind, count, pos):
            depth, _ = context(pos)
            base = list(mod)
            ups = count - depth if kind == "super" else -depth
            # `self::` in an inline mod refers to that inline mod (i.e. same file);
            # each `super` beyond the inline depth climbs one real module.
            if ups > 0:
                base = base[:len(base) - ups] if ups <= len(base) else []
            return base

        # use statements (may span lines)
        for m in re.finditer(r"\buse\s+((?:crate|super|self)(?:::|\s)[^;]*);", text):
            tree = m.group(1)
            for p in expand_use(tree):
                segs = [s for s in p.split("::") if s]
                if not segs:
                    continue
                if segs[0] == "crate":
                    add(segs[1:], m.start())
                else:
                    count = 0
                    while segs and segs[0] == "super":
                        count += 1
                        segs = segs[1:]
                    if count:
                        add(rel_base("super", count, m.start()) + segs, m.start())
                    elif segs and segs[0] == "self":
                        add(rel_base("self", 0, m.start()) + segs[1:], m.start())
        # inline paths outside `use`
        use_spans = [(m.start(), m.end()) for m in re.finditer(r"\buse\s+[^;]*;", text)]

        def in_use(pos):
            return any(a <= pos < b for a, b in use_spans)

        for m in re.finditer(r"(?<![\w$])crate((?:::" + IDENT + r")+)", text):
            if in_use(m.start()):
                continue
            add([s for s in m.group(1).split("::") if s], m.start())
        for m in re.finditer(r"(?<![\w:$])((?:super::)+)((?:" + IDENT + r"::)*" + IDENT + r")", text):
            if in_use(m.start()):
                continue
            count = m.group(1).count("super")
            add(rel_base("super", count, m.start()) + m.group(2).split("::"), m.start())
    return mods, edges


def tarjan(nodes, adj):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    for v in nodes:
        if v not in index:
            strong(v)
    return out


def name(m):
    return "::".join(m) if m else "(crate root)"


def main():
    args = sys.argv[1:]
    src = "core/src"
    include_tests = "--tests" in args
    pos = [a for a in args if not a.startswith("--")]
    why = None
    if "--why" in args:
        i = args.index("--why")
        why = (args[i + 1], args[i + 2])
        pos = [a for a in pos if a not in why]
    if pos:
        src = pos[0]
    mods, edges = scan(src, include_tests)
    # the crate root only declares modules and re-exports: leave its edges out of cycles
    adj = defaultdict(set)
    for (a, b) in edges:
        if a != () and b != ():
            adj[a].add(b)
    if why:
        key = (tuple(why[0].split("::")), tuple(why[1].split("::")))
        for ref in edges.get(key, []):
            print(ref)
        return 0
    if "--dot" in args:
        print("digraph core {")
        for a in sorted(adj):
            for b in sorted(adj[a]):
                print('  "%s" -> "%s";' % (name(a), name(b)))
        print("}")
        return 0
    if "--edges" in args:
        for (a, b), refs in sorted(edges.items()):
            print("%s -> %s  (%d refs: %s)" % (name(a), name(b), len(refs), ", ".join(refs[:3])))
        return 0
    sccs = [sorted(c) for c in tarjan(sorted(mods), adj) if len(c) > 1]
    sccs.sort(key=lambda c: -len(c))
    print("modules: %d, edges: %d (tests %s)" % (len(mods), sum(len(v) for v in adj.values()),
                                                  "included" if include_tests else "left out"))
    if not sccs:
        print("no import cycle")
        return 0
    for i, comp in enumerate(sccs, 1):
        cs = set(comp)
        print("cycle group %d: %d modules: %s" % (i, len(comp), ", ".join(name(m) for m in comp)))
        for a in comp:
            for b in sorted(adj[a] & cs):
                refs = edges[(a, b)]
                print("   %s -> %s  [%d] %s" % (name(a), name(b), len(refs), ", ".join(refs[:2])))
    return 1


if __name__ == "__main__":
    sys.exit(main())
