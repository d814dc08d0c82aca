"""What `attn-tui serve` adds to textual-serve's page (its template, app_index.html, is used as is).

Issue 42 item 4, as a learner met it in a browser: keys did nothing until the page was clicked (the
focus stayed on the page, not on the terminal), the top row of pane titles was clipped, and at
800×500 A's last column was off the right edge while space was left. The page's body kept the
browser's 8-pixel margin around a terminal the size of the window, so the page was 16 pixels wider
and taller than the window: it scrolled, and the terminal was fitted to a box the window cut.
Here the terminal fills the window exactly (no margin, no page scroll) and takes the focus as soon
as the terminal exists.
"""

from __future__ import annotations

STYLE = """<style id="attn-tui-page">
  html, body { margin: 0; padding: 0; width: 100%; height: 100%; overflow: hidden; }
  #terminal { position: fixed; top: 0; left: 0; right: 0; bottom: 0; }
</style>"""

# xterm.js types into a hidden textarea inside #terminal: focusing it is what a click did.
SCRIPT = """<script id="attn-tui-focus">
  window.addEventListener("DOMContentLoaded", () => {
    const focus = () => {
      const input = document.querySelector("#terminal textarea");
      if (input) { input.focus(); }
      return Boolean(input);
    };
    if (!focus()) {
      const watch = new MutationObserver(() => { if (focus()) { watch.disconnect(); } });
      watch.observe(document.body, { childList: true, subtree: true });
    }
  });
</script>"""


def fixed(html: str) -> str:
    """textual-serve's page with the style and the focus script above, before its </head>."""
    head = html.find("</head>")
    if head < 0:
        return html
    return html[:head] + STYLE + "\n" + SCRIPT + "\n" + html[head:]
