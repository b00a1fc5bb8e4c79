/// An encoded image as found in the source (never decoded by the scene model).
public struct Texture: Hashable, Sendable {
    /// The encoded bytes (PNG, JPEG, …), owned by the scene.
    public var bytes: [UInt8]
    /// `image/png`, `image/jpeg`, or another MIME type sniffed from the bytes.
    public var mimeType: String
    /// Package-relative path the texture was read from.
    public var sourcePath: String

    public init(bytes: [UInt8], mimeType: String, sourcePath: String) {
        self.bytes = bytes
        self.mimeType = mimeType
        self.sourcePath = sourcePath
    }

    /// Sniffs the MIME type of encoded image bytes from their signature.
    public static func sniffMIMEType(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        if bytes.starts(with: [0x76, 0x2F, 0x31, 0x01]) { return "image/x-exr" }
        return "application/octet-stream"
    }
}
