// The job child's seccomp filter, built with libseccomp in the parent and exported as a BPF
// program that the child installs with one system call.
//
// A deny-list, not an allow-list: the child is a Swift program whose runtime, Foundation and
// glibc change the system calls they make from one release to the next (clone3, rseq,
// getrandom, statx, faccessat2, …), so an allow-list derived from today's trace would break on the
// next toolchain with a kill in production. What is refused instead is everything that reaches
// beyond the process: other processes' memory, the kernel's keyring, BPF and perf, mounts,
// namespaces, modules, clocks, io_uring (which would carry file and network operations past this
// filter), and every socket family but AF_UNIX (docs/SECURITY.md tells how the list was checked
// against the child's real calls). A refused call fails with EPERM (clone3 with ENOSYS, so the C
// library falls back to clone, whose flags can be inspected). Calls of another architecture
// (i386 through int 0x80) kill the process: libseccomp's default for a foreign architecture.
#define _GNU_SOURCE
#include "csandbox.h"
#include "sandbox_layers.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/// Refused outright (names the installed libseccomp does not know are skipped: a system call
/// older than the library's table does not exist on that architecture).
static const char *const refused[] = {
    // Other processes.
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp", "pidfd_getfd",
    "move_pages", "migrate_pages",
    // The kernel's keyring, BPF, perf, userfaultfd, io_uring.
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    // Mounts and namespaces (the launcher's own are made before the filter).
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
    "fspick", "mount_setattr", "setns", "unshare",
    // The machine: modules, reboot, swap, clocks, names, accounting, quotas, ports, the log.
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "swapon", "swapoff", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname",
    "setdomainname", "acct", "quotactl", "quotactl_fd", "iopl", "ioperm", "syslog", "vhangup",
    "uselib", "nfsservctl", "lookup_dcookie", "fanotify_init", "open_by_handle_at", "name_to_handle_at",
};

static const unsigned long namespace_flags[] = {
    CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP, CLONE_NEWTIME,
};

/// The rules on the context; 0 or a negative errno.
static int add_rules(scmp_filter_ctx ctx, int allow_unix) {
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof refused / sizeof *refused; i++) {
        int nr = seccomp_syscall_resolve_name(refused[i]);
        if (nr == __NR_SCMP_ERROR) continue;
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
    }
    // clone: refused when it asks for any namespace; clone3's flags sit in memory the filter
    // cannot read, so it is refused as if it did not exist.
    for (size_t i = 0; rc == 0 && i < sizeof namespace_flags / sizeof *namespace_flags; i++) {
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, namespace_flags[i], namespace_flags[i]));
    }
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    // Sockets: AF_UNIX when allowed, no other family.
    if (rc == 0 && allow_unix) {
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
        if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socketpair), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
    } else if (rc == 0) {
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 0);
        if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socketpair), 0);
    }
    return rc;
}

/// Reads the whole of `fd` (from its start) into a new buffer.
static int read_all(int fd, void **out, size_t *len) {
    struct stat st;
    if (fstat(fd, &st) != 0) return errno;
    if (st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0) return EINVAL;
    char *buf = malloc((size_t)st.st_size);
    if (!buf) return ENOMEM;
    size_t done = 0;
    while (done < (size_t)st.st_size) {
        ssize_t n = pread(fd, buf + done, (size_t)st.st_size - done, (off_t)done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            free(buf);
            return n < 0 ? errno : EIO;
        }
        done += (size_t)n;
    }
    *out = buf;
    *len = done;
    return 0;
}

int sandbox_seccomp_build(int allow_unix, struct sock_fprog *prog) {
    prog->len = 0;
    prog->filter = NULL;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) return ENOMEM;
    int rc = add_rules(ctx, allow_unix);
    // libseccomp 2.5 exports to a descriptor only.
    int fd = rc == 0 ? memfd_create("seccomp-bpf", MFD_CLOEXEC) : -1;
    if (rc == 0 && fd < 0) rc = -errno;
    if (rc == 0) rc = seccomp_export_bpf(ctx, fd);
    seccomp_release(ctx);
    void *bytes = NULL;
    size_t len = 0;
    if (rc == 0) rc = -read_all(fd, &bytes, &len);
    if (fd >= 0) close(fd);
    if (rc != 0) return rc < 0 ? -rc : rc;
    prog->filter = bytes;
    prog->len = (unsigned short)(len / sizeof(struct sock_filter));
    return 0;
}

int sandbox_seccomp_apply(const struct sock_fprog *prog) {
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog);
}

void sandbox_seccomp_free(struct sock_fprog *prog) {
    free(prog->filter);
    prog->filter = NULL;
    prog->len = 0;
}

int sandbox_seccomp_available(void) {
    struct sock_fprog prog;
    int rc = sandbox_seccomp_build(0, &prog);
    if (rc != 0) return rc;
    pid_t pid = fork();
    if (pid < 0) {
        rc = errno;
        sandbox_seccomp_free(&prog);
        return rc;
    }
    if (pid == 0) {
        // A throwaway child: no new privileges, the filter, then a refused call must fail.
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(1);
        if (sandbox_seccomp_apply(&prog) != 0) _exit(2);
        _exit(syscall(SYS_socket, AF_INET, SOCK_STREAM, 0) < 0 && errno == EAFNOSUPPORT ? 0 : 3);
    }
    sandbox_seccomp_free(&prog);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    return EPERM;
}
