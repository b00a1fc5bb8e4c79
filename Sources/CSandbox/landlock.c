// Landlock for the job child: a ruleset built in the parent from the paths the child may use,
// applied in the child by one system call. The constants and structures are spelt out here, as
// the kernel documents them, because the C library headers of older distributions lag behind
// the kernel (Debian 12's stop at ABI 2).
#define _GNU_SOURCE
#include "csandbox.h"
#include "sandbox_layers.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1

// File system rights, by the ABI that introduced them.
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)      // ABI 2
#define LL_FS_TRUNCATE (1ULL << 14)   // ABI 3
#define LL_FS_IOCTL_DEV (1ULL << 15)  // ABI 5
// Network rights (ABI 4) and scopes (ABI 6).
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

/// `struct landlock_ruleset_attr` at its largest; the size passed says which fields the kernel reads.
struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

int sandbox_landlock_abi(int *error) {
    long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
    if (v < 0) {
        *error = errno;
        return 0;
    }
    *error = 0;
    return (int)v;
}

/// Every file system right the kernel of ABI `abi` knows: all are handled, so every one not
/// granted below is refused.
static uint64_t fs_rights(int abi) {
    uint64_t r = (LL_FS_MAKE_SYM << 1) - 1;
    if (abi >= 2) r |= LL_FS_REFER;
    if (abi >= 3) r |= LL_FS_TRUNCATE;
    if (abi >= 5) r |= LL_FS_IOCTL_DEV;
    return r;
}

/// What a file (not a folder) can be granted.
#define LL_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

/// Adds a rule granting `rights` (within `handled`) beneath `path`. A missing path is skipped
/// when `optional`. 0 or an errno.
static int add_path(int ruleset, const char *path, uint64_t rights, uint64_t handled, int optional) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return (optional && (errno == ENOENT || errno == ENOTDIR)) ? 0 : errno;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return e;
    }
    struct ll_path_beneath_attr rule = { rights & handled, fd };
    if (!S_ISDIR(st.st_mode)) rule.allowed_access &= LL_FILE_RIGHTS;
    int rc = syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) == 0 ? 0 : errno;
    close(fd);
    return rc;
}

/// True for /proc and the paths beneath it.
static int in_proc(const char *path) {
    static const char proc[] = "/proc";
    for (size_t i = 0; i < sizeof proc - 1; i++) {
        if (path[i] != proc[i]) return 0;
    }
    return path[sizeof proc - 1] == 0 || path[sizeof proc - 1] == '/';
}

int sandbox_landlock_build(const char *const *read_paths, const char *const *write_paths, int *error) {
    int abi = sandbox_landlock_abi(error);
    if (abi < 1) return -1;
    struct ll_ruleset_attr attr = { fs_rights(abi), 0, 0 };
    size_t size = sizeof attr.handled_access_fs;
    if (abi >= 4) {
        // Handled and granted to no port: no TCP bind or connect at all.
        attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
        size = offsetof(struct ll_ruleset_attr, scoped);
    }
    if (abi >= 6) {
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
        size = sizeof attr;
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) {
        *error = errno;
        return -1;
    }
    const uint64_t read = LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR;
    const uint64_t write = LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE
        | LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_REFER | LL_FS_TRUNCATE;
    int rc = 0;
    for (const char *const *p = read_paths; rc == 0 && p && *p; p++) {
        if (!in_proc(*p)) rc = add_path(ruleset, *p, read, attr.handled_access_fs, 1);
    }
    for (const char *const *p = write_paths; rc == 0 && p && *p; p++) rc = add_path(ruleset, *p, write, attr.handled_access_fs, 0);
    if (rc != 0) {
        close(ruleset);
        *error = rc;
        return -1;
    }
    *error = 0;
    return ruleset;
}

/// Grants read (and execute) beneath `path` as the calling process sees it; a missing path is
/// skipped. Async-signal-safe calls only: safe between clone and execve. 0 or -1.
static int add_own_path(int ruleset, const char *path, int abi) {
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_PATH | O_CLOEXEC);
    if (fd < 0) return (errno == ENOENT || errno == ENOTDIR) ? 0 : -1;
    struct stat st;
    int rc = fstat(fd, &st);   // async-signal-safe, as close is
    struct ll_path_beneath_attr rule = { (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR) & fs_rights(abi), fd };
    if (rc == 0 && !S_ISDIR(st.st_mode)) rule.allowed_access &= LL_FILE_RIGHTS;
    if (rc == 0) rc = (int)syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc == 0 ? 0 : -1;
}

int sandbox_landlock_apply(int fd, const char *const *read_paths) {
    // Paths under /proc name what the child sees there: its own mount namespace's /proc, and in
    // it /proc/self is the child (the worker's own would be named by a rule made in the worker).
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
    if (abi < 1) return -1;
    for (const char *const *p = read_paths; p && *p; p++) {
        if (in_proc(*p) && add_own_path(fd, *p, (int)abi) != 0) return -1;
    }
    // The Swift runtime finds a program's arguments through /proc/self/maps (the stack's place),
    // so the child may read its own: a rule made here, in the child, names the child's file, and
    // the descriptor stays open across execve, which keeps that file's directory entry (and so
    // the inode the rule is attached to) the one /proc/self/maps resolves to afterwards.
    int maps = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_PATH);
    if (maps < 0) return -1;
    struct ll_path_beneath_attr rule = { LL_FS_READ_FILE, maps };
    if (syscall(SYS_landlock_add_rule, fd, LL_RULE_PATH_BENEATH, &rule, 0) != 0) return -1;
    return syscall(SYS_landlock_restrict_self, fd, 0) == 0 ? 0 : -1;
}
