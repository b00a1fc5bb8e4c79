import Foundation
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

extension JobAttempt {
    /// Reads the files a job child reports (`ChildMessage.done`), treating the child as hostile:
    /// it decodes untrusted files and may be compromised, and it can write anything into the
    /// work directory.
    ///
    /// Rules: a reported path is relative, inside `out/`, made of plain components (no empty,
    /// `.` or `..` component, no NUL); its name is one the pipeline writes (`model.glb`,
    /// `layer_manifest.json`, `plan.svg` (which must pass `SVGSafety`), `plan.pdf`, `plan.dxf`,
    /// `thumbs/<name>.webp` with `<name>` of `[a-z0-9-]`, `privacy/<uuid>.webp`); no path is
    /// reported twice. Each file is opened component by component from the work directory's
    /// descriptor with `O_NOFOLLOW` (a symbolic link anywhere along the path is refused, with no
    /// check-then-open race), must be a regular file with one link, and at most `maxFileBytes`;
    /// all of them at most `maxTotalBytes`.
    ///
    /// A violation is `CHILD_PROTOCOL`, reason `INTERNAL`, permanent: the child's outputs are
    /// fixed by its input, so a child that breaks these rules on a file would break them again
    /// on every attempt (a compromised decoder on a hostile file gets no further runs). A file
    /// that cannot be read for another reason (gone, IO error) stays retryable, as before.
    struct ChildOutputs {
        /// The failure code of every violation.
        static let code = "CHILD_PROTOCOL"
        /// The most files one child may report.
        static let maxFiles = 64

        /// Largest single output, bytes.
        let maxFileBytes: Int
        /// Largest sum of all outputs, bytes.
        let maxTotalBytes: Int
        private let outFD: Int32
        /// The job's work directory, where the intake's unnamed files are made.
        private let workDirectory: String

        /// The limits under `config`: a file may be as large as the child may write one
        /// (`TRANSCODE_CHILD_FILE_MB`), all of them together twice that.
        static func limits(_ config: WorkerConfig) -> (file: Int, total: Int) {
            let file = max(1, config.childFileMB) << 20
            return (file, 2 * file)
        }

        /// Opens `out/` of `workspace` (from its root descriptor, `O_NOFOLLOW`). Throws
        /// `CHILD_PROTOCOL` (permanent) when it is no longer a plain directory.
        init(_ workspace: JobWorkspace, maxFileBytes: Int, maxTotalBytes: Int, phase: JobStep) throws(FailureReason) {
            self.maxFileBytes = maxFileBytes
            self.maxTotalBytes = maxTotalBytes
            let fd = openat(workspace.rootFD, "out", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else {
                throw Self.violation("the output directory was replaced (\(String(cString: strerror(errno))))", phase: phase)
            }
            outFD = fd
            workDirectory = workspace.root
        }

        /// Closes the directory.
        func close() { _ = Glibc.close(outFD) }

        /// True when `path` is a name the pipeline writes.
        static func isAllowedName(_ path: String) -> Bool {
            if [OutputName.model, OutputName.manifest, OutputName.planSVG, OutputName.planPDF, OutputName.planDXF, OutputName.report].contains(path) { return true }
            // A privacy crop: `privacy/<redaction id>.webp`, the id a lower-case UUID.
            if path.hasPrefix(OutputName.privacyFolder), path.hasSuffix(".webp") {
                let stem = path.utf8.dropFirst(OutputName.privacyFolder.count).dropLast(".webp".count)
                return stem.count == 36 && stem.enumerated().allSatisfy { i, c in
                    [8, 13, 18, 23].contains(i) ? c == UInt8(ascii: "-") : (97...102).contains(c) || (48...57).contains(c)
                }
            }
            guard path.hasPrefix(OutputName.thumbnailFolder), path.hasSuffix(".webp") else { return false }
            let stem = path.utf8.dropFirst(OutputName.thumbnailFolder.count).dropLast(".webp".count)
            return (1...64).contains(stem.count) && stem.first != UInt8(ascii: "-")
                && stem.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == UInt8(ascii: "-") }
        }

