import SceneModel
import TestSupport
import Testing
@testable import Thumbnailer

/// The views of a RoomPlan-like room and of plain models: paths, sizes, cameras, cutaway, hero
/// choice, plan drawing, determinism.
struct ViewTests {
    /// Every code is unique, upper case, starts with `THUMB_` and reads back as its case; messages
    /// spell a code as its text.
    @Test func errorCodesAreWellFormed() {
        #expect(errorCodeProblems(ThumbnailerError.Code.self, prefix: "THUMB_") == [])
        #expect("\(ThumbnailerError.Code.textureBudget)" == ThumbnailWarningCode.textureBudget)
    }

    static var small: ThumbnailOptions {
        var o = ThumbnailOptions()
        o.sizes = .init(
            hero: ThumbnailSize(width: 192, height: 144), card: ThumbnailSize(width: 96, height: 72),
            orbit: ThumbnailSize(width: 128, height: 96), plan: ThumbnailSize(width: 160, height: 160),
            cardSmall: ThumbnailSize(width: 48, height: 36))
        o.supersampling = 2
        return o
    }

    /// Pixels farther than `tolerance` from the background colour.
    static func nonBackground(_ rgba: [UInt8], tolerance: Int = 12) -> Int {
        var n = 0
        for i in stride(from: 0, to: rgba.count, by: 4) {
            let d = abs(Int(rgba[i]) - 0xF3) + abs(Int(rgba[i + 1]) - 0xF4) + abs(Int(rgba[i + 2]) - 0xF6)
            if d > tolerance { n += 1 }
        }
        return n
    }

