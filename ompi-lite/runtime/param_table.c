/* Loading and printing parameter tables (see ol_param_table.h). */
#include "ol_param_table.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

static int set_row(const ol_param_t *p, const char *text)
{
    if (p->type == OL_PARAM_STRING) {
        *(const char **)p->storage = text;
        return 0;
    }
    return parse_int(text, (int *)p->storage);
}

static bool in_range(const ol_param_t *p)
{
    int v = *(const int *)p->storage;
    bool unbounded = p->min == 0 && p->max == 0;
    return p->type != OL_PARAM_INT || unbounded || (v >= p->min && v <= p->max);
}

/* "0 or 1", "1 or more", "4096 to 16777216". */
static void describe_range(const ol_param_t *p, char *out, size_t size)
{
    if (p->max == p->min + 1)
        snprintf(out, size, "%ld or %ld", p->min, p->max);
    else if (p->max == INT_MAX)
        snprintf(out, size, "%ld or more", p->min);
    else
        snprintf(out, size, "%ld to %ld", p->min, p->max);
}

static void report_bad(const ol_param_t *p, const char *text, bool parsed)
{
    char range[64];
    describe_range(p, range, sizeof(range));
    if (!parsed)
        fprintf(stderr, "ompi-lite: OMPI_LITE_%s=%s is not a valid value (%s); using %s\n",
                p->name, text, p->type == OL_PARAM_INT ? "an integer is expected" : "",
                p->default_value);
    else
        fprintf(stderr, "ompi-lite: OMPI_LITE_%s=%s is out of range (it takes %s); using %s\n",
                p->name, text, range, p->default_value);
}

const char *ol_param_env_value(const ol_param_t *p)
{
    char var[128];
    snprintf(var, sizeof(var), "OMPI_LITE_%s", p->name);
    return getenv(var);
}

static int load(const ol_param_t *table, size_t rows, bool report)
{
    int bad = 0;
    for (size_t i = 0; i < rows; i++) {
        const ol_param_t *p = &table[i];
        if (set_row(p, p->default_value) != 0 || !in_range(p))
            fprintf(stderr, "ompi-lite: internal error: OMPI_LITE_%s's default %s is not one of "
                            "its values\n",
                    p->name, p->default_value);
        const char *text = ol_param_env_value(p);
        if (!text)
            continue;
        bool parsed = set_row(p, text) == 0;
        if (!parsed || !in_range(p)) {
            if (report)
                report_bad(p, text, parsed);
            set_row(p, p->default_value);
            bad++;
        }
    }
    return bad;
}

int ol_param_table_load(const ol_param_t *table, size_t rows)
{
    return load(table, rows, true);
}

void ol_param_table_load_quiet(const ol_param_t *table, size_t rows)
{
    load(table, rows, false);
}

static ol_param_table_visitor_t *visitor;
static void *visitor_arg;

void ol_param_table_set_visitor(ol_param_table_visitor_t *fn, void *arg)
{
    visitor = fn;
    visitor_arg = arg;
}

void ol_param_table_print(const ol_param_t *table, size_t rows, FILE *out)
{
    if (visitor) {
        visitor(table, rows, visitor_arg);
        return;
    }
    for (size_t i = 0; i < rows; i++) {
        const ol_param_t *p = &table[i];
        const char *text = ol_param_env_value(p);
        char range[64] = "";
        if (p->type == OL_PARAM_INT && (p->min || p->max)) {
            strcpy(range, ", takes ");
            describe_range(p, range + strlen(range), sizeof(range) - strlen(range));
        }
        fprintf(out, "OMPI_LITE_%s = %s%s\n    default: %s%s\n    %s\n", p->name,
                text ? text : p->default_value, text ? " (from the environment)" : "",
                *p->default_value ? p->default_value : "(empty)", range, p->help);
    }
}
