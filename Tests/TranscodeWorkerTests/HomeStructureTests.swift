import Foundation
import Testing
import FloorPlan
import SceneModel
import USDParse

@testable import Layering
import TestSupport

/// Whole homes on the six real rooms of `../shared/homes`: each room alone, the rooms merged
/// (`RoomSetMerger`), and a `CapturedStructure` built from them as a real one is laid out
/// (`HomeStructureFixture`). Rooms are measured from RoomPlan's own room floors.
@Suite(.enabled(if: HomeStructureFixture.present, "../shared/homes is not present"))
struct HomeStructureTests {
    /// Each room alone: its floor area and element count, as `RoomMeasurements` measures the room.
    static func alone() throws -> [(name: String, area: Double, walls: Int, elements: Int)] {
        try HomeStructureFixture.roomNames.map { name in
            let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: try HomeStructureFixture.json(name))
            return (name, try #require(l.metrics.floorArea), l.metrics.wallCount, l.elements.count)
        }
    }

    static let expectedNames = ["Bathroom", "Bedroom 1", "Bedroom 2", "Room 1", "Kitchen", "Living room"]

    @Test func eachRoomAloneLinksItsUSDZByUUIDAndIsOneRoomOnThePlan() throws {
        for name in HomeStructureFixture.roomNames {
            let scene = try USDParser.parseScene(
                [UInt8](try #require(FileManager.default.contents(atPath: HomeStructureFixture.path(name, "floorplan.usdz")))),
                name: "floorplan.usdz").scene
            let l = try RoomLayering.layer(scene: scene, capturedRoomJSON: try HomeStructureFixture.json(name))
            #expect(l.rooms.isEmpty && l.elements.allSatisfy { $0.room == nil })
            // Openings are holes in the wall meshes (no prim), floors are drawn from the JSON.
            let unlinked = l.elements.filter { $0.geometry != .usd }.map(\.category)
            #expect(unlinked.allSatisfy { $0 == .opening || $0 == .floor }, "\(name): \(unlinked)")
            let plan = try #require(PlanBuilder.build(l).plan)
            #expect(plan.rooms.count >= 1 && plan.rooms.allSatisfy { !$0.wallLengths.isEmpty }, "\(name)")
        }
    }

    @Test func aStructureWithNestedCoreModelsOver64KiBLoadsWithItsRooms() throws {
        let bytes = try HomeStructureFixture.structure()
        let (s, warnings) = try CapturedRoomDecoder.decode(bytes)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(s.isStructure && s.rooms.count == 6 && s.coreModelLength == nil && s.story == nil)
        #expect(s.rooms.filter { ($0.coreModelLength ?? 0) > 65_536 }.count == 4)
        #expect(s.rooms.allSatisfy { $0.floors.count == 1 && $0.rooms.isEmpty })
        // More rooms than maxRooms is a named limit.
        var strict = CapturedRoomDecoder.Limits()
        strict.maxRooms = 5
        #expect(throws: LayeringError.self) { try CapturedRoomDecoder.decode(bytes, limits: strict) }
    }

    @Test func aStructureIsOneModelWhoseElementsNameTheirRoomsMeasuredFromTheRoomFloors() throws {
        let bytes = try HomeStructureFixture.structure()
        let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: bytes)
        let alone = try Self.alone()
        #expect(l.rooms.map(\.name) == Self.expectedNames)
        // Every top-level element once, plus one merged floor; every element but that floor in a room.
        let total = alone.reduce(0) { $0 + $1.elements - 1 } + 1
        #expect(l.elements.count == total)
        #expect(l.elements.filter { $0.room == nil }.map(\.identifier) == [HomeStructureFixture.mergedFloorID])
        for (r, room) in l.rooms.enumerated() {
            #expect(room.elements.count == alone[r].elements - 1, "\(room.name)")
            #expect(l.elements.filter { $0.room == room.name }.count == room.elements.count)
        }
        // The merged copy wins: walls are the snapped (narrower) ones.
        let original = try CapturedRoomDecoder.decode(try HomeStructureFixture.json("Kitchen")).0.walls[0]
        let merged = try #require(l.elements.first { $0.identifier == original.identifier })
        #expect(abs(merged.dimensions!.x - Double(original.dimensions.x + HomeStructureFixture.wallSnap)) < 1e-6)
        #expect(merged.room == "Kitchen")

        let plan = try #require(PlanBuilder.build(l).plan)
        #expect(plan.rooms.map(\.name) == Self.expectedNames)
        for (r, figures) in plan.rooms.enumerated() {
            #expect(abs(figures.area - alone[r].area) < 1e-5, "\(figures.name): \(figures.area) vs \(alone[r].area)")
            #expect(figures.polygonSource == "room" && figures.wallLengths.count == alone[r].walls)
            #expect(figures.wallLengths[original.identifier].map { abs($0 - merged.dimensions!.x) < 1e-9 } ?? true)
        }
        // Not the bisector cut of the merged floor.
        #expect(plan.rooms.reduce(0) { $0 + $1.area } < (l.metrics.floorArea ?? 0))
    }

    @Test func theSixRoomsMergeIntoTheSameRoomsAsTheStructure() throws {
        let inputs = try HomeStructureFixture.roomNames.map { ("\($0)/capturedRoom.json", try HomeStructureFixture.json($0)) }
        let merged = try RoomSetMerger.merge(inputs)
        let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: merged)
        let alone = try Self.alone()
        #expect(l.rooms.map(\.name) == Self.expectedNames)
        #expect(l.elements.count == alone.reduce(0) { $0 + $1.elements })
        #expect(l.elements.allSatisfy { $0.room != nil })
        let plan = try #require(PlanBuilder.build(l).plan)
        for (r, figures) in plan.rooms.enumerated() { #expect(abs(figures.area - alone[r].area) < 1e-5) }
        // Deterministic.
        #expect(try RoomSetMerger.merge(inputs) == merged)
    }

    @Test func repeatedOrMismatchedRoomsAreRefused() throws {
        let kitchen = try HomeStructureFixture.json("Kitchen"), hall = try HomeStructureFixture.json("Hallway2")
        func code(_ inputs: [(name: String, bytes: [UInt8])]) -> LayeringError.Code? {
            do { _ = try RoomSetMerger.merge(inputs) } catch let e as LayeringError { return e.code } catch { return nil }
            return nil
        }
        #expect(code([("a", kitchen), ("b", kitchen)]) == .inputsMismatched)
        #expect(code([("a", kitchen)]) == .inputsMismatched)
        #expect(code([("a", kitchen), ("b", try HomeStructureFixture.structure())]) == .inputsMismatched)
        var renamed = kitchen  // the same room under another byte (a space before the end)
        renamed.insert(0x20, at: renamed.count - 1)
        #expect(code([("a", kitchen), ("b", renamed)]) == .inputsMismatched)
        #expect(code([("a", kitchen), ("b", Array("{\"walls\": 3}".utf8))]) == .jsonInvalid)
        #expect(code([("a", kitchen), ("b", hall)]) == nil)

        // A USDZ with another room's JSON.
        let usdz = [UInt8](try #require(FileManager.default.contents(atPath: HomeStructureFixture.path("Kitchen", "floorplan.usdz"))))
        let scene = try USDParser.parseScene(usdz, name: "floorplan.usdz").scene
        #expect { try RoomLayering.layer(scene: scene, capturedRoomJSON: hall) } throws: {
            ($0 as? LayeringError)?.code == .inputsMismatched
        }
    }
}