        /// Checks every reported file before anything is uploaded and takes it in: names,
        /// duplicates, sizes, that each opens safely as a regular file of its reported size; then
        /// its bytes are copied once into the returned `OutputIntake` (at most `maxTotalBytes` in
        /// all), and the hash and content checks run on that copy, which is what gets uploaded.
        /// A file in `copied` is one the worker copies in the output store from bytes it
        /// downloaded and hashed itself (a reused file whose reported hash is theirs): the child
        /// does not write it, so only its name and reported size are checked. Throws
        /// `CHILD_PROTOCOL`.
        @discardableResult
        func validate(_ files: [ChildMessage.File], copied: Set<String> = [], expected: OutputStructure.Expectations = .init(),
                      phase: JobStep) throws(FailureReason) -> OutputIntake {
            guard files.count <= Self.maxFiles else {
                throw Self.violation("the child reported \(files.count) files; at most \(Self.maxFiles) are accepted", phase: phase)
            }
            let intake = OutputIntake(directory: workDirectory, budget: maxTotalBytes)
            var seen: Set<String> = []
            var total = 0
            for f in files {
                try Self.checkPath(f.path, phase: phase)
                guard seen.insert(f.path).inserted else { throw Self.violation("\(f.path) is reported twice", phase: phase) }
                guard f.bytes >= 0, f.bytes <= maxFileBytes else {
                    throw Self.violation("\(f.path) is \(f.bytes) bytes; the limit is \(maxFileBytes)", phase: phase)
                }
                total += f.bytes
                guard total <= maxTotalBytes else {
                    throw Self.violation("the outputs exceed \(maxTotalBytes) bytes in all", phase: phase)
                }
                if copied.contains(f.path) { continue }
                try take(f, into: intake, phase: phase)
                if let problem = Self.contentProblem(f.path, intake, expected: expected) {
                    throw Self.violation(problem, phase: phase)
                }
            }
            return intake
        }

        /// Opens the reported file, copies it into `intake` and compares what was copied with the
        /// report. Throws `CHILD_PROTOCOL`.
        private func take(_ f: ChildMessage.File, into intake: OutputIntake, phase: JobStep) throws(FailureReason) {
            let (fd, size) = try open(f.path, maxBytes: maxFileBytes, phase: phase)
            defer { Glibc.close(fd) }
            guard size == f.bytes else {
                throw Self.violation("\(f.path) is \(size) bytes, not the \(f.bytes) reported", phase: phase)
            }
            do { try intake.take(f.path, from: fd, size: size) } catch {
                switch error {
                case .violation(let what): throw Self.violation(what, phase: phase)
                case .system(let e): throw Self.unreadable(f.path, e, phase: phase)
                }
            }
            guard intake.source(f.path)?.sha256 == f.sha256 else {
                throw Self.violation("\(f.path) does not match its reported SHA-256", phase: phase)
            }
        }

        /// The outputs whose content is checked as text documents read whole.
        static let contentChecked: Set<String> = [OutputName.planSVG, OutputName.planPDF, OutputName.planDXF, OutputName.manifest]

        /// Why the held output `path` may not be published; nil when it may. Browsers run what an
        /// SVG may hold, a PDF can carry scripts and actions, a DXF is text; the glb, the images
        /// and the manifest must have the structure their readers expect.
        static func contentProblem(_ path: String, _ intake: OutputIntake,
                                   expected: OutputStructure.Expectations = .init()) -> String? {
            guard let source = intake.source(path) else { return "\(path) was not taken in" }
            guard contentChecked.contains(path) else {
                return OutputStructure.problem(path, size: source.bytes, dimensions: expected.imageSizes[path]) {
                    intake.read(path, offset: $0, count: $1)
                }
            }
            guard let bytes = intake.bytes(path, maxBytes: OutputStructure.maxCheckedDocumentBytes) else {
                return "\(path) is larger than the \(OutputStructure.maxCheckedDocumentBytes) bytes checked"
            }
            if path == OutputName.manifest { return OutputStructure.manifestProblem(bytes, expected: expected) }
            return contentProblem(path, bytes)
        }

        /// Why the plan file `path` holding `bytes` may not be published; nil when it may (and for
        /// every other output).
        static func contentProblem(_ path: String, _ bytes: [UInt8]) -> String? {
            switch path {
            case OutputName.planSVG: return SVGSafety.problem(bytes).map { "plan.svg is not a plain drawing (\($0))" }
            case OutputName.planPDF: return PDFSafety.problem(bytes).map { "plan.pdf is not a plain drawing (\($0))" }
            case OutputName.planDXF: return DXFSafety.problem(bytes).map { "plan.dxf is not DXF text (\($0))" }
            default: return nil
            }
        }

