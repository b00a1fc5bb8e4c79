import Foundation
import Testing
@testable import TranscodeWorker
@testable import JSONCore
@testable import PGQueue

@Suite("Queue store on real Postgres", .enabled(if: postgresConfigured))
struct QueueStoreTests {
    func seeded(_ db: TestDatabase, count: Int = 1, maxAttempts: Int? = nil) throws -> (QueueStore, [String]) {
        let store = QueueStore(connection: try db.connect())
        let room = UUID().uuidString.lowercased()
        var ids: [String] = []
        for _ in 0..<count {
            let id = UUID().uuidString.lowercased()
            try store.submit(versionId: id, roomId: room, roomName: "test", usdzKey: "src/\(id).usdz", jsonKey: nil,
                             maxAttempts: maxAttempts)
            ids.append(id)
        }
        return (store, ids)
    }

    @Test func migrationsAreIdempotentAndRecorded() throws {
        let db = try TestDatabase(migrate: false)
        defer { db.drop() }
        let c = try db.connect()
        let first = try Migrator.migrate(c)
        #expect(first.applied.map(\.version) == SchemaCatalog.migrations.map(\.version))
        let second = try Migrator.migrate(c)
        #expect(second.applied.isEmpty)
        #expect(try Migrator.appliedVersions(c) == SchemaCatalog.migrations.map(\.version))
    }

    @Test func claimHeartbeatFinalize() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let (store, ids) = try seeded(db)
        let job = try #require(try store.claim(workerId: "w1", leaseSeconds: 30))
        #expect(job.versionId == ids[0])
        #expect(job.attempt == 1)
        #expect(job.status == "transcoding")
        #expect(try store.claim(workerId: "w2", leaseSeconds: 30) == nil)
        #expect(try store.heartbeat(job, leaseSeconds: 30, phase: "layering") == .alive(cancelRequested: false))
        let outputs = JSONValue.object(["glb_path": .string(job.outputPrefix + "model.glb"),
                                        "manifest_path": .string(job.outputPrefix + "layer_manifest.json"),
                                        "thumbnails": .array([]), "manifest_schema_version": .int(1)])
        let done = try store.finalize(versionId: job.versionId, leaseId: job.leaseId, status: "ready", outputs: outputs)
        #expect(done.ok && done.status == "ready" && done.outputRevision == 1 && !done.idempotentReplay)
        let replay = try store.finalize(versionId: job.versionId, leaseId: job.leaseId, status: "ready", outputs: outputs)
        #expect(replay.ok && replay.idempotentReplay)
        let stale = try store.finalize(versionId: job.versionId, leaseId: UUID().uuidString, status: "ready",
                                       outputs: .object(["glb_path": .string("other")]))
        #expect(!stale.ok && stale.error == "LEASE_LOST")
        #expect(try store.heartbeat(job, leaseSeconds: 30) == .leaseLost)
        #expect(try store.isIdle())
    }
}
