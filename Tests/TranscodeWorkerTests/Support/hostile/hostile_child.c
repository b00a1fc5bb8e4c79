// A job child taken over by a hostile upload, put in transcode-job's place by HostileChildTests.
// It tries each attack once and writes one line per attack to standard error:
//   ATTACK <name> BLOCKED|SUCCEEDED <detail>
// The targets are compiled in (-D): TCP_PORT, UDP_PORT, OTHER_OBJECT, SECRET_FILE,
// OTHER_WORKSPACE_FILE, OUTSIDE_FILE. It never reports a result, so the job fails.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void report(const char *name, int succeeded, const char *detail) {
    fprintf(stderr, "ATTACK %s %s %s\n", name, succeeded ? "SUCCEEDED" : "BLOCKED", detail);
    fflush(stderr);
}

static void report_errno(const char *name, int succeeded) {
    report(name, succeeded, succeeded ? "-" : strerror(errno));
}

/// Connects a socket of `type` to 127.0.0.1:`port` and sends a byte: 1 when the byte left.
static int reach_loopback(int type, int port) {
    int s = socket(AF_INET, type, 0);
    if (s < 0) return 0;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = connect(s, (struct sockaddr *)&a, sizeof a) == 0 && send(s, "x", 1, 0) == 1;
    int e = errno;
    close(s);
    errno = e;
    return ok;
}

/// Reads a byte of `path`: 1 when it could.
static int read_file(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    char c;
    int ok = read(fd, &c, 1) == 1;
    int e = errno;
    close(fd);
    errno = e;
    return ok;
}

/// Reads /proc/<pid>/environ of every other process: how many could be read.
static int read_environs(void) {
    DIR *d = opendir("/proc");
    if (!d) return 0;
    int n = 0, last_errno = errno;
    for (struct dirent *e; (e = readdir(d));) {
        int pid = atoi(e->d_name);
        if (pid <= 0 || pid == getpid()) continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/environ", pid);
        if (read_file(path)) n++; else last_errno = errno;
    }
    closedir(d);
    errno = last_errno;
    return n;
}

/// A grandchild in a session of its own, its parent gone, holding no descriptor of the job:
/// its pid is written to standard error. 1 when it was made.
static int leave_survivor(void) {
    int p[2];
    if (pipe(p) != 0) return 0;
    pid_t child = fork();
    if (child < 0) return 0;
    if (child == 0) {
        setsid();
        pid_t grandchild = fork();
        if (grandchild == 0) {
            signal(SIGHUP, SIG_IGN);
            signal(SIGTERM, SIG_IGN);
            pid_t me = getpid();
            (void)write(p[1], &me, sizeof me);
            for (int fd = 0; fd < 256; fd++) close(fd);
            for (;;) pause();
        }
        _exit(grandchild > 0 ? 0 : 1);
    }
    close(p[1]);
    pid_t survivor = 0;
    int ok = read(p[0], &survivor, sizeof survivor) == (ssize_t)sizeof survivor;
    close(p[0]);
    waitpid(child, NULL, 0);
    if (ok) fprintf(stderr, "SURVIVOR %d\n", (int)survivor);
    return ok;
}

/// Forks until fork fails or 5000 processes run: how many it made.
static int fork_bomb(void) {
    int n = 0;
    for (; n < 5000; n++) {
        pid_t p = fork();
        if (p < 0) break;
        if (p == 0) {
            for (int fd = 0; fd < 256; fd++) close(fd);
            for (;;) pause();
        }
    }
    return n;
}

int main(void) {
    char detail[64];
    report_errno("tcp_loopback", reach_loopback(SOCK_STREAM, TCP_PORT));
    report_errno("udp_loopback", reach_loopback(SOCK_DGRAM, UDP_PORT));
    report_errno("other_room_object", read_file(OTHER_OBJECT));
    report_errno("home_secret", read_file(SECRET_FILE));
    report_errno("other_workspace", read_file(OTHER_WORKSPACE_FILE));
    int environs = read_environs();
    snprintf(detail, sizeof detail, "%d readable", environs);
    report("proc_environ", environs > 0, detail);
    int fd = open(OUTSIDE_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    report_errno("write_outside", fd >= 0 && write(fd, "x", 1) == 1);
    report_errno("ptrace_worker", ptrace(PTRACE_ATTACH, getppid(), 0, 0) == 0);
    report_errno("new_namespace", unshare(CLONE_NEWUSER) == 0);
    // The survivor is reported as made; the test checks that it is gone after the job.
    report_errno("setsid_grandchild_made", leave_survivor());
    int forks = fork_bomb();
    snprintf(detail, sizeof detail, "%d forks, then %s", forks, strerror(errno));
    report("fork_bomb", forks >= 5000, detail);
    fprintf(stderr, "HOSTILE DONE\n");
    return 0;
}
