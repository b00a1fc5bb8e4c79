"""The report: medians, the Markdown tables of times, peak RSS and outputs, and the comparison with ours."""

from __future__ import annotations

import statistics

from .glb import compare_to
from .settings import PEERS, TOOLS


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def status_text(cell: dict) -> str | None:
    """Table text for a tool that has no measurement on an input; None when it has numbers."""
    if cell.get("status") == "timeout":
        return f"timeout (> {cell['timeout_s']:g} s)"
    if cell.get("status") == "failed":
        return f"failed ({cell.get('why', 'error')})"
    if cell.get("status") in ("not installed", "not built", "not selected"):
        return cell["status"]
    return None


def fmt_time(cell: dict) -> str:
    text = status_text(cell)
    if text:
        return text
    value = cell.get("median_wall_s")
    return "n/a" if value is None else f"{value:.3f}" if value < 10 else f"{value:.2f}"


def fmt_rss(cell: dict) -> str:
    text = status_text(cell)
    if text:
        return text
    value = cell.get("median_rss_kib")
    return "n/a" if value is None else f"{value / 1024:.0f}"


def speedup(entry: dict) -> str:
    ours = entry["tools"].get("ours", {})
    if ours.get("status") != "ok" or not ours.get("median_wall_s"):
        return "n/a"
    peers = [(entry["tools"][p]["median_wall_s"], p) for p in PEERS
             if entry["tools"].get(p, {}).get("status") == "ok" and entry["tools"][p].get("median_wall_s")]
    timeouts = [p for p in PEERS if entry["tools"].get(p, {}).get("status") == "timeout"]
    if not peers:
        if timeouts:
            return (f"> {entry['tools'][timeouts[0]]['timeout_s'] / ours['median_wall_s']:.0f}× "
                    f"({', '.join(timeouts)} timed out)")
        return "n/a (no peer result)"
    fastest, name = min(peers)
    return f"{fastest / ours['median_wall_s']:.1f}× (vs {name})"


def fmt_extent(summary: dict | None) -> str:
    if not summary or not summary.get("extent"):
        return "–"
    return " × ".join(f"{v:.2f}" for v in summary["extent"])


def compare_outputs(results: dict) -> None:
    """Record, for each peer's warm-up .glb, how it differs from ours on the same input."""
    for entry in results["inputs"].values():
        reference = entry["tools"].get("ours", {}).get("glb_summary")
        for tool in PEERS:
            cell = entry["tools"].get(tool, {})
            if cell.get("glb_summary"):
                cell["vs_ours"] = compare_to(reference, cell["glb_summary"])


def print_report(results: dict, tools: list[str]) -> None:
    print()
    print("| input | ours s | usd2gltf s | bpy s | speed-up vs fastest peer | ours RSS MB | usd2gltf RSS MB | bpy RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, entry in results["inputs"].items():
        t = entry["tools"]
        print(f"| {name} | " + " | ".join(fmt_time(t[x]) for x in TOOLS) + f" | {speedup(entry)} | "
              + " | ".join(fmt_rss(t[x]) for x in TOOLS) + " |")
    reps = sorted({len(c.get("runs", {}).get("wall_s", [])) for e in results["inputs"].values()
                   for c in e["tools"].values() if c.get("status") == "ok"})
    rep_text = "/".join(str(r) for r in reps) if reps else str(results["reps"])
    print()
    print(f"Whole-process wall time and peak RSS (ru_maxrss / 1024): medians of {rep_text} runs after one "
          f"warm-up, every run a separate process. Speed-up = fastest peer's median / ours (above 1: ours is "
          f"faster). Only numbers from the same run are comparable.")

    print()
    print("| input | tool | .glb MB | triangles | primitives | extent x × y × z m | vs ours |")
    print("|---|---|---:|---:|---:|---|---|")
    for name, entry in results["inputs"].items():
        for tool in tools:
            cell = entry["tools"][tool]
            if cell.get("glb_bytes") is None:
                continue
            s = cell.get("glb_summary") or {}
            versus = cell.get("vs_ours") or ""
            print(f"| {name} | {tool} | {cell['glb_bytes'] / 1e6:.2f} | {s.get('triangles', '–')} "
                  f"| {s.get('primitives', '–')} | {fmt_extent(s)} | {versus} |")
    print()
    print("Read back from each tool's warm-up .glb: triangles and primitives per scene node (instances counted "
          "each time); extent = world-space bounding box in glTF units (metres, +Y up), so a dropped prim, an "
          "ignored up axis or unit scale shows as a difference from ours.")
