import Foundation
import Testing
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import PGQueue

#if canImport(Glibc)
import Glibc
#endif

/// A Supabase project (database with the migrations), a PostgREST stand-in on it, and the real
/// `transcode-done` handler under Deno pointed at the stand-in, with one claimed version.
final class EdgeWorld {
    static let secret = "callback-secret-7a41c09e"
    static let secretKey = "sb_secret_edgetest0123456789"

    let project: SupabaseProject
    let postgrest: PostgRESTStandIn
    let function: EdgeFunctionProcess
    let job: ClaimedJob
    let http = HTTPClient()

    var connection: PGConnection { project.connection }

    /// `keyVariable`/`key`: how the function gets its service key (the stand-in accepts `key`).
    /// `variables` replaces the function's whole environment when given.
    init(keyVariable: String = "SUPABASE_SECRET_KEY", key: String = EdgeWorld.secretKey,
         variables: [String: String]? = nil, timeoutMs: Int? = nil) throws {
        project = try SupabaseProject()
        postgrest = try PostgRESTStandIn(databaseURL: project.db.url, serviceKey: key)
        function = try EdgeFunctionProcess(variables: variables ?? [
            "WORKER_CALLBACK_SECRET": Self.secret, "SUPABASE_URL": postgrest.baseURL, keyVariable: key,
        ], timeoutMs: timeoutMs)
        job = try Self.claim(QueueStore(connection: project.connection))
    }

    deinit {
        function.stop()
        postgrest.stop()
    }

    static func claim(_ store: QueueStore) throws -> ClaimedJob {
        let room = UUID().uuidString.lowercased(), version = UUID().uuidString.lowercased()
        try store.submit(versionId: version, roomId: room, roomName: nil, usdzKey: "u/\(version).usdz", jsonKey: nil)
        return try #require(try store.claim(workerId: "tw-edge", leaseSeconds: 600))
    }

    /// A valid `ready` body for `job` (or another version and lease).
    func readyBody(version: String? = nil, lease: String? = nil, extraOutputs: [String: Any] = [:]) -> [String: Any] {
        var outputs: [String: Any] = [
            "bucket": "rooms", "glb_path": job.outputPrefix + "model.glb",
            "manifest_path": job.outputPrefix + "layer_manifest.json",
            "thumbnails": [["path": job.outputPrefix + "thumbs/hero.webp", "kind": "hero"]],
            "manifest_schema_version": 1,
        ]
        outputs.merge(extraOutputs) { _, new in new }
        return ["schema": "transcode-done/v1", "version_id": version ?? job.versionId, "room_id": job.roomId, "status": "ready",
                "lease": ["lease_id": lease ?? job.leaseId, "worker_id": "tw-edge", "attempt": 1], "outputs": outputs]
    }

    /// A valid `failed` body for `job`.
    func failedBody(message: String = "usdz contains no mesh prims") -> [String: Any] {
        ["schema": "transcode-done/v1", "version_id": job.versionId, "room_id": job.roomId, "status": "failed",
         "lease": ["lease_id": job.leaseId, "worker_id": "tw-edge", "attempt": 1],
         "error": ["code": "ROOM_TRANSCODE_FAILED", "reason": "USDZ_PARSE_ERROR", "message": message,
                   "phase": "parsing", "retryable": false]]
    }

    static func bytes(_ object: [String: Any]) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    /// Sends one request to the function: (status, JSON body).
    func send(_ body: [UInt8], method: String = "POST", authorization: String? = "Bearer \(EdgeWorld.secret)") throws
        -> (status: Int, body: [String: Any]) {
        var headers = [("Content-Type", "application/json")]
        if let authorization { headers.append(("Authorization", authorization)) }
        let response = try http.send(HTTPRequest(method: method, url: function.url, headers: headers, body: body, timeout: 30))
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return (response.status, object)
    }

    func send(_ body: [String: Any]) throws -> (status: Int, body: [String: Any]) { try send(Self.bytes(body)) }

    /// The version's status, output revision and lease.
    func row(_ version: String? = nil) throws -> (status: String, revision: Int, lease: String?) {
        let row = try #require(try connection.query(
            "SELECT status::text AS status, output_revision, lease_id::text AS lease FROM transcode_private.room_versions WHERE id = $1::uuid",
            [version ?? job.versionId]).first)
        return (row["status"] ?? "", row.int("output_revision") ?? -1, row["lease"])
    }

    /// Writes `head` and then `chunks` on a raw connection to the function and returns what it
    /// answered before closing or falling silent for 10 s (the status line first).
    func raw(head: String, chunks: [[UInt8]] = []) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = function.port.bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        for piece in [Array(head.utf8)] + chunks {
            _ = piece.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[..<n]
            if String(decoding: received, as: UTF8.self).contains("BODY_TOO_LARGE") { break }
        }
        return String(decoding: received, as: UTF8.self)
    }
}
