"""The corpus facts (`--corpus`): every USDA layer of the real-world corpus, standalone or inside
`.usdz` packages, summarised into corpus-facts.json."""

import io
import json
import os
import zipfile

from pxr import Sdf

from .describe import describe
from .fixtures import OUT


def corpus_layers(root):
    """(key, text) for every USDA layer in the corpus; package entries are keyed `pkg!entry[!entry]`."""
    def walk_zip(data, prefix):
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for info in z.infolist():
                entry = z.read(info.filename)
                key = prefix + "!" + info.filename
                if entry.startswith(b"#usda"):
                    yield key, entry
                elif entry.startswith(b"PK\x03\x04"):
                    yield from walk_zip(entry, key)

    for dirpath, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, root)
            with open(full, "rb") as fh:
                data = fh.read()
            if data.startswith(b"#usda"):
                yield rel, data
            elif f.endswith(".usdz") and data.startswith(b"PK\x03\x04"):
                try:
                    yield from walk_zip(data, rel)
                except zipfile.BadZipFile:
                    pass


def corpus_facts(root, out=OUT):
    facts = {}
    for key, data in corpus_layers(root):
        layer = Sdf.Layer.CreateAnonymous("corpus.usda")
        if not layer.ImportFromString(data.decode("utf-8")):
            raise SystemExit("usd-core rejected " + key)
        specs = describe(layer)["specs"]
        counts = {}
        for spec in specs.values():
            counts[spec["type"]] = counts.get(spec["type"], 0) + 1
        default_prim = layer.defaultPrim or (layer.rootPrims[0].name if layer.rootPrims else "")
        entry = {
            "specCount": len(specs),
            "specTypes": counts,
            "fieldCount": sum(len(spec["fields"]) for spec in specs.values()),
            "specs": {"/": specs["/"]},
        }
        if default_prim and "/" + default_prim in specs:
            entry["specs"]["/" + default_prim] = specs["/" + default_prim]
        if key.startswith("roomplan/"):
            # Captures of real rooms carry no licence: record field names only, not their values.
            entry["specs"] = {path: {"type": spec["type"], "fieldNames": sorted(spec["fields"])}
                              for path, spec in entry["specs"].items()}
        facts[key] = entry
    with open(os.path.join(out, "corpus-facts.json"), "w") as f:
        lines = [json.dumps(k) + ": " + json.dumps(facts[k], sort_keys=True, separators=(",", ":"))
                 for k in sorted(facts)]
        f.write("{\n" + ",\n".join(lines) + "\n}\n")
    print("wrote corpus facts for", len(facts), "layers")
