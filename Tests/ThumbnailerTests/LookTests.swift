import Foundation
import SceneModel
import Testing
@testable import Thumbnailer

/// Renders the fixture room's views to PNG files when `THUMBNAILER_TEST_IMAGES` names a folder
/// (for looking at them); always checks they are not blank.
struct LookTests {
    @Test func fixtureRoomViews() throws {
        let room = RoomFixture.room()
        var options = ThumbnailOptions()
        options.sizes.hero = ThumbnailSize(width: 640, height: 480)
        options.sizes.orbit = ThumbnailSize(width: 240, height: 180)
        options.sizes.plan = ThumbnailSize(width: 512, height: 512)
        options.supersampling = 3
        let context = try RenderContext(room, options: options)
        let hero = context.planner.heroCamera(width: 640, height: 480).camera
        let out = context.renderScene(camera: hero, width: 640, height: 480, cutaway: true)
        TestScenes.saveDebugImage("fixture-hero", rgba: out.rgba, width: 640, height: 480)
        #expect(out.covered > 640 * 480 / 4)
        // Occlusion factors of the same view.
        let cam = RenderCamera(
            hero, width: 640, height: 480, origin: context.scene.origin, sceneRadius: context.analysis.radius)
        var s = RenderSettings()
        s.supersampling = 3
        s.showOcclusion = true
        let ao = ViewRenderer.render(
            scene: context.scene, camera: cam, hiddenInstance: context.hiddenInstances(eye: hero.position),
            settings: s, sceneRadius: context.analysis.radius)
        TestScenes.saveDebugImage("fixture-ao", rgba: ao.rgba, width: 640, height: 480)
        // The occlusion view is one grey factor per pixel: 1 (white) where nothing occludes, darker
        // in the corners where walls meet the floor and furniture stands on it.
        #expect(ao.rgba.count == 640 * 480 * 4)
        let greys: [UInt8] = stride(from: 0, to: ao.rgba.count, by: 4).map { ao.rgba[$0] }
        let rgba: [UInt8] = ao.rgba
        var grey = true
        for i in stride(from: 0, to: rgba.count, by: 4) where rgba[i] != rgba[i + 1] || rgba[i] != rgba[i + 2] { grey = false }
        #expect(grey)
        let darkened = greys.filter { $0 < 230 }.count, open = greys.filter { $0 >= 250 }.count
        #expect(darkened > greys.count / 200, "occluded pixels: \(darkened) of \(greys.count)")
        #expect(open > greys.count / 4, "unoccluded pixels: \(open) of \(greys.count)")
        let plan = context.planner.planCamera(width: 512, height: 512)
        let p = context.renderPlan(camera: plan, width: 512, height: 512).output
        TestScenes.saveDebugImage("fixture-plan", rgba: p.rgba, width: 512, height: 512)
        #expect(p.covered > 512 * 512 / 4)
    }
}
