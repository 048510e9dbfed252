/* What the world model's start and end (init.c) ask of dynamic.c. */
#ifndef OL_API_DYNAMIC_H
#define OL_API_DYNAMIC_H

#include "ol_comm.h"

#include <stddef.h>

/* What the processes of the intracommunicator comm are, in a form other
 * jobs' processes can read (job name, rank there, host, UCX address): a
 * collective over comm; every process gets the bytes (malloc'd). */
int ol_dynamic_describe(ol_comm_t *comm, void **description, size_t *length);
/* The group of the processes a description names, added to the table of
 * processes where they are another job's. */
int ol_dynamic_group(const void *description, size_t length, ol_group_t **group);

/* In MPI_Init: a spawned job connects to its parents (MPI_Comm_get_parent). */
int ol_dynamic_start(void);
/* In MPI_Finalize: frees the parent intercommunicator if the program did not. */
void ol_dynamic_stop(void);

#endif
