/* The launcher's parameter table (see params.h). */
#include "params.h"

#include <stdlib.h>

const ol_launcher_param_t ol_launcher_params[OL_LAUNCHER_PARAMS] = {
    [OL_LAUNCHER_KILL_GRACE_MS] = {"KILL_GRACE_MS", 1000, 0, 3600000,
                                   "milliseconds between SIGTERM and SIGKILL when a job is ended"},
    [OL_LAUNCHER_TREE_FANOUT] = {"TREE_FANOUT", 8, 1, 1 << 16,
                                 "hosts that talk to mpirun directly; above it the daemons "
                                 "form a tree of this fan-out"},
    [OL_LAUNCHER_OVERSUBSCRIBE] = {"OVERSUBSCRIBE", 0, 0, 1,
                                   "1: as --oversubscribe, allow more processes than slots "
                                   "(a host without a hostfile has one slot per core)"},
    [OL_LAUNCHER_TOPO_CACHE] = {"TOPO_CACHE", 1, 0, 1,
                                "1: daemons cache the hwloc topology (per host, boot and "
                                "cpuset) to start faster; 0: discover it every time"},
    [OL_LAUNCHER_RESOLVE_MS] = {"RESOLVE_MS", 2000, 0, 60000,
                                "milliseconds mpirun waits in all for the host names of the "
                                "hostfile or --host to resolve (to find this host's own names "
                                "and spellings of one machine); one unresolved by then is "
                                "another host"},
    [OL_LAUNCHER_LINK_TIMEOUT_MS] = {"LINK_TIMEOUT_MS", 4000, 100, 600000,
                                     "milliseconds a link between mpirun and a daemon (or two "
                                     "daemons) may go without acknowledgement before its host "
                                     "counts as gone (TCP_USER_TIMEOUT); a shorter loss of "
                                     "packets only delays the job"},
    [OL_LAUNCHER_OUTPUT_BUFFER] = {"OUTPUT_BUFFER", 4 << 20, 64 << 10, 1 << 30,
                                   "bytes of the ranks' output a daemon queues toward mpirun, and "
                                   "mpirun toward its stdout/stderr, before it stops reading more "
                                   "(the ranks then wait in write(); nothing is dropped); reading "
                                   "resumes at half of it"},
    [OL_LAUNCHER_OUTPUT_UMASK] = {"OUTPUT_UMASK", 0, 0, 1,
                                  "1: --output-filename creates its directories and files with "
                                  "the user's umask; 0: owner only (0700 and 0600)"},
    [OL_LAUNCHER_VECTOR_COPIES] = {"VECTOR_COPIES", -1, -1, 1,
                                   "1: ranks start with glibc's memcpy told to use its vector "
                                   "loops instead of `rep movsb` (GLIBC_TUNABLES "
                                   "glibc.cpu.x86_rep_movsb_threshold), unless the environment "
                                   "sets that tunable; -1: only on AMD CPUs of family 19h (Zen 3 "
                                   "and 4), where `rep movsb` runs some copies 2-30 times slower "
                                   "(see launcher/README.md); 0: never"},
};

void ol_launcher_params_print(FILE *out)
{
    for (int i = 0; i < OL_LAUNCHER_PARAMS; i++) {
        const ol_launcher_param_t *p = &ol_launcher_params[i];
        char var[64];
        snprintf(var, sizeof(var), "OMPI_LITE_%s", p->name);
        const char *env = getenv(var);
        if (env)
            fprintf(out, "%s = %s (from the environment)\n", var, env);
        else
            fprintf(out, "%s = %ld\n", var, p->default_value);
        fprintf(out, "    default: %ld (launcher; %ld to %ld)\n    %s\n", p->default_value, p->min,
                p->max, p->help);
    }
}
