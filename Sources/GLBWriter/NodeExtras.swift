import SceneModel
import JSONCore

/// The `extras` of layer and element nodes: `{"crowdroom": {...}}` with keys sorted by their UTF-8
/// bytes, so the text is stable and easy to diff.
///
/// Absent optional values (`nil` category, confidence, dimensions, parent, story, isOpen,
/// sourcePrimPath) are omitted, as glTF itself omits undefined properties; `attributes` is always
/// present (possibly `{}`), and so are `kind`, `identifier`, `category`, `layer` and `geometry`.
enum NodeExtras {
    /// `{"crowdroom": {"category"?, "defaultVisible", "kind": "layer", "layer", "layerKind"}}`.
    static func layer(_ layer: RoomLayer) -> JSONValue {
        var members = [
            JSONMember("defaultVisible", .bool(layer.defaultVisible)),
            JSONMember("kind", .string("layer")),
            JSONMember("layer", .string(layer.id.rawValue)),
            JSONMember("layerKind", .string(layer.kind.rawValue)),
        ]
        if let category = layer.category { members.append(JSONMember("category", .string(category.rawValue))) }
        return wrap(members)
    }

    /// `{"crowdroom": {"attributes", "category", "confidence"?, "dimensions"? [w, h, d],
    /// "geometry", "identifier", "isOpen"?, "kind": "element", "layer", "parent"?,
    /// "room"?, "sharedWith"?, "sourcePrimPath"?, "story"?}}` (`room`: the structure room's name;
    /// `sharedWith`: the other rooms' walls that are the same wall, `RoomElement.sharedWith`).
    static func element(_ element: RoomElement) -> JSONValue {
        let attributes = element.attributes.map { JSONMember($0.key, .string($0.value)) }
        var members = [
            JSONMember("attributes", .members(sorted(attributes))),
            JSONMember("category", .string(element.category.rawValue)),
            JSONMember("geometry", .string(element.geometry.rawValue)),
            JSONMember("identifier", .string(element.identifier)),
            JSONMember("kind", .string("element")),
            JSONMember("layer", .string(element.layer.rawValue)),
        ]
        if let confidence = element.confidence { members.append(JSONMember("confidence", .string(confidence))) }
        if let d = element.dimensions { members.append(JSONMember("dimensions", .doubles([d.x, d.y, d.z]))) }
        if let parent = element.parentIdentifier { members.append(JSONMember("parent", .string(parent))) }
        if let story = element.story { members.append(JSONMember("story", .int(story))) }
        if let isOpen = element.isOpen { members.append(JSONMember("isOpen", .bool(isOpen))) }
        if let path = element.sourcePrimPath { members.append(JSONMember("sourcePrimPath", .string(path))) }
        if let room = element.room { members.append(JSONMember("room", .string(room))) }
        if !element.sharedWith.isEmpty { members.append(JSONMember("sharedWith", .array(element.sharedWith.map { .string($0) }))) }
        return wrap(members)
    }

    private static func wrap(_ members: [JSONMember]) -> JSONValue {
        .members([JSONMember("crowdroom", .members(sorted(members)))])
    }

    /// Members ordered by the UTF-8 bytes of their keys (independent of Unicode collation).
    static func sorted(_ members: [JSONMember]) -> [JSONMember] {
        members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }
}
