#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the README's layout table against the tree and the build.

The table in README.md ("## Layout") says, for each part, its folder and what
it may use. This checks that:
  1. the table itself has no cycle among the parts;
  2. every `#include "part/..."` in a part's folder names the part itself, a
     part it may use (directly or through the parts those use), or a header
     the table names file by file;
  3. every library of ours links only parts the table allows (the link graph
     CMake wrote at configure time);
  4. holdpoint-ctl's link closure (the front's and the full program's) has
     neither the server nor the engine, and its binary defines no function
     that those libraries define; the front (the holdpoint-ctl agent CLIs
     start per tool call) needs no Qt, libpq, libpqxx or libcrypto;
  5. no source file of ours (C++, Python, JavaScript, TypeScript, SQL, shell)
     is longer than 800 lines, and each names its license (an SPDX line in its
     first three lines).
Exit 0 when all hold; otherwise every violation is printed and it exits 1.
"""

import argparse
import pathlib
import re
import subprocess
import sys

FORBIDDEN_FOR_CTL = ("server", "engine")
MAX_LINES = 800
SPDX = "SPDX-License-Identifier: Apache-2.0"
SOURCE_SUFFIXES = {".h", ".cpp", ".py", ".js", ".mjs", ".ts", ".sql", ".sh", ".css"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def parse_table(readme):
    text = readme.read_text(encoding="utf-8")
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    parts = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[1].startswith("`"):
            continue
        name, folder, uses = cells[0], cells[1].strip("`"), cells[2]
        parts[name] = {"folder": folder, "uses": uses.split(":", 1)[0]}
    names = set(parts)
    for p in parts.values():
        words = [w.strip() for w in p["uses"].split(",")]
        p["parts"] = {w for w in words if w in names}
        p["files"] = {w.strip("`") for w in words if w.startswith("`") and w.endswith(".h`")}
    return parts


def reachable(starts, following):
    """Everything reachable from `starts`, `following(node)` giving a node's next ones."""
    seen, stack = set(), list(starts)
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(following(node))
    return seen


def closure(parts, name):
    return reachable(parts[name]["parts"], lambda p: parts[p]["parts"])


def find_cycle(parts):
    state = {}

    def visit(p, path):
        if state.get(p) == 1:
            return path[path.index(p):] + [p]
        if state.get(p) == 2:
            return None
        state[p] = 1
        for q in sorted(parts[p]["parts"]):
            c = visit(q, path + [p])
            if c:
                return c
        state[p] = 2
        return None

    for p in sorted(parts):
        c = visit(p, [])
        if c:
            return c
    return None


def include_violation(parts, core_parts, part, header):
    """Why `part` may not include `header`, or None when it may."""
    head = header.split("/", 1)[0] if "/" in header else None
    if head is None or head not in core_parts or head == part:
        return None
    if head in closure(parts, part) or header in parts[part]["files"]:
        return None
    return f"{part} may not include {header} (the table lets it use: " \
           f"{', '.join(sorted(parts[part]['parts'] | parts[part]['files'])) or 'nothing of ours'})"


