import Foundation
import JSONCore
import PGQueue

/// Sends terminal events again for the app's late subscribers (migration 16).
///
/// A public Realtime broadcast reaches only the clients joined when it is sent, and a RoomPlan job
/// often ends before the app's join completes. Every `interval` seconds (`repeatIntervalSeconds`),
/// on a thread and a database connection of its own, it calls `transcode_repeat_due_events`, which
/// sends each recorded `ready` or `failed` again, with the same payload and `seq`, at
/// `SchemaCatalog.terminalEventRepeatSeconds` after the first send, until the version moves on.
/// Replicas share the work (`SKIP LOCKED`). Only where the database has Supabase Realtime is
/// anything recorded, so on a plain Postgres each pass finds nothing.
final class EventRepeater: @unchecked Sendable {
    /// Seconds between passes: the first repeat is due one second after the event.
    static let repeatIntervalSeconds = 0.5

    private let url: String?
    private let logger: JSONLogger
    private let periodic = PeriodicThread()
    private var connection: PGConnection?

    init(databaseURL: String?, logger: JSONLogger) {
        self.url = databaseURL
        self.logger = logger
    }

    /// Starts the thread (no-op without a database).
    func start() {
        guard let url else { return }
        periodic.start(name: "event-repeater", interval: Self.repeatIntervalSeconds, runAtStart: false,
                       body: { [self] in passOnce(url: url) }, finally: { [self] in connection?.close() })
    }

    /// Asks the thread to stop.
    func stop() { periodic.stop() }

    private func passOnce(url: String) {
        do {
            let c = try connection ?? PGConnection(url: url, applicationName: "transcode-worker events")
            connection = c
            let sent = try QueueStore(connection: c).repeatDueEvents()
            if sent > 0 { logger.debug("terminal events sent again", ["sent": .int(Int64(sent))]) }
        } catch {
            connection?.close()
            connection = nil
            logger.warn("event repeat pass failed; retrying at the next interval", ["error": .string("\(error)")])
        }
    }
}
