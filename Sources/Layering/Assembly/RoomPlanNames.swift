import SceneModel

/// RoomPlan naming: categories in USD `customData` (`"Door(Isopen: False)"`), in prim names
/// (`Wall0`, `Chair12`), in group names (`Walls_grp`, `Wall_3_grp`, `Chair_grp`), and layer ids.
enum RoomPlanNames {
    /// Groups that only RoomPlan exports (and their SceneKit re-exports) have.
    static let structuralGroups: Set<String> = [
        "Parametric_grp", "Mesh_grp", "Model_grp", "Arch_grp", "Object_grp", "Section_grp", "Walls_grp", "Floor_grp",
    ]

    /// Lowercased letters and digits of `word` → canonical category (`wall`, …, `washerDryer`).
    private static let canonical: [String: ElementCategory] = {
        var map: [String: ElementCategory] = [:]
        for c in ElementCategory.surfaces + ElementCategory.objects { map[c.rawValue.lowercased()] = c }
        return map
    }()

    /// The canonical category of a word (`Walls`, `washer_dryer`, `TELEVISION`), accepting plurals.
    static func category(ofWord word: String) -> ElementCategory? {
        let key = String(String.UnicodeScalarView(word.unicodeScalars.filter {
            ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value >= 0x41 && $0.value <= 0x5A)
                || ($0.value >= 0x61 && $0.value <= 0x7A)
        })).lowercased()
        if key.isEmpty { return nil }
        if let c = canonical[key] { return c }
        if key.hasSuffix("s"), let c = canonical[String(key.dropLast())] { return c }
        return nil
    }

    /// Parses a USD `customData` `Category` value: `Wall`, `Chair`, `Door(Isopen: False)`,
    /// `Door(isOpen: true)`. Returns the category (nil when unknown) and the door state.
    static func parseUSDCategory(_ raw: String) -> (category: ElementCategory?, isOpen: Bool?) {
        let trimmed = raw.trimmingSpaces
        guard let paren = trimmed.firstIndex(of: "(") else { return (category(ofWord: trimmed), nil) }
        let name = category(ofWord: String(trimmed[..<paren]))
        var isOpen: Bool?
        let inner = trimmed[trimmed.index(after: paren)...].prefix { $0 != ")" }
        for part in inner.split(separator: ",") {
            let kv = part.split(separator: ":", maxSplits: 1)
            guard kv.count == 2 else { continue }
            if String(kv[0]).trimmingSpaces.lowercased() == "isopen" {
                switch String(kv[1]).trimmingSpaces.lowercased() {
                case "true", "yes", "1": isOpen = true
                case "false", "no", "0": isOpen = false
                default: break
                }
            }
        }
        return (name, isOpen)
    }

    /// `Wall0` → wall, `Chair12` → chair, `WasherDryer3` → washerDryer; names with other characters → nil.
    static func category(ofPrimName name: String) -> ElementCategory? {
        let letters = name.prefix { $0.isASCII && $0.isLetter }
        let rest = name.dropFirst(letters.count)
        guard !letters.isEmpty, rest.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return category(ofWord: String(letters))
    }

    /// The trailing number of `Wall12` (12), or nil.
    static func ordinal(ofPrimName name: String) -> Int? {
        let digits = name.reversed().prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count < 10 else { return nil }
        return Int(String(digits.reversed()))
    }

    /// `Walls_grp` → wall, `Wall_3_grp` → wall, `Chair_grp` → chair, `Floor_grp` → floor,
    /// `Arch_grp` → nil.
    static func category(ofGroupName name: String) -> ElementCategory? {
        guard name.hasSuffix("_grp") else { return nil }
        var stem = Substring(name.dropLast(4))
        // Drop a `_<n>` index (Wall_3_grp).
        if let us = stem.lastIndex(of: "_"), stem[stem.index(after: us)...].allSatisfy({ $0.isASCII && $0.isNumber }),
           stem.index(after: us) < stem.endIndex {
            stem = stem[..<us]
        }
        return category(ofWord: String(stem))
    }

    /// `livingRoom0` → livingRoom (a USD Section_grp child name).
    static func sectionLabel(ofPrimName name: String) -> String {
        let stem = name.prefix(name.count - name.reversed().prefix { $0.isASCII && $0.isNumber }.count)
        return stem.isEmpty ? name : String(stem)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return "" }
        return String(scalars[first...last])
    }
}
