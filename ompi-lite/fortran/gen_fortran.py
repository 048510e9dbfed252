#!/usr/bin/env python3
"""Writes the Fortran bindings (mpif.h, the `mpi` module, their C glue) from
the same tables as the C bindings (see README.md here).

Inputs: ompi-lite/api/functions.def (through fntable.py), ompi-lite/abi/
constants.tsv, and the generated C bindings gen_bindings.c, whose
`OL_EXPORT ... PMPI_X(` definitions are exactly the functions the C library
exports: a function is bound in Fortran when, and only when, it is bound in
C. Outputs:

  mpif.h            constants, sentinel COMMON blocks and the declarations of
                    the functions that return a value; fixed-form and
                    free-form source alike (columns 7-72, `!` comments)
  mpi_module.f90    module mpi: the same constants and an explicit interface
                    for every bound function
  fortran_glue.c    one C entry point per function, pmpi_x_ with mpi_x_ as a
                    weak alias (and the manglings of README.md), converting
                    the Fortran arguments and calling PMPI_X
  mpi_f08_types.f90 module mpi_f08_types: handle types, TYPE(MPI_Status), ==
  mpi_f08_module.f90 module mpi_f08: constants, sentinels, callback
                    interfaces, a generic interface per function
  fortran_f08_glue.c the entry points of the mpi_f08 functions with choice
                    buffers (TS 29113 descriptors)

A parameter's Fortran form and its conversion follow from its C declaration,
KIND and name (`Arg` below); the few functions whose Fortran argument list
differs from C's are written by hand in glue_special.c, glue_extra.c and glue_spawn.c
(HANDWRITTEN, with their other names), and
those without a Fortran binding yet are listed with their reason (NOT_BOUND).

usage: gen_fortran.py FUNCTIONS.DEF CONSTANTS.TSV GEN_BINDINGS.C OUTDIR
"""

import os
import re
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "api"))
import fntable  # noqa: E402

# Functions the mpi module and mpif.h do not offer, with the reason.
NOT_BOUND = {
    "MPI_Abi_get_version": "C only: the ABI's own queries",
    "MPI_Abi_get_info": "C only: the ABI's own queries",
    "MPI_Abi_get_fortran_info": "C only: the Fortran layer makes this call itself",
    "MPI_Abi_set_fortran_info": "C only: the Fortran layer makes this call itself",
    "MPI_Abi_get_fortran_booleans": "C only: the Fortran layer makes this call itself",
    "MPI_Abi_set_fortran_booleans": "C only: the Fortran layer makes this call itself",
}

# Functions whose C glue is written by hand (glue_special.c, glue_extra.c,
# glue_spawn.c), because their Fortran arguments differ from C's (arrays of
# strings too) or they take Fortran callbacks; the
# generator still writes their interface. name -> Fortran dummy arguments
# (without ierror) as (name, declaration) pairs.
HANDWRITTEN = {
    "MPI_Init": [],
    "MPI_Init_thread": [("required", "integer, intent(in)"), ("provided", "integer, intent(out)")],
    "MPI_Op_create": [("user_fn", "external"), ("commute", "logical, intent(in)"),
                      ("op", "integer, intent(out)")],
    "MPI_Op_free": [("op", "integer, intent(inout)")],
    "MPI_Comm_create_errhandler": [("comm_errhandler_fn", "external"),
                                   ("errhandler", "integer, intent(out)")],
    "MPI_Info_create_env": [("info", "integer, intent(out)")],
    "MPI_Session_get_nth_pset": [
        ("session", "integer, intent(in)"), ("info", "integer, intent(in)"),
        ("n", "integer, intent(in)"), ("pset_len", "integer, intent(inout)"),
        ("pset_name", "character(len=*), intent(out)")],
    "MPI_Win_create_errhandler": [("win_errhandler_fn", "external"),
                                  ("errhandler", "integer, intent(out)")],
    "MPI_File_create_errhandler": [("file_errhandler_fn", "external"),
                                   ("errhandler", "integer, intent(out)")],
    "MPI_Session_create_errhandler": [("session_errhandler_fn", "external"),
                                      ("errhandler", "integer, intent(out)")],
    "MPI_Comm_create_keyval": [
        ("comm_copy_attr_fn", "external"), ("comm_delete_attr_fn", "external"),
        ("comm_keyval", "integer, intent(out)"),
        ("extra_state", "integer(kind=MPI_ADDRESS_KIND), intent(in)")],
    "MPI_Type_create_keyval": [
        ("type_copy_attr_fn", "external"), ("type_delete_attr_fn", "external"),
        ("type_keyval", "integer, intent(out)"),
        ("extra_state", "integer(kind=MPI_ADDRESS_KIND), intent(in)")],
    "MPI_Win_create_keyval": [
        ("win_copy_attr_fn", "external"), ("win_delete_attr_fn", "external"),
        ("win_keyval", "integer, intent(out)"),
        ("extra_state", "integer(kind=MPI_ADDRESS_KIND), intent(in)")],
    "MPI_Keyval_create": [
        ("copy_fn", "external"), ("delete_fn", "external"),
        ("keyval", "integer, intent(out)"), ("extra_state", "integer, intent(in)")],
    "MPI_Grequest_start": [
        ("query_fn", "external"), ("free_fn", "external"), ("cancel_fn", "external"),
        ("extra_state", "integer(kind=MPI_ADDRESS_KIND), intent(in)"),
        ("request", "integer, intent(out)")],
    "MPI_Register_datarep": [
        ("datarep", "character(len=*), intent(in)"), ("read_conversion_fn", "external"),
        ("write_conversion_fn", "external"), ("dtype_file_extent_fn", "external"),
        ("extra_state", "integer(kind=MPI_ADDRESS_KIND), intent(in)")],
    "MPI_Info_get_string": [
        ("info", "integer, intent(in)"), ("key", "character(len=*), intent(in)"),
        ("buflen", "integer, intent(inout)"), ("value", "character(len=*), intent(out)"),
        ("flag", "logical, intent(out)")],
    # ARRAY_OF_ERRCODES has no intent: MPI_ERRCODES_IGNORE is passed there
    "MPI_Comm_spawn": [
        ("command", "character(len=*), intent(in)"),
        ("argv", "character(len=*), intent(in) :: argv(*)"),
        ("maxprocs", "integer, intent(in)"), ("info", "integer, intent(in)"),
        ("root", "integer, intent(in)"), ("comm", "integer, intent(in)"),
        ("intercomm", "integer, intent(out)"),
        ("array_of_errcodes", "integer :: array_of_errcodes(*)")],
    "MPI_Comm_spawn_multiple": [
        ("count", "integer, intent(in)"),
        ("array_of_commands", "character(len=*), intent(in) :: array_of_commands(*)"),
        ("array_of_argv", "character(len=*), intent(in) :: array_of_argv(count, *)"),
        ("array_of_maxprocs", "integer, intent(in) :: array_of_maxprocs(*)"),
        ("array_of_info", "integer, intent(in) :: array_of_info(*)"),
        ("root", "integer, intent(in)"), ("comm", "integer, intent(in)"),
        ("intercomm", "integer, intent(out)"),
        ("array_of_errcodes", "integer :: array_of_errcodes(*)")],
}

# Functions without ierror in Fortran (MPI-4.1 15.2.1: MPI_PCONTROL).
NO_IERROR = {"MPI_Pcontrol"}

# int parameters that are LOGICAL in Fortran, by name.
LOGICAL_NAMES = {"flag", "commute", "reorder", "periods", "remain_dims", "high", "weighted"}

# Indices into arrays of requests, which count from 1 in Fortran
# (Waitany, Testsome ... and Request_get_status_any/some).
INDEX_NAMES = {"indx", "array_of_indices"}

# `void *` parameters that are choice buffers although their KIND is ARG.
CHOICE_NAMES = {"location", "inbuf", "outbuf", "buffer", "base"}

# `void *` outputs that are addresses, INTEGER(KIND=MPI_ADDRESS_KIND) in
# Fortran (MPI_Win_allocate's memory: a program maps it with a Cray
# pointer or C_F_POINTER).
ADDRESS_OUT_NAMES = {"baseptr"}

# Output strings: parameter name -> the C expression of the buffer size.
STRING_OUT_SIZES = {
    "name": "MPI_MAX_PROCESSOR_NAME", "string": "MPI_MAX_ERROR_STRING",
    "version": "MPI_MAX_LIBRARY_VERSION_STRING", "comm_name": "MPI_MAX_OBJECT_NAME",
    "type_name": "MPI_MAX_OBJECT_NAME", "win_name": "MPI_MAX_OBJECT_NAME",
    "key": "MPI_MAX_INFO_KEY", "value": "(*valuelen > 0 ? (size_t)*valuelen : 0)",
    "datarep": "MPI_MAX_DATAREP_STRING", "port_name": "MPI_MAX_PORT_NAME",
}

