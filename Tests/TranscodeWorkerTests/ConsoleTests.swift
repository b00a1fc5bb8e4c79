import Foundation
import Testing
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime

/// The operator console over real HTTP and a real database: sign-in, the session cookie, CSRF and
/// cross-origin refusals, escaping, each action, filters and keyset pages, the batch and the
/// output files with their confinement.
@Suite("Operator console", .enabled(if: postgresConfigured), .serialized)
struct ConsoleTests {
    typealias H = ConsoleHarness

    @Test func formFieldsRoundTripThroughTheirPercentEncoding() {
        let values = ["a b/ü~", "x=1&y=2", "%41+", ""]
        #expect(ConsoleForm.encode("a b/ü~") == "a%20b%2F%C3%BC~")
        let body = values.enumerated().map { "k\($0.offset)=\(ConsoleForm.encode($0.element))" }.joined(separator: "&")
        let fields = ConsoleForm.fields(Array(body.utf8))
        #expect(values.enumerated().allSatisfy { fields["k\($0.offset)"] == $0.element })
    }

    @Test func withoutCredentialsOnlyTheSignInPageIsShown() throws {
        let h = try H()
        defer { h.close() }
        for path in ["/console", "/console/versions", "/console/batch", "/console/versions/\(UUID().uuidString)"] {
            let r = try h.send("GET", path)
            #expect(r.status == 303, "\(path)")
            #expect(r.headers["location"] == "/console/sign-in")
        }
        let post = try h.send("POST", "/console/batch", form: [("below", "9"), ("limit", "10")])
        #expect(post.status == 401)
        #expect(!H.text(post).contains("Overview"))
        let page = try h.send("GET", "/console/sign-in")
        #expect(page.status == 200)
        #expect(H.text(page).contains("name=\"token\""))
        #expect(!H.text(page).contains("href=\"/console/versions\""))
        #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
        #expect(page.headers["x-frame-options"] == "DENY")
        #expect(page.headers["cache-control"] == "no-store")
    }

    @Test func signInSetsAStrictHttpOnlyExpiringCookie() throws {
        let h = try H()
        defer { h.close() }
        let wrong = try h.send("POST", "/console/sign-in", form: [("token", "nope")])
        #expect(wrong.status == 401)
        #expect(wrong.headers["set-cookie"] == nil)
        #expect(H.text(wrong).contains("not this worker&#39;s API token"))
        let ok = try h.send("POST", "/console/sign-in", form: [("token", H.token)])
        #expect(ok.status == 303)
        #expect(ok.headers["location"] == "/console")
        let cookie = try #require(ok.headers["set-cookie"])
        for part in ["HttpOnly", "SameSite=Strict", "Path=/console", "Max-Age=\(ConsoleSession.lifetimeSeconds)"] {
            #expect(cookie.contains(part), "\(cookie) lacks \(part)")
        }
        #expect(!cookie.contains("Secure"))
        #expect(!cookie.contains(H.token))
        let behindTLS = try h.send("POST", "/console/sign-in", form: [("token", H.token)], headers: [("X-Forwarded-Proto", "https")])
        #expect(behindTLS.headers["set-cookie"]?.contains("; Secure") == true)

        let session = try h.signIn()
        let overview = try h.send("GET", "/console", cookie: session)
        #expect(overview.status == 200)
        #expect(H.text(overview).contains("<h1>Overview</h1>"))
        let out = try h.send("POST", "/console/sign-out", form: [("csrf", try h.csrf(session))], cookie: session)
        #expect(out.status == 303)
        #expect(out.headers["set-cookie"]?.contains("Max-Age=0") == true)
    }

