/* The ioctl layer must never harm (issue #15), whatever the program does
 * with its descriptors and mappings; run by tests/cases/ioctl/
 * ioctl_never_harm.sh, bare and under cutap, outputs compared.
 *   badpath     open*() of bad path pointers: EFAULT, as without cutap;
 *               and EINVAL where the flags are refused before the path is
 *               read (O_TMPFILE without write access): no fault either
 *   stale DIR   a device descriptor closed where cutap cannot see it (a
 *               forked child's closefrom), its number reused for the trace
 *               file of the child: no hang, nothing misrecorded
 *   vfork DIR   a vfork child closing its parent's descriptors before exec
 *               (what subprocess does): the parent's later requests on its
 *               still-open device descriptor are still recorded, and on a
 *               duplicate made by fcntl(F_DUPFD_CLOEXEC)
 *   maps DIR    a device mapping replaced by MAP_FIXED, another unmapped
 *               in two pieces (from inside, then the rest): a later munmap
 *               of other memory at the same address is not taken for a
 *               device's; an mremap over two device pages and a hole,
 *               which fails, leaves the hole no device's
 *   jump DIR    with a device mapping held, a thread unmapping ordinary
 *               memory over and over while a signal handler siglongjmps
 *               out of it (legal: munmap is async-signal-safe), 2,000
 *               times; then the main thread's munmap must return (under
 *               alarm(10): a lock left held by a jump would hang it)
 * DIR: the device directory (CUTAP_NV_DEVDIR) with nvidiactl and nvidia0. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* An RM_FREE (NVOS00: 16 bytes) on a handle the fake driver knows nothing of. */
#define RM_FREE 0xc0104629ul

static int dev_open(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return open(p, O_RDWR | O_CLOEXEC);
}

static void rm_free(int fd, const char *what)
{
    unsigned char b[16] = {0};
    int r = ioctl(fd, RM_FREE, b);
    printf("%s: %d %s\n", what, r, r ? strerror(errno) : "ok");
}

static sigjmp_buf jump_env;
static volatile sig_atomic_t jumps, armed;
static void jump_out(int sig)
{
    (void)sig;
    if (!armed)
        return;
    jumps++;
    siglongjmp(jump_env, 1);
}
static void *unmapper(void *arg)
{
    (void)arg;
    sigsetjmp(jump_env, 1);
    armed = 1;
    for (;;) {
        void *p = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED)
            munmap(p, 8192);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *mode = argc > 1 ? argv[1] : "", *dir = argc > 2 ? argv[2] : ".";
    if (!strcmp(mode, "badpath")) {
        char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        errno = 0;
        int a = open(none, O_RDONLY), ea = errno;
        errno = 0;
        int b = openat(AT_FDCWD, (const char *)8, O_RDONLY), eb = errno;
        errno = 0;
        int c = open((const char *)8, O_RDWR | O_CREAT, 0600), ec = errno;
        printf("open(PROT_NONE page) %d %s; openat((char *)8) %d %s; open(O_CREAT, (char *)8) %d %s\n", a,
               strerror(ea), b, strerror(eb), c, strerror(ec));
        errno = 0;
        int d = open(none, O_TMPFILE | O_RDONLY), ed = errno;
        errno = 0;
        int e = openat(AT_FDCWD, (const char *)8, O_CREAT | O_DIRECTORY, 0600), ee = errno;
        printf("open(O_TMPFILE|O_RDONLY, PROT_NONE page) %d %s; openat(O_CREAT|O_DIRECTORY, (char *)8) %d %s\n", d,
               strerror(ed), e, strerror(ee));
    } else if (!strcmp(mode, "stale")) {
        int fd = dev_open(dir, "nvidiactl");
        rm_free(fd, "parent, before");
        fflush(stdout);
        pid_t pid = fork();
        if (!pid) {
            closefrom(3);   /* glibc's close_range system call: no wrapper sees it */
            int g;
            while ((g = open("/dev/null", O_RDONLY)) >= 0 && g < fd - 1) {
            }
            int h = dev_open(dir, "nvidiactl");
            rm_free(h, "child");
            _exit(h >= 0 ? 0 : 1);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        printf("child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        rm_free(fd, "parent, after");
    } else if (!strcmp(mode, "vfork")) {
        int fd = dev_open(dir, "nvidiactl");
        rm_free(fd, "before");
        pid_t pid = vfork();
        if (!pid) {
            close_range(3, ~0u, 0);
            execl("/bin/true", "true", (char *)NULL);
            _exit(127);
        }
        waitpid(pid, NULL, 0);
        rm_free(fd, "after 1");
        rm_free(fd, "after 2");
        int d = fcntl(fd, F_DUPFD_CLOEXEC, 100);   /* a duplicate made by fcntl is the device too */
        rm_free(d, "fcntl(F_DUPFD_CLOEXEC) duplicate");
        close(d);
        close(fd);
    } else if (!strcmp(mode, "jump")) {
        int fd = dev_open(dir, "nvidia0");
        if (fd < 0 || ftruncate(fd, 1 << 20))
            return 1;
        char *d = mmap(NULL, 65536, PROT_READ, MAP_SHARED, fd, 0);
        signal(SIGUSR1, jump_out);
        pthread_t t;
        pthread_create(&t, NULL, unmapper, NULL);
        while (!armed)
            usleep(100);
        for (int i = 0; i < 2000; i++) {
            pthread_kill(t, SIGUSR1);
            usleep(100);
        }
        alarm(10);
        void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        int r = munmap(p, 4096);
        alarm(0);
        printf("jump: munmap after %s: %d\n", jumps > 100 ? "many jumps" : "few jumps", r);
        munmap(d, 65536);
        close(fd);
        fflush(stdout);
        _exit(0);   /* (the unmapping thread runs on) */
    } else if (!strcmp(mode, "maps")) {
        int fd = dev_open(dir, "nvidia0");
        if (ftruncate(fd, 1 << 20))
            return 1;
        char *d = mmap(NULL, 65536, PROT_READ, MAP_SHARED, fd, 0);
        /* anonymous memory laid over the device mapping, then unmapped */
        char *a = mmap(d, 65536, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        printf("fixed over: %s\n", a == d ? "same address" : "moved");
        munmap(a, 65536);
        /* a device mapping unmapped from inside, then its start reused */
        char *e = mmap(NULL, 65536, PROT_READ, MAP_SHARED, fd, 0);
        munmap(e + 4096, 8192);
        munmap(e, 65536);
        char *f = mmap(e, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        munmap(f, 4096);
        /* two device pages with a hole between: an mremap over all three
         * fails (EFAULT); the hole is then no device's when memory of
         * another kind is laid there and unmapped */
        char *r = mmap(NULL, 3 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        char *p1 = mmap(r, 4096, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
        munmap(r + 4096, 4096);
        char *p2 = mmap(r + 8192, 4096, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
        void *q = mremap(r, 3 * 4096, 4 * 4096, MREMAP_MAYMOVE);
        printf("mremap over a hole: %s\n", q == MAP_FAILED ? strerror(errno) : "moved");
        char *g = mmap(r + 4096, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        munmap(g, 4096);
        munmap(p1, 4096);
        munmap(p2, 4096);
        close(fd);
        printf("maps done\n");
    } else {
        fprintf(stderr, "t_ioctl_harm: unknown mode\n");
        return 2;
    }
    return 0;
}
