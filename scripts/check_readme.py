#!/usr/bin/env python3
"""Checks the README's promises against what the main job prints.

    scripts/check_readme.py README.md MAIN_JOB_STDOUT

The README must give the two commands on lines of their own (`cargo run --release`, the
main job, and `cargo test --workspace --release`, the tests), and the first ```text block
under "## What it prints" must be the main job's standard output byte for byte. Exits 1
naming what differs.
"""

import difflib
import sys

COMMANDS = ["cargo run --release", "cargo test --workspace --release"]


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    readme_path, stdout_path = argv
    with open(readme_path, encoding="utf-8") as f:
        readme = f.read()
    with open(stdout_path, encoding="utf-8") as f:
        printed = f.read()
    lines = readme.splitlines()
    for command in COMMANDS:
        if command not in lines:
            print(f"{readme_path}: no line `{command}`", file=sys.stderr)
            return 1
    heading = "## What it prints"
    if heading not in readme:
        print(f"{readme_path}: no section {heading!r}", file=sys.stderr)
        return 1
    start = readme.index("```text\n", readme.index(heading)) + len("```text\n")
    block = readme[start : readme.index("```", start)]
    if block != printed:
        diff = difflib.unified_diff(
            block.splitlines(keepends=True),
            printed.splitlines(keepends=True),
            f"{readme_path} ({heading})",
            "what `cargo run --release` printed",
        )
        sys.stderr.writelines(diff)
        return 1
    print(f"{readme_path}: both commands given; the main job printed its table byte for byte")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
