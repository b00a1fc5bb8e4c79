// The job child launcher. The child is made with clone(CLONE_VM | CLONE_VFORK): it runs on a
// stack of its own in the parent's memory, and the calling thread waits until it has called
// execve or exited. So no page table of the (large, multi-threaded) worker is copied and nothing is
// torn down at exec. Until execve the child makes async-signal-safe calls only (no allocation, no
// locks, no stdio), writes nothing but its own stack and the calling thread's errno, and changes
// ids with raw system calls: glibc's setuid family runs its every-thread protocol over the thread
// list it finds in memory, which is the parent's.
//
// With a PID namespace the launched process does the first half (signals, process group,
// descriptors, limits, the namespaces and id maps), then clones the program's process the same
// way (CLONE_VM | CLONE_VFORK, a second stack) with CLONE_PARENT, so that it is the caller's
// child; that process is PID 1 of the new namespace and does the rest (its own process group, the
// mount namespace's root, the ids, the confinement, execve). The launched process stores its pid
// and exits once it has executed; the caller reaps the launched process and returns the program's.
#define _GNU_SOURCE
#include "csandbox.h"
#include "sandbox_layers.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/// Reports `stage`, errno and `detail` to the parent and ends the child.
static void child_fail_detail(int report_fd, int stage, int detail) {
    struct sandbox_failure f = { stage, errno, detail };
    ssize_t n;
    do { n = write(report_fd, &f, sizeof f); } while (n < 0 && errno == EINTR);
    _exit(127);
}

static void child_fail(int report_fd, int stage) {
    child_fail_detail(report_fd, stage, -1);
}

/// Lowers one limit to `soft`/`hard` (capped by the current hard limit). 0 or -1 errno.
static int lower_limit(int resource, long long soft, long long hard) {
    struct rlimit cur;
    if (getrlimit(resource, &cur) != 0) return -1;
    rlim_t h = (rlim_t)hard, s = (rlim_t)soft;
    if (cur.rlim_max != RLIM_INFINITY && h > cur.rlim_max) h = cur.rlim_max;
    if (s > h) s = h;
    struct rlimit want = { s, h };
    return setrlimit(resource, &want);
}

/// Writes `len` bytes of `text` to the file at `path` (one write, as /proc id maps require).
static int write_file(const char *path, const char *text, size_t len) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n;
    do { n = write(fd, text, len); } while (n < 0 && errno == EINTR);
    int saved = errno;
    close(fd);
    if (n != (ssize_t)len) { errno = n < 0 ? saved : EIO; return -1; }
    return 0;
}

/// Makes `fd` a descriptor above 2 (so the dup2 calls below cannot clobber it).
static int above_stdio(int fd) {
    if (fd < 0 || fd > 2) return fd;
    return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

/// Puts `fd` (or /dev/null when -1) at `target`, without close-on-exec.
static int install(int fd, int target) {
    if (fd < 0) {
        int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null_fd < 0) return -1;
        if (dup2(null_fd, target) < 0) return -1;
        if (null_fd != target) close(null_fd);
        return 0;
    }
    if (fd == target) {
        int flags = fcntl(fd, F_GETFD);
        return flags < 0 ? -1 : fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
    }
    return dup2(fd, target) < 0 ? -1 : 0;
}

/// What the parent prepared for the child (read before the parent goes on).
struct child_args {
    const struct sandbox_options *options;
    int report_fd, close_fd, map_ids;
    const char *uid_map, *gid_map;
    size_t uid_len, gid_len;
    pid_t parent;
    int landlock_fd;                       /// -1: none
    const struct sock_fprog *filter;      /// NULL: none
    /// With a PID namespace: a pidfd of the caller's process (-1 otherwise), the top of the
    /// program's stack, and where the launched process stores the program's pid.
    int parent_fd;
    char *program_stack;
    volatile pid_t *program;
};

