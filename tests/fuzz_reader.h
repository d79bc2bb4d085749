/* What the trace reader's mutation fuzzer (tests/fuzz_reader.c) takes
 * from its generator (tests/fuzz_reader_mutate.c): the seed traces and
 * what they hold, the mutations, a generator each iteration reseeds. */
#ifndef CUTAP_FUZZ_READER_H
#define CUTAP_FUZZ_READER_H

#include <stddef.h>
#include <stdint.h>

/* Offsets of a kind of thing in a seed. */
struct offs {
    size_t *v, n, cap;
};

struct seed {
    const char *path;
    uint8_t *data;
    size_t size;
    uint32_t chunk_size;      /* 0 when the header does not give a valid one */
    struct offs chunks;       /* chunks with a magic */
    struct offs recs;         /* records (calls and metas) */
    struct offs caps;         /* capture headers */
    struct offs counters;     /* counters with calls */
    struct offs names;        /* ID_NAME meta records */
};

extern struct seed *fz_seeds;
extern size_t fz_nseeds;
/* Reads a seed trace and indexes it; exits on failure. */
void fz_load_seed(struct seed *s, const char *path);
void fz_free_seeds(void);

/* The generator (xorshift64*): fz_rng is set from the run's seed and the
 * iteration number; fz_below(n) in 0..n-1, fz_chance(k) one time in k. */
extern uint64_t fz_rng;
uint64_t fz_below(uint64_t n);
int fz_chance(unsigned one_in);
uint64_t fz_splitmix(uint64_t x);
uint32_t fz_rd32(const uint8_t *p);

/* The file being made: fz_len bytes in fz_buf (room for at least n:
 * fz_reserve). */
extern uint8_t *fz_buf;
extern size_t fz_len;
void fz_reserve(size_t n);

/* The mutations, their names and how often each was made. */
enum {
    M_FLIP, M_HEADER, M_CHUNK, M_RECORD, M_CAPTURE, M_COUNTER, M_TRUNCATE, M_APPEND, M_DUPCHUNK, M_FILL, M_RENAME,
    M_N
};
extern const char *const fz_mnames[M_N];
extern unsigned long fz_mcount[M_N];
void fz_mutate(const struct seed *s, int m);
void fz_mutate_some(const struct seed *s);

#endif
