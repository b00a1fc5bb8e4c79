import Foundation
import SceneModel
import Testing
import USDParse

@testable import Layering

/// The real RoomPlan exports of the shared corpus (USDZ without their JSON, and a JSON without its
/// USDZ). Only counts are asserted: the files have no licence, so no values from them are kept here.
@Suite(.enabled(if: TestFiles.corpus != nil, "../shared/corpus is absent"))
struct CorpusLayeringTests {
    /// Expected element counts per layer, by file.
    static let expected: [String: [String: Int]] = [
        "pak_room1_scenekit_reexport.usdz": ["walls": 6, "objects.storage": 1],
        "pak_room4_ios16_mesh.usdz": [
            "walls": 4, "objects.sofa": 1, "objects.stairs": 1, "objects.storage": 2, "objects.television": 1,
        ],
        "sekhar_room1_parametric_opening.usdz": [
            "walls": 9, "openings": 2, "floors": 1, "objects.chair": 2, "objects.table": 1,
        ],
        "sekhar_room_parametric_2sections.usdz": [
            "walls": 26, "doors": 3, "windows": 1, "floors": 1, "objects.chair": 3, "objects.sofa": 3,
            "objects.storage": 5, "objects.table": 6, "objects.television": 1,
        ],
    ]

    @Test func realUSDZExportsLayerByTheirIdentity() throws {
        let files = TestFiles.corpusUSDZ()
        #expect(files.count == Self.expected.count)
        for f in files {
            let name = (f as NSString).lastPathComponent
            let scene = try TestFiles.scene(f)
            let l = try RoomLayering.layer(scene: scene, capturedRoomJSON: nil)
            checkLayoutContract(l)
            #expect(l.metrics.countsPerLayer.mapKeys(\.rawValue) == Self.expected[name], "\(name)")
            // Every UUID of every referenced element layer becomes one element with that identifier.
            var uuids = Set<String>()
            for n in scene.nodes {
                for d in n.referencedCustomData { if let u = d["UUID"]?.stringValue { uuids.insert(u) } }
            }
            let withUUID = l.elements.filter { uuids.contains($0.identifier) }
            #expect(withUUID.count == uuids.count, "\(name)")
            #expect(l.elements.allSatisfy { $0.geometry == .usd && !meshesBelow(l, element: $0).isEmpty })
            #expect(l.isRoomPlan == !uuids.isEmpty)
            if uuids.isEmpty {
                // SceneKit re-export: RoomPlan names, ids from prim paths.
                #expect(l.elements.allSatisfy { $0.identifier == "usd:" + ($0.sourcePrimPath ?? "") })
            } else {
                #expect(l.elements.count == uuids.count)
            }
            // No unclassified leftovers and no geometry-less elements (Section_grp helpers).
            #expect(!l.layers.contains { $0.id == "unclassified" })
            #expect(l.quality.notes.contains(QualityGrader.durationNote))
            #expect(l.quality.grade != nil)
        }
    }

    @Test func sectionsAndDoorsOfTheTwoSectionExport() throws {
        let f = try #require(TestFiles.corpusUSDZ().first { $0.hasSuffix("sekhar_room_parametric_2sections.usdz") })
        let l = try RoomLayering.layer(scene: try TestFiles.scene(f), capturedRoomJSON: nil)
        #expect(l.sections.count == 2)
        let doors = l.elements.filter { $0.category == "door" }
        #expect(doors.count == 3 && doors.allSatisfy { $0.isOpen != nil })
        // Doors and windows are hosted by the wall of their group.
        let walls = Set(l.elements.filter { $0.category == "wall" }.map(\.identifier))
        #expect(l.elements.filter { $0.category == "door" || $0.category == "window" }.allSatisfy {
            walls.contains($0.parentIdentifier ?? "")
        })
        // Two doors referenced onto one wall group map to two different gprims.
        #expect(Set(doors.compactMap(\.sourcePrimPath)).count == 3)
    }

    @Test func realJSONAloneIsFullySynthesized() throws {
        for f in TestFiles.corpusJSON() {
            let bytes = try TestFiles.bytes(f)
            let room = try CapturedRoomDecoder.decode(bytes).0
            let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: bytes)
            checkLayoutContract(l)
            #expect(l.elements.count == room.elementCount)
            #expect(l.elements.allSatisfy { $0.geometry == .synthesized })
            let ids = room.surfaces.map(\.identifier) + room.objects.map(\.identifier)
            #expect(Set(l.elements.map(\.identifier)) == Set(ids))
            #expect(l.sections.count == room.sections.count)
            #expect(l.metrics.floorAreaSource == "floor")
            #expect(l.referenceOriginTransform != nil)
            #expect(l.warnings.map(\.code) == [LayeringWarningCode.geometrySynthesized])
            #expect(l.quality.grade != nil)
            // The floor polygon triangulates without fallback.
            #expect(!l.warnings.contains { $0.code == LayeringWarningCode.polygonFallback })
        }
    }

    /// Prints the per-export table of linked / synthesized / unmatched elements.
    @Test func linkTable() throws {
        var rows: [String] = []
        for f in TestFiles.corpusUSDZ() {
            let l = try RoomLayering.layer(scene: try TestFiles.scene(f), capturedRoomJSON: nil)
            rows.append(row((f as NSString).lastPathComponent, l))
        }
        for f in TestFiles.corpusJSON() {
            let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: try TestFiles.bytes(f))
            rows.append(row((f as NSString).lastPathComponent, l))
        }
        print(rows.joined(separator: "\n"))
        #expect(rows.count == 5)
    }

    private func row(_ name: String, _ l: LayeredScene) -> String {
        let linked = l.elements.filter { $0.geometry == .usd && $0.confidence != nil }.count
        let usdOnly = l.elements.filter { $0.geometry == .usd && $0.confidence == nil }.count
        let synthesized = l.elements.filter { $0.geometry == .synthesized }.count
        let unmatched = l.warnings.filter {
            $0.code == LayeringWarningCode.jsonElementUnmatched || $0.code == LayeringWarningCode.usdElementUnmatched
        }.count
        return "LINKTABLE \(name): elements \(l.elements.count), linked \(linked), USD-only \(usdOnly), "
            + "synthesized \(synthesized), unmatched warnings \(unmatched), grade \(l.quality.grade ?? "-")"
    }
}
