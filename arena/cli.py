"""The `arena` command line: parse, call the library, print. No logic lives here."""

from __future__ import annotations

import click

from arena import __version__
from arena.games import all_games


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Tournament harness for bot competitions in Five Towers, Agent Avenue and Fifth Avenue."""


@main.command("games")
def games_command() -> None:
    """List the games with their player counts and options."""
    for game in all_games():
        counts = ", ".join(map(str, game.player_counts))
        click.echo(f"{game.name:<14} {game.title} — {game.description}")
        click.echo(f"{'':<14} players: {counts}")
        for option in game.options:
            click.echo(f"{'':<14} option {option.describe()}")


if __name__ == "__main__":  # pragma: no cover
    main()
