import SceneModel

/// The plan's words in each locale: RoomPlan section labels, object categories and the sheet's
/// title. Unknown labels are shown as found (camelCase split into words).
public struct PlanVocabulary: Sendable {
    public let locale: PlanLocale

    public init(locale: PlanLocale) { self.locale = locale }

    static let sections: [String: (en: String, zh: String)] = [
        "livingRoom": ("Living room", "客厅"), "diningRoom": ("Dining room", "餐厅"),
        "bedroom": ("Bedroom", "卧室"), "bathroom": ("Bathroom", "浴室"), "kitchen": ("Kitchen", "厨房"),
        "unidentified": ("Room", "房间"), "room": ("Room", "房间"),
    ]
    static let categories: [String: (en: String, zh: String)] = [
        "storage": ("Storage", "储物柜"), "refrigerator": ("Fridge", "冰箱"), "stove": ("Stove", "炉灶"),
        "bed": ("Bed", "床"), "sink": ("Sink", "水槽"), "washerDryer": ("Washer", "洗衣机"),
        "toilet": ("Toilet", "马桶"), "bathtub": ("Bathtub", "浴缸"), "oven": ("Oven", "烤箱"),
        "dishwasher": ("Dishwasher", "洗碗机"), "table": ("Table", "桌子"), "sofa": ("Sofa", "沙发"),
        "chair": ("Chair", "椅子"), "fireplace": ("Fireplace", "壁炉"), "television": ("TV", "电视"),
        "stairs": ("Stairs", "楼梯"),
    ]

    /// The readable name of a RoomPlan section label.
    public func section(_ label: String) -> String {
        if let w = Self.sections[label] { return locale == .en ? w.en : w.zh }
        return Self.words(label)
    }

    /// The readable name of an object category.
    public func category(_ category: String) -> String {
        if let w = Self.categories[category] { return locale == .en ? w.en : w.zh }
        return Self.words(category)
    }

    /// `Story 1 · Total area 35.2 m²` (stories counted from 1 for people).
    public func title(story: Int, storyCount: Int, totalArea: String) -> String {
        switch locale {
        case .en: return storyCount > 1 ? "Story \(story + 1) · Total area \(totalArea)" : "Floor plan · Total area \(totalArea)"
        case .zhHans: return storyCount > 1 ? "第\(story + 1)层 · 总面积 \(totalArea)" : "平面图 · 总面积 \(totalArea)"
        }
    }

    /// The caption of the wall-thickness note: `Walls drawn 10 cm thick`.
    public func wallNote(_ thickness: String) -> String {
        locale == .en ? "Walls drawn \(thickness) thick, centred on the scanned wall" : "墙体按 \(thickness) 厚度居中绘制"
    }

    /// `livingRoom` → `Living room` (at most 40 characters of the label are shown).
    static func words(_ s: String) -> String { StructureRoom.words(s) }
}
