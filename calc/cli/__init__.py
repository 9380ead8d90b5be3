"""The ``kvcalc`` command line: parse, one library call, render. No formula lives here.

``main`` turns the library's typed errors and the parser's usage errors into one line on
stderr and an exit code (2 bad input, 1 failed check), never a traceback.
"""

from __future__ import annotations

import sys

COMMAND_LINE: list[str] = []  # the arguments of the command being run (a report names them)


def main(argv: list[str] | None = None) -> None:
    import typer

    from calc.cli.app import COMMANDS, build_app
    from calc.errors import KvcalcError
    from calc.output.safe_io import forget_inputs
    from calc.output.safe_text import printable

    forget_inputs()  # an output may not be a file this command reads
    _tolerant_streams()
    args = sys.argv[1:] if argv is None else list(argv)
    COMMAND_LINE[:] = args
    # Only the command being run is imported and inspected (start-up time); anything else
    # (no command, --help, a typo) gets every command so help and suggestions are complete.
    app = build_app([args[0]] if args and args[0] in COMMANDS else None)
    try:
        rv = app(args=args, prog_name="kvcalc", standalone_mode=False)
    except KvcalcError as exc:
        sys.stderr.write(f"kvcalc: error: {printable(str(exc))}\n")
        sys.exit(exc.exit_code)
    except typer.TyperException as exc:  # usage errors: bad option, missing value, bad type
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `kvcalc`: help, not an error
            sys.stdout.write(exc.format_message().rstrip() + "\n")
            sys.exit(0)
        ctx = getattr(exc, "ctx", None)
        where = f"kvcalc {ctx.info_name}" if ctx is not None and ctx.parent else "kvcalc"
        where = where.replace("kvcalc kvcalc", "kvcalc")
        message = printable(exc.format_message())
        sys.stderr.write(f"kvcalc: error: {message} (see: {where} --help)\n")
        sys.exit(getattr(exc, "exit_code", 2) or 2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        sys.stderr.write("kvcalc: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    sys.exit(rv if isinstance(rv, int) else 0)


def _tolerant_streams() -> None:
    """A stdout/stderr that cannot encode every character (LANG=C on old systems,
    PYTHONIOENCODING=ascii) replaces what it cannot show instead of crashing mid-table."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "")
        if encoding not in ("utf8", "utf8sig") and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")


__all__ = ["main"]