# Input strings from which leading blanks go too (MPI-4.1 10: Fortran info
# keys and values lose leading and trailing blanks); others lose trailing.
STRIP_LEADING = {"key", "value"}

# LOGICAL arrays: parameter name -> C expression of their length.
LOGICAL_ARRAY_LENGTHS = {
    ("MPI_Cart_create", "periods"): "*ndims", ("MPI_Cart_map", "periods"): "*ndims",
    ("MPI_Cart_get", "periods"): "*maxdims",
    ("MPI_Cart_sub", "remain_dims"): "ol_f_cartdim(comm_c)",
}

# Arrays of handles: (function, parameter) -> C expression of their length.
# The w collectives' datatype arrays have one entry per process of the
# (remote) group or per neighbour; the communicator is the last argument,
# converted after them, hence PMPI_Comm_fromint here.
HANDLE_ARRAY_LENGTHS = {
    ("MPI_Type_create_struct", "array_of_types"): "*count",
    ("MPI_Type_get_contents", "array_of_datatypes"): "*max_datatypes",
}
for _w in ("MPI_Alltoallw", "MPI_Ialltoallw", "MPI_Alltoallw_init"):
    for _types in ("sendtypes", "recvtypes"):
        HANDLE_ARRAY_LENGTHS[(_w, _types)] = "ol_f_group_size(PMPI_Comm_fromint(*comm))"
for _w in ("MPI_Neighbor_alltoallw", "MPI_Ineighbor_alltoallw", "MPI_Neighbor_alltoallw_init"):
    HANDLE_ARRAY_LENGTHS[(_w, "sendtypes")] = "ol_f_degree(PMPI_Comm_fromint(*comm), 1)"
    HANDLE_ARRAY_LENGTHS[(_w, "recvtypes")] = "ol_f_degree(PMPI_Comm_fromint(*comm), 0)"

# MPI-1's attribute calls, whose values are INTEGERs.
MPI1_ATTR = {"MPI_Attr_get", "MPI_Attr_put"}

# The C handle types, and the stem of their toint/fromint functions.
HANDLE_STEMS = {
    "MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Group": "Group", "MPI_Op": "Op",
    "MPI_Info": "Info", "MPI_Errhandler": "Errhandler", "MPI_Request": "Request",
    "MPI_Message": "Message", "MPI_Win": "Win", "MPI_File": "File", "MPI_Session": "Session",
}

# Integer types other than int, and their Fortran kinds.
WIDE_INTEGERS = {"MPI_Aint": "MPI_ADDRESS_KIND", "MPI_Count": "MPI_COUNT_KIND",
                 "MPI_Offset": "MPI_OFFSET_KIND"}

# The predefined attributes of communicators, whose C value is the address
# of an int and whose Fortran value is that int (MPI-4.1 7.7.2).
PREDEFINED_ATTRIBUTES = ("MPI_TAG_UB", "MPI_IO", "MPI_HOST", "MPI_WTIME_IS_GLOBAL",
                         "MPI_APPNUM", "MPI_LASTUSEDCODE", "MPI_UNIVERSE_SIZE")


class Unsupported(Exception):
    """A parameter the rules do not know how to bind: the function must be
    in NOT_BOUND or HANDWRITTEN, or the rules must learn it."""


class Arg:
    """One C parameter's Fortran form and conversion.

    fdecl: the Fortran declaration, fimport: names the interface imports;
    cparam: the glue's parameter; pre/post: C statements around the call
    (post_always run whatever the result, post on success only); arg: the
    expression passed to PMPI_X; hidden: the hidden length of a string."""

    def __init__(self, p):
        self.name = p.name
        self.fdecl = None
        self.fimports = set()
        self.cparam = None
        self.pre, self.post, self.post_always = [], [], []
        self.arg = None
        self.hidden = None
        self.directive = None
        self.nocheck = None
        self.f08_cparam = None
        self.f08_post = None
        self.ctype, self.shape, self.const = base_type(p.decl, p.name)


def base_type(decl, name):
    """`const MPI_Datatype array_of_types[]` -> ("MPI_Datatype", "[]", const)."""
    text = re.sub(r"\b%s\b" % re.escape(name), "@", decl)
    const = text.startswith("const ")
    text = text[len("const "):] if const else text
    match = re.match(r"^(\w+)\s*(.*)$", text)
    return match.group(1), match.group(2).replace(" ", ""), const