    @Test func aSignedOutSessionIsOverEvenWhereItsCookieWasKept() throws {
        let h = try H()
        defer { h.close() }
        let kept = try h.signIn(), other = try h.signIn()
        let csrf = try h.csrf(kept)
        #expect(try h.send("POST", "/console/sign-out", form: [("csrf", csrf)], cookie: kept).status == 303)
        // A copy of the cookie (another browser, another replica behind the same database) is refused.
        let page = try h.send("GET", "/console", cookie: kept)
        #expect(page.status == 303 && page.headers["location"] == "/console/sign-in")
        let post = try h.send("POST", "/console/versions/00000000-0000-0000-0000-000000000000/retry", form: [("csrf", csrf)],
                              cookie: kept)
        #expect(post.status == 401)
        // Signing out twice is harmless, and other sessions go on.
        #expect(try h.send("POST", "/console/sign-out", form: [("csrf", csrf)], cookie: kept).status == 401)
        #expect(try h.send("GET", "/console", cookie: other).status == 200)
        // The record lasts as long as the session could have.
        let rows = try h.connection.query("""
            SELECT round(extract(epoch FROM expires_at - now())) AS left FROM transcode_console_signouts
            """)
        #expect(rows.count == 1)
        let left = try #require(rows.first?.int("left"))
        #expect(left > ConsoleSession.lifetimeSeconds - 600 && left <= ConsoleSession.lifetimeSeconds)
    }

    @Test func forgedExpiredAndForeignSessionsAreRefused() throws {
        let signer = ConsoleSession(apiToken: H.token)
        let now = 1_800_000_000
        let value = signer.issue(now: now)
        #expect(signer.verify(value, now: now + 10) != nil)
        #expect(signer.verify(value, now: now + ConsoleSession.lifetimeSeconds) == nil, "expired")
        #expect(ConsoleSession(apiToken: H.token + "x").verify(value, now: now) == nil, "signed under another token")
        var parts = value.split(separator: ".").map(String.init)
        parts[1] = String(now + 10 * ConsoleSession.lifetimeSeconds)
        #expect(signer.verify(parts.joined(separator: "."), now: now) == nil, "extended expiry")
        #expect(signer.verify("", now: now) == nil)
        #expect(signer.verify("v1.1.2.3", now: now) == nil)

        let h = try H()
        defer { h.close() }
        var flipped = Array(try h.signIn())
        flipped[flipped.count - 1] = flipped.last == "0" ? "1" : "0"
        let foreign = ConsoleSession(apiToken: "another-worker-token-0123456789abcdef").issue(now: Int(Date().timeIntervalSince1970))
        let expired = signer.issue(now: Int(Date().timeIntervalSince1970) - ConsoleSession.lifetimeSeconds - 1)
        for bad in [String(flipped), foreign, expired, "garbage"] {
            #expect(try h.send("GET", "/console", cookie: bad).status == 303, "\(bad) let in")
        }
        #expect(try h.send("GET", "/console", headers: [("Authorization", "Bearer \(H.token)")]).status == 200)
        #expect(try h.send("GET", "/console", headers: [("Authorization", "Bearer wrong")]).status == 303)
    }

