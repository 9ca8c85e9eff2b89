#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the README's layout table against the tree and the build.

The table in README.md ("## Layout") says, for each part, its folder and what
it may use. This checks that:
  1. the table itself has no cycle among the parts;
  2. every header of ours that a part's source reaches, through its own
     includes and theirs (`"..."`, `<...>` and `../` alike), is the part's
     own, a part it may use (directly or through the parts those use), or a
     header the table names file by file; and libpqxx's headers are reached
     only where the table lets a part use libpqxx (itself or through a part);
  2b. the table's parts of core are CMake's (holdpoint_core_library), and
     every tests/**/tst_*.cpp is a Qt Test suite CMake registers;
  3. every library of ours links only parts the table allows (the link graph
     CMake wrote at configure time);
  4. holdpoint-ctl's link closure (the front's and the full program's) has
     none of the parts its row says it never uses, and its binary defines no function
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

MAX_LINES = 800
SPDX = "SPDX-License-Identifier: Apache-2.0"
SOURCE_SUFFIXES = {".h", ".cpp", ".py", ".js", ".mjs", ".ts", ".sql", ".sh", ".css"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
# The PostgreSQL driver's headers (libpqxx's, and libpq's under it).
PQXX = re.compile(r"^(pqxx/|libpq-fe\.h$|postgresql/)")


def parse_table(readme):
    text = readme.read_text(encoding="utf-8")
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    parts = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[1].startswith("`"):
            continue
        name, folder, uses = cells[0], cells[1].strip("`"), cells[2]
        parts[name] = {"folder": folder, "uses": uses.split(":", 1)[0], "row": uses}
    names = set(parts)
    for p in parts.values():
        words = [w.strip() for w in p["uses"].split(",")]
        p["parts"] = {w for w in words if w in names}
        p["files"] = {w.strip("`") for w in words if w.startswith("`") and w.endswith(".h`")}
        p["libpqxx"] = any(w.split(" ", 1)[0] == "libpqxx" for w in words)
        # "never the server or the engine": the parts it must not reach.
        never = re.search(r"never ([^:.;]+)", p["row"])
        p["never"] = {w for w in re.findall(r"\b([a-z-]+)\b", never.group(1)) if w in names} if never else set()
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
    """Why `part` may not include `header` (a path as core's include roots
    spell it: "engine/broker.h"), or None when it may."""
    head = header.split("/", 1)[0] if "/" in header else None
    if head is None or head not in core_parts or head == part:
        return None
    if head in closure(parts, part) or header in parts[part]["files"]:
        return None
    return f"{part} may not include {header} (the table lets it use: " \
           f"{', '.join(sorted(parts[part]['parts'] | parts[part]['files'])) or 'nothing of ours'})"


def may_use_libpqxx(parts, part):
    return any(parts[p]["libpqxx"] for p in closure(parts, part) | {part})


class Includes:
    """The headers of ours each file includes, resolved as the build does:
    next to the file, then core's include roots (core/<part>/...), then ui/."""

    def __init__(self, source):
        self.source = source
        self.direct = {}

    def resolve(self, f, kind, name):
        roots = ([f.parent] if kind == '"' else []) + [self.source / "core", self.source / "ui"]
        for root in roots:
            candidate = (root / name).resolve()
            if candidate.is_file() and self.source in candidate.parents:
                return candidate
        return None

    def of(self, f):
        """(headers of ours, other headers) that `f` includes itself."""
        if f not in self.direct:
            ours, others = [], []
            for kind, name in INCLUDE.findall(f.read_text(encoding="utf-8", errors="replace")):
                found = self.resolve(f, kind, name)
                (ours if found else others).append(found or name)
            self.direct[f] = (ours, others)
        return self.direct[f]

    def reach(self, f):
        """Every header `f` reaches, ours and others, each with the chain of
        includes that reaches it first (breadth first: the shortest)."""
        chains, others, queue = {}, {}, [(f, [])]
        while queue:
            node, chain = queue.pop(0)
            ours, theirs = self.of(node)
            for name in theirs:
                others.setdefault(name, chain)
            for h in ours:
                if h not in chains and h != f:
                    chains[h] = chain + [h]
                    queue.append((h, chain + [h]))
        return chains, others


def part_of(parts, source, path):
    rel = path.relative_to(source).as_posix()
    best = None
    for name, p in parts.items():
        folder = p["folder"].rstrip("/") + "/"
        if rel.startswith(folder) and (best is None or len(folder) > len(parts[best]["folder"])):
            best = name
    return best


def core_spelling(source, path):
    """A header of core as its include roots spell it: engine/broker.h."""
    rel = path.relative_to(source).as_posix()
    return rel[len("core/"):] if rel.startswith("core/") else rel


def file_violations(parts, core_parts, includes, source, part, f):
    """Why the headers `f` (in `part`) reaches are not all its to reach."""
    out = []
    chains, others = includes.reach(f)
    shown = lambda chain: " -> ".join([f.relative_to(source).as_posix()] + [c.relative_to(source).as_posix() for c in chain])
    for h, chain in sorted(chains.items()):
        owner = part_of(parts, source, h)
        if owner is None or owner == part:
            continue
        if owner not in core_parts:
            if owner not in closure(parts, part):
                out.append(f"{shown(chain)}: {part} may not reach {owner}'s headers")
            continue
        why = include_violation(parts, core_parts, part, core_spelling(source, h))
        if why:
            out.append(f"{shown(chain)}: {why}" if len(chain) == 1 else f"{shown(chain)}: through its includes, {why}")
    if not may_use_libpqxx(parts, part):
        for name, chain in sorted(others.items()):
            if PQXX.match(name):
                out.append(f"{shown(chain)} -> <{name}>: {part} may not use libpqxx, itself or through a part")
                break
    return out


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
    ap.add_argument("--suites", type=pathlib.Path, help="the Qt Test suites CMake registers, one source a line")
    args = ap.parse_args()

    parts = parse_table(args.source / "README.md")
    core_parts = {n for n, p in parts.items() if p["folder"].startswith("core/")}
    errors = []
    if len(core_parts) < 10:
        errors.append(f"the layout table lists {len(core_parts)} parts of core, expected at least 10")

    # The checker must be able to say no: a server that includes the engine,
    # the window that includes the team's store in any spelling, and a
    # window whose header reaches libpqxx through one of core's.
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        fake = pathlib.Path(tmp).resolve()
        for folder in ("core/server", "core/team", "core/engine", "core/queue", "ui"):
            (fake / folder).mkdir(parents=True)
        (fake / "core/engine/broker.h").write_text("")
        (fake / "core/server/endpoint.cpp").write_text('#include "engine/broker.h"\n')
        (fake / "core/team/teamstore.h").write_text("#include <pqxx/pqxx>\n")
        (fake / "core/queue/queueitem.h").write_text('#include "../team/teamstore.h"\n')
        (fake / "ui/angle.cpp").write_text("#include <team/teamstore.h>\n")
        (fake / "ui/transitive.cpp").write_text('#include "queue/queueitem.h"\n')
        fake_includes = Includes(fake)
        for part, name, what in (("server", "core/server/endpoint.cpp", "an include of engine/broker.h from server"),
                                 ("ui", "ui/angle.cpp", "an include of <team/teamstore.h> from ui"),
                                 ("ui", "ui/transitive.cpp", "libpqxx reached from ui through queue/queueitem.h")):
            found = file_violations(parts, core_parts, fake_includes, fake, part, fake / name)
            if not found or (what.startswith("libpqxx") and not any("libpqxx" in v for v in found)):
                errors.append(f"self-check: {what} was not refused")

    cycle = find_cycle(parts)
    if cycle:
        errors.append("the table has a cycle: " + " -> ".join(cycle))

    checked = 0
    source = args.source.resolve()
    includes = Includes(source)
    for name, p in sorted(parts.items()):
        folder = source / p["folder"]
        if not folder.is_dir():
            errors.append(f"{name}: folder {p['folder']} does not exist")
            continue
        for f in sorted(folder.rglob("*")):
            if f.suffix not in (".h", ".cpp") or part_of(parts, source, f) != name:
                continue
            checked += len(includes.reach(f)[0])
            errors.extend(file_violations(parts, core_parts, includes, source, name, f))

    # Every Qt Test suite in the tree is one CMake registers.
    if args.suites:
        registered = {line.strip() for line in args.suites.read_text().splitlines() if line.strip()}
        for f in sorted((source / "tests").rglob("tst_*.cpp")):
            rel = f.relative_to(source).as_posix()
            if "node_modules" not in f.parts and rel not in registered:
                errors.append(f"{rel}: a Qt Test suite no holdpoint_add_test() in tests/CMakeLists.txt registers")
        for rel in sorted(registered):
            if not (source / rel).is_file():
                errors.append(f"tests/CMakeLists.txt registers {rel}, which does not exist")

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
    # The parts of core are CMake's: each holdpoint_core_library() is a row.
    built = {t[len("holdpoint_"):] for t in links if t.startswith("holdpoint_")}
    for missing in sorted(built - core_parts):
        errors.append(f"CMake builds the part {missing}, which the layout table does not list")
    for missing in sorted(core_parts - built):
        errors.append(f"the layout table lists the part {missing}, which CMake does not build")
    for target, deps in sorted(links.items()):
        part = target_part.get(target)
        if part is None:
            continue
        allowed = closure(parts, part) | {h.split("/", 1)[0] for h in parts[part]["files"]}
        for d in deps:
            if target_part[d] not in allowed:
                errors.append(f"{target} links {d}, which the table does not let {part} use")
    # The front and the full program it hands every other command to.
    seen = reachable(list(links.get("holdpoint-ctl", [])) + list(links.get("holdpoint-ctl-full", [])),
                     lambda t: links.get(t, []))
    if not parts.get("holdpoint-ctl", {}).get("never"):
        errors.append("the layout table's holdpoint-ctl row says no part it never uses")
    for bad in sorted(parts.get("holdpoint-ctl", {}).get("never", ())):
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

    print(f"layout: {len(parts)} parts, {checked} headers reached, {len(links)} libraries, {too_long} source files checked")
    for e in errors:
        print("layout: " + e)
    print(f"{0 if errors else 1} passed, {1 if errors else 0} failed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
