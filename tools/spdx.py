#!/usr/bin/env python3
"""Puts an `SPDX-License-Identifier: MIT` line at the top of every tracked source file (C, C++,
CUDA, Fortran, Python, shell, CMake), after a shebang line where there is one, in the comment
syntax of the language. Files that already carry the line are left alone.

Usage: tools/spdx.py [--check]   (--check: list the files without the line, exit 1 if any)
"""
import os
import subprocess
import sys

TAG = "SPDX-License-Identifier: MIT"
BY_SUFFIX = {
    ".cpp": "// {}", ".hpp": "// {}", ".cu": "// {}", ".cuh": "// {}",
    ".c": "/* {} */", ".h": "/* {} */",
    ".f90": "! {}",
    ".py": "# {}", ".sh": "# {}", ".cmake": "# {}", ".cmake.in": "# {}",
}


def comment_style(path):
    name = os.path.basename(path)
    if name == "CMakeLists.txt":
        return "# {}"
    for suffix, style in BY_SUFFIX.items():
        if name.endswith(suffix):
            return style
    if "." not in name and not path.startswith("fuzz/corpus/"):
        with open(path, "rb") as f:  # extensionless scripts (shell, Python): by their shebang
            if f.readline().startswith(b"#!"):
                return "# {}"
    return None


def main():
    check = "--check" in sys.argv[1:]
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True,
                          capture_output=True, text=True).stdout.strip()
    os.chdir(root)
    files = subprocess.run(["git", "ls-files"], check=True, capture_output=True,
                           text=True).stdout.split("\n")
    missing = []
    for path in filter(None, files):
        style = comment_style(path)
        if style is None or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
        head = 1 if lines and lines[0].startswith("#!") else 0
        if any(TAG in line for line in lines[:head + 2]):
            continue
        missing.append(path)
        if not check:
            lines.insert(head, style.format(TAG) + "\n")
            with open(path, "w", encoding="utf-8") as f:
                f.writelines(lines)
    for path in missing:
        print(path)
    if check and missing:
        print(f"spdx: {len(missing)} source file(s) without '{TAG}'", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
