/* Logging: OMPI_LITE_DEBUG=warn|info|trace, OMPI_LITE_DEBUG_SUBSYS=a,b,...
 * Lines go to stderr with a host:pid:rank prefix so that a job's merged
 * output says who spoke. */
#ifndef OL_LOG_H
#define OL_LOG_H

typedef enum {
    OL_LOG_NONE = 0,
    OL_LOG_WARN = 1,
    OL_LOG_INFO = 2,
    OL_LOG_TRACE = 3,
} ol_log_level_t;

/* The level in force for a subsystem ("pt2pt", "coll", "runtime" ...). */
int ol_log_enabled(ol_log_level_t level, const char *subsys);

void ol_log_write(ol_log_level_t level, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reads the parameters; called once parameters are loaded. */
void ol_log_init(void);

#define OL_LOG(level, subsys, ...)                                               \
    do {                                                                         \
        if (ol_log_enabled(level, subsys))                                       \
            ol_log_write(level, subsys, __VA_ARGS__);                            \
    } while (0)

#define OL_WARN(subsys, ...) OL_LOG(OL_LOG_WARN, subsys, __VA_ARGS__)
#define OL_INFO(subsys, ...) OL_LOG(OL_LOG_INFO, subsys, __VA_ARGS__)
#define OL_TRACE(subsys, ...) OL_LOG(OL_LOG_TRACE, subsys, __VA_ARGS__)

#endif
