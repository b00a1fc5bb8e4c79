import Foundation
import Testing
@testable import TranscodeWorker
@testable import WorkerRuntime

/// A version becomes `ready` only with the images the app shows (card and hero).
@Suite("Ready means the app can show it", .enabled(if: postgresConfigured), .serialized)
struct PreviewRequirementTests {
    @Test func theRequiredKinds() {
        #expect(JobAttempt.missingPreview(kinds: ["hero", "card", "orbit-00", "plan"]) == nil)
        let none = JobAttempt.missingPreview(kinds: [])
        #expect(none?.reason == "PREVIEW_FAILED" && none?.isRetryable == false && none?.message.contains("card or hero") == true)
        #expect(JobAttempt.missingPreview(kinds: ["hero"])?.message.contains("no card image") == true)
    }

    @Test func aScanWithNothingToDrawFailsForGood() throws {
        let f = try JobFixture()
        let usda = Array("#usda 1.0\n(\n    upAxis = \"Y\"\n)\n\ndef Xform \"Room\"\n{\n}\n".utf8)
        let version = UUID().uuidString.lowercased()
        let key = "rooms/\(f.roomId)/versions/\(version)/scan.usda"
        try f.files.put(key, bytes: usda, contentType: "model/vnd.usda")
        try f.store.submit(versionId: version, roomId: f.roomId, roomName: nil, usdzKey: key, jsonKey: nil)
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .failed(reason: "PREVIEW_FAILED"))
        let row = try f.row(version)
        #expect(row["status"] == "failed" && row.int("attempt") == 1)
        #expect(row["last_error"]?.hasPrefix("PREVIEW_MISSING") == true)
        #expect(try f.files.list(prefix: job.outputPrefix).isEmpty, "nothing of a version that cannot be shown is published")
    }
}
