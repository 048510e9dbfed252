/* The routing tree of a job's daemons.
 *
 * mpirun is the root; daemon (node) i sits at heap index h = i + 1, so with
 * fan-out k mpirun's children are nodes 0..k-1, and the children of node i
 * are nodes (i+1)k .. (i+1)k + k - 1 (those below the node count). With
 * k >= the node count the tree is flat: every daemon talks to mpirun.
 * Example, k = 2, 6 nodes:
 *
 *             mpirun
 *            /      \
 *          n0        n1
 *         /  \      /  \
 *       n2    n3  n4    n5
 *
 * Because the shape is a pure function of (node count, k), every process
 * routes without tables: a message for node t goes down to the child whose
 * subtree holds t, or up when t is not below. */
#ifndef OL_LAUNCHER_TREE_H
#define OL_LAUNCHER_TREE_H

#include <stdbool.h>
#include <stdint.h>

#define OL_TREE_ROOT UINT32_MAX /* "node" id of mpirun */
#define OL_TREE_UP (UINT32_MAX - 1)

/* Parent of node i: a node id, or OL_TREE_ROOT. */
uint32_t ol_tree_parent(uint32_t node, uint32_t fanout);
/* Children of `node` (OL_TREE_ROOT for mpirun) as [*first, *first + *count). */
void ol_tree_children(uint32_t node, uint32_t fanout, uint32_t nnodes, uint32_t *first, uint32_t *count);
/* Next hop from `self` (a node or OL_TREE_ROOT) toward `target`: the child
 * node holding target in its subtree, or OL_TREE_UP when target is not below
 * self. target == self is the caller's business. */
uint32_t ol_tree_next_hop(uint32_t self, uint32_t target, uint32_t fanout);
/* Whether any of the n processes placed by node_of[] (a node id each) runs
 * in the subtree of `node` (itself included; OL_TREE_ROOT: the whole tree).
 * A namespace's fence waits for those subtrees only. */
bool ol_tree_subtree_holds(uint32_t node, uint32_t fanout, const uint32_t *node_of, uint32_t n);

#endif
