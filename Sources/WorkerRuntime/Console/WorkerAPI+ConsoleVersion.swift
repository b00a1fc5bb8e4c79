import Foundation
import JSONCore
import PGQueue
import WorkerHTTP

/// The console's version page and its confirmed actions: retry (failed), reprocess (ready),
/// cancel (queued, running, or a pending re-transcode).
extension WorkerAPI {
    /// Bounds on the JSON the console reads back from rows it did not write.
    static let consoleJSONLimits = JSONReader.Limits(maxDepth: 16, maxValues: 200_000, maxStringBytes: 64 << 10, maxNumberLength: 64)

    /// `text` parsed as JSON, nil when absent or not JSON.
    static func consoleJSON(_ text: String?) -> ParsedJSON? {
        guard let text else { return nil }
        return try? JSONReader.parse(Array(text.utf8), limits: consoleJSONLimits)
    }

    /// A scalar's text (numbers as written, booleans as `true`/`false`), nil otherwise.
    static func scalar(_ value: ParsedJSON?) -> String? {
        switch value {
        case .string(let s)?: return s
        case .number(let n)?: return n
        case .bool(let b)?: return b ? "true" : "false"
        default: return nil
        }
    }

    /// The actions that fit a version's state, in page order.
    static func actions(status: String?, leased: Bool, reprocess: Bool) -> [String] {
        var out: [String] = []
        if status == "failed" && !leased { out.append("retry") }
        if status == "ready" && !leased && !reprocess { out.append("reprocess") }
        if status == "queued" || status == "uploading" || status == "transcoding" || leased || (status == "ready" && reprocess) {
            out.append("cancel")
        }
        return out
    }

    static let actionText: [String: (button: String, question: String, effect: String)] = [
        "retry": ("Retry", "Retry this failed version?",
                  "It is queued again with a fresh set of attempts, at manual-retry priority (10)."),
        "reprocess": ("Reprocess", "Re-transcode this ready version?",
                      "It stays ready on its current outputs; new outputs replace them when the re-transcode succeeds."),
        "cancel": ("Cancel", "Cancel this version's processing?",
                   "A queued version fails at once with reason CANCELLED; a running one stops at its next heartbeat; a pending re-transcode is withdrawn."),
    ]

    func versionPage(_ id: String, _ request: HTTPServerRequest, _ auth: ConsoleAuth) -> HTTPServerResponse {
        consoleDatabase(auth) { (store) throws(DatabaseError) in
            guard let v = try store.consoleVersion(id) else { return versionNotFound(auth) }
            let versionId = v["id"] ?? id
            let esc = ConsolePage.esc
            var notice = ""
            if let done = request.query["done"], let text = Self.actionText[done] {
                notice = "<div class=\"notice\">\(esc(text.button)) requested. \(esc(text.effect))</div>"
            } else if let refused = request.query["refused"], Self.actionText[refused] != nil {
                notice = "<div class=\"notice error\">\(esc(refused)) was refused: the version is \(esc(v["status"])) now.</div>"
            }
            let actions = Self.actions(status: v["status"], leased: v.bool("leased") == true, reprocess: v.bool("reprocess") == true)
            let buttons = actions.map { a in
                "<a class=\"button\(a == "cancel" ? " secondary" : "")\" href=\"/console/versions/\(ConsoleForm.encode(versionId))/confirm?action=\(a)\">\(esc(Self.actionText[a]?.button))</a>"
            }.joined(separator: " ")
            let room = v["room_id"] ?? ""
            let details: [(String, String)] = [
                ("Status", ConsolePage.badge(v["status"]) + (v.bool("reprocess") == true ? " re-transcode requested" : "")
                    + (v.bool("cancel_requested") == true ? " · cancel requested" : "")),
                ("Room", "\(esc(v["room_name"])) · <a class=\"mono\" href=\"/console/versions?room=\(ConsoleForm.encode(room))\">\(esc(room))</a>"),
                ("Attempt", "\(esc(v["attempt"])) of \(esc(v["max_attempts"])) · priority \(esc(v["priority"]))"),
                ("Running on", v.bool("leased") == true ? "\(esc(v["locked_by"])) since \(esc(v["locked_at"])) UTC, \(esc(v["transcode_phase"]))" : "—"),
                ("Next run", esc(v["run_after"])),
                ("Created · updated", "\(esc(v["created"])) · \(esc(v["updated"])) UTC"),
                ("Transcoded", esc(v["transcoded"])),
                ("Outputs", "revision \(esc(v["output_revision"])), manifest schema \(esc(v["manifest_schema_version"]))"),
                ("Failures", "\(esc(v["failure_count"])) final · \(esc(v["app_retry_count"])) app retries"),
                ("Last error", v["last_error_code"].map { "<code>\(esc($0))</code><pre>\(esc(v["last_error"]))</pre>" } ?? "—"),
            ]
            let dl = "<dl>" + details.map { "<dt>\(esc($0.0))</dt><dd>\($0.1)</dd>" }.joined() + "</dl>"
            let attempts = try store.attempts(versionId: versionId)
            let events = try store.events(versionId: versionId)
            return ConsolePage.response(title: "Version \(versionId.prefix(8))", body: """
                <h1>\(esc(v["room_name"] ?? "Room")) <span class="muted mono">\(esc(versionId))</span></h1>\(notice)
                <section>\(dl)\(buttons.isEmpty ? "" : "<p class=\"actions\">\(buttons)</p>")</section>
                <h2>Outputs</h2><section>\(outputsSection(v))</section>
                <h2>Attempts</h2><section>\(Self.attemptsTable(attempts))</section>
                <h2>Error history</h2><section>\(Self.errorTable(v["errors"]))</section>
                <h2>Events</h2><section>\(Self.eventTable(events))</section>
                """, navigation: auth.navigation)
        }
    }

