"""The ``kvcalc`` command line: parse, one library call, render. No formula lives here.

``main`` turns the library's typed errors, the parser's usage errors, a failed write of the
output (a full disk, a closed stdout, a broken pipe), running out of memory and any
unexpected exception into one line on stderr and an exit code (2 bad input, an output that
cannot be written or an internal error; 1 failed check; 130 interrupted), never a traceback
(docs/hardening.md).
"""

from __future__ import annotations

import sys

COMMAND_LINE: list[str] = []  # the arguments of the command being run (a report names them)


def main(argv: list[str] | None = None) -> None:
    from calc.cli.resources import guard_memory
    from calc.output.std_streams import hold_closed_descriptors, whole_stdout

    hold_closed_descriptors()  # before any file is opened: none may land on 0, 1 or 2
    whole_stdout()  # a short write to stdout is an error, never half a table and exit 0
    guard_memory()  # under ulimit -v: numpy refused in one line rather than OpenBLAS's exit
    hook = sys.excepthook
    sys.excepthook = _quiet_hook(hook)
    try:
        code = _run(sys.argv[1:] if argv is None else list(argv))
    finally:
        sys.excepthook = hook
    sys.exit(code)


def _quiet_hook(hook):
    """``sys.excepthook`` that drops CPython's report of a bytearray freed while still viewed:
    printed (not raised) when memory runs out inside ``bytearray.translate``; the MemoryError
    that follows is the error the user sees, in one line."""

    def quiet(kind, value, tb) -> None:
        if kind is SystemError and "deallocated bytearray" in str(value):
            return
        hook(kind, value, tb)

    return quiet


# long: one except clause per kind of failure, each turned into one line and an exit code
def _run(args: list[str]) -> int:
    """Run one command; the exit code, every failure reported in one line on stderr."""
    import typer

    from calc.cli.app import COMMANDS, build_app
    from calc.errors import KvcalcError
    from calc.output.safe_io import forget_inputs
    from calc.output.safe_text import elide, printable
    from calc.output.std_streams import discard_stdout, output_error_message, write_error_line

    forget_inputs()  # an output may not be a file this command reads
    _tolerant_streams()
    COMMAND_LINE[:] = args
    try:
        # Only the command being run is imported and inspected (start-up time); anything
        # else (no command, --help, a typo) gets every command so help and suggestions are
        # complete.
        app = build_app([args[0]] if args and args[0] in COMMANDS else None)
        try:
            rv = app(args=args, prog_name="kvcalc", standalone_mode=False)
        except typer.TyperException as exc:
            if type(exc).__name__ != "NoArgsIsHelpError":
                raise
            sys.stdout.write(exc.format_message().rstrip() + "\n")  # bare `kvcalc`: help
            rv = 0
        sys.stdout.flush()  # here, where a failed write is still reported
    except KvcalcError as exc:
        for note in getattr(exc, "warnings", ()):  # said on the way, before the failure
            write_error_line(f"kvcalc: warning: {printable(str(note))}\n")
        write_error_line(f"kvcalc: error: {elide(printable(str(exc)))}\n")
        return exc.exit_code
    except typer.TyperException as exc:  # usage errors: bad option, missing value, bad type
        where = _help_pointer(exc, args, COMMANDS)
        message = elide(printable(exc.format_message()))
        write_error_line(f"kvcalc: error: {message} (see: {where} --help)\n")
        return getattr(exc, "exit_code", 2) or 2
    except typer.Exit as exc:
        if exc.exit_code == 130:  # typer's answer to KeyboardInterrupt (Ctrl-C, SIGINT)
            write_error_line("kvcalc: interrupted\n")
            return 130
        try:
            sys.stdout.flush()  # --help, --version
        except OSError as err:
            discard_stdout()
            write_error_line(f"kvcalc: error: {printable(output_error_message(err))}\n")
            return 2
        return exc.exit_code
    except SystemExit as exc:
        if not _pacified():
            raise
        # typer's answer to EPIPE on stdout: streams wrapped to swallow errors, exit 1, no word
        discard_stdout()
        write_error_line(f"kvcalc: error: {output_error_message(BrokenPipeError(32, ''))}\n")
        return 2 if exc.code in (0, 1, None) else exc.code  # type: ignore[return-value]
    except (typer.Abort, KeyboardInterrupt):
        write_error_line("kvcalc: interrupted\n")
        return 130
    except OSError as exc:  # the output could not be written (stdout: full, closed, a pipe)
        discard_stdout()
        write_error_line(f"kvcalc: error: {printable(output_error_message(exc))}\n")
        return 2
    except MemoryError as exc:
        discard_stdout()
        why = f": {exc}" if str(exc) else " (is the address space limited? ulimit -v)"
        write_error_line(f"kvcalc: error: out of memory{why}\n")
        return 2
    except ImportError as exc:  # a damaged install, or a library that could not be mapped
        if "map" in str(exc) or "allocate" in str(exc):
            write_error_line("kvcalc: error: out of memory loading a library (ulimit -v)\n")
        else:
            write_error_line(f"kvcalc: error: cannot import {exc.name or 'a module'}: "
                             f"{printable(str(exc))}\n")  # fmt: skip
        return 2
    except Exception as exc:  # a bug: still one line (KVCALC_TRACEBACK=1 shows the traceback)
        import os

        if os.environ.get("KVCALC_TRACEBACK"):
            raise
        discard_stdout()
        write_error_line(
            f"kvcalc: error: internal error on this input ({type(exc).__name__}: "
            f"{elide(printable(str(exc)))}); please report it with the command line "
            "(KVCALC_TRACEBACK=1 shows where)\n"
        )
        return 2  # most likely an input nothing checked: the status of bad input
    return rv if isinstance(rv, int) else 0


def _help_pointer(exc, args: list[str], commands) -> str:
    """The command whose --help a usage error points to: the one the error's context names,
    else (the parser's own errors, such as an option missing its value, carry no context)
    the command the line runs, else kvcalc itself."""
    ctx = getattr(exc, "ctx", None)
    if ctx is not None:
        where = f"kvcalc {ctx.info_name}" if ctx.parent else "kvcalc"
        return where.replace("kvcalc kvcalc", "kvcalc")
    return f"kvcalc {args[0]}" if args and args[0] in commands else "kvcalc"


def _pacified() -> bool:
    """Whether typer met a broken pipe and wrapped stdout and stderr to hide later errors;
    if so, take its wrappers off again (the error line still has to be written)."""
    wrapped = False
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if type(stream).__name__ == "PacifyFlushWrapper":
            setattr(sys, name, stream.wrapped)
            wrapped = True
    return wrapped


def _tolerant_streams() -> None:
    """A stdout/stderr that cannot encode every character (LANG=C on old systems,
    PYTHONIOENCODING=ascii) replaces what it cannot show instead of crashing mid-table."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "")
        if encoding not in ("utf8", "utf8sig") and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")


__all__ = ["main"]
