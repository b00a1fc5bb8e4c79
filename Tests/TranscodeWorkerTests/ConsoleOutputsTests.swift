import Foundation
import Testing
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime

/// The console's overview, batch re-transcode and output files (served only from the version's
/// own output root).
@Suite("Operator console: overview, batch and outputs", .enabled(if: postgresConfigured), .serialized)
struct ConsoleOutputsTests {
    typealias H = ConsoleHarness

    @Test func theOverviewCountsStatusesThroughputLeasesAndReasons() throws {
        let h = try H()
        defer { h.close() }
        for _ in 0..<3 { try h.insert(status: "ready") }
        let (_, failed) = try h.insert(status: "failed", reason: "USDZ_PARSE_ERROR", message: "x")
        let (_, running) = try h.insert(status: "queued")
        try h.connection.query("""
            UPDATE transcode_private.room_versions SET status = 'transcoding', lease_id = gen_random_uuid(), locked_by = 'tw-overview-7',
              locked_at = now(), lease_expires_at = now() + interval '1 minute', attempt = 2 WHERE id = $1::uuid
            """, [running])
        for (outcome, age) in [("ready", "10 minutes"), ("ready", "3 hours"), ("failed", "20 minutes"), ("retried", "2 days")] {
            try h.connection.query("""
                INSERT INTO transcode_attempts (version_id, attempt, started_at, finished_at, outcome)
                VALUES ($1::uuid, 1, now() - $2::interval, now() - $2::interval, $3)
                """, [failed, age, outcome])
        }
        let page = H.text(try h.send("GET", "/console", headers: [("Authorization", "Bearer \(H.token)")]))
        #expect(page.contains("<div class=\"v\">3</div><div class=\"k\"><span class=\"badge s-ready\">"))
        // Last hour: 1 ready, 1 failed (50 %); last day: 2 ready, 1 failed; the 2-day-old retry is out.
        #expect(page.contains("<td>last hour</td><td class=\"num\">1</td><td class=\"num\">1</td><td class=\"num\">0</td><td class=\"num\">50.0 %</td>"))
        #expect(page.contains("<td>last day</td><td class=\"num\">2</td><td class=\"num\">1</td><td class=\"num\">0</td><td class=\"num\">33.3 %</td>"))
        #expect(page.contains("tw-overview-7"))
        #expect(page.contains("href=\"/console/versions?reason=USDZ_PARSE_ERROR\""))
    }

    @Test func aBatchIsConfirmedThenMarkedAndItsProgressShown() throws {
        let h = try H()
        defer { h.close() }
        let cookie = try h.signIn(), csrf = try h.csrf(cookie)
        for _ in 0..<3 { try h.insert(status: "ready", schema: 2) }
        try h.insert(status: "ready", schema: 4)
        let confirm = H.text(try h.send("GET", "/console/batch/confirm?below=4&limit=100", cookie: cookie))
        #expect(confirm.contains("Re-transcode 3 versions?"))
        #expect(try h.connection.query("SELECT count(*) AS n FROM transcode_private.room_versions WHERE reprocess_requested_at IS NOT NULL").first?.int("n") == 0)
        #expect(try h.send("POST", "/console/batch", form: [("below", "4"), ("limit", "2")], cookie: cookie).status == 403)
        let marked = try h.send("POST", "/console/batch", form: [("csrf", csrf), ("below", "4"), ("limit", "2")], cookie: cookie)
        #expect(marked.headers["location"] == "/console/batch?below=4&marked=2")
        let progress = H.text(try h.send("GET", "/console/batch?below=4&marked=2", cookie: cookie))
        #expect(progress.contains("2 versions marked"))
        #expect(progress.contains("<div class=\"v\">2</div><div class=\"k\">marked, waiting</div>"))
        #expect(progress.contains("<div class=\"v\">1</div><div class=\"k\">below 4, not marked</div>"))
        #expect(progress.contains("http-equiv=\"refresh\""))
        for bad in ["below=0", "below=abc", "below=4&limit=0", "below=4&limit=100000"] {
            #expect(try h.send("GET", "/console/batch?\(bad)", cookie: cookie).status == 400, "\(bad)")
        }
        #expect(H.text(try h.send("GET", "/console/batch", cookie: cookie)).contains("value=\"4\""), "defaults to the worker's schema")
    }

