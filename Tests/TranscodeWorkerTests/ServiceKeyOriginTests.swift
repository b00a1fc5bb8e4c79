import Foundation
import Testing
import TestSupport
@testable import TranscodeWorker
@testable import WorkerRuntime

/// The Supabase service key goes to `SUPABASE_URL`'s origin only; a `TRANSCODE_DONE_URL` on
/// another origin gets the done secret and nothing else.
@Suite("Service key only to the Supabase origin")
struct ServiceKeyOriginTests {
    static let serviceKey = "sb_secret_origin-test-0123456789abcdef"
    static let legacyKey = "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.c2lnbmF0dXJlLW9mLXRoZS1rZXk"
    static let doneSecret = "origin-test-done-secret-0123456789abcdef"

    @Test func originsAreComparedAfterNormalisingCaseAndDefaultPorts() {
        #expect(SupabaseEndpoints.origin(of: "HTTPS://Abcd.Supabase.CO/") == "https://abcd.supabase.co:443")
        #expect(SupabaseEndpoints.origin(of: "https://abcd.supabase.co:443/functions/v1/x?y#z") == "https://abcd.supabase.co:443")
        #expect(SupabaseEndpoints.origin(of: "http://127.0.0.1/x") == "http://127.0.0.1:80")
        #expect(SupabaseEndpoints.origin(of: "http://user:pw@127.0.0.1:8080/x") == "http://127.0.0.1:8080")
        #expect(SupabaseEndpoints.origin(of: "http://[::1]:9/x") == "http://[::1]:9")
        for bad in ["ftp://h/x", "//h/x", "http:///x", "http://h:0/", "http://h:99999/", "http://h:8o/", "abcd.supabase.co"] {
            #expect(SupabaseEndpoints.origin(of: bad) == nil, "\(bad)")
        }
        let project = SupabaseEndpoints(url: "https://abcd.supabase.co", serviceKey: Self.serviceKey)!
        #expect(project.isSameOrigin("https://ABCD.supabase.co:443/functions/v1/transcode-done"))
        #expect(!project.isSameOrigin("http://abcd.supabase.co/functions/v1/transcode-done"))
        #expect(!project.isSameOrigin("https://abcd.supabase.co:8443/functions/v1/transcode-done"))
        #expect(!project.isSameOrigin("https://abcd.supabase.co.evil.example/functions/v1/transcode-done"))
        #expect(!project.isSameOrigin("https://evil.example/?https://abcd.supabase.co"))
        #expect(!project.isSameOrigin("https://abcd.supabase.co@evil.example/"))
    }

    @Test func completionHeadersForAnotherOriginCarryOnlyTheDoneSecret() {
        for key in [Self.serviceKey, Self.legacyKey] {
            let env = ["SUPABASE_URL": "http://127.0.0.1:54321", "SUPABASE_SERVICE_KEY": key,
                       "TRANSCODE_DONE_SECRET": Self.doneSecret]
            let same = WorkerConfig(environment: env.merging(["TRANSCODE_DONE_URL": "HTTP://127.0.0.1:54321/functions/v1/other"]) { a, _ in a })
            #expect(same.completionHeaders.contains { $0.1 == key }, "same origin: the project's key")
            for other in ["http://127.0.0.1:54322/functions/v1/transcode-done", "https://127.0.0.1:54321/functions/v1/transcode-done",
                          "http://localhost:54321/functions/v1/transcode-done"] {
                let c = WorkerConfig(environment: env.merging(["TRANSCODE_DONE_URL": other]) { a, _ in a })
                #expect(c.completionHeaders.map { "\($0.0): \($0.1)" }
                        == ["Authorization: Bearer \(Self.doneSecret)", "apikey: \(Self.doneSecret)"], "\(other)")
            }
            var noSecret = WorkerConfig(environment: env.merging(["TRANSCODE_DONE_URL": "http://127.0.0.1:1/done"]) { a, _ in a })
            noSecret.doneSecret = nil
            #expect(noSecret.completionHeaders.isEmpty)
        }
    }

    /// Every header value and body a server received, searched for the key.
    static func leaks(_ requests: [RecordedRequest], _ secret: String) -> Bool {
        requests.contains { r in
            r.headerFields.contains { $0.value.contains(secret) } || String(decoding: r.body, as: UTF8.self).contains(secret)
                || r.path.contains(secret)
        }
    }

    @Test(.enabled(if: postgresConfigured))
    func aJobNeverSendsTheServiceKeyToAnotherOrigin() throws {
        for key in [Self.serviceKey, Self.legacyKey] {
            let f = try JobFixture()
            // The Supabase project (Realtime broadcasts) and a transcode-done on another port.
            let project = try LoopbackHTTPServer { _ in (202, [], []) }
            let other = try LoopbackHTTPServer { _ in (200, [], Array("{\"ok\":true}".utf8)) }
            defer { project.stop(); other.stop() }
            f.config.supabaseURL = project.baseURL
            f.config.supabaseServiceKey = key
            f.config.doneURL = other.url("/functions/v1/transcode-done")
            f.config.doneSecret = Self.doneSecret
            try f.config.validate()

            // A successful job (progress broadcasts, a ready report) and a failing one.
            _ = try f.submitSample()
            let outcome = f.runner().run(try f.claim(), control: JobControl())
            guard case .ready = outcome else {
                Issue.record("expected ready, got \(outcome)")
                return
            }
            let sample = try JobFixture.sample(JobFixture.sampleUSDZ)
            _ = try f.submit(usd: Array(sample.prefix(200)), json: nil)
            #expect(f.runner().run(try f.claim(), control: JobControl()) == .failed(reason: "USDZ_PARSE_ERROR"))

            let reports = other.requests
            #expect(reports.count == 2)
            #expect(!Self.leaks(reports, key), "the other origin saw the service key")
            for r in reports {
                #expect(r.headers["authorization"] == "Bearer \(Self.doneSecret)")
                #expect(r.headers["apikey"] == Self.doneSecret)
            }
            let broadcasts = project.requests
            #expect(!broadcasts.isEmpty)
            #expect(broadcasts.allSatisfy { $0.path == "/realtime/v1/api/broadcast" && $0.headers["apikey"] == key })
            #expect(!Self.leaks(broadcasts, Self.doneSecret), "broadcasts do not carry the done secret")
        }
    }
}
