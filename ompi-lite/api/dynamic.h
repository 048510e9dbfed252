/* What the world model's start and end (init.c) ask of dynamic.c. */
#ifndef OL_API_DYNAMIC_H
#define OL_API_DYNAMIC_H

/* In MPI_Init: a spawned job connects to its parents (MPI_Comm_get_parent). */
int ol_dynamic_start(void);
/* In MPI_Finalize: frees the parent intercommunicator if the program did not. */
void ol_dynamic_stop(void);

#endif
