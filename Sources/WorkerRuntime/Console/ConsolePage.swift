import WorkerHTTP
import WorkerCore

/// The console's HTML: one layout with inline CSS (no external asset, no script), readable on a
/// phone, and small builders for what every page uses. Every text from the database, a file or
/// the request goes through `esc` (`HTMLText.escape`); builders take already-escaped HTML only
/// where their parameter says so.
enum ConsolePage {
    /// Sent with every console answer: no framing, no sniffing, no caching, nothing loaded from
    /// anywhere but this server, forms posting only here, no referrer beyond this origin.
    static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy",
         "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "same-origin"),
        ("Cache-Control", "no-store"),
    ]

    static let css = """
        *{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;\
        color:#1c2430;background:#f4f6f9}header{background:#1f2a3a;color:#fff;padding:10px 16px;display:flex;flex-wrap:wrap;\
        gap:6px 18px;align-items:center}header b{font-size:16px;margin-right:8px}header a{color:#d8e4ff;text-decoration:none}\
        header a:hover{text-decoration:underline}header form{margin-left:auto}main{max-width:1120px;margin:0 auto;padding:16px}\
        h1{font-size:22px;margin:4px 0 14px}h2{font-size:17px;margin:22px 0 8px}section{background:#fff;border:1px solid #dde3ea;\
        border-radius:8px;padding:12px 14px;margin-bottom:14px}.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%}\
        th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e6ebf0;vertical-align:top}th{font-size:13px;color:#56657a;\
        font-weight:600;white-space:nowrap}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}\
        code,.mono{font-family:"DejaVu Sans Mono",ui-monospace,monospace;font-size:13px;overflow-wrap:anywhere}\
        td code,td a.mono{white-space:nowrap}\
        .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px}.card{background:#fff;\
        border:1px solid #dde3ea;border-radius:8px;padding:10px 12px}.card .v{font-size:24px;font-weight:650}.card .k{color:#56657a;\
        font-size:13px}.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12.5px;font-weight:600;\
        background:#e6ebf0;color:#334}.s-ready{background:#d8f3df;color:#125c2b}.s-failed{background:#fde0dd;color:#8a1c12}\
        .s-queued{background:#fff1c9;color:#6b4d00}.s-transcoding{background:#dbe8ff;color:#163f8a}.s-uploading{background:#ece6ff;\
        color:#43308a}form.filters{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-end}label{display:flex;flex-direction:column;\
        font-size:13px;color:#56657a;gap:2px}input,select{font:inherit;padding:6px 8px;border:1px solid #b9c3cf;border-radius:6px;\
        background:#fff;min-width:0}button,.button{font:inherit;padding:7px 14px;border-radius:6px;border:1px solid #2f5fb3;\
        background:#2f6bd1;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}button.secondary,.button.secondary{\
        background:#fff;color:#2f5fb3}button.danger{background:#c23b2e;border-color:#9d2b20}header button{padding:3px 10px;\
        background:transparent;border-color:#8da2c4;color:#fff}.actions{display:flex;flex-wrap:wrap;gap:8px}.notice{padding:10px 12px;\
        border-radius:8px;margin-bottom:14px;background:#e3f4e8;border:1px solid #b6dfc2}.error{background:#fde9e7;border-color:#f1bbb5}\
        .thumbs{display:flex;flex-wrap:wrap;gap:8px}.thumbs figure{margin:0;font-size:12px;color:#56657a}.thumbs img{display:block;\
        max-width:220px;width:100%;height:auto;border:1px solid #dde3ea;border-radius:6px;background:#fff}dl{display:grid;\
        grid-template-columns:max-content 1fr;gap:4px 14px;margin:0}dt{color:#56657a}dd{margin:0;word-break:break-word}\
        .muted{color:#6a778a}.signin{max-width:380px;margin:60px auto}.signin input{width:100%}td pre{min-width:18em}pre{white-space:pre-wrap;\
        word-break:break-word;margin:0;font-size:12.5px}@media (max-width:600px){main{padding:10px}th,td{padding:5px}h1{font-size:19px}}
        """

    /// `text` escaped for HTML; nil is an em dash.
    static func esc(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "—" }
        return HTMLText.escape(text)
    }

    /// What the header shows when signed in: the CSRF token for the sign-out form.
    struct Navigation {
        var csrf: String?
    }

    /// A whole page as an answer. `body` is HTML.
    static func response(status: Int = 200, title: String, body: String, navigation: Navigation?,
                         headers: [(String, String)] = []) -> HTTPServerResponse {
        var nav = ""
        if let navigation {
            nav = """
                <a href="/console">Overview</a><a href="/console/versions">Versions</a>\
                <a href="/console/versions?status=failed">Failed</a><a href="/console/batch">Batch re-transcode</a>
                """
            if let csrf = navigation.csrf {
                nav += """
                    <form method="post" action="/console/sign-out"><input type="hidden" name="csrf" value="\(esc(csrf))">\
                    <button type="submit">Sign out</button></form>
                    """
            }
        }
        let html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(esc(title)) · transcode console</title><style>\(css)</style></head>
            <body><header><b>transcode console</b>\(nav)</header><main>
            \(body)
            </main></body></html>
            """
        return HTTPServerResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")] + securityHeaders + headers,
                                  body: Array(html.utf8))
    }

    /// A `303 See Other` to `location` (a path on this server).
    static func redirect(_ location: String, headers: [(String, String)] = []) -> HTTPServerResponse {
        HTTPServerResponse(status: 303, headers: [("Location", location), ("Content-Type", "text/plain")] + securityHeaders + headers,
                           body: Array("See \(location)\n".utf8))
    }

    /// A table; `rows` are HTML cells, columns whose header starts with `#` are numeric.
    static func table(_ headers: [String], _ rows: [[String]], empty: String = "Nothing here.") -> String {
        guard !rows.isEmpty else { return "<p class=\"muted\">\(esc(empty))</p>" }
        let head = headers.map { h in
            h.hasPrefix("#") ? "<th class=\"num\">\(esc(String(h.dropFirst())))</th>" : "<th>\(esc(h))</th>"
        }.joined()
        let numeric = headers.map { $0.hasPrefix("#") }
        let body = rows.map { row in
            "<tr>" + row.enumerated().map { i, cell in
                i < numeric.count && numeric[i] ? "<td class=\"num\">\(cell)</td>" : "<td>\(cell)</td>"
            }.joined() + "</tr>"
        }.joined(separator: "\n")
        return "<div class=\"scroll\"><table><thead><tr>\(head)</tr></thead><tbody>\n\(body)\n</tbody></table></div>"
    }

    /// A status badge.
    static func badge(_ status: String?) -> String {
        let s = status ?? "unknown"
        let known = ["ready", "failed", "queued", "transcoding", "uploading"].contains(s)
        return "<span class=\"badge\(known ? " s-\(s)" : "")\">\(esc(s))</span>"
    }

    /// A hidden CSRF field, or nothing for a bearer-authenticated request.
    static func csrfField(_ csrf: String?) -> String {
        csrf.map { "<input type=\"hidden\" name=\"csrf\" value=\"\(esc($0))\">" } ?? ""
    }

    /// A seconds count for people: `42 s`, `7 min`, `3.5 h`, `2.1 d`.
    static func age(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite else { return "—" }
        if seconds < 90 { return "\(Int(seconds.rounded())) s" }
        if seconds < 5400 { return "\(Int((seconds / 60).rounded())) min" }
        if seconds < 129_600 { return "\(Double(Int(seconds / 360)) / 10) h" }
        return "\(Double(Int(seconds / 8640)) / 10) d"
    }
}
