import SceneModel
import SourceFiles
import USDParse
import JSONCore
import CommandCore

/// `transcode-worker inspect FILE [--json] [--timing] [--no-scene]` (and `transcode-inspect FILE …`,
/// the same command as a program of its own): parses a USDZ/USDC/USDA file and reports its layers,
/// prim tree, stage metadata, counts and warnings.
public struct InspectCommand {
    /// The words that start the command in `transcode-worker`, which runs `transcode-inspect`
    /// under that name (its `argv[0]`).
    public static let workerProgram = "transcode-worker inspect"

    /// The options and exit statuses, under `transcode-worker inspect`.
    public static let help = usage(program: workerProgram)

    /// The options and exit statuses, with `program` (the words that start the command) in the usage line.
    public static func usage(program: String) -> String {
        """
        USAGE: \(program) FILE [--json] [--timing] [--no-scene | --full-scene] [--max-prims N]

        Parses FILE (.usdz, .usdc, .usda or .usd), composes the stage and reports:
          layers, stage metadata (upAxis, metersPerUnit, defaultPrim), the prim tree with types,
          mesh / point / face / material / texture counts (counted like usd-core), the scene the
          conversion makes (nodes, meshes, triangles, materials, textures) and warnings.
          By default the scene is counted without building its vertex streams (normals and
          texture coordinates are not decoded); --full-scene builds it as convert does and adds
          vertices, validation errors and the warnings only vertex streams raise.

        OPTIONS:
          --json          Print one JSON object (stable keys, for scripts). On failure the object has
                          "error": {"code", "message", ...} and the exit status is 2.
          --timing        Add "timing": {"parse_ms", "scene_ms"} (parse = read the file, open and
                          compose, and with --no-scene decode every mesh's points, faceVertexCounts
                          and faceVertexIndices; scene = decoding the arrays it reads and converting
                          to the scene).
          --no-scene      Skip the conversion to the scene.
          --full-scene    Build the whole scene (vertex streams included) instead of counting it.
          --max-prims N   Print at most N prims of the tree in text mode (default 200).

        EXIT STATUS: 0 success, 2 usage error, 3 invalid or unreadable input (typed error), 4 internal error.
        """
    }

    var path = ""
    var json = false
    var timing = false
    var scene = true
    var fullScene = false
    var maxPrims = 200

    /// Reads the arguments after the command's name. Throws `UsageError` (`helpRequested` for `--help`).
    public init(_ args: [String]) throws {
        var it = args.makeIterator()
        while let a = it.next() {
            switch a {
            case "--json": json = true
            case "--timing": timing = true
            case "--no-scene": scene = false
            case "--full-scene": fullScene = true
            case "--max-prims":
                guard let v = it.next(), let n = Int(v), n >= 0 else { throw UsageError("--max-prims needs a number") }
                maxPrims = n
            case "-h", "--help": throw UsageError.helpRequested
            default:
                if a.hasPrefix("-") { throw UsageError("unknown option \(a)") }
                guard path.isEmpty else { throw UsageError("inspect takes one FILE") }
                path = a
            }
        }
        if path.isEmpty { throw UsageError("inspect needs a FILE") }
        if fullScene && !scene { throw UsageError("--full-scene and --no-scene exclude each other") }
    }

