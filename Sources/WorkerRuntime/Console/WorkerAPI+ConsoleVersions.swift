import Foundation
import PGQueue
import WorkerHTTP
import WorkerCore

/// The console's versions list: filters by status, room, reason and creation time, keyset pages.
extension WorkerAPI {
    /// Rows per page.
    static let consolePageSize = 50

    /// A query's filter, or the message saying which field is wrong.
    static func versionFilter(_ query: [String: String]) -> (filter: QueueStore.VersionFilter, problem: String?) {
        func value(_ name: String) -> String? {
            guard let v = query[name]?.trimmingCharacters(in: .whitespaces), !v.isEmpty else { return nil }
            return String(v.prefix(200))
        }
        var filter = QueueStore.VersionFilter()
        var problems: [String] = []
        if let s = value("status") {
            if consoleStatuses.contains(s) { filter.status = s } else { problems.append("unknown status") }
        }
        if let r = value("room") {
            if QueueStore.isUUID(r.lowercased()) { filter.roomId = r.lowercased() } else { problems.append("the room must be a room id (a UUID)") }
        }
        if let r = value("reason") {
            if r.utf8.count <= 64, r.utf8.allSatisfy({ (65...90).contains($0) || (48...57).contains($0) || $0 == 95 }) {
                filter.reason = r
            } else {
                problems.append("a reason is a code like USDZ_PARSE_ERROR")
            }
        }
        for (name, label) in [("from", "from"), ("until", "until")] {
            guard let t = value(name) else { continue }
            if let utc = utcTimestamp(t) {
                if name == "from" { filter.createdFrom = utc } else { filter.createdUntil = utc }
            } else {
                problems.append("'\(label)' must be a date (2026-12-01) or a date and time (2026-12-01T14:30), UTC")
            }
        }
        if let b = value("before") {
            let parts = b.split(separator: ",", maxSplits: 1).map(String.init)
            if parts.count == 2, QueueStore.isUUID(parts[1]), isCursorTime(parts[0]) {
                filter.before = (parts[0], parts[1])
            } else {
                problems.append("the page cursor is not valid")
            }
        }
        return (filter, problems.isEmpty ? nil : problems.joined(separator: "; "))
    }

    /// `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM` or `YYYY-MM-DDTHH:MM:SS` as a UTC timestamp literal.
    static func utcTimestamp(_ text: String) -> String? {
        let t = text.replacingOccurrences(of: " ", with: "T")
        let shapes = ["dddd-dd-dd", "dddd-dd-ddTdd:dd", "dddd-dd-ddTdd:dd:dd"]
        guard shapes.contains(where: { shape in
            shape.count == t.count && zip(shape, t).allSatisfy { s, c in s == "d" ? c.isASCII && c.isNumber : s == c }
        }) else { return nil }
        let (date, time) = t.count == 10 ? (t, "00:00:00") : (String(t.prefix(10)), String(t.dropFirst(11)))
        let fields = (date.split(separator: "-") + time.split(separator: ":")).compactMap { Int($0) }
        guard fields.count >= 5, (1...12).contains(fields[1]), (1...31).contains(fields[2]), fields[3] < 24, fields[4] < 60,
              fields.count == 5 || fields[5] < 60 else { return nil }
        return "\(date) \(time.count == 5 ? time + ":00" : time)+00"
    }

    /// The cursor's time: `YYYY-MM-DDTHH:MM:SS.ffffffZ` as the list query writes it.
    static func isCursorTime(_ text: String) -> Bool {
        let shape = "dddd-dd-ddTdd:dd:dd.ddddddZ"
        return shape.count == text.count && zip(shape, text).allSatisfy { s, c in s == "d" ? c.isASCII && c.isNumber : s == c }
    }

    func versionsPage(_ request: HTTPServerRequest, _ auth: ConsoleAuth) -> HTTPServerResponse {
        let (filter, problem) = Self.versionFilter(request.query)
        let esc = ConsolePage.esc
        func selected(_ s: String) -> String { filter.status == s ? " selected" : "" }
        let options = (["" ] + Self.consoleStatuses).map { s in
            "<option value=\"\(s)\"\(selected(s))>\(s.isEmpty ? "any" : s)</option>"
        }.joined()
        func field(_ name: String) -> String { HTMLText.escape(request.query[name].map { String($0.prefix(200)) } ?? "") }
        let form = """
            <form class="filters" method="get" action="/console/versions">
            <label>Status<select name="status">\(options)</select></label>
            <label>Room id<input name="room" value="\(field("room"))" size="20" placeholder="uuid"></label>
            <label>Reason<input name="reason" value="\(field("reason"))" size="18" placeholder="USDZ_PARSE_ERROR"></label>
            <label>Created from (UTC)<input name="from" value="\(field("from"))" size="16" placeholder="2026-12-01"></label>
            <label>until<input name="until" value="\(field("until"))" size="16" placeholder="2026-12-02T08:00"></label>
            <button type="submit">Filter</button> <a class="button secondary" href="/console/versions">Clear</a>
            </form>
            """
        if let problem {
            return ConsolePage.response(status: 400, title: "Versions", body: """
                <h1>Versions</h1><section>\(form)</section><div class="notice error">\(esc(problem))</div>
                """, navigation: auth.navigation)
        }
        return consoleDatabase(auth) { (store) throws(DatabaseError) in
            var rows = try store.versions(filter, limit: Self.consolePageSize + 1)
            let more = rows.count > Self.consolePageSize
            if more { rows.removeLast() }
            let table = ConsolePage.table(["Created (UTC)", "Version", "Room", "Status", "Reason", "#Attempt", "#Schema", "Updated (UTC)"],
                                          rows.map { r in
                let room = r["room_id"] ?? ""
                let name = r["room_name"].map { esc($0) + " " } ?? ""
                let status = ConsolePage.badge(r["status"]) + (r.bool("reprocess") == true ? " <span class=\"muted\">re-transcode</span>" : "")
                return [esc(r["created"]), Self.versionLink(r["id"] ?? ""),
                        "\(name)<a class=\"mono muted\" href=\"/console/versions?room=\(ConsoleForm.encode(room))\">\(esc(String(room.prefix(8))))</a>",
                        status, r["last_error_code"].map { "<code>\(esc($0))</code>" } ?? "—", esc(r["attempt"]),
                        esc(r["manifest_schema_version"]), esc(r["updated"])]
            }, empty: "No version matches.")
            var keep = request.query.filter { ["status", "room", "reason", "from", "until"].contains($0.key) && !$0.value.isEmpty }
            var pager: [String] = []
            if filter.before != nil {
                pager.append("<a class=\"button secondary\" href=\"/console/versions\(Self.queryString(keep))\">First page</a>")
            }
            if more, let last = rows.last, let at = last["cursor_at"], let id = last["id"] {
                keep["before"] = "\(at),\(id)"
                pager.append("<a class=\"button secondary\" href=\"/console/versions\(Self.queryString(keep))\">Next page</a>")
            }
            return ConsolePage.response(title: "Versions", body: """
                <h1>Versions</h1><section>\(form)</section>
                <section>\(table)<p class="actions">\(pager.joined(separator: " "))</p>
                <p class="muted">\(rows.count) shown, newest first, \(Self.consolePageSize) per page.</p></section>
                """, navigation: auth.navigation)
        }
    }

    /// `?a=1&b=2` of `fields` in name order (escaped for an attribute), or "".
    static func queryString(_ fields: [String: String]) -> String {
        guard !fields.isEmpty else { return "" }
        return HTMLText.escape("?" + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(ConsoleForm.encode($0.value))" }
            .joined(separator: "&"))
    }
}
