import SceneModel

/// A failure of `Thumbnailer.render` or of the texture codecs, with a stable code for scripts.
public struct ThumbnailerError: CodedError, Hashable {
    /// The stable codes. The texture ones are also the warnings `render` gives for a texture it
    /// cannot use (`isTextureFailure`).
    public enum Code: String, InputErrorCode {
        /// Nothing drawable (no finite triangles); permanent.
        case emptyScene = "THUMB_EMPTY_SCENE"
        /// libwebp refused to encode a frame or a texture; permanent.
        case webpFailed = "THUMB_WEBP_FAILED"
        /// No view requested, or a room without a floor; permanent.
        case invalidOptions = "THUMB_INVALID_OPTIONS"
        /// A texture side is over the limit; permanent.
        case textureTooLarge = "THUMB_TEXTURE_TOO_LARGE"
        /// The texture bytes do not decode; permanent.
        case textureDecodeFailed = "THUMB_TEXTURE_DECODE_FAILED"
        /// The texture is neither PNG, JPEG nor WebP, or a form of them not supported; permanent.
        case textureUnsupported = "THUMB_TEXTURE_UNSUPPORTED"
        /// Decoding the texture would exceed the memory budget; permanent.
        case textureBudget = "THUMB_TEXTURE_BUDGET"

        /// A texture that cannot be decoded: thrown by `TextureDecoder`, `TextureTranscoder` and
        /// `TextureRedactor`, and a warning of `render`, never a failed conversion's code.
        public var isTextureFailure: Bool { [.textureTooLarge, .textureDecodeFailed, .textureUnsupported, .textureBudget].contains(self) }

        /// Compares with a code's text. Kept so that callers written against the former `String`
        /// code still compile; compare with a case instead (`code == .emptyScene`).
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// Stable codes of the warnings the thumbnailer returns.
enum ThumbnailWarningCode {
    static let textureTooLarge = ThumbnailerError.Code.textureTooLarge.rawValue
    static let textureDecodeFailed = ThumbnailerError.Code.textureDecodeFailed.rawValue
    static let textureUnsupported = ThumbnailerError.Code.textureUnsupported.rawValue
    static let textureBudget = ThumbnailerError.Code.textureBudget.rawValue
    static let invalidGeometry = "THUMB_INVALID_GEOMETRY"
    static let triangleLimit = "THUMB_TRIANGLE_LIMIT"
    static let planFallback = "THUMB_PLAN_FROM_MESHES"
}
