/// A failure of layering, with a stable code for scripts and the job record.
///
/// Codes (stable):
/// - `ROOMPLAN_EMPTY_INPUT`: neither a scene nor CapturedRoom JSON bytes were given.
/// - `ROOMPLAN_JSON_INVALID`: the bytes are not JSON, or the JSON does not have the CapturedRoom
///   shape (wrong type, missing required key, transform not 16 finite numbers, non-finite or
///   out-of-range number). `jsonPath` names the offending value, e.g. `walls[3].transform`.
/// - `ROOMPLAN_JSON_TOO_LARGE`: the JSON is larger than `CapturedRoomDecoder.Limits.maxBytes`.
/// - `ROOMPLAN_LIMIT_EXCEEDED`: a named limit was exceeded (nesting depth, values, string bytes,
///   elements, polygon corners, scene nodes…); `jsonPath` is set for JSON limits.
/// - `ROOMPLAN_INPUTS_MISMATCHED`: the inputs do not go together: the USD's element UUIDs are
///   none of the JSON's (a USDZ paired with another room's JSON), or rooms to merge repeat one
///   another or are not single rooms (`RoomSetMerger`).
///
/// Layering errors are properties of the input: retrying the same input gives the same error, so
/// `isRetryable` is always false.
public struct LayeringError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable code (see the type's documentation).
    public var code: String
    /// Human-readable explanation.
    public var message: String
    /// JSON path of the offending value (`walls[3].transform`, `$` for the document root); nil when
    /// the error is not about one JSON value.
    public var jsonPath: String?

    public init(code: String, message: String, jsonPath: String? = nil) {
        self.code = code
        self.message = message
        self.jsonPath = jsonPath
    }

    /// Always false: the same input fails the same way.
    public var isRetryable: Bool { false }

    public var description: String {
        jsonPath.map { "\(code): \($0): \(message)" } ?? "\(code): \(message)"
    }

    public static let emptyInput = "ROOMPLAN_EMPTY_INPUT"
    public static let jsonInvalid = "ROOMPLAN_JSON_INVALID"
    public static let jsonTooLarge = "ROOMPLAN_JSON_TOO_LARGE"
    public static let limitExceeded = "ROOMPLAN_LIMIT_EXCEEDED"
    public static let inputsMismatched = "ROOMPLAN_INPUTS_MISMATCHED"

    static func invalid(_ message: String, at path: String) -> LayeringError {
        LayeringError(code: jsonInvalid, message: message, jsonPath: path)
    }

    static func limit(_ message: String, at path: String?) -> LayeringError {
        LayeringError(code: limitExceeded, message: message, jsonPath: path)
    }
}

/// Stable codes of the warnings layering returns in `LayeredScene.warnings`.
public enum LayeringWarningCode {
    /// JSON elements that no USD element matched (their geometry is synthesized); message has the count.
    public static let jsonElementUnmatched = "ROOMPLAN_JSON_ELEMENT_UNMATCHED"
    /// USD elements with RoomPlan identity that no JSON element matched; message has the count.
    public static let usdElementUnmatched = "ROOMPLAN_USD_ELEMENT_UNMATCHED"
    /// Elements whose geometry was built from the JSON; message has the count.
    public static let geometrySynthesized = "ROOMPLAN_GEOMETRY_SYNTHESIZED"
    /// USD elements linked to JSON elements by transform and dimensions (no UUID); message has the count.
    public static let linkedByTransform = "ROOMPLAN_LINKED_BY_TRANSFORM"
    /// A USD element's category differs from its JSON element's (the JSON wins).
    public static let categoryMismatch = "ROOMPLAN_CATEGORY_MISMATCH"
    /// Two elements share one identifier; later ones get a `#<n>` suffix.
    public static let duplicateIdentifier = "ROOMPLAN_DUPLICATE_IDENTIFIER"
    /// A JSON value was ignored or replaced (unknown enum case, unsupported curve or edge encoding,
    /// singular transform, degenerate polygon…).
    public static let jsonValueIgnored = "ROOMPLAN_JSON_VALUE_IGNORED"
    /// A JSON object category outside RoomPlan's 16 categories (kept as its own layer).
    public static let unknownCategory = "ROOMPLAN_UNKNOWN_CATEGORY"
    /// USD geometry with no RoomPlan identity, put in the `unclassified` layer; message has the count.
    public static let unclassifiedGeometry = "ROOMPLAN_UNCLASSIFIED_GEOMETRY"
    /// A floor polygon could not be ear-clipped (self-intersecting); a fan was used instead.
    public static let polygonFallback = "ROOMPLAN_POLYGON_FALLBACK"
    /// A RoomPlan group referenced more element layers than it has geometry children.
    public static let elementWithoutGeometry = "ROOMPLAN_USD_ELEMENT_WITHOUT_GEOMETRY"
}
