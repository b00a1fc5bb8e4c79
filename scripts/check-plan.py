#!/usr/bin/env python3
"""Checks the floor plans of conversions the way their readers see them. For each output folder
given: when the manifest lists plan files, plan.svg parses as XML with a dimension text
(`class="dimension"`, `data-metres`) for every wall of at least 0.5 m and a name and area for
every room; plan.pdf has one page per sheet (poppler's `pdfinfo`); plan.dxf reads in ezdxf, audits
with no errors and has its per-story layers, with `$INSUNITS` 6 (metres). When it lists none, the
manifest's `plan.note` says why and no plan file exists.

    python3 scripts/check-plan.py OUT_DIR [OUT_DIR ...]

Prints one line per folder ('ok' or 'FAIL' and why); exits 1 on any failure.
Needs: pip install ezdxf; Debian poppler-utils.
"""
import argparse
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import ezdxf

SVG = "{http://www.w3.org/2000/svg}"


def check(out):
    with open(os.path.join(out, "layer_manifest.json")) as f:
        m = json.load(f)
    plan = m.get("plan")
    if plan is None:
        return "no plan asked for"
    files = [f["path"] for f in plan["files"]]
    if not files:
        present = [p for p in ("plan.svg", "plan.pdf", "plan.dxf") if os.path.exists(os.path.join(out, p))]
        if not plan.get("note") or present:
            raise AssertionError(f"no plan files listed but note={plan.get('note')!r}, present={present}")
        return "not a room: " + plan["note"]
    if sorted(files) != ["plan.dxf", "plan.pdf", "plan.svg"]:
        raise AssertionError(f"plan files {files}")
    texts = [t for t in ET.parse(os.path.join(out, "plan.svg")).getroot().iter(SVG + "text")]
    dims = [float(t.get("data-metres")) for t in texts if t.get("class") == "dimension"]
    for e in m["elements"]:
        if e["category"] == "wall" and e["dimensions"] and e["dimensions"][0] >= 0.5 and e.get("story", 0) is not None:
            if not any(abs(d - e["dimensions"][0]) < 1e-4 for d in dims):
                raise AssertionError(f"wall {e['identifier']} ({e['dimensions'][0]} m) has no dimension")
    names = [t.text for t in texts if t.get("class") == "room-name"]
    areas = [t for t in texts if t.get("class") == "room-area"]
    for r in m["rooms"]:
        if r["name"] not in names:
            raise AssertionError(f"room {r['name']} not labelled")
    if len(areas) != len(m["rooms"]):
        raise AssertionError(f"{len(areas)} area labels for {len(m['rooms'])} rooms")
    info = subprocess.run(["pdfinfo", os.path.join(out, "plan.pdf")], capture_output=True, text=True, check=True).stdout
    pages = int([l for l in info.splitlines() if l.startswith("Pages:")][0].split()[1])
    if pages != plan["sheets"]:
        raise AssertionError(f"{pages} PDF pages for {plan['sheets']} sheets")
    doc = ezdxf.readfile(os.path.join(out, "plan.dxf"))
    auditor = doc.audit()
    if auditor.errors or doc.header.get("$INSUNITS") != 6:
        raise AssertionError(f"DXF audit errors {len(auditor.errors)}, $INSUNITS {doc.header.get('$INSUNITS')}")
    layers = {l.dxf.name for l in doc.layers}
    if "S1-WALLS" not in layers or "S1-DIMENSIONS" not in layers:
        raise AssertionError(f"DXF layers {sorted(layers)}")
    return f"{plan['sheets']} sheet(s), {len(m['rooms'])} room(s), {len(dims)} dimensions"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outs", nargs="+", metavar="OUT_DIR", help="a folder written by `transcode-worker convert`")
    failed = 0
    for out in parser.parse_args(argv).outs:
        try:
            print(f"ok   {out}: {check(out)}")
        except Exception as e:  # noqa: BLE001 - every failure is reported, then counted
            failed += 1
            print(f"FAIL {out}: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
