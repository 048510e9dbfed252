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

/* The tool interface (MPI_T) lists the tables through the print functions
 * every subsystem has for ompi_lite_info: while a visitor is set, printing
 * a table hands it to the visitor instead and writes nothing. Not thread
 * safe: MPI_T_init_thread sets it once under its own lock. */
typedef void ol_param_table_visitor_t(const ol_param_t *table, size_t rows, void *arg);
void ol_param_table_set_visitor(ol_param_table_visitor_t *visitor, void *arg);

/* As ol_param_table_load, but silent about bad values (MPI_Init reports
 * them when it loads the same table). */
void ol_param_table_load_quiet(const ol_param_t *table, size_t rows);

/* The value OMPI_LITE_<NAME> has in the environment, or NULL. */
const char *ol_param_env_value(const ol_param_t *p);

#endif
