import Foundation
import SceneModel
import Testing

@testable import Layering
import TestSupport

@Suite struct CapturedRoomDecoderTests {
    /// Every code is unique, upper case, starts with `ROOMPLAN_` and reads back as its case.
    @Test func errorCodesAreWellFormed() {
        #expect(errorCodeProblems(LayeringError.Code.self, prefix: "ROOMPLAN_") == [])
    }

    static func decode(_ text: String, limits: CapturedRoomDecoder.Limits = .default) throws
        -> (CapturedRoom, warnings: [SceneWarning])
    {
        try CapturedRoomDecoder.decode(Array(text.utf8), limits: limits)
    }

    static let wall = """
    {"category": {"wall": {}}, "completedEdges": [], "confidence": {"high": {}}, "curve": null,
     "dimensions": [4.6183414, 2.3925, 0], "identifier": "W-1", "parentIdentifier": null, "polygonCorners": [],
     "story": 0, "transform": [0.99999994, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -5.9604645e-08, 1.25, 2, 1]}
    """

    /// `{"walls": [<wall with replacement>]}`.
    static func oneWall(_ replace: String = "", with: String = "") -> String {
        "{\"walls\": [" + (replace.isEmpty ? wall : wall.replacingOccurrences(of: replace, with: with)) + "]}"
    }

