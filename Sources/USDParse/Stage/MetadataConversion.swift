import SceneModel

/// Converts Sdf values found in `customData` dictionaries into the scene's JSON-like
/// `MetadataValue`. Values without a JSON-like meaning (list ops, payloads…) are dropped.
enum MetadataConversion {
    /// Deepest dictionary nesting converted; deeper levels are dropped.
    static let maxDepth = 32
    /// Most elements converted per array or dictionary; the rest are dropped.
    static let maxElements = 65_536

    /// Converts a whole dictionary (keys kept, unconvertible values dropped).
    static func dictionary(_ dict: [String: SdfValue], depth: Int = 0) -> [String: MetadataValue] {
        guard depth < maxDepth else { return [:] }
        var out: [String: MetadataValue] = [:]
        for key in dict.keys.sorted().prefix(maxElements) {
            if let v = value(dict[key]!, depth: depth + 1) { out[key] = v }
        }
        return out
    }

    /// Converts one value; nil when it has no JSON-like form.
    static func value(_ v: SdfValue, depth: Int) -> MetadataValue? {
        guard depth < maxDepth else { return nil }
        switch v {
        case .dictionary(let d):
            return .dictionary(dictionary(d, depth: depth))
        case .scalar(let type, let storage):
            let elems = elements(type: type, storage: storage)
            if type.components == 1 { return elems.first }
            return .array(elems)
        case .array(let type, let storage):
            let elems = elements(type: type, storage: storage)
            let n = Swift.max(1, type.components)
            if n == 1 { return .array(elems) }
            var rows: [MetadataValue] = []
            var i = 0
            while i + n <= elems.count {
                rows.append(.array(Array(elems[i..<(i + n)])))
                i += n
            }
            return .array(rows)
        case .tokenVector(let a), .stringVector(let a):
            return .array(a.prefix(maxElements).map { .string($0) })
        case .doubleVector(let a):
            return .array(a.prefix(maxElements).map { .double($0) })
        case .pathVector(let a):
            return .array(a.prefix(maxElements).map { .string($0.string) })
        default:
            return nil
        }
    }

    private static func elements(type: SdfValueType, storage: SdfStorage) -> [MetadataValue] {
        let limit = maxElements * Swift.max(1, type.components)
        switch storage {
        case .string(let a): return a.prefix(limit).map { .string($0) }
        case .bool(let a): return a.prefix(limit).map { .bool($0) }
        case .int32(let a): return a.prefix(limit).map { .int(Int64($0)) }
        case .int64(let a): return a.prefix(limit).map { .int($0) }
        case .uint32(let a): return a.prefix(limit).map { .int(Int64($0)) }
        case .uint64(let a): return a.prefix(limit).map { .int(Int64(truncatingIfNeeded: $0)) }
        case .uint8(let a): return a.prefix(limit).map { .int(Int64($0)) }
        case .half(let a): return a.prefix(limit).map { .double(Double(Half.toFloat($0))) }
        case .float(let a): return a.prefix(limit).map { .double(Double($0)) }
        case .double(let a): return a.prefix(limit).map { .double($0) }
        }
    }
}
