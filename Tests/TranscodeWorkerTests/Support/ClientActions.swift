import Foundation
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime

/// What an app client can try through Supabase's REST API, as SQL run under the role and JWT
/// claims PostgREST would use (`SET LOCAL ROLE`, `request.jwt.claim.sub`), each in a transaction
/// that is rolled back, so one attempt never changes what the next one sees.
struct ClientActions {
    /// Who is asking.
    enum Identity: CustomStringConvertible {
        case anon
        case user(String)

        var role: String {
            switch self {
            case .anon: return "anon"
            case .user: return "authenticated"
            }
        }

        var description: String {
            switch self {
            case .anon: return "anon"
            case .user(let id): return "user \(id.prefix(8))"
            }
        }
    }

    /// One action: its name and SQL (`$1` = the target room id, `$2` = the target version id,
    /// `$3` = that version's live lease id, known to the attacker in the worst case).
    struct Action {
        var name: String
        var sql: String
    }

    /// What happened: `through` when the statement succeeded and read or changed at least one
    /// row (or, for statements without rows, succeeded at all).
    struct Result {
        var action: String
        var through: Bool
        var rows: [PGRow]
        var error: String?
    }

    static let all: [Action] = [
        Action(name: "read the room", sql: "SELECT id FROM rooms WHERE id = $1::uuid AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL"),
        Action(name: "read version status and outputs",
               sql: "SELECT id, status::text AS status, glb_path, manifest_path, thumbnail_path, thumbnail_paths::text AS thumbnail_paths FROM room_versions WHERE room_id = $1::uuid AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL"),
        Action(name: "read lease ids", sql: "SELECT lease_id FROM room_versions WHERE room_id = $1::uuid AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL"),
        Action(name: "read locked_by and heartbeats", sql: "SELECT locked_by, heartbeat_at, lease_expires_at FROM room_versions WHERE $1::uuid IS NOT NULL AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL"),
        Action(name: "read attempt errors", sql: "SELECT errors::text, last_error, last_error_code FROM room_versions WHERE $1::uuid IS NOT NULL AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL"),
        Action(name: "read run_after and attempts", sql: "SELECT run_after, attempt, priority FROM room_versions WHERE $1::uuid IS NOT NULL AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL"),
        Action(name: "read source keys", sql: "SELECT source_usdz_path FROM room_versions WHERE $1::uuid IS NOT NULL AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL"),
        Action(name: "read whole version rows", sql: "SELECT * FROM room_versions WHERE $1::uuid IS NOT NULL AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL"),
        Action(name: "read redactions", sql: "SELECT * FROM redactions WHERE $1::uuid IS NOT NULL AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL"),
        Action(name: "read the migration ledger", sql: "SELECT * FROM transcode_schema_migrations WHERE $1::uuid IS NOT NULL AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL"),
        Action(name: "mark the version ready with any glb_path",
               sql: "UPDATE room_versions SET status = 'ready', glb_path = 'evil/model.glb' WHERE id = $2::uuid AND $1::uuid IS NOT NULL AND $3::uuid IS NOT NULL RETURNING id"),
        Action(name: "re-queue the version",
               sql: "UPDATE room_versions SET status = 'queued', run_after = now(), attempt = 0 WHERE id = $2::uuid AND $1::uuid IS NOT NULL AND $3::uuid IS NOT NULL RETURNING id"),
        Action(name: "delete the version", sql: "DELETE FROM room_versions WHERE id = $2::uuid AND $1::uuid IS NOT NULL AND $3::uuid IS NOT NULL RETURNING id"),
        Action(name: "insert a version",
               sql: "INSERT INTO room_versions (room_id, status, source_usdz_path) SELECT $1::uuid, 'queued', 'elsewhere/x.usdz' WHERE $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL RETURNING id"),
        Action(name: "insert a redaction",
               sql: "INSERT INTO redactions (room_version_id, texture_path, redacted_path) SELECT $2::uuid, 'textures/a.png', 'other/a.png' WHERE $1::uuid IS NOT NULL AND $3::uuid IS NOT NULL RETURNING id"),
        Action(name: "delete redactions", sql: "DELETE FROM redactions WHERE room_version_id = $2::uuid AND $1::uuid IS NOT NULL AND $3::uuid IS NOT NULL RETURNING id"),
        Action(name: "change the migration ledger",
               sql: "UPDATE transcode_schema_migrations SET name = 'x' WHERE $1::uuid IS NOT NULL AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL RETURNING version"),
        Action(name: "call transcode_finalize with the live lease",
               sql: "SELECT transcode_finalize($2::uuid, $3::uuid, 'ready', '{\"glb_path\":\"evil/model.glb\",\"manifest_path\":\"evil/m.json\"}'::jsonb, NULL)::text AS r WHERE $1::uuid IS NOT NULL"),
        Action(name: "call transcode_cancel", sql: "SELECT transcode_cancel($2::uuid)::text AS r WHERE $1::uuid IS NOT NULL AND $3::uuid IS NOT NULL"),
        Action(name: "call transcode_emit_event",
               sql: "SELECT transcode_emit_event(jsonb_build_object('topic', 'room:' || $1::text, 'event', 'ready', 'payload', '{}'::jsonb))::text AS r WHERE $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL"),
        Action(name: "change the room", sql: "UPDATE rooms SET name = 'x' WHERE id = $1::uuid AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL RETURNING id"),
        Action(name: "insert a room", sql: "INSERT INTO rooms (id) SELECT gen_random_uuid() WHERE $1::uuid IS NOT NULL AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL RETURNING id"),
        Action(name: "read lease ids from the worker's table",
               sql: "SELECT lease_id FROM transcode_private.room_versions WHERE room_id = $1::uuid AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL"),
        Action(name: "re-queue the version in the worker's table",
               sql: "UPDATE transcode_private.room_versions SET status = 'queued' WHERE id = $2::uuid AND $1::uuid IS NOT NULL AND $3::uuid IS NOT NULL RETURNING id"),
        Action(name: "set the room's card, grade and current version",
               sql: "UPDATE rooms SET thumbnail_path = 'evil/card.webp', quality_grade = 'A', current_version_id = $2::uuid WHERE id = $1::uuid AND $3::uuid IS NOT NULL RETURNING id"),
        Action(name: "insert a room with a card", sql: "INSERT INTO rooms (id, thumbnail_path) SELECT gen_random_uuid(), 'evil/card.webp' WHERE $1::uuid IS NOT NULL AND $2::uuid IS NOT NULL AND $3::uuid IS NOT NULL RETURNING id"),
        Action(name: "truncate the versions", sql: "TRUNCATE room_versions CASCADE"),
        Action(name: "truncate the rooms", sql: "TRUNCATE rooms CASCADE"),
    ]

    let connection: PGConnection

    /// Runs `action` as `who` against the given room, version and lease; always rolls back.
    func attempt(_ action: Action, as who: Identity, room: String, version: String, lease: String) -> Result {
        do {
            try connection.query("BEGIN")
            defer { _ = try? connection.query("ROLLBACK") }
            try connection.query("SET LOCAL ROLE \(who.role)")
            if case .user(let id) = who {
                try connection.query("SELECT set_config('request.jwt.claim.sub', $1, true), set_config('request.jwt.claims', $2, true)",
                                     [id, "{\"sub\":\"\(id)\",\"role\":\"authenticated\"}"])
            }
            let takesParameters = action.sql.contains("$1")
            let rows = try connection.query(action.sql, takesParameters ? [room, version, lease] : [])
            return Result(action: action.name, through: !takesParameters || !rows.isEmpty, rows: rows, error: nil)
        } catch {
            return Result(action: action.name, through: false, rows: [], error: error.description)
        }
    }

    /// Every action in `all` as `who`; the names of those that got through.
    func through(as who: Identity, room: String, version: String, lease: String) -> [String] {
        Self.all.map { attempt($0, as: who, room: room, version: version, lease: lease) }.filter(\.through).map(\.action)
    }
}
