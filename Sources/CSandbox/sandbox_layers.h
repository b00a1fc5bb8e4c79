// The layers the launcher builds in the parent (where allocating and opening files is allowed)
// and the child applies with single system calls between clone and execve.
#ifndef SANDBOX_LAYERS_H
#define SANDBOX_LAYERS_H

#include <linux/filter.h>

/// A Landlock ruleset for `read_paths` and `write_paths` (see sandbox_options), read paths under
/// /proc left to sandbox_landlock_apply: its descriptor (close-on-exec), or -1 with `*error` set.
int sandbox_landlock_build(const char *const *read_paths, const char *const *write_paths, int *error);

/// Confines the calling thread by the ruleset `fd` (no new privileges must be set), after adding
/// the read paths under /proc as this process sees them, and its own /proc/self/maps (a
/// descriptor to it stays open across execve). Raw system calls only. 0 or -1.
int sandbox_landlock_apply(int fd, const char *const *read_paths);

/// Builds the child's root from `o->mounts` (see sandbox_options) in the mount namespace the
/// calling process just entered. 0, or -1 with errno and `*failed` the index of the failed step
/// (-1: one of the steps around them). Raw system calls only.
int sandbox_mounts_apply(const struct sandbox_options *o, int *failed);

/// The job child's seccomp program (malloc'd into `prog->filter`; free it with
/// sandbox_seccomp_free). Returns 0 or an errno.
int sandbox_seccomp_build(int allow_unix, struct sock_fprog *prog);

/// Installs `prog` on the calling thread (no new privileges must be set). 0 or -1.
int sandbox_seccomp_apply(const struct sock_fprog *prog);

void sandbox_seccomp_free(struct sock_fprog *prog);

#endif
