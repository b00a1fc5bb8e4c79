/// The Supabase project the worker talks to in Supabase mode (`SUPABASE_URL` and
/// `SUPABASE_SERVICE_KEY`): where progress broadcasts and the `transcode-done` Edge Function live,
/// and the headers that authenticate the worker to them.
///
/// Keys: a new-style secret key (`sb_secret_…`) is not a JWT, so it is sent only in `apikey`; a
/// legacy `service_role` key is a JWT and is sent in both `apikey` and `Authorization: Bearer`
/// (worker-contracts §B.1). Value type; holds the key in memory only.
public struct SupabaseEndpoints: Sendable, Equatable {
    /// The project URL without a trailing slash, e.g. `https://abcd.supabase.co` or
    /// `http://127.0.0.1:54321`.
    public let baseURL: String
    public let serviceKey: String

    /// Nil unless `url` is an absolute http(s) URL with a host and `serviceKey` is not empty.
    public init?(url: String, serviceKey: String) {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        let lower = base.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"),
              base.split(separator: "/", omittingEmptySubsequences: true).count >= 2,
              !serviceKey.isEmpty, !serviceKey.contains(where: { $0.isNewline || $0 == "\0" })
        else { return nil }
        baseURL = base
        self.serviceKey = serviceKey
    }

    /// The origin of an absolute http(s) URL as `scheme://host:port`: scheme and host
    /// lower-cased, the port explicit (80 for http, 443 for https when absent), user information
    /// dropped, an IPv6 host kept in brackets. Nil for anything else (no host, another scheme, a
    /// malformed port).
    public static func origin(of url: String) -> String? {
        guard let sep = url.range(of: "://") else { return nil }
        let scheme = url[..<sep.lowerBound].lowercased()
        let defaultPort: Int
        switch scheme {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        default: return nil
        }
        let rest = url[sep.upperBound...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = Substring(authority)
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "\\" }) else { return nil }
        var port = defaultPort
        if let portText, !portText.isEmpty {
            guard portText.allSatisfy(\.isASCII), let p = Int(portText), p > 0, p <= 65535 else { return nil }
            port = p
        }
        var lowered = host.lowercased()
        while lowered.hasSuffix(".") { lowered.removeLast() }
        return "\(scheme)://\(lowered):\(port)"
    }

    /// True when `url` has this project's origin (scheme, host and port, compared after
    /// normalising case and default ports): only such URLs may receive the service key.
    public func isSameOrigin(_ url: String) -> Bool {
        guard let mine = Self.origin(of: baseURL), let theirs = Self.origin(of: url) else { return false }
        return mine == theirs
    }

    /// Realtime's REST broadcast endpoint.
    public var broadcastURL: String { baseURL + "/realtime/v1/api/broadcast" }

    /// The `transcode-done` Edge Function.
    public var transcodeDoneURL: String { baseURL + "/functions/v1/transcode-done" }

    /// True for a JWT (three base64url parts), as the legacy `service_role` key is.
    public static func isJWT(_ key: String) -> Bool {
        let parts = key.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3 && parts.allSatisfy { !$0.isEmpty } && key.hasPrefix("eyJ")
    }

    /// `apikey` always; `Authorization: Bearer` with `bearer` when given, otherwise with the
    /// service key when it is a JWT.
    public func authHeaders(bearer: String? = nil) -> [(String, String)] {
        var headers = [("apikey", serviceKey)]
        if let bearer {
            headers.append(("Authorization", "Bearer \(bearer)"))
        } else if Self.isJWT(serviceKey) {
            headers.append(("Authorization", "Bearer \(serviceKey)"))
        }
        return headers
    }
}
