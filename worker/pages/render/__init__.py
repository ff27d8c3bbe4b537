"""Pages that need a browser: rendered in a real Chromium, only when needed.

decide.py says which fetched items to render (pure); hook.py renders them and
builds their items again from the rendered DOM through the same steps as any page;
browser.py finds and runs the browser as one process group; cdp.py speaks the
DevTools protocol over its pipe; gate.py is the only way out of the browser, with
the private-address guard; page.py loads one page and reads its DOM.

Nothing here is imported by a call that renders nothing.
"""

MODES = ("auto", "never", "always")  # worker/cli.py RENDER_MODES: the same choices
DEFAULT_MODE = "auto"
