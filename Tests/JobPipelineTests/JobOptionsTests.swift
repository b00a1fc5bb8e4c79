import FloorPlan
import GLBWriter
import Testing
import Thumbnailer
import WorkerCore

@testable import JobPipeline

/// The conversion's options cross from the daemon to the job child as `JobOptions.arguments`:
/// what the child parses back is what the daemon meant, and both sides spell the same values.
struct JobOptionsTests {
    /// Every value of each option, in turn, with the rest at their defaults, plus one of each
    /// changed at once.
    static var samples: [JobOptions] {
        var out: [JobOptions] = [JobOptions()]
        for c in JobOptions.GLBCompression.allCases { var o = JobOptions(); o.glbCompression = c; out.append(o) }
        for f in JobOptions.TextureFormat.allCases { var o = JobOptions(); o.textureFormat = f; out.append(o) }
        for u in JobOptions.PlanUnits.allCases { var o = JobOptions(); o.planUnits = u; out.append(o) }
        for l in JobOptions.PlanLocale.allCases { var o = JobOptions(); o.planLocale = l; out.append(o) }
        var all = JobOptions()
        all.glbCompression = .none
        all.textureFormat = .original
        all.orbitSize = .init(width: 512, height: 384)
        all.cardSize = .init(width: 600, height: 450)
        all.planUnits = .imperial
        all.planLocale = .zhHans
        all.report = true
        return out + [all]
    }

    @Test func whatTheDaemonSendsIsWhatTheChildReads() throws {
        for options in Self.samples {
            let child = try JobExecCommand(["--out", "o", "--usd", "room.usdz"] + options.arguments)
            #expect(child.job.options == options, "\(options.arguments)")
        }
    }

    /// The daemon links no feature module, so `JobOptions` spells their values again: they must
    /// stay the same, and each must reach the pipeline's own setting.
    @Test func bothSidesSpellTheSameValues() {
        #expect(JobOptions.GLBCompression.allCases.map(\.rawValue).sorted() == GLBCompression.allCases.map(\.rawValue).sorted())
        #expect(JobOptions.TextureFormat.allCases.map(\.rawValue).sorted()
                == PipelineInput.TextureFormat.allCases.map(\.rawValue).sorted())
        #expect(JobOptions.PlanUnits.allCases.map(\.rawValue) == PlanUnits.allCases.map(\.rawValue))
        #expect(JobOptions.PlanLocale.allCases.map(\.rawValue) == PlanLocale.allCases.map(\.rawValue))
        for options in Self.samples {
            var input = PipelineInput()
            input.apply(options)
            #expect(input.glbCompression.rawValue == options.glbCompression.rawValue)
            #expect(input.textureFormat.rawValue == options.textureFormat.rawValue)
            #expect(input.plan?.units.rawValue == options.planUnits.rawValue)
            #expect(input.plan?.locale.rawValue == options.planLocale.rawValue)
            let sizes = input.thumbnails?.sizes
            #expect(sizes?.orbit.width == (options.orbitSize?.width ?? ThumbnailOptions().sizes.orbit.width))
            #expect(sizes?.card.height == (options.cardSize?.height ?? ThumbnailOptions().sizes.card.height))
        }
    }

    /// One set of messages: the same wrong value gives the same words from a flag of `convert`,
    /// of `job-exec` and from the worker's setting, each naming how it was given.
    @Test func oneMessageWhereverTheValueComesFrom() {
        func message(_ body: () throws -> Void) -> String? {
            do { try body() } catch { return "\(error)" }
            return nil
        }
        for key in JobOptions.Key.allCases {
            let bad = "furlongs\u{1}"
            let convert = message { _ = try ConvertCommand(["room.usdz", "--out", "o", key.flag, bad]) }
            let child = message { _ = try JobExecCommand(["--out", "o", "--usd", "room.usdz", key.flag, bad]) }
            var options = JobOptions()
            let setting = message { try options.set(key, to: bad, givenAs: "TRANSCODE_X") }
            #expect(convert == "\(key.flag) needs \(key.expected), got 'furlongs?'")
            #expect(child == convert)
            #expect(setting == "TRANSCODE_X needs \(key.expected), got 'furlongs?'")
        }
    }

    @Test func aVersionsRowOverridesThePlanOnlyWithKnownValues() {
        var worker = JobOptions()
        worker.planUnits = .imperial
        #expect(worker.applyingRow(planUnits: nil, planLocale: nil) == worker)
        #expect(worker.applyingRow(planUnits: "metric", planLocale: "zh-Hans").planUnits == .metric)
        #expect(worker.applyingRow(planUnits: "metric", planLocale: "zh-Hans").planLocale == .zhHans)
        #expect(worker.applyingRow(planUnits: "furlongs", planLocale: "de") == worker)
    }
}

/// `job-exec --job FILE`: the document describes the whole job; a flag that describes it too is
/// refused rather than silently mixed in.
struct JobDocumentFlagTests {
    @Test func theDocumentIsTheWholeJob() throws {
        let command = try JobExecCommand(["--out", "o", "--job", "in/job.json", "--memory-mb", "64"])
        #expect(command.jobFile == "in/job.json" && command.memoryMB == 64 && command.job == JobInput())
        for flag in [["--usd", "a.usdz"], ["--units", "imperial"], ["--report"], ["--no-thumbnails"]] {
            #expect(throws: UsageError.self) { try JobExecCommand(["--out", "o", "--job", "j.json"] + flag) }
        }
        // Without a document the flags describe the same things.
        let flags = try JobExecCommand(["--out", "o", "--usd", "a.usdz", "--roomplan", "a.json", "--version-id", "v",
                                        "--no-thumbnails", "--previous", "p.pack", "--units", "imperial"])
        var expected = JobInput()
        expected.usd = ["a.usdz"]
        expected.roomPlan = ["a.json"]
        expected.versionId = "v"
        expected.thumbnails = false
        expected.previous = "p.pack"
        expected.options.planUnits = .imperial
        #expect(flags.job == expected)
    }
}
