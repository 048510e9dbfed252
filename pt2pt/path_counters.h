/* The counts of messages and bytes per path (ol_p2p_path_t, pt2pt.h),
 * private to pt2pt/: the code that picks a message's path adds to them
 * (match.c for the rings and UCX, device.c for device buffers), and
 * ol_pt2pt_counters reads them. A message is counted once, on the path
 * its data took: a device buffer's announcement is not a message of the
 * rings or of UCX. Bytes are the message's size as sent (a receive counts
 * what arrived, truncated or not). */
#ifndef OL_PT2PT_PATH_COUNTERS_H
#define OL_PT2PT_PATH_COUNTERS_H

#include "ol_counter.h"
#include "pt2pt.h"

extern ol_p2p_path_counts_t ol_p2p_path_counts[OL_P2P_PATHS];

static inline void ol_p2p_count_sent(ol_p2p_path_t path, size_t bytes)
{
    ol_counter_add(&ol_p2p_path_counts[path].messages_sent, 1);
    ol_counter_add(&ol_p2p_path_counts[path].bytes_sent, bytes);
}

static inline void ol_p2p_count_received(ol_p2p_path_t path, size_t bytes)
{
    ol_counter_add(&ol_p2p_path_counts[path].messages_received, 1);
    ol_counter_add(&ol_p2p_path_counts[path].bytes_received, bytes);
}

#endif
