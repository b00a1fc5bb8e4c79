// The job child launcher: clone (CLONE_VM | CLONE_VFORK), confine, execve. Our own code (not a system library wrapper).
#ifndef CSANDBOX_H
#define CSANDBOX_H

#include <sys/types.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A limit that is left as inherited.
#define SANDBOX_KEEP_LIMIT (-1LL)

/// Where the setup in the child failed (the `stage` of `sandbox_failure`).
enum sandbox_stage {
    SANDBOX_STAGE_NONE = 0,
    SANDBOX_STAGE_FORK = 1,
    SANDBOX_STAGE_SIGNALS = 2,
    SANDBOX_STAGE_PGROUP = 3,
    SANDBOX_STAGE_FDS = 4,
    SANDBOX_STAGE_RLIMIT = 5,
    SANDBOX_STAGE_IDS = 6,
    SANDBOX_STAGE_UNSHARE = 7,
    SANDBOX_STAGE_SETGROUPS = 8,
    SANDBOX_STAGE_UID_MAP = 9,
    SANDBOX_STAGE_GID_MAP = 10,
    SANDBOX_STAGE_NO_NEW_PRIVS = 11,
    SANDBOX_STAGE_EXEC = 12,
    SANDBOX_STAGE_PIPE = 13,
    SANDBOX_STAGE_NICE = 14,
    SANDBOX_STAGE_LANDLOCK = 15,
    SANDBOX_STAGE_SECCOMP = 16,
    SANDBOX_STAGE_PARENT_DEATH = 17,
    SANDBOX_STAGE_PID_NAMESPACE = 18,
    SANDBOX_STAGE_MOUNT = 19,
};

/// Where the old root sits while the child's new root is filled (sources of bind mounts are
/// named beneath it); detached before execve.
#define SANDBOX_OLD_ROOT "/.sandbox-old-root"

/// One step of building the child's root (see `sandbox_options.mounts`).
enum sandbox_mount_kind {
    /// mkdir `target`.
    SANDBOX_MOUNT_DIR = 1,
    /// An empty file at `target` (what a file is bound onto).
    SANDBOX_MOUNT_FILE = 2,
    /// A symbolic link at `target` whose text is `source`.
    SANDBOX_MOUNT_LINK = 3,
    /// A recursive bind mount of `source` (beneath SANDBOX_OLD_ROOT) on `target`, then remounted
    /// with `flags` (MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC and the source's atime flags,
    /// which a user namespace may not change).
    SANDBOX_MOUNT_BIND = 4,
    /// A new proc file system (of the child's PID namespace) on `target`, mounted with `flags`.
    SANDBOX_MOUNT_PROC = 5,
};

struct sandbox_mount {
    int kind;
    const char *source;
    const char *target;
    unsigned long flags;
};

