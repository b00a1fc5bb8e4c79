/// One table-of-contents record: a named byte range of the file.
struct CrateSection: Hashable, Sendable {
    var name: String
    var start: Int
    var size: Int
    var end: Int { start + size }
}

/// The table of contents: `u64 count` then 32-byte records (16-byte NUL-padded name, i64 start,
/// i64 size). Unknown section names are kept and ignored; the first record of a name wins.
struct CrateTOC {
    static let tokens = "TOKENS"
    static let strings = "STRINGS"
    static let fields = "FIELDS"
    static let fieldSets = "FIELDSETS"
    static let paths = "PATHS"
    static let specs = "SPECS"
    static let recordSize = 32

    var sections: [CrateSection]

    /// Reads the TOC at `offset`. Every record is range-checked (start ≥ 88, size ≥ 0,
    /// start + size ≤ file size).
    /// - Throws: `USD_LIMIT_EXCEEDED` (more than `limits.maxSections`), `USD_TRUNCATED`, `USD_CORRUPT`.
    static func read(_ view: ByteView, at offset: Int, limits: ParseLimits) throws(USDParseError) -> CrateTOC {
        var c = try CrateCursor(view, at: offset)
        let n = try c.count(
            "TOC section", cap: limits.maxSections, capName: "maxSections", minItemBytes: recordSize)
        var sections: [CrateSection] = []
        sections.reserveCapacity(n)
        for _ in 0..<n {
            let at = c.offset
            let nameBytes = try view.bytes(at, 16)
            try c.skip(16)
            let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
            let start = try c.i64()
            let size = try c.i64()
            guard start >= Int64(CrateBootstrap.size), size >= 0 else {
                throw USDParseError(
                    .corrupt, "section \"\(name)\" has invalid range start \(start) size \(size)", byteOffset: at)
            }
            guard start <= Int64(view.count), size <= Int64(view.count) - start else {
                throw USDParseError(
                    .truncated, "section \"\(name)\" (\(start)+\(size)) runs past the end of the \(view.count)-byte file",
                    byteOffset: at)
            }
            sections.append(CrateSection(name: name, start: Int(start), size: Int(size)))
        }
        return CrateTOC(sections: sections)
    }

    /// The first section named `name`, if any.
    func section(_ name: String) -> CrateSection? { sections.first { $0.name == name } }

    /// The section named `name`; throws `USD_CORRUPT` when it is missing.
    func required(_ name: String) throws(USDParseError) -> CrateSection {
        guard let s = section(name) else { throw USDParseError(.corrupt, "crate file has no \(name) section") }
        return s
    }
}
