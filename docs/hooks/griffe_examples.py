"""Griffe extension: our docstrings, written for Sphinx-style reading, rendered as Markdown.

Two rewrites as a docstring is loaded (the source is unchanged):

* ``Example:`` -> ``Examples:``. The code heads its doctests ``Example:`` (CI runs them with
  ``--doctest-modules``); griffe's Google parser reads only ``Examples:`` as doctests and any
  other heading as an admonition of Markdown text, where ``>>> rows[1]["seed"]`` becomes a broken
  reference link.
* ``:class:`~pkg.mod.Name``` (and ``:func:``, ``:mod:``, ``:meth:``, ``:attr:``, ``:exc:``,
  ``:data:``, ``:obj:``) -> an optional cross-reference: a link where the target is documented,
  plain code where it is not (a name without dots is looked up in the docstring's module).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_HEADING = re.compile(r"^(\s*)Example:[ \t]*$", re.MULTILINE)
_ROLE = re.compile(r":(?:py:)?(?:class|func|mod|meth|attr|exc|data|obj|const):`(~?)([\w.]+)`")


class ExampleSections(griffe.Extension):
    """Rename ``Example:`` headings and turn Sphinx roles into optional cross-references."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:  # noqa: D102
        docstring = obj.docstring
        if docstring is None:
            return
        value = _HEADING.sub(r"\1Examples:", docstring.value)
        module = obj.module.path

        def ref(m: re.Match) -> str:
            short, target = m.group(1), m.group(2)
            title = target.rsplit(".", 1)[-1] if short else target
            identifier = target if "." in target else f"{module}.{target}"
            return f'<autoref identifier="{identifier}" optional><code>{title}</code></autoref>'

        docstring.value = _ROLE.sub(ref, value)
