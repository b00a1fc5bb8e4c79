import SceneModel

/// The fixed colours of the thumbnails (sRGB hex): background and plan strokes. The categories'
/// colours are SceneModel's `CategoryPalette`, shared with the web model.
enum Palette {
    /// The neutral light background (#F3F4F6).
    static let background: UInt32 = 0xF3F4F6

    // Plan strokes and fills.
    static let planFloor: UInt32 = 0xFFFFFF
    static let planWall: UInt32 = 0x30363D
    static let planDoorLeaf: UInt32 = 0x30363D
    static let planDoorArc: UInt32 = 0x8A929B
    static let planWindow: UInt32 = 0x5DA9E0
    static let planOpening: UInt32 = 0xB9C0C8
    static let planObjectOutline: Float = 0.72
}
