#!/usr/bin/env python3
"""Validates layer_manifest.json files against schemas/layer_manifest.schema.json with the
reference `jsonschema` library (Draft 2020-12), independently of the Swift test validator.

    pip install jsonschema
    python3 scripts/validate-manifest.py FILE [FILE ...]
    python3 scripts/validate-manifest.py --schema other.schema.json FILE

Prints one line per file: `ok FILE` or `FAIL FILE: <first error> at <JSON path> (+N more)`.
Exit status: 0 when every file is valid, 1 when any file is invalid or unreadable, 2 on usage
errors (no files, a schema that is not valid draft 2020-12, jsonschema not installed).
"""
import argparse
import json
import os
import sys

DEFAULT_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schemas",
                              "layer_manifest.schema.json")


def json_path(error):
    path = "$"
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def main():
    parser = argparse.ArgumentParser(description="Validate layer_manifest.json files against the JSON Schema.")
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument("--schema", default=DEFAULT_SCHEMA, help="schema file (default: %(default)s)")
    args = parser.parse_args()

    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        print("validate-manifest: the jsonschema package is missing (pip install jsonschema)", file=sys.stderr)
        return 2

    with open(args.schema, encoding="utf-8") as f:
        schema = json.load(f)
    try:
        Draft202012Validator.check_schema(schema)
    except Exception as e:  # jsonschema.SchemaError
        print(f"validate-manifest: {args.schema} is not a valid draft 2020-12 schema: {e}", file=sys.stderr)
        return 2
    validator = Draft202012Validator(schema)

    failed = 0
    for name in args.files:
        try:
            with open(name, encoding="utf-8") as f:
                document = json.load(f)
        except (OSError, ValueError) as e:
            print(f"FAIL {name}: cannot read JSON: {e}")
            failed += 1
            continue
        errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
        if errors:
            more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
            print(f"FAIL {name}: {errors[0].message} at {json_path(errors[0])}{more}")
            failed += 1
        else:
            print(f"ok {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
