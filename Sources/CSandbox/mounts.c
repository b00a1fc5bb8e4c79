// The job child's mount namespace: a root of its own, a fresh tmpfs holding bind mounts of exactly
// the paths its Landlock rules name, at the same places, a /proc of its PID namespace and
// /dev/null. The steps are worked out in the worker (which may allocate and look at the file
// system); the child only carries them out, with single system calls, between clone and execve.
//
// The order: every mount of the new namespace private (nothing propagates to or from the
// worker's), a tmpfs on `mount_base`, made the root with pivot_root so that the old root stays
// reachable beneath SANDBOX_OLD_ROOT (the sources of the bind mounts are named there, so a
// source under `mount_base` is not hidden by the tmpfs), the steps, then the old root detached
// and the tmpfs made read-only.
#define _GNU_SOURCE
#include "csandbox.h"
#include "sandbox_layers.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Carries out one step. 0 or -1 with errno.
static int mount_step(const struct sandbox_mount *m) {
    switch (m->kind) {
    case SANDBOX_MOUNT_DIR:
        return mkdir(m->target, 0755);
    case SANDBOX_MOUNT_FILE: {
        int fd = open(m->target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) return -1;
        close(fd);
        return 0;
    }
    case SANDBOX_MOUNT_LINK:
        return symlink(m->source, m->target);
    case SANDBOX_MOUNT_BIND:
        // Recursive: a mount beneath the source that the namespace holds locked cannot be left out.
        if (mount(m->source, m->target, NULL, MS_BIND | MS_REC, NULL) != 0) return -1;
        return mount(NULL, m->target, NULL, MS_REMOUNT | MS_BIND | m->flags, NULL);
    case SANDBOX_MOUNT_PROC:
        return mount("proc", m->target, "proc", m->flags, NULL);
    default:
        errno = EINVAL;
        return -1;
    }
}

int sandbox_mounts_apply(const struct sandbox_options *o, int *failed) {
    *failed = -1;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return -1;
    if (mount("tmpfs", o->mount_base, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") != 0) return -1;
    // pivot_root(".", put_old) from inside the new tmpfs: it becomes the root, the old root its
    // subdirectory.
    if (chdir(o->mount_base) != 0 || mkdir(&SANDBOX_OLD_ROOT[1], 0700) != 0) return -1;
    if (syscall(SYS_pivot_root, ".", &SANDBOX_OLD_ROOT[1]) != 0 || chdir("/") != 0) return -1;
    for (size_t i = 0; i < o->mount_count; i++) {
        if (mount_step(&o->mounts[i]) != 0) {
            *failed = (int)i;
            return -1;
        }
    }
    if (umount2(SANDBOX_OLD_ROOT, MNT_DETACH) != 0 || rmdir(SANDBOX_OLD_ROOT) != 0) return -1;
    return mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL);
}