    func versionNotFound(_ auth: ConsoleAuth) -> HTTPServerResponse {
        ConsolePage.response(status: 404, title: "Unknown version", body: """
            <h1>Unknown version</h1><p>No version has that id. <a href="/console/versions">All versions</a></p>
            """, navigation: auth.navigation)
    }

    static func attemptsTable(_ rows: [PGRow]) -> String {
        let esc = ConsolePage.esc
        return ConsolePage.table(["#Attempt", "Started (UTC)", "#Duration", "Outcome", "Reason", "Worker", "Phases (ms)"], rows.map { r in
            var phases: [String] = []
            if case .object(let members)? = consoleJSON(r["timings_ms"]) {
                let order = ["download", "parsing", "layering", "preview", "upload", "report"]
                let rank = { (k: String) in order.firstIndex(of: k) ?? order.count }
                for m in members.sorted(by: { (rank($0.key), $0.key) < (rank($1.key), $1.key) }) where m.key != "total" {
                    phases.append("\(esc(m.key)) \(esc(scalar(m.value)))")
                }
            }
            let duration = r.double("duration_ms").map { "\(Int($0)) ms" } ?? "—"
            let outcome = esc(r["outcome"]) + (r.bool("reprocess") == true ? " <span class=\"muted\">(re-transcode)</span>" : "")
            return [esc(r["attempt"]), esc(r["started"]), duration, outcome, r["reason"].map { "<code>\(esc($0))</code>" } ?? "—",
                    esc(r["worker"]), phases.isEmpty ? "—" : phases.joined(separator: " · ")]
        }, empty: "No finished attempt recorded.")
    }

    static func errorTable(_ text: String?) -> String {
        let esc = ConsolePage.esc
        guard case .array(let entries)? = consoleJSON(text) else { return "<p class=\"muted\">No error recorded.</p>" }
        return ConsolePage.table(["At", "#Attempt", "Code", "Phase", "Final", "Message"], entries.reversed().prefix(50).map { e in
            let at = scalar(e.member("at")).map { String($0.prefix(19)).replacingOccurrences(of: "T", with: " ") }
            return [esc(at), esc(scalar(e.member("attempt"))), "<code>\(esc(scalar(e.member("code"))))</code>",
                    esc(scalar(e.member("phase"))), scalar(e.member("final")) == "true" ? "yes" : "no",
                    "<pre>\(esc(scalar(e.member("message"))))</pre>"]
        }, empty: "No error recorded.")
    }

    static func eventTable(_ rows: [PGRow]) -> String {
        let esc = ConsolePage.esc
        return ConsolePage.table(["At (UTC)", "Event", "Payload"], rows.map { r in
            [esc(r["at"]), "<code>\(esc(r["event"]))</code>", "<pre>\(esc(r["payload"]))</pre>"]
        }, empty: "No event sent yet.")
    }

    func confirmPage(_ id: String, _ request: HTTPServerRequest, _ auth: ConsoleAuth) -> HTTPServerResponse {
        guard let action = request.query["action"], let text = Self.actionText[action] else {
            return ConsolePage.response(status: 400, title: "Unknown action", body: "<h1>Unknown action</h1>", navigation: auth.navigation)
        }
        return consoleDatabase(auth) { (store) throws(DatabaseError) in
            guard let v = try store.consoleVersion(id) else { return versionNotFound(auth) }
            let versionId = v["id"] ?? id
            let esc = ConsolePage.esc
            let path = "/console/versions/\(ConsoleForm.encode(versionId))"
            return ConsolePage.response(title: text.button, body: """
                <h1>\(esc(text.question))</h1><section><p>\(esc(v["room_name"])) · <span class="mono">\(esc(versionId))</span> · \
                \(ConsolePage.badge(v["status"]))</p><p>\(esc(text.effect))</p>
                <form method="post" action="\(path)/\(action)">\(ConsolePage.csrfField(auth.csrf))
                <p class="actions"><button type="submit"\(action == "cancel" ? " class=\"danger\"" : "")>Yes, \(esc(text.button.lowercased()))</button>
                <a class="button secondary" href="\(path)">No, go back</a></p></form></section>
                """, navigation: auth.navigation)
        }
    }

    func consoleAction(_ action: String, id: String, _ auth: ConsoleAuth) -> HTTPServerResponse {
        consoleDatabase(auth) { (store) throws(DatabaseError) in
            guard let v = try store.consoleVersion(id), let versionId = v["id"] else { return versionNotFound(auth) }
            let ok: Bool
            switch action {
            case "retry": ok = try store.retryFailed(versionId: versionId)
            case "reprocess": ok = try store.markReprocess(versionId: versionId)
            default: ok = try store.cancel(versionId: versionId).ok
            }
            logger.info("console: \(action) \(ok ? "requested" : "refused")", ["version_id": .string(versionId)])
            return ConsolePage.redirect("/console/versions/\(ConsoleForm.encode(versionId))?\(ok ? "done" : "refused")=\(action)")
        }
    }
}
