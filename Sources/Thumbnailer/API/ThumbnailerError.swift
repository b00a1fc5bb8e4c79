/// A failure of `Thumbnailer.render`, with a stable code for scripts:
/// - `THUMB_EMPTY_SCENE`: nothing drawable (no finite triangles);
/// - `THUMB_WEBP_FAILED`: libwebp refused to encode a frame;
/// - `THUMB_INVALID_OPTIONS`: no view requested.
public struct ThumbnailerError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    static let emptyScene = "THUMB_EMPTY_SCENE"
    static let webpFailed = "THUMB_WEBP_FAILED"
    static let invalidOptions = "THUMB_INVALID_OPTIONS"
}

/// Stable codes of the warnings the thumbnailer returns.
enum ThumbnailWarningCode {
    static let textureTooLarge = "THUMB_TEXTURE_TOO_LARGE"
    static let textureDecodeFailed = "THUMB_TEXTURE_DECODE_FAILED"
    static let textureUnsupported = "THUMB_TEXTURE_UNSUPPORTED"
    static let textureBudget = "THUMB_TEXTURE_BUDGET"
    static let invalidGeometry = "THUMB_INVALID_GEOMETRY"
    static let triangleLimit = "THUMB_TRIANGLE_LIMIT"
    static let planFallback = "THUMB_PLAN_FROM_MESHES"
}