def classify(fn, p):
    a = Arg(p)
    n = p.name
    ctype, shape, const = a.ctype, a.shape, a.const
    logical = n in LOGICAL_NAMES and ctype == "int"
    if p.kind == "BUFFER" or (ctype == "void" and shape == "*@" and n in CHOICE_NAMES):
        a.directive = "!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s" % n
        a.fdecl = "type(*), dimension(*) :: %s" % n
        a.cparam = "void *%s" % n
        a.arg = "ol_f_buffer(%s)" % n
    elif ctype == "int" and shape == "@":
        a.cparam = "const MPI_Fint *%s" % n
        if logical:
            a.fdecl = "logical, intent(in) :: %s" % n
            a.arg = "ol_f_logical_in(*%s)" % n
        else:
            a.fdecl = "integer, intent(in) :: %s" % n
            a.arg = "*%s" % n
    elif ctype in WIDE_INTEGERS and shape == "@":
        a.fdecl = "integer(kind=%s), intent(in) :: %s" % (WIDE_INTEGERS[ctype], n)
        a.fimports.add(WIDE_INTEGERS[ctype])
        a.cparam = "const %s *%s" % (ctype, n)
        a.arg = "*%s" % n
    elif ctype == "int" and shape == "*@":
        intent = "inout" if p.kind == "INOUT" else "out"
        a.cparam = "MPI_Fint *%s" % n
        if logical:
            a.fdecl = "logical, intent(%s) :: %s" % (intent, n)
            init = "ol_f_logical_in(*%s)" % n if intent == "inout" else "0"
            a.pre = ["int %s_c = %s;" % (n, init)]
            a.arg = "&%s_c" % n
            a.post = ["*%s = ol_f_logical_out(%s_c);" % (n, n)]
        else:
            a.fdecl = "integer, intent(%s) :: %s" % (intent, n)
            a.arg = n
            if n in INDEX_NAMES and indexes_requests(fn):
                a.post_always = ["if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)",
                                 "    ol_f_indices_out(%s, 1);" % n]
    elif ctype in WIDE_INTEGERS and shape == "*@":
        intent = "inout" if p.kind == "INOUT" else "out"
        a.fdecl = "integer(kind=%s), intent(%s) :: %s" % (WIDE_INTEGERS[ctype], intent, n)
        a.fimports.add(WIDE_INTEGERS[ctype])
        a.cparam = "%s *%s" % (ctype, n)
        a.arg = n
    elif ctype in HANDLE_STEMS and shape == "@":
        a.fdecl = "integer, intent(in) :: %s" % n
        a.cparam = "const MPI_Fint *%s" % n
        a.pre = ["%s %s_c = OL_F_FROMINT(%s, %s, *%s);" % (ctype, n, ctype, HANDLE_STEMS[ctype], n)]
        a.arg = "%s_c" % n
    elif ctype in HANDLE_STEMS and shape == "*@":
        stem = HANDLE_STEMS[ctype]
        a.cparam = "MPI_Fint *%s" % n
        if p.kind == "INOUT":
            a.fdecl = "integer, intent(inout) :: %s" % n
            a.pre = ["%s %s_c = OL_F_FROMINT(%s, %s, *%s);" % (ctype, n, ctype, stem, n)]
            a.post_always = ["*%s = PMPI_%s_toint(%s_c);" % (n, stem, n)]
        else:
            a.fdecl = "integer, intent(out) :: %s" % n
            a.pre = ["%s %s_c = MPI_%s_NULL;" % (ctype, n, null_name(ctype))]
            a.post = ["*%s = PMPI_%s_toint(%s_c);" % (n, stem, n)]
        a.arg = "&%s_c" % n
    elif ctype == "MPI_Request" and shape == "@[]":
        count = "*incount" if any(q.name == "incount" for q in fn.params) else "*count"
        a.fdecl = "integer, intent(%s) :: %s(*)" % ("in" if const else "inout", n)
        a.cparam = "MPI_Fint *%s" % n
        a.pre = ["MPI_Request %s_stack[OL_F_STACK_HANDLES];" % n,
                 "MPI_Request *%s_c = ol_f_requests_in(%s, %s, %s_stack);" % (n, n, count, n),
                 "if (!%s_c) { ol_f_set_ierror(ierror, MPI_ERR_NO_MEM); return; }" % n]
        a.arg = "%s_c" % n
        a.post_always = (["ol_f_requests_out(%s_c, %s, %s, %s_stack);" % (n, n, count, n)]
                         if not const else ["ol_f_release(%s_c, %s_stack);" % (n, n)])
    elif ctype == "MPI_Datatype" and shape == "@[]" and (twin_name(fn), n) in HANDLE_ARRAY_LENGTHS:
        length = HANDLE_ARRAY_LENGTHS[(twin_name(fn), n)]
        a.fdecl = "integer, intent(%s) :: %s(*)" % ("in" if const else "out", n)
        a.cparam = "MPI_Fint *%s" % n
        a.pre = ["MPI_Datatype %s_stack[OL_F_STACK_HANDLES];" % n,
                 "MPI_Datatype *%s_c = ol_f_types_in(%s, %s, %s_stack, %d);"
                 % (n, n, length, n, 1 if const else 0),
                 "if (!%s_c) { ol_f_set_ierror(ierror, MPI_ERR_NO_MEM); return; }" % n]
        a.arg = "%s_c" % n
        a.post_always = (["ol_f_release(%s_c, %s_stack);" % (n, n)] if const else
                         ["ol_f_types_out(%s_c, %s, %s, %s_stack, 1);" % (n, n, length, n)])
    elif ctype == "MPI_Status" and shape in ("*@", "@[]"):
        array = shape == "@[]"
        intent = "in" if const else ("inout" if p.kind == "INOUT" else "out")
        a.fdecl = "integer, intent(%s) :: %s(MPI_STATUS_SIZE%s)" % (intent, n, ", *" if array else "")
        a.fimports.add("MPI_STATUS_SIZE")
        a.cparam = "%sMPI_Fint *%s" % ("const " if const else "", n)
        a.arg = "%s(%s)" % ("ol_f_statuses" if array else "ol_f_status", n)
        if const:
            a.arg = "(const MPI_Status *)%s" % n
    elif ctype == "int" and shape == "@[]":
        a.cparam = "%sMPI_Fint *%s" % ("const " if const else "", n)
        if n in LOGICAL_NAMES:
            length = LOGICAL_ARRAY_LENGTHS[(twin_name(fn), n)]
            a.fdecl = "logical, intent(%s) :: %s(*)" % ("in" if const else "out", n)
            a.pre = ["int %s_stack[OL_F_STACK_HANDLES];" % n,
                     "int *%s_c = ol_f_logicals_in(%s, %s, %s_stack, %d);"
                     % (n, n, length, n, 1 if const else 0),
                     "if (!%s_c) { ol_f_set_ierror(ierror, MPI_ERR_NO_MEM); return; }" % n]
            a.arg = "%s_c" % n
            a.post_always = (["ol_f_release(%s_c, %s_stack);" % (n, n)] if const else
                             ["ol_f_logicals_out(%s_c, %s, %s, %s_stack, 1);" % (n, n, length, n)])
        else:
            a.fdecl = "integer, intent(%s) :: %s(*)" % ("in" if const else "out", n)
            a.arg = n
            if n in INDEX_NAMES and indexes_requests(fn) and not const:
                a.post_always = ["if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)",
                                 "    ol_f_indices_out(%s, *outcount);" % n]
            if n.endswith("weights"):
                a.arg = "ol_f_weights(%s)" % n
    elif ctype == "int" and shape == "@[][3]":
        a.fdecl = "integer, intent(in) :: %s(3, *)" % n
        a.cparam = "MPI_Fint (*%s)[3]" % n
        a.arg = n
    elif ctype in WIDE_INTEGERS and shape == "@[]":
        a.fdecl = "integer(kind=%s), intent(%s) :: %s(*)" % (WIDE_INTEGERS[ctype],
                                                             "in" if const else "out", n)
        a.fimports.add(WIDE_INTEGERS[ctype])
        a.cparam = "%s%s *%s" % ("const " if const else "", ctype, n)
        a.arg = n
    elif ctype == "char" and const and shape in ("*@", "@[]"):
        a.fdecl = "character(len=*), intent(in) :: %s" % n
        a.cparam = "const char *%s" % n
        a.hidden = "%s_len" % n
        a.pre = ["char *%s_c = ol_f_string_in(%s, %s_len, %d);"
                 % (n, n, n, 1 if n in STRIP_LEADING else 0),
                 "if (!%s_c) { ol_f_set_ierror(ierror, MPI_ERR_NO_MEM); return; }" % n]
        a.arg = "%s_c" % n
        a.post_always = ["free(%s_c);" % n]
    elif ctype == "char" and shape == "*@" and n in STRING_OUT_SIZES:
        a.fdecl = "character(len=*), intent(out) :: %s" % n
        a.cparam = "char *%s" % n
        a.hidden = "%s_len" % n
        a.pre = ["char *%s_c = calloc(%s + 1, 1);" % (n, STRING_OUT_SIZES[n]),
                 "if (!%s_c) { ol_f_set_ierror(ierror, MPI_ERR_NO_MEM); return; }" % n]
        a.arg = "%s_c" % n
        a.post = ["ol_f_string_out(%s, %s_len, %s_c);" % (n, n, n)]
        if any(q.name == "flag" for q in fn.params):
            # MPI_INFO_GET: a key not found leaves the variable as it was
            a.post = ["if (flag_c)"] + ["    " + line for line in a.post]
        a.post_always = ["free(%s_c);" % n]
    elif ctype == "void" and shape == "*@" and n in ADDRESS_OUT_NAMES:
        a.fimports.add("MPI_ADDRESS_KIND")
        a.fdecl = "integer(kind=MPI_ADDRESS_KIND), intent(out) :: %s" % n
        a.cparam = "MPI_Aint *%s" % n
        a.pre = ["void *%s_c = NULL;" % n]
        a.arg = "&%s_c" % n
        a.post = ["*%s = (MPI_Aint)(uintptr_t)%s_c;" % (n, n)]
    elif ctype == "void" and shape == "*@" and n == "attribute_val" and fn.name in MPI1_ATTR:
        # MPI-1's INTEGER attributes: stored sign-extended to an address,
        # read back truncated (MPI-4.1 19.3.7)
        if fn.name == "MPI_Attr_get":
            a.fdecl = "integer, intent(out) :: %s" % n
            a.cparam = "MPI_Fint *%s" % n
            a.pre = ["void *%s_c = NULL;" % n]
            a.arg = "&%s_c" % n
            a.post = ["*%s = (MPI_Fint)ol_f_attribute_value(*keyval, %s_c, OL_F_ON_COMM);"
                      % (n, n)]
        else:
            a.fdecl = "integer, intent(in) :: %s" % n
            a.cparam = "const MPI_Fint *%s" % n
            a.pre = attribute_cell(n, "(MPI_Aint)*%s" % n)
            a.arg = "%s_cell" % n
    elif ctype == "void" and shape == "*@" and n == "buffer_addr" and p.kind == "OUT":
        # the detached buffer: a choice argument in the mpi module, whose
        # address the program knows (it is not written into the buffer);
        # TYPE(C_PTR) in mpi_f08, which gets it (f08_glue_own)
        a.nocheck = "!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s" % n
        a.fdecl = "type(*), dimension(*) :: %s" % n
        a.cparam = "void *%s" % n
        a.pre = ["void *%s_c = NULL;" % n, "(void)%s;" % n]
        a.arg = "&%s_c" % n
        a.f08_cparam = "void **%s" % n
        a.f08_post = ["*%s = ol_f_address_out(%s_c);" % (n, n)]
    elif ctype == "void" and shape == "*@" and n == "attribute_val":
        a.fimports.add("MPI_ADDRESS_KIND")
        if fn.name.endswith("_get_attr"):
            a.fdecl = "integer(kind=MPI_ADDRESS_KIND), intent(out) :: %s" % n
            a.cparam = "MPI_Aint *%s" % n
            a.pre = ["void *%s_c = NULL;" % n]
            a.arg = "&%s_c" % n
            keyval = next(q.name for q in fn.params if q.name.endswith("keyval"))
            kind = ("OL_F_ON_COMM" if fn.name.startswith("MPI_Comm") else
                    "OL_F_ON_WIN" if fn.name.startswith("MPI_Win") else "OL_F_ON_TYPE")
            a.post = ["*%s = ol_f_attribute_value(*%s, %s_c, %s);" % (n, keyval, n, kind)]
        else:
            a.fdecl = "integer(kind=MPI_ADDRESS_KIND), intent(in) :: %s" % n
            a.cparam = "const MPI_Aint *%s" % n
            a.pre = attribute_cell(n, "*%s" % n)
            a.arg = "%s_cell" % n
    else:
        raise Unsupported("%s: parameter %r (%s)" % (fn.name, p.decl, p.kind))
    return a


def attribute_cell(n, value):
    """An attribute set from Fortran: C code reading it gets the address of
    the value (MPI-4.1 19.3.7), a cell of the glue's (ol_f_cell_new)."""
    return ["MPI_Aint *%s_cell = ol_f_cell_new(%s);" % (n, value),
            "if (!%s_cell) { ol_f_set_ierror(ierror, MPI_ERR_NO_MEM); return; }" % n]


