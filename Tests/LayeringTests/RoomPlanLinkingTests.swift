import Foundation
import SceneModel
import Testing
import USDParse

@testable import Layering

/// The project's sample pairs (USDZ + CapturedRoom JSON) through layering.
@Suite(.enabled(if: TestFiles.samplesPresent, "samples/roomplan is absent"))
struct RoomPlanLinkingTests {
    struct Layered {
        var name: String
        var source: Scene
        var room: CapturedRoom
        var layered: LayeredScene
    }

    static func layeredSamples() throws -> [Layered] {
        try TestFiles.samplePairs().map { p in
            let scene = try TestFiles.scene(p.usdz)
            let json = try TestFiles.bytes(p.json)
            return Layered(
                name: p.name, source: scene, room: try CapturedRoomDecoder.decode(json).0,
                layered: try RoomLayering.layer(scene: scene, capturedRoomJSON: json))
        }
    }

    /// Every UUID the USD carries, from each referenced element layer's root customData.
    static func usdUUIDs(_ scene: Scene) -> [String: String] {
        var out: [String: String] = [:]  // UUID → group prim path
        for n in scene.nodes {
            for d in n.referencedCustomData {
                if let u = d["UUID"]?.stringValue { out[u] = n.sourcePath }
            }
        }
        return out
    }

    static func jsonIDs(_ room: CapturedRoom) -> [String] {
        room.surfaces.map(\.identifier) + room.objects.map(\.identifier)
    }

    @Test func everyJSONIdentifierEndsInExactlyOneLayer() throws {
        for s in try Self.layeredSamples() {
            let l = s.layered
            let ids = Self.jsonIDs(s.room)
            #expect(ids.count == Set(ids).count)
            for id in ids {
                let hits = l.layers.flatMap { layer in layer.elements.filter { l.elements[$0].identifier == id } }
                #expect(hits.count == 1, "\(s.name): \(id) in \(hits.count) layers")
            }
            // Nothing else: every element is a JSON element in these samples.
            #expect(Set(l.elements.map(\.identifier)) == Set(ids), "\(s.name)")
            checkLayoutContract(l)
        }
    }

    @Test func everyUSDElementWithUUIDIsLinkedAndLinksAgreeWithTheUUIDs() throws {
        for s in try Self.layeredSamples() {
            let l = s.layered
            let uuids = Self.usdUUIDs(s.source)
            #expect(!uuids.isEmpty)
            for (uuid, groupPath) in uuids {
                let e = try #require(l.elements.first { $0.identifier == uuid }, "\(s.name): \(uuid)")
                #expect(e.geometry == .usd, "\(s.name): \(uuid) not linked")
                // The linked geometry is a child of the group that references the UUID's layer …
                let path = try #require(e.sourcePrimPath)
                #expect(path.hasPrefix(groupPath + "/"))
                // … and it is the element's own gprim: named like its layer's root prim (`Door1`).
                let category = e.category == "floor" ? "Floor" : e.category.rawValue.prefix(1).uppercased() + e.category.rawValue.dropFirst()
                #expect(path.split(separator: "/").last!.hasPrefix(category), "\(s.name): \(uuid) → \(path)")
            }
            let linked = l.elements.filter { $0.geometry == .usd }.count
            #expect(linked == uuids.count, "\(s.name): 100% of USD elements with a UUID linked")
            #expect(!l.warnings.contains { $0.code == LayeringWarningCode.usdElementUnmatched })
            #expect(l.isRoomPlan)
        }
    }

    @Test func linkedGeometryKeepsItsWorldPlacement() throws {
        for s in try Self.layeredSamples() {
            let l = s.layered
            let sourceWorld = s.source.worldTransforms()
            for e in l.elements where e.geometry == .usd {
                #expect(s.source.nodes.contains { $0.sourcePath == e.sourcePrimPath })
                var expected = Bounds.empty
                for (i, n) in s.source.nodes.enumerated() where n.sourcePath == e.sourcePrimPath
                    || n.sourcePath.hasPrefix(e.sourcePrimPath! + "/") {
                    if let m = n.mesh { expected.include(Bounds.of(positions: s.source.meshes[m.rawValue].positions).transformed(by: sourceWorld[i])) }
                }
                var actual = Bounds.empty
                for (mesh, world) in meshesBelow(l, element: e) {
                    actual.include(Bounds.of(positions: mesh.positions).transformed(by: world))
                }
                #expect(!actual.isEmpty)
                let d = (actual.min - expected.min) * (actual.min - expected.min) + (actual.max - expected.max) * (actual.max - expected.max)
                #expect(d.sum() < 1e-10, "\(s.name) \(e.identifier)")
            }
        }
    }

