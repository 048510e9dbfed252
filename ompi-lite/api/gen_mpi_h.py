#!/usr/bin/env python3
"""Writes ompi-lite/include/mpi.h, the MPI-5.0 standard-ABI header.

Inputs: ompi-lite/abi/constants.tsv (every named constant of the ABI) and
ompi-lite/api/functions.def (every prototype). The types, which the tables do
not describe, are written out below. mpi.h is committed so that users and
reviewers can read it; `--check` fails when it is stale.

    python3 ompi-lite/api/gen_mpi_h.py           # rewrite mpi.h
    python3 ompi-lite/api/gen_mpi_h.py --check   # exit 1 if mpi.h differs
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# The source tree may be read-only (make distcheck): leave no __pycache__.
sys.dont_write_bytecode = True
import fntable  # noqa: E402  (found next to this script)

TOP = os.path.dirname(os.path.dirname(HERE))
CONSTANTS = os.path.join(TOP, "ompi-lite", "abi", "constants.tsv")
FUNCTIONS = os.path.join(HERE, "functions.def")
HEADER = os.path.join(TOP, "ompi-lite", "include", "mpi.h")

# Prototypes wider than this are wrapped after a comma.
WIDTH = 100

# Opaque handles: `typedef struct MPI_ABI_X *MPI_X;` for each, so that
# distinct handle kinds are distinct pointer types and cannot be mixed up.
HANDLES = ("Comm", "Datatype", "Errhandler", "File", "Group", "Info",
           "Message", "Op", "Request", "Session", "Win")
T_HANDLES = ("T_enum", "T_cvar_handle", "T_pvar_handle", "T_pvar_session",
             "T_event_registration", "T_event_instance")

# The MPI_T enumerations that the ABI gives a type of their own; their
# enumerators come from constants.tsv, picked by name prefix.
T_ENUMS = (("MPI_T_cb_safety", "MPI_T_CB_REQUIRE_"),
           ("MPI_T_source_order", "MPI_T_SOURCE_"))

# Where the ABI allows a wider type (MPI_Offset may be 128 bits on some
# file systems) the MPI_ABI_ macros name the choice; constants.tsv makes
# MPI_ABI_Count an alias of MPI_ABI_Offset, as the ABI requires.
INTEGER_TYPES = """\
/* ---- Integer types (ABI: MPI_Aint is intptr_t, MPI_Offset int64_t and
 * MPI_Count the same type as MPI_Offset) */
#define MPI_ABI_Aint                   intptr_t
#define MPI_ABI_Offset                 int64_t
{aliases}
typedef MPI_ABI_Aint MPI_Aint;
typedef MPI_ABI_Offset MPI_Offset;
typedef MPI_ABI_Count MPI_Count;

/* The C type of a default Fortran INTEGER. No C function of the ABI takes
 * one (handles convert with MPI_X_toint/MPI_X_fromint); it is here for the
 * Fortran bindings and for programs that declare Fortran handles in C. */
typedef int MPI_Fint;

/* MPI_internal is the implementation's; programs use the first three. */
typedef struct MPI_Status {{
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int MPI_internal[5];
}} MPI_Status;
"""

CALLBACKS = """\
/* ---- Callback function types (the prototypes take pointers to them) */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len,
                               MPI_Datatype *datatype);
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len,
                                 MPI_Datatype *datatype);

typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval,
                                        void *extra_state, void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval,
                                          void *attribute_val, void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval,
                                        void *extra_state, void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval,
                                       void *extra_state, void *attribute_val_in,
                                       void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval,
                                         void *attribute_val, void *extra_state);
/* Deprecated since MPI-2.0, still in the ABI for MPI_Keyval_create. */
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state,
                              void *attribute_val_in, void *attribute_val_out,
                              int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void *attribute_val,
                                void *extra_state);

typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *error_code, ...);
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *error_code, ...);
typedef void MPI_File_errhandler_function(MPI_File *file, int *error_code, ...);
typedef void MPI_Session_errhandler_function(MPI_Session *session, int *error_code, ...);
/* Older names of the same types, kept so that old programs compile. */
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef MPI_Session_errhandler_function MPI_Session_errhandler_fn;
typedef MPI_Comm_errhandler_function MPI_Handler_function;

typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);

typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *extent,
                                        void *extra_state);
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype,
                                            int count, void *filebuf,
                                            MPI_Offset position, void *extra_state);
typedef int MPI_Datarep_conversion_function_c(void *userbuf, MPI_Datatype datatype,
                                              MPI_Count count, void *filebuf,
                                              MPI_Offset position, void *extra_state);

typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration,
                                          MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count,
                                             MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety,
                                             void *user_data);
