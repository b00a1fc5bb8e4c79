import JSONCore
import SceneModel

/// Merges several CapturedRoom JSON documents that share one world frame (rooms scanned in one
/// session, or relocalised to one another, as the phone's `StructureBuilder` expects) into one
/// `CapturedStructure` document, as §3 of the RoomPlan format notes describe it:
/// - the top-level `walls`, `doors`, `windows`, `openings`, `floors`, `objects` and `sections`
///   are every room's, in input order (no snapping: a wall two neighbouring rooms each scanned
///   stays twice, under its two identifiers);
/// - `rooms` holds each room as given, without its `coreModel`;
/// - `version` is 2; there is no top-level `story` or `coreModel`.
///
/// Every input is first decoded under `limits` (so each one is a valid room within the limits),
/// and the result is checked again by the caller's decode.
///
/// Throws `LayeringError`: the decoder's codes for a bad input (with the input's name in the
/// message), and `ROOMPLAN_INPUTS_MISMATCHED` when fewer than 2 or more than `maxRooms` inputs
/// are given, an input is already a structure, two inputs are byte for byte the same, or two
/// inputs share an element identifier (the same room given twice).
public enum RoomSetMerger {
    /// The keys whose arrays are concatenated at the top level.
    static let listKeys = ["walls", "doors", "windows", "openings", "floors", "objects", "sections"]

    public static func merge(
        _ inputs: [(name: String, bytes: [UInt8])], limits: CapturedRoomDecoder.Limits = .default
    ) throws -> [UInt8] {
        guard inputs.count >= 2, inputs.count <= limits.maxRooms else {
            throw LayeringError(
                code: .inputsMismatched,
                message: "\(inputs.count) rooms to merge; a structure is made of 2 to \(limits.maxRooms) (maxRooms)")
        }
        var owner: [String: String] = [:]
        var lists: [String: [JSONValue]] = [:]
        var rooms: [JSONValue] = []
        for (k, input) in inputs.enumerated() {
            if let same = inputs[..<k].first(where: { $0.bytes == input.bytes }) {
                throw LayeringError(code: .inputsMismatched,
                                    message: "\(input.name) is the same file as \(same.name)")
            }
            let room: CapturedRoom
            do {
                room = try CapturedRoomDecoder.decode(input.bytes, limits: limits).0
            } catch let e as LayeringError {
                throw LayeringError(code: e.code, message: "\(input.name): \(e.message)", jsonPath: e.jsonPath)
            }
            guard !room.isStructure else {
                throw LayeringError(code: .inputsMismatched,
                                    message: "\(input.name) is already a structure (it has rooms); give its rooms or it alone")
            }
            for id in room.surfaces.map(\.identifier) + room.objects.map(\.identifier) {
                if let other = owner[id.uppercased()], other != input.name {
                    throw LayeringError(code: .inputsMismatched,
                                        message: "\(input.name) and \(other) share element \(id): the same room given twice")
                }
                owner[id.uppercased()] = input.name
            }
            let tree = try parse(input.bytes, limits: limits)
            guard case .object(let members) = tree else { continue }  // the decode above refused others
            for key in listKeys {
                if case .array(let items)? = tree.member(key) { lists[key, default: []] += items.map(\.jsonValue) }
            }
            var kept: [String: JSONValue] = [:]
            for m in members where m.key != "coreModel" && m.key != "rooms" { kept[m.key] = m.value.jsonValue }
            rooms.append(.object(kept))
        }
        var top: [String: JSONValue] = ["version": .int(2), "rooms": .array(rooms)]
        for key in listKeys { top[key] = .array(lists[key] ?? []) }
        return JSONWriter.bytes(.object(top))
    }

    private static func parse(_ bytes: [UInt8], limits: CapturedRoomDecoder.Limits) throws -> ParsedJSON {
        do {
            return try JSONReader.parse(bytes, limits: CapturedRoomDecoder.readerLimits(limits), skipKeys: ["coreModel"])
        } catch {
            throw LayeringError(code: error.kind == .syntax ? .jsonInvalid : .limitExceeded,
                                message: error.message, jsonPath: error.path)
        }
    }
}
