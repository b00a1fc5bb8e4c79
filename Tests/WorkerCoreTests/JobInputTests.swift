import JSONCore
import Testing

@testable import WorkerCore

/// The job child's input document: what the daemon writes is what the child reads, and a
/// document that is not of its shape is refused with a message naming the member.
struct JobInputTests {
    static var full: JobInput {
        var job = JobInput()
        job.versionId = "00000000-0000-0000-0000-000000000001"
        job.roomId = "00000000-0000-0000-0000-000000000002"
        job.usd = ["/w/in/usd/a.usdz", "/w/in/rooms/1/b.usdz"]
        job.roomPlan = ["/w/in/json/a.json", "/w/in/rooms/1/b.json"]
        job.redactedTextures = "/w/redacted"
        job.redactions = [
            "0/tex.png": [JobInput.Redaction(id: "r1", kind: "face", regionJSON: "{\"x\":0.1,\"y\":0.2,\"w\":0.3,\"h\":0.4}",
                                             fromBottom: false, replaced: true),
                          JobInput.Redaction(id: "r2", regionJSON: nil)],
        ]
        job.previous = "/w/in/previous.pack"
        job.thumbnails = false
        job.options.glbCompression = .none
        job.options.textureFormat = .original
        job.options.orbitSize = .init(width: 512, height: 384)
        job.options.cardSize = .init(width: 600, height: 450)
        job.options.planUnits = .imperial
        job.options.planLocale = .zhHans
        job.options.report = true
        return job
    }

    @Test func theDocumentRoundTrips() throws {
        #expect(try JobInput(document: Self.full.document) == Self.full)
        #expect(try JobInput(document: JobInput().document) == JobInput())
        // Every member may be left out: the defaults stand.
        #expect(try JobInput(document: Array("{}".utf8)) == JobInput())
    }

    @Test func aDocumentOfAnotherShapeIsRefusedNamingTheMember() {
        let cases: [(String, String)] = [
            ("[]", "not a JSON object"),
            ("{\"usd\":\"a.usdz\"}", "usd is not a list of strings"),
            ("{\"usd\":[1]}", "usd is not a list of strings"),
            ("{\"version_id\":7}", "version_id is not a string"),
            ("{\"thumbnails\":\"yes\"}", "thumbnails is not true or false"),
            ("{\"redactions\":{\"t.png\":[{\"kind\":\"face\"}]}}", "has no id"),
            ("{\"redactions\":[]}", "redactions is not an object"),
            ("{\"options\":{\"glb-compression\":\"zstd\"}}", "options.glb-compression needs meshopt or none, got 'zstd'"),
            ("{\"options\":{\"orbit-size\":12}}", "options.orbit-size is not a string"),
            ("{\"options\":{\"report\":1}}", "options.report is not true or false"),
            ("{\"options\":{\"materials\":\"source\"}}", "unknown option materials"),
        ]
        for (text, words) in cases {
            do {
                _ = try JobInput(document: Array(text.utf8))
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.description.contains(words), "\(text): \(error.description)")
            }
        }
        let huge = Array("{\"usd\":[\"".utf8) + Array(repeating: UInt8(ascii: "a"), count: JobInput.maxDocumentBytes) + Array("\"]}".utf8)
        #expect(throws: UsageError.self) { try JobInput(document: huge) }
    }
}
