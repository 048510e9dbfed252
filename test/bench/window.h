/* Windows of nonblocking messages for the bandwidth benchmarks (osu_bw,
 * osu_bibw, osu_mbw_mr), as OSU does: a window is W sends (or receives) in
 * flight at once, completed together; the receiver acknowledges each window
 * with a zero-byte message, so the sender's clock covers delivery. */
#ifndef OL_BENCH_WINDOW_H
#define OL_BENCH_WINDOW_H

#include <stddef.h>

/* Buffers for messages up to max_size and windows of w; sends all come from
 * one buffer, timed receives all land in one buffer (the data is only read
 * by -c, which uses a buffer per message). */
void window_setup(size_t max_size, int w);
/* n windows of w messages to / from `peer`. */
void window_send(int peer, size_t size, int w, int n);
void window_recv(int peer, size_t size, int w, int n);
/* n windows both ways at once with `peer` (bidirectional): no ack needed,
 * each side's receives complete only once the other side has sent. */
void window_both(int peer, size_t size, int w, int n);
/* One checked window (at most 4 messages, each its own pattern and buffer):
 * the receive sides return the wrong bytes, the send side 0. */
long window_check_send(int peer, size_t size, int w);
long window_check_recv(int peer, size_t size, int w);
long window_check_both(int peer, size_t size, int w);

#endif
