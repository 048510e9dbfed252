/* The parameter table (see ol_params.h). Adding a tunable is adding a row. */
#include "ol_params.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct ol_param_values ol_param;

static const ol_param_t param_table[] = {
    {"DEBUG", OL_PARAM_STRING, "",
     "log level: warn, info or trace (empty: errors only)", &ol_param.debug},
    {"DEBUG_SUBSYS", OL_PARAM_STRING, "",
     "comma-separated subsystems to log (runtime,pt2pt,coll,api); empty: all",
     &ol_param.debug_subsys},
    {"SPIN_US", OL_PARAM_INT, "-1",
     "microseconds a waiting rank polls before sleeping on the UCX event fd; "
     "-1: 50 when the host has a core per local rank, 0 when oversubscribed",
     &ol_param.spin_us},
    {"WAIT_POLL_MS", OL_PARAM_INT, "100",
     "longest sleep of a waiting rank between two progress calls (a safety net "
     "for wakeups a transport does not signal)",
     &ol_param.wait_poll_ms},
};

static int parse_int(const char *text, int *value)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 0);
    if (errno || end == text || *end != '\0' || v < INT_MIN || v > INT_MAX)
        return -1;
    *value = (int)v;
    return 0;
}

static int set_param(const ol_param_t *p, const char *text)
{
    if (p->type == OL_PARAM_STRING) {
        *(const char **)p->storage = text;
        return 0;
    }
    return parse_int(text, (int *)p->storage);
}

static const char *env_value(const ol_param_t *p)
{
    char var[128];
    snprintf(var, sizeof(var), "OMPI_LITE_%s", p->name);
    return getenv(var);
}

int ol_params_load(void)
{
    int bad = 0;
    for (size_t i = 0; i < sizeof(param_table) / sizeof(param_table[0]); i++) {
        const ol_param_t *p = &param_table[i];
        set_param(p, p->default_value);
        const char *text = env_value(p);
        if (text && set_param(p, text) != 0) {
            fprintf(stderr, "ompi-lite: OMPI_LITE_%s=%s is not a valid value (%s); using %s\n",
                    p->name, text, p->type == OL_PARAM_INT ? "an integer is expected" : "",
                    p->default_value);
            set_param(p, p->default_value);
            bad++;
        }
    }
    return bad;
}

void ol_params_print(FILE *out)
{
    for (size_t i = 0; i < sizeof(param_table) / sizeof(param_table[0]); i++) {
        const ol_param_t *p = &param_table[i];
        const char *text = env_value(p);
        fprintf(out, "OMPI_LITE_%s = %s%s\n    default: %s\n    %s\n", p->name,
                text ? text : p->default_value, text ? " (from the environment)" : "",
                *p->default_value ? p->default_value : "(empty)", p->help);
    }
}
