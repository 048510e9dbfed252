/* The ranks' output as mpirun writes it (see mpirun_output.c). */
#ifndef OL_LAUNCHER_MPIRUN_OUTPUT_H
#define OL_LAUNCHER_MPIRUN_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct ol_output;

/* dir: --output-filename, or NULL. NULL with *err when dir cannot be made. */
struct ol_output *ol_output_new(bool tag, const char *dir, uint32_t nranks, char **err);
/* stream: enum ol_stream. */
void ol_output_write(struct ol_output *o, uint32_t rank, int stream, const uint8_t *data, size_t len);
void ol_output_free(struct ol_output *o);

#endif
