import Foundation
import Testing
import SceneModel
import JobPipeline

@testable import Layering
@testable import Thumbnailer
import TestSupport

/// A home's pictures on the six real rooms of `../shared/homes`, merged and as a
/// `CapturedStructure`: the hero and orbit cameras frame every room's floor, the hero shows each
/// room (its floor drawn over in a colour of its own and counted), and each room gets a top-down
/// card listed in the manifest and the summary.
@Suite(.enabled(if: HomeStructureFixture.present, "../shared/homes is not present"))
struct HomePicturesTests {
    static let sources = ["merged", "structure"]

    static func home(_ source: String) throws -> LayeredScene {
        let bytes = try source == "merged" ? mergedJSON() : HomeStructureFixture.structure()
        return try RoomLayering.layer(scene: nil, capturedRoomJSON: bytes)
    }

    static func mergedJSON() throws -> [UInt8] {
        try RoomSetMerger.merge(
            HomeStructureFixture.roomNames.map { ("\($0)/capturedRoom.json", try HomeStructureFixture.json($0)) })
    }

    /// Normalised device coordinates of a world point (x, y in −1…1 inside the frame), nil
    /// behind the camera.
    static func project(_ p: SIMD3<Double>, _ c: ThumbnailCamera, aspect: Double) -> SIMD2<Double>? {
        let f = (c.target - c.position).normalizedOrZero
        let r = f.cross(c.up).normalizedOrZero, u = r.cross(f)
        let d = p - c.position
        let depth = d.dot(f)
        guard depth > 1e-6, let fov = c.fovDegrees else { return nil }
        let t = tan(fov * Double.pi / 360)
        return SIMD2(d.dot(r) / (depth * t * aspect), d.dot(u) / (depth * t))
    }

    @Test(arguments: sources)
    func theHeroAndEveryOrbitFrameHoldEveryRoomsFloor(source: String) throws {
        let l = try Self.home(source)
        #expect(l.rooms.count == 6)
        let context = try RenderContext(l, options: ThumbnailOptions())
        let home = try #require(context.home)
        let hero = context.planner.heroCamera(width: 1024, height: 768).camera
        let orbit = context.planner.orbitCameras(width: 768, height: 576)
        for (name, camera) in [("hero", hero)] + orbit.enumerated().map({ ("orbit \($0.offset)", $0.element) }) {
            for room in home.rooms {
                #expect(!room.floors.isEmpty, "\(room.name)")
                for corner in room.floors.joined() {
                    // The floor and the cut walls above it: both inside the frustum.
                    for y in [room.floorY, room.floorY + HomeLayout.cutHeight] {
                        let s = try #require(Self.project(SIMD3(corner.x, y, corner.y), camera, aspect: 4.0 / 3))
                        #expect(abs(s.x) < 1 && abs(s.y) < 1, "\(source) \(name): \(room.name) corner \(corner) at \(s)")
                    }
                }
            }
        }
        // Framed, not lost in the frame: the home's floor spans most of the hero's width or height.
        var lo = SIMD2<Double>(repeating: .infinity), hi = -lo
        for room in home.rooms {
            for c in room.floors.joined() {
                let s = try #require(Self.project(SIMD3(c.x, room.floorY, c.y), hero, aspect: 4.0 / 3))
                lo = pointwiseMin(lo, s)
                hi = pointwiseMax(hi, s)
            }
        }
        #expect(max(hi.x - lo.x, hi.y - lo.y) > 1.5, "\(source): the home spans \(hi - lo) of the hero")
        // The card is the hero's framing at card size, so the home fills it as much on a phone.
        #expect(context.planner.heroCamera(width: 512, height: 384).camera == hero)
    }

