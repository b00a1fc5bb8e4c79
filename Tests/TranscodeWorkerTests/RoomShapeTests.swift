import Foundation
import Testing
@testable import TranscodeWorker
@testable import JSONCore
@testable import PGQueue
@testable import WorkerRuntime

/// What a `ready` finalize does to the room as the apps read it (migration 8): the current
/// version moves forward only, the room shows its current version's card thumbnail and the worse
/// of the app's and the worker's grades, and the ready event names the worker's grade.
@Suite("Rooms as the apps read them, on real Postgres", .enabled(if: postgresConfigured), .serialized)
struct RoomShapeTests {
    /// A migrated database with the Realtime stand-in, one room and a store on it.
    final class World {
        let db: TestDatabase
        let connection: PGConnection
        let store: QueueStore
        let room = UUID().uuidString.lowercased()

        init() throws {
            db = try TestDatabase()
            connection = try db.connect()
            try connection.execute(script: SupabaseStandIn.realtimeSchemaSQL)
            store = QueueStore(connection: connection)
        }

        deinit {
            connection.close()
            db.drop()
        }

        /// Submits a new version of the room (the only queued one) and returns its id.
        func submit() throws -> String {
            let v = UUID().uuidString.lowercased()
            try store.submit(versionId: v, roomId: room, roomName: "den", usdzKey: "rooms/\(room)/versions/\(v)/s.usdz", jsonKey: nil)
            return v
        }

        /// Claims the queued version and finalizes it ready with a hero and a card thumbnail and
        /// the given grade (nil: not graded). Returns the card's path.
        @discardableResult
        func transcode(_ version: String, grade: String?) throws -> String {
            let job = try #require(try store.claim(workerId: "tw-rooms", leaseSeconds: 60))
            #expect(job.versionId == version)
            let card = job.outputPrefix + "thumbnails/card.webp"
            let outputs: JSONValue = .object([
                "glb_path": .string(job.outputPrefix + "model.glb"),
                "manifest_path": .string(job.outputPrefix + "layer_manifest.json"),
                "manifest_schema_version": .int(1),
                "thumbnails": CompletionClient.thumbnailsJSON([
                    (job.outputPrefix + "thumbnails/hero.webp", "hero", 1024, 768), (card, "card", 512, 384),
                ]),
                "quality_grade": grade.map { .string($0) } ?? .null,
            ])
            #expect(try store.finalize(versionId: version, leaseId: job.leaseId, status: "ready", outputs: outputs).ok)
            return card
        }