def twin_name(fn):
    """A large-count function's name without _c: its tables are its twin's."""
    return fn.name[:-2] if fn.name.endswith("_c") else fn.name


def indexes_requests(fn):
    """Whether the function's indices point into an array of requests
    (rather than a graph's index array, say)."""
    return any(p.name == "array_of_requests" for p in fn.params)


def null_name(ctype):
    return {"MPI_Datatype": "DATATYPE"}.get(ctype, HANDLE_STEMS[ctype].upper())


def bound_names(gen_bindings_c):
    with open(gen_bindings_c, encoding="utf-8") as f:
        return set(re.findall(r"^OL_EXPORT \S+ P(MPI_\w+)\(", f.read(), re.M))


def large_functions(functions, bound, fortran):
    """The large-count (_c) functions mpi_f08 gets: bound in C, their twin
    bound in Fortran."""
    names = {fn.name for fn in fortran}
    return [fn for fn in functions
            if fn.name.endswith("_c") and fn.name in bound and fn.name[:-2] in names]


def fortran_functions(functions, bound):
    """The functions Fortran gets, in table order: bound in C, not a
    large-count form (the mpi module has none), not a C-only conversion,
    not the tool interface (MPI-4.1 15.3: MPI_T has C bindings only)."""
    out = []
    for fn in functions:
        if fn.name not in bound or fn.name in NOT_BOUND or fn.name.startswith("MPI_T_"):
            continue
        if fn.name.endswith(("_c", "_toint", "_fromint")):
            continue
        out.append(fn)
    return out


# ---- the C glue --------------------------------------------------------------

RETURN_TYPES = {"int": None, "double": "double", "MPI_Aint": "MPI_Aint"}


def glue_function(fn, f08=False):
    """The glue of MPI_X; with `f08`, that of mpi_f08's MPI_X_f08 where an
    argument differs there (f08_cparam, f08_post)."""
    args = [classify(fn, p) for p in fn.params]
    for a in args:
        if f08 and a.f08_cparam:
            a.cparam, a.post = a.f08_cparam, a.f08_post
    returns = RETURN_TYPES[fn.ret] if fn.ret in RETURN_TYPES else None
    if fn.ret not in RETURN_TYPES:
        raise Unsupported("%s returns %s" % (fn.name, fn.ret))
    has_ierror = returns is None and fn.name not in NO_IERROR
    cparams = [a.cparam for a in args]
    if has_ierror:
        cparams.append("MPI_Fint *ierror")
    cparams += ["size_t %s" % a.hidden for a in args if a.hidden]
    lower = fn.name.lower()
    suffix = "_f08_" if f08 else "_"
    lines = ["OL_F_EXPORT %s p%s%s(%s)" % (returns or "void", lower, suffix,
                                          ", ".join(cparams) or "void"), "{"]
    for a in args:
        lines += ["    " + s for s in a.pre]
    call = "PMPI_%s(%s)" % (fn.name[len("MPI_"):], ", ".join(a.arg for a in args))
    if returns:
        lines.append("    return %s;" % call)
    else:
        lines.append("    int rc = %s;" % call)
        success = [s for a in args for s in a.post]
        if success:
            lines.append("    if (rc == MPI_SUCCESS) {")
            lines += ["        " + s for s in success]
            lines.append("    }")
        lines += ["    " + s for a in args for s in a.post_always]
        if has_ierror:
            lines.append("    ol_f_set_ierror(ierror, rc);")
        else:
            lines.append("    (void)rc;")
    lines.append("}")
    if f08:
        lines.append("OL_F08_OWN_ALIASES(%s, p%s_f08_)" % (lower[len("mpi_"):], lower))
    else:
        lines.append("OL_F_ALIASES(%s, p%s_)" % (lower[len("mpi_"):], lower))
    return lines


def glue(functions):
    out = ["/* Generated by gen_fortran.py from functions.def: do not edit. */",
           '#include "ol_fortran.h"', "", "#include <stdlib.h>", ""]
    for fn in functions:
        if handwritten(fn):
            out += ["/* %s: glue_special.c, glue_extra.c or glue_spawn.c */" % fn.name, ""]
            continue
        out += glue_function(fn)
        if any(a.f08_cparam for a in (classify(fn, p) for p in fn.params)):
            out += glue_function(fn, f08=True)
        elif not has_choice(fn):
            lower = fn.name.lower()
            out.append("OL_F08_ALIASES(%s, p%s_)" % (lower[len("mpi_"):], lower))
        out.append("")
    return "\n".join(out)


# ---- constants -----------------------------------------------------------------