    @Test func outputsAreServedOnlyFromTheVersionsOwnOutputRoot() throws {
        let h = try H()
        defer { h.close() }
        let cookie = try h.signIn()
        let (room, version) = try h.insert(status: "ready")
        let dir = "rooms/\(room)/versions/\(version)/r1-0a0b0c0d/"
        let hero: [UInt8] = Array("RIFF....WEBPVP8 fake".utf8)
        try h.store.put(dir + "thumbs/hero.webp", bytes: hero, contentType: "image/webp")
        try h.store.put(dir + "model.glb", bytes: Array("glTF".utf8), contentType: "model/gltf-binary")
        try h.store.put(dir + "layer_manifest.json", bytes: Array("{}".utf8), contentType: "application/json")
        try h.store.put(dir + "report.html", bytes: Array("<!DOCTYPE html><script>alert(1)</script>".utf8), contentType: "text/plain")
        let page = H.text(try h.send("GET", "/console/versions/\(version)", cookie: cookie))
        #expect(page.contains("<img src=\"/console/versions/\(version)/files/thumbs/hero.webp\""))
        #expect(page.contains("href=\"/console/versions/\(version)/files/report.html\">Open the conversion report"))
        let report = try h.send("GET", "/console/versions/\(version)/files/report.html", cookie: cookie)
        #expect(report.headers["content-type"] == "text/html; charset=utf-8")
        #expect(report.headers["content-security-policy"]?.hasPrefix("sandbox;") == true, "scripts in the report never run")
        #expect(report.headers["content-disposition"]?.hasPrefix("inline") == true)
        #expect(page.contains("href=\"/console/versions/\(version)/files/model.glb\">model.glb</a>"))
        let image = try h.send("GET", "/console/versions/\(version)/files/thumbs/hero.webp", cookie: cookie)
        #expect(image.status == 200)
        #expect(image.body == hero)
        #expect(image.headers["content-type"] == "image/webp")
        #expect(image.headers["content-security-policy"]?.hasPrefix("sandbox") == true)
        let model = try h.send("GET", "/console/versions/\(version)/files/model.glb", cookie: cookie)
        #expect(model.headers["content-disposition"] == "attachment; filename=\"model.glb\"")
        #expect(try h.send("GET", "/console/versions/\(version)/files/model.glb").status == 303, "files need a sign-in")
        for bad in ["../../other.glb", "secret.txt", "thumbs%2F..%2Fmodel.glb", "thumbs/a.webp%00.glb", "plan.svg"] {
            #expect(try h.send("GET", "/console/versions/\(version)/files/\(bad)", cookie: cookie).status == 404, "\(bad)")
        }

        // A hostile row pointing at another room's outputs is not served.
        let (otherRoom, otherVersion) = try h.insert(status: "ready")
        let otherDir = "rooms/\(otherRoom)/versions/\(otherVersion)/r1-0a0b0c0d/"
        try h.store.put(otherDir + "model.glb", bytes: Array("other".utf8), contentType: "model/gltf-binary")
        try h.connection.query("UPDATE transcode_private.room_versions SET manifest_path = $2 WHERE id = $1::uuid", [version, otherDir + "layer_manifest.json"])
        let refused = try h.send("GET", "/console/versions/\(version)/files/model.glb", cookie: cookie)
        #expect(refused.status == 404)
        #expect(!H.text(refused).contains("other"))
        #expect(H.text(try h.send("GET", "/console/versions/\(version)", cookie: cookie)).contains("not below this version"))
        // A row naming another bucket is not served either.
        try h.connection.query("UPDATE transcode_private.room_versions SET manifest_path = $2, output_bucket = 'elsewhere' WHERE id = $1::uuid",
                               [version, dir + "layer_manifest.json"])
        #expect(try h.send("GET", "/console/versions/\(version)/files/model.glb", cookie: cookie).status == 404)
    }

    @Test func withoutAnAPITokenTheConsoleIsOff() throws {
        let h = try H(token: nil)
        defer { h.close() }
        let r = try h.send("GET", "/console")
        #expect(r.status == 503)
        #expect(H.text(r).contains("TRANSCODE_API_TOKEN"))
        #expect(try h.send("POST", "/console/sign-in", form: [("token", "")]).status == 503)
    }
}
