#!/usr/bin/env python3
"""Sizes one can hold in mind: checks the Swift sources against the project's limits.

  files      at most 400 lines each (Sources/ and Tests/);
  functions  at most 120 lines each (Sources/), from the line of `func`, `init` or `deinit` to
             its closing brace;
  folders    at most 25 Swift files directly inside each folder of Sources/.

Prints every breach and exits 1 when there is one. --report also lists the functions over 80
lines (a number to keep going down, not a limit). The function scan reads braces outside
comments, strings and multi-line strings; it is a line count, not a parser, and is exact for
the way this repository is formatted.

Usage: scripts/check-sizes.py [--report] [ROOT]
"""

from __future__ import annotations

import os
import re
import sys

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 120
MAX_FOLDER_FILES = 25
REPORT_FUNCTION_LINES = 80

DECLARATION = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|"
                         r"static|final|override|mutating|nonmutating|nonisolated|convenience|required|"
                         r"@inline\(__always\)|@discardableResult)\s+)*(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b)")


def code_only(line: str, state: dict) -> str:
    """The line without comments and string contents; `state` carries block comments and
    multi-line strings across lines."""
    out = []
    i = 0
    while i < len(line):
        if state["block"]:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out)
            state["block"] = False
            i = end + 2
            continue
        if state["multi"]:
            end = line.find('"""', i)
            if end < 0:
                return "".join(out)
            state["multi"] = False
            i = end + 3
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block"] = True
            i += 2
            continue
        if line.startswith('"""', i):
            state["multi"] = True
            i += 3
            continue
        if line[i] == '"':
            j = i + 1
            while j < len(line) and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        out.append(line[i])
        i += 1
    return "".join(out)


def functions(path: str) -> list[tuple[str, int, int]]:
    """(name, first line, line count) of every function body in the file."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    state = {"block": False, "multi": False}
    found: list[tuple[str, int, int]] = []
    open_functions: list[tuple[str, int, int]] = []  # (name, start line, depth at its opening brace)
    pending: tuple[str, int] | None = None
    depth = 0
    parens = 0
    signature = 0
    codes = []
    for raw in lines:
        codes.append(code_only(raw, state))
    for number, code in enumerate(codes, 1):
        match = DECLARATION.match(code)
        if match:
            pending = (match.group(1).strip(), number)
            parens = 0
            signature = 0  # parentheses open in the signature: a `{` inside them is a default value
        if pending is not None and "{" not in code:
            parens += code.count("(") - code.count(")")
            following = next((c.strip() for c in codes[number:] if c.strip()), "")
            continues = following.startswith(("{", "->", "throws", "rethrows", "async", "where", ")", "_", "-"))
            if parens <= 0 and not code.rstrip().endswith(("(", ",", "->", "where")) and not continues:
                pending = None  # a protocol requirement: no body
                continue
        for ch in code:
            if pending is not None and ch in "()":
                signature += 1 if ch == "(" else -1
            if ch == "{":
                depth += 1
                if pending is not None and signature <= 0:
                    open_functions.append((pending[0], pending[1], depth))
                    pending = None
            elif ch == "}":
                if open_functions and open_functions[-1][2] == depth:
                    name, start, _ = open_functions.pop()
                    found.append((name, start, number - start + 1))
                depth -= 1
    return found


def measures_known_shapes() -> list[str]:
    """The measurement on small Swift snippets whose answers are known: a body, a closure as a
    default value in the signature, a signature over several lines, a protocol requirement.
    Returns what it got wrong (nothing when right)."""
    import tempfile
    body = ["        let x = 1"] * 5
    cases = [
        (["func plain() {", *body, "}"], [("func plain", 7)]),
        (["static func run(_ a: Int, progress: (Int) -> Void = { _ in }) throws(E) -> Int {", *body, "    return 0", "}"],
         [("func run", 8)]),
        (["func wide(", "    a: Int,", "    b: () -> Void = { }", ") -> Int {", *body, "    return a", "}"], [("func wide", 11)]),
        (["protocol P {", "    func required()", "}", "func after() {", "}"], [("func after", 2)]),
    ]
    wrong = []
    for lines, expected in cases:
        with tempfile.NamedTemporaryFile("w", suffix=".swift", delete=False) as f:
            f.write("\n".join(lines) + "\n")
        got = [(name, length) for name, _, length in functions(f.name)]
        os.unlink(f.name)
        if got != expected:
            wrong.append(f"{lines[0].strip()} measured {got}, expected {expected}")
    return wrong


def main() -> int:
    wrong = measures_known_shapes()
    if wrong:
        print("check-sizes: the function measurement is wrong: " + "; ".join(wrong))
        return 1
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    report = "--report" in sys.argv
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    breaches, long_functions = [], []
    for top in ("Sources", "Tests"):
        for folder, _, names in os.walk(os.path.join(root, top)):
            swift = sorted(n for n in names if n.endswith(".swift"))
            rel = os.path.relpath(folder, root)
            if top == "Sources" and len(swift) > MAX_FOLDER_FILES:
                breaches.append(f"{rel}: {len(swift)} Swift files (at most {MAX_FOLDER_FILES})")
            for name in swift:
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    count = f.read().count("\n")
                if count > MAX_FILE_LINES:
                    breaches.append(f"{rel}/{name}: {count} lines (at most {MAX_FILE_LINES})")
                if top != "Sources":
                    continue
                for fn, start, length in functions(path):
                    if length > MAX_FUNCTION_LINES:
                        breaches.append(f"{rel}/{name}:{start}: {fn} is {length} lines (at most {MAX_FUNCTION_LINES})")
                    if length > REPORT_FUNCTION_LINES:
                        long_functions.append((length, f"{rel}/{name}:{start}: {fn}"))
    if report:
        print(f"functions over {REPORT_FUNCTION_LINES} lines: {len(long_functions)}")
        for length, where in sorted(long_functions, reverse=True):
            print(f"  {length:4d}  {where}")
    for b in breaches:
        print("check-sizes:", b)
    if not breaches:
        print(f"check-sizes: files <= {MAX_FILE_LINES} lines, functions <= {MAX_FUNCTION_LINES}, "
              f"folders <= {MAX_FOLDER_FILES} Swift files")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