def load_constants(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines()[1:]:
            kind, name, c_type, value = line.split("\t")
            rows.append((kind, name, c_type, value))
    return rows


# Buffer and array sentinels: name -> (Fortran type, dimensions). Each is a
# COMMON block of its own, /MPI_FORTRAN_<NAME without MPI_>/, whose
# address the glue recognises.
SENTINELS = (
    ("MPI_BOTTOM", "integer", ""), ("MPI_IN_PLACE", "integer", ""),
    ("MPI_BUFFER_AUTOMATIC", "integer", ""),
    ("MPI_STATUS_IGNORE", "integer", "(MPI_STATUS_SIZE)"),
    ("MPI_STATUSES_IGNORE", "integer", "(MPI_STATUS_SIZE,1)"),
    ("MPI_ERRCODES_IGNORE", "integer", "(1)"), ("MPI_UNWEIGHTED", "integer", "(1)"),
    ("MPI_WEIGHTS_EMPTY", "integer", "(1)"),
    ("MPI_ARGV_NULL", "character*1", "(1)"), ("MPI_ARGVS_NULL", "character*1", "(1,1)"),
)

# Predefined callbacks: Fortran procedures the glue defines.
CALLBACK_CONSTANTS = ("MPI_NULL_COPY_FN", "MPI_DUP_FN", "MPI_NULL_DELETE_FN",
                      "MPI_COMM_NULL_COPY_FN", "MPI_COMM_DUP_FN", "MPI_COMM_NULL_DELETE_FN",
                      "MPI_TYPE_NULL_COPY_FN", "MPI_TYPE_DUP_FN", "MPI_TYPE_NULL_DELETE_FN",
                      "MPI_WIN_NULL_COPY_FN", "MPI_WIN_DUP_FN", "MPI_WIN_NULL_DELETE_FN",
                      "MPI_CONVERSION_FN_NULL")


def constant_statements(constants):
    """(type, name, value, C handle type or None) of every Fortran constant,
    in table order."""
    by_name = {name: value for kind, name, _, value in constants}
    out = [("integer", "MPI_ADDRESS_KIND", "8", None), ("integer", "MPI_OFFSET_KIND", "8", None),
           ("integer", "MPI_COUNT_KIND", "8", None), ("integer", "MPI_INTEGER_KIND", "4", None),
           ("integer", "MPI_STATUS_SIZE", by_name["MPI_F_STATUS_SIZE"], None),
           ("integer", "MPI_SOURCE", str(int(by_name["MPI_F_SOURCE"]) + 1), None),
           ("integer", "MPI_TAG", str(int(by_name["MPI_F_TAG"]) + 1), None),
           ("integer", "MPI_ERROR", str(int(by_name["MPI_F_ERROR"]) + 1), None)]
    sentinel_names = {s[0] for s in SENTINELS}
    handle_types = {n: t for _, n, t, _ in constants if t in HANDLE_STEMS}
    for kind, name, c_type, value in constants:
        if name.startswith(("MPI_T_", "MPI_F_", "MPI_ABI_")) or name in sentinel_names:
            continue
        if kind == "int-define" or kind == "int-enum":
            out.append(("integer", name, str(int(value, 0)), None))
        elif kind == "pointer-constant" and c_type in HANDLE_STEMS:
            out.append(("integer", name, str(int(value, 0)), c_type))
        elif kind == "pointer-constant" and c_type == "MPI_Offset":
            out.append(("integer(kind=MPI_OFFSET_KIND)", name, str(int(value, 0)), None))
        elif kind == "alias" and by_name.get(value) is not None and value in handle_types:
            out.append(("integer", name, str(int(by_name[value], 0)), handle_types[value]))
    return out


def fixed_lines(statements):
    """Statements as source lines valid in fixed and free form: columns 7 to
    72, no continuation."""
    out = []
    for s in statements:
        line = "      " + s
        if len(line) > 72:
            raise ValueError("mpif.h line longer than 72 columns: %r" % line)
        out.append(line)
    return out


# The mpi module and mpif.h take buffers as TYPE(*), DIMENSION(*), which
# gfortran fills with contiguous copies of sections: no subarrays, and
# nothing keeps a nonblocking buffer from being moved (README.md).
NO_SUBARRAYS = (("logical", "MPI_SUBARRAYS_SUPPORTED", ".FALSE."),
                ("logical", "MPI_ASYNC_PROTECTS_NONBLOCKING", ".FALSE."))


def declarations(constants, functions):
    """The declaration statements shared by mpif.h and the module."""
    stmts = []
    for ftype, name, value, _ in constant_statements(constants):
        stmts += ["%s %s" % (ftype, name), "parameter (%s=%s)" % (name, value)]
    for ftype, name, value in NO_SUBARRAYS:
        stmts += ["%s %s" % (ftype, name), "parameter (%s=%s)" % (name, value)]
    for name, ftype, dims in SENTINELS:
        stmts += ["%s %s%s" % (ftype, name, dims),
                  "common /%s/ %s" % (name.replace("MPI_", "MPI_FORTRAN_", 1), name)]
    return stmts


def value_function_declarations(functions):
    out = []
    for fn in functions:
        if fn.ret == "double":
            out += ["double precision %s" % fn.name.upper(), "external %s" % fn.name.upper()]
        elif fn.ret == "MPI_Aint":
            out += ["integer(kind=MPI_ADDRESS_KIND) %s" % fn.name.upper(),
                    "external %s" % fn.name.upper()]
    return out


def mpif_h(constants, functions):
    lines = ["! mpif.h of ompi-lite, generated by ompi-lite/fortran/gen_fortran.py from",
             "! the standard ABI's constants: do not edit. Valid as fixed-form and",
             "! free-form source. Handles are the INTEGERs MPI_X_c2f gives."]
    lines += fixed_lines(declarations(constants, functions))
    lines += fixed_lines(value_function_declarations(functions))
    lines += fixed_lines(["external %s" % name for name in CALLBACK_CONSTANTS])
    return "\n".join(lines) + "\n"


# ---- the mpi module ------------------------------------------------------------

def free_form(line, width=100):
    """A free-form statement wrapped after commas with `&` continuations, so
    that no line passes the standard's 132 columns."""
    if len(line) <= width:
        return [line]
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    out, current = [], ""
    for part in line.split(", "):
        candidate = part if not current else current + ", " + part
        if current and len(candidate) > width:
            out.append(current + ", &")
            current = indent + part
        else:
            current = candidate
    return out + [current]


def interface(fn, prefix=""):
    """The explicit interface of MPI_X, or with prefix "P" of PMPI_X (the
    profiling names, MPI-4.1 15.2: a tool's Fortran calls them)."""
    if fn.name in HANDWRITTEN:
        dummies = HANDWRITTEN[fn.name]
        directives = []
        imports = {"MPI_ADDRESS_KIND"} if any("ADDRESS_KIND" in d for _, d in dummies) else set()
    else:
        args = [classify(fn, p) for p in fn.params]
        dummies = [(a.name, a.fdecl) for a in args]
        directives = [a.directive or a.nocheck for a in args if a.directive or a.nocheck]
        imports = set().union(*[a.fimports for a in args]) if args else set()
    names = [d[0] for d in dummies]
    value = fn.ret in ("double", "MPI_Aint")
    if not value and fn.name not in NO_IERROR:
        names.append("ierror")
    head = "function" if value else "subroutine"
    upper = prefix + fn.name.upper()
    out = ["%s %s(%s)" % (head, upper, ", ".join(names))]
    if value and fn.ret == "MPI_Aint":
        imports.add("MPI_ADDRESS_KIND")
    if imports:
        out.append("  import :: %s" % ", ".join(sorted(imports)))
    out.append("  implicit none")
    out += ["  " + d for d in directives]
    for name, decl in dummies:
        out.append("  %s :: %s" % (decl, name) if "::" not in decl else "  " + decl)
    if not value and fn.name not in NO_IERROR:
        out.append("  integer, intent(out) :: ierror")
    if value:
        rtype = "double precision" if fn.ret == "double" else "integer(kind=MPI_ADDRESS_KIND)"
        out.append("  %s :: %s" % (rtype, upper))
    out.append("end %s %s" % (head, upper))
    return out


def module(constants, functions):
    lines = ["! The mpi module of ompi-lite, generated by ompi-lite/fortran/gen_fortran.py",
             "! from functions.def and the standard ABI's constants: do not edit.",
             "module mpi", "  implicit none", "  public"]
    lines += ["  " + s for s in declarations(constants, functions)]
    lines += ["  external :: %s" % name for name in CALLBACK_CONSTANTS]
    lines.append("  interface")
    for prefix in ("", "P"):
        for fn in functions:
            for statement in interface(fn, prefix):
                lines += free_form("    " + statement)
            lines.append("")
    lines.append("  end interface")
    lines += ["  " + l for l in sizeof_interface(False)]
    lines.append("end module mpi")
    return "\n".join(lines) + "\n"


# ---- the mpi_f08 module --------------------------------------------------------
#
# A function with a choice buffer is MPI_X_f08ts: a BIND(C) interface (the
# only way gfortran passes TYPE(*), DIMENSION(..) as a TS 29113 descriptor)
# to glue of its own, fortran_f08_glue.c. Every other function is MPI_X_f08,
# an ordinary interface whose arguments are passed exactly as the mpi
# module's (a handle is a BIND(C) type holding the INTEGER, TYPE(MPI_Status)
# is the INTEGER status, ierror may be absent: NULL), so it is another name
# of the same glue (OL_F08_ALIASES).

# Buffers of which only the address is used.
ADDRESS_ONLY = {("MPI_Get_address", "location"), ("MPI_Win_detach", "base"),
                ("MPI_Free_mem", "base")}
# Functions that keep their buffer after they return, besides those that
# make a request.
KEEPS_BUFFER = {"MPI_Buffer_attach", "MPI_Comm_attach_buffer", "MPI_Win_create", "MPI_Win_attach"}

# The predefined callbacks of mpi_f08 and their abstract interfaces.
F08_CALLBACKS = (("MPI_COMM_NULL_COPY_FN", "MPI_Comm_copy_attr_function"),
                 ("MPI_COMM_DUP_FN", "MPI_Comm_copy_attr_function"),
                 ("MPI_COMM_NULL_DELETE_FN", "MPI_Comm_delete_attr_function"),
                 ("MPI_TYPE_NULL_COPY_FN", "MPI_Type_copy_attr_function"),
                 ("MPI_TYPE_DUP_FN", "MPI_Type_copy_attr_function"),
                 ("MPI_TYPE_NULL_DELETE_FN", "MPI_Type_delete_attr_function"),
                 ("MPI_WIN_NULL_COPY_FN", "MPI_Win_copy_attr_function"),
                 ("MPI_WIN_DUP_FN", "MPI_Win_copy_attr_function"),
                 ("MPI_WIN_NULL_DELETE_FN", "MPI_Win_delete_attr_function"),
                 ("MPI_NULL_COPY_FN", "MPI_Copy_function"),
                 ("MPI_DUP_FN", "MPI_Copy_function"),
                 ("MPI_NULL_DELETE_FN", "MPI_Delete_function"),
                 ("MPI_CONVERSION_FN_NULL", "MPI_Datarep_conversion_function"),
                 ("MPI_CONVERSION_FN_NULL_C", "MPI_Datarep_conversion_function_c"))

# MPI-4.1 19.3.5's callback interfaces, as far as the bindings take Fortran
# procedures (HANDWRITTEN).
F08_ABSTRACT_INTERFACES = """\
abstract interface
  subroutine MPI_User_function(invec, inoutvec, len, datatype)
    import
    implicit none
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
  end subroutine MPI_User_function
  subroutine MPI_User_function_c(invec, inoutvec, len, datatype)
    import
    implicit none
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
  end subroutine MPI_User_function_c
  subroutine MPI_Comm_errhandler_function(comm, error_code)
    import
    implicit none
    type(MPI_Comm) :: comm
    integer :: error_code
  end subroutine MPI_Comm_errhandler_function
  subroutine MPI_Comm_copy_attr_function(oldcomm, comm_keyval, extra_state, &
      attribute_val_in, attribute_val_out, flag, ierror)
    import
    implicit none
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
  end subroutine MPI_Comm_copy_attr_function
  subroutine MPI_Comm_delete_attr_function(comm, comm_keyval, attribute_val, extra_state, ierror)
    import
    implicit none
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
  end subroutine MPI_Comm_delete_attr_function
  subroutine MPI_Type_copy_attr_function(oldtype, type_keyval, extra_state, &
      attribute_val_in, attribute_val_out, flag, ierror)
    import
    implicit none
    type(MPI_Datatype) :: oldtype
    integer :: type_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
  end subroutine MPI_Type_copy_attr_function
  subroutine MPI_Type_delete_attr_function(datatype, type_keyval, attribute_val, extra_state, &
      ierror)
    import
    implicit none
    type(MPI_Datatype) :: datatype
    integer :: type_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
  end subroutine MPI_Type_delete_attr_function
  subroutine MPI_Win_copy_attr_function(oldwin, win_keyval, extra_state, &
      attribute_val_in, attribute_val_out, flag, ierror)
    import
    implicit none
    type(MPI_Win) :: oldwin
    integer :: win_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
  end subroutine MPI_Win_copy_attr_function
  subroutine MPI_Win_delete_attr_function(win, win_keyval, attribute_val, extra_state, ierror)
    import
    implicit none
    type(MPI_Win) :: win
    integer :: win_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
  end subroutine MPI_Win_delete_attr_function
  subroutine MPI_Copy_function(oldcomm, keyval, extra_state, attribute_val_in, &
      attribute_val_out, flag, ierror)
    import
    implicit none
    type(MPI_Comm) :: oldcomm
    integer :: keyval, extra_state, attribute_val_in, attribute_val_out, ierror
    logical :: flag
  end subroutine MPI_Copy_function
  subroutine MPI_Delete_function(comm, keyval, attribute_val, extra_state, ierror)
    import
    implicit none
    type(MPI_Comm) :: comm
    integer :: keyval, attribute_val, extra_state, ierror
  end subroutine MPI_Delete_function
  subroutine MPI_Win_errhandler_function(win, error_code)
    import
    implicit none
    type(MPI_Win) :: win
    integer :: error_code
  end subroutine MPI_Win_errhandler_function
  subroutine MPI_File_errhandler_function(file, error_code)
    import
    implicit none
    type(MPI_File) :: file
    integer :: error_code
  end subroutine MPI_File_errhandler_function
  subroutine MPI_Session_errhandler_function(session, error_code)
    import
    implicit none
    type(MPI_Session) :: session
    integer :: error_code
  end subroutine MPI_Session_errhandler_function
  subroutine MPI_Grequest_query_function(extra_state, status, ierror)
    import
    implicit none
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
  end subroutine MPI_Grequest_query_function
  subroutine MPI_Grequest_free_function(extra_state, ierror)
    import
    implicit none
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
  end subroutine MPI_Grequest_free_function
  subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)
    import
    implicit none
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
  end subroutine MPI_Grequest_cancel_function
  subroutine MPI_Datarep_conversion_function(userbuf, datatype, count, filebuf, position, &
      extra_state, ierror)
    import
    implicit none
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
  end subroutine MPI_Datarep_conversion_function
  subroutine MPI_Datarep_conversion_function_c(userbuf, datatype, count, filebuf, position, &
      extra_state, ierror)
    import
    implicit none
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer :: ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
  end subroutine MPI_Datarep_conversion_function_c
  subroutine MPI_Datarep_extent_function(datatype, extent, extra_state, ierror)
    import
    implicit none
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
  end subroutine MPI_Datarep_extent_function
end interface
"""

# HANDWRITTEN's dummy arguments under mpi_f08.
HANDWRITTEN_F08 = {
    "MPI_Init": [],
    "MPI_Init_thread": HANDWRITTEN["MPI_Init_thread"],
    "MPI_Op_create": [("user_fn", "procedure(MPI_User_function)"),
                      ("commute", "logical, intent(in)"), ("op", "type(MPI_Op), intent(out)")],
    # mpi_f08 alone (the mpi module has no large-count forms); a generic of
    # its own, as a procedure's interface does not tell specifics apart.
    "MPI_Op_create_c": [("user_fn", "procedure(MPI_User_function_c)"),
                        ("commute", "logical, intent(in)"), ("op", "type(MPI_Op), intent(out)")],
    "MPI_Op_free": [("op", "type(MPI_Op), intent(inout)")],
    "MPI_Comm_create_errhandler": [
        ("comm_errhandler_fn", "procedure(MPI_Comm_errhandler_function)"),
        ("errhandler", "type(MPI_Errhandler), intent(out)")],
    "MPI_Comm_create_keyval": [
        ("comm_copy_attr_fn", "procedure(MPI_Comm_copy_attr_function)"),
        ("comm_delete_attr_fn", "procedure(MPI_Comm_delete_attr_function)"),
        ("comm_keyval", "integer, intent(out)"),
        ("extra_state", "integer(kind=MPI_ADDRESS_KIND), intent(in)")],
    "MPI_Info_get_string": [("info", "type(MPI_Info), intent(in)")] +
                           HANDWRITTEN["MPI_Info_get_string"][1:],
    "MPI_Info_create_env": [("info", "type(MPI_Info), intent(out)")],
    "MPI_Session_get_nth_pset": [
        ("session", "type(MPI_Session), intent(in)"), ("info", "type(MPI_Info), intent(in)")] +
        HANDWRITTEN["MPI_Session_get_nth_pset"][2:],
    "MPI_Win_create_errhandler": [
        ("win_errhandler_fn", "procedure(MPI_Win_errhandler_function)"),
        ("errhandler", "type(MPI_Errhandler), intent(out)")],
    "MPI_File_create_errhandler": [
        ("file_errhandler_fn", "procedure(MPI_File_errhandler_function)"),
        ("errhandler", "type(MPI_Errhandler), intent(out)")],
    "MPI_Session_create_errhandler": [
        ("session_errhandler_fn", "procedure(MPI_Session_errhandler_function)"),
        ("errhandler", "type(MPI_Errhandler), intent(out)")],
    "MPI_Type_create_keyval": [
        ("type_copy_attr_fn", "procedure(MPI_Type_copy_attr_function)"),
        ("type_delete_attr_fn", "procedure(MPI_Type_delete_attr_function)"),
        ("type_keyval", "integer, intent(out)"),
        ("extra_state", "integer(kind=MPI_ADDRESS_KIND), intent(in)")],
    "MPI_Win_create_keyval": [
        ("win_copy_attr_fn", "procedure(MPI_Win_copy_attr_function)"),
        ("win_delete_attr_fn", "procedure(MPI_Win_delete_attr_function)"),
        ("win_keyval", "integer, intent(out)"),
        ("extra_state", "integer(kind=MPI_ADDRESS_KIND), intent(in)")],
    # MPI-1's, which the standard leaves out of mpi_f08: offered for
    # programs moved over from mpif.h, whose procedures may have the MPI-1
    # INTEGER arguments or be MPI_COMM_NULL_COPY_FN and the like (the glue
    # tells the predefined ones apart), hence no interface to check.
    "MPI_Keyval_create": [
        ("copy_fn", "external"), ("delete_fn", "external"),
        ("keyval", "integer, intent(out)"), ("extra_state", "integer, intent(in)")],
    "MPI_Grequest_start": [
        ("query_fn", "procedure(MPI_Grequest_query_function)"),
        ("free_fn", "procedure(MPI_Grequest_free_function)"),
        ("cancel_fn", "procedure(MPI_Grequest_cancel_function)"),
        ("extra_state", "integer(kind=MPI_ADDRESS_KIND), intent(in)"),
        ("request", "type(MPI_Request), intent(out)")],
    "MPI_Register_datarep": [
        ("datarep", "character(len=*), intent(in)"),
        ("read_conversion_fn", "procedure(MPI_Datarep_conversion_function)"),
        ("write_conversion_fn", "procedure(MPI_Datarep_conversion_function)"),
        ("dtype_file_extent_fn", "procedure(MPI_Datarep_extent_function)"),
        ("extra_state", "integer(kind=MPI_ADDRESS_KIND), intent(in)")],
    "MPI_Register_datarep_c": [
        ("datarep", "character(len=*), intent(in)"),
        ("read_conversion_fn", "procedure(MPI_Datarep_conversion_function_c)"),
        ("write_conversion_fn", "procedure(MPI_Datarep_conversion_function_c)"),
        ("dtype_file_extent_fn", "procedure(MPI_Datarep_extent_function)"),
        ("extra_state", "integer(kind=MPI_ADDRESS_KIND), intent(in)")],
    "MPI_Comm_spawn": [
        HANDWRITTEN["MPI_Comm_spawn"][0], HANDWRITTEN["MPI_Comm_spawn"][1],
        ("maxprocs", "integer, intent(in)"), ("info", "type(MPI_Info), intent(in)"),
        ("root", "integer, intent(in)"), ("comm", "type(MPI_Comm), intent(in)"),
        ("intercomm", "type(MPI_Comm), intent(out)"),
        HANDWRITTEN["MPI_Comm_spawn"][-1]],
    "MPI_Comm_spawn_multiple": HANDWRITTEN["MPI_Comm_spawn_multiple"][:4] + [
        ("array_of_info", "type(MPI_Info), intent(in) :: array_of_info(*)"),
        ("root", "integer, intent(in)"), ("comm", "type(MPI_Comm), intent(in)"),
        ("intercomm", "type(MPI_Comm), intent(out)"),
        HANDWRITTEN["MPI_Comm_spawn_multiple"][-1]],
}

# MPI_SIZEOF's specific procedures (glue_extra.c): suffix -> the dummy's
# type. Assumed rank takes scalars and arrays of any rank alike.
SIZEOF_KINDS = (("integer1", "integer(kind=1)"), ("integer2", "integer(kind=2)"),
                ("integer4", "integer(kind=4)"), ("integer8", "integer(kind=8)"),
                ("real4", "real(kind=4)"), ("real8", "real(kind=8)"),
                ("complex4", "complex(kind=4)"), ("complex8", "complex(kind=8)"),
                ("logical1", "logical(kind=1)"), ("logical2", "logical(kind=2)"),
                ("logical4", "logical(kind=4)"), ("logical8", "logical(kind=8)"),
                ("character", "character(len=*)"))


def sizeof_interface(f08):
    """The generic MPI_SIZEOF (MPI-4.1 19.1.9): only the modules have it.
    The specifics have their own names in each module, so a program may
    use both; their glue is the same (an absent ierror is NULL)."""
    lines = ["interface MPI_Sizeof"]
    for suffix, ftype in SIZEOF_KINDS:
        name = "MPI_Sizeof_%s" % suffix
        ierror = "integer, optional, intent(out) :: ierror" if f08 else \
            "integer, intent(out) :: ierror"
        lines += ["  subroutine %s(x, size, ierror)" % (name + ("_f08" if f08 else "")),
                  "    implicit none",
                  "    %s, dimension(..), intent(in) :: x" % ftype,
                  "    integer, intent(out) :: size", "    " + ierror,
                  "  end subroutine"]
    lines.append("end interface MPI_Sizeof")
    return lines


def handwritten(fn):
    """Whether the function's glue is written by hand (both modules', or
    mpi_f08's alone for a large-count form)."""
    return fn.name in HANDWRITTEN or fn.name in HANDWRITTEN_F08


def has_choice(fn):
    return not handwritten(fn) and any(classify(fn, p).directive for p in fn.params)


def keeps_buffer(fn):
    """Whether the buffers are used after the call returns."""
    return twin_name(fn) in KEEPS_BUFFER or any(
        base_type(p.decl, p.name)[:2] == ("MPI_Request", "*@") and p.kind == "OUT"
        for p in fn.params)


def own_count_and_type(fn, index):
    """The indices of the COUNT and DATATYPE that a buffer's data is
    counted in, found after it past other buffers; None if there are none
    (the v forms: arrays of counts)."""
    params = fn.params
    j = index + 1
    while j < len(params) and params[j].kind == "BUFFER":
        j += 1
    if j + 1 < len(params) and params[j].kind == "COUNT" and params[j + 1].kind == "DATATYPE":
        return j, j + 1
    return None


# Addresses that mpi_f08 gives as TYPE(C_PTR) (the mpi module as
# INTEGER(KIND=MPI_ADDRESS_KIND)): passed by reference, a C_PTR is the
# address-sized variable the same glue writes.
F08_C_PTR = {("MPI_Alloc_mem", "baseptr")}


def f08_declaration(fn, a, keeps):
    """The mpi_f08 form of an argument: derived-type handles and status,
    assumed-rank choice buffers."""
    if a.directive:
        attributes = (", intent(in)" if a.const else "") + (", asynchronous" if keeps else "")
        return "type(*), dimension(..)%s :: %s" % (attributes, a.name)
    if a.f08_cparam or (fn.name, a.name) in F08_C_PTR:
        return "type(c_ptr), intent(out) :: %s" % a.name
    if a.ctype == "MPI_Status":
        intent = re.search(r"intent\(\w+\)", a.fdecl).group(0)
        return "type(MPI_Status), %s :: %s%s" % (intent, a.name, "(*)" if a.shape == "@[]" else "")
    if a.ctype in HANDLE_STEMS:
        return re.sub(r"^integer", "type(%s)" % a.ctype, a.fdecl)
    return a.fdecl


def descriptor_string(fn, a):
    """An input string of a BIND(C) interface: CHARACTER(LEN=*) comes as a
    descriptor, not with a hidden length."""
    if not a.const:
        raise Unsupported("%s: an output string beside a choice buffer" % fn.name)
    a.cparam = "CFI_cdesc_t *%s" % a.name
    a.pre = [line.replace("%s, %s_len" % (a.name, a.name),
                          "%s->base_addr, %s->elem_len" % (a.name, a.name)) for line in a.pre]
    a.hidden = None


def f08_glue_function(fn):
    """The glue of MPI_X_f08ts: descriptors in, the rest as the mpi glue."""
    args = [classify(fn, p) for p in fn.params]
    for a in args:
        if a.hidden:
            descriptor_string(fn, a)
    keeps = keeps_buffer(fn)
    comm = next(("%s_c" % a.name for a in args if a.ctype == "MPI_Comm" and a.shape == "@"),
                "MPI_COMM_SELF")
    choices = [i for i, a in enumerate(args) if a.directive]
    counted = {i: own_count_and_type(fn, i) for i in choices}
    shared = [c for c in counted.values() if c]
    lower = fn.name.lower()
    cparams = ["CFI_cdesc_t *%s" % a.name if a.directive else a.cparam for a in args]
    cparams.append("MPI_Fint *ierror")
    lines = ["OL_F_EXPORT void p%s_f08ts_(%s)" % (lower, ", ".join(cparams)), "{"]
    for a in args:
        lines += ["    " + s for s in a.pre]
    lines += ["    const char *why = NULL;", "    int buffers_rc = MPI_SUCCESS;"]
    release = []
    for i in choices:
        a = args[i]
        n = a.name
        if (fn.name, n) in ADDRESS_ONLY:
            a.arg = "ol_f_buffer(%s->base_addr)" % n
            continue
        lines.append("    ol_f08_buffer_t %s_b = OL_F08_BUFFER_INIT;" % n)
        a.arg = "%s_b.base" % n
        if not keeps:
            get = "ol_f08_buffer_copy(%s, &%s_b)" % (n, n)
            release.append(("ol_f08_buffer_copy_back(&%s_b, rc == MPI_SUCCESS);" % n
                            if not a.const else "ol_f08_buffer_copy_back(&%s_b, 0);" % n))
        elif counted[i] and shared.count(counted[i]) == 1:
            count, dtype = (args[j] for j in counted[i])
            get = "ol_f08_buffer_typed(%s, *%s, %s_c, &%s_b, &why)" % (n, count.name, dtype.name, n)
            count.arg = ("%s_b.count" if count.ctype == "MPI_Count" else "(int)%s_b.count") % n
            dtype.arg = "%s_b.type" % n
            release.append("ol_f08_buffer_release(&%s_b);" % n)
        else:
            get = "ol_f08_buffer_typed(%s, -1, MPI_DATATYPE_NULL, &%s_b, &why)" % (n, n)
            release.append("ol_f08_buffer_release(&%s_b);" % n)
        lines.append("    if (buffers_rc == MPI_SUCCESS)")
        lines.append("        buffers_rc = %s;" % get)
    lines.append("    int rc = buffers_rc;")
    lines.append("    if (rc == MPI_SUCCESS)")
    lines.append("        rc = PMPI_%s(%s);" % (fn.name[len("MPI_"):], ", ".join(a.arg for a in args)))
    success = [s for a in args for s in a.post]
    if success:
        lines.append("    if (rc == MPI_SUCCESS) {")
        lines += ["        " + s for s in success]
        lines.append("    }")
    lines += ["    " + s for s in release]
    lines += ["    " + s for a in args for s in a.post_always]
    lines += ["    if (buffers_rc == MPI_ERR_BUFFER)",
              '        ol_f08_refuse("%s", %s, why, ierror);' % (fn.name, comm),
              "    else",
              "        ol_f_set_ierror(ierror, rc);",
              "}",
              "OL_F08TS_ALIASES(%s, p%s_f08ts_)" % (lower[len("mpi_"):], lower), ""]
    return lines


def f08_glue(functions):
    out = ["/* Generated by gen_fortran.py from functions.def: do not edit. The mpi_f08",
           " * functions with choice buffers (MPI_X_f08ts); the others are names of the",
           " * mpi module's glue (fortran_glue.c, glue_special.c). */",
           '#include "ol_fortran.h"', "", "#include <stdlib.h>", ""]
    for fn in functions:
        if has_choice(fn):
            out += f08_glue_function(fn)
    return "\n".join(out)


def f08_types_module():
    """mpi_f08_types: the handle types, TYPE(MPI_Status) and the comparison
    of handles; linked into libmpi_abi_f for the operators' code."""
    internal = "MPI_STATUS_SIZE - 3"
    lines = ["! The types of the mpi_f08 module of ompi-lite, generated by",
             "! ompi-lite/fortran/gen_fortran.py: do not edit. A handle holds the INTEGER",
             "! the mpi module uses (MPI_VAL); TYPE(MPI_Status) is the C library's",
             "! MPI_F08_status, laid out as MPI_Status.",
             "module mpi_f08_types", "  implicit none", "  private"]
    names = sorted(HANDLE_STEMS)
    lines += free_form("  public :: %s, MPI_Status" % ", ".join(names))
    lines.append("  public :: operator(==), operator(/=)")
    lines.append("  integer, parameter :: MPI_STATUS_SIZE = %d" % STATUS_SIZE)
    for t in names:
        lines += ["  type, bind(C) :: %s" % t, "    integer :: MPI_VAL", "  end type %s" % t]
    lines += ["  type, bind(C) :: MPI_Status",
              "    integer :: MPI_SOURCE, MPI_TAG, MPI_ERROR",
              "    integer, private :: internal(%s)" % internal,
              "  end type MPI_Status"]
    for op, stem in (("==", "same"), ("/=", "different")):
        lines.append("  interface operator(%s)" % op)
        lines += ["    module procedure %s_%s" % (stem, t.lower()) for t in names]
        lines.append("  end interface")
    lines.append("contains")
    for op, stem in (("==", "same"), ("/=", "different")):
        for t in names:
            f = "%s_%s" % (stem, t.lower())
            lines += ["  elemental logical function %s(a, b)" % f,
                      "    type(%s), intent(in) :: a, b" % t,
                      "    %s = a%%MPI_VAL %s b%%MPI_VAL" % (f, op),
                      "  end function %s" % f]
    lines.append("end module mpi_f08_types")
    return "\n".join(lines) + "\n"


def f08_dummies(fn):
    """(name, declaration) of each mpi_f08 dummy argument but ierror."""
    if fn.name in HANDWRITTEN_F08:
        return HANDWRITTEN_F08[fn.name]
    keeps = keeps_buffer(fn)
    return [(a.name, f08_declaration(fn, a, keeps)) for a in (classify(fn, p) for p in fn.params)]


def f08_specific(fn, prefix=""):
    return prefix + fn.name + ("_f08ts" if has_choice(fn) else "_f08")


def type_kind_rank(name, decl):
    """What a generic tells specifics apart by (None: any type, as
    TYPE(*)). The kinds are those of gfortran on LP64: the address,
    offset and count kinds are all 8, so they do not tell apart."""
    if decl.startswith("type(*)") or decl == "external" or decl.startswith("procedure"):
        return None
    base = decl.split(",")[0].split("::")[0].strip()
    kind = 8 if re.search(r"MPI_(ADDRESS|OFFSET|COUNT)_KIND", base) else 4
    rank = 1 if name.endswith("(*)") or "(*)" in decl.split("::")[-1] else 0
    return (re.sub(r"\(kind=.*\)", "", base), kind, rank)


def distinguishable(fn, twin):
    """Whether one generic may hold both specifics: same number of
    arguments, and one position where both have a type and they differ
    (a stricter test than Fortran's, so never an ambiguous generic)."""
    a, b = f08_dummies(fn), f08_dummies(twin)
    if len(a) != len(b):
        return False
    for (na, da), (nb, db) in zip(a, b):
        ta, tb = type_kind_rank(na, da), type_kind_rank(nb, db)
        if ta and tb and ta != tb:
            return True
    return False


def f08_interface(fn, prefix=""):
    """The specific procedure of MPI_X, or with prefix "P" that of PMPI_X,
    whose glue is the pmpi_ name."""
    ts = has_choice(fn)
    dummies = f08_dummies(fn)
    names = [d[0] for d in dummies]
    value = fn.ret in ("double", "MPI_Aint")
    ierror = not value and fn.name not in NO_IERROR
    if ierror:
        names.append("ierror")
    specific = f08_specific(fn, prefix)
    head = "function" if value else "subroutine"
    bind = ' bind(C, name="%s_")' % specific.lower() if ts else ""
    result = " result(value)" if value else ""
    out = ["%s %s(%s)%s%s" % (head, specific, ", ".join(names), result, bind),
           "  import", "  implicit none"]
    for name, decl in dummies:
        out.append("  %s :: %s" % (decl, name) if "::" not in decl else "  " + decl)
    if ierror:
        out.append("  integer, optional, intent(out) :: ierror")
    if value:
        out.append("  %s :: value" % ("double precision" if fn.ret == "double"
                                        else "integer(kind=MPI_ADDRESS_KIND)"))
    out.append("end %s %s" % (head, specific))
    return out


F08_SENTINELS = tuple(
    (name, "type(MPI_Status)", dims.replace("MPI_STATUS_SIZE,", "").replace("(MPI_STATUS_SIZE)", ""),
     name.replace("MPI_", "MPI_F08_", 1)) if "STATUS" in name else
    (name, ftype, dims, name.replace("MPI_", "MPI_FORTRAN_", 1))
    for name, ftype, dims in SENTINELS)

# The standard's truth for this module (README.md): sections are taken in
# every call; gfortran 12 makes no promise that ASYNCHRONOUS keeps a
# nonblocking buffer from being moved or cached in registers.
F08_SUBARRAYS = (("logical", "MPI_SUBARRAYS_SUPPORTED", ".TRUE."),
                 ("logical", "MPI_ASYNC_PROTECTS_NONBLOCKING", ".FALSE."))


def f08_module(constants, functions, large=()):
    lines = ["! The mpi_f08 module of ompi-lite, generated by ompi-lite/fortran/gen_fortran.py",
             "! from functions.def and the standard ABI's constants: do not edit.",
             "module mpi_f08", "  use mpi_f08_types",
             "  use, intrinsic :: iso_c_binding, only: c_ptr", "  implicit none",
             "  private :: c_ptr"]
    for ftype, name, value, handle in constant_statements(constants):
        if name == "MPI_STATUS_SIZE":
            continue  # mpi_f08_types' own
        if handle:
            lines.append("  type(%s), parameter :: %s = %s(%s)" % (handle, name, handle, value))
        else:
            lines.append("  %s, parameter :: %s = %s" % (ftype, name, value))
    for ftype, name, value in F08_SUBARRAYS:
        lines.append("  %s, parameter :: %s = %s" % (ftype, name, value))
    for name, ftype, dims, common in F08_SENTINELS:
        lines += ["  %s :: %s%s" % (ftype, name, dims), "  common /%s/ %s" % (common, name)]
    lines += ["  " + l for l in F08_ABSTRACT_INTERFACES.splitlines()]
    lines += ["  procedure(%s) :: %s" % (iface, name) for name, iface in F08_CALLBACKS]
    # A large-count function is the generic MPI_X_c, and a specific of the
    # generic MPI_X too where the two can be told apart by their arguments
    # (MPI_Send's INTEGER count or INTEGER(KIND=MPI_COUNT_KIND) one); where
    # they differ only in address versus count kinds, equal here
    # (MPI_Type_get_extent), it is MPI_X_c alone.
    twins = {fn.name[:-2]: fn for fn in large}
    for prefix in ("", "P"):
        for fn in functions:
            twin = twins.get(fn.name)
            if twin:
                lines.append("  interface %s%s" % (prefix, twin.name))
                for statement in f08_interface(twin, prefix):
                    lines += free_form("    " + statement)
                lines += ["  end interface %s%s" % (prefix, twin.name), ""]
            lines.append("  interface %s%s" % (prefix, fn.name))
            for statement in f08_interface(fn, prefix):
                lines += free_form("    " + statement)
            if twin and distinguishable(fn, twin):
                lines.append("    procedure :: %s" % f08_specific(twin, prefix))
            lines += ["  end interface %s%s" % (prefix, fn.name), ""]
    lines += ["  " + l for l in sizeof_interface(True)]
    lines.append("end module mpi_f08")
    return "\n".join(lines) + "\n"


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    table, constants_tsv, gen_bindings_c, outdir = argv
    try:
        table_functions = fntable.load(table)
        bound = bound_names(gen_bindings_c)
        functions = fortran_functions(table_functions, bound)
        large = large_functions(table_functions, bound, functions)
        constants = load_constants(constants_tsv)
        global STATUS_SIZE
        STATUS_SIZE = int(next(v for _, n, _, v in constants if n == "MPI_F_STATUS_SIZE"))
        texts = {"mpif.h": mpif_h(constants, functions),
                 "mpi_module.f90": module(constants, functions),
                 "fortran_glue.c": glue(functions + large),
                 "mpi_f08_types.f90": f08_types_module(),
                 "mpi_f08_module.f90": f08_module(constants, functions, large),
                 "fortran_f08_glue.c": f08_glue(functions + large)}
    except (Unsupported, ValueError, fntable.TableError) as e:
        sys.exit("gen_fortran.py: %s" % e)
    for name, text in texts.items():
        write(os.path.join(outdir, name), text)


if __name__ == "__main__":
    main(sys.argv[1:])
