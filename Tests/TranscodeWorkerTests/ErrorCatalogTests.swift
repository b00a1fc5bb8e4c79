import CommandCore
import FloorPlan
import Foundation
import GLBWriter
import Layering
import Manifest
import SceneModel
import SourceFiles
import TestSupport
import Testing
import Thumbnailer
import USDParse

@testable import TranscodeWorker
import PGQueue
import WorkerHTTP
@testable import ObjectStorage
@testable import WorkerRuntime

/// `docs/errors.md` is `ErrorCatalog.markdown()`, and every code the sources raise is listed.
@Suite struct ErrorCatalogTests {
    static let docPath = ConvertTests.path("docs/errors.md")

    @Test func theReferencePageIsTheCatalog() throws {
        let page = try String(contentsOfFile: Self.docPath, encoding: .utf8)
        if page != ErrorCatalog.markdown() {
            if ProcessInfo.processInfo.environment["TRANSCODE_UPDATE_GOLDEN"] == "1" {
                try ErrorCatalog.markdown().write(toFile: Self.docPath, atomically: true, encoding: .utf8)
            }
            Issue.record("docs/errors.md differs from ErrorCatalog: run `transcode-worker errors --markdown > docs/errors.md`")
        }
    }

    @Test func everyCodeIsListedOnceWithAMeaning() {
        let all = ErrorCatalog.reasons + ErrorCatalog.codes
        // (`ROOMPLAN_JSON_INVALID` is both a reason and Layering's code, so each table is checked apart.)
        for table in [ErrorCatalog.reasons, ErrorCatalog.codes] {
            #expect(Set(table.map(\.code)).count == table.count, "a code is listed twice")
        }
        #expect(all.allSatisfy { !$0.meaning.isEmpty && !$0.module.isEmpty && !$0.retryable.isEmpty })
        // The classification agrees with the error types where they carry one.
        for code in StorageError.Code.allCases {
            #expect(ErrorCatalog.codes.first { $0.code == code.rawValue }?.retryable == (code.isRetryable ? "yes" : "no"))
        }
        #expect(ErrorCatalog.reasons.map(\.code).contains(FailureReason.uploadExpired))
    }

    /// The daemon links no feature module, so the catalog spells their codes out: here they are
    /// each module's `Code.allCases`, in the catalog's order and with the same classification, so a
    /// new case without a catalog row fails.
    @Test func theFeatureModulesCodesAreTheModulesOwn() {
        func expectListed<C: ErrorCode>(_: C.Type, by module: String, leaving left: (C) -> Bool = { _ in false }) {
            let rows = ErrorCatalog.codes.filter { $0.module == module }
            let cases = C.allCases.filter { !left($0) }
            #expect(rows.map(\.code) == cases.map(\.rawValue), "\(module)")
            #expect(rows.map(\.retryable) == cases.map { $0.isRetryable ? "yes" : "no" }, "\(module)")
        }
        expectListed(USDParseError.Code.self, by: "USDParse")
        expectListed(LayeringError.Code.self, by: "Layering")
        expectListed(GLBWriterError.Code.self, by: "GLBWriter")
        expectListed(ManifestError.Code.self, by: "Manifest")
        // The texture codes are warnings of a conversion, never its failure's code.
        expectListed(ThumbnailerError.Code.self, by: "Thumbnailer", leaving: \.isTextureFailure)
        expectListed(FloorPlanError.Code.self, by: "FloorPlan")
        #expect(ErrorCatalog.reasons.contains { $0.code == LayeringError.Code.jsonInvalid.rawValue })
    }

