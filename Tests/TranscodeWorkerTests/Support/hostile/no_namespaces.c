// Runs a program as a container runtime's default seccomp profile would (Docker's default,
// Kubernetes' RuntimeDefault): no new namespaces (unshare, setns and clone with a namespace flag
// are refused, clone3 does not exist), no new privileges, and as root first becomes UID:GID.
// With --no-landlock, Landlock's calls do not exist either (a kernel or a profile without it).
//   no_namespaces [--no-landlock] UID GID PROGRAM [ARGUMENT...]     (UID -1: keep the current ids)
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int fail(const char *what) {
    perror(what);
    return 126;
}

int main(int argc, char **argv) {
    int no_landlock = argc > 1 && strcmp(argv[1], "--no-landlock") == 0;
    if (no_landlock) {
        argv++;
        argc--;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: no_namespaces UID GID PROGRAM [ARGUMENT...]\n");
        return 2;
    }
    long uid = strtol(argv[1], NULL, 10), gid = strtol(argv[2], NULL, 10);
    if (uid >= 0) {
        if (setgroups(0, NULL) != 0) return fail("setgroups");
        if (setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) != 0) return fail("setresgid");
        if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) return fail("setresuid");
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail("PR_SET_NO_NEW_PRIVS");
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) return fail("seccomp_init");
    const unsigned long flags[] = { CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC,
                                    CLONE_NEWUTS, CLONE_NEWCGROUP, 0x00000080 /* CLONE_NEWTIME */ };
    int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0);
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 0);
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    if (rc == 0 && no_landlock) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(landlock_create_ruleset), 0);
    for (size_t i = 0; rc == 0 && i < sizeof flags / sizeof *flags; i++) {
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flags[i], flags[i]));
    }
    if (rc == 0) rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc != 0) {
        errno = -rc;
        return fail("seccomp");
    }
    execv(argv[3], argv + 3);
    return fail(argv[3]);
}
