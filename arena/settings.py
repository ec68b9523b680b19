"""The environment variables arena reads: the form each must have, and one check of them all.

Every `arena` command checks them before it does anything (`check_environment`): a malformed
value is one line naming the variable and the form it needs, never a value silently ignored.
The modules that use a variable read it through the parser here, so what the check accepts is
exactly what they do. An empty value counts as unset.

| variable | form |
|---|---|
| ``ARENA_DB`` | the path of a database file (not a folder) |
| ``ARENA_SANDBOX`` | ``bubblewrap`` or ``none`` |
| ``ARENA_GAMES`` | ``name=module:Class`` entries separated by commas |
| ``ARENA_BOT_CACHE`` | an absolute folder path |
| ``ARENA_NO_CGROUPS``, ``ARENA_DEBUG`` | ``1`` or ``0`` |
| ``ARENA_SECRET`` | any text (the machine key; see `arena.results.keys`) |

``XDG_CONFIG_HOME`` (where the machine key file lives) is not arena's own: as the XDG spec
says, a relative value is ignored (``~/.config`` is used).
"""

from __future__ import annotations

import os

SANDBOX_MODES = ("bubblewrap", "none")


class SettingError(ValueError):
    """A malformed setting; the message is one line naming it and the form it needs."""


def value(name: str) -> str | None:
    """The variable's value; None when it is unset or empty."""
    text = os.environ.get(name)
    return text if text else None


def flag(name: str) -> bool:
    """A switch: ``1`` on; ``0``, empty or unset off."""
    text = value(name)
    if text is None or text == "0":
        return False
    if text == "1":
        return True
    raise SettingError(f"{name} must be 1 or 0 (or unset), not {text!r}")


def sandbox_mode() -> str:
    """``ARENA_SANDBOX``: how bots are isolated (default bubblewrap)."""
    text = value("ARENA_SANDBOX")
    if text is None:
        return "bubblewrap"
    if text not in SANDBOX_MODES:
        raise SettingError(f"ARENA_SANDBOX must be bubblewrap or none, not {text!r}")
    return text


def extra_games() -> dict[str, str]:
    """``ARENA_GAMES``: game name -> "module:Class" (parsed by `arena.games`, which bots import
    in the sandbox without this module)."""
    from arena.games import parse_extra_games

    try:
        return parse_extra_games(value("ARENA_GAMES"))
    except ValueError as error:
        raise SettingError(str(error)) from None


def bot_cache() -> str | None:
    """``ARENA_BOT_CACHE``: the folder Dask workers keep bot copies in (None: the default)."""
    text = value("ARENA_BOT_CACHE")
    if text is not None and not os.path.isabs(text):
        raise SettingError(f"ARENA_BOT_CACHE must be an absolute folder path, not {text!r}")
    return text


def database() -> str | None:
    """``ARENA_DB``: the results database (the --db option's default)."""
    text = value("ARENA_DB")
    if text is not None and (text.endswith(os.sep) or os.path.isdir(text)):
        raise SettingError(f"ARENA_DB must be the path of a database file, not a folder ({text!r})")
    return text


def config_home() -> str:
    """``XDG_CONFIG_HOME`` if it is an absolute path (the XDG spec ignores a relative one), else ~/.config."""
    text = value("XDG_CONFIG_HOME")
    if text is not None and os.path.isabs(text):
        return text
    return os.path.join(os.path.expanduser("~"), ".config")


def check_environment() -> None:
    """Refuse the first malformed variable (`SettingError`); see the module docstring."""
    database()
    sandbox_mode()
    extra_games()
    bot_cache()
    flag("ARENA_NO_CGROUPS")
    flag("ARENA_DEBUG")
