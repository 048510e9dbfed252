"""Reader for functions.def, the one table of MPI C prototypes.

Each non-comment line of the table is one function:

    RET NAME(DECL KIND, DECL KIND, ...)

where DECL is the C declaration of a parameter and KIND (a final all-caps
word) says how the binding generator checks and translates it. `(void)`
means no parameters; a last parameter `...` makes the function variadic.
Both gen_mpi_h.py and the binding generator import this module, so the
interface (load, Function, Param, KINDS, TableError) is kept stable.
"""

import re

# Parameter kinds; the README next to this file says what each one means.
KINDS = frozenset((
    "BUFFER", "COUNT", "DATATYPE", "OP", "COMM", "GROUP", "INFO",
    "ERRHANDLER", "WIN", "FILE", "SESSION", "MESSAGE", "REQUEST",
    "DEST", "SOURCE", "ROOT", "TAG", "RECV_TAG", "STATUS",
    "OUT", "INOUT", "ARG",
))

_LINE = re.compile(r"^(?P<ret>[A-Za-z_][\w ]*?)\s*\b(?P<name>P?MPIX?_\w+)"
                   r"\s*\((?P<params>.*)\)$")
# The declarator name is the last identifier, before any array brackets.
_PARAM_NAME = re.compile(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*$")
_KIND_WORD = re.compile(r"^[A-Z][A-Z_]*$")


class TableError(ValueError):
    """A malformed line of functions.def; the message names file and line."""


class Param:
    """One parameter: `decl` is its C declaration without the KIND."""

    __slots__ = ("decl", "name", "kind")

    def __init__(self, decl, name, kind):
        self.decl = decl
        self.name = name
        self.kind = kind

    def __repr__(self):
        return "Param(%r, %r, %r)" % (self.decl, self.name, self.kind)


class Function:
    """One MPI function of the table."""

    __slots__ = ("name", "ret", "params", "varargs", "lineno")

    def __init__(self, name, ret, params, varargs, lineno=0):
        self.name = name
        self.ret = ret
        self.params = params
        self.varargs = varargs
        self.lineno = lineno

    def decls(self):
        """The parameter list as C text, `void` when there is none."""
        parts = [p.decl for p in self.params]
        if self.varargs:
            parts.append("...")
        return ", ".join(parts) if parts else "void"

    def prototype(self, name=None):
        """`RET NAME(decls)` without a semicolon; `name` replaces the
        function's own name, e.g. "P" + fn.name for the profiling entry."""
        return "%s %s(%s)" % (self.ret, name or self.name, self.decls())

    def __repr__(self):
        return "Function(%r)" % self.prototype()


def _split_params(text):
    """Splits on commas outside brackets (`int ranges[][3]` has none, but a
    future function-pointer declaration would)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def _parse_param(text, where):
    decl, _, kind = text.rpartition(" ")
    decl = decl.strip()
    if not decl or not _KIND_WORD.match(kind):
        raise TableError("%s: parameter %r does not end with a KIND" % (where, text))
    if kind not in KINDS:
        raise TableError("%s: unknown KIND %r in %r" % (where, kind, text))
    match = _PARAM_NAME.search(decl)
    if not match or match.start() == 0:
        raise TableError("%s: parameter %r has no type and name" % (where, text))
    return Param(decl, match.group(1), kind)


def parse_line(line, where="functions.def"):
    """Parses one table line (not a comment or blank) into a Function."""
    match = _LINE.match(line.strip())
    if not match:
        raise TableError("%s: not of the form 'RET NAME(PARAM KIND, ...)': %r"
                         % (where, line.strip()))
    name, ret = match.group("name"), match.group("ret").strip()
    texts = _split_params(match.group("params"))
    varargs = texts[-1] == "..."
    if varargs:
        texts.pop()
    if texts == ["void"] and not varargs:
        texts = []
    params = [_parse_param(t, where) for t in texts]
    seen = set()
    for p in params:
        if p.name in seen:
            raise TableError("%s: parameter name %r appears twice" % (where, p.name))
        seen.add(p.name)
    return Function(name, ret, params, varargs)


def load(path):
    """Reads the table at `path`; returns its functions in table order."""
    functions, lines_of = [], {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            where = "%s:%d" % (path, lineno)
            fn = parse_line(line, where)
            if fn.name in lines_of:
                raise TableError("%s: %s already defined at line %d"
                                 % (where, fn.name, lines_of[fn.name]))
            fn.lineno = lineno
            lines_of[fn.name] = lineno
            functions.append(fn)
    return functions
