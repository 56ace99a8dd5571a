#!/usr/bin/env python3
"""Rewrite docs/cli.md's `sensim` synopsis block from `sensim --help`
(tests/test_cli.py checks that the two are equal). Usage:
scripts/docs_synopsis.py build/src/cli/sensim"""
import os
import subprocess
import sys

readme_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "cli.md")
head = "## Synopsis\n\n```text synopsis\n"
lines = subprocess.run([sys.argv[1], "--help"], capture_output=True, text=True, check=True).stdout.splitlines()
if lines[0] != "usage:" or not lines[-1].startswith("exit status"):
    sys.exit("unexpected `sensim --help` output")
readme = open(readme_path, encoding="utf-8").read()
a = readme.index(head) + len(head)
b = readme.index("```", a)
new = readme[:a] + "".join(l[2:] + "\n" for l in lines[1:-1]) + readme[b:]
if new != readme:
    open(readme_path, "w", encoding="utf-8").write(new)
