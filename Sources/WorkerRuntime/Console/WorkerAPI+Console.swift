import Foundation
import PGQueue
import WorkerHTTP

/// `/console`: sign-in, authentication, CSRF and routing of the operator console (docs/console.md).
///
/// A request is signed in by the session cookie (`ConsoleSession`, set by the sign-in form) or by
/// `Authorization: Bearer <TRANSCODE_API_TOKEN>`. Without either, a GET is sent to the sign-in
/// page and anything else answers 401: nothing else is shown. Every POST must come from this
/// origin (`Origin`, when sent, names this host; `Sec-Fetch-Site` is not `cross-site`), and a
/// cookie-signed POST must carry the session's CSRF token in its `csrf` field.
extension WorkerAPI {
    /// Who is asking: `csrf` is the session's CSRF token (nil for a bearer request, which a
    /// browser never sends on its own, so it needs none).
    struct ConsoleAuth {
        var nonce: String?
        var csrf: String?
        var navigation: ConsolePage.Navigation { ConsolePage.Navigation(csrf: csrf) }
    }

    func console(_ request: HTTPServerRequest) -> HTTPServerResponse {
        guard let token = apiToken, let session = consoleSession else {
            return ConsolePage.response(status: 503, title: "Console off", body: """
                <h1>The console is off</h1><p>Set <code>TRANSCODE_API_TOKEN</code> on the worker to turn it on; \
                operators sign in with that token.</p>
                """, navigation: nil)
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).dropFirst().map(String.init)
        if request.method == "POST", let refusal = crossOriginRefusal(request) { return refusal }
        if parts == ["sign-in"] {
            switch request.method {
            case "GET": return signInPage(error: nil, status: 200)
            case "POST": return signIn(request, token: token, session: session)
            default: return consoleMethodNotAllowed("GET, POST")
            }
        }
        guard let auth = authenticate(request, token: token, session: session) else {
            return notSignedIn(request)
        }
        // A session signed out of (on any replica) is over, whatever its cookie says.
        if let nonce = auth.nonce {
            do {
                if try withDatabase({ (c) throws(DatabaseError) in try QueueStore(connection: c).isConsoleSignedOut(nonce: nonce) }) {
                    return notSignedIn(request)
                }
            } catch {
                return databaseUnavailable(error, navigation: nil)
            }
        }
        if request.method == "POST", let nonce = auth.nonce {
            let given = ConsoleForm.fields(request.body)["csrf"]
            guard session.checkCSRF(nonce: nonce, given: given) else {
                logger.warn("console: request without a valid CSRF token refused", ["path": .string(String(request.path.prefix(200)))])
                return ConsolePage.response(status: 403, title: "Refused", body: """
                    <h1>Refused</h1><p>This form has expired or did not come from this console. Go back, reload the page \
                    and try again.</p>
                    """, navigation: auth.navigation)
            }
        }
        switch (request.method, parts.count) {
        case ("GET", 0): return overviewPage(auth)
        case ("POST", 1) where parts[0] == "sign-out": return signOut(request, auth)
        case ("GET", 1) where parts[0] == "versions": return versionsPage(request, auth)
        case ("GET", 1) where parts[0] == "batch": return batchPage(request, auth)
        case ("POST", 1) where parts[0] == "batch": return batchMark(request, auth)
        case ("GET", 2) where parts[0] == "batch" && parts[1] == "confirm": return batchConfirmPage(request, auth)
        case ("GET", 2) where parts[0] == "versions": return versionPage(parts[1], request, auth)
        case ("GET", 3) where parts[0] == "versions" && parts[2] == "confirm": return confirmPage(parts[1], request, auth)
        case ("POST", 3) where parts[0] == "versions" && Self.consoleActions.contains(parts[2]):
            return consoleAction(parts[2], id: parts[1], auth)
        case ("GET", 4...) where parts[0] == "versions" && parts[2] == "files":
            return outputFile(parts[1], relative: parts[3...].joined(separator: "/"))
        case ("GET", _), ("POST", _):
            return ConsolePage.response(status: 404, title: "Not found", body: "<h1>Not found</h1><p><a href=\"/console\">Overview</a></p>",
                                        navigation: auth.navigation)
        default:
            return consoleMethodNotAllowed("GET, POST")
        }
    }

    /// The actions a version page can post.
    static let consoleActions: Set<String> = ["retry", "reprocess", "cancel"]

    private func consoleMethodNotAllowed(_ allow: String) -> HTTPServerResponse {
        ConsolePage.response(status: 405, title: "Method not allowed", body: "<h1>Method not allowed</h1>", navigation: nil,
                             headers: [("Allow", allow)])
    }

    /// 403 for a POST another site made a browser send.
    private func crossOriginRefusal(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        let host = request.headers["host"] ?? ""
        var crossSite = request.headers["sec-fetch-site"] == "cross-site"
        if let origin = request.headers["origin"], origin != "http://" + host, origin != "https://" + host { crossSite = true }
        guard crossSite else { return nil }
        logger.warn("console: cross-origin POST refused", ["path": .string(String(request.path.prefix(200)))])
        return ConsolePage.response(status: 403, title: "Refused", body: "<h1>Refused</h1><p>Cross-site requests are not accepted.</p>",
                                    navigation: nil)
    }

