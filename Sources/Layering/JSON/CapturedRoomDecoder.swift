import SceneModel
import JSONCore

/// Decodes RoomPlan `CapturedRoom` JSON (Swift `JSONEncoder` output) into `CapturedRoom`.
///
/// Written over bytes with a small bounded parser instead of Foundation, so that every failure
/// carries the JSON path of the offending value and every size is capped before it is allocated.
///
/// Tolerance (real files differ between iOS versions):
/// - iOS 16 files (no `version`, `floors`, `sections`, `story`, `polygonCorners`,
///   `parentIdentifier`, `attributes`) and iOS 17+ files (`version` 2) both decode; every
///   post-iOS-16 key is optional, and so are `confidence`, `completedEdges` and `curve`;
/// - unknown keys are ignored;
/// - enums are accepted as single-key objects (`{"door":{"isOpen":true}}`) or bare strings (`"door"`);
/// - `coreModel` is scanned for syntax and skipped, never decoded, wherever it sits (the top
///   level of a room, each room of a structure's `rooms[]`): its size counts only towards `maxBytes`;
/// - a `CapturedStructure` (iOS 17 `StructureBuilder`: top-level merged lists plus `rooms[]`, one
///   complete room each) decodes into `CapturedRoom.rooms`; room copies count towards `maxElements`;
/// - `completedEdges` items may be strings or single-key objects (`{"top":{}}`); other items are
///   dropped with a `ROOMPLAN_JSON_VALUE_IGNORED` warning;
/// - `curve` (never observed) is accepted as an object with `startAngle`, `endAngle`, `radius`,
///   `center`: angles as numbers (radians) or Foundation `Measurement` objects
///   (`{"value": 90, "unit": {"symbol": "°", "converter": {"coefficient": 1, "constant": 0}}}`,
///   converted with the coefficient to degrees when given, else by the symbol `rad`/`°`/`deg`),
///   radius as a number or a `Measurement` (metres), `center` as `[x, z]`, `[x, y, z]` or
///   `{"x":…, "y":…}`/`{"x":…, "y":…, "z":…}` (2D values are local X and Z). Any other shape, and
///   radii over 10 km, are dropped with a warning and the wall stays straight.
///
/// Required per element: `identifier` (string), `dimensions` (2 or 3 numbers), `transform`
/// (16 numbers, or 4 columns of 4), and `category` for objects. Surfaces take their category from
/// the list they are in (`walls`, `doors`, …); a disagreeing `category` value is warned about.
///
/// Throws `LayeringError`: `ROOMPLAN_JSON_TOO_LARGE` (more than `maxBytes`),
/// `ROOMPLAN_JSON_INVALID` (syntax, shape, non-finite Float32, bad transform length) and
/// `ROOMPLAN_LIMIT_EXCEEDED` (depth, values, string bytes, elements, corners…), each with its path.
public enum CapturedRoomDecoder {
    /// Named limits; every count in the JSON is checked against one of them before it is stored.
    public struct Limits: Sendable, Hashable {
        /// Largest JSON document in bytes. Default 20 MiB (real files: 100–500 KB, mostly `coreModel`).
        public var maxBytes: Int
        /// Deepest nesting of arrays and objects. Default 32 (RoomPlan needs 5).
        public var maxDepth: Int
        /// Most JSON values in the document. Default 2,000,000.
        public var maxValues: Int
        /// Longest decoded string (the skipped `coreModel` excepted). Default 64 KiB.
        public var maxStringBytes: Int
        /// Longest number token. Default 64 characters.
        public var maxNumberLength: Int
        /// Most surfaces and objects together. Default 10,000.
        public var maxElements: Int
        /// Most corners of one floor polygon. Default 256.
        public var maxPolygonCorners: Int
        /// Most sections. Default 1,000.
        public var maxSections: Int
        /// Most attributes of one object. Default 64.
        public var maxAttributes: Int
        /// Most completed edges of one surface. Default 16.
        public var maxCompletedEdges: Int
        /// Most rooms of a structure. Default 256 (a home has tens).
        public var maxRooms: Int = 256

        public init(
            maxBytes: Int = 20 * 1024 * 1024, maxDepth: Int = 32, maxValues: Int = 2_000_000,
            maxStringBytes: Int = 65_536, maxNumberLength: Int = 64, maxElements: Int = 10_000,
            maxPolygonCorners: Int = 256, maxSections: Int = 1_000, maxAttributes: Int = 64, maxCompletedEdges: Int = 16
        ) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
            self.maxValues = maxValues
            self.maxStringBytes = maxStringBytes
            self.maxNumberLength = maxNumberLength
            self.maxElements = maxElements
            self.maxPolygonCorners = maxPolygonCorners
            self.maxSections = maxSections
            self.maxAttributes = maxAttributes
            self.maxCompletedEdges = maxCompletedEdges
        }

        public static let `default` = Limits()
    }

    /// Decodes `bytes` (UTF-8 JSON). Returns the room and non-fatal findings
    /// (`ROOMPLAN_JSON_VALUE_IGNORED`, `ROOMPLAN_UNKNOWN_CATEGORY`), whose messages start with the
    /// JSON path. Throws `LayeringError` (see the type documentation).
    public static func decode(_ bytes: [UInt8], limits: Limits = .default) throws -> (CapturedRoom, warnings: [SceneWarning]) {
        guard bytes.count <= limits.maxBytes else {
            throw LayeringError(
                code: .jsonTooLarge,
                message: "CapturedRoom JSON is \(bytes.count) bytes; the limit is \(limits.maxBytes) (maxBytes)")
        }
        let readerLimits = readerLimits(limits)
        let root: ParsedJSON
        do {
            root = try JSONReader.parse(bytes, limits: readerLimits, skipKeys: ["coreModel"])
        } catch {
            throw LayeringError(code: error.kind == .syntax ? .jsonInvalid : .limitExceeded,
                                message: error.message, jsonPath: error.path)
        }
        var mapper = RoomJSONMapper(limits: limits)
        let room = try mapper.room(JSONField(value: root, path: "$"))
        return (room, mapper.warnings)
    }

    /// The parser's caps for `limits` (sanitised: at least 1, depth at most 512).
    static func readerLimits(_ limits: Limits) -> JSONReader.Limits {
        JSONReader.Limits(
            maxDepth: min(max(limits.maxDepth, 1), 512), maxValues: max(limits.maxValues, 1),
            maxStringBytes: max(limits.maxStringBytes, 0), maxNumberLength: max(limits.maxNumberLength, 1))
    }
}
