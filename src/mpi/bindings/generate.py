#!/usr/bin/env python3
"""The MPI layer's C bindings, generated from functions.spec (its head says how to read it).

  generate.py --spec functions.spec --header include/rmpl/mpi_functions.h [--check]
      writes the header of prototypes (MPI_X and PMPI_X) that mpi.h includes; with --check,
      fails if the header on disk is not what the spec gives (the header is in the source tree,
      so that mpi.h works from there and once installed, without a build).
  generate.py --spec functions.spec --format
      rewraps the spec's function lines at 100 columns (parameters kept whole).
  generate.py --spec functions.spec --bindings DIR --files FILE...
      writes DIR/FILE.inc for each FILE (the tail of src/mpi/FILE.cpp: PMPI_X and its weak alias
      MPI_X for every function of the spec's [FILE] sections) and DIR/provided.txt (every MPI_
      name the spec provides, for the symbol audit). A [FILE] the spec names that is not among
      the FILEs, or the reverse, is an error: every binding lands in one translation unit.
"""
import argparse
import re
import sys


class Function:
    def __init__(self, file, section, ret, name, params, attrs, comments):
        self.file, self.section, self.ret, self.name, self.params = file, section, ret, name, params
        self.attrs, self.comments = attrs, comments

    def is_large(self):
        return any("|" in p for p in self.params)


def split_params(text):
    """The parameters of a parameter list, split at its top-level commas."""
    out, depth, current = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(current.strip())
            current = ""
            continue
        depth += ch in "(["
        depth -= ch in ")]"
        current += ch
    if current.strip():
        out.append(current.strip())
    return [] if out == ["void"] else out


def param_name(param):
    """The name a parameter declares (None for '...')."""
    if param == "...":
        return None
    match = re.search(r"(\w+)\s*(\[[^\]]*\])*\s*$", param)
    if not match:
        sys.exit(f"functions.spec: no name in parameter '{param}'")
    return match.group(1)


def variant(param, large):
    """A parameter in the plain binding (large False) or the large-count one."""
    match = re.search(r"([\w ]+)\|(\w+)", param)
    if not match:
        return param
    plain, wide = match.group(1).split()[-1], match.group(2)
    prefix = match.group(1)[: -len(plain)]
    return param[: match.start()] + prefix + (wide if large else plain) + param[match.end():]


def parse(path):
    lines, functions, file, comments = [], [], None, []
    for raw in open(path, encoding="utf-8"):
        raw = raw.rstrip("\n")
        if raw.startswith("#") or not raw.strip():
            continue
        if raw[0].isspace() and lines:
            lines[-1] = (lines[-1][0], lines[-1][1] + " " + raw.strip())
        else:
            lines.append((len(lines), raw.strip()))
    for _, line in lines:
        section = re.match(r"\[(\w+)\]\s*(.*)", line)
        if section:
            file, title = section.group(1), section.group(2)
            continue
        if line.startswith(">"):
            comments.append(line[1:].strip())
            continue
        if file is None:
            sys.exit(f"functions.spec: '{line}' comes before any [file] section")
        match = re.match(r"(?:([\w ]+?\**)\s+)?(\w+)\((.*)\)\s*(.*)$", line)
        if not match:
            sys.exit(f"functions.spec: cannot read '{line}'")
        # The parameter list is the longest balanced (...) after the name.
        head, name, rest = match.group(1) or "int", match.group(2), line[match.start(3) - 1:]
        depth = 0
        for end, ch in enumerate(rest):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                break
        params, attr_text = split_params(rest[1:end]), rest[end + 1:].strip()
        attrs = {}
        while attr_text:
            attr = re.match(r"(\w+)(\(.*?\))?(\s+|$)", attr_text)
            if attr.group(1) in ("errors", "session", "collective", "impl"):
                # Balanced parentheses: the expression may call functions.
                depth, start = 0, attr_text.index("(")
                for stop, ch in enumerate(attr_text):
                    depth += ch == "("
                    depth -= ch == ")"
                    if ch == ")" and depth == 0:
                        break
                attrs[attr.group(1)] = attr_text[start + 1:stop]
                attr_text = attr_text[stop + 1:].strip()
                continue
            if attr.group(1) not in ("raw", "any_thread", "tool", "tool_setup"):
                sys.exit(f"functions.spec: {name}: unknown attribute '{attr.group(1)}'")
            attrs[attr.group(1)] = True
            attr_text = attr_text[attr.end():]
        functions.append(Function(file, title, head, name, params, attrs, comments))
        comments = []
    names = [f.name for f in functions]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        sys.exit(f"functions.spec: declared twice: {', '.join(sorted(duplicates))}")
    return functions