    private func authenticate(_ request: HTTPServerRequest, token: String, session: ConsoleSession) -> ConsoleAuth? {
        if let header = request.headers["authorization"] {
            guard header.hasPrefix("Bearer "), Self.constantTimeEqual(Array(header.dropFirst(7).utf8), Array(token.utf8)) else {
                return nil
            }
            return ConsoleAuth(nonce: nil, csrf: nil)
        }
        guard let value = ConsoleForm.cookie(ConsoleSession.cookieName, in: request.headers["cookie"]),
              let nonce = session.verify(value, now: Int(Date().timeIntervalSince1970)) else { return nil }
        return ConsoleAuth(nonce: nonce, csrf: session.csrfToken(nonce: nonce))
    }

    private func signInPage(error: String?, status: Int) -> HTTPServerResponse {
        let message = error.map { "<div class=\"notice error\">\(ConsolePage.esc($0))</div>" } ?? ""
        return ConsolePage.response(status: status, title: "Sign in", body: """
            <div class="signin"><section><h1>Sign in</h1>\(message)
            <form method="post" action="/console/sign-in">
            <label>API token<input type="password" name="token" autocomplete="current-password" required autofocus></label>
            <p><button type="submit">Sign in</button></p></form>
            <p class="muted">The worker's <code>TRANSCODE_API_TOKEN</code>. A sign-in lasts \(ConsoleSession.lifetimeSeconds / 3600) hours.</p>
            </section></div>
            """, navigation: nil)
    }

    private func signIn(_ request: HTTPServerRequest, token: String, session: ConsoleSession) -> HTTPServerResponse {
        let given = ConsoleForm.fields(request.body)["token"] ?? ""
        guard !given.isEmpty, Self.constantTimeEqual(Array(given.utf8), Array(token.utf8)) else {
            logger.warn("console: sign-in refused", [:])
            return signInPage(error: "That token is not this worker's API token.", status: 401)
        }
        let value = session.issue(now: Int(Date().timeIntervalSince1970))
        logger.info("console: signed in", [:])
        return ConsolePage.redirect("/console", headers: [("Set-Cookie", Self.cookie(value, maxAge: ConsoleSession.lifetimeSeconds, request))])
    }

    /// The answer to a request without a live session: GETs go to the sign-in page, anything
    /// else is a 401.
    private func notSignedIn(_ request: HTTPServerRequest) -> HTTPServerResponse {
        if request.method == "GET" || request.method == "HEAD" { return ConsolePage.redirect("/console/sign-in") }
        return signInPage(error: "Sign in first.", status: 401)
    }

    /// Ends the session on every replica (its nonce is recorded until it would have expired) and
    /// clears the cookie. When the database cannot record it, the cookie is still cleared and the
    /// page says the session stays valid elsewhere until it expires.
    private func signOut(_ request: HTTPServerRequest, _ auth: ConsoleAuth) -> HTTPServerResponse {
        let clear = [("Set-Cookie", Self.cookie("", maxAge: 0, request))]
        guard let nonce = auth.nonce else { return ConsolePage.redirect("/console/sign-in", headers: clear) }
        do {
            try withDatabase { (c) throws(DatabaseError) in
                try QueueStore(connection: c).recordConsoleSignOut(nonce: nonce, seconds: ConsoleSession.lifetimeSeconds)
            }
        } catch {
            logger.warn("console sign-out not recorded", ["error": .string("\(error)"), "error_code": .string(error.code.rawValue)])
            return ConsolePage.response(status: 503, title: "Signed out here only", body: """
                <h1>Signed out here only</h1><p>This browser's session cookie was cleared, but the worker could not record \
                the sign-out in its database (\(ConsolePage.esc(error.code.rawValue))): a copy of the cookie stays valid until it \
                expires. Sign in and out again once the database is back.</p>
                """, navigation: nil, headers: clear)
        }
        logger.info("console signed out", [:])
        return ConsolePage.redirect("/console/sign-in", headers: clear)
    }

    /// The session cookie: HttpOnly, SameSite=Strict, limited to `/console`, Secure when the
    /// request came through HTTPS (`X-Forwarded-Proto: https` from the ingress).
    static func cookie(_ value: String, maxAge: Int, _ request: HTTPServerRequest) -> String {
        let secure = request.headers["x-forwarded-proto"]?.lowercased() == "https" ? "; Secure" : ""
        return "\(ConsoleSession.cookieName)=\(value); Path=/console; Max-Age=\(maxAge); HttpOnly; SameSite=Strict\(secure)"
    }

    /// Runs `body` on the API's database connection; a database failure is a 503 page.
    func consoleDatabase(_ auth: ConsoleAuth, _ body: (QueueStore) throws(DatabaseError) -> HTTPServerResponse) -> HTTPServerResponse {
        do {
            return try withDatabase { (c) throws(DatabaseError) in try body(QueueStore(connection: c)) }
        } catch {
            return databaseUnavailable(error, navigation: auth.navigation)
        }
    }

    /// The 503 page for a database call that failed.
    private func databaseUnavailable(_ error: DatabaseError, navigation: ConsolePage.Navigation?) -> HTTPServerResponse {
        logger.warn("console database call failed", ["error": .string("\(error)"), "error_code": .string(error.code.rawValue)])
        return ConsolePage.response(status: 503, title: "Database unavailable", body: """
            <h1>Database unavailable</h1><p>The worker cannot reach its database right now (\(ConsolePage.esc(error.code.rawValue))). \
            Reload in a moment.</p>
            """, navigation: navigation)
    }
}