    /// Each room's floor is drawn over in a colour of its own and its pixels counted, in the hero
    /// and straight from above (where only furniture covers the floor): the hero shows at least
    /// 40 % of the share of each room's floor that the view from above shows (tall furniture
    /// hides more in perspective; a room behind walls or out of frame shows next to nothing).
    @Test(arguments: sources)
    func theHeroShowsEveryRoom(source: String) throws {
        let l = try Self.home(source)
        let size = ThumbnailSize(width: 512, height: 384)
        let hero = try Thumbnailer.roomVisibility(l, size: size)
        let context = try RenderContext(l, options: ThumbnailOptions())
        let home = try #require(context.home)
        let top = context.planner.planCamera(width: 512, height: 512)
        let above = try Thumbnailer.roomVisibility(l, camera: top, size: .init(width: 512, height: 512))
        let pixelsPerMetre = 256 / (try #require(top.orthoHalfExtent))
        #expect(hero.pixels.count == l.rooms.count && above.pixels.count == l.rooms.count)
        for (r, room) in home.rooms.enumerated() {
            var heroArea = 0.0, metres = 0.0
            for polygon in room.floors {
                // The pixels the floor would cover in the hero with nothing in front of it.
                let s = try polygon.map { c in
                    try #require(Self.project(SIMD3(c.x, room.floorY + 0.02, c.y), hero.camera, aspect: 4.0 / 3))
                }.map { SIMD2($0.x * 256, $0.y * 192) }
                heroArea += abs(Polygon2D.signedArea(s))
                metres += abs(Polygon2D.signedArea(polygon))
            }
            let heroShare = Double(hero.pixels[r]) / heroArea
            let aboveShare = Double(above.pixels[r]) / (metres * pixelsPerMetre * pixelsPerMetre)
            #expect(heroArea > 400, "\(source): \(room.name) covers \(Int(heroArea)) pixels of the hero")
            #expect(aboveShare > 0.3 && aboveShare < 1.05, "\(source): \(room.name) from above: \(aboveShare)")
            #expect(heroShare >= 0.4 * aboveShare,
                    "\(source): \(room.name) shows \(hero.pixels[r]) of \(Int(heroArea)) pixels (\(heroShare)); from above \(aboveShare)")
        }
    }

    @Test func eachRoomGetsACardListedInTheManifestAndTheSummary() throws {
        var options = ThumbnailOptions()
        options.sizes = .init(
            hero: .init(width: 128, height: 96), card: .init(width: 64, height: 48), orbit: .init(width: 64, height: 48),
            plan: .init(width: 64, height: 64), roomCard: .init(width: 64, height: 64))
        options.supersampling = 1
        var input = PipelineInput(limits: .default, thumbnails: options)
        input.roomPlanJSON = ("home.json", try Self.mergedJSON())
        input.plan = nil
        let result = try TranscodePipeline.run(input)
        let bytes = try #require(result.files.first { $0.path == "layer_manifest.json" }?.bytes)
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let thumbs = try #require(manifest["thumbnails"] as? [[String: Any]])
        let cards = thumbs.filter { $0["kind"] as? String == "room_card" }
        #expect(cards.compactMap { $0["path"] as? String } == (1...6).map { "thumbs/room-0\($0).webp" })
        #expect(cards.compactMap { $0["room"] as? String } == HomeStructureTests.expectedNames)
        #expect(thumbs.filter { $0["kind"] as? String != "room_card" }.allSatisfy { $0["room"] is NSNull })
        for card in cards {
            let path = try #require(card["path"] as? String)
            let webp = try #require(result.files.first { $0.path == path }?.bytes)
            let image = try #require(Thumbnailer.decodeWebP(webp))
            #expect(image.width == 64 && image.height == 64)
            // Top-down: an orthographic camera looking straight down.
            let camera = try #require(card["camera"] as? [String: Any])
            #expect(camera["ortho_half_extent"] is NSNumber && camera["fov_degrees"] is NSNull)
            #expect(path.utf8.dropFirst(7).dropLast(5).allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 })
        }
        #expect(result.summary.thumbnails.filter { $0.kind == "room_card" }.map { $0.path } == cards.compactMap { $0["path"] as? String })
        // Deterministic bytes.
        let again = try TranscodePipeline.run(input)
        #expect(again.files.map(\.bytes) == result.files.map(\.bytes))
    }

    @Test func aSingleRoomGetsNoRoomCardAndKeepsItsCutaway() throws {
        let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: try HomeStructureFixture.json("Kitchen"))
        var options = ThumbnailOptions(views: [.hero, .roomCard])
        options.sizes.hero = .init(width: 64, height: 48)
        options.supersampling = 1
        let rendered = try Thumbnailer.render(l, options: options)
        #expect(rendered.views.map(\.kind) == [.hero])
        let context = try RenderContext(l, options: options)
        #expect(context.home == nil)
        #expect(try Thumbnailer.roomVisibility(l, size: .init(width: 32, height: 24)).pixels.isEmpty)
    }
}
