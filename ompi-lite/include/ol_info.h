/* Info objects: ordered (key, value) string pairs. MPI_INFO_ENV is a
 * predefined one, made on first use from what the process knows. */
#ifndef OL_INFO_H
#define OL_INFO_H

#include "ol_common.h"

typedef struct ol_info ol_info_t;

/* NULL for MPI_INFO_NULL and anything that is no live info object. */
ol_info_t *ol_info_from_handle(MPI_Info handle);
MPI_Info ol_info_to_handle(ol_info_t *info);
/* A new, empty info; NULL without memory. */
ol_info_t *ol_info_create(void);
/* A new info with the same pairs; NULL without memory. */
ol_info_t *ol_info_dup(const ol_info_t *info);
/* The info argument of a call that takes hints: MPI_INFO_NULL (*hints is
 * then NULL) or a live info; MPI_ERR_INFO, with a detail, otherwise. */
ol_status_t ol_info_hints(MPI_Info handle, const ol_info_t **hints);
/* Frees a user info (the predefined MPI_INFO_ENV is never freed). */
void ol_info_release(ol_info_t *info);
/* The value of key, or NULL when it is not set. */
const char *ol_info_get_value(const ol_info_t *info, const char *key);
/* Adds a pair, or replaces the value of key; MPI_ERR_NO_MEM the only
 * failure (lengths are the caller's to check). */
ol_status_t ol_info_set(ol_info_t *info, const char *key, const char *value);
/* ol_info_set with a size written in decimal. */
ol_status_t ol_info_set_size(ol_info_t *info, const char *key, size_t value);
/* Hands a new info that the calling MPI function filled to the user
 * (*handle). When info is NULL or filling it failed (filled is not
 * MPI_SUCCESS), frees it and returns MPI_ERR_NO_MEM with the detail. */
int ol_info_give(ol_info_t *info, ol_status_t filled, MPI_Info *handle);

#endif