/// The last steps before execve, once the ids are final: the parent-death signal (a change of
/// ids clears it), no new privileges, Landlock, then the seccomp filter (which must still allow
/// execve and nothing after it needs more).
static void confine(const struct sandbox_options *o, const struct child_args *a) {
    if (o->parent_death_signal > 0) {
        if (prctl(PR_SET_PDEATHSIG, o->parent_death_signal, 0, 0, 0) != 0) child_fail(a->report_fd, SANDBOX_STAGE_PARENT_DEATH);
        // The parent may have ended before the call above: then nobody would signal. In a PID
        // namespace of its own the parent is outside it (getppid() answers 0): its pidfd tells.
        // (The thread that cloned it waits in clone until execve, so only the whole process can
        // have ended.)
        if (a->parent_fd >= 0) {
            struct pollfd p = { a->parent_fd, POLLIN, 0 };
            int ready = poll(&p, 1, 0);
            if (ready != 0) {
                if (ready > 0) errno = ESRCH;
                child_fail(a->report_fd, SANDBOX_STAGE_PARENT_DEATH);
            }
            close(a->parent_fd);
        } else if (getppid() != a->parent) {
            errno = ESRCH;
            child_fail(a->report_fd, SANDBOX_STAGE_PARENT_DEATH);
        }
    }
    if ((o->no_new_privs || a->landlock_fd >= 0 || a->filter) && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        child_fail(a->report_fd, SANDBOX_STAGE_NO_NEW_PRIVS);
    }
    if (a->landlock_fd >= 0) {
        if (sandbox_landlock_apply(a->landlock_fd, o->read_paths) != 0) child_fail(a->report_fd, SANDBOX_STAGE_LANDLOCK);
        close(a->landlock_fd);
    }
    if (a->filter && sandbox_seccomp_apply(a->filter) != 0) child_fail(a->report_fd, SANDBOX_STAGE_SECCOMP);
}

static void child_exec(const struct sandbox_options *o, const struct child_args *a);

/// The program's process in a PID namespace, on the second stack: never returns.
static int program_entry(void *p) {
    const struct child_args *a = p;
    child_exec(a->options, a);
    return 127;
}

/// The launched process's side: never returns.
static void child_main(const struct sandbox_options *o, const struct child_args *a) {
    int report_fd = a->report_fd;
    // Default dispositions for every signal (handlers of the parent mean nothing here; ignored
    // signals would stay ignored across exec), then an empty mask (the parent blocked all).
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < 65; s++) {
        if (s == SIGKILL || s == SIGSTOP) continue;
        (void)sigaction(s, &dfl, NULL);   // reserved numbers fail with EINVAL: nothing to reset
    }

    if (setpgid(0, 0) != 0) child_fail(report_fd, SANDBOX_STAGE_PGROUP);
    // Only ever lowered (which is always allowed): a worker that runs niced already keeps its
    // own niceness for the child. The raw calls, as everything between clone and exec; the
    // kernel's getpriority answers 20 - niceness.
    if (o->niceness > 0) {
        long current = syscall(SYS_getpriority, PRIO_PROCESS, 0);
        if (current < 0 || (20 - current < o->niceness && syscall(SYS_setpriority, PRIO_PROCESS, 0, o->niceness) != 0)) {
            child_fail(report_fd, SANDBOX_STAGE_NICE);
        }
    }

    int out = above_stdio(o->stdout_fd), err = above_stdio(o->stderr_fd);
    if ((o->stdout_fd >= 0 && out < 0) || (o->stderr_fd >= 0 && err < 0)) child_fail(report_fd, SANDBOX_STAGE_FDS);
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in < 0 || install(in, 0) != 0 || install(out, 1) != 0 || install(err, 2) != 0) {
        child_fail(report_fd, SANDBOX_STAGE_FDS);
    }
    // Whatever else is open (a library's descriptor without close-on-exec) closes at exec.
    (void)syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);

    if (o->rlimit_core_bytes != SANDBOX_KEEP_LIMIT
        && lower_limit(RLIMIT_CORE, o->rlimit_core_bytes, o->rlimit_core_bytes) != 0) child_fail(report_fd, SANDBOX_STAGE_RLIMIT);
    if (o->rlimit_as_bytes != SANDBOX_KEEP_LIMIT
        && lower_limit(RLIMIT_AS, o->rlimit_as_bytes, o->rlimit_as_bytes) != 0) child_fail(report_fd, SANDBOX_STAGE_RLIMIT);
    if (o->rlimit_cpu_seconds != SANDBOX_KEEP_LIMIT
        && lower_limit(RLIMIT_CPU, o->rlimit_cpu_seconds, o->rlimit_cpu_seconds + 5) != 0) child_fail(report_fd, SANDBOX_STAGE_RLIMIT);
    if (o->rlimit_fsize_bytes != SANDBOX_KEEP_LIMIT
        && lower_limit(RLIMIT_FSIZE, o->rlimit_fsize_bytes, o->rlimit_fsize_bytes) != 0) child_fail(report_fd, SANDBOX_STAGE_RLIMIT);
    if (o->rlimit_nofile != SANDBOX_KEEP_LIMIT
        && lower_limit(RLIMIT_NOFILE, o->rlimit_nofile, o->rlimit_nofile) != 0) child_fail(report_fd, SANDBOX_STAGE_RLIMIT);

    // Supplementary groups go first, while still privileged (setgroups is denied in the
    // namespace below).
    if (o->change_ids && syscall(SYS_setgroups, 0, NULL) != 0) child_fail(report_fd, SANDBOX_STAGE_IDS);

    if (o->namespaces) {
        int flags = CLONE_NEWUSER | CLONE_NEWNET | (o->pid_namespace ? CLONE_NEWPID : 0) | (o->mounts ? CLONE_NEWNS : 0);
        if (unshare(flags) != 0) child_fail(report_fd, SANDBOX_STAGE_UNSHARE);
        if (a->map_ids) {
            if (write_file("/proc/self/setgroups", "deny", 4) != 0) child_fail(report_fd, SANDBOX_STAGE_SETGROUPS);
            if (write_file("/proc/self/uid_map", a->uid_map, a->uid_len) != 0) child_fail(report_fd, SANDBOX_STAGE_UID_MAP);
            if (write_file("/proc/self/gid_map", a->gid_map, a->gid_len) != 0) child_fail(report_fd, SANDBOX_STAGE_GID_MAP);
        }
        if (o->pid_namespace) {
            // unshare(CLONE_NEWPID) moved only this process's future children: the program's
            // process is cloned into the namespace, as the caller's child (CLONE_PARENT), and this
            // process ends once that one has executed (or failed, having reported why).
            pid_t pid = clone(program_entry, a->program_stack, CLONE_VM | CLONE_VFORK | CLONE_PARENT | SIGCHLD, (void *)a);
            if (pid < 0) child_fail(report_fd, SANDBOX_STAGE_PID_NAMESPACE);
            *a->program = pid;
            _exit(0);
        }
    }
    child_exec(o, a);
}

