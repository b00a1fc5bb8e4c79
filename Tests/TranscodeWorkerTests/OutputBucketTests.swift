import Foundation
import Testing

import TestSupport
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime

/// Paths the backend can serve: every row records the bucket beside its paths, outputs can go to
/// a bucket of their own (public, CDN-served) apart from the private uploads, and a row cannot
/// point the worker at a bucket other than the one it reads sources from.
@Suite("Output bucket and bucket-qualified paths on real Postgres", .enabled(if: postgresConfigured))
struct OutputBucketTests {
    /// A second file store, the "public" bucket, with a recorder in front of it.
    final class OutputBucket {
        let root: String
        let files: FileObjectStore
        let recorder: JobRecordingStore

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("cdn-\(UUID().uuidString.prefix(8))").path
            files = try FileObjectStore(root: root)
            recorder = JobRecordingStore(files)
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    private func runner(_ f: JobFixture, outputs: OutputBucket) -> JobRunner {
        JobRunner(config: f.config, storage: f.recorder, outputStorage: outputs.recorder,
                  logger: JSONLogger(workerId: f.config.workerId, minimum: .error, fd: TestOutput.logFD))
    }

    @Test func outputsGoToTheirOwnBucketAndEveryRowNamesIt() throws {
        let f = try JobFixture()
        let out = try OutputBucket()
        let version = try f.submitSample()
        let job = try f.claim()
        #expect(runner(f, outputs: out).run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))

        let row = try f.row(version)
        #expect(row["output_bucket"] == out.files.bucket)
        #expect(out.files.bucket.hasPrefix("cdn-"))
        // The outputs are in the output bucket, under the paths the row gives; none in the uploads.
        for path in [row["glb_path"], row["manifest_path"], row["thumbnail_path"]] {
            let key = try #require(path)
            #expect(try out.files.size(key) != nil, "\(key) is not in the output bucket")
            #expect(try f.files.size(key) == nil, "\(key) was written to the upload bucket")
        }
        #expect(try f.files.list(prefix: job.outputPrefix).isEmpty)
        #expect(f.recorder.puts.isEmpty, "nothing is written to the upload bucket")
        #expect(!f.recorder.gets.isEmpty && out.recorder.gets.isEmpty, "sources are read from the upload bucket only")
        // Each object was stored for a CDN: the paths are never rewritten.
        let cache = out.recorder.cacheControl
        #expect(cache.count == out.recorder.puts.count && !cache.isEmpty)
        #expect(cache.values.allSatisfy { $0 == WorkerConfig.defaultOutputCacheControl })

        // The room's card names its bucket too.
        let room = try #require(try f.store.connection.query(
            "SELECT thumbnail_path, thumbnail_bucket, current_version_id::text AS current FROM rooms WHERE id = $1::uuid", [f.roomId]).first)
        #expect(room["current"] == version)
        #expect(room["thumbnail_bucket"] == out.files.bucket)
        let card = try #require(room["thumbnail_path"])
        #expect(card == job.outputPrefix + "thumbs/card.webp")
        #expect(try out.files.size(card) != nil)
    }

    @Test func aReprocessCollectsTheSupersededRevisionInTheOutputBucketAndKeepsTheSources() throws {
        let f = try JobFixture()
        let out = try OutputBucket()
        let version = try f.submitSample()
        let first = try f.claim()
        #expect(runner(f, outputs: out).run(first, control: JobControl()) == .ready(outputPrefix: first.outputPrefix))
        #expect(try f.store.markReprocess(versionId: version))
        let second = try f.claim()
        #expect(runner(f, outputs: out).run(second, control: JobControl()) == .ready(outputPrefix: second.outputPrefix))

        #expect(try out.files.list(prefix: first.outputPrefix).isEmpty, "the superseded revision is gone")
        #expect(try out.files.size(second.outputPrefix + "model.glb") != nil)
        let sources = try f.files.list(prefix: "rooms/\(f.roomId)/versions/\(version)/")
        #expect(sources.sorted() == ["rooms/\(f.roomId)/versions/\(version)/room.json",
                                     "rooms/\(f.roomId)/versions/\(version)/scan.usdz"])
        #expect(try f.row(version)["output_bucket"] == out.files.bucket)
    }

    @Test func noCacheControlWhenTurnedOff() throws {
        let f = try JobFixture()
        f.config.outputCacheControl = nil
        let out = try OutputBucket()
        try f.submitSample()
        let job = try f.claim()
        #expect(runner(f, outputs: out).run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        #expect(!out.recorder.puts.isEmpty)
        #expect(out.recorder.cacheControl.isEmpty)
    }

    @Test func aRowNamingAnotherSourceBucketFailsWithoutReadingAnything() throws {
        let f = try JobFixture()
        let version = try f.submitSample()
        _ = try f.store.connection.query("UPDATE transcode_private.room_versions SET source_bucket = 'someone-elses-bucket' WHERE id = $1::uuid", [version])
        let job = try f.claim()
        #expect(job.sourceBucket == "someone-elses-bucket")
        #expect(f.runner().run(job, control: JobControl()) == .failed(reason: FailureReason.sourceKeyRefused))
        let row = try f.row(version)
        #expect(row["status"] == "failed")
        #expect(row["last_error_code"] == FailureReason.sourceKeyRefused)
        #expect(row.int("attempt") == 1, "permanent: no retry")
        #expect(f.recorder.gets.isEmpty, "no source was read")
        #expect(f.recorder.puts.isEmpty)
    }

    @Test func aRowNamingTheWorkersSourceBucketIsProcessed() throws {
        let f = try JobFixture()
        let version = try f.submitSample()
        _ = try f.store.connection.query("UPDATE transcode_private.room_versions SET source_bucket = $2 WHERE id = $1::uuid", [version, f.files.bucket])
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        #expect(try f.row(version)["output_bucket"] == f.files.bucket, "one store: outputs beside the sources")
    }

    @Test func theUploadSweepDoesNotQueueAVersionOfAnotherBucket() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("uploads-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = try FileObjectStore(root: root)
        let room = UUID().uuidString.lowercased(), version = UUID().uuidString.lowercased()
        let key = "rooms/\(room)/versions/\(version)/scan.usdz"
        try files.put(key, bytes: [1, 2, 3], contentType: "model/vnd.usdz+zip")
        func state(_ bucket: String?) -> UploadSweeper.SourceState {
            UploadSweeper.sourceState(QueueStore.StaleUpload(versionId: version, roomId: room, sourceUSDZPath: key, sourceJSONPath: nil,
                                                             sourceBucket: bucket, quietSeconds: 900, updatedAt: "2026-01-01"),
                                      storage: files, template: StorageConfinement.defaultTemplate)
        }
        #expect(state(nil) == .present)
        #expect(state(files.bucket) == .present)
        #expect(state("other") == .absent(why: "the source bucket is refused"))
    }
}
