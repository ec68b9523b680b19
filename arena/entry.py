"""The `arena` command's entry point: every mistake is one line, never a traceback.

Click's own usage messages span several lines (usage, a hint, the error); here each becomes
one ``Error:`` line naming the command's help, with exit code 2. A Ctrl-C at any moment, even
while Python is still importing the command line, ends with one line and exit code 130.
"""

from __future__ import annotations

import sys


def _say(text: str) -> None:
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except OSError:
        pass


def _interrupted(stopped: BaseException | None = None) -> None:
    from arena import early_signals

    line, code = early_signals.outcome(stopped)
    _say(line)
    raise SystemExit(code) from None


def main(argv: list[str] | None = None) -> None:
    """Run one command and exit. With ``argv`` None (the `arena` command, `python -m arena`)
    this process is the command; with a list (a test, a program embedding arena) the caller
    lives on, and gets its signal handlers back."""
    import signal

    from arena import early_signals

    previous = {signum: signal.getsignal(signum) for signum in early_signals.STOP_SIGNALS}
    early_signals.install()  # before the imports: a signal during them is never lost
    try:
        _main(argv)
    finally:
        if argv is not None:
            from arena import cli

            cli.EXITS_AFTER_COMMAND = False
            early_signals.uninstall(previous)


def _main(argv: list[str] | None) -> None:
    try:
        import click

        from arena import cli
        from arena.cli import main as command

        cli.EXITS_AFTER_COMMAND = argv is None

        try:
            code = command.main(args=argv, prog_name="arena", standalone_mode=False)
        except click.exceptions.UsageError as error:
            if type(error).__name__ == "NoArgsIsHelpError":  # plain `arena`: the help, not an error
                print(error.format_message())
                raise SystemExit(0) from None
            where = error.ctx.command_path if error.ctx is not None else "arena"
            _say(f"Error: {error.format_message()} (see: {where} --help)")
            raise SystemExit(error.exit_code) from None
        except click.ClickException as error:
            _say(f"Error: {error.format_message()}")
            raise SystemExit(error.exit_code) from None
        except click.exceptions.Abort:
            _interrupted()
        raise SystemExit(code if isinstance(code, int) else 0)
    except KeyboardInterrupt as stopped:
        _interrupted(stopped)
    except BrokenPipeError:
        # Whoever read our output stopped reading (`arena leaderboard ... | head`): say nothing.
        import os

        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        raise SystemExit(1) from None
