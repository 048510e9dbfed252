/* The 64-bit UCX tag that carries MPI matching.
 *
 *   63            46 45 44 43 42                23 22                     0
 *  +----------------+--+--+--+--------------------+------------------------+
 *  | context id (18)|C |D |K |  source rank (20)  |      MPI tag (23)      |
 *  +----------------+--+--+--+--------------------+------------------------+
 *
 *  context id  the communicator (allocated by the communicator layer)
 *  C           1 for the library's collective traffic: a different tag
 *              space that no user receive, not even MPI_ANY_TAG, matches
 *  D, K        the device-buffer protocol (pt2pt/device.c): D=1 K=0 is the
 *              empty announcement of a message sent from device memory,
 *              which receives match like data (their mask ignores D);
 *              D=1 K=1 its control message, D=0 K=1 its side channel
 *              (staged data, replies). No receive of user data matches K=1.
 *  source      the sender's rank in the communicator
 *  MPI tag     0 .. MPI_TAG_UB (2^23 - 1 = 8388607)
 *
 * Partitioned communication (pt2pt/part.c) uses two spaces of its own:
 *  - C=1 K=1 D=0 (OL_TAGSPACE_PART) with the user's tag: the handshake that
 *    matches an MPI_Psend_init to an MPI_Precv_init by (communicator,
 *    source, tag), in order, as UCX matches MPI messages. It is always host
 *    memory (so never D=1, which would make it a device control message),
 *    and its receives take a full mask. K=1 with C=1 is otherwise used only
 *    in the private context id (pt2pt/match.c), and the device side
 *    channel is C=0.
 *  - C=1 K=0, tags from OL_PART_TAG_FIRST: the partitions' data, which may
 *    come from device memory like any message. The collectives' tags stay
 *    below OL_PART_TAG_FIRST.
 *
 * A receive for a given source and tag masks out only D; MPI_ANY_SOURCE
 * also clears the source bits of the mask, MPI_ANY_TAG the tag bits. */
#ifndef OL_PT2PT_TAG_LAYOUT_H
#define OL_PT2PT_TAG_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#define OL_TAG_BITS 23
#define OL_SOURCE_BITS 20
#define OL_CONTROL_BITS 1
#define OL_DEVICE_BITS 1
#define OL_COLL_BITS 1
#define OL_CONTEXT_BITS 18

#define OL_TAG_SHIFT 0
#define OL_SOURCE_SHIFT (OL_TAG_SHIFT + OL_TAG_BITS)
#define OL_CONTROL_SHIFT (OL_SOURCE_SHIFT + OL_SOURCE_BITS)
#define OL_DEVICE_SHIFT (OL_CONTROL_SHIFT + OL_CONTROL_BITS)
#define OL_COLL_SHIFT (OL_DEVICE_SHIFT + OL_DEVICE_BITS)
#define OL_CONTEXT_SHIFT (OL_COLL_SHIFT + OL_COLL_BITS)

#define OL_FIELD_MASK(bits, shift) ((((uint64_t)1 << (bits)) - 1) << (shift))
#define OL_TAG_MASK OL_FIELD_MASK(OL_TAG_BITS, OL_TAG_SHIFT)
#define OL_SOURCE_MASK OL_FIELD_MASK(OL_SOURCE_BITS, OL_SOURCE_SHIFT)
#define OL_CONTROL_MASK OL_FIELD_MASK(OL_CONTROL_BITS, OL_CONTROL_SHIFT)
#define OL_DEVICE_MASK OL_FIELD_MASK(OL_DEVICE_BITS, OL_DEVICE_SHIFT)
#define OL_COLL_MASK OL_FIELD_MASK(OL_COLL_BITS, OL_COLL_SHIFT)
#define OL_CONTEXT_MASK OL_FIELD_MASK(OL_CONTEXT_BITS, OL_CONTEXT_SHIFT)

#define OL_TAG_UB ((1 << OL_TAG_BITS) - 1)
#define OL_MAX_RANKS (1 << OL_SOURCE_BITS)
#define OL_MAX_CONTEXT_IDS (1 << OL_CONTEXT_BITS)
/* Never given to a communicator: pt2pt's own messages (pt2pt/match.c). */
#define OL_CONTEXT_ID_PRIVATE (OL_MAX_CONTEXT_IDS - 1)

_Static_assert(OL_TAG_BITS + OL_SOURCE_BITS + OL_CONTROL_BITS + OL_DEVICE_BITS + OL_COLL_BITS +
                       OL_CONTEXT_BITS == 64,
               "the tag fields must fill the 64-bit UCX tag");
_Static_assert(OL_TAG_UB >= 32767, "MPI requires MPI_TAG_UB >= 32767");

/* The upper half of the collective space's tags: partitioned data. */
#define OL_PART_TAG_FIRST (1 << (OL_TAG_BITS - 1))

typedef enum { OL_TAGSPACE_USER = 0, OL_TAGSPACE_COLL = 1, OL_TAGSPACE_PART = 2 } ol_tagspace_t;

static inline uint64_t ol_tagspace_bits(ol_tagspace_t space)
{
    switch (space) {
    case OL_TAGSPACE_COLL: return OL_COLL_MASK;
    case OL_TAGSPACE_PART: return OL_COLL_MASK | OL_CONTROL_MASK;
    default: return 0;
    }
}

static inline uint64_t ol_tag_make(uint32_t context_id, ol_tagspace_t space, int source, int tag)
{
    return ((uint64_t)context_id << OL_CONTEXT_SHIFT) | ol_tagspace_bits(space) |
           ((uint64_t)(uint32_t)source << OL_SOURCE_SHIFT) | (uint64_t)(uint32_t)tag;
}

/* The message was sent from device memory: what arrived is its announcement. */
static inline bool ol_tag_is_device_announce(uint64_t ucx_tag)
{
    return (ucx_tag & OL_DEVICE_MASK) != 0;
}

static inline int ol_tag_source(uint64_t ucx_tag)
{
    return (int)((ucx_tag & OL_SOURCE_MASK) >> OL_SOURCE_SHIFT);
}

static inline int ol_tag_mpi_tag(uint64_t ucx_tag)
{
    return (int)(ucx_tag & OL_TAG_MASK);
}

#endif
