#include "proto.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "net.h"
#include "util.h"

_Static_assert(OL_AUTH_BODY_LEN == 4 + OL_KEY_HEX_LEN, "AUTH carries the key as bytes");

#define STR_NULL UINT32_MAX

/* ---- encoding ---- */

static void w_reserve(ol_wbuf_t *w, size_t more)
{
    if (w->len + more <= w->cap)
        return;
    size_t cap = w->cap ? w->cap : 64;
    while (cap < w->len + more)
        cap *= 2;
    uint8_t *p = realloc(w->data, cap);
    if (p == NULL)
        p = ol_xmalloc(SIZE_MAX); /* aborts with a message */
    w->data = p;
    w->cap = cap;
}

static void w_raw(ol_wbuf_t *w, const void *p, size_t len)
{
    if (len == 0)
        return;
    w_reserve(w, len);
    memcpy(w->data + w->len, p, len);
    w->len += len;
}

void ol_w_append(ol_wbuf_t *w, const void *p, size_t len)
{
    w_raw(w, p, len);
}

void ol_wbuf_free(ol_wbuf_t *w)
{
    free(w->data);
    w->data = NULL;
    w->len = w->cap = 0;
}

void ol_w_u8(ol_wbuf_t *w, uint8_t v)
{
    w_raw(w, &v, 1);
}

void ol_w_u16(ol_wbuf_t *w, uint16_t v)
{
    uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };
    w_raw(w, b, 2);
}

void ol_w_u32(ol_wbuf_t *w, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
    w_raw(w, b, 4);
}

void ol_w_str(ol_wbuf_t *w, const char *s)
{
    if (s == NULL) {
        ol_w_u32(w, STR_NULL);
        return;
    }
    size_t n = strlen(s);
    ol_w_u32(w, (uint32_t)n);
    w_raw(w, s, n);
}

void ol_w_bytes(ol_wbuf_t *w, const void *p, size_t len)
{
    ol_w_u32(w, (uint32_t)len);
    w_raw(w, p, len);
}

