"""Captions written once: the ``report/**/*.rst`` files, rendered for the HTML report as Snakemake renders them.

Snakemake's ``--report`` reads each ``report(..., caption=...)`` file, renders it as a Jinja2 template
(``trim_blocks``, ``lstrip_blocks``) with a ``snakemake`` object (``config``, ``wildcards``, ...) and turns
the RST into HTML with docutils. The HTML report of :mod:`westbench.report.html_report` renders the same
files the same way, so a caption is written once. A registered figure's caption file is the one its
registry entry names (:attr:`westbench.metrics.figure_list.Figure.caption_file`), declared by the rule of
its scope. Values known only once a job ran (e.g. the number of macrostates actually used) come in as
extra template variables; a caption shows them under
``{% if name is defined %}``, so Snakemake's report, which does not have them, leaves them out.

Only ``snakemake.config`` and ``snakemake.wildcards`` are available to a caption (undefined names fail
loudly here), and :func:`caption_config` gives the part of the config the captions read, so the
report job's parameters hold only what its captions use.

Examples
--------
>>> text = 'Bins: {{ snakemake.config["metrics"]["bins"] }}, engine {{ snakemake.wildcards.engine }}.'
>>> render_caption(text, {"metrics": {"bins": 50}}, {"engine": "implicit"})
'Bins: 50, engine implicit.'
>>> caption_config({"metrics": {"bins": 50, "bootstrap": 0}, "seed": 1}, [text])
{'metrics': {'bins': 50}}
>>> str(caption_html("A *short* caption."))
'<p>A <em>short</em> caption.</p>\\n'
"""

from __future__ import annotations

import copy
import re
from types import SimpleNamespace
from typing import Iterable, Mapping

import jinja2
from markupsafe import Markup

import westbench.metrics.figure_list as figure_list
from westbench.errors import WestbenchError

# The environment Snakemake renders captions with (snakemake/report/__init__.py), made strict: a caption
# that names a value the report does not give fails here instead of rendering as an empty string.
ENVIRONMENT = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
CONFIG_KEYS = re.compile(r"""snakemake\.config((?:\[\s*["'][^"']+["']\s*\])+)""")


def render_caption(
    template: str, config: Mapping, wildcards: Mapping | None = None, *, name: str = "caption", **extra
) -> str:
    """The RST of one caption: ``template`` rendered with ``snakemake.config``, ``snakemake.wildcards`` and ``extra``.

    ``name`` (the caption file) goes into the error raised for a template that does not render.
    """
    snakemake = SimpleNamespace(config=config, wildcards=SimpleNamespace(**dict(wildcards or {})))
    try:
        return ENVIRONMENT.from_string(template).render(snakemake=snakemake, **extra)
    except jinja2.TemplateError as exc:
        raise WestbenchError(
            f"caption {name} does not render: {exc}. Captions may use snakemake.config, "
            "snakemake.wildcards and the runtime values they test with 'is defined'."
        ) from None


def caption_html(rst: str) -> Markup:
    """Caption RST as an HTML fragment, as Snakemake's report shows it (docutils' ``body`` part); without
    docutils (it comes with Snakemake), the text as plain paragraphs."""
    try:
        from docutils.core import publish_parts
    except ImportError:
        paragraphs = [" ".join(block.split()) for block in re.split(r"\n\s*\n", rst) if block.strip()]
        return Markup("").join(Markup("<p>{}</p>\n").format(text) for text in paragraphs)
    parts = publish_parts(rst, writer="html", settings_overrides={"report_level": 5, "halt_level": 5})
    return Markup(parts["body"])


def caption_config(config: Mapping, templates: Iterable[str]) -> dict:
    """The part of ``config`` the ``templates`` read (each ``snakemake.config["a"]["b"]...`` they name).

    The report job takes this as a parameter: editing a key no caption reads reruns nothing.
    """
    subset: dict = {}
    for template in templates:
        for match in CONFIG_KEYS.finditer(template):
            keys = re.findall(r"""["']([^"']+)["']""", match.group(1))
            source, target = config, subset
            for key in keys[:-1]:
                source = source[key]
                target = target.setdefault(key, {})
            target[keys[-1]] = copy.deepcopy(source[keys[-1]])
    return subset


class Captions:
    """The caption templates of the figures a report shows, by name (the output file's stem), and the config.

    Examples
    --------
    >>> captions = Captions({"density": "Lag {{ snakemake.config['tica']['lag_frames'] }} frames."},
    ...                     {"tica": {"lag_frames": 5}})
    >>> str(captions.html("density", {"protein": "chignolin"}))
    '<p>Lag 5 frames.</p>\\n'
    """

    def __init__(self, templates: Mapping[str, str], config: Mapping):
        self.templates, self.config = dict(templates), config

    def rst(self, name: str, wildcards: Mapping | None = None, **extra) -> str:
        """The caption of figure or table ``name`` as RST, rendered with ``wildcards`` and runtime ``extra``."""
        if name not in self.templates:
            have = ", ".join(sorted(self.templates))
            if figure_list.is_registered(name):  # a registered figure: its rule declares it from the registry
                entry = figure_list.figure(name)
                rule = "metric_suite" if entry.scope == figure_list.ENGINE else "protein_figures"
                raise WestbenchError(
                    f"no caption template for figure '{name}' (have: {have}); it is registered "
                    f"(westbench.metrics.figure_list) with caption {entry.caption_file}, declared by "
                    f"rule {rule}: was the workflow parsed with this registry?"
                )
            raise WestbenchError(
                f"no caption template for figure '{name}' (have: {have}); "
                "declare its output with report(..., caption=...) in the rule that writes it."
            )
        return render_caption(self.templates[name], self.config, wildcards, name=name, **extra)

    def html(self, name: str, wildcards: Mapping | None = None, **extra) -> Markup:
        """The caption of ``name`` as an HTML fragment (:func:`caption_html`)."""
        return caption_html(self.rst(name, wildcards, **extra))
