/* p2p_shm_util: what the p2p_shm_* tests share on top of p2p_util: a
 * seeded random generator that both ends of a pair run in step (so the
 * receiver knows the size and mode of every message without being told), a
 * message size that crosses every limit a same-host channel plausibly has
 * (inline slot, ring, bounce buffer, eager/rendezvous threshold), messages
 * that carry their identity, and waits that make no MPI call. Not a test.
 *
 * The p2p_shm_* tests guard point-to-point between ranks of one host,
 * whatever carries it: by default the per-pair rings of pt2pt/shm_ring.c
 * with ompi-lite's own matching, inline copies for small messages and UCX
 * for large ones; UCX's shared-memory transport with OMPI_LITE_P2P_SHM=0. */
#ifndef P2P_SHM_UTIL_H
#define P2P_SHM_UTIL_H

#include "p2p_util.h"

#include <stddef.h>
#include <stdint.h>

/* Bytes after a receive's message that must stay untouched. */
enum { SHM_GUARD = 64, SHM_GUARD_BYTE = 0xA5 };

/* xorshift64*: deterministic, so that sender and receiver draw the same
 * sizes and modes from the same seed. */
uint64_t shm_rand(uint64_t *state);
/* A number in [0, n). */
size_t shm_below(uint64_t *state, size_t n);
/* A fresh generator for (a, b, c). */
uint64_t shm_seed(unsigned a, unsigned b, unsigned c);

/* A message size in [0, max]: a third exactly at or next to a plausible
 * limit (powers of two, 477 B of a 512 B UCX FIFO slot, 64 KiB + 1 of
 * the shared-memory rendezvous threshold...), the rest spread small,
 * medium and large. */
size_t shm_size(uint64_t *state, size_t max);

/* The identity of a message: (pass, src, dst, seq), seq < 65536. */
unsigned shm_msg_seed(unsigned pass, int src, int dst, int seq);

/* Fills n bytes with the message of `seed`: its first 4 bytes (when it has
 * them) are the seed itself, so that a wrong message is named, the rest the
 * pattern of p2p_util. */
void shm_make(void *buf, size_t n, unsigned seed);
/* Dies unless buf holds the message of `seed` of n bytes, naming the seed
 * found when it is another message. */
void shm_check(const char *what, const void *buf, size_t n, unsigned seed);

/* Sets / checks the SHM_GUARD bytes at buf (after a message). */
void shm_guard_set(void *buf);
void shm_guard_check(const char *what, const void *buf);

/* Busy-waits (no MPI call, so no progress) or sleeps for us / ms. */
void shm_spin_us(double us);
void shm_sleep_ms(int ms);

void *shm_malloc(size_t n);

#endif
