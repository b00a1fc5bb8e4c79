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

    /// The words of the schedule pages.
    struct ScheduleWords {
        var rooms, openings, room, story, area, perimeter, total, kind, width, height, sill, wall, convention, wallNote: String
    }

    var scheduleWords: ScheduleWords {
        switch locale {
        case .en:
            return ScheduleWords(
                rooms: "Room schedule", openings: "Door and window schedule", room: "Room", story: "Story", area: "Area",
                perimeter: "Perimeter", total: "Total", kind: "Kind", width: "Width", height: "Height", sill: "Sill", wall: "Wall",
                convention: "Each room's area is its own floor, measured inside its walls; the total is their sum.",
                wallNote: "Sill: height of the bottom edge above the floor. Wall: the scanned wall's identifier (first 8 characters).")
        case .zhHans:
            return ScheduleWords(
                rooms: "房间表", openings: "门窗表", room: "房间", story: "楼层", area: "面积", perimeter: "周长", total: "合计",
                kind: "类型", width: "宽", height: "高", sill: "窗台高", wall: "墙",
                convention: "每个房间的面积为其自身地面（墙内净面积）；合计为各房间之和。",
                wallNote: "窗台高：下沿距地面的高度。墙：所扫描墙体标识的前 8 个字符。")
        }
    }

    /// `door` → `Door`, `window` → `Window`, `opening` → `Opening`.
    func openingKind(_ kind: String) -> String {
        let words: [String: (en: String, zh: String)] = ["door": ("Door", "门"), "window": ("Window", "窗"), "opening": ("Opening", "开口")]
        guard let w = words[kind] else { return Self.words(kind) }
        return locale == .en ? w.en : w.zh
    }

    /// The wall note of a home: `Walls between rooms as measured; others 10 cm, outside the rooms`.
    public func homeWallNote(_ thickness: String) -> String {
        locale == .en ? "Walls between rooms drawn as measured; others \(thickness), outside the rooms"
            : "房间之间的墙按实测厚度绘制；其余墙体 \(thickness)，绘于房间之外"
    }

    /// The measuring convention under a home's title.
    public var homeConvention: String {
        locale == .en ? "Areas inside the walls, each room its own floor; total = sum of the rooms"
            : "面积为墙内净面积，按各房间自身地面计；合计为各房间之和"
    }

    /// `livingRoom` → `Living room` (at most 40 characters of the label are shown).
    static func words(_ s: String) -> String { StructureRoom.words(s) }
}