    @Test func stateChangesNeedTheSessionsCSRFTokenAndThisOrigin() throws {
        let h = try H()
        defer { h.close() }
        let (_, version) = try h.insert(status: "failed", reason: "USDZ_PARSE_ERROR", message: "bad file")
        let session = try h.signIn(), other = try h.signIn()
        let csrf = try h.csrf(session)
        let path = "/console/versions/\(version)/retry"
        #expect(try h.send("POST", path, cookie: session).status == 403)
        #expect(try h.send("POST", path, form: [("csrf", "")], cookie: session).status == 403)
        #expect(try h.send("POST", path, form: [("csrf", try h.csrf(other))], cookie: session).status == 403, "another session's token")
        #expect(try h.send("POST", path, form: [("csrf", csrf)], cookie: session,
                           headers: [("Origin", "http://evil.example")]).status == 403)
        #expect(try h.send("POST", path, form: [("csrf", csrf)], cookie: session,
                           headers: [("Sec-Fetch-Site", "cross-site")]).status == 403)
        #expect(try h.status(version) == "failed", "a refused request changed the version")
        let ok = try h.send("POST", path, form: [("csrf", csrf)], cookie: session, headers: [("Origin", "http://\(h.host)")])
        #expect(ok.status == 303)
        #expect(ok.headers["location"] == "/console/versions/\(version)?done=retry")
        #expect(try h.status(version) == "queued")
        // A bearer request is not sent by a browser on its own: no CSRF token needed.
        let (_, another) = try h.insert(status: "failed", reason: "TIMEOUT")
        let bearer = try h.send("POST", "/console/versions/\(another)/retry", headers: [("Authorization", "Bearer \(H.token)")])
        #expect(bearer.status == 303)
        #expect(try h.status(another) == "queued")
    }

    @Test func markupFromTheDatabaseIsShownAsText() throws {
        let h = try H()
        defer { h.close() }
        let name = "<script>alert('room')</script> & \"Kitchen\""
        let message = "<img src=x onerror=alert(1)> in </pre><b>bold</b>"
        let (_, version) = try h.insert(status: "failed", name: name, reason: "USDZ_PARSE_ERROR", message: message)
        try h.connection.query("""
            INSERT INTO transcode_attempts (version_id, attempt, worker, started_at, outcome, reason, timings_ms)
            VALUES ($1::uuid, 1, '<i>w</i>', now(), 'failed', '<u>R</u>', '{"<s>phase</s>": 3}')
            """, [version])
        let cookie = try h.signIn()
        for path in ["/console/versions", "/console/versions?status=failed", "/console/versions/\(version)",
                     "/console/versions/\(version)/confirm?action=retry", "/console"] {
            let page = H.text(try h.send("GET", path, cookie: cookie))
            for raw in ["<script>alert", "<img src=x", "<b>bold", "<i>w</i>", "<u>R</u>", "<s>phase"] {
                #expect(!page.contains(raw), "\(path) shows \(raw) as markup")
            }
        }
        let page = H.text(try h.send("GET", "/console/versions/\(version)", cookie: cookie))
        #expect(page.contains("&lt;script&gt;alert(&#39;room&#39;)&lt;/script&gt; &amp; &quot;Kitchen&quot;"))
        #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;"))
        // Query text echoed into the filter form is escaped as well.
        let echoed = H.text(try h.send("GET", "/console/versions?room=%22%3E%3Cscript%3E", cookie: cookie))
        #expect(!echoed.contains("\"><script>"))
        #expect(echoed.contains("&quot;&gt;&lt;script&gt;"))
    }

    @Test func eachActionFitsTheVersionsStateAndIsConfirmed() throws {
        let h = try H()
        defer { h.close() }
        let cookie = try h.signIn(), csrf = try h.csrf(cookie)
        let (_, ready) = try h.insert(status: "ready")
        let (_, queued) = try h.insert(status: "queued")
        let (_, failed) = try h.insert(status: "failed", reason: "TIMEOUT")
        func page(_ v: String) throws -> String { H.text(try h.send("GET", "/console/versions/\(v)", cookie: cookie)) }
        #expect(try page(ready).contains("confirm?action=reprocess"))
        #expect(try !page(ready).contains("confirm?action=retry"))
        #expect(try page(queued).contains("confirm?action=cancel"))
        #expect(try page(failed).contains("confirm?action=retry"))
        let confirm = H.text(try h.send("GET", "/console/versions/\(ready)/confirm?action=reprocess", cookie: cookie))
        #expect(confirm.contains("Re-transcode this ready version?"))
        #expect(confirm.contains("action=\"/console/versions/\(ready)/reprocess\""))
        #expect(confirm.contains("value=\"\(csrf)\""))
        #expect(try h.status(ready) == "ready", "a confirmation page changed something")

        #expect(try h.send("POST", "/console/versions/\(ready)/reprocess", form: [("csrf", csrf)], cookie: cookie).status == 303)
        #expect(try h.connection.query("SELECT reprocess_requested_at IS NOT NULL AS r FROM transcode_private.room_versions WHERE id = $1::uuid",
                                       [ready]).first?.bool("r") == true)
        #expect(try h.send("POST", "/console/versions/\(queued)/cancel", form: [("csrf", csrf)], cookie: cookie).status == 303)
        #expect(try h.status(queued) == "failed")
        #expect(try h.connection.query("SELECT last_error_code FROM transcode_private.room_versions WHERE id = $1::uuid", [queued]).first?["last_error_code"]
                == "CANCELLED")
        // An action that does not fit is refused and changes nothing.
        let refused = try h.send("POST", "/console/versions/\(ready)/retry", form: [("csrf", csrf)], cookie: cookie)
        #expect(refused.headers["location"] == "/console/versions/\(ready)?refused=retry")
        #expect(try h.status(ready) == "ready")
        #expect(H.text(try h.send("GET", "/console/versions/\(ready)?refused=retry", cookie: cookie)).contains("was refused"))
        #expect(try h.send("GET", "/console/versions/\(UUID().uuidString)", cookie: cookie).status == 404)
        #expect(try h.send("GET", "/console/versions/not-a-uuid", cookie: cookie).status == 404)
    }

    @Test func filtersAndKeysetPagesListEveryVersionOnce() throws {
        let h = try H()
        defer { h.close() }
        var failed: Set<String> = []
        for i in 0..<130 {
            let status = i % 3 == 0 ? "failed" : (i % 3 == 1 ? "ready" : "queued")
            let v = try h.insert(status: status, reason: status == "failed" ? (i % 2 == 0 ? "TIMEOUT" : "USDZ_PARSE_ERROR") : nil).version
            if status == "failed" { failed.insert(v) }
        }
        // Equal creation times are common (one transaction); the id breaks the tie.
        try h.connection.query("UPDATE transcode_private.room_versions SET created_at = date_trunc('minute', now())")
        let cookie = try h.signIn()
        var seen: [String] = []
        var path = "/console/versions"
        var pages = 0
        while true {
            let page = H.text(try h.send("GET", path, cookie: cookie))
            seen += Self.versionIds(page)
            pages += 1
            guard let next = Self.nextLink(page) else { break }
            path = next
            #expect(pages < 10)
        }
        #expect(pages == 3)
        #expect(seen.count == 130)
        #expect(Set(seen).count == 130)
        let onlyFailed = H.text(try h.send("GET", "/console/versions?status=failed", cookie: cookie))
        #expect(Set(Self.versionIds(onlyFailed)) == failed)
        let timeouts = Self.versionIds(H.text(try h.send("GET", "/console/versions?status=failed&reason=TIMEOUT", cookie: cookie)))
        #expect(timeouts.count == 22)
        let tomorrow = H.text(try h.send("GET", "/console/versions?from=2999-01-01", cookie: cookie))
        #expect(Self.versionIds(tomorrow).isEmpty)
        #expect(Self.versionIds(H.text(try h.send("GET", "/console/versions?until=2999-01-01T10:00", cookie: cookie))).count == 50)
        for bad in ["status=gone", "room=xyz", "reason=%3Cx%3E", "from=yesterday", "until=2026-13-01", "before=abc"] {
            let r = try h.send("GET", "/console/versions?\(bad)", cookie: cookie)
            #expect(r.status == 400, "\(bad)")
        }
    }

    /// The version ids linked from a list page, in order.
    static func versionIds(_ page: String) -> [String] {
        page.components(separatedBy: "href=\"/console/versions/").dropFirst().compactMap { part in
            let id = String(part.prefix { $0 != "\"" })
            return UUID(uuidString: id) != nil ? id : nil
        }
    }

    /// The "Next page" link of a list page (unescaped), nil on the last page.
    static func nextLink(_ page: String) -> String? {
        guard let end = page.range(of: "\">Next page</a>") else { return nil }
        let head = page[..<end.lowerBound]
        guard let start = head.range(of: "href=\"", options: .backwards) else { return nil }
        return String(head[start.upperBound...]).replacingOccurrences(of: "&amp;", with: "&")
    }
}