    /// Inspects the file and prints the report (stdout) or the error (stdout with `--json`, else
    /// stderr); returns the exit status.
    public func run() -> Int32 {
        let limits = ParseLimits.default
        let t0 = Clock.now()
        let bytes: ByteView
        do {
            bytes = try FileReader.map(path, maxBytes: limits.maxInputBytes)
        } catch let f as FileReader.Failure {
            return fail(code: f.code.rawValue, message: f.message, extra: [:], status: ExitStatus.invalidInput)
        } catch {
            return fail(code: FileReader.Failure.Code.readFailed.rawValue, message: "\(error)", extra: [:], status: ExitStatus.invalidInput)
        }
        let name = String(path.split(separator: "/").last ?? Substring(path))
        let dir = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let siblings = DirectoryAssetProvider(root: dir, maxBytes: limits.maxInputBytes)
        do {
            let budget = MemoryBudget(limits: limits)
            let opened = try USDParser.openStage(bytes, name: name, limits: limits, budget: budget, siblings: siblings)
            if !scene {
                // Read every mesh's points and topology (the arrays a viewer needs first), on all
                // cores. With the scene, its build decodes them, on a large stage together with
                // each mesh's checks.
                try DeferredDecoding.resolve(
                    opened.stage, attributes: ["points", "faceVertexCounts", "faceVertexIndices"], primTypes: ["Mesh"])
            }
            let t1 = Clock.now()
            var sceneJSON: JSONValue = .null
            var sceneWarnings: [SceneWarning] = []
            var t2 = t1
            if scene {
                let provider = opened.provider
                let load = { (p: String, layer: String) -> [UInt8]? in
                    guard let r = provider.resolve(p, anchor: layer) else { return nil }
                    return try? provider.data(at: r).array
                }
                var counts: [String: JSONValue]
                if fullScene {
                    let s = try SceneBuilder.build(
                        stage: opened.stage, sourceFormat: opened.format.rawValue, limits: limits, budget: budget,
                        loadAsset: load)
                    sceneWarnings = s.warnings
                    counts = SceneStructure(scene: s).json
                    counts["vertices"] = .int(Int64(s.meshes.reduce(0) { $0 + $1.vertexCount }))
                    counts["validation_errors"] = .int(
                        Int64(SceneValidator.validate(s).filter { $0.severity == .error }.count))
                    counts["detail"] = .string("full")
                } else {
                    let s = try SceneBuilder.countStructure(
                        stage: opened.stage, sourceFormat: opened.format.rawValue, limits: limits, budget: budget,
                        loadAsset: load)
                    sceneWarnings = s.warnings
                    counts = s.json
                    counts["detail"] = .string("structure")
                }
                t2 = Clock.now()
                // Time code of attributes authored only as time samples (null: each one's earliest sample).
                counts["time_code"] = opened.stage.startTimeCode.map(JSONValue.double) ?? .null
                sceneJSON = .object(counts)
            }
            let summary = StageSummary(opened.stage)
            var warnings: [JSONValue] = opened.containerWarnings.map {
                .object(["code": .string("USD_CONTAINER_WARNING"), "message": .string($0)])
            }
            warnings += opened.stage.warnings.map {
                .object(["code": .string($0.code), "message": .string($0.message), "path": $0.path.map(JSONValue.string) ?? .null])
            }
            warnings += sceneWarnings.filter { w in !opened.stage.warnings.contains { $0.code == w.code && $0.message == w.message } }.map {
                .object(["code": .string($0.code), "message": .string($0.message), "path": $0.primPath.map(JSONValue.string) ?? .null])
            }
            let stage = opened.stage
            var out: [String: JSONValue] = [
                "file": .string(path),
                "format": .string(opened.format.rawValue),
                "layers": .array(stage.layerIdentifiers.map(JSONValue.string)),
                "stage": .object([
                    "upAxis": stage.upAxis.map(JSONValue.string) ?? .null,
                    "metersPerUnit": stage.metersPerUnit.map(JSONValue.double) ?? .null,
                    "defaultPrim": stage.defaultPrim.map(JSONValue.string) ?? .null,
                    "startTimeCode": stage.startTimeCode.map(JSONValue.double) ?? .null,
                ]),
                "usd": summary.json,
                "warnings": .array(warnings),
            ]
            if json {  // every prim's path spelled out: only the JSON report lists them
                out["prims"] = .array(stage.prims.dropFirst().map {
                    .object(["path": .string($0.path.string), "type": .string($0.typeName)])
                })
            }
            if scene { out["scene"] = sceneJSON }
            if timing {
                out["timing"] = .object(["parse_ms": .double(Clock.ms(t0, t1)), "scene_ms": .double(Clock.ms(t1, t2))])
            }
            if json {
                print(JSONValue.object(out).serialized(pretty: true))
            } else {
                printText(stage: stage, opened: opened, summary: summary, scene: sceneJSON, warnings: warnings,
                          timing: timing ? (Clock.ms(t0, t1), Clock.ms(t1, t2)) : nil)
            }
            return 0
        } catch let e as USDParseError {
            var extra: [String: JSONValue] = ["format": .string(e.format.rawValue)]
            if let s = e.section { extra["section"] = .string(s) }
            if let o = e.byteOffset { extra["offset"] = .int(Int64(o)) }
            if let p = e.primPath { extra["prim"] = .string(p) }
            if let l = e.layer { extra["layer"] = .string(l) }
            if let l = e.line { extra["line"] = .int(Int64(l)) }
            if let c = e.column { extra["column"] = .int(Int64(c)) }
            return fail(code: e.code.rawValue, message: e.message, extra: extra, status: ExitStatus.invalidInput)
        } catch {
            return fail(code: "INTERNAL", message: "\(error)", extra: [:], status: ExitStatus.internalError)
        }
    }