        /// The bytes of the output `path` (at most `maxBytes`, capped by `maxFileBytes`), opened
        /// as `validate` does. Throws `CHILD_PROTOCOL` (permanent for a violation, retryable when
        /// the file cannot be read).
        func read(_ path: String, maxBytes: Int? = nil, phase: JobStep) throws(FailureReason) -> [UInt8] {
            try Self.checkPath(path, phase: phase)
            let cap = min(maxBytes ?? maxFileBytes, maxFileBytes)
            let (fd, size) = try open(path, maxBytes: cap, phase: phase)
            defer { Glibc.close(fd) }
            var failed: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: size + 1) { buf, count in
                var done = 0
                while done <= size {
                    let n = Glibc.read(fd, buf.baseAddress! + done, size + 1 - done)
                    if n < 0 {
                        if errno == EINTR { continue }
                        failed = errno
                        break
                    }
                    if n == 0 { break }
                    done += n
                }
                count = done
            }
            if failed != 0 { throw Self.unreadable(path, failed, phase: phase) }
            guard bytes.count == size else { throw Self.violation("\(path) changed size while being read", phase: phase) }
            return bytes
        }

        /// Refuses a path that is not a plain relative path of an allowed name.
        static func checkPath(_ path: String, phase: JobStep) throws(FailureReason) {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            guard !path.isEmpty, !path.hasPrefix("/"), !path.utf8.contains(0),
                  !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
                throw violation("the path '\(clipped(path))' is not a plain relative path inside out/", phase: phase)
            }
            guard isAllowedName(path) else {
                throw violation("'\(clipped(path))' is not an output the pipeline writes", phase: phase)
            }
        }

        /// Opens `path` below `out/` with `O_NOFOLLOW` at every component; returns the
        /// descriptor and size of a regular, singly linked file of at most `maxBytes`.
        private func open(_ path: String, maxBytes: Int, phase: JobStep) throws(FailureReason) -> (Int32, Int) {
            let parts = path.split(separator: "/").map(String.init)
            var dir = outFD
            defer { if dir != outFD { Glibc.close(dir) } }
            for part in parts.dropLast() {
                let next = openat(dir, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard next >= 0 else { throw Self.openFailure(path, errno, in: dir, part, phase: phase) }
                if dir != outFD { Glibc.close(dir) }
                dir = next
            }
            // O_NONBLOCK: a FIFO must not hold the worker up; it is refused below.
            let fd = openat(dir, parts.last!, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
            guard fd >= 0 else { throw Self.openFailure(path, errno, in: dir, parts.last!, phase: phase) }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                let e = errno
                Glibc.close(fd)
                throw Self.unreadable(path, e, phase: phase)
            }
            let problem: String? = info.st_mode & S_IFMT != S_IFREG ? "is not a regular file"
                : info.st_nlink != 1 ? "has \(info.st_nlink) links"
                : Int(info.st_size) > maxBytes ? "is \(info.st_size) bytes; the limit is \(maxBytes)" : nil
            if let problem {
                Glibc.close(fd)
                throw Self.violation("\(path) \(problem)", phase: phase)
            }
            return (fd, Int(info.st_size))
        }

        /// The failure for `openat(dir, name)` failing with `e` (a link is named as such, for
        /// the message only: the refusal came from `O_NOFOLLOW`).
        private static func openFailure(_ path: String, _ e: Int32, in dir: Int32, _ name: String,
                                        phase: JobStep) -> FailureReason {
            var info = stat()
            if e == ELOOP || e == ENOTDIR, fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0,
               info.st_mode & S_IFMT == S_IFLNK {
                return violation("\(path) goes through a symbolic link", phase: phase)
            }
            switch e {
            case ELOOP: return violation("\(path) goes through a symbolic link", phase: phase)
            case ENOTDIR: return violation("\(path) goes through something that is not a directory", phase: phase)
            case ENXIO, ENODEV: return violation("\(path) is not a regular file", phase: phase)
            default: return unreadable(path, e, phase: phase)
            }
        }

        static func violation(_ what: String, phase: JobStep) -> FailureReason {
            FailureReason(reason: FailureReason.`internal`, message: "\(code): \(what)", phase: phase, isRetryable: false)
        }

        static func unreadable(_ path: String, _ e: Int32, phase: JobStep) -> FailureReason {
            .internalFault("\(code): cannot read the output \(path): \(String(cString: strerror(e)))", phase: phase)
        }

        private static func clipped(_ path: String) -> String {
            String(path.unicodeScalars.filter { $0.value >= 32 }.prefix(120).map(Character.init))
        }
    }
}
