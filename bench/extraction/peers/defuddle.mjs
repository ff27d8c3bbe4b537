// Defuddle (kepano/defuddle, the Obsidian Web Clipper's reader) on pages listed in a manifest:
// node defuddle.mjs MANIFEST.json, where the manifest is [{"html": path, "url": the page's URL,
// "out": path}]. Each page's markdown is written to its "out" (empty when Defuddle fails on it),
// and its index printed on a line of its own once written, so the caller can tell a page that
// hangs (bench/extraction/peers.py restarts after it).
import fs from 'fs';
import { JSDOM, VirtualConsole } from 'jsdom';
import { Defuddle } from 'defuddle/node';

const pages = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const start = Number(process.argv[3] || 0);
for (let i = start; i < pages.length; i++) {
  const { html, url, out } = pages[i];
  let md = '';
  try {
    const dom = new JSDOM(fs.readFileSync(html), { url, virtualConsole: new VirtualConsole() });
    const r = await Defuddle(dom.window.document, url, { markdown: true, useAsync: false });
    md = r.content || '';
    dom.window.close();
  } catch (e) {
    md = '';
  }
  fs.writeFileSync(out, md);
  process.stdout.write(i + '\n');
}
process.exit(0);
