import JSONCore

/// How `layer_manifest.json` is written: `JSONCore.JSONWriter` with two-space indentation (arrays
/// of scalars on one line), keys sorted, non-finite numbers as `null` and one trailing newline.
enum ManifestJSON {
    static let options = JSONWriter.Options(layout: .indented, nonFinite: .null, trailingNewline: true)

    /// The document's bytes.
    static func serialize(_ value: JSONValue) -> [UInt8] { JSONWriter.bytes(value, options) }
}
