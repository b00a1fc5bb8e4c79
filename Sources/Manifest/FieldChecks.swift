import SceneModel
import JSONCore

/// Checks of input values against the forms the schema allows. Each returns the value as it
/// will be written (hashes in lower case) or throws `ManifestError` naming the field.
enum FieldChecks {
    /// 64 hex digits; returned in lower case.
    static func sha256(_ s: String, field: String) throws -> String {
        let lower = s.lowercased()
        guard lower.utf8.count == 64, lower.utf8.allSatisfy(isLowerHex) else {
            throw ManifestError.invalidValue(field: field, value: s, expected: "64 hex digits")
        }
        return lower
    }

    /// A UUID in 8-4-4-4-12 hex form, either case; returned unchanged.
    static func uuid(_ s: String, field: String) throws -> String {
        guard isUUID(s) else { throw ManifestError.invalidValue(field: field, value: s, expected: "a UUID") }
        return s
    }

    static func isUUID(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 36 else { return false }
        for (i, c) in u.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if c != UInt8(ascii: "-") { return false }
            } else if !isLowerHex(c | 0x20) {
                return false
            }
        }
        return true
    }

    /// A value from a closed list.
    static func oneOf(_ s: String, _ allowed: [String], field: String) throws -> String {
        guard allowed.contains(s) else {
            throw ManifestError.invalidValue(field: field, value: s, expected: "one of " + allowed.joined(separator: ", "))
        }
        return s
    }

    /// An optional value from a closed list.
    static func oneOfIfPresent(_ s: String?, _ allowed: [String], field: String) throws -> String? {
        guard let s else { return nil }
        return try oneOf(s, allowed, field: field)
    }

    /// At least one character.
    static func nonEmpty(_ s: String, field: String) throws -> String {
        guard !s.isEmpty else { throw ManifestError.invalidValue(field: field, value: s, expected: "a non-empty string") }
        return s
    }

    /// An element identifier: non-empty, no white space or control characters (a RoomPlan UUID or
    /// an id derived from a prim path).
    static func identifier(_ s: String, field: String) throws -> String {
        guard !s.isEmpty, !s.unicodeScalars.contains(where: isSpaceOrControl) else {
            throw ManifestError.invalidValue(
                field: field, value: s, expected: "a UUID or path-derived id without white space")
        }
        return s
    }

    /// A layer id: `walls`, `doors`, `windows`, `openings`, `floors`, `unclassified`,
    /// `objects.<category>` (letters, digits, `_`) or `group.<name>` (no white space).
    static func layerId(_ id: LayerID, field: String) throws -> String {
        let s = id.rawValue
        guard isLayerId(s) else {
            throw ManifestError.invalidValue(
                field: field, value: s,
                expected: "walls, doors, windows, openings, floors, unclassified, objects.<category> or group.<name>")
        }
        return s
    }

    /// The layer ids that take no suffix.
    static let fixedLayerIds: Set<LayerID> = [.walls, .doors, .windows, .openings, .floors, .unclassified]

    static func isLayerId(_ s: String) -> Bool {
        if fixedLayerIds.contains(LayerID(s)) { return true }
        if s.hasPrefix("objects.") {
            let rest = s.utf8.dropFirst(8)
            return !rest.isEmpty && rest.allSatisfy { isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "_") }
        }
        if s.hasPrefix("group.") {
            let rest = s.unicodeScalars.dropFirst(6)
            return !rest.isEmpty && !rest.contains(where: isSpaceOrControl)
        }
        return false
    }

    /// A relative path below the manifest's folder: segments separated by `/`, none empty, `.` or
    /// `..`, no backslash or control characters.
    static func relativePath(_ s: String, field: String) throws -> String {
        let segments = s.split(separator: "/", omittingEmptySubsequences: false)
        let ok = !s.isEmpty
            && segments.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
            && !s.unicodeScalars.contains { $0 == "\\" || $0.value < 0x20 }
        guard ok else {
            throw ManifestError.invalidValue(field: field, value: s, expected: "a relative path such as thumbs/hero.webp")
        }
        return s
    }

    /// A count or size: ≥ 0.
    static func count(_ n: Int, field: String) throws -> Int {
        guard n >= 0 else { throw ManifestError.invalidValue(field: field, value: String(n), expected: "an integer ≥ 0") }
        return n
    }

    /// A pixel size: ≥ 1.
    static func positive(_ n: Int, field: String) throws -> Int {
        guard n >= 1 else { throw ManifestError.invalidValue(field: field, value: String(n), expected: "an integer ≥ 1") }
        return n
    }

    /// A required vector; throws when a component is not finite.
    static func vector(_ v: SIMD3<Double>, field: String) throws -> SIMD3<Double> {
        guard ManifestNumbers.isFinite(v) else { throw ManifestError.nonFinite(field: field) }
        return v
    }

    /// A required matrix; throws when an element is not finite or the count is not 16.
    static func matrix(_ m: Matrix4, field: String) throws -> Matrix4 {
        guard m.m.count == 16, m.m.allSatisfy(\.isFinite) else { throw ManifestError.nonFinite(field: field) }
        return m
    }

    private static func isLowerHex(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
    }

    private static func isASCIIAlphanumeric(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
            || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
    }

    /// White space as the schema's `\s` sees it, plus every control character.
    private static func isSpaceOrControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || u.value == 0x7F || u.properties.isWhitespace
    }
}
