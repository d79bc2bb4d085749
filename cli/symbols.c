/* Frames of recorded stacks (--stack) named at read time: an object's
 * path and an offset from its load address become "function+0x1a (lib)".
 * The object file is read on the reading machine (the same files as the
 * traced process's when read where it ran), its .symtab or else .dynsym,
 * function symbols only; every read is bounds-checked, so a file that is
 * not ELF, or a damaged or hostile one, names nothing and harms nothing.
 * Files are read once per command (a small cache). */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

struct sym {
    uint64_t value, size;
    const char *name;
};
struct elf_syms {
    char *path;
    uint64_t bias;             /* link-time address of the load address: the PT_LOAD at file offset 0 */
    struct sym *syms;          /* sorted by value */
    size_t n;
    const uint8_t *map;
    size_t size;
};
#define CACHE 64
static struct elf_syms cache[CACHE];
static unsigned ncache;

static int cmp_sym(const void *a, const void *b)
{
    const struct sym *x = a, *y = b;
    return x->value < y->value ? -1 : x->value > y->value;
}

static int in(size_t size, uint64_t off, uint64_t len)
{
    return off <= size && len <= size - off;
}

static void load(struct elf_syms *e)
{
    /* a regular file only: a device named by a hostile trace is never
     * opened (opening some acts: a watchdog, a tape) */
    struct stat st;
    if (stat(e->path, &st) || !S_ISREG(st.st_mode))
        return;
    int fd = open(e->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr) || st.st_size > (1LL << 32)) {
        close(fd);
        return;
    }
    size_t size = (size_t)st.st_size;
    const uint8_t *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return;
    Elf64_Ehdr eh;
    memcpy(&eh, m, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_phentsize != sizeof(Elf64_Phdr) ||
        !in(size, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)) ||
        !in(size, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr))) {
        munmap((void *)m, size);
        return;
    }
    e->map = m;
    e->size = size;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, m + eh.e_phoff + (uint64_t)i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_LOAD && ph.p_offset == 0) {
            e->bias = ph.p_vaddr;
            break;
        }
    }
    /* .symtab when there is one, else .dynsym */
    for (int want = SHT_SYMTAB; want >= 0 && !e->n; want = want == SHT_SYMTAB ? SHT_DYNSYM : -1) {
        int tried = 0;   /* the first section of the type only: a hostile file's thousands cost nothing */
        for (unsigned i = 0; i < eh.e_shnum && !e->n && !tried; i++) {
            Elf64_Shdr sh, str;
            memcpy(&sh, m + eh.e_shoff + (uint64_t)i * sizeof sh, sizeof sh);
            if ((int)sh.sh_type != want || sh.sh_entsize != sizeof(Elf64_Sym) || sh.sh_link >= eh.e_shnum ||
                !in(size, sh.sh_offset, sh.sh_size))
                continue;
            memcpy(&str, m + eh.e_shoff + (uint64_t)sh.sh_link * sizeof str, sizeof str);
            if (!in(size, str.sh_offset, str.sh_size) || !str.sh_size || m[str.sh_offset + str.sh_size - 1])
                continue;   /* the string table must end with a NUL: every name then does */
            tried = 1;
            size_t count = sh.sh_size / sizeof(Elf64_Sym), k = 0;
            free(e->syms);
            e->syms = calloc(count ? count : 1, sizeof *e->syms);
            if (!e->syms)
                continue;
            for (size_t j = 0; j < count; j++) {
                Elf64_Sym y;
                memcpy(&y, m + sh.sh_offset + j * sizeof y, sizeof y);
                if (ELF64_ST_TYPE(y.st_info) != STT_FUNC || y.st_shndx == SHN_UNDEF || !y.st_value ||
                    y.st_name >= str.sh_size)
                    continue;
                e->syms[k++] = (struct sym){y.st_value, y.st_size, (const char *)m + str.sh_offset + y.st_name};
            }
            e->n = k;
            qsort(e->syms, k, sizeof *e->syms, cmp_sym);
        }
    }
}

static struct elf_syms *get(const char *path)
{
    for (unsigned i = 0; i < ncache; i++)
        if (!strcmp(cache[i].path, path))
            return &cache[i];
    if (ncache == CACHE)
        return NULL;
    struct elf_syms *e = &cache[ncache];
    memset(e, 0, sizeof *e);
    if (!(e->path = strdup(path)))
        return NULL;
    ncache++;
    load(e);
    return e;
}

/* C++ names demangled with libstdc++'s __cxa_demangle when it can be
 * loaded (the command links no C++ runtime): a string to free, or NULL
 * (not mangled, not loadable, or not a valid name). */
typedef char *(*demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);
static demangle_fn demangler;
static void demangler_load(void)
{
    void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    demangler = h ? (demangle_fn)dlsym(h, "__cxa_demangle") : NULL;
}

char *cli_demangle(const char *mangled)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;   /* dump demangles on several threads */
    pthread_once(&once, demangler_load);
    demangle_fn fn = demangler;
    if (!fn || strncmp(mangled, "_Z", 2) || strlen(mangled) >= 4096)
        return NULL;
    int status = -1;
    char *d = fn(mangled, NULL, NULL, &status);
    if (status) {
        free(d);
        return NULL;
    }
    return d;
}

void sym_frame(const char *path, const char *exe, uint64_t offset, char *out, size_t size)
{
    /* a program's own frames: dladdr names it by how it was started (maybe
     * relative, or empty); its header names it absolutely */
    const char *use = path && *path && strcmp(path, "?") ? path : exe;
    if (use && access(use, R_OK) && exe && *exe) {
        const char *a = strrchr(use, '/'), *b = strrchr(exe, '/');
        if (!strcmp(a ? a + 1 : use, b ? b + 1 : exe))
            use = exe;
    }
    const char *base = use ? strrchr(use, '/') : NULL;
    base = base ? base + 1 : use ? use : "?";
    struct elf_syms *e = use && *use ? get(use) : NULL;
    if (e && e->n) {
        uint64_t v = offset + e->bias - (offset ? 1 : 0);   /* a return address: the call is before it */
        size_t lo = 0, hi = e->n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (e->syms[mid].value <= v)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo) {
            const struct sym *s = &e->syms[lo - 1];
            if (!s->size || v < s->value + s->size) {
                char *dm = cli_demangle(s->name);
                snprintf(out, size, "%s+0x%llx (%s)", dm ? dm : s->name,
                         (unsigned long long)(offset + e->bias - s->value), base);
                free(dm);
                return;
            }
        }
    }
    snprintf(out, size, "0x%llx (%s)", (unsigned long long)offset, base);
}

void sym_stack_frame(const struct trace *tr, const struct tr_proc *p, const struct cutap_stack_frame *frame, char *out,
                     size_t size)
{
    struct cutap_stack_frame x;
    memcpy(&x, frame, sizeof x);   /* (in the mapping: any alignment a damaged file gives) */
    const char *path = x.object && x.object - 1 < p->nobjects && p->objects[x.object - 1]
                           ? tr->names[p->objects[x.object - 1] - 1].name : NULL;
    sym_frame(path, p->h.exe, x.offset, out, size);
}