def bindings_of(function):
    """(MPI name suffix, parameters, template argument) of each binding of a function."""
    out = [(function.name, [variant(p, False) for p in function.params], "<int>")]
    if function.is_large():
        out.append((function.name + "_c", [variant(p, True) for p in function.params],
                    "<MPI_Count>"))
    else:
        out[0] = (function.name, function.params, "")
    return out


def header(functions):
    out = [
        "/* The MPI functions of rmpl, each as MPI_X and its profiling twin PMPI_X (mpi.h includes",
        " * this inside its extern \"C\").",
        " * Generated by src/mpi/bindings/generate.py from src/mpi/bindings/functions.spec: edit",
        " * those, not this. */",
        "#ifndef RMPL_MPI_FUNCTIONS_H",
        "#define RMPL_MPI_FUNCTIONS_H",
    ]
    current = None
    for function in functions:
        if (function.file, function.section) != current:
            current = (function.file, function.section)
            out += [""] + wrap_comment(f"{function.section} (src/mpi/{function.file}.cpp)")
        if function.comments:
            text = " ".join(function.comments)
            out += wrap_comment(text)
        for name, params, _ in bindings_of(function):
            plist = ", ".join(params) or "void"
            for prefix in ("MPI_", "PMPI_"):
                out += wrap_declaration(f"{function.ret} {prefix}{name}(", params)
    out += ["", "#endif /* RMPL_MPI_FUNCTIONS_H */", ""]
    return "\n".join(out)


def wrap_declaration(opening, params, width=100):
    """A prototype, its parameters wrapped under the first one when the line is too long."""
    line = opening + (", ".join(params) or "void") + ");"
    if len(line) <= width:
        return [line]
    lines, current = [], opening
    for i, param in enumerate(params):
        piece = param + (");" if i == len(params) - 1 else ",")
        if len(current) + len(piece) > width and current.strip() != opening.strip():
            lines.append(current.rstrip())
            current = " " * len(opening)
        current += piece + " "
    lines.append(current.rstrip())
    return lines


def wrap_comment(text, width=100):
    words, lines, current = text.split(), [], "/*"
    for word in words:
        if len(current) + 1 + len(word) > width - 3:
            lines.append(current)
            current = " *"
        current += " " + word
    lines.append(current + " */")
    return lines


def collective_body(function, params):
    """The body of a collective with `collective(HELPER[, LEADING...])`: HELPER, collectives.cpp's
    general path, takes the arguments (after LEADING ones) and a request: none for MPI_X, the
    caller's for MPI_IX, and MPI_X_init's request runs it at every MPI_Start (start_later)."""
    helper, *leading = [a.strip() for a in function.attrs["collective"].split(",")]
    names = [param_name(p) for p in params]
    if function.name.endswith("_init"):
        given = [n for n in names if n not in ("info", "request")]
        return (f"rmpl::mpi::start_later<rmpl::mpi::{helper}>(comm, info, request, "
                f"{', '.join(leading + given)})")
    if names and names[-1] == "request":
        given = ", ".join(leading + names)
        return (f"(rmpl::mpi::check_request(request), rmpl::mpi::{helper}({given}), "
                f"MPI_SUCCESS)")
    return f"(rmpl::mpi::{helper}({', '.join(leading + names + ['nullptr'])}), MPI_SUCCESS)"


def default_errors(function):
    for p in function.params:
        if re.match(r"MPI_Comm\s+\w+$", p):
            return param_name(p)
    return "nullptr"


