/* Loading and printing a table of parameters (rows of ol_param_t, see
 * ol_params.h). The runtime's table and the collectives' table are both
 * read with these. */
#ifndef OL_PARAM_TABLE_H
#define OL_PARAM_TABLE_H

#include "ol_params.h"

/* Sets every row to its default, then to OMPI_LITE_<NAME> when that is set
 * and parses; reports bad values on stderr. Returns how many were bad. */
int ol_param_table_load(const ol_param_t *table, size_t rows);
void ol_param_table_print(const ol_param_t *table, size_t rows, FILE *out);

#endif
