#!/usr/bin/env python3
"""Writes the MPI C bindings from functions.def (see README.md here).

For every function of the table whose implementation exists, i.e. one of
the given source files defines `ol_api_<name in lower case>(`, it writes
(an MPI_X whose large-count twin MPI_X_c differs only in by-value ints
widened to MPI_Count shares the implementation ol_api_x_c):

  * PMPI_<Name>: the initialisation check, the checks of every parameter by
    its KIND (communicator first, so later errors go to its handler), the
    translation of handles to internal objects, the call into the
    implementation, and the error handler on failure;
  * MPI_<Name>: a weak alias of PMPI_<Name>, so profiling tools can
    interpose;
  * around the call into the implementation, the state record of the call
    (ompi-lite/include/ol_state.h): which function, and the arguments that
    say where a rank waits (communicator, peer, tag, count, datatype, root),
    a few plain stores; after a call that makes or names a communicator, its
    name for the record; and the table of function names the record uses;

and a header with the prototype every implementation must have. A function
without an implementation is not written, hence not exported: linking a
program that calls it fails with its name.

usage: gen_bindings.py TABLE OUT.c OUT.h IMPL.c...
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fntable  # noqa: E402

# Callable before MPI_Init and after MPI_Finalize (MPI-4.1 section 11.2.1;
# the info functions since MPI-4.0; the Fortran registration of the ABI,
# which a Fortran layer makes before it calls MPI_Init).
CALLABLE_ANYTIME = {
    "MPI_Init", "MPI_Init_thread", "MPI_Initialized", "MPI_Finalized",
    "MPI_Get_version", "MPI_Get_library_version", "MPI_Abi_get_version",
    "MPI_Abi_get_info", "MPI_Abi_get_fortran_info", "MPI_Abi_set_fortran_info",
    "MPI_Abi_get_fortran_booleans", "MPI_Abi_set_fortran_booleans", "MPI_Wtime", "MPI_Wtick",
    "MPI_Error_class", "MPI_Error_string", "MPI_Query_thread",
    "MPI_Info_create", "MPI_Info_create_env", "MPI_Info_delete", "MPI_Info_dup",
    "MPI_Info_free", "MPI_Info_get", "MPI_Info_get_nkeys", "MPI_Info_get_nthkey",
    "MPI_Info_get_string", "MPI_Info_get_valuelen", "MPI_Info_set",
    # The session model starts there (MPI-4.1 11.3), with a handler made
    # beforehand, which the program may free at any time.
    "MPI_Session_init", "MPI_Session_create_errhandler", "MPI_Errhandler_free",
}


def is_tool(fn):
    """The tool information interface (MPI-4.1 chapter 15, api/tool.c):
    callable at any time, with its own initialisation (MPI_T_init_thread,
    which the implementations check); its calls return their error codes
    (the MPI_T_ERR_* of the chapter) and never invoke an error handler,
    and the implementations check every argument themselves, since the
    classes of the other chapters' checks are not the chapter's."""
    return fn.name.startswith("MPI_T_")


def callable_anytime(fn):
    return fn.name in CALLABLE_ANYTIME or is_tool(fn)

# Handle kinds that have an internal object: (C type, lookup check).
TRANSLATED = {
    "COMM": ("ol_comm_t *", "ol_check_comm"),
    "DATATYPE": ("ol_datatype_t *", "ol_check_datatype"),
    "GROUP": ("ol_group_t *", "ol_check_group"),
    "OP": ("ol_op_t *", "ol_check_op"),
    "WIN": ("ol_win_t *", "ol_check_win"),
    "SESSION": ("ol_session_t *", "ol_check_session"),
    "FILE": ("ol_file_t *", "ol_check_file"),
}

# Kinds checked against the communicator: (check function).
RANK_CHECKS = {"DEST": "ol_check_dest", "SOURCE": "ol_check_source", "ROOT": "ol_check_root"}


def own_impl_name(fn):
    return "ol_api_" + fn.name[len("MPI_"):].lower()


def widens_to(small, large):
    """True when the large-count variant takes the same arguments, with some
    by-value ints widened to MPI_Count: one implementation serves both."""
    if len(small.params) != len(large.params) or small.ret != large.ret:
        return False
    for p, q in zip(small.params, large.params):
        if (p.name, p.kind) != (q.name, q.kind):
            return False
        if p.decl != q.decl and (p.decl != "int " + p.name or q.decl != "MPI_Count " + q.name):
            return False
    return True


# Function name -> the implementation it calls, chosen in main().
IMPLEMENTATION = {}

# A collective's nonblocking and persistent forms (MPI_I<X>, MPI_<X>_init)
# share the implementation of its blocking form, which takes two more
# parameters saying how to issue the call: function name -> (how, the
# request argument). The blocking form passes no request; the persistent
# form's info is not passed (no info key changes a collective).
ISSUE = {}
ISSUE_PARAMS = "ol_api_how_t how, MPI_Request *request"


def impl_name(fn):
    return IMPLEMENTATION[fn.name]


def blocking_form(fn, by_name):
    """MPI_Igather_c and MPI_Gather_init_c -> (MPI_Gather_c, how), when the
    form has the blocking form's parameters plus [info] and a request."""
    name, large = fn.name, fn.name.endswith("_c")
    stem = name[:-2] if large else name
    suffix = "_c" if large else ""
    if stem.endswith("_init"):
        twin, how, extra = stem[:-len("_init")] + suffix, "OL_API_PERSISTENT", ("INFO", "OUT")
    elif stem.startswith("MPI_I"):
        twin, how, extra = "MPI_" + stem[len("MPI_I"):].capitalize() + suffix, "OL_API_NONBLOCKING", ("OUT",)
    else:
        return None
    blocking = by_name.get(twin)
    if not blocking or not is_collective(blocking):
        return None
    n = len(blocking.params)
    if [(p.name, p.decl) for p in fn.params[:n]] != [(p.name, p.decl) for p in blocking.params] or \
            tuple(p.kind for p in fn.params[n:]) != extra:
        return None
    return blocking, how