def defined_functions(path):
    out = subprocess.run(["nm", "--defined-only", "-C", str(path)], check=True, capture_output=True, text=True).stdout
    syms = set()
    for line in out.splitlines():
        bits = line.split(" ", 2)
        if len(bits) == 3 and bits[1] == "T" and bits[2].startswith("holdpoint::"):
            syms.add(bits[2])
    return syms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True, type=pathlib.Path)
    ap.add_argument("--links", required=True, type=pathlib.Path)
    ap.add_argument("--ctl", required=True, type=pathlib.Path)
    ap.add_argument("--front", type=pathlib.Path, help="holdpoint-ctl's front, which must load no Qt")
    ap.add_argument("--archive", action="append", default=[], help="part=path of its static library")
    args = ap.parse_args()

    parts = parse_table(args.source / "README.md")
    core_parts = {n for n, p in parts.items() if p["folder"].startswith("core/")}
    errors = []
    if len(core_parts) < 10:
        errors.append(f"the layout table lists {len(core_parts)} parts of core, expected at least 10")

    # The checker must be able to say no: a server that includes the engine is refused.
    if include_violation(parts, core_parts, "server", "engine/broker.h") is None:
        errors.append("self-check: an include of engine/broker.h from server was not refused")

    cycle = find_cycle(parts)
    if cycle:
        errors.append("the table has a cycle: " + " -> ".join(cycle))

    checked = 0
    for name, p in sorted(parts.items()):
        folder = args.source / p["folder"]
        if not folder.is_dir():
            errors.append(f"{name}: folder {p['folder']} does not exist")
            continue
        for f in sorted(folder.rglob("*")):
            if f.suffix not in (".h", ".cpp"):
                continue
            for header in INCLUDE.findall(f.read_text(encoding="utf-8")):
                checked += 1
                why = include_violation(parts, core_parts, name, header)
                if why:
                    errors.append(f"{f.relative_to(args.source)}: {why}")

    too_long = 0
    for top in ("app", "core", "ui", "resources", "tests", ".ci"):
        for f in sorted((args.source / top).rglob("*")):
            rel = f.relative_to(args.source)
            if "node_modules" in rel.parts or "dist" in rel.parts or not f.is_file():
                continue
            if f.suffix not in SOURCE_SUFFIXES and not (top == ".ci" and f.suffix == ""):
                continue
            lines = f.read_text(encoding="utf-8", errors="replace").splitlines()
            too_long += 1
            if len(lines) > MAX_LINES:
                errors.append(f"{rel}: {len(lines)} lines, more than {MAX_LINES}")
            if not any(SPDX in line for line in lines[:3]):
                errors.append(f"{rel}: no '{SPDX}' line in its first three lines")

    # target: direct links, as CMake recorded them.
    target_part = {f"holdpoint_{n}": n for n in core_parts}
    target_part.update({"ui": "ui", "holdpoint": "holdpoint", "holdpoint-ctl": "holdpoint-ctl",
                        "holdpoint-ctl-full": "holdpoint-ctl"})
    links = {}
    for line in args.links.read_text().splitlines():
        target, _, deps = line.partition(":")
        links[target.strip()] = [d for d in deps.split() if d in target_part]
    for target, deps in sorted(links.items()):
        part = target_part[target]
        allowed = closure(parts, part) | {h.split("/", 1)[0] for h in parts[part]["files"]}
        for d in deps:
            if target_part[d] not in allowed:
                errors.append(f"{target} links {d}, which the table does not let {part} use")
    # The front and the full program it hands every other command to.
    seen = reachable(list(links.get("holdpoint-ctl", [])) + list(links.get("holdpoint-ctl-full", [])),
                     lambda t: links.get(t, []))
    for bad in FORBIDDEN_FOR_CTL:
        if f"holdpoint_{bad}" in seen:
            errors.append(f"holdpoint-ctl links the {bad} library (through {', '.join(sorted(seen))})")
    if "holdpoint-ctl" not in links or not seen:
        errors.append("the link graph has no entry for holdpoint-ctl")

    if args.front:
        dynamic = subprocess.run(["readelf", "-d", str(args.front)], check=True, capture_output=True, text=True).stdout
        needed = re.findall(r"\(NEEDED\).*\[(.+)\]", dynamic)
        heavy = [n for n in needed if re.match(r"lib(Qt|pq|pqxx|crypto|ssl)", n)]
        if not needed:
            errors.append(f"{args.front}: no NEEDED entries found; is it a dynamic executable?")
        for n in heavy:
            errors.append(f"{args.front} (holdpoint-ctl's front) needs {n}: a hook must start without it")

    ctl = defined_functions(args.ctl)
    for spec in args.archive:
        part, _, path = spec.partition("=")
        shared = ctl & defined_functions(path)
        if not defined_functions(path):
            errors.append(f"{path}: no functions found; is it the {part} library?")
        for s in sorted(shared)[:10]:
            errors.append(f"holdpoint-ctl contains {s} from the {part} library")

    print(f"layout: {len(parts)} parts, {checked} includes, {len(links)} libraries, {too_long} source files checked")
    for e in errors:
        print("layout: " + e)
    print(f"{0 if errors else 1} passed, {1 if errors else 0} failed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
