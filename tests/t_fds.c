/* A program that manages its descriptors as daemons and careful programs
 * do (case fds_program_owns_its_numbers): cutap must never write into a
 * file of the program's, never hold a number the program expects back.
 *
 *   t_fds reuse N DATA [RM]   N calls; then every descriptor from 3 up is
 *                  closed (a loop to the soft limit, as os.closerange and
 *                  daemons do), DATA (1,000 bytes, made here) opened again
 *                  and placed on every number from 3 to 1,000 (so that it
 *                  holds whatever number cutap had), and N more calls made.
 *                  With RM (a directory): its *.cutap files are removed
 *                  first, so cutap cannot open its file again.
 *                  Prints DATA's size and whether its bytes are unchanged.
 *   t_fds lock N DATA    as reuse, with a POSIX write lock on DATA taken
 *                  before the N calls after: a child then tests that the
 *                  lock is still held (closing any descriptor of a file
 *                  drops a process's locks on it: cutap must never close
 *                  one of the program's files)
 *   t_fds std DATA closes 0, 1 and 2, makes its first calls, then opens /dev/null
 *                  and DATA expecting descriptors 0 and 1 (stdin, stdout),
 *                  as a daemon does; exits 1 if it got others.
 * Prints "CALL cuCtxGetCurrent" lines only as a count ("calls N"). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda_min.h"

static char data[1000];

static void calls(long n)
{
    CUcontext c;
    for (long i = 0; i < n; i++)
        cuCtxGetCurrent(&c);
}

static int check_data(const char *path)
{
    char got[sizeof data + 1];
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, got, sizeof got);
    struct stat st;
    fstat(fd, &st);
    close(fd);
    printf("data: %lld bytes, %s\n", (long long)st.st_size,
           n == (ssize_t)sizeof data && !memcmp(got, data, sizeof data) ? "unchanged" : "CHANGED");
    return 0;
}

static void remove_traces(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[4096];
    while (d && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 6 && !strcmp(e->d_name + l - 6, ".cutap")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    }
    if (d)
        closedir(d);
}

int main(int argc, char **argv)
{
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)('a' + i % 26);
    int lock = argc >= 4 && !strcmp(argv[1], "lock");
    if (lock || (argc >= 4 && !strcmp(argv[1], "reuse"))) {
        long n = atol(argv[2]);
        const char *path = argv[3];
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || write(fd, data, sizeof data) != (ssize_t)sizeof data)
            return 2;
        close(fd);
        if (cuInit(0))
            return 2;
        calls(n);
        fflush(stdout);
        if (!lock && argc >= 5)
            remove_traces(argv[4]);
        struct rlimit rl;
        getrlimit(RLIMIT_NOFILE, &rl);
        long top = rl.rlim_cur < 65536 ? (long)rl.rlim_cur : 65536;
        for (long i = 3; i < top; i++)
            close((int)i);
        /* the program's own file, at the lowest free number and on every
         * number up to 1,000, kept open (and locked) while it calls CUDA
         * again */
        fd = open(path, O_RDWR);
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        if (fd < 0 || (lock && fcntl(fd, F_SETLK, &fl)))
            return 2;
        for (int i = fd + 1; i <= 1000 && i < top; i++)
            if (dup2(fd, i) != i)
                return 2;
        calls(n);
        if (lock) {
            fflush(stdout);
            pid_t p = fork();
            if (!p) {
                struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
                int g = open(path, O_RDWR);
                _exit(g >= 0 && !fcntl(g, F_GETLK, &q) && q.l_type == F_WRLCK ? 0 : 1);
            }
            int st = 0;
            waitpid(p, &st, 0);
            printf("lock held: %s\n", WIFEXITED(st) && !WEXITSTATUS(st) ? "yes" : "NO");
            return check_data(path) ? 2 : 0;
        }
        printf("reopened at %d\n", fd);
        for (int i = fd; i <= 1000 && i < top; i++)
            close(i);
        printf("calls %ld\n", 2 * n + 1);
        return check_data(path) ? 2 : 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "std")) {
        close(0);
        close(1);
        close(2);
        if (cuInit(0))
            return 2;
        calls(1000);
        int in = open("/dev/null", O_RDONLY), out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
        calls(1000);
        dprintf(out, "stdin %d stdout %d\n", in, out);
        return in == 0 && out == 1 ? 0 : 1;
    }
    fprintf(stderr, "usage: t_fds reuse N DATA [RM] | lock N DATA | std DATA\n");
    return 2;
}