def implemented_names(sources):
    found = set()
    pattern = re.compile(r"^[A-Za-z_][\w \*]*\bol_api_(\w+)\s*\(", re.M)
    for path in sources:
        with open(path, encoding="utf-8") as f:
            found.update("ol_api_" + m.group(1) for m in pattern.finditer(f.read()))
    return found


def impl_param(p):
    """The implementation's declaration of a parameter: handles translated."""
    if p.kind in TRANSLATED:
        return "%s%s" % (TRANSLATED[p.kind][0], p.name)
    return p.decl


def impl_prototype(fn):
    params = ", ".join(impl_param(p) for p in fn.params) or "void"
    if fn.name in ISSUE:
        params += ", " + ISSUE_PARAMS
    return "%s %s(%s)" % (fn.ret, impl_name(fn), params)


def first_of(fn, kind):
    return next((p for p in fn.params if p.kind == kind), None)


def buffer_count(fn, buf):
    """The COUNT and DATATYPE that describe a BUFFER: sendcount/sendtype for
    sendbuf (recv... for recvbuf) when the function has them, else the COUNT
    and DATATYPE that follow it. None when it has no scalar count (v forms)."""
    by_name = {p.name: p for p in fn.params}
    for side in ("send", "recv"):
        if buf.name == side + "buf" and side + "type" in by_name:
            return by_name.get(side + "count"), by_name[side + "type"]
    after = fn.params[fn.params.index(buf) + 1:]
    count = next((p for p in after if p.kind == "COUNT"), None)
    dtype = next((p for p in after if p.kind == "DATATYPE"), None)
    return count, dtype


# Arguments the standard reads only at the root of a rooted collective (in
# all its forms: blocking, I..., ..._init, ..._c). Elsewhere they are not
# checked: a non-root may pass MPI_DATATYPE_NULL or a NULL buffer.
ROOT_ONLY = {
    "Gather": ("recvbuf", "recvcount", "recvtype"),
    "Gatherv": ("recvbuf", "recvcounts", "displs", "recvtype"),
    "Scatter": ("sendbuf", "sendcount", "sendtype"),
    "Scatterv": ("sendbuf", "sendcounts", "displs", "sendtype"),
    "Reduce": ("recvbuf",),
}


# On an intercommunicator the non-root group only sends (or, for scatter,
# only receives): these are the arguments it reads; the root (MPI_ROOT)
# does not read them, and MPI_PROC_NULL processes read no buffer at all
# (for bcast, the root reads its buffer too: only MPI_PROC_NULL skips it).
SENDER_SIDE = {
    "Bcast": ("buffer", "count", "datatype"),
    "Gather": ("sendbuf", "sendcount", "sendtype"),
    "Gatherv": ("sendbuf", "sendcount", "sendtype"),
    "Scatter": ("recvbuf", "recvcount", "recvtype"),
    "Scatterv": ("recvbuf", "recvcount", "recvtype"),
    "Reduce": ("sendbuf",),
}


