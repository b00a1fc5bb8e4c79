#include "process_guard.h"

#include <errno.h>
#include <sys/prctl.h>

int process_guard_set_nondumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : errno;
}

int process_guard_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
}