void ol_w_strv(ol_wbuf_t *w, char *const *v)
{
    size_t n = ol_strv_len(v);
    ol_w_u32(w, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        ol_w_str(w, v[i]);
}

/* ---- decoding ---- */

static const uint8_t *r_take(ol_rbuf_t *r, size_t n)
{
    if (r->failed || n > r->left) {
        r->failed = true;
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += n;
    r->left -= n;
    return p;
}

uint8_t ol_r_u8(ol_rbuf_t *r)
{
    const uint8_t *p = r_take(r, 1);
    return p ? p[0] : 0;
}

uint16_t ol_r_u16(ol_rbuf_t *r)
{
    const uint8_t *p = r_take(r, 2);
    return p ? (uint16_t)((p[0] << 8) | p[1]) : 0;
}

uint32_t ol_r_u32(ol_rbuf_t *r)
{
    const uint8_t *p = r_take(r, 4);
    return p ? ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3] : 0;
}

char *ol_r_str(ol_rbuf_t *r)
{
    uint32_t n = ol_r_u32(r);
    if (r->failed || n == STR_NULL)
        return NULL;
    const uint8_t *p = r_take(r, n);
    if (p == NULL || memchr(p, '\0', n) != NULL) {
        r->failed = true;
        return NULL;
    }
    char *s = ol_xmalloc((size_t)n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

const uint8_t *ol_r_bytes(ol_rbuf_t *r, uint32_t *len)
{
    uint32_t n = ol_r_u32(r);
    const uint8_t *p = r_take(r, n);
    *len = p ? n : 0;
    return p;
}

char **ol_r_strv(ol_rbuf_t *r)
{
    uint32_t n = ol_r_u32(r);
    /* Each string needs at least its 4-byte length: refuse absurd counts. */
    if (r->failed || n > r->left / 4) {
        r->failed = true;
        return NULL;
    }
    char **v = ol_xcalloc((size_t)n + 1, sizeof *v);
    for (uint32_t i = 0; i < n; i++) {
        v[i] = ol_r_str(r);
        if (v[i] == NULL) {
            r->failed = true;
            ol_strv_free(v);
            return NULL;
        }
    }
    return v;
}

/* ---- messages ---- */

void ol_msg_hello_encode(const ol_msg_hello_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->version);
    ol_w_u32(w, m->node_id);
    ol_w_u32(w, m->pid);
    ol_w_str(w, m->hostname);
    ol_w_u16(w, m->port);
    ol_w_strv(w, m->addrs);
    ol_w_strv(w, m->netifs);
}

int ol_msg_hello_decode(ol_rbuf_t *r, ol_msg_hello_t *m)
{
    memset(m, 0, sizeof *m);
    m->version = ol_r_u32(r);
    if (m->version != OL_PROTO_VERSION) /* the rest may be laid out otherwise */
        return -1;
    m->node_id = ol_r_u32(r);
    m->pid = ol_r_u32(r);
    m->hostname = ol_r_str(r);
    m->port = ol_r_u16(r);
    m->addrs = ol_r_strv(r);
    m->netifs = ol_r_strv(r);
    if (r->failed || m->hostname == NULL || m->addrs == NULL || m->netifs == NULL) {
        ol_msg_hello_free(m);
        return -1;
    }
    return 0;
}

void ol_msg_hello_free(ol_msg_hello_t *m)
{
    free(m->hostname);
    ol_strv_free(m->addrs);
    ol_strv_free(m->netifs);
    m->hostname = NULL;
    m->addrs = NULL;
    m->netifs = NULL;
}

void ol_msg_launch_encode(const ol_msg_launch_t *m, ol_wbuf_t *w)
{
    ol_w_str(w, m->nspace);
    ol_w_u32(w, m->job_size);
    ol_w_strv(w, m->nodes);
    for (uint32_t i = 0; i < m->job_size; i++)
        ol_w_u32(w, m->rank_node[i]);
    ol_w_u32(w, m->stdin_rank);
    ol_w_u32(w, m->kill_grace_ms);
    ol_w_u8(w, m->map_by);
    ol_w_u8(w, m->bind_to);
    ol_w_u8(w, m->report_bindings);
    ol_w_u16(w, m->pe);
    ol_w_u32(w, m->univ_size);
    ol_w_str(w, m->cwd);
    ol_w_strv(w, m->env);
    ol_w_u32(w, m->napps);
    for (uint32_t a = 0; a < m->napps; a++) {
        ol_w_u32(w, m->apps[a].first_rank);
        ol_w_u32(w, m->apps[a].np);
        ol_w_str(w, m->apps[a].exe);
        ol_w_strv(w, m->apps[a].argv);
    }
}

/* Apps tile [0, job_size) in order; every rank's node exists. */
static bool launch_is_consistent(const ol_msg_launch_t *m)
{
    size_t nnodes = ol_strv_len(m->nodes);
    if (m->nspace == NULL || m->cwd == NULL || nnodes == 0 || m->napps == 0 || m->pe == 0)
        return false;
    for (uint32_t i = 0; i < m->job_size; i++) {
        if (m->rank_node[i] >= nnodes)
            return false;
    }
    uint64_t next = 0;
    for (uint32_t a = 0; a < m->napps; a++) {
        const ol_app_t *app = &m->apps[a];
        if (app->first_rank != next || app->np == 0 || app->exe == NULL || ol_strv_len(app->argv) == 0)
            return false;
        next += app->np;
    }
    return next == m->job_size;
}

int ol_msg_launch_decode(ol_rbuf_t *r, ol_msg_launch_t *m)
{
    memset(m, 0, sizeof *m);
    m->nspace = ol_r_str(r);
    m->job_size = ol_r_u32(r);
    m->nodes = ol_r_strv(r);
    /* Each entry takes 4 bytes: refuse sizes the body cannot hold. */
    if (r->failed || m->job_size > r->left / 4) {
        ol_msg_launch_free(m);
        return -1;
    }
    m->rank_node = ol_xcalloc(m->job_size, sizeof *m->rank_node);
    for (uint32_t i = 0; i < m->job_size; i++)
        m->rank_node[i] = ol_r_u32(r);
    m->stdin_rank = ol_r_u32(r);
    m->kill_grace_ms = ol_r_u32(r);
    m->map_by = ol_r_u8(r);
    m->bind_to = ol_r_u8(r);
    m->report_bindings = ol_r_u8(r);
    m->pe = ol_r_u16(r);
    m->univ_size = ol_r_u32(r);
    m->cwd = ol_r_str(r);
    m->env = ol_r_strv(r);
    m->napps = ol_r_u32(r);
    if (r->failed || m->napps > r->left / 16) {
        ol_msg_launch_free(m);
        return -1;
    }
    m->apps = ol_xcalloc(m->napps, sizeof *m->apps);
    for (uint32_t a = 0; a < m->napps; a++) {
        m->apps[a].first_rank = ol_r_u32(r);
        m->apps[a].np = ol_r_u32(r);
        m->apps[a].exe = ol_r_str(r);
        m->apps[a].argv = ol_r_strv(r);
    }
    if (r->failed || !launch_is_consistent(m)) {
        ol_msg_launch_free(m);
        return -1;
    }
    return 0;
}

void ol_msg_launch_free(ol_msg_launch_t *m)
{
    free(m->nspace);
    ol_strv_free(m->nodes);
    free(m->rank_node);
    free(m->cwd);
    ol_strv_free(m->env);
    for (uint32_t a = 0; m->apps != NULL && a < m->napps; a++) {
        free(m->apps[a].exe);
        ol_strv_free(m->apps[a].argv);
        ol_strv_free(m->apps[a].env);
        free(m->apps[a].cwd);
        free(m->apps[a].path);
    }
    free(m->apps);
    memset(m, 0, sizeof *m);
}

const ol_app_t *ol_launch_app_of(const ol_msg_launch_t *m, uint32_t rank)
{
    for (uint32_t a = 0; a < m->napps; a++) {
        if (rank < m->apps[a].first_rank + m->apps[a].np)
            return &m->apps[a];
    }
    return &m->apps[m->napps - 1];
}

void ol_msg_io_encode(const ol_msg_io_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->rank);
    ol_w_u8(w, m->stream);
    ol_w_bytes(w, m->data, m->len);
}

int ol_msg_io_decode(ol_rbuf_t *r, ol_msg_io_t *m)
{
    m->rank = ol_r_u32(r);
    m->stream = ol_r_u8(r);
    m->data = ol_r_bytes(r, &m->len);
    if (r->failed || (m->stream != OL_STREAM_STDOUT && m->stream != OL_STREAM_STDERR))
        return -1;
    return 0;
}

void ol_msg_rank_exit_encode(const ol_msg_rank_exit_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->rank);
    ol_w_u32(w, m->pid);
    ol_w_u8(w, m->kind);
    ol_w_u32(w, (uint32_t)m->code);
    ol_w_str(w, m->msg);
}

