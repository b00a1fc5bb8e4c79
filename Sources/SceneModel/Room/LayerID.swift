/// A layer's identifier: `walls`, `doors`, `windows`, `openings`, `floors`, `unclassified`,
/// `objects.<category>` (e.g. `objects.chair`) or `group.<name>`. The raw value is the spelling
/// in the manifest, the GLB nodes' `extras` and the apps; the layer node's name is
/// `NodeName.layer(_:)` (`layer_objects_chair`).
public struct LayerID: RoomVocabularyName {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let walls = LayerID("walls")
    public static let doors = LayerID("doors")
    public static let windows = LayerID("windows")
    public static let openings = LayerID("openings")
    public static let floors = LayerID("floors")
    public static let unclassified = LayerID("unclassified")

    static let objectsPrefix = "objects."
    static let groupPrefix = "group."

    /// The layer of one object category, `objects.<category>`; the category is reduced to
    /// `LayerID.safeName(_:)`.
    public static func objects(_ category: ElementCategory) -> LayerID {
        LayerID(objectsPrefix + safeName(category.rawValue))
    }

    /// The layer of one top-level USD group, `group.<name>`; the name must already be safe.
    public static func group(_ name: String) -> LayerID { LayerID(groupPrefix + name) }

    /// `objects` for `objects.*`, `group` for `group.*`, otherwise the id itself.
    public var kind: LayerKind {
        if rawValue.hasPrefix(LayerID.objectsPrefix) { return .objects }
        if rawValue.hasPrefix(LayerID.groupPrefix) { return .group }
        return LayerKind(rawValue)
    }

    /// The object category of an `objects.<category>` layer, else nil.
    public var objectCategory: ElementCategory? {
        guard rawValue.hasPrefix(LayerID.objectsPrefix) else { return nil }
        return ElementCategory(String(rawValue.dropFirst(LayerID.objectsPrefix.count)))
    }

    /// Keeps ASCII letters, digits, `_` and `-` (at most 64), so ids stay safe in node names and
    /// JSON; `unnamed` when nothing is left.
    public static func safeName(_ s: String) -> String {
        let kept = s.unicodeScalars.filter {
            ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value >= 0x41 && $0.value <= 0x5A)
                || ($0.value >= 0x61 && $0.value <= 0x7A) || $0 == "_" || $0 == "-"
        }.prefix(64)
        let out = String(String.UnicodeScalarView(kept))
        return out.isEmpty ? "unnamed" : out
    }
}
