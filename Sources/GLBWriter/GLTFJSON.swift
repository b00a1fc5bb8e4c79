import JSONCore

/// How the glTF document is written: `JSONCore.JSONWriter`, compact, members in the order the
/// builder set them, non-finite numbers as `0` (glTF's numeric fields cannot be null; the builders
/// sanitise first).
enum GLTFJSON {
    static let options = JSONWriter.Options(layout: .compact, nonFinite: .zero)

    /// Serialises `value` to UTF-8 bytes.
    static func serialize(_ value: JSONValue) -> [UInt8] { JSONWriter.bytes(value, options) }
}

extension JSONValue {
    /// `.int` of an `Int` (counts and indices).
    static func int(_ i: Int) -> JSONValue { .int(Int64(i)) }

    /// An array of doubles.
    static func doubles(_ values: [Double]) -> JSONValue { .array(values.map { .double($0) }) }

    /// An array of floats.
    static func floats(_ values: [Float]) -> JSONValue { .array(values.map { .float($0) }) }
}
