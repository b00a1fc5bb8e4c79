/// One room of a multi-room structure (RoomPlan's `CapturedStructure.rooms`, or one of several
/// rooms scanned in one world frame and merged), measured from RoomPlan's own floor of that room.
public struct StructureRoom: Hashable, Sendable {
    /// The label of the room's section (`bedroom`, `kitchen`, …): its first identified one, else
    /// `unidentified`.
    public var label: String
    /// The number that tells rooms with the same label apart (`2` in `Bedroom 2`), counted from 1
    /// in input order; nil when the label is used once and identified.
    public var number: Int?
    /// English name, numbered when needed: `Kitchen`, `Bedroom 2`, `Room 3`.
    public var name: String
    public var story: Int
    /// The centre of the room's first section (world space), nil without a section.
    public var center: SIMD3<Double>?
    /// The room's own floor polygons in world XZ (metres), counter-clockwise seen from above.
    public var floors: [[SIMD2<Double>]]
    /// Identifiers of the elements assigned to the room, sorted.
    public var elements: [String]

    public init(
        label: String, number: Int?, name: String, story: Int, center: SIMD3<Double>?, floors: [[SIMD2<Double>]],
        elements: [String]
    ) {
        self.label = label
        self.number = number
        self.name = name
        self.story = story
        self.center = center
        self.floors = floors
        self.elements = elements
    }
}

extension StructureRoom {
    /// English names of RoomPlan's section labels.
    static let englishLabels: [String: String] = [
        "livingRoom": "Living room", "diningRoom": "Dining room", "bedroom": "Bedroom", "bathroom": "Bathroom",
        "kitchen": "Kitchen", "unidentified": "Room", "room": "Room",
    ]

    /// `Bedroom`, `Bedroom 2`, `Room 3`; an unknown label as words (`laundryRoom` → `Laundry room`).
    public static func englishName(label: String, number: Int?) -> String {
        let base = englishLabels[label] ?? words(label)
        return number.map { "\(base) \($0)" } ?? base
    }

    /// `livingRoom` → `Living room` (at most 40 characters of the label, control characters dropped).
    public static func words(_ s: String) -> String {
        var out = ""
        for ch in s.prefix(40) where !ch.isNewline && ch.unicodeScalars.allSatisfy({ $0.value >= 0x20 }) {
            if ch.isUppercase && !out.isEmpty { out += " " + ch.lowercased() } else { out.append(ch) }
        }
        return out.prefix(1).uppercased() + out.dropFirst()
    }

    /// The number of each room of `labels` (in order): rooms whose label is used more than once,
    /// and every unidentified room, are numbered from 1 within their label; the others are not.
    public static func numbers(labels: [String]) -> [Int?] {
        var uses: [String: Int] = [:]
        for l in labels { uses[l, default: 0] += 1 }
        var next: [String: Int] = [:]
        return labels.map { l in
            guard uses[l]! > 1 || l == "unidentified" else { return nil }
            next[l, default: 0] += 1
            return next[l]!
        }
    }
}
