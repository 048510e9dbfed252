/* p2p_shm_util: see p2p_shm_util.h. */
#include "p2p_shm_util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t shm_rand(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

size_t shm_below(uint64_t *state, size_t n)
{
    return n ? (size_t)(shm_rand(state) >> 11) % n : 0;
}

uint64_t shm_seed(unsigned a, unsigned b, unsigned c)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)a << 40) ^ ((uint64_t)b << 20) ^ c;

    /* a few rounds so that neighbouring seeds give unrelated streams */
    for (int i = 0; i < 4; i++)
        shm_rand(&s);
    return s ? s : 1;
}

/* Sizes on both sides of the limits a same-host channel may have. */
static const size_t edges[] = {
    0,     1,     3,     4,     7,     8,     63,    64,     65,     255,
    256,   257,   477,   478,   511,   512,   513,   1023,   1024,   1025,
    2047,  2048,  2049,  4095,  4096,  4097,  8191,  8192,   8193,   16383,
    16384, 16385, 32767, 32768, 65535, 65536, 65537, 131072, 262143, 262144,
};

size_t shm_size(uint64_t *state, size_t max)
{
    size_t n;

    switch (shm_below(state, 6)) {
    case 0:
    case 1: n = edges[shm_below(state, sizeof edges / sizeof edges[0])]; break;
    case 2: n = shm_below(state, 513); break;
    case 3: n = shm_below(state, 8193); break;
    case 4: n = shm_below(state, 70001); break;
    default: n = shm_below(state, max + 1); break;
    }
    return n > max ? max : n;
}

unsigned shm_msg_seed(unsigned pass, int src, int dst, int seq)
{
    return ((pass * 64u + (unsigned)src) * 64u + (unsigned)dst) * 65536u + (unsigned)seq;
}

void shm_make(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;

    if (n >= sizeof seed) {
        memcpy(p, &seed, sizeof seed);
        p2p_fill(p + sizeof seed, n - sizeof seed, seed);
    } else {
        p2p_fill(p, n, seed);
    }
}

void shm_check(const char *what, const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = buf;
    unsigned got;

    if (n < sizeof seed) {
        p2p_check_data(what, p, n, seed);
        return;
    }
    memcpy(&got, p, sizeof got);
    if (got != seed)
        p2p_die("%s: got the message with seed %#x (pass %u, %u -> %u, seq %u), expected seed "
                "%#x (pass %u, %u -> %u, seq %u)",
                what, got, got >> 28, got >> 22 & 63, got >> 16 & 63, got & 0xFFFF, seed,
                seed >> 28, seed >> 22 & 63, seed >> 16 & 63, seed & 0xFFFF);
    p2p_check_data(what, p + sizeof seed, n - sizeof seed, seed);
}

void shm_guard_set(void *buf)
{
    memset(buf, SHM_GUARD_BYTE, SHM_GUARD);
}

void shm_guard_check(const char *what, const void *buf)
{
    p2p_check_fill(what, buf, SHM_GUARD, SHM_GUARD_BYTE);
}

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

void shm_spin_us(double us)
{
    double end = now_us() + us;

    while (now_us() < end)
        ;
}

void shm_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0)
        ;
}

void *shm_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    if (!p)
        p2p_die("out of memory (%zu bytes)", n);
    return p;
}