int ol_msg_rank_exit_decode(ol_rbuf_t *r, ol_msg_rank_exit_t *m)
{
    memset(m, 0, sizeof *m);
    m->rank = ol_r_u32(r);
    m->pid = ol_r_u32(r);
    m->kind = ol_r_u8(r);
    m->code = (int32_t)ol_r_u32(r);
    m->msg = ol_r_str(r);
    if (r->failed || m->kind > OL_EXIT_EXEC_FAILED) {
        ol_msg_rank_exit_free(m);
        return -1;
    }
    return 0;
}

void ol_msg_rank_exit_free(ol_msg_rank_exit_t *m)
{
    free(m->msg);
    m->msg = NULL;
}

void ol_msg_error_encode(const ol_msg_error_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->node_id);
    ol_w_u32(w, m->rank);
    ol_w_str(w, m->text);
}

int ol_msg_error_decode(ol_rbuf_t *r, ol_msg_error_t *m)
{
    m->node_id = ol_r_u32(r);
    m->rank = ol_r_u32(r);
    m->text = ol_r_str(r);
    if (r->failed || m->text == NULL) {
        ol_msg_error_free(m);
        return -1;
    }
    return 0;
}

void ol_msg_error_free(ol_msg_error_t *m)
{
    free(m->text);
    m->text = NULL;
}

void ol_msg_fence_encode(const ol_msg_fence_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->spawn_no);
    ol_w_u32(w, m->seq);
    ol_w_bytes(w, m->data, m->len);
}

int ol_msg_fence_decode(ol_rbuf_t *r, ol_msg_fence_t *m)
{
    m->spawn_no = ol_r_u32(r);
    m->seq = ol_r_u32(r);
    m->data = ol_r_bytes(r, &m->len);
    return r->failed ? -1 : 0;
}

void ol_msg_dmodex_req_encode(const ol_msg_dmodex_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->req_id);
    ol_w_u32(w, m->node);
    ol_w_u32(w, m->rank);
}

