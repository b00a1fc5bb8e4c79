import Foundation
import JSONCore
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

extension ChildSandbox {
    /// Makes this process a child subreaper whose orphans are killed and reaped after each job
    /// (`ChildProcess.sweepOrphans`). Only for a process whose every child is a job child: the
    /// `transcode-worker` executable calls it first thing. Returns nil or the `strerror` text.
    @discardableResult
    public static func adoptOrphans() -> String? {
        let problem = ChildProcess.adoptOrphans()
        subreaperState.lock()
        subreaperProblem = problem
        subreaperState.unlock()
        return problem
    }

    nonisolated(unsafe) private static var subreaperProblem: String?
    private static let subreaperState = NSLock()

    /// What a command that runs jobs (`run`, `process`) does before its first job: marks the
    /// process non-dumpable, makes it a child subreaper (orphans of job children are its to kill),
    /// removes stale work directories, checks the child id settings, probes the layers and logs
    /// what job children will get and which executable they run (`child sandbox`, info;
    /// `child_executable`). Without Landlock or the seccomp filter it refuses to start
    /// (`child sandbox: required layers unavailable`, error) under `require`, the default, and
    /// warns under `auto`. Without namespaces it logs one warning (`child sandbox: user and
    /// network namespaces unavailable`, with the reason) and goes on; with them but without the
    /// PID or the mount namespace, one warning (`child sandbox: PID or mount namespace
    /// unavailable`, the reason per layer) and goes on.
    ///
    /// Returns nil to go on, or the exit status to stop with: 2 (usage) for inconsistent child
    /// ids, 4 when a required layer is unavailable.
    public static func prepareWorker(_ config: WorkerConfig, logger: JSONLogger) -> Int32? {
        _ = libraryDirectories   // read while /proc/self/maps is still this process's to read
        if let problem = markNonDumpable() {
            logger.warn("child sandbox: cannot mark the worker non-dumpable", ["reason": .string(problem)])
        }
        if !ChildProcess.adoptsOrphans {
            logger.warn("child sandbox: not a child subreaper; what a job child leaves in another session may outlive its job",
                        ["reason": .string(subreaperProblem ?? "not asked for (the commands run inside another program)")])
        }
        JobWorkspace.removeStaleOnce()

        switch (config.childUID, config.childGID) {
        case (nil, nil): break
        case (.some, nil), (nil, .some):
            logger.error("child sandbox: TRANSCODE_CHILD_UID and TRANSCODE_CHILD_GID go together")
            return ExitStatus.usage
        case (.some, .some):
            guard geteuid() == 0 else {
                logger.error("child sandbox: TRANSCODE_CHILD_UID needs the worker to run as root")
                return ExitStatus.usage
            }
        }

        let missing = layers.missing
        if !missing.isEmpty {
            var fields: [String: JSONValue] = [:]
            for m in missing { fields[m.layer] = .string(m.reason) }
            if config.childSandbox == .require {
                logger.error("child sandbox: required layers unavailable, and TRANSCODE_CHILD_SANDBOX=require", fields)
                return ExitStatus.internalError
            }
            logger.warn("child sandbox: layers unavailable; job children run without them", fields)
        }
        let sandbox = forJobs(config)
        if config.childSandbox != .off, !sandbox.namespaces {
            let reason = namespaceProblem(ids: sandbox.ids) ?? "unknown"
            logger.warn("child sandbox: user and network namespaces unavailable; job children run without them",
                        ["reason": .string(reason), "hint": .string(
                            "allow unprivileged user namespaces (kernel.unprivileged_userns_clone, "
                                + "user.max_user_namespaces, the container's seccomp/AppArmor profile)")])
        } else if config.childSandbox != .off, !(sandbox.pidNamespace && sandbox.mountNamespace) {
            let missing = namespaceLayers(ids: sandbox.ids).missing.mapValues { JSONValue.string($0) }
            logger.warn("child sandbox: PID or mount namespace unavailable; job children run without it", missing)
        }
        logger.info("child sandbox", ["sandbox": sandbox.json, "mode": .string(config.childSandbox.rawValue),
                                      "worker_dumpable": .bool(isDumpable),
                                      "worker_subreaper": .bool(ChildProcess.adoptsOrphans),
                                      "child_executable": .string(ChildExecutable.describe(JobRunner.resolveChildExecutable()))])
        return nil
    }
}