"""


class Constant:
    """One row of constants.tsv."""

    KINDS = ("pointer-constant", "int-enum", "int-define", "alias")

    def __init__(self, kind, name, c_type, value):
        self.kind, self.name, self.c_type, self.value = kind, name, c_type, value


def load_constants(path):
    """Reads constants.tsv; rejects rows this script would not know how to write."""
    rows = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if not lines or lines[0].split("\t") != ["kind", "name", "c_type", "value"]:
        raise ValueError("%s: header is not 'kind name c_type value'" % path)
    for lineno, line in enumerate(lines[1:], 2):
        fields = line.split("\t")
        if len(fields) != 4 or fields[0] not in Constant.KINDS:
            raise ValueError("%s:%d: malformed row %r" % (path, lineno, line))
        rows.append(Constant(*fields))
    return rows


def define(name, value):
    return "#define %-30s %s" % (name, value)


def c_cast_type(c_type):
    """`MPI_Copy_function*` -> `MPI_Copy_function *`, the header's spelling."""
    base = c_type.rstrip("*")
    stars = c_type[len(base):]
    return base + (" " + stars if stars else "")


def int_literal(value):
    # Negative values are parenthesised so that `x-MPI_ANY_TAG` stays right.
    return "(%s)" % value if value.startswith("-") else value


def family(c):
    """Constants of one family are written together: pointer constants of
    one type, integer constants of one prefix (MPI_ERR_TAG -> MPI_ERR)."""
    if c.kind == "pointer-constant":
        return c.c_type
    return "_".join(c.name.split("_")[:2])


def integer_types(constants):
    """The integer-type section, with the alias rows that name types (their
    target is not itself a constant of the table)."""
    names = {c.name for c in constants}
    aliases = [define(c.name, c.value) for c in constants
               if c.kind == "alias" and c.value not in names]
    return INTEGER_TYPES.format(aliases="\n".join(aliases))


def handle_types():
    lines = ["/* ---- Handles: pointers to incomplete structs, so each kind is its own type */"]
    lines += ["typedef struct MPI_ABI_%s *MPI_%s;" % (h, h) for h in HANDLES]
    lines += ["typedef struct MPI_ABI_%s *MPI_%s;" % (h, h) for h in T_HANDLES]
    return "\n".join(lines) + "\n"


def t_enum_types(constants):
    """typedef enum blocks for the MPI_T enumerations with a type of their own."""
    out = ["/* ---- MPI_T enumerations that have a type */"]
    for type_name, prefix in T_ENUMS:
        members = [c for c in constants
                   if c.kind == "int-enum" and c.name.startswith(prefix)]
        body = ",\n".join("    %-34s = %s" % (c.name, c.value) for c in members)
        out.append("typedef enum %s {\n%s\n} %s;\n" % (type_name, body, type_name))
    return "\n".join(out)


def in_t_enum(name):
    return any(name.startswith(prefix) for _, prefix in T_ENUMS)


def int_defines(constants):
    lines = ["/* ---- Versions and string sizes (usable in #if) */"]
    lines += [define(c.name, c.value) for c in constants if c.kind == "int-define"]
    return "\n".join(lines) + "\n"


def constant_lines(constants):
    """Pointer constants, integer constants and value aliases, in table order,
    a blank line between families; an alias follows its target."""
    names = {c.name for c in constants}
    aliases = {}
    for c in constants:
        if c.kind == "alias" and c.value in names:
            aliases.setdefault(c.value, []).append(c)
    out, last = [], None
    for c in constants:
        if c.kind == "pointer-constant":
            text = define(c.name, "((%s)%s)" % (c_cast_type(c.c_type), c.value))
        elif c.kind == "int-enum" and not in_t_enum(c.name):
            text = define(c.name, int_literal(c.value))
        else:
            continue
        if last is not None and family(c) != last:
            out.append("")
        last = family(c)
        out.append(text)
        out += [define(a.name, a.value) for a in aliases.get(c.name, [])]
    return "/* ---- Constants */\n" + "\n".join(out) + "\n"


def wrap(text):
    """Wraps a prototype after commas, continuation lines under the '('."""
    if len(text) < WIDTH:
        return text
    indent = " " * (text.index("(") + 1)
    lines, line = [], ""
    for part in text.split(", "):
        candidate = part if not line else line + ", " + part
        if line and len(candidate) >= WIDTH:
            lines.append(line + ",")
            line = indent + part
        else:
            line = candidate
    lines.append(line)
    return "\n".join(lines)


def area_titles(path):
    """Line number -> area title, from the `# ==== area` comments of the
    table; a title may go on over several such lines."""
    titles, start = {}, None
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.startswith("# ==== "):
                start = None
                continue
            text = line[len("# ==== "):].strip()
            if start is None:
                start = lineno
                titles[start] = text
            else:
                titles[start] += "\n   " + text
    return titles


def prototypes(functions, titles, prefix=""):
    """All prototypes with `prefix` before the name, under the area titles
    of the table when there are any."""
    out = []
    pending = sorted(titles.items())
    for fn in functions:
        while pending and pending[0][0] < fn.lineno:
            out.append("\n/* %s */" % pending.pop(0)[1])
        out.append(wrap(fn.prototype(prefix + fn.name)) + ";")
    return "\n".join(out) + "\n"