int ol_msg_dmodex_req_decode(ol_rbuf_t *r, ol_msg_dmodex_t *m)
{
    memset(m, 0, sizeof *m);
    m->req_id = ol_r_u32(r);
    m->node = ol_r_u32(r);
    m->rank = ol_r_u32(r);
    return r->failed ? -1 : 0;
}

void ol_msg_dmodex_resp_encode(const ol_msg_dmodex_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->req_id);
    ol_w_u32(w, m->node);
    ol_w_u32(w, (uint32_t)m->status);
    ol_w_bytes(w, m->data, m->len);
}

int ol_msg_dmodex_resp_decode(ol_rbuf_t *r, ol_msg_dmodex_t *m)
{
    memset(m, 0, sizeof *m);
    m->req_id = ol_r_u32(r);
    m->node = ol_r_u32(r);
    m->status = (int32_t)ol_r_u32(r);
    m->data = ol_r_bytes(r, &m->len);
    return r->failed ? -1 : 0;
}

void ol_msg_u32_encode(uint32_t v, ol_wbuf_t *w)
{
    ol_w_u32(w, v);
}

int ol_msg_u32_decode(ol_rbuf_t *r, uint32_t *v)
{
    *v = ol_r_u32(r);
    return r->failed ? -1 : 0;
}

/* ---- framing ---- */

int ol_frame_send(struct bufferevent *bev, uint16_t type, const ol_wbuf_t *body)
{
    size_t len = body ? body->len : 0;
    if (len > OL_FRAME_MAX)
        return -1;
    uint8_t hdr[OL_FRAME_HDR_LEN] = {
        (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len,
        (uint8_t)(type >> 8), (uint8_t)type, 0, 0,
    };
    if (bufferevent_write(bev, hdr, sizeof hdr) != 0)
        return -1;
    if (len > 0 && bufferevent_write(bev, body->data, len) != 0)
        return -1;
    return 0;
}

int ol_frame_send_raw(struct bufferevent *bev, uint16_t type, const void *body, size_t len)
{
    ol_wbuf_t w = { .data = (uint8_t *)body, .len = len, .cap = len };
    return ol_frame_send(bev, type, &w);
}

int ol_frame_pop(struct evbuffer *in, uint16_t *type, uint8_t **body, uint32_t *len)
{
    uint8_t hdr[OL_FRAME_HDR_LEN];
    if (evbuffer_copyout(in, hdr, sizeof hdr) < (ev_ssize_t)sizeof hdr)
        return 0;
    uint32_t n = ((uint32_t)hdr[0] << 24) | ((uint32_t)hdr[1] << 16) | ((uint32_t)hdr[2] << 8) | hdr[3];
    if (n > OL_FRAME_MAX)
        return -1;
    if (evbuffer_get_length(in) < OL_FRAME_HDR_LEN + (size_t)n)
        return 0;
    evbuffer_drain(in, sizeof hdr);
    *type = (uint16_t)((hdr[4] << 8) | hdr[5]);
    *body = ol_xmalloc(n);
    evbuffer_remove(in, *body, n);
    *len = n;
    return 1;
}

/* ---- STATE_REQ, STATE ---- */

void ol_msg_state_req_encode(const ol_msg_state_req_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->req_id);
    ol_w_u8(w, m->stacks);
}

int ol_msg_state_req_decode(ol_rbuf_t *r, ol_msg_state_req_t *m)
{
    m->req_id = ol_r_u32(r);
    m->stacks = ol_r_u8(r);
    return r->failed ? -1 : 0;
}

static void w_i64(ol_wbuf_t *w, int64_t v)
{
    ol_w_u32(w, (uint32_t)((uint64_t)v >> 32));
    ol_w_u32(w, (uint32_t)v);
}

static int64_t r_i64(ol_rbuf_t *r)
{
    uint64_t hi = ol_r_u32(r);
    return (int64_t)(hi << 32 | ol_r_u32(r));
}

static void w_call(ol_wbuf_t *w, const ol_call_desc_t *c)
{
    ol_w_u32(w, c->seq);
    ol_w_str(w, c->fn);
    ol_w_u16(w, c->flags);
    ol_w_str(w, c->comm);
    ol_w_u32(w, c->ctx);
    ol_w_u32(w, (uint32_t)c->comm_size);
    ol_w_u32(w, c->coll_seq);
    const int32_t v[] = { c->dest, c->dest_world, c->tag, c->source, c->source_world, c->rtag };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        ol_w_u32(w, (uint32_t)v[i]);
    w_i64(w, c->count);
    ol_w_str(w, c->dtype);
}

