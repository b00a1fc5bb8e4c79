import FoundationEssentials
import FloorPlan
import Thumbnailer
import USDParse
import GLBWriter
import JSONCore
import WorkerCore
import Layering
import SourceFiles

/// `transcode-worker convert INPUT [--roomplan ROOM.json]… --out DIR [--redacted-textures DIR] [--report] [--json]`
///
/// Runs in `transcode-job` (`transcode-job convert …`), which `transcode-worker convert` executes:
/// the worker links no parser.
public struct ConvertCommand {
    public static let help = """
        USAGE: transcode-worker convert INPUT… [--roomplan ROOM.json]… --out DIR [--redacted-textures DIR]
                                        [--no-thumbnails] [--views LIST] [--thumb-size SIZE] [--orbit-size SIZE] [--card-size SIZE]
                                        [--webp-quality Q]
                                        [--glb-compression meshopt|none] [--texture-format webp|original]
                                        [--max-texture-size N] [--materials palette|source]
                                        [--units metric|imperial] [--locale en|zh-Hans] [--wall-thickness M]
                                        [--no-plan] [--report] [--previous DIR] [--json]

        Converts a room scan into a layered glTF binary and its manifest, written atomically into DIR:
          DIR/model.glb             one glTF 2.0 binary: a node per layer, a child node per element
          DIR/thumbs/*.webp         card.webp and hero.webp (1320×990, one image), card-small.webp
                                    (660×495), orbit-00 … orbit-07.webp (1320×990, every 45°),
                                    plan.webp (1024×1024, the floor plan below)
          DIR/plan.svg, plan.pdf    rooms only: the dimensioned, labelled floor plan, one sheet or page
                                    per story (SVG with real text; PDF through cairo)
          DIR/plan.dxf              rooms only: the plan for CAD (AutoCAD 2000, metres, a layer per
                                    story and kind)
          DIR/report.html           with --report: one self-contained page for people (grade, metrics,
                                    views, floor plan and rooms, layers, elements, warnings, files)
          DIR/layer_manifest.json   layers, elements, sections, metrics, quality grade, thumbnails
                                    with their cameras, the plan and its rooms (area, perimeter),
                                    inputs, stats (written last)

        INPUT is a .usdz, .usdc, .usda or .usd file, or a RoomPlan CapturedRoom .json alone (the room
        is then built from the JSON). A CapturedStructure .json (iOS 17, several rooms) is read with its
        rooms: each is measured from its own floor, named by its section, and holds its elements.

        Several rooms of one home, scanned in one world frame, are merged into one structure (one
        model, one plan, a record per room): either each room's .json (INPUT and one --roomplan per
        other room), or each room's USD as an INPUT with one --roomplan per INPUT. The same file
        twice, a structure among them, rooms sharing an element, USD INPUTs and --roomplan files
        that do not pair up, or a USD whose element UUIDs are none of its JSON's (another room's
        JSON) is a usage error (exit 2).

        OPTIONS:
          --roomplan FILE           The RoomPlan CapturedRoom JSON exported with the USDZ; with a .json
                                    INPUT, one more room to merge (repeatable).
          --out DIR                 Output directory (created when missing; existing outputs replaced).
          --redacted-textures DIR   Face-blurred textures: DIR/<path> replaces the package texture at
                                    <path> (or the one texture with the same file name) before anything
                                    is written; the manifest lists every substitution.
          --no-thumbnails           Write no thumbnails.
          --views LIST              Comma-separated subset of hero,card,card_small,orbit,plan,room_card
                                    (default: all; room_card: one per room of a home).
          --thumb-size SIZE         Render every selected view at SIZE: N (square) or WxH, 16…4096
                                    (default: the sizes listed above).
          --orbit-size SIZE         Render the orbit frames at SIZE (N or WxH, 16…4096), whatever
                                    --thumb-size says (the worker's TRANSCODE_ORBIT_SIZE).
          --card-size SIZE          Render the card and the hero at SIZE and the small card at half
                                    of it, whatever --thumb-size says (TRANSCODE_CARD_SIZE).
          --webp-quality Q          WebP quality 0…100 (default 75, with one quantiser segment).
          --glb-compression MODE    meshopt (default): EXT_meshopt_compression with KHR_mesh_quantization,
                                    positions within 1 mm, 8-bit normals; loaders need a meshopt decoder
                                    (three.js MeshoptDecoder). none: plain float32 streams, for tools
                                    without one (trimesh, Blender's importer).
          --texture-format FORMAT   webp (default): textures re-encoded as WebP (EXT_texture_webp), at most
                                    --max-texture-size on their longest side. original: PNG/JPEG as found.
          --max-texture-size N      Longest texture side in the model, 16…16383 pixels (default 2048).
          --materials STYLE         palette (default): in room scans, untextured materials take their
                                    category's colour, as in the thumbnails. source: the scan's own.
          --units SYSTEM            metric (default: metres to the centimetre, m²) or imperial (feet and
                                    inches to the quarter inch, sq ft) for the plan's labels.
          --locale LANG             en (default) or zh-Hans: the plan's room and object names and title.
          --wall-thickness M        Drawn wall thickness in metres, centred on the scanned wall
                                    (default 0.10).
          --no-plan                 Write no plan.svg, plan.pdf or plan.dxf (the plan thumbnail is then
                                    the rendered top-down view).
          --report                  Also write DIR/report.html: the inputs, quality grade, metrics, the
                                    hero, plan and orbit views, layers, elements, warnings and files on
                                    one HTML page with the images embedded (no external files).
          --previous DIR            An earlier conversion's output folder: the thumbnails and the
                                    plan files are taken from it when their key in its manifest's
                                    `artifacts` equals this conversion's (same inputs, options and
                                    stage versions) and they match its sizes and hashes; the
                                    summary lists them as reused. The outputs are byte for byte
                                    those of a conversion without it.
          --json                    Print the summary as one JSON object.

        EXIT STATUS: 0 success, 2 usage error, 3 invalid or unreadable input, 4 internal error.
        """