    @Test func semanticsComeFromTheJSON() throws {
        let samples = try Self.layeredSamples()
        let parametric = try #require(samples.first { $0.name == "parametric_two_sections" })
        let l = parametric.layered
        // Doors open and closed; host walls.
        let doors = l.elements.filter { $0.category == "door" }
        #expect(Set(doors.compactMap(\.isOpen)) == [true, false])
        let walls = Set(l.elements.filter { $0.category == "wall" }.map(\.identifier))
        #expect(l.elements.filter { ["door", "window", "opening"].contains($0.category) }.allSatisfy {
            walls.contains($0.parentIdentifier ?? "")
        })
        // Chairs belong to the table, with their attributes.
        let table = try #require(l.elements.first { $0.category == "table" })
        let chairs = l.elements.filter { $0.category == "chair" }
        #expect(chairs.count == 4 && chairs.allSatisfy { $0.parentIdentifier == table.identifier })
        #expect(chairs.allSatisfy { $0.attributes["ChairType"] == "dining" && $0.confidence == "medium" && $0.story == 0 })
        // Two sections, as annotations.
        #expect(l.sections.map(\.label) == ["diningRoom", "livingRoom"])
        #expect(l.sections.allSatisfy { $0.story == 0 })
        #expect(!l.layers.contains { $0.id.rawValue.contains("section") })
        // Element transforms are the JSON matrices, bit for bit.
        for e in l.elements {
            let j = try #require(parametric.room.surfaces.first { $0.identifier == e.identifier }?.transform
                ?? parametric.room.objects.first { $0.identifier == e.identifier }?.transform)
            #expect(e.transform.m == j.map { Double($0) })
        }
        // The floor keeps its polygon.
        let floor = try #require(l.elements.first { $0.category == "floor" })
        #expect(floor.polygonCorners.count == 8)
    }

    @Test func jsonOpeningWithoutUSDElementIsSynthesized() throws {
        let s = try #require(try Self.layeredSamples().first { $0.name == "mesh_opening_unmatched" })
        let l = s.layered
        let synthesized = l.elements.filter { $0.geometry == .synthesized }
        #expect(synthesized.map(\.category) == ["opening"])
        let opening = synthesized[0]
        #expect(opening.sourcePrimPath == nil && opening.layer == "openings")
        #expect(opening.identifier == s.room.openings[0].identifier)
        let meshes = meshesBelow(l, element: opening)
        #expect(meshes.count == 1 && meshes[0].mesh.triangleCount == 12)
        let unmatched = l.warnings.filter { $0.code == LayeringWarningCode.jsonElementUnmatched }
        #expect(unmatched.count == 1 && unmatched[0].message.hasPrefix("1 JSON elements"))
        #expect(l.warnings.contains { $0.code == LayeringWarningCode.geometrySynthesized && $0.message.hasPrefix("1 ") })
    }

    @Test func modelExportObjectsUseTheEmbeddedCatalogGeometry() throws {
        let s = try #require(try Self.layeredSamples().first { $0.name == "model_catalog" })
        let l = s.layered
        for e in l.elements where e.category == "chair" || e.category == "table" {
            let meshes = meshesBelow(l, element: e)
            #expect(meshes.count == 1)
            let mesh = meshes[0].mesh
            #expect(mesh.triangleCount > 12 && !mesh.uv0.isEmpty && !mesh.normals.isEmpty)
            #expect(mesh.primitives.allSatisfy { $0.material != nil })
            // The catalog model scaled to the JSON dimensions.
            var b = Bounds.empty
            let inverse = try #require(e.transform.inverse)
            for (m, w) in meshes { b.include(Bounds.of(positions: m.positions).transformed(by: inverse * w)) }
            let d = try #require(e.dimensions)
            #expect(near(b.size.x, d.x, 1e-4) && near(b.size.y, d.y, 1e-4) && near(b.size.z, d.z, 1e-4))
        }
    }

    @Test func withoutUUIDsElementsLinkByTransformAndDimensions() throws {
        for p in try TestFiles.samplePairs() {
            var scene = try TestFiles.scene(p.usdz)
            for i in scene.nodes.indices {
                scene.nodes[i].customData = [:]
                scene.nodes[i].referencedCustomData = []
            }
            let json = try TestFiles.bytes(p.json)
            let withUUIDs = try RoomLayering.layer(scene: try TestFiles.scene(p.usdz), capturedRoomJSON: json)
            let l = try RoomLayering.layer(scene: scene, capturedRoomJSON: json)
            checkLayoutContract(l)
            #expect(l.isRoomPlan)
            // Same links as with UUIDs.
            let byID = Dictionary(uniqueKeysWithValues: withUUIDs.elements.map { ($0.identifier, $0.sourcePrimPath) })
            for e in l.elements { #expect(byID[e.identifier] == e.sourcePrimPath, "\(p.name): \(e.identifier)") }
            #expect(l.elements.count == withUUIDs.elements.count)
            let linked = l.elements.filter { $0.geometry == .usd }.count
            #expect(l.warnings.contains {
                $0.code == LayeringWarningCode.linkedByTransform && $0.message.hasPrefix("\(linked) ")
            })
        }
    }

    @Test func outputIsDeterministic() throws {
        for p in try TestFiles.samplePairs() {
            let json = try TestFiles.bytes(p.json)
            let a = try RoomLayering.layer(scene: try TestFiles.scene(p.usdz), capturedRoomJSON: json)
            let b = try RoomLayering.layer(scene: try TestFiles.scene(p.usdz), capturedRoomJSON: json)
            #expect(a == b, "\(p.name)")
            let c = try RoomLayering.layer(scene: nil, capturedRoomJSON: json)
            let d = try RoomLayering.layer(scene: nil, capturedRoomJSON: json)
            #expect(c == d, "\(p.name) JSON only")
        }
    }

    @Test func usdAloneKeepsRoomPlanIdentity() throws {
        for s in try Self.layeredSamples() {
            let l = try RoomLayering.layer(scene: s.source, capturedRoomJSON: nil)
            checkLayoutContract(l)
            let uuids = Self.usdUUIDs(s.source)
            #expect(Set(l.elements.map(\.identifier)) == Set(uuids.keys), "\(s.name)")
            #expect(l.elements.allSatisfy { $0.geometry == .usd && $0.confidence == nil })
            // Same categories and layers as with the JSON.
            for e in l.elements {
                let j = try #require(s.layered.elements.first { $0.identifier == e.identifier })
                #expect(e.category == j.category && e.layer == j.layer)
                #expect(e.isOpen == j.isOpen)
                if ["door", "window", "opening"].contains(e.category) { #expect(e.parentIdentifier == j.parentIdentifier) }
                // USD frames equal the JSON transforms (the USD matrices are the JSON's).
                #expect(e.transform.m == j.transform.m, "\(s.name) \(e.identifier)")
            }
            #expect(l.sections.map(\.label) == s.layered.sections.map(\.label))
        }
    }

    @Test func jsonAloneSynthesizesEverything() throws {
        for s in try Self.layeredSamples() {
            let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: try TestFiles.bytes(TestFiles.samples + "/\(s.name).json"))
            checkLayoutContract(l)
            #expect(Set(l.elements.map(\.identifier)) == Set(Self.jsonIDs(s.room)))
            #expect(l.elements.allSatisfy { $0.geometry == .synthesized && !meshesBelow(l, element: $0).isEmpty })
            #expect(l.scene.metadata.sourceFormat == "roomplan-json")
            #expect(l.metrics.floorArea == s.layered.metrics.floorArea)
            // One shared material per category.
            #expect(l.scene.materials.count == Set(l.elements.map(\.category)).count)
        }
    }
}