def collective_base(fn):
    """MPI_Igatherv_init_c -> "Gatherv" (or None when not a rooted collective)."""
    base = fn.name[len("MPI_"):]
    for suffix in ("_c", "_init"):
        if base.endswith(suffix):
            base = base[:-len(suffix)]
    if base not in SENDER_SIDE and base[:1] == "I" and base[1:].capitalize() in SENDER_SIDE:
        base = base[1:].capitalize()  # Igather -> Gather
    return base if base in SENDER_SIDE else None


# One-sided operations that read the target: with MPI_NO_OP the standard
# ignores their origin buffer, count and datatype.
FETCHING_OPS = {"MPI_Get_accumulate", "MPI_Rget_accumulate", "MPI_Fetch_and_op"}


def condition_parts(fn, p):
    """The C conditions under which p is checked (none: always): root-only
    arguments at the root, the send/recv count and type only when their
    buffer is not MPI_IN_PLACE, and the origin arguments of a fetching
    one-sided operation only when its op is not MPI_NO_OP (the standard
    then ignores them)."""
    parts = []
    base = collective_base(fn)
    names = {q.name for q in fn.params}
    comm = first_of(fn, "COMM").name if base else None
    if base and p.name in ROOT_ONLY.get(base, ()):
        parts.append("ol_api_is_root(%s_obj, root)" % comm)
    if base and p.name in SENDER_SIDE[base]:
        reader = "ol_api_takes_part" if base == "Bcast" else "ol_api_is_sender"
        parts.append("%s(%s_obj, root)" % (reader, comm))
    for side in ("send", "recv"):
        if p.name.startswith(side) and p.name != side + "buf" and side + "buf" in names:
            parts.append("%sbuf != MPI_IN_PLACE" % side)
    stem = fn.name[:-2] if fn.name.endswith("_c") else fn.name
    if p.name.startswith("origin") and stem in FETCHING_OPS:
        parts.append("op != MPI_NO_OP")
    return parts


def condition(fn, *params):
    """The conditions of all params, joined, or None."""
    parts = [c for p in params if p for c in condition_parts(fn, p)]
    return " && ".join(dict.fromkeys(parts)) or None


def checks(fn):
    """(condition, C statement) pairs checking the parameters, each
    statement setting `err`; the condition is None for always."""
    out = []
    comm = first_of(fn, "COMM")
    ordered = ([comm] if comm else []) + [p for p in fn.params if p is not comm]
    buffers = []
    for p in ordered:
        cond = condition(fn, p)
        if p.kind in TRANSLATED:
            out.append((cond, '%s(%s, "%s", &%s_obj)' % (TRANSLATED[p.kind][1], p.name, p.name,
                                                       p.name)))
        elif p.kind == "COUNT":
            out.append((cond, 'ol_check_count((MPI_Count)%s, "%s")' % (p.name, p.name)))
        elif p.kind in RANK_CHECKS:
            if not comm:
                raise fntable.TableError("%s: %s %s needs a COMM parameter" % (fn.name, p.kind, p.name))
            out.append((cond, '%s(%s_obj, %s, "%s")' % (RANK_CHECKS[p.kind], comm.name, p.name,
                                                       p.name)))
        elif p.kind == "TAG":
            out.append((cond, 'ol_check_tag(%s, "%s")' % (p.name, p.name)))
        elif p.kind == "RECV_TAG":
            out.append((cond, 'ol_check_recv_tag(%s, "%s")' % (p.name, p.name)))
        elif p.kind in ("OUT", "INOUT"):
            out.append((cond, 'ol_check_not_null(%s, "%s")' % (p.name, p.name)))
        elif p.kind == "BUFFER":
            buffers.append(p)
    for buf in buffers:  # after their counts and datatypes are known valid
        count, dtype = buffer_count(fn, buf)
        if count and dtype:
            out.append((condition(fn, buf, count, dtype),
                        'ol_check_buffer(%s, (MPI_Count)%s, %s_obj, "%s")'
                        % (buf.name, count.name, dtype.name, buf.name)))
    return out


# Collectives, in all their forms (I..., ..._init, ..._c): the record
# numbers them per communicator, which is how mpirun finds the rank that is
# behind or in another collective.
COLLECTIVES = {
    "Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
    "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce", "Reduce_scatter",
    "Reduce_scatter_block", "Scan", "Exscan", "Neighbor_allgather", "Neighbor_allgatherv",
    "Neighbor_alltoall", "Neighbor_alltoallv", "Neighbor_alltoallw",
}

