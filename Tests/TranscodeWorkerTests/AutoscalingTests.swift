import Foundation
import Testing
@testable import PGQueue
@testable import WorkerRuntime
import TestSupport

/// Autoscaling on the queue: the demand KEDA and the HPA scale on, counted by one indexed
/// statement that the manifests repeat, and the gauges and dashboard over the worker's metrics.
@Suite("Autoscaling on queue demand", .enabled(if: postgresConfigured))
struct AutoscalingTests {
    static let deploy = TestPaths.packageRoot.appendingPathComponent("deploy")

    @Test func demandCountsRunnableAndRunningVersionsOnly() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let room = QueueKit.newID()
        try QueueKit.insert(c, room: room)
        try QueueKit.insert(c, room: room)
        try QueueKit.insert(c, room: room, runAfterSeconds: 600)  // waiting out a backoff: no replica can take it
        for status in ["ready", "ready", "failed", "uploading"] { try QueueKit.insert(c, room: room, status: status) }
        let reprocess = try QueueKit.insert(c, room: room, status: "ready")
        try c.query("UPDATE transcode_private.room_versions SET reprocess_requested_at = now() WHERE id = $1::uuid", [reprocess])
        #expect(try store.demand() == 3)
        let job = try #require(try store.claim(workerId: "tw-a", leaseSeconds: 60))
        #expect(try store.demand() == 3, "a claimed version still needs its slot")
        _ = job
        #expect(try store.status().demand == 3)
    }

    @Test func demandIsAnsweredByThePartialIndexes() throws {
        let (db, c, _) = try QueueKit.open()
        defer { db.drop() }
        try c.query("SET enable_seqscan = off")
        let plan = try c.query("EXPLAIN " + QueueStore.demandSQL).compactMap { $0["QUERY PLAN"] }.joined(separator: "\n")
        #expect(plan.contains("room_versions_claimable_idx"), "\(plan)")
        #expect(plan.contains("room_versions_leased_idx"), "\(plan)")
        #expect(!plan.contains("Seq Scan"), "\(plan)")
    }

    @Test func theManifestsScaleOnTheSameStatementAndMetric() throws {
        let keda = try String(contentsOf: Self.deploy.appendingPathComponent("kubernetes/keda-scaledobject.yaml"), encoding: .utf8)
        let line = try #require(keda.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("query:") })
        let query = line.trimmingCharacters(in: .whitespaces).dropFirst("query:".count).trimmingCharacters(in: .whitespaces)
        #expect(query == "\"" + QueueStore.demandSQL.trimmingCharacters(in: .whitespacesAndNewlines) + "\"")
        #expect(keda.contains("targetQueryValue: \"2\"") && keda.contains("activationTargetQueryValue: \"0\""))
        #expect(keda.contains("connectionFromEnv: DATABASE_URL"))
        // The cooldown outlasts the pod's drain time.
        let deployment = try String(contentsOf: Self.deploy.appendingPathComponent("kubernetes/deployment.yaml"), encoding: .utf8)
        func number(_ text: String, _ key: String) -> Int? {
            text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(key + ":") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
        }
        let drain = try #require(number(deployment, "terminationGracePeriodSeconds"))
        #expect(try #require(number(keda, "cooldownPeriod")) > drain)
        let hpa = try String(contentsOf: Self.deploy.appendingPathComponent("kubernetes/hpa-prometheus.yaml"), encoding: .utf8)
        #expect(hpa.contains("name: transcode_queue_demand") && hpa.contains("averageValue: \"2\""))
        #expect(try #require(number(hpa, "stabilizationWindowSeconds")) > drain)
    }

    @Test func theDashboardChartsOnlyMetricsTheWorkerExports() throws {
        let metrics = Metrics()
        metrics.recordQueue(QueueStatus(counts: ["queued": 4], waiting: 4, reprocessWaiting: 0, inFlight: 1, expiredLeases: 0,
                                        oldestQueuedSeconds: 12, leases: [], recentFailures: [], failureWindowHours: 24, demand: 5),
                            now: 1)
        metrics.jobFinished(outcome: "failed", reason: "USD_INVALID")
        metrics.observePhase("parsing", seconds: 0.2)
        metrics.setInFlight(1)
        let text = metrics.render()
        #expect(text.contains("transcode_queue_demand 5\n") && text.contains("transcode_queue_oldest_age_seconds 12\n"))
        let exported = Set(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(whereSeparator: { $0 == "{" || $0 == " " }).first.map(String.init)
        })
        let data = try Data(contentsOf: Self.deploy.appendingPathComponent("grafana/transcode-worker.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let exprs = (dashboard["panels"] as? [[String: Any]] ?? []).flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        #expect(exprs.count >= 6)
        for e in exprs {
            let names = e.split(whereSeparator: { !($0.isLetter || $0 == "_") }).map(String.init).filter { $0.hasPrefix("transcode_") }
            #expect(!names.isEmpty, "\(e)")
            for n in names { #expect(exported.contains(n), "\(n) is not on /metrics") }
        }
    }
}
