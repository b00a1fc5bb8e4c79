import SceneModel

/// The fixed colours of the thumbnails (sRGB hex): background, RoomPlan categories in 3D and in
/// the plan, plan strokes. RoomPlan exports colour every element white or grey, so room-like
/// scenes take their untextured surfaces' colours from here, the same in every view.
enum Palette {
    /// The neutral light background (#F3F4F6).
    static let background: UInt32 = 0xF3F4F6

    /// 3D surface colour of a category; nil keeps the material's own colour.
    static func surface(_ category: ElementCategory) -> UInt32? {
        switch category {
        case .wall: return 0xECEAE6
        case .floor: return 0xD9CDBB
        case .door: return 0xB07F58
        case .window: return 0xA9CFE8
        case .opening: return 0xCFCBC4
        case .unclassified: return nil
        default: return object(category)
        }
    }

    /// Fill colour of a RoomPlan object category (plan and 3D); unknown categories are grey-blue.
    static func object(_ category: ElementCategory) -> UInt32 {
        switch category.rawValue {
        case "bathtub": return 0x8CC9D9
        case "bed": return 0xB9A3DA
        case "chair": return 0xE9B15E
        case "dishwasher": return 0x9FAAB5
        case "fireplace": return 0xC96A4F
        case "oven": return 0x8E969C
        case "refrigerator": return 0xA6C3D6
        case "sink": return 0x7BB7CC
        case "sofa": return 0x77A892
        case "stairs": return 0xBE9772
        case "storage": return 0xCFAE86
        case "stove": return 0x939FB3
        case "table": return 0xD8946A
        case "television": return 0x5C6178
        case "toilet": return 0xA9D8D6
        case "washerDryer": return 0x9CB6C4
        default: return 0xB7BEC6
        }
    }

    // Plan strokes and fills.
    static let planFloor: UInt32 = 0xFFFFFF
    static let planWall: UInt32 = 0x30363D
    static let planDoorLeaf: UInt32 = 0x30363D
    static let planDoorArc: UInt32 = 0x8A929B
    static let planWindow: UInt32 = 0x5DA9E0
    static let planOpening: UInt32 = 0xB9C0C8
    static let planObjectOutline: Float = 0.72
}
