import Foundation
import TestSupport
@testable import TranscodeWorker
@testable import PGQueue

/// PostgREST as a Supabase project exposes it, reduced to the calls the worker's Edge Functions
/// make, on a loopback server: `POST /rest/v1/rpc/transcode_finalize` with the service key
/// (`transcode-done`), and `POST /rest/v1/rpc/transcode_app_retry` with a user's JWT
/// (`transcode-retry`, see `PostgRESTStandIn+UserCalls.swift`).
///
/// A request needs `apikey` equal to the project's service key (else 401, as Supabase's gateway
/// answers) and a JSON object body naming exactly the function's five parameters (else 404
/// `PGRST202`, as PostgREST answers for an unknown signature). The call runs the real
/// `transcode_finalize` on the test database the way PostgREST runs it for the service key: in a
/// transaction with `SET LOCAL ROLE service_role` and the JWT claims set. It answers 200 with the
/// function's JSON, or PostgREST's error body `{"code","message","details","hint"}` with
/// PostgREST's status for the SQLSTATE (400 for class 22, 403 for 42501, 503 when the database
/// cannot be reached).
///
/// `behaviour` turns the stand-in into a failing or slow server; `stop()` makes the port refuse.
/// Every request is recorded (`requests`), whatever the answer.
final class PostgRESTStandIn: @unchecked Sendable {
    /// How the stand-in answers a request that passed the key check.
    enum Behaviour: Sendable {
        /// Run `transcode_finalize` and answer as PostgREST does.
        case database
        /// Answer this status with a PostgREST-like error body, touching nothing.
        case status(Int)
        /// Wait this many seconds, then answer as `.database` does.
        case delay(Double)
    }

    static let path = "/rest/v1/rpc/transcode_finalize"
    static let parameters: Set<String> = ["p_version_id", "p_lease_id", "p_status", "p_outputs", "p_error"]

    static let finalizeSQL = "SELECT transcode_finalize($1::uuid, $2::uuid, $3, $4::jsonb, $5::jsonb)::text AS r"
    static let claimsSQL = "SELECT set_config('request.jwt.claims', $1, true), set_config('request.jwt.claim.sub', $2, true)"

    private final class State: @unchecked Sendable {
        let lock = NSLock()
        var behaviour: Behaviour = .database
    }

    /// The service key the project accepts in `apikey`.
    let serviceKey: String
    /// The database `transcode_finalize` runs on (owner connection; each call switches role).
    let databaseURL: String
    private let state = State()
    private var server: LoopbackHTTPServer!

    /// `http://127.0.0.1:PORT`, the `SUPABASE_URL` to give the function.
    var baseURL: String { server.baseURL }
    /// Every request received so far, in arrival order.
    var requests: [RecordedRequest] { server.requests }

    /// How the next requests are answered (default `.database`).
    var behaviour: Behaviour {
        get { state.lock.withLock { state.behaviour } }
        set { state.lock.withLock { state.behaviour = newValue } }
    }

    /// Starts listening on 127.0.0.1 and an ephemeral port.
    init(databaseURL: String, serviceKey: String) throws {
        self.databaseURL = databaseURL
        self.serviceKey = serviceKey
        let state = self.state
        server = try LoopbackHTTPServer { request in
            Self.answer(request, serviceKey: serviceKey, databaseURL: databaseURL,
                        behaviour: state.lock.withLock { state.behaviour })
        }
    }

    /// Stops the server: later connections are refused.
    func stop() { server.stop() }

    deinit { server.stop() }

    // MARK: - Answers

    static func json(_ status: Int, _ body: Any) -> LoopbackHTTPServer.Response {
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .fragmentsAllowed])) ?? Data()
        return (status, [("Content-Type", "application/json; charset=utf-8")], Array(data))
    }

    static func error(_ status: Int, code: String, message: String) -> LoopbackHTTPServer.Response {
        json(status, ["code": code, "message": message, "details": NSNull(), "hint": NSNull()])
    }

    /// PostgREST's HTTP status for a database error.
    static func status(for error: DatabaseError) -> Int {
        guard let state = error.sqlState else { return 503 }
        if state.hasPrefix("22") || state == "P0001" { return 400 }
        if state.hasPrefix("08") { return 503 }
        switch state {
        case "42501": return 403
        case "42883": return 404
        case "23503", "23505": return 409
        default: return 500
        }
    }

    static func answer(_ request: RecordedRequest, serviceKey: String, databaseURL: String,
                       behaviour: Behaviour) -> LoopbackHTTPServer.Response {
        if request.path == retryPath {
            if case .status(let status) = behaviour { return error(status, code: "PGRST000", message: "stand-in failure") }
            return userCall(request, serviceKey: serviceKey, databaseURL: databaseURL)
        }
        guard request.headers["apikey"] == serviceKey else {
            return json(401, ["message": "Invalid API key", "hint": "Double check the apikey header."])
        }
        guard request.method == "POST", request.path == path else {
            return error(404, code: "PGRST202", message: "Could not find the function in the schema cache")
        }
        switch behaviour {
        case .database: break
        case .status(let status): return error(status, code: "PGRST000", message: "stand-in failure")
        case .delay(let seconds): usleep(UInt32(seconds * 1_000_000))
        }
        guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] else {
            return error(400, code: "PGRST102", message: "Empty or invalid json")
        }
        guard Set(body.keys) == parameters else {
            return error(404, code: "PGRST202", message: "Could not find the function public.transcode_finalize with these parameters")
        }
        func text(_ value: Any?) -> String? {
            switch value {
            case nil, is NSNull: return nil
            case let s as String: return s
            case let other?: return String(describing: other)
            }
        }
        func jsonText(_ value: Any?) -> String? {
            guard let value, !(value is NSNull) else { return nil }
            return (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]))
                .map { String(decoding: $0, as: UTF8.self) }
        }
        let params = [text(body["p_version_id"]), text(body["p_lease_id"]), text(body["p_status"]),
                      jsonText(body["p_outputs"]), jsonText(body["p_error"])]
        return run(finalizeSQL, params, role: "service_role", claims: #"{"role":"service_role"}"#, sub: nil,
                   function: "transcode_finalize", databaseURL: databaseURL)
    }

    /// Runs `sql` (one row, JSON text in `r`) as PostgREST runs an rpc call: in a transaction, as
    /// `role`, with the JWT claims set; answers 200 with the JSON, or PostgREST's error (a
    /// missing function is 404 `PGRST202`, as PostgREST's schema cache answers).
    static func run(_ sql: String, _ params: [String?], role: String, claims: String, sub: String?, function: String,
                    databaseURL: String) -> LoopbackHTTPServer.Response {
        let connection: PGConnection
        do {
            connection = try PGConnection(url: databaseURL, applicationName: "postgrest-stand-in")
        } catch {
            return self.error(503, code: "PGRST000", message: "Database connection error")
        }
        defer { connection.close() }
        do {
            try connection.query("BEGIN")
            try connection.query("SET LOCAL ROLE \(role)")
            try connection.query(claimsSQL, [claims, sub ?? ""])
            let result = try connection.query(sql, params).first?["r"]
            try connection.query("COMMIT")
            let value = result.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8), options: [.fragmentsAllowed]) }
            return json(200, value ?? NSNull())
        } catch {
            _ = try? connection.query("ROLLBACK")
            if error.sqlState == "42883" {
                return self.error(404, code: "PGRST202", message: "Could not find the function public.\(function) in the schema cache")
            }
            return self.error(status(for: error), code: error.sqlState ?? "PGRST000", message: error.message)
        }
    }
}