/// The program's side: in a PID namespace a process group of its own, the root of the mount
/// namespace, the process limit, the ids, the confinement, then execve. Never returns.
static void child_exec(const struct sandbox_options *o, const struct child_args *a) {
    int report_fd = a->report_fd;
    if (o->namespaces && o->pid_namespace && setpgid(0, 0) != 0) child_fail(report_fd, SANDBOX_STAGE_PGROUP);
    if (o->namespaces && o->mounts) {
        int failed;
        if (sandbox_mounts_apply(o, &failed) != 0) child_fail_detail(report_fd, SANDBOX_STAGE_MOUNT, failed);
    }
    // After the user namespace: a new one counts only its own processes against this limit.
    if (o->rlimit_nproc > 0
        && lower_limit(RLIMIT_NPROC, o->rlimit_nproc, o->rlimit_nproc) != 0) child_fail(report_fd, SANDBOX_STAGE_RLIMIT);
    if (o->change_ids) {
        if (syscall(SYS_setresgid, o->gid, o->gid, o->gid) != 0) child_fail(report_fd, SANDBOX_STAGE_IDS);
        if (syscall(SYS_setresuid, o->uid, o->uid, o->uid) != 0) child_fail(report_fd, SANDBOX_STAGE_IDS);
    }

    confine(o, a);

    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) != 0) child_fail(report_fd, SANDBOX_STAGE_SIGNALS);

    if (o->path == NULL) _exit(0);   // a probe: everything applied
    execve(o->path, o->argv, o->envp);
    child_fail(report_fd, SANDBOX_STAGE_EXEC);
}

/// The child's entry on its own stack: never returns.
static int child_entry(void *p) {
    const struct child_args *a = p;
    close(a->close_fd);   // the child's own descriptor table (no CLONE_FILES)
    child_main(a->options, a);
    return 127;
}

/// The child's stack (and with a PID namespace, the program's, above it): far more than
/// child_main needs, with no guard page below it (it runs only our own code, a few frames deep).
#define CHILD_STACK_BYTES (256 * 1024)

static void reap(pid_t pid, int *status) {
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {}
}

/// Sets `failure` and returns -1.
static pid_t failed(struct sandbox_failure *failure, int stage, int error) {
    failure->stage = stage;
    failure->error = error;
    failure->detail = -1;
    return -1;
}

/// After the clone: reads the child's report, reaps the launched process when it was only the
/// program's launcher (PID namespace) and every process of a failed launch. The program's pid or -1.
static pid_t collect(const struct sandbox_options *o, pid_t pid, pid_t program, int report_fd,
                     struct sandbox_failure *failure) {
    struct sandbox_failure f;
    ssize_t n;
    do { n = read(report_fd, &f, sizeof f); } while (n < 0 && errno == EINTR);
    close(report_fd);
    int status = 0;
    if (o->namespaces && o->pid_namespace) {
        reap(pid, &status);   // it has ended: the clone returned only then
        pid = program;
    }
    if (n == (ssize_t)sizeof f) {
        if (pid > 0) reap(pid, &status);
        *failure = f;
        return -1;
    }
    if (pid <= 0 || status != 0) {
        // The launcher of the program ended without a report (killed): nothing may be left.
        if (pid > 0) { kill(pid, SIGKILL); reap(pid, &status); }
        return failed(failure, SANDBOX_STAGE_PID_NAMESPACE, ECHILD);
    }
    return pid;   // end of file: execve succeeded (or a probe finished setting up)
}

