import Foundation
import SceneModel
import Testing

@testable import USDParse

/// Attributes authored only as time samples, against usd-core's `UsdAttribute.Get(time)`
/// (fixtures and answers from scripts/gen-time-samples.py): the scene reads points, normals,
/// xform ops and visibility at `startTimeCode`, else at each attribute's earliest sample, and
/// `defaultTimeValue` has no value, as usd-core's `Get()` at the default time code.
@Suite struct TimeSampleDifferentialTests {
    struct Expected: Decodable {
        var time: Double?
        var prims: [String: PrimAnswer]
    }

    struct PrimAnswer: Decodable {
        var local: [Double]?
        var visibility: String?
        var points: [Double]?
        var normals: [Double]?
        var points_default: Bool?
        var instances: [[Double]]?
    }

    static let expected: [String: Expected] = {
        let url = USDATest.fixtures.appendingPathComponent("time_samples.expected.json")
        guard let data = try? Data(contentsOf: url) else { return [:] }
        return (try? JSONDecoder().decode([String: Expected].self, from: data)) ?? [:]
    }()

    static let files = expected.keys.sorted()

    @Test func fixturesArePresent() {
        #expect(Self.files.count == 8)
    }

    private func open(_ file: String) throws -> (UsdStage, Scene) {
        let bytes = try [UInt8](Data(contentsOf: USDATest.fixtures.appendingPathComponent(file)))
        let (scene, opened) = try USDParser.parseScene(bytes, name: file)
        return (opened.stage, scene)
    }

    private func close(_ a: [Double], _ b: [Double], tolerance: Double = 1e-6) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance * max(1, abs($1)) }
    }

    private func normalized(_ v: [Double]) -> [Double] {
        stride(from: 0, to: v.count, by: 3).flatMap { i -> [Double] in
            let l = (v[i] * v[i] + v[i + 1] * v[i + 1] + v[i + 2] * v[i + 2]).squareRoot()
            return [v[i] / l, v[i + 1] / l, v[i + 2] / l]
        }
    }

    @Test(arguments: files) func attributeValuesMatchUsdCoreAtTheTimeUsed(file: String) throws {
        let answer = try #require(Self.expected[file])
        let (stage, _) = try open(file)
        #expect(stage.startTimeCode == answer.time)
        for (path, want) in answer.prims {
            let prim = try #require(stage.prim(at: SdfPath(path)), "\(file) \(path)")
            if let points = want.points {
                let got = try #require(prim.value("points", at: stage.startTimeCode)?.typed?.storage.doubles)
                #expect(close(got, points), "\(file) \(path).points")
            }
            if let normals = want.normals {
                let got = try #require(prim.value("normals", at: stage.startTimeCode)?.typed?.storage.doubles)
                #expect(close(got, normals), "\(file) \(path).normals")
            }
            if let hasDefault = want.points_default {
                #expect((prim.attributes["points"]?.defaultTimeValue != nil) == hasDefault, "\(file) \(path)")
            }
        }
    }

    @Test(arguments: files) func sceneUsesTheTimeUsdCoreReports(file: String) throws {
        let answer = try #require(Self.expected[file])
        let (_, scene) = try open(file)
        for (path, want) in answer.prims {
            let node = scene.nodes.first { $0.sourcePath == path }
            if want.visibility == "invisible" {
                #expect(node == nil, "\(file) \(path) is invisible at the time used")
                continue
            }
            let n = try #require(node, "\(file) \(path)")
            if let instances = want.instances {
                // One `<instancer>_<i>` child per visible instance, in order, holding its transform.
                let index = try #require(scene.nodes.firstIndex { $0.sourcePath == path })
                let made = scene.nodes.filter {
                    $0.parent?.rawValue == index && $0.name.hasPrefix(n.name + "_") && $0.sourcePath == path
                }
                #expect(made.count == instances.count, "\(file) \(path) instances")
                for (got, want) in zip(made, instances) {
                    #expect(close(got.localTransform.m, want, tolerance: 1e-5), "\(file) \(got.name) \(got.localTransform.m)")
                }
            }
            if let local = want.local {
                #expect(close(n.localTransform.m, local, tolerance: 1e-6), "\(file) \(path) \(n.localTransform.m)")
            }
            if let points = want.points, let mi = n.mesh {
                let mesh = scene.meshes[mi.rawValue]
                #expect(close(mesh.positions.map(Double.init), Array(points.prefix(mesh.positions.count))),
                        "\(file) \(path) positions")
                if let normals = want.normals {
                    #expect(close(mesh.normals.map(Double.init), normalized(normals), tolerance: 1e-5),
                            "\(file) \(path) normals")
                }
            }
        }
        let timeWarnings = scene.warnings.filter { $0.code == "USD_STAGE_TIME_SAMPLED" }
        #expect(timeWarnings.count == 1, "\(scene.warnings)")
        let text = try #require(timeWarnings.first).message
        if let t = answer.time {
            #expect(text.contains("startTimeCode \(t)"), "\(text)")
        } else {
            #expect(text.contains("earliest time sample"), "\(text)")
        }
    }

    @Test func interpolationRules() throws {
        let ts = SdfTimeSamples(
            times: [0, 10],
            values: [.scalar(.double, .double([2])), .scalar(.double, .double([4]))])
        #expect(TimeSampleEvaluation.evaluate(ts, at: 5) == .scalar(.double, .double([3])))
        #expect(TimeSampleEvaluation.evaluate(ts, at: -1) == .scalar(.double, .double([2])))
        #expect(TimeSampleEvaluation.evaluate(ts, at: 11) == .scalar(.double, .double([4])))
        let tokens = SdfTimeSamples(
            times: [0, 10], values: [.scalar(.token, .string(["a"])), .scalar(.token, .string(["b"]))])
        #expect(TimeSampleEvaluation.evaluate(tokens, at: 9.9) == .scalar(.token, .string(["a"])))
        let blocked = SdfTimeSamples(times: [0, 10], values: [.valueBlock, .scalar(.double, .double([4]))])
        #expect(TimeSampleEvaluation.evaluate(blocked, at: 5) == nil)
        let upperBlocked = SdfTimeSamples(times: [0, 10], values: [.scalar(.double, .double([4])), .valueBlock])
        #expect(TimeSampleEvaluation.evaluate(upperBlocked, at: 5) == .scalar(.double, .double([4])))
        let ints = SdfTimeSamples(
            times: [0, 10], values: [.array(.int, .int32([1, 2])), .array(.int, .int32([3, 4]))])
        #expect(TimeSampleEvaluation.evaluate(ints, at: 5) == .array(.int, .int32([1, 2])))
        // A default always wins over samples.
        var attr = UsdAttribute(name: "a")
        attr.defaultValue = .scalar(.double, .double([9]))
        attr.timeSamples = ts
        #expect(attr.value(at: 5) == .scalar(.double, .double([9])))
        #expect(!attr.hasOnlyTimeSamples)
    }
}
