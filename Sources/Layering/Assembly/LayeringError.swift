import SceneModel

/// A failure of layering, with a stable code for scripts and the job record. Layering errors are
/// properties of the input: retrying the same input gives the same error, so no code is retryable.
public struct LayeringError: CodedError, Hashable {
    /// The stable codes.
    public enum Code: String, InputErrorCode {
        /// Neither a scene nor CapturedRoom JSON bytes were given; permanent.
        case emptyInput = "ROOMPLAN_EMPTY_INPUT"
        /// Not JSON, or not the CapturedRoom shape (wrong type, missing key, bad transform or number); permanent.
        case jsonInvalid = "ROOMPLAN_JSON_INVALID"
        /// The JSON is larger than `CapturedRoomDecoder.Limits.maxBytes`; permanent.
        case jsonTooLarge = "ROOMPLAN_JSON_TOO_LARGE"
        /// A named limit was exceeded (nesting, values, string bytes, elements, corners, nodes); permanent.
        case limitExceeded = "ROOMPLAN_LIMIT_EXCEEDED"
        /// The inputs do not go together (another room's JSON, rooms to merge that repeat or are not single); permanent.
        case inputsMismatched = "ROOMPLAN_INPUTS_MISMATCHED"
    }

    /// Stable code (see `Code`).
    public var code: Code
    /// Human-readable explanation.
    public var message: String
    /// JSON path of the offending value (`walls[3].transform`, `$` for the document root); nil when
    /// the error is not about one JSON value.
    public var jsonPath: String?

    public init(code: Code, message: String, jsonPath: String? = nil) {
        self.code = code
        self.message = message
        self.jsonPath = jsonPath
    }

    public var description: String {
        jsonPath.map { "\(code.rawValue): \($0): \(message)" } ?? "\(code.rawValue): \(message)"
    }

    static func invalid(_ message: String, at path: String) -> LayeringError {
        LayeringError(code: .jsonInvalid, message: message, jsonPath: path)
    }

    static func limit(_ message: String, at path: String?) -> LayeringError {
        LayeringError(code: .limitExceeded, message: message, jsonPath: path)
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