    /// The runtime's typed codes are well formed and listed with their classification.
    @Test func theRuntimesTypedCodesAreListed() {
        #expect(errorCodeProblems(RealtimeBroadcastError.Code.self, prefix: "REALTIME_") == [])
        #expect(errorCodeProblems(HTTPServerError.Code.self, prefix: "HTTP_") == [])
        #expect(errorCodeProblems(DatabaseError.Code.self, prefix: "DB_") == [])
        #expect(errorCodeProblems(HTTPClientError.Code.self, prefix: "HTTP_") == [])
        #expect(errorCodeProblems(StorageError.Code.self, prefix: "STORAGE_") == [])
        #expect(errorCodeProblems(FileReader.Failure.Code.self, prefix: "IO_") == [])
        let rows = Dictionary(uniqueKeysWithValues: ErrorCatalog.codes.map { ($0.code, $0.retryable) })
        // Whether an IO code is retried depends on whose file it is: listed, without a check.
        #expect(FileReader.Failure.Code.allCases.allSatisfy { rows[$0.rawValue] != nil })
        for c in RealtimeBroadcastError.Code.allCases { #expect(rows[c.rawValue] == (c.isRetryable ? "yes" : "no"), "\(c)") }
        for c in HTTPServerError.Code.allCases { #expect(rows[c.rawValue] == (c.isRetryable ? "yes" : "no"), "\(c)") }
        for c in HTTPClientError.Code.allCases { #expect(rows[c.rawValue] == (c.isRetryable ? "yes" : "no"), "\(c)") }
        for c in DatabaseError.Code.allCases where c != .queryFailed {
            #expect(rows[c.rawValue] == (c.isRetryable ? "yes" : "no"), "\(c)")
        }
        #expect(rows[DatabaseError.Code.queryFailed.rawValue]?.hasPrefix("only for") == true)
        #expect(errorCodeProblems(ProcessGuardError.Code.self, prefix: "PROCESS_") == [])
        for c in ProcessGuardError.Code.allCases { #expect(rows[c.rawValue] == (c.isRetryable ? "yes" : "no"), "\(c)") }
    }

    /// Codes in error constructors, error constants and message prefixes across Sources. Warning
    /// codes (`…WarningCode` constants and enums) and environment variable names are not errors.
    @Test func everyCodeTheSourcesRaiseIsListed() throws {
        let sources = ConvertTests.root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 100)
        let code = #"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"#
        let patterns = [
            #"(?:Error|Failure|fail)\((?:code: )?"(\#(code))""#, #"internalFault\("(\#(code)):"#, #"message: "(\#(code)): "#,
            #"Code\(rawValue: "(\#(code))"\)"#, #"error\(code: "(\#(code))""#,
        ].map { try! NSRegularExpression(pattern: $0) }
        let errorConstant = try NSRegularExpression(pattern: #"(?:static let|case) (\w+) = "(\#(code))""#)
        let warningEnum = try NSRegularExpression(pattern: #"enum \w*WarningCode \{[^}]*\}"#)
        var raised: [String: String] = [:]
        for file in files {
            var text = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
            text = warningEnum.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "")
            let range = NSRange(text.startIndex..., in: text)
            for p in patterns {
                for m in p.matches(in: text, range: range) { raised[String(text[Range(m.range(at: 1), in: text)!]), default: file] = file }
            }
            // Files of error types, and files that declare one beside other code (`ProcessGuardError`).
            if file.hasSuffix("Error.swift") || file.hasSuffix("FailureReason.swift") || text.contains("Error: Error") {
                for m in errorConstant.matches(in: text, range: range) where !text[Range(m.range(at: 1), in: text)!].hasSuffix("WarningCode") {
                    raised[String(text[Range(m.range(at: 2), in: text)!]), default: file] = file
                }
            }
        }
        let listed = Set((ErrorCatalog.reasons + ErrorCatalog.codes).map(\.code))
        let textureWarnings = Set(ThumbnailerError.Code.allCases.filter(\.isTextureFailure).map(\.rawValue))
        let missing = raised.keys.filter { !listed.contains($0) && !textureWarnings.contains($0) && !$0.hasPrefix("TRANSCODE_") }.sorted()
        #expect(raised.count > 60, "the scan found \(raised.count) codes")
        #expect(missing.isEmpty, "raised but not in ErrorCatalog: \(missing.map { "\($0) (\(raised[$0]!))" })")
    }
}