    var input = ""
    var roomPlans: [String] = []
    /// USD files of more rooms of the same home (INPUT is the first).
    var moreInputs: [String] = []
    var out = ""
    var redacted: String?
    var json = false
    var previous: String?
    var thumbnails: ThumbnailOptions? = ThumbnailOptions()
    /// The options `convert` shares with the job child (`JobOptions`): the model's compression
    /// and textures, the orbit and card sizes, the plan's units and language, the report.
    var options = JobOptions()
    var maxTextureSize = 2048
    var materials = PipelineInput.MaterialStyle.palette
    var plan: PlanOptions? = PlanOptions()

    init(_ args: [String]) throws {
        var it = args.makeIterator()
        func value(_ flag: String) throws -> String {
            guard let v = it.next(), !v.hasPrefix("--") else { throw UsageError("\(flag) needs a value") }
            return v
        }
        while let a = it.next() {
            switch a {
            case "--roomplan": roomPlans.append(try value(a))
            case "--out": out = try value(a)
            case "--redacted-textures": redacted = try value(a)
            case "--json": json = true
            case "--previous": previous = try value(a)
            case "--no-thumbnails": thumbnails = nil
            case "--views":
                var kinds: Set<ThumbnailView.Kind> = []
                for name in try value(a).split(separator: ",") {
                    guard let k = ThumbnailView.Kind(rawValue: String(name)) else {
                        throw UsageError("unknown view '\(name)' (hero, card, card_small, orbit, plan, room_card)")
                    }
                    kinds.insert(k)
                }
                thumbnails?.views = kinds
            case "--thumb-size":
                let text = try value(a)
                guard let size = SizeText.parse(text) else {
                    throw JobOptions.problem(a, needs: JobOptions.Key.orbitSize.expected, got: text)
                }
                for kind in ThumbnailView.Kind.allCases {
                    thumbnails?.sizes[kind] = ThumbnailSize(width: size.width, height: size.height)
                }
            case "--max-texture-size":
                guard let n = Int(try value(a)), n >= 16, n <= 16383 else { throw UsageError("--max-texture-size needs 16…16383") }
                maxTextureSize = n
            case "--materials":
                let v = try value(a)
                guard let s = PipelineInput.MaterialStyle(rawValue: v) else { throw UsageError("--materials needs palette or source") }
                materials = s
            case "--wall-thickness":
                guard let t = Double(try value(a)), t.isFinite, t > 0, t < 1 else { throw UsageError("--wall-thickness needs metres in (0, 1)") }
                plan?.wallThickness = t
            case "--no-plan": plan = nil
            case "--webp-quality":
                guard let q = Float(try value(a)), q >= 0, q <= 100 else { throw UsageError("--webp-quality needs 0…100") }
                thumbnails?.webpQuality = q
            case "-h", "--help": throw UsageError.helpRequested
            default:
                if try options.parseFlag(a, value: { try value(a) }) { continue }
                if a.hasPrefix("-") { throw UsageError("unknown option \(a)") }
                if input.isEmpty { input = a } else { moreInputs.append(a) }
            }
        }
        if input.isEmpty { throw UsageError("convert needs an INPUT file") }
        if out.isEmpty { throw UsageError("convert needs --out DIR") }
        try Self.checkRoomInputs(inputs: [input] + moreInputs, roomPlans: roomPlans)
    }

