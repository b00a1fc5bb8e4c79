import Foundation
import Testing
import TestSupport
@testable import WorkerRuntime

/// The Kubernetes manifests in `deploy/kubernetes/` are the setting the security tests run
/// (`HostileChildTests`: a non-root worker under a seccomp profile that refuses new namespaces, as
/// `RuntimeDefault` does): S3 storage instead of a volume inside the pod, the sandbox required,
/// disk limits per job, and a network policy without the metadata address. Read with PyYAML,
/// as `kubectl` would read them, and every setting parsed by the worker's own strict parser.
@Suite("Shipped Kubernetes deployment")
struct ShippedDeploymentTests {
    /// Every document of `deploy/kubernetes/<name>`, as JSON objects.
    static func documents(_ name: String) throws -> [[String: Any]] {
        let path = TestPaths.packageRoot.appendingPathComponent("deploy/kubernetes/" + name).path
        let script = "import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(open(sys.argv[1])) if d]))"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 with PyYAML could not read \(name)")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    @Test func theConfigMapIsS3TheSandboxRequiredAndEveryValueParses() throws {
        let map = try #require(try Self.documents("configmap.yaml").first)
        let data = try #require(map["data"] as? [String: String])
        #expect(data["TRANSCODE_STORAGE_URL"]?.hasPrefix("s3://") == true, "storage is not S3")
        #expect(data["TRANSCODE_CHILD_SANDBOX"] == "require")
        #expect(WorkerConfig.unknownVariables(data).isEmpty, "unknown settings: \(WorkerConfig.unknownVariables(data))")
        let config = WorkerConfig(environment: data)
        try config.validate()
        #expect(config.childSandbox == .require)
        // Two jobs' disk fits the pod's /tmp volume (2 GiB in deployment.yaml).
        #expect(config.concurrency * config.jobDiskMB <= 2048)
        #expect(config.concurrency * config.childMemoryMB < 4096)
    }

    @Test func thePodRunsAsTheTestsDoAndMountsNoStorage() throws {
        let deployment = try #require(try Self.documents("deployment.yaml").first)
        let pod = try #require((deployment["spec"] as? [String: Any])?["template"] as? [String: Any])
        let spec = try #require(pod["spec"] as? [String: Any])
        let security = try #require(spec["securityContext"] as? [String: Any])
        #expect(security["runAsNonRoot"] as? Bool == true)
        #expect((security["runAsUser"] as? Int).map { $0 != 0 } == true)
        #expect((security["seccompProfile"] as? [String: Any])?["type"] as? String == "RuntimeDefault")
        #expect(spec["automountServiceAccountToken"] as? Bool == false)
        let container = try #require((spec["containers"] as? [[String: Any]])?.first)
        let own = try #require(container["securityContext"] as? [String: Any])
        #expect(own["allowPrivilegeEscalation"] as? Bool == false)
        #expect(own["readOnlyRootFilesystem"] as? Bool == true)
        #expect((own["capabilities"] as? [String: Any])?["drop"] as? [String] == ["ALL"])
        // No volume but emptyDir: no shared store, no host path inside the pod.
        for volume in spec["volumes"] as? [[String: Any]] ?? [] {
            #expect(Set(volume.keys) == ["name", "emptyDir"], "volume \(volume["name"] ?? "?") is not an emptyDir")
        }
    }

    @Test func theNetworkPolicyAllowsOnlyDNSTheDatabaseAndHTTPSAndNeverTheMetadataAddress() throws {
        let policy = try #require(try Self.documents("networkpolicy.yaml").first)
        #expect(policy["kind"] as? String == "NetworkPolicy")
        let spec = try #require(policy["spec"] as? [String: Any])
        #expect(Set(spec["policyTypes"] as? [String] ?? []) == ["Ingress", "Egress"])
        let selector = (spec["podSelector"] as? [String: Any])?["matchLabels"] as? [String: String]
        #expect(selector == ["app.kubernetes.io/name": "transcode-worker"])
        var ports: Set<Int> = []
        for rule in try #require(spec["egress"] as? [[String: Any]]) {
            for port in rule["ports"] as? [[String: Any]] ?? [] { ports.insert(port["port"] as? Int ?? -1) }
            for peer in rule["to"] as? [[String: Any]] ?? [] {
                guard let block = peer["ipBlock"] as? [String: Any], let cidr = block["cidr"] as? String else { continue }
                let except = block["except"] as? [String] ?? []
                // 169.254.169.254 lies in every block that starts at 0.0.0.0/…; it must be cut out.
                if cidr.hasPrefix("0.0.0.0/") || cidr.hasPrefix("169.254.") {
                    #expect(except.contains("169.254.0.0/16"), "\(cidr) reaches the metadata address")
                    #expect(except.contains("10.0.0.0/8") && except.contains("172.16.0.0/12") && except.contains("192.168.0.0/16"))
                }
            }
        }
        #expect(ports == [53, 5432, 6543, 443], "egress ports \(ports.sorted())")
    }
}
