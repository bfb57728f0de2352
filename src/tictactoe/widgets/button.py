"""Textual's button, styled by only the rules of the looks the game shows."""

from __future__ import annotations

from textual import widgets

__all__ = ["Button"]


class Button(widgets.Button, inherit_css=False):
    """The same button, drawn the same, for the default, primary and error variants.

    Textual's button brings some 60 style rules: flat and compact buttons and five
    variants, each with hover, active and disabled states. The game's buttons are none
    of those but three variants, and every rule is parsed when the first button
    appears, then matched against each button at each restyle: the mark dialog's three
    buttons cost more start-up time than the rest of it. These are Textual's own rules
    for the looks shown (copied from Textual 8.2.8, in their order); the CSS type is
    still `Button`, so `Button` selectors reach it.
    """

    DEFAULT_CSS = """
    Button:ansi.-style-default {
        border: tall $border-blurred;
        background: ansi_default;

        &:hover {
            background: $ansi-background;
            border: tall $border;
        }
        &.-active {
            background: $ansi-background !important;
            border: blank $background !important;
            tint: transparent;
        }
        &.-primary {
            color: $primary;
            border: tall $primary;
            background: ansi_default;
            &:hover {
                background: $ansi-background;
            }
        }
        &.-error {
            color: $error;
            border: tall $error;
            background: ansi_default;
            &:hover {
                background: $ansi-background;
            }
        }
    }

    Button {
        width: auto;
        min-width: 16;
        height: auto;
        line-pad: 1;
        text-align: center;
        content-align: center middle;
        pointer: pointer;

        &.-style-default {
            text-style: bold;
            color: $button-foreground;
            background: $surface;
            border: none;
            border-top: tall $surface-lighten-1;
            border-bottom: tall $surface-darken-1;

            &:focus {
                text-style: $button-focus-text-style;
                background-tint: $foreground 5%;
            }
            &:hover {
                border-top: tall $surface;
                background: $surface-darken-1;
            }
            &.-active {
                background: $surface;
                border-bottom: tall $surface-lighten-1;
                border-top: tall $surface-darken-1;
                tint: $background 30%;
            }

            &.-primary {
                color: $button-color-foreground;
                background: $primary;
                border-top: tall $primary-lighten-3;
                border-bottom: tall $primary-darken-3;

                &:hover {
                    background: $primary-darken-2;
                    border-top: tall $primary;
                }
                &.-active {
                    background: $primary;
                    border-bottom: tall $primary-lighten-3;
                    border-top: tall $primary-darken-3;
                }
            }

            &.-error {
                color: $button-color-foreground;
                background: $error;
                border-top: tall $error-lighten-2;
                border-bottom: tall $error-darken-3;

                &:hover {
                    background: $error-darken-1;
                    border-top: tall $error;
                }
                &.-active {
                    background: $error;
                    border-bottom: tall $error-lighten-2;
                    border-top: tall $error-darken-2;
                }
            }
        }
    }
    """
