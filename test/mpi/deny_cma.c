/* An LD_PRELOAD shim for p2p_shm_nocma and p2p_shm_shared: a seccomp
 * filter, installed before main, makes process_vm_readv (or, with
 * DENY_CMA_CALL=writev, process_vm_writev) fail with EPERM in the process
 * and its children, as some containers' policies do. Nothing else
 * changes. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

__attribute__((constructor)) static void deny_process_vm_call(void)
{
    const char *call = getenv("DENY_CMA_CALL");
    unsigned denied = call && strcmp(call, "writev") == 0 ? SYS_process_vm_writev
                                                          : SYS_process_vm_readv;
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, denied, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {.len = sizeof(filter) / sizeof(filter[0]), .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
        perror("deny_cma: cannot install the seccomp filter");
}
