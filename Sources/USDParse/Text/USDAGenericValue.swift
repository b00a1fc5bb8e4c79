/// A USDA value parsed without a declared type (unregistered metadata). `inferred` maps it to a
/// field value by the literal's shape.
indirect enum USDAGenericValue: Sendable {
    case number(USDANumber)
    case string(String)
    case identifier(String)
    case asset(String)
    case path(SdfPath)
    case none
    case tuple([USDAGenericValue])
    case list([USDAGenericValue])
    case dictionary([String: SdfValue])

    /// Inference rules: number → double, string → string, `true`/`false` → bool, other identifier →
    /// token, asset → asset, path → path vector, `None` → value block, dictionary → dictionary;
    /// tuples of 2–4 numbers → `double2…4`, square tuples of tuples → `matrix2d…4d`; lists of one
    /// kind of those → arrays. Anything else is kept as `.unsupported` with a short description.
    var inferred: SdfValue {
        switch self {
        case .number(let n): return .double(n.double)
        case .string(let s): return .string(s)
        case .identifier(let s):
            if s == "true" { return .bool(true) }
            if s == "false" { return .bool(false) }
            return .token(s)
        case .asset(let s): return .asset(s)
        case .path(let p): return .pathVector([p])
        case .none: return .valueBlock
        case .dictionary(let d): return .dictionary(d)
        case .tuple(let items):
            if let (type, values) = Self.numericTuple(items) { return .scalar(type, .double(values)) }
            return .unsupported("tuple")
        case .list(let items):
            return Self.inferList(items)
        }
    }

    private var numberValue: Double? {
        if case .number(let n) = self { return n.double }
        return nil
    }

    /// A tuple of 2–4 numbers (vector) or of 2–4 equal-length number tuples (square matrix).
    private static func numericTuple(_ items: [USDAGenericValue]) -> (SdfValueType, [Double])? {
        let vectorTypes: [Int: SdfValueType] = [2: .double2, 3: .double3, 4: .double4]
        let matrixTypes: [Int: SdfValueType] = [2: .matrix2d, 3: .matrix3d, 4: .matrix4d]
        let numbers = items.compactMap(\.numberValue)
        if numbers.count == items.count, let t = vectorTypes[items.count] { return (t, numbers) }
        guard let t = matrixTypes[items.count] else { return nil }
        var flat: [Double] = []
        for row in items {
            guard case .tuple(let cells) = row, cells.count == items.count else { return nil }
            let values = cells.compactMap(\.numberValue)
            guard values.count == cells.count else { return nil }
            flat.append(contentsOf: values)
        }
        return (t, flat)
    }

    private static func inferList(_ items: [USDAGenericValue]) -> SdfValue {
        guard let first = items.first else { return .array(.double, .double([])) }
        switch first {
        case .number:
            let values = items.compactMap(\.numberValue)
            if values.count == items.count { return .array(.double, .double(values)) }
        case .string, .identifier, .asset:
            var strings: [String] = []
            var type: SdfValueType?
            for item in items {
                let (t, s): (SdfValueType, String)
                switch item {
                case .string(let v): (t, s) = (.string, v)
                case .identifier(let v): (t, s) = (.token, v)
                case .asset(let v): (t, s) = (.asset, v)
                default: return .unsupported("list")
                }
                if type == nil { type = t } else if type != t { return .unsupported("list") }
                strings.append(s)
            }
            return .array(type ?? .string, .string(strings))
        case .path:
            var paths: [SdfPath] = []
            for item in items {
                guard case .path(let p) = item else { return .unsupported("list") }
                paths.append(p)
            }
            return .pathVector(paths)
        case .tuple:
            var type: SdfValueType?
            var flat: [Double] = []
            for item in items {
                guard case .tuple(let cells) = item, let (t, values) = numericTuple(cells) else {
                    return .unsupported("list")
                }
                if type == nil { type = t } else if type != t { return .unsupported("list") }
                flat.append(contentsOf: values)
            }
            if let type { return .array(type, .double(flat)) }
        default:
            break
        }
        return .unsupported("list")
    }
}
