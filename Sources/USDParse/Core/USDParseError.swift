import SceneModel

/// The one error type thrown by `USDParse`. `code` is stable (scripts, callbacks and metrics key on
/// it); `description` is short and safe to log or send to a client; the context fields say where.
public struct USDParseError: CodedError, Hashable {
    /// A stable error code. Every code describes the input itself, so retrying the same bytes
    /// cannot help: all are permanent (`InputErrorCode`).
    public enum Code: String, InputErrorCode {
        /// A read ran past the end of the file, an entry or a section; permanent.
        case truncated = "USD_TRUNCATED"
        /// The bytes are not a USD file of any supported kind (no crate magic, no `#usda`, no zip); permanent.
        case unrecognizedFormat = "USD_UNRECOGNIZED_FORMAT"
        /// A crate file older than 0.4.0 (or with a non-zero major version); permanent.
        case unsupportedVersion = "USD_UNSUPPORTED_VERSION"
        /// Structurally inconsistent data (bad table references, bad path tree, bad value encoding); permanent.
        case corrupt = "USD_CORRUPT"
        /// LZ4 / TfFastCompression or deflate data that does not decode to the declared size; permanent.
        case decompressionFailed = "USD_DECOMPRESSION_FAILED"
        /// A count, size, depth or total exceeded a `ParseLimits` cap; permanent.
        case limitExceeded = "USD_LIMIT_EXCEEDED"
        /// The memory budget in `ParseLimits.memoryBudgetBytes` would be exceeded; permanent.
        case memoryBudgetExceeded = "USD_MEMORY_BUDGET_EXCEEDED"
        /// USDA text that does not follow the grammar (line:column in the context); permanent.
        case syntax = "USD_SYNTAX"
        /// A zip container that cannot be read (bad records, overlaps, entries past the end); permanent.
        case zipInvalid = "USD_ZIP_INVALID"
        /// A zip entry name that is absolute, climbs with `..`, or repeats another entry's name; permanent.
        case zipUnsafeName = "USD_ZIP_UNSAFE_NAME"
        /// Encrypted zip entries, or a compression method other than stored/deflate; permanent.
        case zipUnsupported = "USD_ZIP_UNSUPPORTED"
        /// A package with no USD layer to open; permanent.
        case noRootLayer = "USD_NO_ROOT_LAYER"
        /// Composition arcs form a cycle; permanent.
        case compositionCycle = "USD_COMPOSITION_CYCLE"
        /// A value has the wrong type for where it is used; permanent.
        case typeMismatch = "USD_TYPE_MISMATCH"
        /// Geometry that cannot be used (index out of range, counts that disagree); permanent.
        case invalidGeometry = "USD_INVALID_GEOMETRY"
    }

    /// Which parser stage raised the error.
    public enum Format: String, Hashable, Sendable {
        case usdz, usdc, usda, unknown
    }

    public var code: Code
    public var message: String
    public var format: Format
    /// Crate section (`TOKENS`, `PATHS`, …), zip entry name, or other named part.
    public var section: String?
    /// Byte offset inside the layer or archive where the problem was found.
    public var byteOffset: Int?
    /// Prim or property path, when known.
    public var primPath: String?
    /// Package-relative name of the layer, when the error is inside a package.
    public var layer: String?
    /// 1-based line and column for USDA errors.
    public var line: Int?
    public var column: Int?

    public init(
        _ code: Code, _ message: String, format: Format = .unknown, section: String? = nil,
        byteOffset: Int? = nil, primPath: String? = nil, layer: String? = nil, line: Int? = nil, column: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.format = format
        self.section = section
        self.byteOffset = byteOffset
        self.primPath = primPath
        self.layer = layer
        self.line = line
        self.column = column
    }

    public var description: String {
        var parts = ["\(code.rawValue): \(message)"]
        var ctx: [String] = []
        if format != .unknown { ctx.append("format=\(format.rawValue)") }
        if let layer { ctx.append("layer=\(layer)") }
        if let section { ctx.append("section=\(section)") }
        if let byteOffset { ctx.append("offset=\(byteOffset)") }
        if let line { ctx.append("line=\(line)" + (column.map { ":\($0)" } ?? "")) }
        if let primPath { ctx.append("prim=\(primPath)") }
        if !ctx.isEmpty { parts.append("(" + ctx.joined(separator: ", ") + ")") }
        return parts.joined(separator: " ")
    }

    /// Returns a copy with missing context filled in (existing values win).
    public func adding(
        format: Format? = nil, section: String? = nil, byteOffset: Int? = nil, primPath: String? = nil,
        layer: String? = nil
    ) -> USDParseError {
        var e = self
        if e.format == .unknown, let format { e.format = format }
        if e.section == nil { e.section = section }
        if e.byteOffset == nil { e.byteOffset = byteOffset }
        if e.primPath == nil { e.primPath = primPath }
        if e.layer == nil { e.layer = layer }
        return e
    }
}