# Index of each bound function in the name table, chosen in main().
STATE_INDEX = {}


def is_collective(fn):
    base = fn.name[len("MPI_"):]
    for suffix in ("_c", "_init"):
        if base.endswith(suffix):
            base = base[:-len(suffix)]
    return base in COLLECTIVES or (base[:1] == "I" and base[1:] in COLLECTIVES)


def state_fields(fn):
    """(flags, C statements filling the slot `st`) for the arguments the
    record keeps: the first parameter of each kind that says where a rank
    waits."""
    comm = first_of(fn, "COMM")
    flags = ["OL_STATE_COLLECTIVE"] if is_collective(fn) and comm else []
    stmts = []

    def world(rank):
        return ("(%s >= 0 && %s_obj->world_ranks ? %s_obj->world_ranks[%s] : %s)"
                % (rank, comm.name, comm.name, rank, rank))

    if comm:
        flags.append("OL_STATE_HAS_COMM")
        stmts += ["st->ctx = %s_obj->context_id;" % comm.name,
                  "st->comm_size = %s_obj->size;" % comm.name]
        if is_collective(fn):
            stmts.append("st->coll_seq = %s_obj->user_collectives++;" % comm.name)
    for kind, field, flag in (("DEST", "dest", "DEST"), ("ROOT", "dest", "ROOT"),
                              ("SOURCE", "source", "SOURCE")):
        p = first_of(fn, kind)
        if p and comm:
            flags.append("OL_STATE_HAS_" + flag)
            stmts += ["st->%s = %s;" % (field, p.name),
                      "st->%s_world = %s;" % (field, world(p.name))]
    for kind, field, flag in (("TAG", "tag", "TAG"), ("RECV_TAG", "rtag", "RTAG")):
        p = first_of(fn, kind)
        if p:
            flags.append("OL_STATE_HAS_" + flag)
            stmts.append("st->%s = %s;" % (field, p.name))
    count, dtype = first_of(fn, "COUNT"), first_of(fn, "DATATYPE")
    if count and dtype:
        flags += ["OL_STATE_HAS_COUNT", "OL_STATE_HAS_DTYPE"]
        stmts += ["st->count = (int64_t)%s;" % count.name,
                  "st->datatype = (uint64_t)(uintptr_t)%s;" % dtype.name]
    return " | ".join(flags) or "0", stmts


def state_publish(fn):
    """Statements after a successful call that make or name communicators."""
    if fn.name in ("MPI_Init", "MPI_Init_thread"):
        return ["ol_state_publish_comm(&ol_comm_world);", "ol_state_publish_comm(&ol_comm_self);"]
    if fn.name == "MPI_Comm_set_name":
        return ["ol_state_publish_comm(comm_obj);"]
    return ["ol_state_publish_comm(ol_comm_from_handle(*%s));" % p.name
            for p in fn.params if p.kind == "OUT" and p.decl.startswith("MPI_Comm *")]


def status_error_kept(fn):
    """A call that returns one status (kind STATUS) leaves its MPI_ERROR
    field as it was (MPI 3.2.5: only the calls of several completions set
    it, and only when they return MPI_ERR_IN_STATUS). The implementations
    fill whole statuses; the binding puts the field back. Statements
    before the call, and after it."""
    status = first_of(fn, "STATUS")
    if status is None:
        return [], []
    name = status.name
    return (["    /* MPI 3.2.5: a call that returns one status leaves its MPI_ERROR alone */",
             "    int %s_error = %s != MPI_STATUS_IGNORE ? %s->MPI_ERROR : 0;" % (name, name, name)],
            ["    if (%s != MPI_STATUS_IGNORE && !ol_api_status_is_empty(%s))" % (name, name),
             "        %s->MPI_ERROR = %s_error;" % (name, name)])


def state_call(fn, call):
    """The implementation's call, recorded."""
    flags, fields = state_fields(fn)
    keep, put_back = status_error_kept(fn)
    lines = keep + ["    ol_state_call_t *st = ol_state_begin(%d, %s);" % (STATE_INDEX[fn.name], flags),
                    "    uint64_t st_outer = 0;",
                    "    if (st) {"]
    lines += ["        " + f for f in fields]
    lines += ["        st_outer = ol_state_enter(st);", "    }",
              "    err = %s;" % call,
              "    ol_state_leave(st, st_outer);"]
    lines += put_back
    lines += ["    if (OL_UNLIKELY(err != MPI_SUCCESS))",
              "        goto fail;"]
    return lines + ["    " + s for s in state_publish(fn)]