/// What to apply in the child between clone and exec. Every pointer is owned by the caller and
/// must stay valid for the duration of the call.
struct sandbox_options {
    /// The program (absolute path) and its NULL-terminated argv / envp. A NULL path makes a probe:
    /// the child applies everything, then exits with status 0 instead of executing anything.
    const char *path;
    char *const *argv;
    char *const *envp;
    /// Descriptors that become the child's standard output and error (-1: /dev/null).
    /// Standard input is always /dev/null.
    int stdout_fd;
    int stderr_fd;
    /// Resource limits (soft = hard unless noted); SANDBOX_KEEP_LIMIT leaves one alone. Never
    /// raised above the inherited hard limit.
    long long rlimit_as_bytes;
    long long rlimit_cpu_seconds;       /// soft; the hard limit is 5 s more (SIGXCPU, then SIGKILL)
    long long rlimit_fsize_bytes;
    long long rlimit_nofile;
    long long rlimit_core_bytes;
    /// Above zero: the child's CPU niceness (setpriority), applied before anything else runs in
    /// it, so the program's own start-up already yields to other work; never below the inherited
    /// one. 0 leaves it inherited.
    int niceness;
    /// RLIMIT_NPROC (soft = hard), set after the namespaces (so a new user namespace counts only
    /// its own processes against it); 0 or SANDBOX_KEEP_LIMIT leaves it alone.
    long long rlimit_nproc;
    /// Non-zero: PR_SET_NO_NEW_PRIVS.
    int no_new_privs;
    /// Non-zero: unshare(CLONE_NEWUSER | CLONE_NEWNET), mapping the (new) uid and gid to themselves.
    int namespaces;
    /// Non-zero (with `namespaces`): a new PID namespace too, whose PID 1 is the program, so that
    /// whatever it starts ends with it. The launched process then clones the program's process
    /// (CLONE_PARENT: still the caller's child) into that namespace and exits once it has
    /// executed; the pid returned is the program's, as the caller sees it.
    int pid_namespace;
    /// Non-NULL (with `namespaces`): a new mount namespace whose root is a fresh tmpfs, mounted on
    /// `mount_base` (an existing directory), made the root with pivot_root, filled by the
    /// `mount_count` steps of `mounts` in order (the old root at SANDBOX_OLD_ROOT meanwhile), then
    /// left read-only with the old root detached.
    const struct sandbox_mount *mounts;
    size_t mount_count;
    const char *mount_base;
    /// Above zero: the signal the child gets when the thread that started it ends (PR_SET_PDEATHSIG,
    /// set after the id change, which would clear it).
    int parent_death_signal;
    /// Landlock (see sandbox_landlock_abi): NULL-terminated lists of paths the child may read and
    /// execute, and read and write (files and folders beneath them; no execution). With
    /// `landlock` non-zero every other path is out of reach, and TCP bind and connect are refused
    /// where the kernel's ABI has network rules (4 and later), as are signals and abstract Unix
    /// sockets outside the child's own domain (6 and later). A missing read path is skipped. Read
    /// paths under /proc are looked up by the child, so that they name its own /proc (the one of
    /// its mount namespace, and /proc/self the child itself).
    int landlock;
    const char *const *read_paths;
    const char *const *write_paths;
    /// Non-zero: the seccomp filter of sandbox_seccomp_build, the last step before execve.
    int seccomp;
    /// Non-zero: the filter lets the child make AF_UNIX sockets (every other family is refused).
    int seccomp_allow_unix;
    /// Non-zero: setgroups(0), setgid(gid), setuid(uid) before the namespaces (needs root).
    int change_ids;
    uid_t uid;
    gid_t gid;
};

/// Why a spawn failed: the stage and errno, and for SANDBOX_STAGE_MOUNT the index of the step
/// of `mounts` that failed (-1: the steps around them).
struct sandbox_failure {
    int stage;
    int error;
    int detail;
};

/// Starts a child with `options` in a process group of its own, with every signal disposition
/// reset to the default and an empty signal mask, and every descriptor but 0, 1, 2 closed on
/// exec. Returns the child's pid, or -1 with `failure` filled (the child, if any, was reaped).
/// Async-signal-safe work only runs in the child; safe to call from a multi-threaded process.
pid_t sandbox_spawn(const struct sandbox_options *options, struct sandbox_failure *failure);

/// The kernel's Landlock ABI version (1 and up), or 0 with `*error` set (ENOSYS: not built in;
/// EOPNOTSUPP: built in but not enabled at boot).
int sandbox_landlock_abi(int *error);

/// Whether a seccomp filter can be installed here: 0, or the errno of the refusal (a throwaway
/// child tries it).
int sandbox_seccomp_available(void);

/// Makes the calling process a child subreaper (PR_SET_CHILD_SUBREAPER): the orphans of its
/// descendants become its children, so it can kill and reap them. Returns 0 or errno.
int sandbox_set_subreaper(void);

/// PR_SET_DUMPABLE 0 for the calling process: same-uid processes can no longer read its
/// /proc/<pid>/environ or mem, nor ptrace it. Returns 0 or errno.
int sandbox_set_nondumpable(void);

/// The calling process's PR_GET_DUMPABLE (1 dumpable, 0 not), or -1.
int sandbox_get_dumpable(void);

/// Lowers the calling thread's CPU niceness to `niceness` (Linux keeps one per thread); a thread
/// that is niced more already is left alone. Returns 0 or errno.
int sandbox_set_thread_niceness(int niceness);

/// The calling thread's CPU niceness.
int sandbox_get_thread_niceness(void);

#ifdef __cplusplus
}
#endif

#endif