def inc(functions, file):
    out = [
        f"// The MPI functions of src/mpi/{file}.cpp, each PMPI_X and its weak alias MPI_X, over",
        "// rmpl::mpi::impl::X. Generated by src/mpi/bindings/generate.py from functions.spec.",
        "",
    ]
    for function in functions:
        if function.file != file:
            continue
        for name, params, template in bindings_of(function):
            args = ", ".join(a for a in (param_name(p) for p in params) if a)
            forward = f"rmpl::mpi::impl::{function.name}{template}({args})"
            if "collective" in function.attrs:
                forward = collective_body(function, params)
            elif "impl" in function.attrs:
                # Another function of impl serves this one (a mode of a family, say); the count
                # type goes last among its template arguments.
                callee = function.attrs["impl"]
                if template and callee.endswith(">"):
                    callee = f"{callee[:-1]}, {template[1:]}"
                elif template:
                    callee += template
                forward = f"rmpl::mpi::impl::{callee}({args})"
            out.append(f'extern "C" {function.ret} PMPI_{name}({", ".join(params) or "void"}) {{')
            if "raw" in function.attrs:
                out.append(f"  return {forward};")
            elif "session" in function.attrs:
                # A session's function: its failures go to the session's error handler.
                out.append(f'  return rmpl::mpi::session_call({function.attrs["session"]}, '
                           f'"MPI_{name}", [&] {{ return {forward}; }});')
            elif "tool" in function.attrs or "tool_setup" in function.attrs:
                # The tool interface returns its codes and never calls an error handler.
                any_time = "true" if "tool_setup" in function.attrs else "false"
                out.append(f"  return rmpl::mpi::tool_call({any_time}, [&] {{ return {forward}; }});")
            else:
                caller = "call_any_thread" if "any_thread" in function.attrs else "call"
                errors = function.attrs.get("errors", default_errors(function))
                out.append(f'  return rmpl::mpi::{caller}({errors}, "MPI_{name}", [&] {{ '
                           f"return {forward}; }});")
            out.append("}")
            out.append(f'extern "C" decltype(PMPI_{name}) MPI_{name} '
                       f'__attribute__((weak, alias("PMPI_{name}")));')
    out.append("")
    return "\n".join(out)


def format_spec(path, width=100):
    """Rewraps each function of the spec at `width` columns, continuation lines indented by 4."""
    entries = []
    for raw in open(path, encoding="utf-8").read().split("\n"):
        if raw.startswith("    ") and entries and entries[-1][1]:
            entries[-1][0] += " " + raw.strip()
        else:
            is_function = bool(raw) and not raw.startswith(("#", "[", ">"))
            entries.append([raw, is_function])
    out = []
    for text, is_function in entries:
        if not is_function or len(text) <= width:
            out.append(text)
            continue
        current = ""
        for piece in re.split(r"(?<=,) ", text):
            if current and len(current) + 1 + len(piece) > width:
                out.append(current)
                current = "    " + piece
            else:
                current = f"{current} {piece}" if current else piece
        out.append(current)
    with open(path, "w", encoding="utf-8") as spec:
        spec.write("\n".join(out))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--spec", required=True)
    parser.add_argument("--header")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--format", action="store_true")
    parser.add_argument("--bindings")
    parser.add_argument("--files", nargs="*", default=[])
    options = parser.parse_args()
    if options.format:
        format_spec(options.spec)
        return
    functions = parse(options.spec)
    if options.header:
        text = header(functions)
        if options.check:
            try:
                current = open(options.header, encoding="utf-8").read()
            except OSError:
                current = None
            if current != text:
                sys.exit(f"{options.header} is not what {options.spec} gives: run\n"
                         f"  python3 src/mpi/bindings/generate.py --spec {options.spec} "
                         f"--header {options.header}")
        else:
            with open(options.header, "w", encoding="utf-8") as out:
                out.write(text)
    if options.bindings:
        named = {f.file for f in functions}
        if named - set(options.files):
            sys.exit(f"functions.spec: sections for files the build does not list: "
                     f"{', '.join(sorted(named - set(options.files)))}")
        for file in options.files:
            with open(f"{options.bindings}/{file}.inc", "w", encoding="utf-8") as out:
                out.write(inc(functions, file))
        with open(f"{options.bindings}/provided.txt", "w", encoding="utf-8") as out:
            for function in functions:
                for name, _, _ in bindings_of(function):
                    out.write(f"MPI_{name}\n")


if __name__ == "__main__":
    main()