        /// The room's `current_version_id`, `thumbnail_path` and `quality_grade`.
        func roomRow() throws -> PGRow {
            try #require(try connection.query(
                "SELECT current_version_id::text AS current, thumbnail_path, quality_grade FROM rooms WHERE id = $1::uuid",
                [room]).first)
        }

        func versionGrade(_ v: String) throws -> String? {
            try connection.query("SELECT quality_grade FROM transcode_private.room_versions WHERE id = $1::uuid", [v]).first?["quality_grade"]
        }
    }

    @Test func readySetsCurrentVersionCardThumbnailAndGrade() throws {
        let w = try World()
        let v = try w.submit()
        #expect(try w.roomRow()["current"] == nil, "a room without a ready version has no current one")
        let card = try w.transcode(v, grade: "B")
        let row = try w.roomRow()
        #expect(row["current"] == v)
        #expect(row["thumbnail_path"] == card, "the card thumbnail, not the hero")
        #expect(row["quality_grade"] == "B")
        #expect(try w.versionGrade(v) == "B")
    }

    @Test func anOlderVersionsReprocessNeverTakesTheRoomBack() throws {
        let w = try World()
        let older = try w.submit()
        try w.transcode(older, grade: "C")
        let newer = try w.submit()
        let newerCard = try w.transcode(newer, grade: "A")
        var row = try w.roomRow()
        #expect(row["current"] == newer)
        #expect(row["thumbnail_path"] == newerCard)
        #expect(row["quality_grade"] == "A")

        #expect(try w.store.markReprocess(versionId: older))
        try w.transcode(older, grade: "B")
        row = try w.roomRow()
        #expect(row["current"] == newer, "the room stays on the newer version")
        #expect(row["thumbnail_path"] == newerCard)
        #expect(row["quality_grade"] == "A", "the older version's grade does not reach the room")
        #expect(try w.versionGrade(older) == "B", "the reprocessed version keeps its own new grade")

        // A reprocess of the current version refreshes the room.
        #expect(try w.store.markReprocess(versionId: newer))
        let again = try w.transcode(newer, grade: "B")
        row = try w.roomRow()
        #expect(row["current"] == newer)
        #expect(row["thumbnail_path"] == again)
        #expect(row["quality_grade"] == "B")
    }

    @Test func theRoomShowsTheWorseOfTheAppsAndTheWorkersGrade() throws {
        let w = try World()
        // (app's grade, ours, the room's)
        let cases: [(String?, String?, String?)] = [("C", "A", "C"), ("A", "B", "B"), (nil, "B", "B"), ("B", nil, "B"), (nil, nil, nil)]
        for (app, ours, expected) in cases {
            let v = try w.submit()
            try w.connection.query("UPDATE transcode_private.room_versions SET app_quality_grade = $2 WHERE id = $1::uuid", [v, app])
            try w.transcode(v, grade: ours)
            #expect(try w.roomRow()["quality_grade"] == expected, "app \(app ?? "none"), ours \(ours ?? "none")")
            #expect(try w.versionGrade(v) == ours)
        }
    }

    @Test func theReadyEventCarriesTheWorkersGrade() throws {
        let w = try World()
        let graded = try w.submit()
        try w.connection.query("UPDATE transcode_private.room_versions SET app_quality_grade = 'C' WHERE id = $1::uuid", [graded])
        try w.transcode(graded, grade: "A")
        let ungraded = try w.submit()
        try w.transcode(ungraded, grade: nil)
        let ready = try SupabaseStandIn.messages(w.connection, topic: "room:\(w.room)").filter { $0.event == "ready" }
        #expect(ready.count == 2)
        #expect(ready.first?.payload["version_id"] as? String == graded)
        #expect(ready.first?.payload["quality_grade"] as? String == "A", "the worker's own grade, not the room's")
        #expect(ready.last?.payload.keys.contains("quality_grade") == true)
        #expect(ready.last?.payload["quality_grade"] is NSNull, "null when the input was not graded")
    }

    @Test func migrateNamesRoomColumnsTheWorkerCannotWrite() throws {
        let healthy = try TestDatabase()
        defer { healthy.drop() }
        let ok = try healthy.connect()
        defer { ok.close() }
        #expect(try Migrator.roomColumnProblems(ok).isEmpty)
        try Migrator.checkRoomColumns(ok)

        // A backend's rooms table made before the worker, with two columns of other types.
        let db = try TestDatabase(migrate: false)
        defer { db.drop() }
        let c = try db.connect()
        defer { c.close() }
        try c.execute(script: """
            CREATE TABLE rooms (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), name text,
                                created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
                                current_version_id text, quality_grade smallint);
            """)
        try Migrator.migrate(c)
        let problems = try Migrator.roomColumnProblems(c)
        #expect(problems == [
            "rooms.current_version_id is text; the worker writes uuid",
            "rooms.quality_grade is smallint; the worker writes character varying or text",
        ])
        let columns = try c.query("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'rooms' AND column_name = 'quality_grade'")
        #expect(columns.first?["data_type"] == "smallint", "the backend's column is left as it was")
        let error = #expect(throws: DatabaseError.self) { try Migrator.checkRoomColumns(c) }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("rooms.current_version_id") == true && error?.message.contains("rooms.quality_grade") == true)
        #expect(error?.message.contains("thumbnail_path") == false, "a column migration 8 added is fine")

        // A column that is missing altogether is named too.
        try c.query("ALTER TABLE rooms DROP COLUMN thumbnail_path")
        #expect(try Migrator.roomColumnProblems(c).contains("rooms.thumbnail_path is missing"))
    }
}
