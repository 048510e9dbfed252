/* The per-thread sentence that explains an error (see ol_common.h). */
#include "ol_common.h"

#include <stdarg.h>
#include <stdio.h>

static __thread char detail[512];

void ol_error_detail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
}

const char *ol_error_detail_take(void)
{
    static __thread char taken[sizeof(detail)];
    snprintf(taken, sizeof(taken), "%s", detail);
    detail[0] = '\0';
    return taken;
}