static void r_call(ol_rbuf_t *r, ol_call_desc_t *c)
{
    c->seq = ol_r_u32(r);
    c->fn = ol_r_str(r);
    c->flags = ol_r_u16(r);
    c->comm = ol_r_str(r);
    c->ctx = ol_r_u32(r);
    c->comm_size = (int32_t)ol_r_u32(r);
    c->coll_seq = ol_r_u32(r);
    int32_t *v[] = { &c->dest, &c->dest_world, &c->tag, &c->source, &c->source_world, &c->rtag };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        *v[i] = (int32_t)ol_r_u32(r);
    c->count = r_i64(r);
    c->dtype = ol_r_str(r);
}

static void w_op(ol_wbuf_t *w, const ol_op_desc_t *o)
{
    ol_w_u8(w, o->kind);
    ol_w_str(w, o->comm);
    ol_w_u32(w, o->ctx);
    ol_w_u32(w, (uint32_t)o->peer);
    ol_w_u32(w, (uint32_t)o->peer_world);
    ol_w_u32(w, (uint32_t)o->tag);
    w_i64(w, o->count);
}

static void r_op(ol_rbuf_t *r, ol_op_desc_t *o)
{
    o->kind = ol_r_u8(r);
    o->comm = ol_r_str(r);
    o->ctx = ol_r_u32(r);
    o->peer = (int32_t)ol_r_u32(r);
    o->peer_world = (int32_t)ol_r_u32(r);
    o->tag = (int32_t)ol_r_u32(r);
    o->count = r_i64(r);
}

static void w_rank_state(ol_wbuf_t *w, const ol_rank_state_t *s)
{
    ol_w_u32(w, s->rank);
    ol_w_u32(w, s->pid);
    ol_w_u8(w, s->where);
    ol_w_u32(w, s->since_ms);
    ol_w_u32(w, s->repeats);
    ol_w_str(w, s->exit_text);
    ol_w_u8(w, s->has_call);
    if (s->has_call)
        w_call(w, &s->call);
    ol_w_u8(w, s->pending_known);
    ol_w_u32(w, s->pending_total);
    ol_w_u32(w, s->npending);
    for (uint32_t i = 0; i < s->npending; i++)
        w_op(w, &s->pending[i]);
    ol_w_str(w, s->stack);
}

/* Each pending entry takes at least 29 bytes: a count beyond what is left
 * is malformed, not an allocation to attempt. */
static int r_rank_state(ol_rbuf_t *r, ol_rank_state_t *s)
{
    s->rank = ol_r_u32(r);
    s->pid = ol_r_u32(r);
    s->where = ol_r_u8(r);
    s->since_ms = ol_r_u32(r);
    s->repeats = ol_r_u32(r);
    s->exit_text = ol_r_str(r);
    s->has_call = ol_r_u8(r);
    if (s->has_call)
        r_call(r, &s->call);
    s->pending_known = ol_r_u8(r);
    s->pending_total = ol_r_u32(r);
    s->npending = ol_r_u32(r);
    if (r->failed || s->npending > r->left / 29)
        return -1;
    s->pending = ol_xcalloc(s->npending + 1, sizeof *s->pending);
    for (uint32_t i = 0; i < s->npending; i++)
        r_op(r, &s->pending[i]);
    s->stack = ol_r_str(r);
    return r->failed ? -1 : 0;
}

void ol_rank_state_free(ol_rank_state_t *s)
{
    free(s->exit_text);
    free(s->call.fn);
    free(s->call.comm);
    free(s->call.dtype);
    for (uint32_t i = 0; s->pending != NULL && i < s->npending; i++)
        free(s->pending[i].comm);
    free(s->pending);
    free(s->stack);
    memset(s, 0, sizeof *s);
}

void ol_msg_state_encode(const ol_msg_state_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->req_id);
    ol_w_u32(w, m->node_id);
    ol_w_u32(w, m->n);
    for (uint32_t i = 0; i < m->n; i++)
        w_rank_state(w, &m->ranks[i]);
}

