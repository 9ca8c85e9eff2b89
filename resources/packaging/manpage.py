#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a man page from a program's own --help and --version.

    manpage.py PROGRAM --name "one line" --section 1 --see-also holdpoint-ctl(1) > PROGRAM.1

The page is made from what the binary prints, so it never says something
--help does not. Both help layouts the project has are read: Qt's
QCommandLineParser ("Options:", each option then its text in a column) and
holdpoint-ctl's ("Commands:", each command's synopsis, possibly over several
lines, then its text in a column). A heading line ("Options:", "Commands:")
starts a section; an entry line is indented two spaces; a line indented to
the text column continues the entry's text; a line indented less continues
its synopsis; a paragraph at the left margin after the entries becomes a
section of its own, titled by its first words (see TITLES).
"""

import argparse
import os
import re
import subprocess
import sys
from collections import Counter

# A trailing paragraph's section, chosen by how it starts.
TITLES = (
    ("Exit ", "EXIT STATUS"),
    ("The console is found", "FILES"),
    ("--team", "TEAM MODE"),
)


def roff(text):
    """Escapes text for roff: backslashes, hyphens that are options, and a leading dot or quote."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"(?<![\w])-", r"\\-", text)
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def bold_synopsis(text):
    """Synopsis words in bold, placeholders (NAME or <value>) in italics."""
    out = []
    for word in re.split(r"(\s+)", text):
        if not word or word.isspace():
            out.append(word)
            continue
        m = re.fullmatch(r"([\[\(]*)(.*?)([\]\)\.,]*)", word)
        lead, core, tail = m.groups()
        if re.fullmatch(r"[A-Z][A-Z_.]*|<[^>]+>", core):
            out.append(f"{roff(lead)}\\fI{roff(core)}\\fR{roff(tail)}")
        elif core:
            out.append(f"{roff(lead)}\\fB{roff(core)}\\fR{roff(tail)}")
        else:
            out.append(roff(word))
    return "".join(out)


def text_column(lines):
    """The column the entries' text starts at: the commonest deep indentation."""
    depths = Counter(len(l) - len(l.lstrip(" ")) for l in lines if l.startswith("  ") and l.strip())
    deep = [d for d, _ in depths.most_common() if d >= 10]
    return deep[0] if deep else 24


def split_entry(line, col):
    """An entry line's synopsis and, when it reaches the text column, its text."""
    if len(line) > col and line[col - 1] == " " and line[col] != " ":
        head, tail = line[:col].rstrip(), line[col:]
        # holdpoint-ctl's text starts with a capitalised word; a placeholder
        # (NAME) that happens to sit at the column is still synopsis.
        if head.strip() and (re.match(r"[A-Z][a-z]", tail) or line[col - 2] == " "):
            return head.strip(), tail.strip()
    return line.strip(), ""


def parse(help_text):
    lines = help_text.rstrip("\n").split("\n")
    usage = lines[0]
    assert usage.startswith("Usage: "), f"--help does not start with Usage: {usage!r}"
    usage = usage[len("Usage: "):]
    body = lines[1:]
    col = text_column(body)
    intro, sections, trailing = [], [], []
    entries = None
    para = []
    for line in body:
        if re.fullmatch(r"[A-Z][A-Za-z ]*:", line):
            entries = []
            sections.append((line[:-1], entries))
            continue
        if entries is not None and line.startswith("  "):
            indent = len(line) - len(line.lstrip(" "))
            if indent == 2:
                synopsis, text = split_entry(line, col)
                if entries and not entries[-1]["text"]:
                    entries[-1]["synopsis"].append(synopsis)  # several commands, one text
                    entries[-1]["text"].extend([text] if text else [])
                else:
                    entries.append({"synopsis": [synopsis], "text": [text] if text else []})
            elif indent >= col:
                entries[-1]["text"].append(line.strip())
            else:
                entries[-1]["synopsis"][-1] += " " + line.strip()
            continue
        if not line.strip():
            if para:
                (trailing if entries is not None else intro).append(" ".join(para))
                para = []
            continue
        para.append(line.strip())
    if para:
        (trailing if entries is not None else intro).append(" ".join(para))
    return usage, intro, sections, trailing


def page(program, name, section, version, help_text, see_also, description):
    usage, intro, sections, trailing = parse(help_text)
    program_name = os.path.basename(program)
    usage = re.sub(r"^\S*" + re.escape(program_name), program_name, usage)
    out = [
        f'.TH {program_name.upper()} {section} "" "{program_name} {version}" "User Commands"',
        ".nh",
        ".SH NAME",
        f"{roff(program_name)} \\- {roff(name)}",
        ".SH SYNOPSIS",
        bold_synopsis(usage),
        ".SH DESCRIPTION",
    ]
    for p in intro + ([description] if description else []):
        out += [roff(p), ".PP"]
    if out[-1] == ".PP":
        out.pop()
    for title, entries in sections:
        out.append(f".SH {title.upper()}")
        for e in entries:
            out.append(".TP")
            out.append(bold_synopsis(e["synopsis"][0]))
            for more in e["synopsis"][1:]:
                out += [".TQ", bold_synopsis(more)]
            out.append(roff(" ".join(e["text"])))
    titled = {}
    for p in trailing:
        title = next((t for start, t in TITLES if p.startswith(start)), "NOTES")
        titled.setdefault(title, []).append(p)
    for title, paras in titled.items():
        out.append(f".SH {title}")
        for i, p in enumerate(paras):
            if i:
                out.append(".PP")
            out.append(roff(p))
    if see_also:
        out += [".SH SEE ALSO", ",\n".join(f"\\fB{roff(s.split('(')[0])}\\fR({s.split('(')[1]}" for s in see_also)]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("program")
    ap.add_argument("--name", required=True, help="the NAME line's description")
    ap.add_argument("--section", default="1")
    ap.add_argument("--see-also", action="append", default=[])
    ap.add_argument("--description", default="", help="a paragraph after --help's own description")
    args = ap.parse_args()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = lambda *a: subprocess.run([args.program, *a], capture_output=True, text=True, env=env, check=True).stdout
    version = run("--version").split()[-1]
    sys.stdout.write(page(args.program, args.name, args.section, version, run("--help"), args.see_also,
                          args.description))


if __name__ == "__main__":
    main()
