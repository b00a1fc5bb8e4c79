import SceneModel

/// The fixed colours of the thumbnails (sRGB hex): the background. The categories' colours are
/// SceneModel's `CategoryPalette`, shared with the web model and the floor plan.
enum Palette {
    /// The neutral light background (#F3F4F6).
    static let background: UInt32 = 0xF3F4F6
}
