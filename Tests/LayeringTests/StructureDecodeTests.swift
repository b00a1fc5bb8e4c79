import Foundation
import SceneModel
import Testing

@testable import Layering

/// `CapturedStructure` JSON: `coreModel` skipped wherever it sits, `rooms[]` read under named
/// limits, hostile shapes ending in typed errors.
@Suite struct StructureDecodeTests {
    static let wall = CapturedRoomDecoderTests.wall

    /// A structure whose one room repeats the top-level wall and carries `coreModel` of `n` bytes.
    static func structure(coreModel n: Int, roomExtra: String = "") -> String {
        let blob = String(repeating: "A", count: n)
        return "{\"version\": 2, \"walls\": [\(wall)], \"sections\": [], \"rooms\": [{\"coreModel\": \"\(blob)\", "
            + "\"walls\": [\(wall)], \"sections\": [{\"label\": \"bedroom\", \"center\": [0, 1, 0], \"story\": 0}], "
            + "\"story\": 0, \"version\": 2\(roomExtra)}]}"
    }

    @Test func nestedCoreModelIsSkippedWhateverItsSize() throws {
        let (s, warnings) = try CapturedRoomDecoderTests.decode(Self.structure(coreModel: 300_000))
        #expect(warnings.isEmpty)
        #expect(s.isStructure && s.rooms.count == 1 && s.rooms[0].coreModelLength == 300_000 && s.walls.count == 1)
        let l = try RoomLayering.layer(scene: nil, capturedRoom: s)
        #expect(l.rooms.map(\.name) == ["Bedroom"] && l.rooms[0].elements == ["W-1"])
        #expect(l.elements.map(\.room) == ["Bedroom"])
    }

    @Test func hostileStructuresEndInTypedErrors() throws {
        func code(_ text: String, _ limits: CapturedRoomDecoder.Limits = .default) -> (LayeringError.Code?, String?)? {
            do { _ = try CapturedRoomDecoderTests.decode(text, limits: limits) } catch let e as LayeringError {
                return (e.code, e.jsonPath)
            } catch { return (nil, "\(error)") }
            return nil
        }
        // An unterminated coreModel inside a room.
        let open = "{\"walls\": [], \"rooms\": [{\"walls\": [], \"coreModel\": \"AAAA"
        #expect(code(open)?.0 == .jsonInvalid)
        #expect(code(open)?.1 == "rooms[0].coreModel")
        // Too many rooms: refused by count, before any is read.
        var limits = CapturedRoomDecoder.Limits()
        limits.maxRooms = 2
        let three = "{\"walls\": [], \"rooms\": [{\"walls\": []}, {\"walls\": []}, {\"walls\": []}]}"
        #expect(code(three, limits)?.0 == .limitExceeded)
        #expect(code(three, limits)?.1 == "rooms")
        // Room copies count towards maxElements.
        limits = CapturedRoomDecoder.Limits()
        limits.maxElements = 1
        #expect(code(Self.structure(coreModel: 4), limits)?.0 == .limitExceeded)
        // A room that is not a room.
        #expect(code("{\"walls\": [], \"rooms\": [3]}")?.0 == .jsonInvalid)
        // The document is still capped as a whole, coreModel included.
        limits = CapturedRoomDecoder.Limits()
        limits.maxBytes = 10_000
        #expect(code(Self.structure(coreModel: 20_000), limits)?.0 == .jsonTooLarge)
    }

    @Test func roomsInsideARoomAreIgnoredWithAWarning() throws {
        let text = Self.structure(coreModel: 8, roomExtra: ", \"rooms\": [{\"walls\": []}]")
        let (s, warnings) = try CapturedRoomDecoderTests.decode(text)
        #expect(s.rooms.count == 1 && s.rooms[0].rooms.isEmpty)
        #expect(warnings.map(\.code) == [LayeringWarningCode.jsonValueIgnored])
    }

    @Test func roomsAreNumberedWhenTheirLabelRepeatsOrIsUnidentified() {
        let labels = ["bedroom", "kitchen", "bedroom", "unidentified", "unidentified", "laundryRoom"]
        let numbers = StructureRoom.numbers(labels: labels)
        #expect(numbers == [1, nil, 2, 1, 2, nil])
        #expect(zip(labels, numbers).map { StructureRoom.englishName(label: $0, number: $1) }
            == ["Bedroom 1", "Kitchen", "Bedroom 2", "Room 1", "Room 2", "Laundry room"])
    }
}
