#include "tree.h"

static uint64_t heap_index(uint32_t node)
{
    return node == OL_TREE_ROOT ? 0 : (uint64_t)node + 1;
}

uint32_t ol_tree_parent(uint32_t node, uint32_t fanout)
{
    uint64_t h = heap_index(node);
    uint64_t p = (h - 1) / fanout;
    return p == 0 ? OL_TREE_ROOT : (uint32_t)(p - 1);
}

void ol_tree_children(uint32_t node, uint32_t fanout, uint32_t nnodes, uint32_t *first, uint32_t *count)
{
    uint64_t h = heap_index(node);
    uint64_t lo = h * fanout + 1, hi = h * fanout + fanout; /* heap indices */
    uint64_t last = nnodes; /* heap index of the last node */
    if (lo > last) {
        *first = 0;
        *count = 0;
        return;
    }
    if (hi > last)
        hi = last;
    *first = (uint32_t)(lo - 1);
    *count = (uint32_t)(hi - lo + 1);
}

uint32_t ol_tree_next_hop(uint32_t self, uint32_t target, uint32_t fanout)
{
    uint64_t hs = heap_index(self), h = heap_index(target);
    /* Climb from target until the parent is self (found) or above it. */
    while (h > hs) {
        uint64_t p = (h - 1) / fanout;
        if (p == hs)
            return (uint32_t)(h - 1);
        h = p;
    }
    return OL_TREE_UP;
}

bool ol_tree_subtree_holds(uint32_t node, uint32_t fanout, const uint32_t *node_of, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (node_of[i] == node || ol_tree_next_hop(node, node_of[i], fanout) != OL_TREE_UP)
            return true;
    }
    return false;
}
