/// Rejects a `Mesh` whose array headers alone describe more than `maxTriangles` triangles, before
/// its large arrays are decoded. A compressed `int[]` expands by up to ~1000× (2-bit codes, then
/// LZ4), so a file of a few hundred kilobytes can declare hundreds of millions of face-vertex
/// indices; decoding them first would cost gigabytes and seconds only to fail the triangle limit.
///
/// Bound: a face of `k ≥ 3` corners gives `k − 2` triangles and a face of fewer gives none, so the
/// topology's faces give at least `indices − 2 × faces` triangles. Counts come from the deferred
/// arrays' headers (`DeferredValue.elementCount`), or from the arrays when they are already small
/// enough to be decoded.
enum MeshSizeCheck {
    /// - Throws: `USD_LIMIT_EXCEEDED` (naming `maxTriangles` and the prim) for the first `Mesh`
    ///   whose `faceVertexIndices` count exceeds twice its `faceVertexCounts` count by more than
    ///   `limits.maxTriangles`.
    static func check(_ stage: UsdStage, limits: ParseLimits) throws(USDParseError) {
        for prim in stage.prims where prim.typeName == "Mesh" {
            guard let corners = elementCount(prim.attributes["faceVertexIndices"]) else { continue }
            let faces = elementCount(prim.attributes["faceVertexCounts"]) ?? 0
            let (twice, overflow) = faces.multipliedReportingOverflow(by: 2)
            let atLeast = overflow ? 0 : corners - twice
            guard atLeast <= limits.maxTriangles else {
                throw USDParseError(
                    .limitExceeded,
                    "mesh declares \(corners) face-vertex indices for \(faces) faces, so at least \(atLeast) "
                        + "triangles; maxTriangles is \(limits.maxTriangles)",
                    primPath: prim.path.string)
            }
        }
    }

    /// Elements of the value a viewer uses (default, else the first sample) without decoding a
    /// deferred array; nil when unauthored, blocked or not an array.
    static func elementCount(_ attribute: UsdAttribute?) -> Int? {
        guard let attribute else { return nil }
        guard let value = attribute.defaultValue ?? attribute.timeSamples?.values.first else { return nil }
        switch value {
        case .deferred(let d): return d.elementCount
        case .array(_, let storage): return storage.count
        default: return nil
        }
    }
}
