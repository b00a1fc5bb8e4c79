#ifndef PROCESS_GUARD_H
#define PROCESS_GUARD_H

/// What every command does to itself first, in C because prctl(2) is variadic and so not
/// callable from Swift.

/// PR_SET_DUMPABLE 0 for the calling process: processes of the same uid (without
/// CAP_SYS_PTRACE) can no longer read its /proc/<pid>/environ, mem or maps, nor ptrace it, and
/// it leaves no core dump. Returns 0 or errno.
int process_guard_set_nondumpable(void);

/// The calling process's PR_GET_DUMPABLE: 1 dumpable, 0 not, -1 on error.
int process_guard_dumpable(void);

#endif
