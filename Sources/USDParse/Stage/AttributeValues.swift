/// Lenient, non-trapping readers for attribute values as a viewer needs them. Every reader
/// accepts the storage kinds a writer may legitimately use (float, double or half for real
/// numbers; any integer width for indices) and returns nil for anything else.
enum AttributeValues {
    /// Sentinel for integers that do not fit in `Int32`; always invalid as a count or an index.
    static let outOfRange = Int32.min

    /// Flat float components of an array (or a single scalar treated as a one-element array)
    /// whose element type has `components` components. Nil when absent, blocked, non-numeric or
    /// shaped differently.
    static func floats(_ value: SdfValue?, components: Int) -> [Float]? {
        guard let value, let typed = value.typed, typed.type.components == components else { return nil }
        switch typed.storage {
        case .float(let a): return a
        case .string, .bool: return nil
        default: return typed.storage.floats
        }
    }

    /// Integer elements of a scalar `int` or an `int[]` (any integer width). Values outside the
    /// `Int32` range become `outOfRange` so that range checks reject them.
    static func int32s(_ value: SdfValue?) -> [Int32]? {
        guard let value, let typed = value.typed, typed.type.components == 1 else { return nil }
        switch typed.storage {
        case .int32(let a): return a
        case .int64(let a): return a.map { Int32(exactly: $0) ?? outOfRange }
        case .uint32(let a): return a.map { Int32(exactly: $0) ?? outOfRange }
        case .uint64(let a): return a.map { Int32(exactly: $0) ?? outOfRange }
        case .uint8(let a): return a.map { Int32($0) }
        default: return nil
        }
    }

    /// All components of a numeric scalar or array as doubles (small values: transforms,
    /// shader inputs). Nil for non-numeric values.
    static func doubles(_ value: SdfValue?) -> [Double]? {
        guard let value, let typed = value.typed else { return nil }
        switch typed.storage {
        case .string: return nil
        default: return typed.storage.doubles
        }
    }

    /// A numeric scalar as Double (int, float, half, double, bool).
    static func double(_ value: SdfValue?) -> Double? {
        guard let d = doubles(value), d.count == 1 else { return nil }
        return d[0]
    }

    /// A token, string or asset scalar.
    static func token(_ value: SdfValue?) -> String? { value?.token }

    /// A token array (`token[]`, string vectors, list ops).
    static func tokens(_ value: SdfValue?) -> [String]? { value?.tokens }

    /// A bool scalar (numeric non-zero is true).
    static func bool(_ value: SdfValue?) -> Bool? { value?.bool }

    /// `n` doubles from a numeric value with exactly `n` components, else nil.
    static func vector(_ value: SdfValue?, count n: Int) -> [Double]? {
        guard let d = doubles(value), d.count == n, d.allSatisfy({ $0.isFinite }) else { return nil }
        return d
    }
}

extension UsdPrim {
    /// The value of attribute `name` as a viewer uses it (default, else earliest sample).
    func value(_ name: String) -> SdfValue? { attributes[name]?.value }

    /// The value of attribute `name` at `time` (see `UsdAttribute.value(at:)`).
    func value(_ name: String, at time: Double?) -> SdfValue? { attributes[name]?.value(at: time) }

    /// A token attribute's value.
    func token(_ name: String) -> String? { AttributeValues.token(value(name)) }

    /// A numeric scalar attribute's value.
    func double(_ name: String) -> Double? { AttributeValues.double(value(name)) }
}
