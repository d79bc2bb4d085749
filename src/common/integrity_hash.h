/*
 * cutap integrity hash: recomputes the value returned by slot 1 of the CUDA
 * driver's INTEGRITY_CHECK export table
 * ({D4082055-BDE6-704B-8D34-BA123C66E1F2}), so that a tracer which hands the
 * runtime its own copies of the INTEGRITY_CHECK and CUDART_INTERFACE tables
 * can replace the driver's answer with the one that matches its copies.
 *
 * The hash is HMAC-MD2 (RFC 2104 over RFC 1319 MD2, block size 16) with a
 * fixed 16-byte key; the message: a 48-byte header (cutap_integrity_header) then a
 * 28-byte record per device, one message; the digest into out[] in order.
 *
 * Freestanding apart from memcpy/memset; no allocation; thread-safe (no
 * global mutable state).
 */
#ifndef CUTAP_INTEGRITY_H
#define CUTAP_INTEGRITY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One entry per CUDA device, in device-ordinal order 0..count-1.
 * uuid: bytes as returned by cuDeviceGetUuid (CUuuid.bytes, unchanged).
 * pci_*: cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID / _BUS_ID /
 *        _DEVICE_ID). Hashed as 28 bytes: uuid, then the three int32 in
 *        native (little-endian on every CUDA host) byte order. */
struct cutap_integrity_dev {
    uint8_t uuid[16];
    int32_t pci_domain, pci_bus, pci_device;
};

/*
 * Keyed hash for versions with version % 10 >= 2. Does NOT special-case
 * version % 10 in {0,1}: call cutap_integrity_fixed() first.
 *   driver_version : cuDriverGetVersion() value
 *   version        : 1st argument of the slot-1 call
 *   pid            : getpid()
 *   tid            : (uint32_t)pthread_self() of the thread making the call
 *                    (GetCurrentThreadId() on Windows)
 *   cudart_table   : base address of the CUDART_INTERFACE table handed out
 *                    (address of its slot 0)
 *   integrity_table: base address of the INTEGRITY_CHECK table handed out
 *   integrity_fn   : value stored in slot 1 of that INTEGRITY_CHECK table
 *   unix_seconds   : 2nd argument of the slot-1 call
 *   devs, ndevs    : device list (devs may be NULL when ndevs == 0)
 *   out            : receives the 16 digest bytes, byte-for-byte
 *                    (out[0] = digest[0..7], out[1] = digest[8..15] as
 *                    native-endian u64; little-endian on x86_64/aarch64)
 */
void cutap_integrity_hash(uint32_t driver_version, uint32_t version,
                          uint32_t pid, uint32_t tid,
                          uint64_t cudart_table, uint64_t integrity_table,
                          uint64_t integrity_fn, uint64_t unix_seconds,
                          const struct cutap_integrity_dev *devs,
                          unsigned ndevs, uint64_t out[2]);

/* If version % 10 is 0 or 1, stores the fixed answer in out and returns 1;
 * otherwise leaves out untouched and returns 0. */
int cutap_integrity_fixed(uint32_t version, uint64_t out[2]);

/* ---- Lower-level building blocks (exposed for tests) ------------------ */

/* MD2 (RFC 1319) streaming state. The layout is deliberately
 * x[0..15]  = chaining state, x[16..31] = current block,
 * x[32..47] = state ^ block, c = running checksum, n = bytes buffered,
 * l = last checksum byte; 66 bytes, no padding. */
struct cutap_md2 {
    uint8_t x[48];
    uint8_t c[16];
    uint8_t n;
    uint8_t l;
};

void cutap_md2_init(struct cutap_md2 *s);
void cutap_md2_update(struct cutap_md2 *s, const void *data, size_t len);
void cutap_md2_final(struct cutap_md2 *s, uint8_t digest[16]);
void cutap_md2(const void *data, size_t len, uint8_t digest[16]);

/* HMAC-MD2 with a key of at most 16 bytes (the MD2 block size). */
void cutap_hmac_md2(const uint8_t *key, size_t keylen,
                    const void *msg, size_t len, uint8_t digest[16]);

/* The 16-byte key used by the integrity hash. */
extern const uint8_t cutap_integrity_key[16];

/* Size of the fixed header and of each device record, in bytes. */
#define CUTAP_INTEGRITY_HDR_SIZE 48u
#define CUTAP_INTEGRITY_DEV_SIZE 28u

/* Serialise one 28-byte device record exactly as it is hashed. */
void cutap_integrity_dev_record(const struct cutap_integrity_dev *dev,
                                uint8_t rec[CUTAP_INTEGRITY_DEV_SIZE]);

/* Serialise the 48-byte header exactly as it is hashed. */
void cutap_integrity_header(uint32_t driver_version, uint32_t version,
                            uint32_t pid, uint32_t tid,
                            uint64_t cudart_table, uint64_t integrity_table,
                            uint64_t integrity_fn, uint64_t unix_seconds,
                            uint8_t hdr[CUTAP_INTEGRITY_HDR_SIZE]);

#ifdef __cplusplus
}
#endif

#endif /* CUTAP_INTEGRITY_H */
