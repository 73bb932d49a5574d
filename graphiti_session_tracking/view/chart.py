"""The activity vector as a chart: SVG drawn on the server by pygal, shown as an image.

Server-side SVG needs no JavaScript in the page (the page runs none, and says so in its
Content-Security-Policy), nothing from a CDN, and nothing vendored: pygal is a pip dependency.
The SVG goes into the page as a `data:` image, so the inline script pygal adds for its tooltips
never runs, and every label in it is one of the fixed dimension names.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping

from graphiti_session_tracking.dimensions import DOMINANT_THRESHOLD

_STYLE_COLORS = ("#3b6ea5",)


def activity_chart(activity: Mapping[str, float]) -> str:
    """A horizontal bar per dimension (0..1), as a `data:image/svg+xml` URI for an <img>."""
    import pygal  # only the session page draws a chart
    from pygal.style import Style

    style = Style(
        background="white",
        plot_background="white",
        colors=_STYLE_COLORS,
        font_family="system-ui, sans-serif",
        label_font_size=13,
        value_font_size=11,
        major_label_font_size=13,
    )
    chart = pygal.HorizontalBar(
        js=[],  # pygal's default loads its tooltip script from a CDN
        style=style,
        show_legend=False,
        range=(0, 1),
        width=560,
        height=300,
        print_values=True,
        value_formatter=lambda value: f"{value:.2f}",
        title=f"activity (dominant at ≥ {DOMINANT_THRESHOLD})",
        margin=12,
    )
    # pygal draws horizontal bars from the bottom up: reversed, the first dimension is on top.
    pairs = list(activity.items())[::-1]
    chart.x_labels = [name for name, _ in pairs]
    chart.add("activity", [round(float(value), 3) for _, value in pairs])
    svg: bytes = chart.render(disable_xml_declaration=False)
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
