import Foundation
import ObjectStorage
import WorkerHTTP
import WorkerRuntime
import WorkerCore

/// `transcode-worker probe [livez|readyz]`: asks a running worker's HTTP server whether it is
/// alive or ready, for container health checks in images that have no HTTP client.
struct ProbeCommand {
    static let help = """
        USAGE: transcode-worker probe [livez|readyz] [--http-addr HOST:PORT] [--timeout SECONDS]

        GETs /livez (default) or /readyz from the worker's HTTP server on this machine and exits 0
        when it answers 200, 1 otherwise (an unhealthy answer, a refused connection, a timeout).
        Prints the answer's status and body. For Docker's HEALTHCHECK and exec probes.

        OPTIONS:
          --http-addr HOST:PORT     The server's address (default: TRANSCODE_HTTP_ADDR, else
                                    0.0.0.0:8080; a 0.0.0.0 host is asked on 127.0.0.1).
          --timeout SECONDS         How long to wait for the answer (default 3).

        EXIT STATUS: 0 healthy, 1 not healthy, 2 usage error.
        """

    /// Exit status of an unhealthy answer (what health checks expect).
    static let unhealthy: Int32 = 1

    var path = "/livez"
    var host = "127.0.0.1"
    var port: UInt16 = 8080
    var timeout = 3.0

    init(_ args: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        var address = environment["TRANSCODE_HTTP_ADDR"].flatMap { $0.isEmpty ? nil : $0 } ?? "0.0.0.0:8080"
        var it = args.makeIterator()
        while let a = it.next() {
            switch a {
            case "livez", "readyz": path = "/" + a
            case "--http-addr":
                guard let v = it.next() else { throw UsageError("--http-addr needs HOST:PORT") }
                address = v
            case "--timeout":
                guard let v = it.next(), let t = Double(v), t > 0, t <= 300 else {
                    throw UsageError("--timeout needs seconds from 0 to 300")
                }
                timeout = t
            case "-h", "--help": throw UsageError.helpRequested
            default: throw UsageError("unknown argument \(a)")
            }
        }
        guard address != "off", let parsed = HTTPServer.parse(address: address), parsed.port != 0 else {
            throw UsageError("probe needs the server's HOST:PORT (TRANSCODE_HTTP_ADDR is '\(address)')")
        }
        host = parsed.host == "0.0.0.0" ? "127.0.0.1" : parsed.host
        port = parsed.port
    }

    func run() -> Int32 {
        let url = "http://\(host):\(port)\(path)"
        do {
            let response = try HTTPClient(maxResponseBytes: 4096).send(HTTPRequest(method: "GET", url: url, timeout: timeout))
            let body = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            RawOutput.write("\(response.status) \(body)\n", to: 1)
            return response.status == 200 ? ExitStatus.ok : Self.unhealthy
        } catch {
            RawOutput.write("\(url): \(error.description)\n", to: 2)
            return Self.unhealthy
        }
    }
}
