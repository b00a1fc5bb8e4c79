/// Reads USDA (text USD) layers into the Sdf layer model.
///
/// The result is the same `SdfLayer` the crate (`.usdc`) reader produces for the same content: the
/// same spec paths and types, the same field names and the same `SdfValue` cases and storage, so one
/// composition engine consumes both. The parser is a byte-level lexer plus an iterative
/// (explicit-stack) statement parser; all nesting, sizes and counts are capped by `ParseLimits`.
public enum USDAParser {
    private static let magic: [UInt8] = Array("#usda".utf8)

    /// True when the bytes start with `#usda`.
    public static func isUSDA(_ view: ByteView) -> Bool {
        view.hasPrefix(magic)
    }

    /// Parses a USDA layer into the same `SdfLayer` a crate reader produces for the same content.
    ///
    /// - Parameters:
    ///   - view: the layer's bytes. Only read; the returned layer owns copies of everything it holds.
    ///   - identifier: the layer's name (package-relative path or file name); used as the layer
    ///     identifier and in error context.
    ///   - limits: caps applied while parsing: `maxInputBytes`, `maxTextNesting` (blocks, metadata,
    ///     dictionaries, tuples and lists together), `maxArrayElements`, `maxStringLength` (strings,
    ///     identifiers, paths, asset paths and number literals), `maxDictionaryEntries`,
    ///     `maxTimeSamples` and `maxSpecs`.
    ///   - budget: charged before large arrays grow (shared with the other layers of one parse).
    /// - Throws: `USDParseError` with format `.usda`, the layer identifier and a 1-based line:column:
    ///   `USD_UNRECOGNIZED_FORMAT` when the bytes do not start with `#usda`; `USD_SYNTAX` for any text
    ///   that does not follow the grammar (including NUL bytes, unterminated strings/blocks, values
    ///   that do not match the declared type, out-of-range integers, duplicate prims);
    ///   `USD_LIMIT_EXCEEDED` naming the breached limit; `USD_MEMORY_BUDGET_EXCEEDED` from `budget`.
    ///   Never traps, whatever the input.
    public static func parse(_ view: ByteView, identifier: String, limits: ParseLimits, budget: MemoryBudget)
        throws -> SdfLayer
    {
        guard view.count <= limits.maxInputBytes else {
            throw USDParseError(
                .limitExceeded, "USDA layer of \(view.count) bytes exceeds maxInputBytes (\(limits.maxInputBytes))",
                format: .usda, layer: identifier)
        }
        guard isUSDA(view) else {
            throw USDParseError(.unrecognizedFormat, "not a USDA layer (no #usda header)", format: .usda,
                                layer: identifier)
        }
        do {
            return try view.withBytes(0, view.count) { raw in
                var parser = USDADocumentParser(
                    buffer: raw.assumingMemoryBound(to: UInt8.self), identifier: identifier, limits: limits,
                    budget: budget)
                return try parser.parseLayer()
            }
        } catch let error as USDParseError {
            throw error.adding(format: .usda, layer: identifier)
        } catch {
            throw USDParseError(.syntax, "USDA parse failed: \(error)", format: .usda, layer: identifier)
        }
    }
}
