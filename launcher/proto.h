/* The mpirun <-> daemon wire protocol.
 *
 * A frame is an 8-byte header followed by a body:
 *
 *     u32 body_len   (big-endian, at most OL_FRAME_MAX)
 *     u16 type       (enum ol_msg_type)
 *     u16 reserved   (0)
 *
 * Bodies are sequences of fields: u8/u16/u32 (big-endian), i32 (as u32),
 * str (u32 length + bytes, no NUL; a NULL string is length 0xffffffff),
 * bytes (u32 length + bytes), strv (u32 count + that many str).
 * Every message has one struct below and an encode/decode pair; decoders
 * check every length against the remaining body and fail rather than read
 * past it, because later the peer is a remote host.
 * README.md lists the messages and when each is sent. */
#ifndef OL_LAUNCHER_PROTO_H
#define OL_LAUNCHER_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct evbuffer;
struct bufferevent;

#define OL_PROTO_VERSION 1u
#define OL_FRAME_HDR_LEN 8u
#define OL_FRAME_MAX (64u << 20)
#define OL_NO_RANK UINT32_MAX

enum ol_msg_type {
    OL_MSG_HELLO = 1,     /* daemon -> mpirun: ready, who and where I am */
    OL_MSG_LAUNCH = 2,    /* mpirun -> daemon: the job and this host's share of it */
    OL_MSG_IO = 3,        /* daemon -> mpirun: whole lines of one rank's stdout/stderr */
    OL_MSG_STDIN = 4,     /* mpirun -> daemon: bytes for the stdin rank; empty = EOF */
    OL_MSG_RANK_EXIT = 5, /* daemon -> mpirun: a rank ended (or called abort) */
    OL_MSG_ERROR = 6,     /* daemon -> mpirun: the daemon could not do its part */
    OL_MSG_KILL = 7,      /* mpirun -> daemon: end the job now */
    OL_MSG_JOB_DONE = 8,  /* daemon -> mpirun: every local rank is gone, output flushed */
    OL_MSG_SHUTDOWN = 9,  /* mpirun -> daemon: clean up and exit */
};

/* How a rank ended, in RANK_EXIT. */
enum ol_exit_kind {
    OL_EXIT_NORMAL = 0,      /* exited 0 (after PMIx_Finalize when it was a client) */
    OL_EXIT_CODE = 1,        /* exited with a non-zero code */
    OL_EXIT_SIGNAL = 2,      /* killed by a signal; code = signal number */
    OL_EXIT_ABORT = 3,       /* called PMIx_Abort; code = its status */
    OL_EXIT_NO_FINALIZE = 4, /* connected as a PMIx client, exited 0 without finalize */
    OL_EXIT_EXEC_FAILED = 5, /* could not exec; code = errno */
};

enum ol_stream { OL_STREAM_STDOUT = 1, OL_STREAM_STDERR = 2 };

typedef struct {
    uint32_t version;
    uint32_t node_id;
    uint32_t pid;
    char *hostname;
} ol_msg_hello_t;

/* Ranks are mapped by slot: node i holds ranks [sum(ppn[0..i-1]), +ppn[i]). */
typedef struct {
    char *nspace;
    uint32_t job_size;
    uint32_t node_id;      /* which entry of nodes/ppn the receiver is */
    char **nodes;          /* host names, one per node */
    uint32_t *ppn;         /* ranks per node, same length as nodes */
    uint32_t stdin_rank;   /* OL_NO_RANK: every rank gets /dev/null */
    uint32_t kill_grace_ms;
    char *exe;             /* resolved program path */
    char *cwd;
    char **argv;
    char **env;            /* extra NAME=VALUE for every rank */
} ol_msg_launch_t;

typedef struct {
    uint32_t rank;
    uint8_t stream;        /* enum ol_stream */
    const uint8_t *data;   /* points into the decoded frame body */
    uint32_t len;
} ol_msg_io_t;

typedef struct {
    uint32_t rank;
    uint32_t pid;
    uint8_t kind;          /* enum ol_exit_kind */
    int32_t code;
    char *msg;             /* abort message, may be NULL */
} ol_msg_rank_exit_t;

typedef struct {
    uint32_t rank;         /* OL_NO_RANK when not about one rank */
    char *text;
} ol_msg_error_t;

/* Growable encode buffer; a failed allocation aborts (see util.c). */
typedef struct {
    uint8_t *data;
    size_t len, cap;
} ol_wbuf_t;

/* Decode cursor; `failed` sticks once a read would pass the end. */
typedef struct {
    const uint8_t *p;
    size_t left;
    bool failed;
} ol_rbuf_t;

void ol_wbuf_free(ol_wbuf_t *w);
void ol_w_u8(ol_wbuf_t *w, uint8_t v);
void ol_w_u16(ol_wbuf_t *w, uint16_t v);
void ol_w_u32(ol_wbuf_t *w, uint32_t v);
void ol_w_str(ol_wbuf_t *w, const char *s);
void ol_w_bytes(ol_wbuf_t *w, const void *p, size_t len);
void ol_w_strv(ol_wbuf_t *w, char *const *v);

uint8_t ol_r_u8(ol_rbuf_t *r);
uint16_t ol_r_u16(ol_rbuf_t *r);
uint32_t ol_r_u32(ol_rbuf_t *r);
char *ol_r_str(ol_rbuf_t *r);                        /* malloc'd or NULL */
const uint8_t *ol_r_bytes(ol_rbuf_t *r, uint32_t *len); /* points into r */
char **ol_r_strv(ol_rbuf_t *r);                      /* malloc'd, NULL-terminated */

void ol_msg_hello_encode(const ol_msg_hello_t *m, ol_wbuf_t *w);
int ol_msg_hello_decode(ol_rbuf_t *r, ol_msg_hello_t *m);
void ol_msg_hello_free(ol_msg_hello_t *m);

void ol_msg_launch_encode(const ol_msg_launch_t *m, ol_wbuf_t *w);
int ol_msg_launch_decode(ol_rbuf_t *r, ol_msg_launch_t *m);
void ol_msg_launch_free(ol_msg_launch_t *m);
/* First rank and rank count of node_id under the by-slot map. */
void ol_msg_launch_local_ranks(const ol_msg_launch_t *m, uint32_t *first, uint32_t *count);

void ol_msg_io_encode(const ol_msg_io_t *m, ol_wbuf_t *w);
int ol_msg_io_decode(ol_rbuf_t *r, ol_msg_io_t *m);

void ol_msg_rank_exit_encode(const ol_msg_rank_exit_t *m, ol_wbuf_t *w);
int ol_msg_rank_exit_decode(ol_rbuf_t *r, ol_msg_rank_exit_t *m);
void ol_msg_rank_exit_free(ol_msg_rank_exit_t *m);

void ol_msg_error_encode(const ol_msg_error_t *m, ol_wbuf_t *w);
int ol_msg_error_decode(ol_rbuf_t *r, ol_msg_error_t *m);
void ol_msg_error_free(ol_msg_error_t *m);

/* Queues one frame (header + body, body may be NULL for empty) on bev. */
int ol_frame_send(struct bufferevent *bev, uint16_t type, const ol_wbuf_t *body);
/* Takes one whole frame off in: 1 = got one (*body malloc'd, caller frees),
 * 0 = need more bytes, -1 = malformed (too long). */
int ol_frame_pop(struct evbuffer *in, uint16_t *type, uint8_t **body, uint32_t *len);

const char *ol_msg_type_name(uint16_t type);

#endif
