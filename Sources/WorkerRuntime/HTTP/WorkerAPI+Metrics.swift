import Foundation
import PGQueue
import WorkerHTTP
import WorkerCore

/// `/metrics`: the exposition text, with the queue gauges sampled at most once per interval on a
/// connection of their own (never the API's), optionally behind a bearer token.
extension WorkerAPI {
    /// The statement timeout of the queue sample's connection, seconds.
    static let metricsStatementTimeoutSeconds = 5
    /// How long a scrape waits for a running queue sample before it answers with the previous
    /// values, seconds.
    static let metricsWaitSeconds = 2.0

    /// The exposition text, or 401 `UNAUTHORIZED` when a metrics token is set and the request
    /// does not carry it as `Authorization: Bearer` (compared in constant time).
    func metricsPage(_ request: HTTPServerRequest) -> HTTPServerResponse {
        if let token = metricsToken {
            guard let auth = request.headers["authorization"], auth.hasPrefix("Bearer "),
                  Self.constantTimeEqual(Array(auth.dropFirst(7).utf8), Array(token.utf8))
            else { return Self.error(401, "UNAUTHORIZED", headers: [("WWW-Authenticate", "Bearer")]) }
        }
        _ = queueGauges.value()
        return HTTPServerResponse(status: 200, headers: [("Content-Type", Metrics.contentType)],
                                  body: Array(metrics.render().utf8))
    }

    /// How many queue samples scrapes have started so far.
    var queueSamplesStarted: Int { queueGauges.computationsStarted }

    /// `QueueStore.status()` on `connection`; nil (and a warning) on failure.
    static func sampleQueue(_ connection: DedicatedConnection, logger: JSONLogger) -> QueueStatus? {
        do {
            return try connection.run { (c) throws(DatabaseError) in try QueueStore(connection: c).status() }
        } catch {
            logger.warn("metrics: queue sample failed", ["error": .string("\(error)"), "error_code": .string(error.code.rawValue)])
            return nil
        }
    }
}
