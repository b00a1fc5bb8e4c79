/// Every cap the parser enforces, with named defaults. Each breach throws `USDParseError` with
/// code `USD_LIMIT_EXCEEDED` (or `USD_MEMORY_BUDGET_EXCEEDED` for the budget) naming the limit.
public struct ParseLimits: Hashable, Sendable {
    /// Largest accepted input file (bytes). Default 200 MB (the app's upload cap is 50 MB).
    public var maxInputBytes: Int = 200_000_000
    /// Largest total of bytes produced by decompression (zip inflate + LZ4) per parse. Default 1 GiB.
    public var maxUncompressedBytes: Int = 1 << 30
    /// Most entries in one zip archive. Default 65,535.
    public var maxZipEntries: Int = 65_535
    /// Deepest nesting of packages inside packages. Default 4.
    public var maxPackageDepth: Int = 4
    /// Most layers opened for one stage (root, sublayers, references, payloads). Default 4,096.
    public var maxLayers: Int = 4_096
    /// Most crate TOC sections. Default 64.
    public var maxSections: Int = 64
    /// Most tokens per layer. Default 16 Mi.
    public var maxTokens: Int = 16 << 20
    /// Most strings per layer. Default 16 Mi.
    public var maxStrings: Int = 16 << 20
    /// Most fields per layer. Default 16 Mi.
    public var maxFields: Int = 16 << 20
    /// Most field-set entries per layer. Default 16 Mi.
    public var maxFieldSets: Int = 16 << 20
    /// Most paths per layer. Default 16 Mi.
    public var maxPaths: Int = 16 << 20
    /// Most specs per layer. Default 16 Mi.
    public var maxSpecs: Int = 16 << 20
    /// Most bytes of element names one crate layer's PATHS table holds, summed over its entries
    /// (bytes). Paths are nodes holding one element each, so this total is linear in the table
    /// (each name counted once, however deep); it bounds the work of checking and hashing them.
    /// Breach: `USD_LIMIT_EXCEEDED`. Default 64 MiB.
    public var maxPathElementBytes: Int = 64 << 20
    /// Most bytes of path text spelled out for one scene (bytes): the source path of every node,
    /// mesh and material is spelled once when it is created. That text is d bytes per prim at
    /// depth d, so a deep chain of long names spells depth² × name length from a few kilobytes of
    /// input. Breach: `USD_LIMIT_EXCEEDED`. Default 64 MiB.
    public var maxPathStringBytes: Int = 64 << 20
    /// Most elements in one array value. Default 256 Mi.
    public var maxArrayElements: Int = 256 << 20
    /// Most entries in one dictionary, vector or list op. Default 1 Mi.
    public var maxDictionaryEntries: Int = 1 << 20
    /// Most time samples on one attribute. Default 1 Mi.
    public var maxTimeSamples: Int = 1 << 20
    /// Longest single token or string (bytes). Default 1 MiB.
    public var maxStringLength: Int = 1 << 20
    /// Deepest value nesting (dictionaries in dictionaries, embedded values). Default 32.
    public var maxValueDepth: Int = 32
    /// Deepest USDA block nesting (prims, dictionaries, tuples, lists). Default 256.
    public var maxTextNesting: Int = 256
    /// Deepest chain of composition arcs (reference → reference → …). Default 32.
    public var maxCompositionDepth: Int = 32
    /// Most prims on the composed stage. Default 1 Mi.
    public var maxComposedPrims: Int = 1 << 20
    /// Most triangles produced for the scene. Default 20 M.
    public var maxTriangles: Int = 20_000_000
    /// Largest texture width or height (pixels) a PNG or JPEG texture may declare in its header;
    /// checked when the scene is built, before the texture reaches consumers that decode it.
    /// Default 16,384.
    public var maxTextureDimension: Int = 16_384
    /// Bytes of decoded data (tables, arrays, strings) a parse may hold. Charged before each large
    /// allocation. Default 1 GiB.
    public var memoryBudgetBytes: Int = 1 << 30

    public init() {}

    /// The defaults.
    public static let `default` = ParseLimits()
}