def state_names(chosen):
    """The name table the record carries, and the constructor that maps the
    record when the library is loaded (before MPI_Init, so that a rank
    stuck before or in MPI_Init shows as such)."""
    names = "".join(fn.name + "\\0" for fn in chosen)
    size = sum(len(fn.name) + 1 for fn in chosen)
    if size > 16384:
        raise fntable.TableError("the state record's name table is too small: %d bytes" % size)
    return ['static const char state_names[] = "%s";' % names, "",
            "__attribute__((constructor)) static void state_attach(void)", "{",
            "    ol_state_attach(state_names, sizeof(state_names) - 1);", "}", ""]


def call_args(fn):
    params = fn.params
    if fn.name in ISSUE:
        how, request = ISSUE[fn.name]
        params = params[:len(params) - (2 if how == "OL_API_PERSISTENT" else 1 if request else 0)]
    args = [p.name + "_obj" if p.kind in TRANSLATED else p.name for p in params]
    if fn.name in ISSUE:
        args += [ISSUE[fn.name][0], ISSUE[fn.name][1] or "NULL"]
    return ", ".join(args)


def int_binding(fn):
    comm = first_of(fn, "COMM")
    lines = ["OL_EXPORT %s" % fn.prototype("P" + fn.name), "{"]
    if not is_tool(fn):  # no handler to name the call to
        lines.append('    static const char fn_name[] = "%s";' % fn.name)
    for p in fn.params:
        if p.kind in TRANSLATED:
            lines.append("    %s%s_obj = NULL;" % (TRANSLATED[p.kind][0], p.name))
    lines.append("    int err;")
    if ISSUE.get(fn.name, ("",))[0] == "OL_API_PERSISTENT":
        lines.append("    (void)%s; /* not passed on: see ISSUE */" % first_of(fn, "INFO").name)
    statements = [] if callable_anytime(fn) else [(None, "ol_check_running()")]
    statements += [] if is_tool(fn) else checks(fn)
    for cond, s in statements:
        guard = "(%s) && " % cond if cond else ""
        lines.append("    if (%sOL_UNLIKELY((err = %s) != MPI_SUCCESS))" % (guard, s))
        lines.append("        goto fail;")
    lines += state_call(fn, "%s(%s)" % (impl_name(fn), call_args(fn)))
    lines.append("    return MPI_SUCCESS;")
    lines.append("fail:")
    lines.append("    return %s;" % raise_call(fn))
    lines.append("}")
    return lines


def raise_call(fn):
    """The call that hands an error to its handler: the communicator's
    when the call has one, else the window's or the session's it is made
    on (MPI_Win_free's and MPI_Session_finalize's too, through their
    pointer), else the handler
    MPI_Session_init was given, else MPI_COMM_SELF's (ol_api_raise)."""
    comm = first_of(fn, "COMM")
    file = first_of(fn, "FILE")
    if is_tool(fn):
        return "err"
    if file:
        return "ol_api_raise_file(fn_name, %s_obj, err)" % file.name
    if fn.name.startswith("MPI_File_") or fn.name.startswith("MPI_Register_datarep"):
        # MPI_File_open, _delete, _close, the handler calls that may name
        # MPI_FILE_NULL and MPI_Register_datarep: the handler of
        # MPI_FILE_NULL (MPI-4.1 14.7), the file's own for close.
        closed = next((p for p in fn.params
                       if p.kind == "INOUT" and p.decl.startswith("MPI_File *")), None)
        if closed:
            return ("ol_api_raise_file(fn_name, %s ? ol_file_from_handle(*%s) : NULL, err)"
                    % (closed.name, closed.name))
        return "ol_api_raise_file(fn_name, NULL, err)"
    if comm:
        return "ol_api_raise(fn_name, %s_obj, err)" % comm.name
    win, session = first_of(fn, "WIN"), first_of(fn, "SESSION")
    if win:
        return "ol_api_raise_win(fn_name, %s_obj, err)" % win.name
    if session:
        return "ol_api_raise_session(fn_name, %s_obj, err)" % session.name
    for handle_type, raise_fn, lookup in (("MPI_Win *", "ol_api_raise_win", "ol_win_from_handle"),
                                          ("MPI_Session *", "ol_api_raise_session",
                                           "ol_session_from_handle")):
        ended = next((p for p in fn.params
                      if p.kind == "INOUT" and p.decl.startswith(handle_type)), None)
        if ended:
            return ("%s(fn_name, %s ? %s(*%s) : NULL, err)"
                    % (raise_fn, ended.name, lookup, ended.name))
    if fn.name == "MPI_Session_init":
        return "ol_api_raise_session_init(fn_name, %s, err)" % first_of(fn, "ERRHANDLER").name
    return "ol_api_raise(fn_name, NULL, err)"