int ol_msg_state_decode(ol_rbuf_t *r, ol_msg_state_t *m)
{
    m->req_id = ol_r_u32(r);
    m->node_id = ol_r_u32(r);
    m->n = ol_r_u32(r);
    if (r->failed || m->n > r->left / 20) {
        m->n = 0;
        m->ranks = NULL;
        return -1;
    }
    m->ranks = ol_xcalloc(m->n + 1, sizeof *m->ranks);
    for (uint32_t i = 0; i < m->n; i++) {
        if (r_rank_state(r, &m->ranks[i]) != 0) {
            m->n = i + 1;
            ol_msg_state_free(m);
            return -1;
        }
    }
    return 0;
}

void ol_msg_state_free(ol_msg_state_t *m)
{
    for (uint32_t i = 0; i < m->n; i++)
        ol_rank_state_free(&m->ranks[i]);
    free(m->ranks);
    m->ranks = NULL;
    m->n = 0;
}

/* ---- spawn ---- */

void ol_msg_spawn_req_encode(const ol_msg_spawn_req_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->req_id);
    ol_w_u32(w, m->from_node);
    ol_w_u32(w, m->parent_gid);
    ol_w_u32(w, m->napps);
    for (uint32_t a = 0; a < m->napps; a++) {
        const ol_spawn_app_t *app = &m->apps[a];
        ol_w_str(w, app->cmd);
        ol_w_strv(w, app->argv);
        ol_w_strv(w, app->env);
        ol_w_str(w, app->cwd);
        ol_w_u32(w, app->maxprocs);
        ol_w_str(w, app->host);
        ol_w_str(w, app->hostfile);
        ol_w_str(w, app->add_host);
        ol_w_str(w, app->path);
    }
}

int ol_msg_spawn_req_decode(ol_rbuf_t *r, ol_msg_spawn_req_t *m)
{
    memset(m, 0, sizeof *m);
    m->req_id = ol_r_u32(r);
    m->from_node = ol_r_u32(r);
    m->parent_gid = ol_r_u32(r);
    m->napps = ol_r_u32(r);
    /* Each app takes at least 36 bytes: refuse counts the body cannot hold. */
    if (r->failed || m->napps == 0 || m->napps > r->left / 36)
        return -1;
    m->apps = ol_xcalloc(m->napps, sizeof *m->apps);
    for (uint32_t a = 0; a < m->napps; a++) {
        ol_spawn_app_t *app = &m->apps[a];
        app->cmd = ol_r_str(r);
        app->argv = ol_r_strv(r);
        app->env = ol_r_strv(r);
        app->cwd = ol_r_str(r);
        app->maxprocs = ol_r_u32(r);
        app->host = ol_r_str(r);
        app->hostfile = ol_r_str(r);
        app->add_host = ol_r_str(r);
        app->path = ol_r_str(r);
        if (!r->failed && (app->cmd == NULL || app->maxprocs == 0))
            r->failed = true;
    }
    if (r->failed) {
        ol_msg_spawn_req_free(m);
        return -1;
    }
    return 0;
}

void ol_msg_spawn_req_free(ol_msg_spawn_req_t *m)
{
    for (uint32_t a = 0; m->apps != NULL && a < m->napps; a++) {
        ol_spawn_app_t *app = &m->apps[a];
        free(app->cmd);
        ol_strv_free(app->argv);
        ol_strv_free(app->env);
        free(app->cwd);
        free(app->host);
        free(app->hostfile);
        free(app->add_host);
        free(app->path);
    }
    free(m->apps);
    memset(m, 0, sizeof *m);
}

void ol_msg_spawn_encode(const ol_msg_spawn_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->spawn_no);
    ol_w_u32(w, m->gid_base);
    ol_w_u32(w, m->parent_gid);
    ol_w_u32(w, m->univ_size);
    ol_msg_launch_encode(&m->job, w);
    for (uint32_t a = 0; a < m->job.napps; a++) {
        ol_w_strv(w, m->job.apps[a].env);
        ol_w_str(w, m->job.apps[a].cwd);
        ol_w_str(w, m->job.apps[a].path);
    }
}