    @Test func everyViewIsRenderedEncodedAndDecodable() throws {
        let (views, warnings) = try Thumbnailer.render(RoomFixture.room(), options: Self.small)
        #expect(warnings.isEmpty)
        #expect(
            views.map(\.path) == ["thumbs/hero.webp", "thumbs/card.webp", "thumbs/card-small.webp"]
                + (0..<8).map { "thumbs/orbit-0\($0).webp" } + ["thumbs/plan.webp"])
        for v in views {
            let decoded = try #require(Thumbnailer.decodeWebP(v.webp), "\(v.path) decodes")
            #expect(decoded.width == v.width && decoded.height == v.height)
            let size = Self.small.sizes[v.kind]
            #expect(v.width == size.width && v.height == size.height)
            // A rendered room is not a blank background.
            #expect(Self.nonBackground(decoded.rgba) > v.width * v.height / 5, "\(v.path)")
            if v.kind == .plan {
                #expect(v.camera.orthoHalfExtent != nil && v.camera.fovDegrees == nil)
                #expect(abs(v.camera.up.y) < 1e-9)
            } else {
                #expect(v.camera.fovDegrees != nil && v.camera.orthoHalfExtent == nil)
            }
        }
        // Orbit frames are 45° apart at one elevation around one target.
        let orbit = views.filter { $0.kind == .orbit }.map(\.camera)
        for k in 0..<8 {
            let a = orbit[k].position - orbit[k].target, b = orbit[(k + 1) % 8].position - orbit[(k + 1) % 8].target
            let ha = SIMD2(a.x, a.z), hb = SIMD2(b.x, b.z)
            let cosine = (ha * hb).sum() / (((ha * ha).sum() * (hb * hb).sum()).squareRoot())
            #expect(abs(cosine - 0.5.squareRoot()) < 1e-6)
            #expect(abs(a.y / (a * a).sum().squareRoot() - 0.5736) < 1e-3)  // sin 35°
        }
    }

    @Test func renderingIsDeterministic() throws {
        var o = Self.small
        o.views = [.hero, .orbit, .plan]
        let a = try Thumbnailer.render(RoomFixture.room(), options: o).views
        let b = try Thumbnailer.render(RoomFixture.room(), options: o).views
        #expect(a.map(\.webp) == b.map(\.webp))
        let r1 = try Thumbnailer.renderRGBA(RoomFixture.room(), view: .hero, options: o).image
        let r2 = try Thumbnailer.renderRGBA(RoomFixture.room(), view: .hero, options: o).image
        #expect(r1.rgba == r2.rgba)
    }

    @Test func wallsBetweenTheCameraAndTheRoomAreCutAway() throws {
        let room = RoomFixture.room()
        let context = try RenderContext(room, options: Self.small)
        func name(_ e: Int) -> String { room.elements[e].identifier }
        // Eye east of the room (x > 5), a little south.
        let east = context.planner.cutawayElements(eye: SIMD3(12, 6, 1)).map(name)
        #expect(east.contains("WALL-B") && east.contains("WINDOW-1"))
        #expect(!east.contains("WALL-D") && !east.contains("WALL-C"))
        // South-west (x < 0, z < 0): walls A and D and the door in A.
        let sw = Set(context.planner.cutawayElements(eye: SIMD3(-6, 6, -6)).map(name))
        #expect(sw == ["WALL-A", "WALL-D", "DOOR-1"])
        // Plain models get no cutaway.
        let plain = TestScenes.layered(TestScenes.triangles([0, 0, 0, 1, 0, 0, 0, 1, 0]))
        let pc = try RenderContext(plain, options: Self.small)
        #expect(pc.planner.cutawayElements(eye: SIMD3(5, 5, 5)).isEmpty)
        // The hidden instances are exactly the cut elements' geometry.
        let hidden = context.hiddenInstances(eye: SIMD3(12, 6, 1))
        #expect(hidden.filter { $0 }.count == 2)
    }

    @Test func heroLooksInFromTheOpenSide() throws {
        let open = RoomFixture.room(withoutEastWall: true)
        let context = try RenderContext(open, options: Self.small)
        let hero = context.planner.heroCamera(width: 192, height: 144)
        #expect(hero.camera.position.x > 5, "camera on the side without a wall: \(hero.camera.position)")
        // The closed room's hero is a 3/4 view (a diagonal of the walls).
        let closed = try RenderContext(RoomFixture.room(), options: Self.small)
        let h = closed.planner.heroCamera(width: 192, height: 144)
        let d = h.camera.position - h.camera.target
        let skew: Double = abs(abs(d.x) - abs(d.z)), scale: Double = abs(d.x) + abs(d.z)
        #expect(skew < 1e-6 * scale + 1e-9)
    }

    @Test func aRoomsPlanViewIsATopViewOfItsMeshes() throws {
        // The composer replaces it with the vector floor plan; on its own the thumbnailer draws the
        // room from above, floor and objects visible, the camera looking down.
        let room = RoomFixture.room()
        var o = Self.small
        o.sizes.plan = ThumbnailSize(width: 256, height: 256)
        let image = try Thumbnailer.renderRGBA(room, view: .plan, options: o).image
        TestScenes.saveDebugImage("plan-top-view", rgba: image.rgba, width: 256, height: 256)
        #expect(Self.nonBackground(image.rgba) > 256 * 256 / 4, "the room fills the view")
        #expect(image.camera.position.y > image.camera.target.y && image.camera.orthoHalfExtent != nil)
    }

    @Test func plainModelsGetAMeshPlanAndNoCutaway() throws {
        let b = RoomFixture.box(SIMD3(-1, 0, -1), SIMD3(1, 1, 1))
        var s = Scene()
        let m = s.addMaterial(Material(name: "m", baseColor: SIMD4(0.8, 0.3, 0.2, 1)))
        let mesh = s.addMesh(
            Mesh(
                name: "box", positions: b.positions, normals: b.normals, indices: b.indices,
                primitives: [Mesh.Primitive(indexStart: 0, indexCount: b.indices.count, material: m)]))
        s.addNode(Node(name: "box", mesh: mesh))
        let layered = TestScenes.layered(s)
        let (views, _) = try Thumbnailer.render(layered, options: Self.small)
        #expect(views.count == 12)
        for v in views {
            let d = try #require(Thumbnailer.decodeWebP(v.webp))
            #expect(Self.nonBackground(d.rgba) > 200, "\(v.path)")
        }
        let plan = try #require(views.last)
        #expect(plan.camera.position.y > plan.camera.target.y)
    }

    @Test func emptyScenesAndEmptyRequestsThrow() {
        #expect(throws: ThumbnailerError.self) {
            try Thumbnailer.render(LayeredScene(scene: Scene()), options: Self.small)
        }
        do {
            _ = try Thumbnailer.render(LayeredScene(scene: Scene()), options: Self.small)
        } catch let e as ThumbnailerError {
            #expect(e.code == .emptyScene)
        } catch {
            Issue.record("unexpected \(error)")
        }
        var none = Self.small
        none.views = []
        do {
            _ = try Thumbnailer.render(RoomFixture.room(), options: none)
            Issue.record("no views must throw")
        } catch let e as ThumbnailerError {
            #expect(e.code == .invalidOptions)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