    @Test(.enabled(if: TestFiles.corpus != nil, "../shared/corpus is absent"))
    func realJSONDecodes() throws {
        for f in TestFiles.corpusJSON() {
            let (room, warnings) = try CapturedRoomDecoder.decode(try TestFiles.bytes(f))
            #expect(warnings.isEmpty)
            #expect(room.version == 2 && room.story == 0)
            #expect(room.walls.count == 4 && room.doors.count == 2 && room.windows.count == 2)
            #expect(room.openings.isEmpty && room.floors.count == 1 && room.objects.count == 5 && room.sections.count == 1)
            #expect(room.referenceOriginTransform?.count == 16)
            #expect((room.coreModelLength ?? 0) > 10_000)
            for s in room.surfaces { #expect(s.transform.count == 16 && s.transform.allSatisfy(\.isFinite)) }
            #expect(room.doors.allSatisfy { if case .door(let open) = $0.category { return open != nil } else { return false } })
            // Doors and windows are hosted by walls; the chair belongs to a table.
            let wallIDs = Set(room.walls.map(\.identifier))
            #expect((room.doors + room.windows).allSatisfy { wallIDs.contains($0.parentIdentifier ?? "") })
            let tables = Set(room.objects.filter { $0.category == "table" }.map(\.identifier))
            #expect(room.objects.filter { $0.category == "chair" }.allSatisfy { tables.contains($0.parentIdentifier ?? "") })
            #expect(room.floors[0].polygonCorners.count >= 4)
        }
    }

    @Test func floatsAreFloat32Exactly() throws {
        let (room, _) = try Self.decode(Self.oneWall())
        let t = room.walls[0].transform
        #expect(t[0] == Float("0.99999994")! && t[0] != 1)
        #expect(t[12] == Float("-5.9604645e-08")!)
        #expect(room.walls[0].dimensions == SIMD3<Float>(4.6183414, 2.3925, 0))
        #expect(room.walls[0].identifier == "W-1" && room.walls[0].confidence == .high)
    }

    @Test func iOS16FileWithoutPostIOS16Keys() throws {
        let text = """
        {"coreModel": "AAAA", "doors": [], "openings": [], "windows": [],
         "objects": [{"category": {"sofa": {}}, "confidence": {"medium": {}}, "dimensions": [2, 0.9, 1],
                      "identifier": "O-1", "transform": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]}],
         "walls": [{"category": {"wall": {}}, "completedEdges": [], "confidence": {"low": {}}, "curve": null,
                    "dimensions": [3, 2.5, 0], "identifier": "W-1", "transform": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]}]}
        """
        let (room, warnings) = try Self.decode(text)
        #expect(warnings.isEmpty)
        #expect(room.version == nil && room.story == nil && room.floors.isEmpty && room.sections.isEmpty)
        #expect(room.referenceOriginTransform == nil && room.coreModelLength == 4)
        #expect(room.objects[0].attributes.isEmpty && room.objects[0].parentIdentifier == nil && room.objects[0].story == nil)
        #expect(room.walls[0].polygonCorners.isEmpty && room.walls[0].confidence == .low)
    }

    @Test func enumsAsObjectsOrBareStringsAndUnknownKeysIgnored() throws {
        let text = """
        {"doors": [
           {"category": {"door": {"isOpen": true}}, "confidence": "medium", "dimensions": [0.9, 2],
            "identifier": "D-1", "transform": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1], "futureKey": {"x": [1, 2]}},
           {"category": "door", "confidence": {"unknown": {}}, "dimensions": [0.9, 2, 0], "identifier": "D-2",
            "transform": [[1,0,0,0], [0,1,0,0], [0,0,1,0], [3,2,1,1]]},
           {"category": {"door": {"isOpen": false}}, "dimensions": [0.9, 2, 0], "identifier": "D-3",
            "transform": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]}],
         "objects": [{"category": "washerDryer", "confidence": "high", "dimensions": [0.6, 0.9, 0.6], "identifier": "O-1",
                      "transform": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1], "attributes": {"A": "x", "B": 3, "C": true, "D": {"e": {}}}}],
         "sections": [{"center": [1, 2, 3], "label": {"kitchen": {}}, "story": 1}],
         "somethingNew": 42}
        """
        let (room, warnings) = try Self.decode(text)
        #expect(warnings.isEmpty)
        #expect(room.doors.map(\.category) == [.door(isOpen: true), .door(isOpen: nil), .door(isOpen: false)])
        #expect(room.doors.map(\.confidence) == [.medium, .unknown, nil])
        #expect(room.doors[1].transform == [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 3, 2, 1, 1])
        #expect(room.doors[0].dimensions == SIMD3(0.9, 2, 0))
        #expect(room.objects[0].category == "washerDryer")
        #expect(room.objects[0].attributes == ["A": "x", "B": "3", "C": "true", "D": "e"])
        #expect(room.sections == [CapturedRoom.Section(label: "kitchen", center: SIMD3(1, 2, 3), story: 1)])
    }

    @Test func completedEdgesAndCurveInPlausibleShapes() throws {
        let curveVariants: [(String, CapturedRoom.Curve?)] = [
            (#"{"startAngle": 0, "endAngle": 1.5707963, "radius": 2, "center": [0.5, -1]}"#,
             CapturedRoom.Curve(startAngle: 0, endAngle: 1.5707963, radius: 2, center: SIMD2(0.5, -1))),
            (#"{"startAngle": {"value": 0, "unit": {"symbol": "°", "converter": {"coefficient": 1, "constant": 0}}},"# +
             #" "endAngle": {"value": 90, "unit": {"symbol": "°"}}, "radius": {"value": 2, "unit": {"symbol": "m"}},"# +
             #" "center": {"x": 0.5, "y": 0, "z": -1}}"#,
             CapturedRoom.Curve(startAngle: 0, endAngle: Double.pi / 2, radius: 2, center: SIMD2(0.5, -1))),
            (#"{"startAngle": 0, "endAngle": 1, "radius": 2, "center": {"x": 0.5, "y": -1}}"#,
             CapturedRoom.Curve(startAngle: 0, endAngle: 1, radius: 2, center: SIMD2(0.5, -1))),
            (#"[0, 1, 2, [0, 0]]"#, nil),
            (#"{"startAngle": 0, "endAngle": 1, "radius": -2, "center": [0, 0]}"#, nil),
            (#"{"startAngle": "zero", "endAngle": 1, "radius": 2, "center": [0, 0]}"#, nil),
        ]
        for (curve, expected) in curveVariants {
            let (room, warnings) = try Self.decode(Self.oneWall(#""curve": null"#, with: "\"curve\": \(curve)"))
            if let expected {
                let c = try #require(room.walls[0].curve)
                #expect(abs(c.startAngle - expected.startAngle) < 1e-9 && abs(c.endAngle - expected.endAngle) < 1e-9)
                #expect(c.radius == expected.radius && c.center == expected.center)
                #expect(warnings.isEmpty)
            } else {
                #expect(room.walls[0].curve == nil)
                #expect(warnings.map(\.code) == [LayeringWarningCode.jsonValueIgnored])
                #expect(warnings.first?.message.hasPrefix("walls[0].curve") == true)
            }
        }
        let (room, warnings) = try Self.decode(
            Self.oneWall(#""completedEdges": []"#, with: #""completedEdges": ["top", {"left": {}}, 7]"#))
        #expect(room.walls[0].completedEdges == ["top", "left"])
        #expect(warnings.count == 1 && warnings[0].message.hasPrefix("walls[0].completedEdges[2]"))
    }

    @Test func coreModelIsSkippedNotDecoded() throws {
        // Not base64, longer than maxStringBytes, full of escapes: still skipped.
        let junk = String(repeating: "\\u12\\/!", count: 40_000)
        let text = "{\"coreModel\": \"\(junk)\", \"walls\": []}"
        let (room, _) = try Self.decode(text, limits: CapturedRoomDecoder.Limits(maxStringBytes: 1024))
        #expect(room.coreModelLength == junk.utf8.count)
        // The same string anywhere else is decoded and limited.
        #expect(throws: LayeringError.self) { try Self.decode("{\"walls\": [], \"other\": \"\(junk)\"}") }
    }

    // MARK: Failures: typed, with code and JSON path

    struct Failure: Sendable, CustomStringConvertible {
        var name: String
        var text: String
        var code: LayeringError.Code
        var path: String?
        var description: String { name }
    }

    static let failures: [Failure] = [
        Failure(name: "empty", text: "", code: .jsonInvalid, path: "$"),
        Failure(name: "not JSON", text: "RoomPlan!", code: .jsonInvalid, path: "$"),
        Failure(name: "top-level array", text: "[1, 2]", code: .jsonInvalid, path: "$"),
        Failure(name: "not a CapturedRoom", text: #"{"rooms": []}"#, code: .jsonInvalid, path: "$"),
        Failure(name: "truncated in transform", text: String(oneWall()[..<oneWall().range(of: "1.25, 2")!.upperBound]),
                code: .jsonInvalid, path: "walls[0].transform[14]"),
        Failure(name: "truncated after key", text: #"{"walls": [{"identifier""#, code: .jsonInvalid,
                path: "walls[0]"),
        Failure(name: "walls is an object", text: #"{"walls": {}}"#, code: .jsonInvalid, path: "walls"),
        Failure(name: "identifier is a number", text: oneWall(#""W-1""#, with: "7"), code: .jsonInvalid,
                path: "walls[0].identifier"),
        Failure(name: "missing transform", text: oneWall(#""transform""#, with: #""transfrm""#),
                code: .jsonInvalid, path: "walls[0].transform"),
        Failure(name: "transform of 15", text: oneWall(", 2, 1]}", with: ", 2]}"), code: .jsonInvalid,
                path: "walls[0].transform"),
        Failure(name: "transform of strings", text: oneWall("0.99999994", with: #""1""#),
                code: .jsonInvalid, path: "walls[0].transform[0]"),
        Failure(name: "NaN literal", text: oneWall("1.25", with: "NaN"), code: .jsonInvalid,
                path: "walls[0].transform[13]"),
        Failure(name: "overflowing Float32", text: oneWall("1.25", with: "1e39"), code: .jsonInvalid,
                path: "walls[0].transform[13]"),
        Failure(name: "dimensions of 1", text: oneWall("[4.6183414, 2.3925, 0]", with: "[4]"),
                code: .jsonInvalid, path: "walls[0].dimensions"),
        Failure(name: "door isOpen string", text: #"{"doors": [{"category": {"door": {"isOpen": "yes"}}}]}"#,
                code: .jsonInvalid, path: "doors[0].category.door.isOpen"),
        Failure(name: "enum with two keys", text: oneWall(#"{"high": {}}"#, with: #"{"high": {}, "low": {}}"#),
                code: .jsonInvalid, path: "walls[0].confidence"),
        Failure(name: "story not integer", text: oneWall(#""story": 0"#, with: #""story": 0.5"#),
                code: .jsonInvalid, path: "walls[0].story"),
        Failure(name: "leading zero", text: oneWall("1.25", with: "01.25"), code: .jsonInvalid,
                path: "walls[0].transform[13]"),
        Failure(name: "control character", text: "{\"walls\": [], \"x\": \"a\u{01}b\"}", code: .jsonInvalid,
                path: "x"),
        Failure(name: "bad escape", text: #"{"walls": [], "x": "\q"}"#, code: .jsonInvalid, path: "x"),
        Failure(name: "trailing garbage", text: #"{"walls": []} x"#, code: .jsonInvalid, path: "$"),
        Failure(name: "depth bomb", text: "{\"walls\": " + String(repeating: "[", count: 100_000),
                code: .limitExceeded, path: "walls" + String(repeating: "[0]", count: 31)),
        Failure(name: "object depth bomb", text: String(repeating: "{\"a\":", count: 5000),
                code: .limitExceeded, path: Array(repeating: "a", count: 32).joined(separator: ".")),
        Failure(name: "long number", text: oneWall("1.25", with: "1." + String(repeating: "2", count: 100)),
                code: .limitExceeded, path: "walls[0].transform[13]"),
    ]

    @Test(arguments: failures)
    func failsWithCodeAndPath(_ f: Failure) {
        do {
            _ = try Self.decode(f.text)
            Issue.record("\(f.name) decoded")
        } catch let e as LayeringError {
            #expect(e.code == f.code, "\(f.name): \(e)")
            #expect(e.jsonPath == f.path, "\(f.name): \(e)")
            #expect(!e.isRetryable)
        } catch {
            Issue.record("\(f.name): untyped \(error)")
        }
    }

    @Test func hundredMegabyteStringIsTooLarge() {
        let head = Array(#"{"walls": [], "x": ""#.utf8), tail = Array("\"}".utf8)
        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: head.count + 100 * 1024 * 1024 + tail.count)
        bytes.replaceSubrange(0..<head.count, with: head)
        bytes.replaceSubrange((bytes.count - tail.count)..<bytes.count, with: tail)
        #expect(throws: LayeringError(
            code: .jsonTooLarge,
            message: "CapturedRoom JSON is \(bytes.count) bytes; the limit is \(20 * 1024 * 1024) (maxBytes)")) {
            try CapturedRoomDecoder.decode(bytes)
        }
        // Under a raised size limit the string limit still applies, with its path.
        do {
            _ = try CapturedRoomDecoder.decode(bytes, limits: CapturedRoomDecoder.Limits(maxBytes: 200 * 1024 * 1024))
            Issue.record("decoded")
        } catch let e as LayeringError {
            #expect(e.code == .limitExceeded && e.jsonPath == "x")
        } catch {
            Issue.record("untyped \(error)")
        }
    }

    @Test func countLimitsAreNamedAndCheckedBeforeDecoding() throws {
        let limits = CapturedRoomDecoder.Limits(maxElements: 2, maxPolygonCorners: 3, maxSections: 1, maxAttributes: 1)
        let three = "{\"walls\": [" + [Self.wall, Self.wall, Self.wall].joined(separator: ",") + "]}"
        #expect(throws: LayeringError.limit("3 items; the limit is 2 (maxElements)", at: "walls")) {
            try Self.decode(three, limits: limits)
        }
        #expect(throws: LayeringError.limit("4 items; the limit is 3 (maxPolygonCorners)", at: "walls[0].polygonCorners")) {
            try Self.decode(Self.oneWall(#""polygonCorners": []"#, with: #""polygonCorners": [[0,0],[1,0],[1,1],[0,1]]"#),
                            limits: limits)
        }
        #expect(throws: LayeringError.self) {
            try Self.decode(#"{"walls": [], "sections": [{"center": [0,0,0]}, {"center": [0,0,0]}]}"#, limits: limits)
        }
        #expect(throws: LayeringError.limit("more than 10 JSON values (maxValues)", at: "walls[0].dimensions[0]")) {
            try Self.decode(Self.oneWall(), limits: CapturedRoomDecoder.Limits(maxValues: 10))
        }
    }

    @Test func truncationSweepNeverCrashes() throws {
        var inputs: [[UInt8]] = []
        for f in TestFiles.corpusJSON() { inputs.append(try TestFiles.bytes(f)) }
        if TestFiles.samplesPresent {
            for p in try TestFiles.samplePairs() { inputs.append(try TestFiles.bytes(p.json)) }
        }
        inputs.append(Array(Self.oneWall().utf8))
        var failures = 0, successes = 0
        for bytes in inputs {
            var n = 0
            while n <= bytes.count {
                do {
                    _ = try CapturedRoomDecoder.decode(Array(bytes[0..<n]))
                    successes += 1
                } catch let e as LayeringError {
                    #expect(e.code == .jsonInvalid, "prefix \(n): \(e)")
                    #expect(e.jsonPath != nil)
                    failures += 1
                }
                n += 97
            }
            // The whole document decodes.
            _ = try CapturedRoomDecoder.decode(bytes)
        }
        #expect(failures > 100)
        #expect(successes <= inputs.count)
    }

    @Test func byteOrderMarkIsAccepted() throws {
        let (room, _) = try CapturedRoomDecoder.decode([0xEF, 0xBB, 0xBF] + Array(Self.oneWall().utf8))
        #expect(room.walls.count == 1)
    }
}
