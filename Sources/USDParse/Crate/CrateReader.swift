/// Reads binary USD "crate" layers (`.usdc`, and `.usd` files that start with `PXR-USDC`).
///
/// Supported: crate versions 0.4.0 through 0.16.x; newer 0.x minor versions are read with a warning
/// in `SdfLayer.warnings` (unknown value types then become `.unsupported` fields). The input is
/// treated as hostile: every count is capped by `ParseLimits` and by the bytes that could encode it
/// before anything is allocated, decoded bytes are charged to the `MemoryBudget`, decompression is
/// bounded, and every index is range-checked.
public enum CrateReader {
    /// Section name used in errors about value data (the area that FIELDS ValueReps point into).
    static let valuesSection = "VALUES"

    /// True when the bytes start with the crate magic "PXR-USDC".
    public static func isCrate(_ view: ByteView) -> Bool { view.hasPrefix(CrateBootstrap.magic) }

    /// Decodes a whole crate layer eagerly into an SdfLayer. `identifier` names the layer in errors.
    ///
    /// - Parameters:
    ///   - view: the crate bytes (the whole file, or a package entry's slice; offsets are relative to
    ///     its first byte). Only read; the returned layer holds no reference to it.
    ///   - identifier: becomes `SdfLayer.identifier` and the `layer` of thrown errors.
    ///   - limits: caps on counts, sizes and nesting (`maxInputBytes`, `maxSections`, `maxTokens`,
    ///     `maxStrings`, `maxFields`, `maxFieldSets`, `maxPaths`, `maxSpecs`, `maxArrayElements`,
    ///     `maxDictionaryEntries`, `maxTimeSamples`, `maxStringLength`, `maxValueDepth`).
    ///   - budget: charged (in bytes) before every large allocation and for every decompressed byte;
    ///     it may be shared with other layers of the same parse.
    /// - Returns: every spec with every field decoded; non-fatal findings are in `warnings`.
    /// - Throws: `USDParseError` with `format == .usdc`, the section (`BOOTSTRAP`, `TOC`, `TOKENS`,
    ///   `STRINGS`, `FIELDS`, `FIELDSETS`, `PATHS`, `SPECS` or `VALUES`), a byte offset when known
    ///   and `layer == identifier`. Codes: `USD_UNRECOGNIZED_FORMAT` (no magic),
    ///   `USD_UNSUPPORTED_VERSION` (older than 0.4.0 or major ≠ 0), `USD_TRUNCATED`, `USD_CORRUPT`,
    ///   `USD_DECOMPRESSION_FAILED`, `USD_LIMIT_EXCEEDED`, `USD_MEMORY_BUDGET_EXCEEDED`.
    public static func read(
        _ view: ByteView, identifier: String, limits: ParseLimits, budget: MemoryBudget
    ) throws -> SdfLayer {
        try readLayer(view, identifier: identifier, limits: limits, budget: budget)
    }

    /// Typed-throwing body of `read`.
    static func readLayer(
        _ view: ByteView, identifier: String, limits: ParseLimits, budget: MemoryBudget
    ) throws(USDParseError) -> SdfLayer {
        let structure = try readStructure(view, identifier: identifier, limits: limits, budget: budget)
        let decoder = CrateValueDecoder(
            view: view, version: structure.bootstrap.version, tables: structure.tables, limits: limits, budget: budget)
        let specs = try decodeSpecs(structure.tables, decoder: decoder, limits: limits, identifier: identifier)
        return SdfLayer(identifier: identifier, specs: specs, warnings: structure.warnings + decoder.allWarnings)
    }

    /// The parsed structure of a crate file: bootstrap, TOC and validated tables (no values decoded).
    struct Structure {
        var bootstrap: CrateBootstrap
        var toc: CrateTOC
        var tables: CrateTables
        var warnings: [String]
    }