    /// The pipeline's settings these flags give (no input files yet): the thumbnails, the plan,
    /// the model's settings, then the shared options over them (so `--orbit-size` and
    /// `--card-size` win over `--thumb-size` whatever the order).
    var settings: PipelineInput {
        var p = PipelineInput(limits: .default, thumbnails: thumbnails)
        p.maxTextureSize = maxTextureSize
        p.materials = materials
        p.plan = plan
        p.apply(options)
        return p
    }

    func run() -> Int32 {
        let limits = ParseLimits.default
        let t0 = Clock.now()
        var pipelineInput = settings
        if let previous {
            guard let found = PreviousOutputs.read(directory: previous, maxBytes: limits.maxInputBytes) else {
                CommandRun.printError("convert: no readable layer_manifest.json in \(previous)")
                return ExitStatus.usage
            }
            pipelineInput.previous = found
        }
        do {
            let name = Self.displayNames([input] + moreInputs)[0]
            let isJSON = input.lowercased().hasSuffix(".json")
            if isJSON {
                switch try readRooms([input] + roomPlans, maxBytes: limits.maxInputBytes) {
                case .success(let json): pipelineInput.roomPlanJSON = json
                case .failure(let e): return report(e, status: e.has(LayeringError.Code.inputsMismatched) ? ExitStatus.usage : ExitStatus.invalidInput)
                }
            } else {
                let dir = PathText.parent(input)
                pipelineInput.usd = PipelineInput.USDSource(
                    name: name, bytes: try FileReader.map(input, maxBytes: limits.maxInputBytes),
                    siblings: DirectoryAssetProvider(root: dir.isEmpty ? "." : dir, maxBytes: limits.maxInputBytes))
                for more in moreInputs {
                    let moreDir = PathText.parent(more)
                    pipelineInput.moreUSD.append(PipelineInput.USDSource(
                        name: Self.displayNames([input] + moreInputs)[pipelineInput.moreUSD.count + 1],
                        bytes: try FileReader.map(more, maxBytes: limits.maxInputBytes),
                        siblings: DirectoryAssetProvider(root: moreDir.isEmpty ? "." : moreDir, maxBytes: limits.maxInputBytes)))
                }
                if !roomPlans.isEmpty {
                    switch try readRooms(roomPlans, maxBytes: limits.maxInputBytes) {
                    case .success(let json): pipelineInput.roomPlanJSON = json
                    case .failure(let e): return report(e, status: e.has(LayeringError.Code.inputsMismatched) ? ExitStatus.usage : ExitStatus.invalidInput)
                    }
                }
            }
            if let redacted { pipelineInput.redactedTextures = try FileReader.readRedactions(redacted, maxBytes: limits.maxInputBytes) }
        } catch let f as FileReader.Failure {
            return report(PipelineError(f, phase: .reading), status: ExitStatus.invalidInput)
        } catch {
            return report(PipelineError(FileReader.Failure(code: .readFailed, message: "\(error)"), phase: .reading),
                          status: ExitStatus.invalidInput)
        }
        var result: PipelineResult
        do {
            result = try TranscodePipeline.run(pipelineInput)
        } catch {
            let status = error.has(LayeringError.Code.inputsMismatched) ? ExitStatus.usage
                : error.isInputError ? ExitStatus.invalidInput : ExitStatus.internalError
            return report(error, status: status)
        }
        if options.report {
            do {
                try ReportBuilder.add(to: &result)
            } catch {
                return report(error, status: ExitStatus.internalError)
            }
        }
        do {
            try OutputDirectory.write(result.files, into: out)
        } catch {
            let message = (error as? FileReader.Failure)?.message ?? "\(error)"
            return report(PipelineError(FileReader.Failure(code: .writeFailed, message: message), phase: .writing),
                          status: ExitStatus.internalError)
        }
        printSummary(result, totalMs: Clock.ms(t0, Clock.now()))
        return ExitStatus.ok
    }

