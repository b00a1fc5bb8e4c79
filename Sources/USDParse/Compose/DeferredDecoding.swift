import SceneModel
import Synchronization

/// Decodes the deferred (large) arrays of a composed stage, spread over all cores. Decoding is
/// otherwise lazy (on first access); calling this first turns decode errors into thrown errors with
/// the prim path, and uses every core for the bulk of a big file's work.
public enum DeferredDecoding {
    /// Decodes every deferred value held by the selected attributes (values decoded before keep
    /// their result; an error kept from an earlier decoding is thrown as a new one is).
    ///
    /// - Parameters:
    ///   - attributes: attribute names to decode (nil: all).
    ///   - primTypes: prim type names whose attributes are decoded (nil: all prims).
    /// - Throws: the first `USDParseError` (in stage order) of any value that fails to decode, with
    ///   the prim path and the layer that authored the value added to its context.
    public static func resolve(
        _ stage: UsdStage, attributes: Set<String>? = nil, primTypes: Set<String>? = nil
    ) throws(USDParseError) {
        try resolve(stage, primTypes: primTypes, where: { attributes?.contains($0) ?? true })
    }

    /// Decodes every deferred value of the attributes whose names pass `include`.
    /// - Throws: as `resolve(_:attributes:primTypes:)`.
    public static func resolve(
        _ stage: UsdStage, primTypes: Set<String>? = nil, where include: (String) -> Bool
    ) throws(USDParseError) {
        var work: [(value: DeferredValue, path: SdfPath, layer: String?)] = []
        for prim in stage.prims {
            if let primTypes, !primTypes.contains(prim.typeName) { continue }
            for (name, attr) in prim.attributes where include(name) {
                // Values decoded before (successfully or not) are listed too: their kept result
                // costs nothing to return, and a kept error is reported here like a new one.
                for d in attr.deferredValues {
                    work.append((d, prim.path.appendingProperty(name), attr.valueLayer))
                }
            }
        }
        guard !work.isEmpty else { return }
        let failures = Mutex<[Int: USDParseError]>([:])
        if work.count == 1 {
            do throws(USDParseError) { _ = try work[0].value.resolve() } catch { failures.withLock { $0[0] = error } }
        } else {
            let items = work
            ParallelLoop.run(items.count) { i in
                do throws(USDParseError) { _ = try items[i].value.resolve() } catch { failures.withLock { $0[i] = error } }
            }
        }
        let first: (Int, USDParseError)? = failures.withLock { f in f.min { $0.key < $1.key }.map { ($0.key, $0.value) } }
        if let (i, e) = first {
            throw e.adding(primPath: work[i].path.string, layer: work[i].layer)
        }
    }
}