    /// Reads and validates everything but the values. Throws as `read`.
    static func readStructure(
        _ view: ByteView, identifier: String, limits: ParseLimits, budget: MemoryBudget
    ) throws(USDParseError) -> Structure {
        func step<T>(_ section: String, _ offset: Int?, _ body: () throws(USDParseError) -> T) throws(USDParseError) -> T {
            do {
                return try body()
            } catch {
                throw error.adding(format: .usdc, section: section, byteOffset: offset, layer: identifier)
            }
        }
        var warnings: [String] = []
        let bootstrap = try step("BOOTSTRAP", 0) { () throws(USDParseError) in
            guard view.count <= limits.maxInputBytes else {
                throw USDParseError(
                    .limitExceeded, "crate of \(view.count) bytes exceeds limits.maxInputBytes (\(limits.maxInputBytes))")
            }
            return try CrateBootstrap.read(view, warnings: &warnings)
        }
        let toc = try step("TOC", bootstrap.tocOffset) { () throws(USDParseError) in
            try CrateTOC.read(view, at: bootstrap.tocOffset, limits: limits)
        }
        let tables = try readTables(view, toc: toc, limits: limits, budget: budget, warnings: &warnings, step: step)
        return Structure(bootstrap: bootstrap, toc: toc, tables: tables, warnings: warnings)
    }

    /// Reads the six structural sections in dependency order.
    private static func readTables(
        _ view: ByteView, toc: CrateTOC, limits: ParseLimits, budget: MemoryBudget, warnings: inout [String],
        step: (String, Int?, () throws(USDParseError) -> Void) throws(USDParseError) -> Void
    ) throws(USDParseError) -> CrateTables {
        var t = CrateTables()
        func located(_ name: String) throws(USDParseError) -> CrateSection {
            var found: CrateSection?
            try step(name, nil) { () throws(USDParseError) in found = try toc.required(name) }
            return found!
        }
        let tokens = try located(CrateTOC.tokens)
        try step(tokens.name, tokens.start) { () throws(USDParseError) in
            try t.readTokens(view, tokens, limits: limits, budget: budget, warnings: &warnings)
        }
        let strings = toc.section(CrateTOC.strings)
        try step(CrateTOC.strings, strings?.start) { () throws(USDParseError) in
            try t.readStrings(view, strings, limits: limits, budget: budget)
        }
        // The remaining sections are required, and each depends on the ones before it.
        for name in [CrateTOC.fields, CrateTOC.fieldSets, CrateTOC.paths, CrateTOC.specs] {
            let s = try located(name)
            try step(s.name, s.start) { () throws(USDParseError) in
                switch name {
                case CrateTOC.fields: try t.readFields(view, s, limits: limits, budget: budget)
                case CrateTOC.fieldSets: try t.readFieldSets(view, s, limits: limits, budget: budget)
                case CrateTOC.paths: try t.readPaths(view, s, limits: limits, budget: budget)
                default: try t.readSpecs(view, s, limits: limits, budget: budget)
                }
            }
        }
        return t
    }

    /// Builds every spec and decodes its fields. Structural validity of the SPECS and FIELDSETS
    /// tables was established while reading them, so each run ends at a terminator. A run naming
    /// the same field twice keeps the first value.
    private static func decodeSpecs(
        _ t: CrateTables, decoder: CrateValueDecoder, limits: ParseLimits, identifier: String
    ) throws(USDParseError) -> [SdfPath: SdfSpec] {
        var specs: [SdfPath: SdfSpec] = [:]
        specs.reserveCapacity(t.specPathIndexes.count)
        var totalFields = 0
        for i in 0..<t.specPathIndexes.count {
            let path = t.paths[Int(t.specPathIndexes[i])]
            let type = SdfSpecType(rawValue: Int(t.specTypes[i])) ?? .prim
            var fields: [String: SdfValue] = [:]
            var j = Int(t.specFieldSetIndexes[i])
            while t.fieldSets[j] != CrateTables.invalidIndex {
                totalFields += 1
                guard totalFields <= limits.maxFields else {
                    throw USDParseError(
                        .limitExceeded, "specs carry more than limits.maxFields (\(limits.maxFields)) field values",
                        format: .usdc, section: CrateTOC.specs, primPath: path.string, layer: identifier)
                }
                let f = Int(t.fieldSets[j])
                let name = t.tokens[Int(t.fieldNameTokens[f])]
                j += 1
                if fields[name] != nil { continue }
                let rep = t.fieldReps[f]
                do {
                    fields[name] = try decoder.decodeField(rep, path: path, field: name)
                } catch {
                    let r = CrateValueRep(rep)
                    var e = error
                    e.message = "field '\(name)': " + e.message
                    throw e.adding(
                        format: .usdc, section: valuesSection,
                        byteOffset: r.isInlined || r.payload == 0 ? nil : Int(r.payload),
                        primPath: path.string, layer: identifier)
                }
            }
            specs[path] = SdfSpec(type: type, fields: fields)
        }
        return specs
    }
}