int ol_msg_spawn_decode(ol_rbuf_t *r, ol_msg_spawn_t *m)
{
    memset(m, 0, sizeof *m);
    m->spawn_no = ol_r_u32(r);
    m->gid_base = ol_r_u32(r);
    m->parent_gid = ol_r_u32(r);
    m->univ_size = ol_r_u32(r);
    if (r->failed || ol_msg_launch_decode(r, &m->job) != 0)
        return -1;
    for (uint32_t a = 0; a < m->job.napps; a++) {
        m->job.apps[a].env = ol_r_strv(r);
        m->job.apps[a].cwd = ol_r_str(r);
        m->job.apps[a].path = ol_r_str(r);
    }
    if (r->failed || m->spawn_no == 0) {
        ol_msg_launch_free(&m->job);
        return -1;
    }
    return 0;
}

void ol_msg_spawn_ack_encode(const ol_msg_spawn_ack_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->spawn_no);
    ol_w_u32(w, m->node_id);
    ol_w_u8(w, m->phase);
    ol_w_u32(w, (uint32_t)m->err);
    ol_w_str(w, m->text);
}

int ol_msg_spawn_ack_decode(ol_rbuf_t *r, ol_msg_spawn_ack_t *m)
{
    m->spawn_no = ol_r_u32(r);
    m->node_id = ol_r_u32(r);
    m->phase = ol_r_u8(r);
    m->err = (int32_t)ol_r_u32(r);
    m->text = ol_r_str(r);
    if (r->failed) {
        free(m->text);
        m->text = NULL;
        return -1;
    }
    return 0;
}

void ol_msg_spawn_done_encode(const ol_msg_spawn_done_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->req_id);
    ol_w_u32(w, m->to_node);
    ol_w_u32(w, (uint32_t)m->status);
    ol_w_str(w, m->nspace);
}

int ol_msg_spawn_done_decode(ol_rbuf_t *r, ol_msg_spawn_done_t *m)
{
    m->req_id = ol_r_u32(r);
    m->to_node = ol_r_u32(r);
    m->status = (int32_t)ol_r_u32(r);
    m->nspace = ol_r_str(r);
    if (r->failed) {
        free(m->nspace);
        m->nspace = NULL;
        return -1;
    }
    return 0;
}

void ol_msg_spawn_go_encode(uint32_t spawn_no, uint8_t go, ol_wbuf_t *w)
{
    ol_w_u32(w, spawn_no);
    ol_w_u8(w, go);
}

int ol_msg_spawn_go_decode(ol_rbuf_t *r, uint32_t *spawn_no, uint8_t *go)
{
    *spawn_no = ol_r_u32(r);
    *go = ol_r_u8(r);
    return r->failed ? -1 : 0;
}

/* ---- published names ---- */

void ol_msg_name_encode(const ol_msg_name_t *m, ol_wbuf_t *w)
{
    ol_w_u32(w, m->req_id);
    ol_w_u32(w, m->node);
    ol_w_u8(w, m->op);
    ol_w_u32(w, (uint32_t)m->status);
    ol_w_str(w, m->nspace);
    ol_w_u32(w, m->rank);
    ol_w_u32(w, m->n);
    for (uint32_t i = 0; i < m->n; i++) {
        ol_w_str(w, m->names[i].key);
        ol_w_str(w, m->names[i].value);
        ol_w_str(w, m->names[i].nspace);
        ol_w_u32(w, m->names[i].rank);
    }
}

int ol_msg_name_decode(ol_rbuf_t *r, ol_msg_name_t *m)
{
    memset(m, 0, sizeof *m);
    m->req_id = ol_r_u32(r);
    m->node = ol_r_u32(r);
    m->op = ol_r_u8(r);
    m->status = (int32_t)ol_r_u32(r);
    m->nspace = ol_r_str(r);
    m->rank = ol_r_u32(r);
    m->n = ol_r_u32(r);
    /* Each name takes at least 16 bytes: refuse counts the body cannot hold. */
    if (r->failed || m->n > r->left / 16) {
        m->n = 0;
        ol_msg_name_free(m);
        return -1;
    }
    m->names = ol_xcalloc(m->n + 1, sizeof *m->names);
    for (uint32_t i = 0; i < m->n; i++) {
        ol_name_t *nm = &m->names[i];
        nm->key = ol_r_str(r);
        nm->value = ol_r_str(r);
        nm->nspace = ol_r_str(r);
        nm->rank = ol_r_u32(r);
        if (!r->failed && nm->key == NULL)
            r->failed = true;
    }
    if (r->failed) {
        ol_msg_name_free(m);
        return -1;
    }
    return 0;
}

