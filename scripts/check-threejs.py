#!/usr/bin/env python3
"""Loads the worker's models with three.js's own GLTFLoader in headless Chromium and checks that
the web editor finds every layer and element by the name the manifest gives.

    python3 scripts/check-threejs.py [--binary .build/debug/transcode-worker] [--corpus ../shared/corpus]
                                     [--three /usr/share/javascript/three] [--dir OUT ...] [--keep DIR]

Converts every bundled sample (samples/room.usdz, the textured box, each RoomPlan pair of
samples/roomplan/index.json, its USDZ alone and its JSON alone) and every RoomPlan scan of the
corpus (roomplan/usdz/*.usdz, roomplan/json/*.json) with `--glb-compression none --texture-format
original --no-thumbnails --no-plan` (the three.js Debian ships, r111, has neither a meshopt decoder
nor EXT_texture_webp; the compressed model is checked by the Swift tests' validator), or checks the
outputs already in each `--dir OUT` (model.glb and layer_manifest.json) instead. Each model is
served with three.js from Debian's libjs-three (read from --three at test time) by an HTTP server
on 127.0.0.1, and loaded by `THREE.GLTFLoader` in Chromium driven by Selenium (chromium-driver).
For every model:

  - each layer and each element of the manifest is found by `scene.getObjectByName(node_name)`,
    the object carries exactly that name, and a layer is a child of the scene, an element a child
    of its layer's object;
  - its `userData` is the node's glTF `extras` (plus the `name` the loader records, equal to the
    name shown) and those extras carry the manifest's layer id, identifier and category;
  - the triangles drawn under each layer's object (every instance counted) equal the layer's
    `triangles`, and the triangles of the distinct geometries equal `stats.triangles`;
  - the loader shows every node's name as written, and no two objects it made from nodes share one.

Prints one line per model, the totals, and a closing 'N passed, M failed' line; exits 1 on any
failure, 2 when Chromium, chromium-driver, Selenium or three.js is missing.
Needs: apt-get install chromium chromium-driver libjs-three; pip install selenium
"""
import argparse
import glob
import http.server
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOADER = "examples/js/loaders/GLTFLoader.js"
CONVERT = ["--glb-compression", "none", "--texture-format", "original", "--no-thumbnails", "--no-plan", "--json"]

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>three.js node names</title>
<script src="three/build/three.min.js"></script>
<script src="three/%s"></script>
<script>
// Loads URL with GLTFLoader and reports, for each wanted name, the object getObjectByName finds.
window.inspectModel = function (url, names, done) {
  function triangles(root) {
    var n = 0;
    root.traverse(function (o) {
      if (o.isMesh) n += (o.geometry.index ? o.geometry.index.count : o.geometry.attributes.position.count) / 3;
    });
    return n;
  }
  new THREE.GLTFLoader().load(url, function (gltf) {
    var scene = gltf.scene, seen = {}, distinct = 0, nodeNames = [], renamed = [];
    scene.traverse(function (o) {
      if (o.isMesh && !seen[o.geometry.uuid]) {
        seen[o.geometry.uuid] = true;
        distinct += (o.geometry.index ? o.geometry.index.count : o.geometry.attributes.position.count) / 3;
      }
      if (o !== scene && o.userData.name !== undefined) {
        nodeNames.push(o.name);
        if (o.name !== o.userData.name) renamed.push(o.userData.name + " -> " + o.name);
      }
    });
    var found = {};
    names.forEach(function (name) {
      var o = scene.getObjectByName(name);
      found[name] = o ? { name: o.name, userData: o.userData, triangles: triangles(o),
                          parent: o.parent === scene ? null : o.parent.name, root: o.parent === scene } : null;
    });
    done({ revision: THREE.REVISION, found: found, distinctTriangles: distinct, nodeNames: nodeNames, renamed: renamed,
           roots: scene.children.length });
  }, undefined, function (error) { done({ error: String((error && error.message) || error) }); });
};
</script></head><body></body></html>
""" % LOADER


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def glb_nodes(path):
    """The `nodes` of a .glb's JSON chunk."""
    with open(path, "rb") as f:
        data = f.read()
    magic, _, _ = struct.unpack_from("<III", data, 0)
    length, kind = struct.unpack_from("<II", data, 12)
    if magic != 0x46546C67 or kind != 0x4E4F534A:
        raise ValueError("not a binary glTF with a JSON chunk")
    return json.loads(data[20:20 + length]).get("nodes", [])


