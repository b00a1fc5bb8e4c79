import Foundation
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

extension ChildSandbox {
    /// What a command that runs jobs (`run`, `process`) does before its first job: marks the
    /// process non-dumpable, removes stale work directories, checks the child id settings, probes
    /// the namespaces and logs what job children will get and which executable they run
    /// (`child sandbox`, info; `child_executable`). Without
    /// namespaces it logs one warning (`child sandbox: user and network namespaces unavailable`,
    /// with the reason) and goes on, unless `TRANSCODE_CHILD_SANDBOX=require`.
    ///
    /// Returns nil to go on, or the exit status to stop with: 2 (usage) for inconsistent child
    /// ids, 4 when namespaces are required but unavailable.
    public static func prepareWorker(_ config: WorkerConfig, logger: JSONLogger) -> Int32? {
        if let problem = markNonDumpable() {
            logger.warn("child sandbox: cannot mark the worker non-dumpable", ["reason": .string(problem)])
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

        let sandbox = forJobs(config)
        if config.childSandbox != .off, !sandbox.namespaces {
            let reason = namespaceProblem(ids: sandbox.ids) ?? "unknown"
            if config.childSandbox == .require {
                logger.error("child sandbox: user and network namespaces unavailable, and TRANSCODE_CHILD_SANDBOX=require",
                             ["reason": .string(reason)])
                return ExitStatus.internalError
            }
            logger.warn("child sandbox: user and network namespaces unavailable; job children run without them",
                        ["reason": .string(reason), "hint": .string(
                            "allow unprivileged user namespaces (kernel.unprivileged_userns_clone, "
                                + "user.max_user_namespaces, the container's seccomp/AppArmor profile)")])
        }
        logger.info("child sandbox", ["sandbox": sandbox.json, "mode": .string(config.childSandbox.rawValue),
                                      "worker_dumpable": .bool(isDumpable),
                                      "child_executable": .string(ChildExecutable.describe(JobRunner.resolveChildExecutable()))])
        return nil
    }
}