def value_binding(fn):
    """Functions that return a value (MPI_Wtime, MPI_Comm_fromint ...) have
    no error code to return: they do no checks."""
    args = ", ".join(p.name for p in fn.params)
    return ["OL_EXPORT %s" % fn.prototype("P" + fn.name), "{",
            "    return %s(%s);" % (impl_name(fn), args), "}"]


def binding(fn):
    returns_code = fn.ret == "int" and not fn.name.endswith("_toint")  # toint returns a handle
    lines = int_binding(fn) if returns_code else value_binding(fn)
    lines.append('OL_EXPORT extern __typeof__(P%s) %s __attribute__((weak, alias("P%s")));'
                 % (fn.name, fn.name, fn.name))
    return lines


def fortran_conversions(fn, by_name):
    """For a bound MPI_X_toint, MPI_X_c2f and MPI_X_f2c (MPI-5.0 19.3.4,
    declared in mpi.h outside the ABI): with MPI_Fint being int they are
    the toint/fromint pair under the names C programs written for Fortran
    interoperability call. Only where both toint and fromint are bound."""
    if not fn.name.endswith("_toint"):
        return []
    stem = fn.name[:-len("_toint")]
    fromint = by_name.get(stem + "_fromint")
    if not fromint or fromint.name not in IMPLEMENTATION:
        return []
    ctype, name = fn.params[0].decl.split()[0], fn.params[0].name
    lines = []
    for suffix, proto, call in (
            ("_c2f", "MPI_Fint %%s(%s %s)" % (ctype, name), "PMPI_%s_toint(%s)"),
            ("_f2c", "%s %%s(MPI_Fint %s)" % (ctype, name), "PMPI_%s_fromint(%s)")):
        full = stem + suffix
        lines += ["OL_EXPORT " + proto % ("P" + full), "{",
                  "    return " + call % (stem[len("MPI_"):], name) + ";", "}",
                  'OL_EXPORT extern __typeof__(P%s) %s __attribute__((weak, alias("P%s")));'
                  % (full, full, full), ""]
    return lines


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    table, out_c, out_h, sources = argv[0], argv[1], argv[2], argv[3:]
    functions = fntable.load(table)
    present = implemented_names(sources)
    by_name = {fn.name: fn for fn in functions}
    chosen = []
    for fn in functions:
        large = by_name.get(fn.name + "_c")
        if own_impl_name(fn) in present:
            IMPLEMENTATION[fn.name] = own_impl_name(fn)
        elif large and own_impl_name(large) in present and widens_to(fn, large):
            IMPLEMENTATION[fn.name] = own_impl_name(large)
    for fn in functions:  # the forms of collectives, once the blocking ones are known
        form = blocking_form(fn, by_name)
        if form and form[0].name in IMPLEMENTATION:
            IMPLEMENTATION[fn.name] = IMPLEMENTATION[form[0].name]
            ISSUE[fn.name] = (form[1], "request")
        elif fn.name in IMPLEMENTATION and is_collective(fn) and first_of(fn, "COMM"):
            ISSUE[fn.name] = ("OL_API_BLOCKING", None)
    for fn in functions:
        if fn.name not in IMPLEMENTATION:
            continue
        STATE_INDEX[fn.name] = len(chosen)
        chosen.append(fn)
    banner = "/* Generated by gen_bindings.py from functions.def: do not edit. */\n"
    header = [banner, "#ifndef OL_GEN_IMPL_H", "#define OL_GEN_IMPL_H",
              '#include "ol_api.h"', ""]
    header += ["%s;" % impl_prototype(fn) for fn in chosen if impl_name(fn) == own_impl_name(fn)]
    header += ["", "#endif", ""]
    body = [banner, '#include "gen_impl.h"', '#include "ol_api_checks.h"', '#include "ol_state.h"',
            ""]
    body += state_names(chosen)
    for fn in chosen:
        body += binding(fn) + [""]
    for fn in chosen:
        body += fortran_conversions(fn, by_name)
    write(out_h, "\n".join(header))
    write(out_c, "\n".join(body))


if __name__ == "__main__":
    main(sys.argv[1:])
