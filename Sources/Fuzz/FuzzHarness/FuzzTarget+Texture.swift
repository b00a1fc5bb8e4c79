import Thumbnailer

extension FuzzTarget {
    /// Texture decoding as the thumbnailer does it: PNG through libpng, JPEG through
    /// `JPEGValidator` and libjpeg-turbo, with the default limits.
    public static let texture = FuzzTarget(
        name: "texture", summary: "PNG / JPEG texture decoding (input: a .png or .jpg file)"
    ) { bytes in
        do {
            let image = try TextureDecoder.decode(bytes)
            return .accepted(summary: "\(image.width)×\(image.height), \(image.rgba.count) bytes")
        } catch {
            return .refused(error)
        }
    }
}
