#!/usr/bin/env python3
"""The "Options" block of each command's page, docs/cutap-CMD.md: what
`cutap CMD --help` prints, verbatim, between the page's BEGIN and END lines
(the case cli_options_everywhere fails when a page differs from its
command's --help).    gen/help_pages.py [CUTAP]   (default build/cutap)"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUTAP = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "cutap")
BEGIN = "<!-- BEGIN cutap --help: gen/help_pages.py writes this block; cli_options_everywhere checks it -->"
END = "<!-- END cutap --help -->"

for cmd in ["trace", "stat", "report", "dump", "export", "ps", "run", "freeze"]:
    page = os.path.join(ROOT, "docs", "cutap-%s.md" % cmd)
    help_text = subprocess.run([CUTAP, cmd, "--help"], check=True, capture_output=True, text=True).stdout
    with open(page) as f:
        lines = f.read().split("\n")
    starts = [i for i, l in enumerate(lines) if l.startswith("<!-- BEGIN cutap --help")]
    block = [BEGIN, "```"] + help_text.rstrip("\n").split("\n") + ["```", END]
    if not starts:
        while lines and not lines[-1]:
            lines.pop()
        lines += ["", "## Options", ""] + block + [""]
    else:
        i = starts[0]
        j = lines.index(END, i)
        lines[i:j + 1] = block
    with open(page + ".new", "w") as f:
        f.write("\n".join(lines))
    os.replace(page + ".new", page)
