import Foundation
import JSONCore
import WorkerRuntime
import WorkerCore

/// `transcode-worker errors [--markdown | --json]`: every stable error code and failure reason.
struct ErrorsCommand {
    static let help = """
        USAGE: transcode-worker errors [--markdown | --json]

        Lists every failure reason (what a version's failed event and row carry) and every detailed
        error code (what leads the row's message and what convert prints), with the module that
        raises it, whether trying again can help, and what it means.

        OPTIONS:
          --markdown                The reference page docs/errors.md is generated from.
          --json                    {"reasons": [{code, module, retryable, meaning}…], "codes": […]}

        EXIT STATUS: 0, or 2 for a usage error.
        """

    enum Format { case text, markdown, json }
    var format = Format.text

    init(_ args: [String]) throws {
        for a in args {
            switch a {
            case "--markdown": format = .markdown
            case "--json": format = .json
            case "-h", "--help": throw UsageError.helpRequested
            default: throw UsageError("errors takes --markdown or --json, not '\(a)'")
            }
        }
    }

    func run() -> Int32 {
        switch format {
        case .markdown:
            print(ErrorCatalog.markdown(), terminator: "")
        case .json:
            func list(_ entries: [ErrorCatalog.Entry]) -> JSONValue {
                .array(entries.map { e in
                    .object(["code": .string(e.code), "module": .string(e.module), "retryable": .string(e.retryable),
                             "meaning": .string(e.meaning)])
                })
            }
            print(JSONValue.object(["reasons": list(ErrorCatalog.reasons), "codes": list(ErrorCatalog.codes)]).serialized(pretty: true))
        case .text:
            for (title, entries) in [("failure reasons", ErrorCatalog.reasons), ("error codes", ErrorCatalog.codes)] {
                print(title + ":")
                let width = entries.map(\.code.count).max() ?? 0
                for e in entries {
                    print("  " + e.code.padding(toLength: width, withPad: " ", startingAt: 0)
                          + "  [\(e.module), retryable: \(e.retryable)] \(e.meaning)")
                }
            }
        }
        return ExitStatus.ok
    }
}
