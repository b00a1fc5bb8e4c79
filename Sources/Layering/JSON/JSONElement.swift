import SceneModel

/// One CapturedRoom surface or object, flattened for linking and layering.
struct JSONElement {
    var identifier: String
    /// `wall`, `door`, `window`, `opening`, `floor` or the object category.
    var category: ElementCategory
    var confidence: String?
    var dimensions: SIMD3<Double>
    var transform: Matrix4
    var parentIdentifier: String?
    var story: Int?
    var attributes: [String: String]
    var isOpen: Bool?
    var polygonCorners: [SIMD3<Double>]
    var curve: CapturedRoom.Curve?
    /// `walls[3]`, for messages.
    var jsonPath: String

    var isSurface: Bool { category.isSurface }

    /// Surfaces (walls, doors, windows, openings, floors) then objects, in file order.
    static func all(of room: CapturedRoom) -> [JSONElement] {
        var out: [JSONElement] = []
        out.reserveCapacity(room.elementCount)
        for (key, list) in [("walls", room.walls), ("doors", room.doors), ("windows", room.windows),
                            ("openings", room.openings), ("floors", room.floors)] {
            for (i, s) in list.enumerated() {
                var isOpen: Bool?
                if case .door(let open) = s.category { isOpen = open }
                out.append(JSONElement(
                    identifier: s.identifier, category: ElementCategory(s.category.name), confidence: s.confidence?.rawValue,
                    dimensions: SIMD3(Double(s.dimensions.x), Double(s.dimensions.y), Double(s.dimensions.z)),
                    transform: Matrix4(columnMajorFloats: s.transform), parentIdentifier: s.parentIdentifier,
                    story: s.story, attributes: [:], isOpen: isOpen,
                    polygonCorners: s.polygonCorners.map { SIMD3(Double($0.x), Double($0.y), Double($0.z)) },
                    curve: s.curve, jsonPath: "\(key)[\(i)]"))
            }
        }
        for (i, o) in room.objects.enumerated() {
            out.append(JSONElement(
                identifier: o.identifier, category: ElementCategory(o.category), confidence: o.confidence?.rawValue,
                dimensions: SIMD3(Double(o.dimensions.x), Double(o.dimensions.y), Double(o.dimensions.z)),
                transform: Matrix4(columnMajorFloats: o.transform), parentIdentifier: o.parentIdentifier, story: o.story,
                attributes: o.attributes, isOpen: nil, polygonCorners: [], curve: nil, jsonPath: "objects[\(i)]"))
        }
        return out
    }
}
