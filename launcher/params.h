/* The launcher's parameters: one table (name, default, range, help) that
 * mpirun reads (environment, then --param) and ompi_lite_info prints. */
#ifndef OL_LAUNCHER_PARAMS_H
#define OL_LAUNCHER_PARAMS_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    const char *name;      /* without the OMPI_LITE_ prefix */
    long default_value;
    long min, max;
    const char *help;
} ol_launcher_param_t;

enum { OL_LAUNCHER_KILL_GRACE_MS, OL_LAUNCHER_TREE_FANOUT, OL_LAUNCHER_OVERSUBSCRIBE,
       OL_LAUNCHER_TOPO_CACHE, OL_LAUNCHER_RESOLVE_MS, OL_LAUNCHER_LINK_TIMEOUT_MS,
       OL_LAUNCHER_OUTPUT_BUFFER, OL_LAUNCHER_OUTPUT_UMASK, OL_LAUNCHER_VECTOR_COPIES,
       OL_LAUNCHER_PARAMS };

extern const ol_launcher_param_t ol_launcher_params[OL_LAUNCHER_PARAMS];

/* Prints the table as ompi_lite_info --params does for the library's. */
void ol_launcher_params_print(FILE *out);

#endif
