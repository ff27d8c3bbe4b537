"""A URL in, its readable text out, by the stage of a page's path:

- pipeline.py: URLs to items, one per URL, concurrently, within the call's deadline;
- spec.py: what to do with each URL (the fetch tool's options as the stages read them);
- fetch/: one URL's GET under the fetch tool's rules (robots.txt, per-host slots, content
  negotiation, walls named from the status), over net/ (HTTP, the address guard, caching rules);
- sites/: site adapters that read a page through the site's API;
- child/: the page-reading child process that holds the deadline and memory bound;
- read/: a downloaded body to text (content types, charsets, PDF, HTML through extract/),
  and the item built of it;
- extract/: HTML to markdown or text (the main-content decision, rendering, hidden text);
- checks/: is what came back the page (bot challenges, login and paywalls, script shells)?
- answer/: the text as the model reads it (window, focus, find);
- render/: a headless browser for pages built by scripts.

Empty on purpose: every call is a fresh process, and a package import here is paid by each one.
"""
