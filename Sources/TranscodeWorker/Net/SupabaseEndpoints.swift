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
