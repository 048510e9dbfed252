/* Logging with host:pid:rank prefixes (see ol_log.h). */
#include "ol_log.h"
#include "ol_params.h"
#include "ol_runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static ol_log_level_t log_level = OL_LOG_NONE;

static const char *level_names[] = {"none", "warn", "info", "trace"};

void ol_log_init(void)
{
    log_level = OL_LOG_NONE;
    for (int l = OL_LOG_WARN; l <= OL_LOG_TRACE; l++)
        if (strcmp(ol_param.debug, level_names[l]) == 0)
            log_level = (ol_log_level_t)l;
    if (*ol_param.debug && log_level == OL_LOG_NONE)
        fprintf(stderr, "ompi-lite: OMPI_LITE_DEBUG=%s is not one of warn, info, trace\n",
                ol_param.debug);
}

/* True when subsys is one of the comma-separated names of the list. */
static int subsys_listed(const char *list, const char *subsys)
{
    size_t n = strlen(subsys);
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncmp(p, subsys, n) == 0)
            return 1;
        p += len + (comma != NULL);
    }
    return 0;
}

int ol_log_enabled(ol_log_level_t level, const char *subsys)
{
    if (level > log_level)
        return 0;
    return !*ol_param.debug_subsys || subsys_listed(ol_param.debug_subsys, subsys);
}

void ol_log_write(ol_log_level_t level, const char *subsys, const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), "%s:%d:%d ompi-lite %s %s: ", ol_rt.hostname,
                     (int)getpid(), ol_rt.rank, level_names[level], subsys);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof(line))
        vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    /* One write per line keeps lines of different ranks from interleaving. */
    fprintf(stderr, "%s\n", line);
}