pid_t sandbox_spawn(const struct sandbox_options *o, struct sandbox_failure *failure) {
    failed(failure, SANDBOX_STAGE_NONE, 0);
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return failed(failure, SANDBOX_STAGE_PIPE, errno);
    // The id maps are formatted here: the child may not call snprintf. The ids inside are the
    // ids the child runs as outside (identity maps). They can be written while the child is root
    // or dumpable: a non-root child of a non-dumpable parent stays unmapped (the overflow id
    // inside), since making its copy of the parent's memory dumpable would expose it.
    uid_t uid = o->change_ids ? o->uid : geteuid();
    gid_t gid = o->change_ids ? o->gid : getegid();
    char uid_map[64], gid_map[64];
    int uid_len = snprintf(uid_map, sizeof uid_map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
    int gid_len = snprintf(gid_map, sizeof gid_map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
    int map_ids = geteuid() == 0 || prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1;
    int pid_ns = o->namespaces && o->pid_namespace;

    // The Landlock ruleset, the seccomp program and the pidfd are made here: making them
    // allocates and opens files, which the child may not do.
    volatile pid_t program = 0;
    struct child_args args = { o, report[1], report[0], map_ids, uid_map, gid_map, (size_t)uid_len, (size_t)gid_len,
                               getpid(), -1, NULL, -1, NULL, &program };
    struct sock_fprog filter = { 0, NULL };
    int stage = SANDBOX_STAGE_NONE, error = 0;
    if (o->landlock && (args.landlock_fd = sandbox_landlock_build(o->read_paths, o->write_paths, &error)) < 0) {
        stage = SANDBOX_STAGE_LANDLOCK;
    } else if (o->seccomp && (error = sandbox_seccomp_build(o->seccomp_allow_unix, &filter)) != 0) {
        stage = SANDBOX_STAGE_SECCOMP;
    } else if (pid_ns && (args.parent_fd = (int)syscall(SYS_pidfd_open, getpid(), 0)) < 0) {
        stage = SANDBOX_STAGE_PID_NAMESPACE;
        error = errno;
    }
    if (o->seccomp) args.filter = &filter;
    size_t stack_bytes = pid_ns ? 2 * CHILD_STACK_BYTES : CHILD_STACK_BYTES;
    void *stack = stage ? MAP_FAILED
                        : mmap(NULL, stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) {
        if (!stage) { stage = SANDBOX_STAGE_FORK; error = errno; }
        if (args.landlock_fd >= 0) close(args.landlock_fd);
        if (args.parent_fd >= 0) close(args.parent_fd);
        sandbox_seccomp_free(&filter);
        close(report[0]);
        close(report[1]);
        return failed(failure, stage, error);
    }
    args.program_stack = (char *)stack + stack_bytes;

    // Every signal blocked across the clone: no handler of the parent may run in the child (it
    // has copies of the parent's handlers until it resets them, and shares its memory).
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = clone(child_entry, (char *)stack + CHILD_STACK_BYTES, CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    // The child has called execve or exited (and so has the program's process it started): the
    // stacks, the ruleset, the filter and the pidfd are free again.
    munmap(stack, stack_bytes);
    if (args.landlock_fd >= 0) close(args.landlock_fd);
    if (args.parent_fd >= 0) close(args.parent_fd);
    sandbox_seccomp_free(&filter);
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        return failed(failure, SANDBOX_STAGE_FORK, fork_errno);
    }
    return collect(o, pid, program, report[0], failure);
}

int sandbox_set_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : errno;
}

int sandbox_set_nondumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : errno;
}

int sandbox_get_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
}

int sandbox_set_thread_niceness(int niceness) {
    pid_t tid = (pid_t)syscall(SYS_gettid);
    errno = 0;
    int current = getpriority(PRIO_PROCESS, (id_t)tid);
    if (current == -1 && errno != 0) return errno;
    if (current >= niceness) return 0;   // never raised
    return setpriority(PRIO_PROCESS, (id_t)tid, niceness) == 0 ? 0 : errno;
}

int sandbox_get_thread_niceness(void) {
    pid_t tid = (pid_t)syscall(SYS_gettid);
    errno = 0;
    return getpriority(PRIO_PROCESS, (id_t)tid);
}
