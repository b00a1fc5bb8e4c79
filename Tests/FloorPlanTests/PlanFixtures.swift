import Foundation
import Testing
import FloorPlan
import Layering
import SceneModel
import TestSupport

/// Rooms to draw: the RoomPlan samples layered from their CapturedRoom JSON, and variants made
/// from them (a second story, no walls, no floor).
enum PlanFixtures {
    static func layered(_ sample: String) throws -> LayeredScene {
        let url = TestPaths.packageRoot.appendingPathComponent("samples/roomplan/\(sample).json")
        return try RoomLayering.layer(scene: nil, capturedRoomJSON: [UInt8](try Data(contentsOf: url)))
    }

    /// The sample with every element and section copied onto story 1 (identifiers suffixed).
    static func twoStories(_ sample: String) throws -> LayeredScene {
        var l = try layered(sample)
        for e in l.elements {
            var copy = e
            copy.story = 1
            copy.identifier = e.identifier + "-S1"
            l.elements.append(copy)
        }
        for i in l.elements.indices where l.elements[i].story == nil { l.elements[i].story = 0 }
        l.sections += l.sections.map { RoomSection(label: $0.label, center: $0.center, story: 1) }
        return l
    }

    /// Runs a tool; its standard output, or nil (with the failure recorded) when it cannot run.
    static func run(_ tool: String, _ arguments: [String]) -> String? {
        let r: ProgramRun
        do { r = try ProgramRun.run("/usr/bin/env", [tool] + arguments) } catch {
            Issue.record("\(tool) does not run (\(error)); scripts/install-deps.sh installs it")
            return nil
        }
        guard r.exited && r.status == 0 else {
            Issue.record("\(tool) \(arguments) exited with \(r.status): \(r.stderr)")
            return nil
        }
        return r.stdout
    }

    /// Writes bytes to a fresh temporary file and returns its path.
    static func temporary(_ bytes: [UInt8], suffix: String) throws -> String {
        let path = NSTemporaryDirectory() + "plan-" + UUID().uuidString + suffix
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
