/* Messages from and to device (CUDA) memory, private to pt2pt/.
 *
 * UCX here moves host memory only, so a message whose send buffer is device
 * memory travels as a protocol of its own (device.c):
 *
 *   sender                                     receiver
 *   announcement: 0 bytes, the user's tag + D  matched by any receive (its
 *                                              mask ignores D); writes nothing
 *   control: size, mode, cookie, IPC handle    received at once after the match
 *     mode IPC/LOCAL                           copies out of the sender's buffer
 *     mode STAGED: data chunks on the side     receives the chunks (pinned host)
 *       channel, copied to pinned host
 *       memory while earlier chunks fly
 *   <- reply on the side channel               after the data is in place
 *   send completes
 *
 * A receive into device memory of a message sent from host memory lands in
 * a pinned host buffer and is copied to the device at completion. */
#ifndef OL_PT2PT_DEVICE_H
#define OL_PT2PT_DEVICE_H

#include "ol_accel.h"
#include "request.h"
#include <ucp/api/ucp.h>

/* True when (buf, count, dt) holds data in device memory. */
static inline bool ol_dev_buffer(const void *buf, MPI_Count count, const ol_datatype_t *dt)
{
    return count > 0 && dt->size > 0 && ol_accel_is_device(ol_dt_data_at(buf, dt));
}

/* Receives match announcements of device messages (DEVICE_MESSAGES). */
extern bool ol_dev_messages;

void ol_dev_params_load(void);
void ol_dev_params_print(FILE *out);
void ol_dev_finalize(void);

/* Sends req's buffer (device memory) with the protocol above; req
 * completes when the receiver has the data. */
ol_status_t ol_dev_send_start(ol_request_t *req, ucp_ep_h ep, ucp_tag_t tag);

/* Where a device-message receive reports its end: bytes arrived, or the
 * error (MPI_ERR_TRUNCATE: the first bytes of the message are in place). */
typedef void (*ol_dev_done_t)(void *ctx, ol_status_t error, size_t bytes);

/* A receive matched an announcement (sender_tag has D): continues with the
 * control message and calls done(ctx, ...) once the data is in (buf, count,
 * dt). Called from the receive's UCX callback, so that control messages are
 * taken in the order their announcements matched. */
void ol_dev_recv_announced(void *buf, MPI_Count count, ol_datatype_t *dt, uint64_t sender_tag,
                           ol_dev_done_t done, void *ctx);

/* A receive of host data into device memory: the pinned buffer UCX
 * receives into (capacity bytes of packed data), and the copy to the device
 * once it arrived. */
void *ol_dev_landing_alloc(size_t capacity);
void *ol_dev_landing_data(void *landing);
ol_status_t ol_dev_landing_finish(void *landing, void *buf, MPI_Count count, ol_datatype_t *dt,
                                  size_t bytes);
void ol_dev_landing_free(void *landing);

/* The size of the message an announcement (sender_tag) stands for, for
 * probes: fetches its control message ahead of the receive. */
ol_status_t ol_dev_announced_bytes(uint64_t sender_tag, size_t *bytes);

#endif
