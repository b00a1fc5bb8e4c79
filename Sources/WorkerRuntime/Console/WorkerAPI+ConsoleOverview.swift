import Foundation
import PGQueue
import WorkerHTTP

/// The console's overview page: the queue at a glance.
extension WorkerAPI {
    /// The statuses a version can have, in the order pages list them.
    static let consoleStatuses = ["uploading", "queued", "transcoding", "ready", "failed"]

    func overviewPage(_ auth: ConsoleAuth) -> HTTPServerResponse {
        consoleDatabase(auth) { (store) throws(DatabaseError) in
            let status = try store.status(failureWindowHours: 24)
            let rate = try store.throughput()
            let esc = ConsolePage.esc
            var cards = Self.consoleStatuses.map { s in
                "<a class=\"card\" href=\"/console/versions?status=\(s)\" style=\"text-decoration:none;color:inherit\">"
                    + "<div class=\"v\">\(status.counts[s] ?? 0)</div><div class=\"k\">\(ConsolePage.badge(s))</div></a>"
            }
            cards += [
                ("waiting to run", String(status.waiting)),
                ("re-transcodes waiting", String(status.reprocessWaiting)),
                ("oldest queued", ConsolePage.age(status.oldestQueuedSeconds)),
                ("attempts in flight", String(status.inFlight)),
                ("expired leases", String(status.expiredLeases)),
            ].map { "<div class=\"card\"><div class=\"v\">\(esc($0.1))</div><div class=\"k\">\(esc($0.0))</div></div>" }

            func window(_ name: String, _ suffix: String) -> [String] {
                let ready = rate?.int("ready_\(suffix)") ?? 0, failed = rate?.int("failed_\(suffix)") ?? 0
                let retried = rate?.int("retried_\(suffix)") ?? 0
                let finished = ready + failed
                let failureRate = finished == 0 ? "—" : String(format: "%.1f %%", 100 * Double(failed) / Double(finished))
                return [esc(name), String(ready), String(failed), String(retried), failureRate]
            }
            let throughput = ConsolePage.table(["Window", "#Ready", "#Failed (final)", "#Retried", "#Failure rate"],
                                               [window("last hour", "hour"), window("last day", "day")])
            let leases = ConsolePage.table(["Version", "Room", "Worker", "#Attempt", "Phase", "Since (UTC)", "#Lease left"],
                                           status.leases.map { l in
                [Self.versionLink(l.versionId), "<span class=\"mono\">\(esc(String(l.roomId.prefix(8))))</span>", esc(l.worker),
                 String(l.attempt), esc(l.phase), esc(String(l.lockedAt.prefix(19))), ConsolePage.age(l.leaseRemainingSeconds)]
            }, empty: "No attempt is running.")
            let failures = ConsolePage.table(["Reason", "#Versions", "Last (UTC)"], status.recentFailures.map { f in
                ["<a href=\"/console/versions?reason=\(ConsoleForm.encode(f.reason))\"><code>\(esc(f.reason))</code></a>",
                 String(f.count), esc(String(f.lastAt.prefix(19)))]
            }, empty: "No failure in the last day.")
            return ConsolePage.response(title: "Overview", body: """
                <h1>Overview</h1>
                <div class="cards">\(cards.joined())</div>
                <h2>Throughput</h2><section>\(throughput)</section>
                <h2>Attempts in flight</h2><section>\(leases)</section>
                <h2>Recent failures by reason (last \(status.failureWindowHours) h)</h2><section>\(failures)</section>
                """, navigation: auth.navigation)
        }
    }

    /// A link to a version's page, showing the first 8 characters of its id.
    static func versionLink(_ id: String) -> String {
        "<a class=\"mono\" href=\"/console/versions/\(ConsoleForm.encode(id))\">\(ConsolePage.esc(String(id.prefix(8))))</a>"
    }
}
