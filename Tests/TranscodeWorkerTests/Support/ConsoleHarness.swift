import Foundation
import TestSupport
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerHTTP
@testable import WorkerRuntime

/// The operator console on a real database, a file output store and libmicrohttpd on 127.0.0.1,
/// with helpers to sign in, post forms and make versions in any state.
final class ConsoleHarness: @unchecked Sendable {
    static let token = "console-token-for-tests-0123456789abcdef"

    let db: TestDatabase
    let connection: PGConnection
    let storeRoot: URL
    let store: FileObjectStore
    let api: WorkerAPI
    let server: HTTPServer

    init(token: String? = ConsoleHarness.token) throws {
        db = try TestDatabase()
        connection = try db.connect()
        storeRoot = FileManager.default.temporaryDirectory.appendingPathComponent("console-store-\(UUID().uuidString)")
        store = try FileObjectStore(root: storeRoot.path)
        api = WorkerAPI(databaseURL: db.url, apiToken: token, metrics: Metrics(),
                        logger: JSONLogger(workerId: "console-test", minimum: .error, fd: TestOutput.logFD),
                        outputStore: store, manifestSchemaVersion: 4, isDraining: { false })
        server = try HTTPServer(address: "127.0.0.1:0", handler: api.handle)
    }

    func close() {
        server.stop()
        api.close()
        connection.close()
        db.drop()
        try? FileManager.default.removeItem(at: storeRoot)
    }

    var host: String { "127.0.0.1:\(server.port)" }

    /// Sends a request with `headers` (a form body is sent urlencoded).
    func send(_ method: String, _ path: String, form: [(String, String)]? = nil, cookie: String? = nil,
              headers extra: [(String, String)] = []) throws -> HTTPResponse {
        var headers = extra
        if let cookie { headers.append(("Cookie", "\(ConsoleSession.cookieName)=\(cookie)")) }
        var body: [UInt8] = []
        if let form {
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            body = Array(form.map { "\(ConsoleForm.encode($0.0))=\(ConsoleForm.encode($0.1))" }.joined(separator: "&").utf8)
        }
        return try HTTPClient().send(HTTPRequest(method: method, url: server.url(path), headers: headers, body: body, timeout: 10))
    }

    /// Signs in through the form and returns the session cookie's value.
    func signIn() throws -> String {
        let r = try send("POST", "/console/sign-in", form: [("token", Self.token)])
        guard r.status == 303, let header = r.headers["set-cookie"],
              let value = header.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last else {
            throw HarnessError(description: "sign-in failed: \(r.status)")
        }
        return String(value)
    }

    /// The CSRF token a signed-in page carries (from its sign-out form).
    func csrf(_ cookie: String) throws -> String {
        let page = Self.text(try send("GET", "/console", cookie: cookie))
        guard let range = page.range(of: "name=\"csrf\" value=\"") else { throw HarnessError(description: "no CSRF field") }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    struct HarnessError: Error, CustomStringConvertible { var description: String }

    static func text(_ r: HTTPResponse) -> String { String(decoding: r.body, as: UTF8.self) }

    /// A room named `name` with a version in `status`; returns (room, version).
    @discardableResult
    func insert(status: String, name: String = "living room", reason: String? = nil, message: String? = nil,
                schema: Int? = nil) throws -> (room: String, version: String) {
        let room = UUID().uuidString.lowercased(), version = UUID().uuidString.lowercased()
        try connection.query("INSERT INTO rooms (id, name) VALUES ($1::uuid, $2)", [room, name])
        let prefix = "rooms/\(room)/versions/\(version)/r1-0a0b0c0d/"
        let ready = status == "ready"
        try connection.query("""
            INSERT INTO transcode_private.room_versions (id, room_id, status, source_usdz_path, glb_path, manifest_path, thumbnail_paths,
                                       manifest_schema_version, output_revision, last_error_code, last_error, errors)
            VALUES ($1::uuid, $2::uuid, $3::room_version_status, 'x/source.usdz', $4, $5, $6::jsonb, $7::integer, $8::integer,
                    $9, $10, CASE WHEN $9::text IS NULL THEN '[]'::jsonb
                                  ELSE jsonb_build_array(jsonb_build_object('at', now(), 'attempt', 1, 'code', $9::text,
                                       'message', $10::text, 'phase', 'parsing', 'final', true)) END)
            """, [version, room, status, ready ? prefix + "model.glb" : nil, ready ? prefix + "layer_manifest.json" : nil,
                  ready ? #"[{"path":"\#(prefix)thumbs/hero.webp","kind":"hero","width":1024,"height":768}]"# : "[]",
                  ready ? String(schema ?? 4) : nil, ready ? "1" : "0", reason, message])
        return (room, version)
    }

    /// The version's status.
    func status(_ version: String) throws -> String? {
        try connection.query("SELECT status::text AS s FROM transcode_private.room_versions WHERE id = $1::uuid", [version]).first?["s"]
    }
}