void ol_msg_name_free(ol_msg_name_t *m)
{
    for (uint32_t i = 0; m->names != NULL && i < m->n; i++) {
        free(m->names[i].key);
        free(m->names[i].value);
        free(m->names[i].nspace);
    }
    free(m->names);
    free(m->nspace);
    memset(m, 0, sizeof *m);
}

const char *ol_msg_type_name(uint16_t type)
{
    static const char *const names[] = {
        [OL_MSG_HELLO] = "HELLO",       [OL_MSG_LAUNCH] = "LAUNCH", [OL_MSG_IO] = "IO",
        [OL_MSG_STDIN] = "STDIN",       [OL_MSG_RANK_EXIT] = "RANK_EXIT",
        [OL_MSG_ERROR] = "ERROR",       [OL_MSG_KILL] = "KILL",
        [OL_MSG_JOB_DONE] = "JOB_DONE", [OL_MSG_SHUTDOWN] = "SHUTDOWN",
        [OL_MSG_AUTH] = "AUTH",         [OL_MSG_LOST] = "LOST",
        [OL_MSG_FENCE_UP] = "FENCE_UP", [OL_MSG_FENCE_DOWN] = "FENCE_DOWN",
        [OL_MSG_DMODEX_REQ] = "DMODEX_REQ", [OL_MSG_DMODEX_RESP] = "DMODEX_RESP",
        [OL_MSG_PING] = "PING",         [OL_MSG_STATE_REQ] = "STATE_REQ",
        [OL_MSG_STATE] = "STATE",       [OL_MSG_SPAWN_REQ] = "SPAWN_REQ",
        [OL_MSG_SPAWN] = "SPAWN",       [OL_MSG_SPAWN_ACK] = "SPAWN_ACK",
        [OL_MSG_SPAWN_GO] = "SPAWN_GO", [OL_MSG_SPAWN_DONE] = "SPAWN_DONE",
        [OL_MSG_NAME_REQ] = "NAME_REQ", [OL_MSG_NAME_RESP] = "NAME_RESP",
    };
    if (type < sizeof names / sizeof names[0] && names[type] != NULL)
        return names[type];
    return "UNKNOWN";
}

/* Before the key is proved only an AUTH frame of exactly the key's size is
 * accepted, judged from its header alone: a stranger can make us hold no
 * more than one header. After it, the HELLO must fit OL_HANDSHAKE_MAX. */
static bool handshake_header_ok(struct evbuffer *in, bool authed)
{
    uint8_t hdr[OL_FRAME_HDR_LEN];
    if (evbuffer_copyout(in, hdr, sizeof hdr) < (ev_ssize_t)sizeof hdr)
        return true; /* not yet known */
    uint32_t n = ((uint32_t)hdr[0] << 24) | ((uint32_t)hdr[1] << 16) | ((uint32_t)hdr[2] << 8) | hdr[3];
    uint16_t type = (uint16_t)((hdr[4] << 8) | hdr[5]);
    if (!authed)
        return type == OL_MSG_AUTH && n == OL_AUTH_BODY_LEN;
    return type == OL_MSG_HELLO && n <= OL_HANDSHAKE_MAX;
}

int ol_handshake_read(struct evbuffer *in, const char *key, bool *authed, uint16_t *type,
                      uint8_t **body, uint32_t *len, uint32_t *node_id)
{
    int rc;
    for (;;) {
        if (!handshake_header_ok(in, *authed))
            return -1;
        if ((rc = ol_frame_pop(in, type, body, len)) <= 0)
            break;
        ol_rbuf_t rb = { .p = *body, .left = *len };
        if (!*authed) {
            uint32_t klen;
            const uint8_t *k = ol_r_bytes(&rb, &klen);
            *authed = *type == OL_MSG_AUTH && k != NULL && ol_net_key_equal(key, k, klen);
            free(*body);
            if (!*authed)
                return -1;
            continue;
        }
        ol_msg_hello_t h;
        if (*type != OL_MSG_HELLO || ol_msg_hello_decode(&rb, &h) != 0) {
            free(*body);
            return -1;
        }
        *node_id = h.node_id;
        ol_msg_hello_free(&h);
        return 1;
    }
    return rc; /* 0: more bytes needed; -1: a malformed frame */
}
