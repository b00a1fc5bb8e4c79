import Foundation
import Manifest
import TestSupport
import Testing

@testable import TranscodeWorker

/// `transcode-worker` links no feature module: what it states about the job child's outputs is
/// written out in the daemon and kept equal to the modules here, and the commands that parse
/// scans run the programs beside it.
@Suite struct DaemonLinkTests {
    @Test func theDaemonsManifestSchemaIsTheBuilders() {
        #expect(RunCommand.manifestSchemaVersion == ManifestBuilder.schemaVersion)
    }

    @Test func theParsingCommandsRunTheProgramsBesideTheWorker() {
        #expect(SiblingProgram.program(for: "convert")?.name == "transcode-job")
        #expect(SiblingProgram.program(for: "convert")?.arguments == ["convert"])
        #expect(SiblingProgram.program(for: "job-exec")?.arguments == ["job-exec"])
        #expect(SiblingProgram.program(for: "inspect")?.name == "transcode-inspect")
        #expect(SiblingProgram.program(for: "run") == nil)
    }

    /// Without the program beside it, the command says which file it looked for, with status 4.
    @Test(.enabled(if: TestPaths.workerBinary != nil && TestPaths.jobBinary != nil))
    func aMissingProgramIsAnInternalError() throws {
        let dir = NSTemporaryDirectory() + "daemon-alone-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: TestPaths.workerBinary!, toPath: dir + "/transcode-worker")
        let r = try ProgramRun.run(dir + "/transcode-worker", ["convert", "samples/room.usdz", "--out", dir + "/out"])
        #expect(r.status == 4)
        #expect(r.stderr.contains("\(dir)/transcode-job"), "\(r.stderr)")
        let inspect = try ProgramRun.run(dir + "/transcode-worker", ["inspect", "samples/room.usdz"])
        #expect(inspect.status == 4 && inspect.stderr.contains("transcode-inspect"))
    }
}