# The Fortran support of MPI-5.0 sections 19.3.4-19.3.5 (handle and status
# conversion between C and Fortran). These functions are not part of the
# standard ABI (their MPI_Fint depends on the Fortran compiler, which the ABI
# leaves open), but C programs call them through mpi.h, where the standard
# declares them; the C library provides them whether or not a Fortran
# layer is built. MPI_Fint is int, the default INTEGER of gfortran, so a
# handle's MPI_X_c2f is its MPI_X_toint and MPI_X_f2c its MPI_X_fromint.
FORTRAN_SUPPORT_HEAD = """\
/* ==== Fortran support (MPI-5.0 19.3.4, 19.3.5): outside the standard ABI ====
 * A Fortran status is MPI_F_STATUS_SIZE INTEGERs laid out as MPI_Status, and
 * TYPE(MPI_Status) of the mpi_f08 module is the struct MPI_F08_status. The
 * sentinels MPI_F_STATUS(ES)_IGNORE and MPI_F08_STATUS(ES)_IGNORE are the
 * addresses a Fortran program passes for MPI_STATUS(ES)_IGNORE. */
typedef struct MPI_F08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint internal[MPI_F_STATUS_SIZE - 3];
} MPI_F08_status;

extern MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
extern MPI_F08_status mpi_f08_status_ignore_;
extern MPI_F08_status mpi_f08_statuses_ignore_;
#define MPI_F_STATUS_IGNORE            (&mpi_fortran_status_ignore_[0])
#define MPI_F_STATUSES_IGNORE          (&mpi_fortran_statuses_ignore_[0])
#define MPI_F08_STATUS_IGNORE          (&mpi_f08_status_ignore_)
#define MPI_F08_STATUSES_IGNORE        (&mpi_f08_statuses_ignore_)
"""

STATUS_CONVERSIONS = (
    "int {p}MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);",
    "int {p}MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);",
    "int {p}MPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status);",
    "int {p}MPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status);",
    "int {p}MPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status);",
    "int {p}MPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status);",
)


def fortran_handle_pairs(functions):
    """(X, C handle type, parameter name) for every MPI_X_toint of the table:
    MPI_Comm_toint gives ("Comm", "MPI_Comm", "comm"), MPI_Type_toint
    ("Type", "MPI_Datatype", "datatype")."""
    pairs = []
    for fn in functions:
        if fn.name.endswith("_toint") and len(fn.params) == 1:
            param = fn.params[0]
            pairs.append((fn.name[len("MPI_"):-len("_toint")], param.decl.split()[0], param.name))
    return pairs


def fortran_support(functions):
    out = [FORTRAN_SUPPORT_HEAD]
    for prefix in ("", "P"):
        for x, ctype, name in fortran_handle_pairs(functions):
            out.append("MPI_Fint %sMPI_%s_c2f(%s %s);" % (prefix, x, ctype, name))
            out.append("%s %sMPI_%s_f2c(MPI_Fint %s);" % (ctype, prefix, x, name))
        out += [s.format(p=prefix) for s in STATUS_CONVERSIONS]
        out.append("")
    return "\n".join(out)


def render(constants, functions, titles):
    parts = [
        "/* mpi.h: the MPI-5.0 standard ABI (ABI version 1.0) of ompi-lite.\n"
        " *\n"
        " * Generated by ompi-lite/api/gen_mpi_h.py from ompi-lite/abi/constants.tsv\n"
        " * and ompi-lite/api/functions.def. Do not edit: change those and run\n"
        " * `python3 ompi-lite/api/gen_mpi_h.py`. */\n"
        "#ifndef OMPI_LITE_MPI_H\n"
        "#define OMPI_LITE_MPI_H\n"
        "\n"
        "#include <stddef.h>\n"
        "#include <stdint.h>\n"
        "\n"
        "#if defined(__cplusplus)\n"
        "extern \"C\" {\n"
        "#endif\n",
        int_defines(constants),
        integer_types(constants),
        handle_types(),
        t_enum_types(constants),
        CALLBACKS,
        constant_lines(constants),
        "/* ==== MPI functions ==== */\n" + prototypes(functions, titles, ""),
        "/* ==== PMPI functions: the same, for profiling tools ==== */\n"
        + prototypes(functions, {}, "P"),
        fortran_support(functions),
        "#if defined(__cplusplus)\n"
        "}\n"
        "#endif\n"
        "\n"
        "#endif /* OMPI_LITE_MPI_H */\n",
    ]
    return "\n".join(parts)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the header differs from what would be written")
    parser.add_argument("--output", default=HEADER, help="header path (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        text = render(load_constants(CONSTANTS), fntable.load(FUNCTIONS),
                      area_titles(FUNCTIONS))
    except (ValueError, OSError) as e:
        sys.stderr.write("gen_mpi_h.py: %s\n" % e)
        return 1
    if args.check:
        try:
            with open(args.output, encoding="utf-8") as f:
                current = f.read()
        except OSError as e:
            current = None
            sys.stderr.write("gen_mpi_h.py: %s\n" % e)
        if current != text:
            sys.stderr.write("gen_mpi_h.py: %s is stale; run python3 %s\n"
                             % (args.output, os.path.relpath(__file__, TOP)))
            return 1
        return 0
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
