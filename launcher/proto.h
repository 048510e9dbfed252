/* The mpirun <-> daemon (and daemon <-> daemon) wire protocol.
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
 * Every message has one struct below (or is empty, or is a single field)
 * and an encode/decode pair; decoders check every length against the
 * remaining body and fail rather than read past it, because the peer may be
 * a remote host. README.md lists the messages, their direction and routing. */
#ifndef OL_LAUNCHER_PROTO_H
#define OL_LAUNCHER_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct evbuffer;
struct bufferevent;

#define OL_PROTO_VERSION 7u
#define OL_FRAME_HDR_LEN 8u
#define OL_FRAME_MAX (64u << 20)
#define OL_NO_RANK UINT32_MAX
#define OL_NO_NODE UINT32_MAX

enum ol_msg_type {
    OL_MSG_HELLO = 1,       /* up: a daemon is ready (relayed to mpirun) */
    OL_MSG_LAUNCH = 2,      /* down, to all: the job */
    OL_MSG_IO = 3,          /* up: whole lines of one rank's stdout/stderr */
    OL_MSG_STDIN = 4,       /* down, to the stdin rank's daemon; empty = EOF */
    OL_MSG_RANK_EXIT = 5,   /* up: a rank ended (or called abort) */
    OL_MSG_ERROR = 6,       /* up: a daemon could not do its part */
    OL_MSG_KILL = 7,        /* down, to all: end the job now */
    OL_MSG_JOB_DONE = 8,    /* up: every rank of one daemon is gone */
    OL_MSG_SHUTDOWN = 9,    /* down, to all: clean up and exit */
    OL_MSG_AUTH = 10,       /* first frame on a TCP link: the job key */
    OL_MSG_LOST = 11,       /* up: a daemon lost the link to one of its children */
    OL_MSG_FENCE_UP = 12,   /* up: a subtree's contributions to fence seq */
    OL_MSG_FENCE_DOWN = 13, /* down, to all: fence seq is complete, all data */
    OL_MSG_DMODEX_REQ = 14, /* routed to the target rank's daemon */
    OL_MSG_DMODEX_RESP = 15,/* routed back to the asking daemon */
    OL_MSG_PING = 16,       /* either way on TCP links; keeps dead peers detectable */
    OL_MSG_STATE_REQ = 17,  /* down, to all: send your ranks' states */
    OL_MSG_STATE = 18,      /* up: one daemon's ranks' states */
    OL_MSG_SPAWN_REQ = 19,  /* up: a rank called PMIx_Spawn */
    OL_MSG_SPAWN = 20,      /* down, to all: a spawn's new namespace; check its programs */
    OL_MSG_SPAWN_ACK = 21,  /* up: a daemon checked (or started) its part of a spawn */
    OL_MSG_SPAWN_GO = 22,   /* down, to all: start the spawn's processes, or forget it */
    OL_MSG_SPAWN_DONE = 23, /* routed to the asking daemon: PMIx_Spawn's answer */
    OL_MSG_NAME_REQ = 24,   /* up: a rank's PMIx_Publish, PMIx_Lookup or PMIx_Unpublish */
    OL_MSG_NAME_RESP = 25,  /* routed to the asking daemon: mpirun's answer */
    OL_MSG_TYPE_MAX = 25,
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

/* --map-by and --bind-to, as carried in LAUNCH. */
enum ol_map_by { OL_MAP_SLOT = 0, OL_MAP_NODE, OL_MAP_CORE, OL_MAP_SOCKET, OL_MAP_NUMA };
/* OL_BIND_DEFAULT (no --bind-to): core where a host's ranks fit on its
 * cores, none where they do not. Each daemon decides for its host, since
 * only it knows the host's cores. */
enum ol_bind_to { OL_BIND_NONE = 0, OL_BIND_CORE, OL_BIND_SOCKET, OL_BIND_NUMA, OL_BIND_DEFAULT };

typedef struct {
    uint32_t version;
    uint32_t node_id;
    uint32_t pid;
    char *hostname;
    uint16_t port;         /* where its children connect; 0 = no children */
    char **addrs;          /* this host's IPv4 addresses, best first */
    char **netifs;         /* its interfaces and RDMA ports: "NAME MBPS FLAGS" (ol_netif.h) */
} ol_msg_hello_t;

/* One program of an MPMD job; its ranks are [first_rank, first_rank + np). */
typedef struct {
    uint32_t first_rank, np;
    char *exe;             /* resolved program path (SPAWN: as the user wrote it) */
    char **argv;
    /* SPAWN only (NULL in LAUNCH): */
    char **env;            /* NAME=VALUE added to the job's environment */
    char *cwd;             /* the app's working directory, or NULL: the job's */
    char *path;            /* directories searched for exe before PATH, or NULL */
} ol_app_t;

typedef struct {
    char *nspace;
    uint32_t job_size;
    char **nodes;          /* host names, one per daemon (node id = index) */
    uint32_t *rank_node;   /* job_size entries: the node of each rank */
    uint32_t stdin_rank;   /* OL_NO_RANK: every rank gets /dev/null */
    uint32_t kill_grace_ms;
    uint8_t map_by, bind_to, report_bindings;
    uint16_t pe;           /* cores per rank (--map-by X:PE=n), >= 1 */
    uint32_t univ_size;    /* PMIX_UNIV_SIZE: the slots of the job's hosts, >= job_size */
    char *cwd;
    char **env;            /* extra NAME=VALUE for every rank */
    uint32_t napps;
    ol_app_t *apps;
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

/* ERROR (text = what failed) and LOST (text = how the link ended). */
typedef struct {
    uint32_t node_id;      /* the daemon it is about */
    uint32_t rank;         /* OL_NO_RANK when not about one rank */
    char *text;
} ol_msg_error_t;

typedef struct {
    uint32_t spawn_no;     /* the namespace: 0 the first job's, k spawn k's */
    uint32_t seq;          /* the namespace's n-th fence */
    const uint8_t *data;   /* points into the decoded frame body */
    uint32_t len;
} ol_msg_fence_t;

typedef struct {
    uint32_t req_id;
    uint32_t node;         /* REQ: the asking daemon; RESP: where it goes */
    uint32_t rank;         /* REQ: whose data */
    int32_t status;        /* RESP: a pmix_status_t */
    const uint8_t *data;   /* RESP: the blob, points into the frame body */
    uint32_t len;
} ol_msg_dmodex_t;

/* Where a rank is, in STATE (from its state record, see ol_state.h). */
enum ol_rank_where {
    OL_WHERE_NO_RECORD = 0,   /* the record was never mapped: not an ompi-lite MPI program,
                                 or OMPI_LITE_STATE=0 */
    OL_WHERE_BEFORE_INIT = 1, /* the library is loaded, no MPI call yet */
    OL_WHERE_IN_MPI = 2,      /* call: the call in progress */
    OL_WHERE_OUTSIDE = 3,     /* in user code; call: the last MPI call */
    OL_WHERE_EXITED = 4,      /* the process ended (exit_text); call: its last */
    OL_WHERE_NOT_STARTED = 5, /* not started (yet) */
};

/* A call of the record with its names resolved by the daemon. */
typedef struct {
    uint32_t seq;           /* the rank's call number (low 32 bits) */
    char *fn;               /* "MPI_Recv" */
    uint16_t flags;         /* OL_STATE_HAS_* of ol_state.h */
    char *comm;             /* communicator name, NULL when unknown */
    uint32_t ctx;
    int32_t comm_size;
    uint32_t coll_seq;
    int32_t dest, dest_world, tag, source, source_world, rtag;
    int64_t count;
    char *dtype;            /* "double", or NULL for a derived type */
} ol_call_desc_t;

/* A pending nonblocking operation. */
typedef struct {
    uint8_t kind;           /* OL_STATE_OP_* of ol_state.h */
    char *comm;
    uint32_t ctx;
    int32_t peer, peer_world, tag;
    int64_t count;
} ol_op_desc_t;

typedef struct {
    uint32_t rank, pid;
    uint8_t where;          /* enum ol_rank_where */
    uint32_t since_ms;      /* how long the rank has been where it is (sampled) */
    uint32_t repeats;       /* the same call entered again this many times since */
    char *exit_text;        /* EXITED: "was killed by signal 9 (Killed)" */
    uint8_t has_call;
    ol_call_desc_t call;
    uint8_t pending_known;  /* the list was written in the current call */
    uint32_t pending_total, npending;
    ol_op_desc_t *pending;
    char *stack;            /* --get-stack-traces: the stack, or why there is none */
} ol_rank_state_t;

typedef struct {
    uint32_t req_id;
    uint8_t stacks;         /* also take each rank's stack (gdb) */
} ol_msg_state_req_t;

typedef struct {
    uint32_t req_id, node_id, n;
    ol_rank_state_t *ranks;
} ol_msg_state_t;

/* One program of a PMIx_Spawn call, as the daemon received it. */
typedef struct {
    char *cmd;
    char **argv;
    char **env;            /* NAME=VALUE to add */
    char *cwd;             /* PMIX_WDIR or the app's cwd, or NULL */
    uint32_t maxprocs;
    char *host;            /* PMIX_HOST: "a,b:2", or NULL */
    char *hostfile;        /* PMIX_HOSTFILE path, or NULL */
    char *add_host;        /* PMIX_ADD_HOST, or NULL */
    char *path;            /* "ompi-lite.path", or NULL */
} ol_spawn_app_t;

typedef struct {
    uint32_t req_id, from_node; /* where SPAWN_DONE goes */
    uint32_t parent_gid;   /* the spawning process (see "Process ids" in README.md) */
    uint32_t napps;
    ol_spawn_app_t *apps;
} ol_msg_spawn_req_t;

/* A spawn's namespace: job.rank_node is by rank in the new namespace, the
 * process ids are gid_base + rank. */
typedef struct {
    uint32_t spawn_no;     /* 1 for the first spawn of the job */
    uint32_t gid_base;
    uint32_t parent_gid;
    uint32_t univ_size;
    ol_msg_launch_t job;
} ol_msg_spawn_t;

/* SPAWN_ACK: phase 0 = programs checked, 1 = processes started. */
typedef struct {
    uint32_t spawn_no, node_id;
    uint8_t phase;
    int32_t err;           /* 0, or the errno that stops it */
    char *text;            /* err: the program as resolved (or named) */
} ol_msg_spawn_ack_t;

/* SPAWN_DONE */
typedef struct {
    uint32_t req_id, to_node;
    int32_t status;        /* a pmix_status_t */
    char *nspace;          /* success: the new namespace */
} ol_msg_spawn_done_t;

/* Published names (PMIx publish, lookup, unpublish): mpirun keeps the
 * job's table; daemons ask it for their ranks. */
enum ol_name_op { OL_NAME_PUBLISH = 1, OL_NAME_LOOKUP = 2, OL_NAME_UNPUBLISH = 3 };

/* One published name: its key, its value (a PMIx string) and who
 * published it. */
typedef struct {
    char *key;
    char *value;           /* NULL in LOOKUP and UNPUBLISH requests */
    char *nspace;          /* the publisher's namespace and rank (RESP only; NULL in requests) */
    uint32_t rank;
} ol_name_t;

/* NAME_REQ and NAME_RESP share one layout. */
typedef struct {
    uint32_t req_id;
    uint32_t node;         /* REQ: the asking daemon; RESP: where it goes */
    uint8_t op;            /* enum ol_name_op */
    int32_t status;        /* RESP: a pmix_status_t (REQ: 0) */
    char *nspace;          /* REQ: the calling process (RESP: NULL) */
    uint32_t rank;
    uint32_t n;
    ol_name_t *names;      /* REQ: the keys named (with values to publish;
                              none to unpublish: all the caller published);
                              RESP: what a lookup found */
} ol_msg_name_t;

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
/* Raw bytes, no length: for concatenating PMIx blobs. */
void ol_w_append(ol_wbuf_t *w, const void *p, size_t len);

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
/* The app a rank belongs to. */
const ol_app_t *ol_launch_app_of(const ol_msg_launch_t *m, uint32_t rank);

void ol_msg_io_encode(const ol_msg_io_t *m, ol_wbuf_t *w);
int ol_msg_io_decode(ol_rbuf_t *r, ol_msg_io_t *m);

void ol_msg_rank_exit_encode(const ol_msg_rank_exit_t *m, ol_wbuf_t *w);
int ol_msg_rank_exit_decode(ol_rbuf_t *r, ol_msg_rank_exit_t *m);
void ol_msg_rank_exit_free(ol_msg_rank_exit_t *m);

void ol_msg_error_encode(const ol_msg_error_t *m, ol_wbuf_t *w);
int ol_msg_error_decode(ol_rbuf_t *r, ol_msg_error_t *m);
void ol_msg_error_free(ol_msg_error_t *m);

void ol_msg_fence_encode(const ol_msg_fence_t *m, ol_wbuf_t *w);
int ol_msg_fence_decode(ol_rbuf_t *r, ol_msg_fence_t *m);

void ol_msg_dmodex_req_encode(const ol_msg_dmodex_t *m, ol_wbuf_t *w);
int ol_msg_dmodex_req_decode(ol_rbuf_t *r, ol_msg_dmodex_t *m);
void ol_msg_dmodex_resp_encode(const ol_msg_dmodex_t *m, ol_wbuf_t *w);
int ol_msg_dmodex_resp_decode(ol_rbuf_t *r, ol_msg_dmodex_t *m);

void ol_msg_state_req_encode(const ol_msg_state_req_t *m, ol_wbuf_t *w);
int ol_msg_state_req_decode(ol_rbuf_t *r, ol_msg_state_req_t *m);
void ol_msg_state_encode(const ol_msg_state_t *m, ol_wbuf_t *w);
int ol_msg_state_decode(ol_rbuf_t *r, ol_msg_state_t *m);
void ol_msg_state_free(ol_msg_state_t *m);
void ol_rank_state_free(ol_rank_state_t *s);

void ol_msg_spawn_req_encode(const ol_msg_spawn_req_t *m, ol_wbuf_t *w);
int ol_msg_spawn_req_decode(ol_rbuf_t *r, ol_msg_spawn_req_t *m);
void ol_msg_spawn_req_free(ol_msg_spawn_req_t *m);
void ol_msg_spawn_encode(const ol_msg_spawn_t *m, ol_wbuf_t *w);
int ol_msg_spawn_decode(ol_rbuf_t *r, ol_msg_spawn_t *m);
void ol_msg_spawn_ack_encode(const ol_msg_spawn_ack_t *m, ol_wbuf_t *w);
int ol_msg_spawn_ack_decode(ol_rbuf_t *r, ol_msg_spawn_ack_t *m);
void ol_msg_spawn_done_encode(const ol_msg_spawn_done_t *m, ol_wbuf_t *w);
int ol_msg_spawn_done_decode(ol_rbuf_t *r, ol_msg_spawn_done_t *m);
/* SPAWN_GO: go = 1 start, 0 forget. */
void ol_msg_spawn_go_encode(uint32_t spawn_no, uint8_t go, ol_wbuf_t *w);
int ol_msg_spawn_go_decode(ol_rbuf_t *r, uint32_t *spawn_no, uint8_t *go);

void ol_msg_name_encode(const ol_msg_name_t *m, ol_wbuf_t *w);
int ol_msg_name_decode(ol_rbuf_t *r, ol_msg_name_t *m);
void ol_msg_name_free(ol_msg_name_t *m);

/* A message that is only one u32 (JOB_DONE: node id). */
void ol_msg_u32_encode(uint32_t v, ol_wbuf_t *w);
int ol_msg_u32_decode(ol_rbuf_t *r, uint32_t *v);

/* Queues one frame (header + body, body may be NULL for empty) on bev. */
int ol_frame_send(struct bufferevent *bev, uint16_t type, const ol_wbuf_t *body);
/* Queues a frame whose body is already encoded (relaying). */
int ol_frame_send_raw(struct bufferevent *bev, uint16_t type, const void *body, size_t len);
/* Takes one whole frame off in: 1 = got one (*body malloc'd, caller frees),
 * 0 = need more bytes, -1 = malformed (too long). */
int ol_frame_pop(struct evbuffer *in, uint16_t *type, uint8_t **body, uint32_t *len);

/* The body of AUTH: the key as bytes (u32 length + OL_KEY_HEX_LEN). */
#define OL_AUTH_BODY_LEN (4u + 64u)
/* The most a connection may send between its AUTH and the end of HELLO;
 * also the read limit of a connection in its handshake, so that strangers
 * cost bounded memory. */
#define OL_HANDSHAKE_MAX (64u << 10)

/* The handshake of a connection before it becomes a link: an AUTH frame
 * with the job key (*authed records it), then a HELLO. Returns 0 while more
 * bytes are needed; 1 with the HELLO frame in *type, *body, *len (the
 * caller frees body) and the sender's *node_id; -1 when the connection must
 * be dropped (wrong key, another frame, a malformed one, a header that
 * announces anything but an AUTH of the key's size, or a HELLO over
 * OL_HANDSHAKE_MAX). */
int ol_handshake_read(struct evbuffer *in, const char *key, bool *authed, uint16_t *type,
                      uint8_t **body, uint32_t *len, uint32_t *node_id);

const char *ol_msg_type_name(uint16_t type);

#endif