    private func fail(code: String, message: String, extra: [String: JSONValue], status: Int32) -> Int32 {
        if json {
            var err = extra
            err["code"] = .string(code)
            err["message"] = .string(message)
            print(JSONValue.object(["file": .string(path), "error": .object(err)]).serialized(pretty: true))
        } else {
            var ctx = extra.keys.sorted().compactMap { k -> String? in
                if case .string(let s) = extra[k]! { return "\(k)=\(s)" }
                if case .int(let i) = extra[k]! { return "\(k)=\(i)" }
                return nil
            }.joined(separator: ", ")
            if !ctx.isEmpty { ctx = " (\(ctx))" }
            CommandRun.printError("error: \(path): \(code): \(message)\(ctx)")
        }
        return status
    }

    private func printText(
        stage: UsdStage, opened: USDParser.OpenedStage, summary: StageSummary, scene: JSONValue, warnings: [JSONValue],
        timing: (Double, Double)?
    ) {
        print("file:          \(path)")
        print("format:        \(opened.format.rawValue)")
        print("layers:        \(stage.layerIdentifiers.count)")
        for l in stage.layerIdentifiers { print("  \(l)") }
        print("upAxis:        \(stage.upAxis ?? "(unset: Y)")")
        print("metersPerUnit: \(stage.metersPerUnit.map { "\($0)" } ?? "(unset: 0.01)")")
        print("defaultPrim:   \(stage.defaultPrim ?? "(none)")")
        print("prims:         \(stage.prims.count - 1)")
        var depth: [Int] = Array(repeating: 0, count: stage.prims.count)
        for (i, p) in stage.prims.enumerated().dropFirst() {
            depth[i] = (p.parent.map { depth[$0] } ?? 0) + 1
            if i <= maxPrims {
                let type = p.typeName.isEmpty ? "" : " [\(p.typeName)]"
                print(String(repeating: "  ", count: depth[i]) + p.name + type + (p.isInstanceProxy ? " (instance)" : ""))
            }
        }
        if stage.prims.count - 1 > maxPrims { print("  … \(stage.prims.count - 1 - maxPrims) more prims") }
        print("meshes:        \(summary.meshes)  points: \(summary.points)  faces: \(summary.faces)")
        print("materials:     \(summary.materials)  textures: \(summary.textures.count)")
        if case .object(let s) = scene {
            let f = { (k: String) -> String in if case .int(let v)? = s[k] { return String(v) } else { return "?" } }
            var line = "scene:         nodes \(f("nodes")), meshes \(f("meshes")), triangles \(f("triangles"))"
            if s["vertices"] != nil { line += ", vertices \(f("vertices"))" }
            print(line + ", materials \(f("materials")), textures \(f("textures"))")
        }
        print("warnings:      \(warnings.count)")
        for w in warnings {
            if case .object(let o) = w, case .string(let c)? = o["code"], case .string(let m)? = o["message"] {
                var line = "  \(c): \(m)"
                if case .string(let p)? = o["path"] { line += " (\(p))" }
                print(line)
            }
        }
        if let (p, s) = timing { print("timing:        parse \(p) ms, scene \(s) ms") }
    }
}

extension SceneStructure {
    /// The counts as `inspect --json` prints them under `scene`.
    fileprivate var json: [String: JSONValue] {
        [
            "nodes": .int(Int64(nodes)), "meshes": .int(Int64(meshes)), "triangles": .int(Int64(triangles)),
            "instanced_triangles": .int(Int64(instancedTriangles)), "materials": .int(Int64(materials)),
            "textures": .int(Int64(textures)),
        ]
    }
}