def inputs(corpus):
    """(label, convert arguments) of every model to check."""
    out = [("samples/room.usdz", ["samples/room.usdz"]),
           ("samples/textured/textured_box.usdz", ["samples/textured/textured_box.usdz"])]
    with open(os.path.join(ROOT, "samples/roomplan/index.json")) as f:
        for s in json.load(f):
            usdz, js = "samples/roomplan/" + s["usdz"], "samples/roomplan/" + s["json"]
            out += [(usdz + " + json", [usdz, "--roomplan", js]), (usdz, [usdz]), (js, [js])]
    if corpus and os.path.isdir(os.path.join(corpus, "roomplan")):
        for path in sorted(glob.glob(os.path.join(corpus, "roomplan/usdz/*.usdz")) +
                           glob.glob(os.path.join(corpus, "roomplan/json/*.json"))):
            out.append(("corpus/" + os.path.relpath(path, corpus), [path]))
    return out


def check_model(driver, url, out_dir):
    """Problems found in one model and its counts (layers, elements, triangles)."""
    with open(os.path.join(out_dir, "layer_manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    nodes = glb_nodes(os.path.join(out_dir, "model.glb"))
    layers, elements = manifest["layers"], manifest["elements"]
    names = [l["node_name"] for l in layers] + [e["node_name"] for e in elements]
    result = driver.execute_async_script("window.inspectModel(arguments[0], arguments[1], arguments[2]);", url, names)
    if result.get("error"):
        return ["GLTFLoader: " + result["error"]], (0, 0, 0), result
    problems = []
    found = result["found"]
    layer_name = {l["id"]: l["node_name"] for l in layers}

    def compare(entry, kind, label):
        o = found.get(entry["node_name"])
        if o is None:
            problems.append("%s %s: no object named %r" % (kind, label, entry["node_name"]))
            return None
        if o["name"] != entry["node_name"]:
            problems.append("%s %s: found under %r" % (kind, label, o["name"]))
        extras = nodes[entry["node"]].get("extras") if entry.get("node") is not None else None
        user = dict(o["userData"])
        if user.pop("name", None) != entry["node_name"]:
            problems.append("%s %s: the loader renamed the node %r" % (kind, label, o["userData"].get("name")))
        if user != extras:
            problems.append("%s %s: userData %s is not the node's extras %s" % (kind, label, user, extras))
        return o, (user.get("crowdroom") or {})

    for l in layers:
        got = compare(l, "layer", l["id"])
        if got:
            o, c = got
            if not o["root"]:
                problems.append("layer %s: not a child of the scene" % l["id"])
            if c.get("layer") != l["id"] or c.get("kind") != "layer":
                problems.append("layer %s: extras say layer %r" % (l["id"], c.get("layer")))
            if o["triangles"] != l["triangles"]:
                problems.append("layer %s: %s triangles drawn, the manifest says %s" % (l["id"], o["triangles"], l["triangles"]))
    for e in elements:
        got = compare(e, "element", e["identifier"])
        if got:
            o, c = got
            if o["parent"] != layer_name.get(e["layer"]):
                problems.append("element %s: parent %r, expected %r" % (e["identifier"], o["parent"], layer_name.get(e["layer"])))
            if (c.get("identifier"), c.get("layer"), c.get("category")) != (e["identifier"], e["layer"], e["category"]):
                problems.append("element %s: extras say %s" % (e["identifier"], c))
    if result["roots"] != len(layers):
        problems.append("%d objects below the scene, %d layers" % (result["roots"], len(layers)))
    if result["distinctTriangles"] != manifest["stats"]["triangles"]:
        problems.append("%s distinct triangles, stats.triangles %s" % (result["distinctTriangles"], manifest["stats"]["triangles"]))
    if result["renamed"]:
        problems.append("%d node names changed by the loader: %s" % (len(result["renamed"]), result["renamed"][:5]))
    shown = [n for n in result["nodeNames"] if n]
    if len(set(shown)) != len(shown):
        problems.append("node names shown twice: %s" % sorted({n for n in shown if shown.count(n) > 1})[:5])
    return problems, (len(layers), len(elements), sum(l["triangles"] for l in layers)), result


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--proxy-server=direct://", "--proxy-bypass-list=*"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(120)
    return driver


def missing_tools(three):
    problems = []
    if not os.path.isfile(os.path.join(three, "build/three.min.js")) or not os.path.isfile(os.path.join(three, LOADER)):
        problems.append("three.js not found under %s (apt-get install libjs-three)" % three)
    if not (shutil.which("chromium") or os.path.exists("/usr/bin/chromium")):
        problems.append("chromium not found (apt-get install chromium)")
    if not (shutil.which("chromedriver") or os.path.exists("/usr/bin/chromedriver")):
        problems.append("chromedriver not found (apt-get install chromium-driver)")
    try:
        import selenium  # noqa: F401
    except ImportError:
        problems.append("selenium is missing (pip install selenium)")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/transcode-worker"))
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(ROOT), "shared/corpus"))
    ap.add_argument("--three", default="/usr/share/javascript/three", help="three.js as Debian's libjs-three installs it")
    ap.add_argument("--dir", action="append", default=[], help="check the outputs in DIR instead of converting")
    ap.add_argument("--keep", metavar="DIR", help="copy the served folder (models, page) to DIR")
    args = ap.parse_args()
    problems = missing_tools(args.three)
    if not args.dir and not os.access(args.binary, os.X_OK):
        problems.append("no executable at %s (swift build first, or pass --binary)" % args.binary)
    if problems:
        for p in problems:
            print("check-threejs: " + p, file=sys.stderr)
        return 2

    tmp = tempfile.mkdtemp(prefix="check-threejs-")
    passed = failed = 0
    totals = [0, 0, 0]
    models = []  # (label, served folder name or None, conversion problem)
    try:
        os.symlink(os.path.abspath(args.three), os.path.join(tmp, "three"))
        with open(os.path.join(tmp, "index.html"), "w", encoding="utf-8") as f:
            f.write(PAGE)
        todo = [(d, None) for d in args.dir] or inputs(args.corpus)
        for i, (label, argv) in enumerate(todo):
            out = os.path.join(tmp, "m%d" % i)
            if argv is None:
                shutil.copytree(label, out)
                models.append((label, "m%d" % i, None))
                continue
            r = subprocess.run([args.binary, "convert", *argv, *CONVERT, "--out", out], cwd=ROOT,
                               capture_output=True, text=True, timeout=300)
            models.append((label, "m%d" % i, None if r.returncode == 0 else
                           "convert exited %d: %s" % (r.returncode, (r.stdout + r.stderr).strip()[:300])))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: Quiet(*a, directory=tmp))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = "http://127.0.0.1:%d/" % server.server_address[1]
        driver = browser()
        try:
            driver.get(base + "index.html")
            revision = driver.execute_script("return window.THREE && THREE.REVISION + (THREE.GLTFLoader ? '' : ' without GLTFLoader');")
            print("three.js r%s from %s, GLTFLoader in %s" % (revision, args.three, driver.capabilities.get("browserVersion", "Chromium")))
            for label, folder, error in models:
                if error is None:
                    try:
                        bad, counts, _ = check_model(driver, base + folder + "/model.glb", os.path.join(tmp, folder))
                    except (OSError, ValueError, KeyError, IndexError) as e:
                        bad, counts = ["%s: %s" % (type(e).__name__, e)], (0, 0, 0)
                else:
                    bad, counts = [error], (0, 0, 0)
                if not bad:
                    totals = [t + c for t, c in zip(totals, counts)]
                    print("ok   %s: %d layers, %d elements found by name, %d triangles" % ((label,) + counts))
                else:
                    print("FAIL %s: %s" % (label, "; ".join(bad[:6]) + (" (%d more)" % (len(bad) - 6) if len(bad) > 6 else "")))
                passed, failed = passed + (not bad), failed + bool(bad)
        finally:
            driver.quit()
            server.shutdown()
        if args.keep:
            shutil.copytree(tmp, args.keep, dirs_exist_ok=True, symlinks=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("checked %d models with three.js: %d layers, %d elements, %d triangles" % (passed, *totals))
    print("threejs: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
