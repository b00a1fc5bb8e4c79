#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The colours of the room's categories (sRGB hex), shared by every output that shows them: the
/// thumbnails tint untextured surfaces with them, and the web model's untextured RoomPlan materials
/// take them, so the editor's first view matches the card image. RoomPlan exports colour every
/// element white or grey, which is why room-like scenes need a palette at all.
public enum CategoryPalette {
    /// Surface colour of a category; nil for `unclassified` (the material keeps its own colour).
    public static func surface(_ category: ElementCategory) -> UInt32? {
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

    /// Fill colour of a RoomPlan object category; unknown categories are grey-blue.
    public static func object(_ category: ElementCategory) -> UInt32 {
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

    /// The colour of a layer: its kind's surface colour, or its object category's; nil for
    /// `unclassified` and `group.*` layers.
    public static func layer(_ id: LayerID) -> UInt32? {
        switch id.kind {
        case .walls: return surface(.wall)
        case .doors: return surface(.door)
        case .windows: return surface(.window)
        case .openings: return surface(.opening)
        case .floors: return surface(.floor)
        case .objects: return id.objectCategory.map(object)
        default: return nil
        }
    }

    /// `#RRGGBB`.
    public static func hex(_ colour: UInt32) -> String {
        let digits = Array("0123456789ABCDEF")
        return "#" + String((0..<6).map { digits[Int((colour >> UInt32(20 - 4 * $0)) & 0xF)] })
    }

    /// The colour as linear RGB in [0, 1] (the sRGB transfer function undone), as glTF's
    /// `baseColorFactor` wants it.
    public static func linear(_ colour: UInt32) -> SIMD3<Float> {
        func channel(_ shift: UInt32) -> Float {
            let c = Double((colour >> shift) & 0xFF) / 255
            let l = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
            return Float(l)
        }
        return SIMD3(channel(16), channel(8), channel(0))
    }
}
