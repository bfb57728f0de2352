"""The colours app.tcss adds to a theme's: the lines of the cells, the cards and the moves panel."""

from __future__ import annotations

__all__ = ["with_lines"]


def with_lines(variables: dict[str, str], *, dark: bool) -> dict[str, str]:
    """Textual's `variables` for a theme, with the two app.tcss adds: `$line` and
    `$line-hover`, the borders of the cells, the cards and the moves panel: the panel's
    colour two (three) shades lighter in a dark theme, darker in a light one, where
    lighter is near white. An app that uses app.tcss gives them from `get_css_variables`."""
    shade = "lighten" if dark else "darken"
    return variables | {
        "line": variables[f"panel-{shade}-2"],
        "line-hover": variables[f"panel-{shade}-3"],
    }