    private func report(_ e: PipelineError, status: Int32) -> Int32 {
        if json {
            var err: [String: JSONValue] = ["code": .string(e.code), "message": .string(e.message), "phase": .string(e.phase.rawValue),
                                            "retryable": .bool(e.isRetryable)]
            for (k, v) in e.context { err[k] = .string(v) }
            print(JSONValue.object(["input": .string(input), "error": .object(err)]).serialized(pretty: true))
        } else {
            CommandRun.printError("error: \(input): \(e)")
        }
        return status
    }

    private func printSummary(_ r: PipelineResult, totalMs: Double) {
        let s = r.summary
        if json {
            print(JSONValue.object([
                "input": .string(input),
                "out": .string(out),
                "files": .array(r.files.map { .object(["path": .string($0.path), "bytes": .int(Int64($0.bytes.count))]) }),
                "reused": .array(r.reused.sorted().map(JSONValue.string)),
                "layers": .array(s.layers.map { .object(["id": .string($0.id), "elements": .int(Int64($0.elements))]) }),
                "elements": .int(Int64(s.elements)),
                "linked_elements": .int(Int64(s.linkedElements)),
                "synthesized_elements": .int(Int64(s.synthesizedElements)),
                "triangles": .int(Int64(s.triangles)),
                "vertices": .int(Int64(s.vertices)),
                "quality_grade": s.qualityGrade.map(JSONValue.string) ?? .null,
                "timing_ms": .object(Dictionary(uniqueKeysWithValues: s.phaseMilliseconds.map { ($0.phase.rawValue, JSONValue.double($0.ms)) }
                                                + [("total", JSONValue.double(totalMs))])),
                "warnings": .array(s.warnings.map {
                    .object(["code": .string($0.code), "message": .string($0.message), "path": $0.path.map(JSONValue.string) ?? .null])
                }),
            ]).serialized(pretty: true))
            return
        }
        print("converted \(input) → \(out)")
        for f in r.files { print("  \(f.path)  \(f.bytes.count) bytes" + (r.reused.contains(f.path) ? "  (reused)" : "")) }
        print("layers:    \(s.layers.count)  (" + s.layers.map { "\($0.id) \($0.elements)" }.joined(separator: ", ") + ")")
        print("elements:  \(s.elements)  (linked \(s.linkedElements), synthesized \(s.synthesizedElements))")
        print("triangles: \(s.triangles)  vertices: \(s.vertices)")
        print("quality:   \(s.qualityGrade ?? "n/a")")
        print("timing:    " + s.phaseMilliseconds.map { "\($0.phase) \($0.ms) ms" }.joined(separator: ", ") + ", total \(totalMs) ms")
        print("warnings:  \(s.warnings.count)")
        for w in s.warnings.prefix(50) { print("  \(w.code): \(w.message)" + (w.path.map { " (\($0))" } ?? "")) }
        if s.warnings.count > 50 { print("  … \(s.warnings.count - 50) more (see layer_manifest.json)") }
    }
}
