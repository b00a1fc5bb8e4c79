import WorkerCore

/// Where and how a version's completion is reported: the Supabase project, `transcode-done`'s URL
/// and its authentication headers.
extension WorkerConfig {
    /// The Supabase project in Supabase mode (nil otherwise). Throws `UsageError` when only one of
    /// `SUPABASE_URL` and `SUPABASE_SERVICE_KEY` is set or the URL is not an http(s) URL.
    func supabaseEndpoints() throws -> SupabaseEndpoints? {
        switch (supabaseURL, supabaseServiceKey) {
        case (nil, nil): return nil
        case (nil, _): throw UsageError("SUPABASE_SERVICE_KEY is set but SUPABASE_URL is not")
        case (_, nil): throw UsageError("SUPABASE_URL is set but SUPABASE_SERVICE_KEY is not")
        case (let url?, let key?):
            guard let endpoints = SupabaseEndpoints(url: url, serviceKey: key) else {
                throw UsageError("SUPABASE_URL needs an absolute http(s) URL such as https://<ref>.supabase.co")
            }
            return endpoints
        }
    }

    /// Where versions are finalized: `TRANSCODE_DONE_URL`, else the Supabase project's
    /// `transcode-done`, else nil (in SQL).
    var completionURL: String? {
        doneURL ?? (try? supabaseEndpoints())??.transcodeDoneURL
    }

    /// The authentication headers of `transcode-done` calls. In Supabase mode, when
    /// `completionURL` is on `SUPABASE_URL`'s origin: `apikey` with the service key and
    /// `Authorization: Bearer` with `TRANSCODE_DONE_SECRET` (or the service key when it is a
    /// legacy JWT). Otherwise (no Supabase mode, or a `TRANSCODE_DONE_URL` on another origin, which
    /// must never see the service key) both carry `TRANSCODE_DONE_SECRET` when set.
    var completionHeaders: [(String, String)] {
        if let endpoints = try? supabaseEndpoints(), let url = completionURL, endpoints.isSameOrigin(url) {
            return endpoints.authHeaders(bearer: doneSecret)
        }
        guard let doneSecret else { return [] }
        return [("Authorization", "Bearer \(doneSecret)"), ("apikey", doneSecret)]
    }
}
