import Foundation
import PGQueue
import WorkerHTTP

/// The console's batch re-transcode: every ready version below a manifest schema version, marked
/// at batch priority (20, after fresh uploads and manual retries), with its progress.
extension WorkerAPI {
    /// The most versions one confirmation marks (the `/v1/reprocess` bound).
    static let batchLimitMax = 10_000

    /// The batch's target schema and size from a query or form, or the problem.
    func batchArguments(_ fields: [String: String]) -> (below: Int, limit: Int, problem: String?) {
        func number(_ name: String) -> Int?? {
            guard let text = fields[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return .some(nil) }
            return Int(text).map { .some($0) } ?? .none
        }
        guard let givenBelow = number("below"), let givenLimit = number("limit") else {
            return (manifestSchemaVersion ?? 0, 1000, "the target schema and the batch size must be whole numbers")
        }
        let below = givenBelow ?? manifestSchemaVersion
        let limit = givenLimit ?? 1000
        guard let below, (1...32767).contains(below) else { return (0, limit, "the target schema must be a whole number from 1 to 32767") }
        guard (1...Self.batchLimitMax).contains(limit) else { return (below, 0, "the batch size must be from 1 to \(Self.batchLimitMax)") }
        return (below, limit, nil)
    }

    func batchPage(_ request: HTTPServerRequest, _ auth: ConsoleAuth) -> HTTPServerResponse {
        let (below, limit, problem) = batchArguments(request.query)
        let esc = ConsolePage.esc
        let form = """
            <form class="filters" method="get" action="/console/batch/confirm">
            <label>Re-transcode ready versions below manifest schema<input name="below" value="\(below > 0 ? String(below) : "")" size="6" inputmode="numeric"></label>
            <label>at most<input name="limit" value="\(limit > 0 ? limit : 1000)" size="7" inputmode="numeric"></label>
            <button type="submit">Continue</button></form>
            <p class="muted">This worker writes manifest schema \(esc(manifestSchemaVersion.map(String.init))). Nothing changes until you confirm.</p>
            """
        if let problem {
            return ConsolePage.response(status: 400, title: "Batch re-transcode", body: """
                <h1>Batch re-transcode</h1><div class="notice error">\(esc(problem))</div><section>\(form)</section>
                """, navigation: auth.navigation)
        }
        return consoleDatabase(auth) { (store) throws(DatabaseError) in
            guard let p = try store.batchProgress(schema: below) else { return versionNotFound(auth) }
            let remaining = p.int("below") ?? 0, waiting = p.int("waiting") ?? 0, running = p.int("running") ?? 0
            let current = p.int("current") ?? 0
            let total = remaining + waiting + running + current
            let share = total == 0 ? "—" : String(format: "%.1f %%", 100 * Double(current) / Double(total))
            var notice = ""
            if let marked = request.query["marked"].flatMap({ Int($0) }) {
                notice = "<div class=\"notice\">\(marked) versions marked for re-transcoding.</div>"
            }
            let cards = [("at schema \(below) or newer", String(current)), ("done", share), ("marked, waiting", String(waiting)),
                         ("re-transcoding now", String(running)), ("below \(below), not marked", String(remaining)),
                         ("failed re-transcodes (day)", String(p.int("failed_day") ?? 0))]
                .map { "<div class=\"card\"><div class=\"v\">\(esc($0.1))</div><div class=\"k\">\(esc($0.0))</div></div>" }.joined()
            // While work is left the page refreshes itself (no script needed).
            let refresh = waiting + running > 0 ? "<meta http-equiv=\"refresh\" content=\"10\">" : ""
            return ConsolePage.response(title: "Batch re-transcode", body: """
                \(refresh)<h1>Batch re-transcode</h1>\(notice)
                <h2>Progress towards schema \(below)</h2><div class="cards">\(cards)</div>
                <p class="muted">A re-transcoded version stays ready on its old outputs until its new ones are in. \
                Fresh uploads keep priority over the batch.\(refresh.isEmpty ? "" : " This page reloads every 10 s while work is left.")</p>
                <h2>Mark more</h2><section>\(form)</section>
                """, navigation: auth.navigation)
        }
    }

    func batchConfirmPage(_ request: HTTPServerRequest, _ auth: ConsoleAuth) -> HTTPServerResponse {
        let (below, limit, problem) = batchArguments(request.query)
        if problem != nil { return batchPage(request, auth) }
        return consoleDatabase(auth) { (store) throws(DatabaseError) in
            let count = try store.markReprocess(belowSchema: below, limit: limit, dryRun: true).count
            let body: String
            if count == 0 {
                body = "<h1>Nothing to re-transcode</h1><section><p>No idle ready version is below manifest schema \(below).</p>"
                    + "<p><a class=\"button secondary\" href=\"/console/batch?below=\(below)\">Back</a></p></section>"
            } else {
                body = """
                    <h1>Re-transcode \(count) versions?</h1><section>
                    <p>\(count) ready versions below manifest schema \(below) will be marked (at most \(limit)), at batch priority.</p>
                    <form method="post" action="/console/batch">\(ConsolePage.csrfField(auth.csrf))
                    <input type="hidden" name="below" value="\(below)"><input type="hidden" name="limit" value="\(limit)">
                    <p class="actions"><button type="submit">Yes, mark \(count)</button>
                    <a class="button secondary" href="/console/batch?below=\(below)">No, go back</a></p></form></section>
                    """
            }
            return ConsolePage.response(title: "Batch re-transcode", body: body, navigation: auth.navigation)
        }
    }

    func batchMark(_ request: HTTPServerRequest, _ auth: ConsoleAuth) -> HTTPServerResponse {
        let (below, limit, problem) = batchArguments(ConsoleForm.fields(request.body))
        if let problem {
            return ConsolePage.response(status: 400, title: "Batch re-transcode", body: """
                <h1>Batch re-transcode</h1><div class="notice error">\(ConsolePage.esc(problem))</div>
                """, navigation: auth.navigation)
        }
        return consoleDatabase(auth) { (store) throws(DatabaseError) in
            let marked = try store.markReprocess(belowSchema: below, limit: limit)
            logger.info("console: batch re-transcode marked", ["below_manifest_schema_version": .int(Int64(below)),
                                                               "marked": .int(Int64(marked.count))])
            return ConsolePage.redirect("/console/batch?below=\(below)&marked=\(marked.count)")
        }
    }
}
