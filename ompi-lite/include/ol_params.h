/* The parameter table: every tunable of ompi-lite is one row (name, type,
 * default, help) and is read from the environment variable OMPI_LITE_<NAME>.
 * mpirun --param NAME=VALUE sets the same variable for the ranks. */
#ifndef OL_PARAMS_H
#define OL_PARAMS_H

#include <stdio.h>

typedef enum { OL_PARAM_INT, OL_PARAM_STRING } ol_param_type_t;

typedef struct {
    const char *name;       /* without the OMPI_LITE_ prefix */
    ol_param_type_t type;
    const char *default_value;
    const char *help;
    void *storage;          /* int * or const char ** */
    long min, max;          /* OL_PARAM_INT: the values it takes (0, 0: any) */
} ol_param_t;

/* The values, read by ol_params_load(). */
extern struct ol_param_values {
    const char *debug;          /* DEBUG */
    const char *debug_subsys;   /* DEBUG_SUBSYS */
    int spin_us;                /* SPIN_US */
    int yield_us;               /* YIELD_US */
    int wait_poll_ms;           /* WAIT_POLL_MS */
    const char *shm_test_name;  /* SHM_TEST_NAME: tests only (ol_shm_file.h) */
    const char *ifname;         /* IFNAME: the interfaces between hosts (ol_netif.h) */
    const char *net_test_speed; /* NET_TEST_SPEED: tests only (ol_netif.h) */
    int connect_timeout_s;      /* CONNECT_TIMEOUT_S: ports (runtime/port.c) */
    const char *name_dir;       /* NAME_DIR: published names (runtime/names.c) */
    /* UCX settings applied unless the user set the UCX variable (empty:
     * UCX's own default); see init.c. */
    const char *ucx_mm_fifo_size;      /* UCX_MM_FIFO_SIZE */
    const char *ucx_mm_fifo_elem_size; /* UCX_MM_FIFO_ELEM_SIZE */
    const char *ucx_tcp_rndv_thresh;   /* UCX_TCP_RNDV_THRESH */
    const char *ucx_shm_rndv_thresh;   /* UCX_SHM_RNDV_THRESH */
    const char *ucx_mixed_rndv_thresh; /* UCX_MIXED_RNDV_THRESH */
    const char *ucx_tcp_put_enable;    /* UCX_TCP_PUT_ENABLE */
    const char *ucx_atomic_mode;       /* UCX_ATOMIC_MODE */
    const char *ucx_tcp_seg_size;      /* UCX_TCP_SEG_SIZE */
    const char *ucx_mixed_seg_size;    /* UCX_MIXED_SEG_SIZE */
    const char *ucx_cma_seg_size;      /* UCX_CMA_SEG_SIZE */
} ol_param;

/* Reads every OMPI_LITE_<NAME> variable; a value that does not parse, or
 * an integer out of its row's range, is reported on stderr and the default
 * is kept. Returns the number of bad values. */
int ol_params_load(void);

/* Prints the table with current values and help (ompi_lite_info --params). */
void ol_params_print(FILE *out);

#endif
