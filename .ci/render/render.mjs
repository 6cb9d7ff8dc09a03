// render.mjs renders perfgate PR comments as GitHub shows them and checks
// what a reader sees: GitHub-flavoured markdown with footnotes and raw
// <details>, styled by github-markdown-css in a content column of GitHub's
// width, mermaid blocks drawn by mermaid in the page, all in headless
// Chromium. It fails (exit 1, one line per problem) when a mermaid block
// does not parse, when two text boxes of a drawn chart overlap, when the
// text bars of a table are not drawn to one scale, when an open table is
// wider than the column or wraps a number (a value and its unit, or a
// number itself, on two lines), or when the page above the first collapsed
// <details> is taller than its budget, and it prints the measured heights
// either way.
//
// Usage: node render.mjs --modules DIR --chromium PATH --html-dir DIR
//          NAME=COMMENT.md,PNG,BUDGET_PX[,FIRST_SCREEN_PX] ...
// FIRST_SCREEN_PX, when given, is the first screen: the verdict, the
// ordered list and the table of what decides each undecided metric (the
// open one with a "Decides it" column) must all end within it.
// DIR holds the node_modules that .ci/render/package.json pins (npm ci
// --prefix DIR); PNG is a full-page screenshot of the rendered comment.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// GitHub's PR conversation shows a comment's body in a column about 780
// px wide; the page adds GitHub's 16 px padding on each side.
const contentWidth = 780;
const padding = 16;

function parseArgs(argv) {
  const o = { renders: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--modules' || a === '--chromium' || a === '--html-dir') {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      o[a.slice(2).replace('-d', 'D')] = argv[++i];
      continue;
    }
    const m = /^([\w.-]+)=([^,]+),([^,]+),(\d+)(?:,(\d+))?$/.exec(a);
    if (!m) throw new Error(`argument ${JSON.stringify(a)}: want NAME=COMMENT.md,PNG,BUDGET_PX[,FIRST_SCREEN_PX]`);
    o.renders.push({ name: m[1], md: m[2], png: m[3], budget: Number(m[4]), screen: m[5] ? Number(m[5]) : 0 });
  }
  for (const k of ['modules', 'chromium', 'htmlDir']) {
    if (!o[k]) throw new Error(`missing --${k === 'htmlDir' ? 'html-dir' : k}`);
  }
  if (o.renders.length === 0) throw new Error('nothing to render: pass NAME=COMMENT.md,PNG,BUDGET_PX');
  return o;
}

// page is the HTML GitHub would show for markdown source md.
function page(md, mods, req) {
  const MarkdownIt = req('markdown-it');
  const footnote = req('markdown-it-footnote');
  const renderer = new MarkdownIt({ html: true, linkify: true }).use(footnote);
  const fence = renderer.renderer.rules.fence;
  // GitHub draws a mermaid fence as a diagram; keep its source in a
  // <pre class="mermaid-src"> for the page script to parse and draw.
  renderer.renderer.rules.fence = (tokens, idx, opts, env, self) => {
    const t = tokens[idx];
    if (t.info.trim() === 'mermaid') {
      return `<pre class="mermaid-src">${renderer.utils.escapeHtml(t.content)}</pre>\n`;
    }
    return fence(tokens, idx, opts, env, self);
  };
  const css = fs.readFileSync(path.join(mods, 'node_modules/github-markdown-css/github-markdown-light.css'), 'utf8');
  return `<!doctype html><html><head><meta charset="utf-8"><title>perfgate comment</title>
<style>${css}
body { margin: 0; background: #fff; }
.markdown-body { box-sizing: content-box; width: ${contentWidth}px; padding: ${padding}px; }
</style></head><body><article class="markdown-body">${renderer.render(md)}</article></body></html>`;
}

// inPage runs in Chromium after mermaid loaded: it parses and draws each
// mermaid block, collects the text boxes of each drawn chart, and measures
// the page. It returns plain data; the checks run in node.
async function inPage() {
  const out = { mermaid: [], height: 0, beforeDetails: 0, beforeTail: 0, collapsed: 0, wideTables: [], bars: [], wrapped: [] };
  const body = document.querySelector('.markdown-body');
  const top = body.getBoundingClientRect().top;
  const srcs = [...document.querySelectorAll('pre.mermaid-src')];
  if (srcs.length > 0) {
    window.mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: 'default' });
  }
  for (const [i, pre] of srcs.entries()) {
    const block = { index: i + 1, error: '', texts: [] };
    const src = pre.textContent;
    try {
      await window.mermaid.parse(src);
      const { svg } = await window.mermaid.render(`chart${i + 1}`, src);
      const div = document.createElement('div');
      div.className = 'mermaid-chart';
      div.innerHTML = svg;
      pre.replaceWith(div);
      for (const t of div.querySelectorAll('svg text')) {
        const r = t.getBoundingClientRect();
        const s = t.textContent.trim();
        if (s !== '' && r.width > 0 && r.height > 0) {
          block.texts.push({ text: s, x: r.left, y: r.top, w: r.width, h: r.height });
        }
      }
    } catch (e) {
      block.error = String(e && e.message ? e.message : e).split('\n').slice(0, 3).join(' ');
    }
    out.mermaid.push(block);
  }
  // Text bars (runs of ▏▎▍▌▋▊▉█ in a code span, the number after them in
  // the same cell): their ink width as drawn in the page's own code font,
  // measured on a canvas, since a box's width counts a ▏ as a whole cell.
  const ctx = document.createElement('canvas').getContext('2d');
  out.bars = [];
  for (const [i, t] of [...document.querySelectorAll('.markdown-body table')].entries()) {
    // Only open tables count: a collapsed one is not drawn.
    const open = !t.closest('details:not([open])');
    if (open && t.scrollWidth > t.clientWidth + 1) out.wideTables.push({ index: i + 1, width: t.scrollWidth });
    // A number wrapped in a cell: each number with its unit ("+13.7 %",
    // "-4.8 to +1.2 %" is three tokens: two numbers, one unit) must lie on
    // one line. A Range over the token has one client rect per line.
    for (const td of open ? t.querySelectorAll('td') : []) {
      const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        // Not inside a name ("chat-1k-c8" may wrap at its hyphens).
        const re = /(?<![\w.\-])[+\-±−]?\d[\d,.]*(?:[ \u00a0](?:%|pp|ms|s|req\/s|tok\/s))?(?![\w])/g;
        for (let m = re.exec(n.data); m; m = re.exec(n.data)) {
          const r = document.createRange();
          r.setStart(n, m.index);
          r.setEnd(n, m.index + m[0].length);
          const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
          if (tops.size > 1) out.wrapped.push({ table: i + 1, text: m[0] });
        }
      }
    }
    for (const code of t.querySelectorAll('td code')) {
      const bar = code.textContent;
      if (!/^[\u2588-\u258f]+$/.test(bar)) continue;
      const rest = code.parentElement.textContent.replace(bar, '');
      const num = /[+-]?\d+(?:\.\d+)?/.exec(rest.replace(/,/g, ''));
      ctx.font = getComputedStyle(code).font;
      const m = ctx.measureText(bar);
      out.bars.push({ table: i + 1, bar, value: num ? Math.abs(Number(num[0])) : NaN,
        ink: m.actualBoundingBoxRight + m.actualBoundingBoxLeft, cell: ctx.measureText('\u2588').width });
    }
  }
  // The first screen's content: down to the end of the open table of
  // undecided metrics, else of the first table (the regressed list).
  const tables = [...document.querySelectorAll('.markdown-body table')].filter((t) => !t.closest('details:not([open])'));
  const undecided = tables.find((t) => [...t.querySelectorAll('th')].some((th) => th.textContent.trim() === 'Decides it'));
  const firstEnd = undecided || tables[0];
  out.screenEnd = firstEnd ? Math.ceil(firstEnd.getBoundingClientRect().bottom - top) : 0;
  const closed = [...document.querySelectorAll('.markdown-body details:not([open])')];
  out.collapsed = closed.length;
  out.height = Math.ceil(body.getBoundingClientRect().height);
  out.beforeDetails = closed.length ? Math.ceil(closed[0].getBoundingClientRect().top - top) : out.height;
  // The collapsed tail: the run of collapsed <details> at the end of the
  // comment (with the footnotes and one-line paragraphs such as the footer
  // among them). What is above it is everything the reader sees open,
  // which can include open tables below the first collapsed <details>.
  out.beforeTail = out.height;
  for (const el of [...body.children].reverse()) {
    const collapsed = el.tagName === 'DETAILS' && !el.open;
    const quiet = el.matches('section.footnotes, hr.footnotes-sep') || (el.tagName === 'P' && el.getBoundingClientRect().height < 60);
    if (!collapsed && !quiet) break;
    if (collapsed) out.beforeTail = Math.ceil(el.getBoundingClientRect().top - top);
  }
  return out;
}

// overlaps lists the pairs of text boxes that cover each other by more
// than half a pixel each way: touching boxes are fine, covering ones are
// unreadable labels.
function overlaps(texts) {
  const found = [];
  const eps = 0.5;
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i], b = texts[j];
      const dx = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
      const dy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
      if (dx > eps && dy > eps) found.push([a.text, b.text, dx]);
    }
  }
  return found;
}

// barErrors checks that the text bars of each table are drawn to one
// scale: every bar's ink is its value times the longest bar's ink per unit,
// within the eighth of a character the bar is quantized to (and a pixel of
// antialiasing). A bar that renders in a fallback font, as boxes, or out of
// proportion to its number fails.
function barErrors(bars) {
  const errs = [];
  const byTable = new Map();
  for (const b of bars) byTable.set(b.table, [...(byTable.get(b.table) || []), b]);
  for (const [table, bs] of byTable) {
    const bad = bs.filter((b) => !(b.value > 0));
    if (bad.length) errs.push(`table ${table}: text bar ${JSON.stringify(bad[0].bar)} has no number after it`);
    const ok = bs.filter((b) => b.value > 0);
    if (ok.length < 2) continue;
    const top = ok.reduce((a, b) => (b.value > a.value ? b : a));
    const perUnit = top.ink / top.value;
    for (const b of ok) {
      const want = b.value * perUnit;
      const slack = b.cell / 8 + 1;
      if (Math.abs(b.ink - want) > slack) {
        errs.push(`table ${table}: the bar of ${b.value} is drawn ${b.ink.toFixed(1)} px long, ` +
          `${want.toFixed(1)} px on the scale of the bar of ${top.value} (±${slack.toFixed(1)} px)`);
      }
    }
  }
  return errs;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const req = createRequire(path.join(path.resolve(o.modules), 'package.json'));
  const puppeteer = req('puppeteer-core');
  const mermaidJS = path.join(o.modules, 'node_modules/mermaid/dist/mermaid.min.js');
  fs.mkdirSync(o.htmlDir, { recursive: true });
  const browser = await puppeteer.launch({
    executablePath: o.chromium,
    headless: true,
    // --no-sandbox: CI runs as root in a container, where Chromium's
    // sandbox cannot start.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--font-render-hinting=none'],
  });
  const failures = [];
  try {
    for (const r of o.renders) {
      let md;
      try {
        md = fs.readFileSync(r.md, 'utf8');
      } catch (e) {
        throw new Error(`${r.name}: reading ${r.md}: ${e.message}`);
      }
      const htmlPath = path.join(o.htmlDir, `${r.name}.html`);
      fs.writeFileSync(htmlPath, page(md, o.modules, req));
      const p = await browser.newPage();
      await p.setViewport({ width: contentWidth + 2 * padding, height: 900, deviceScaleFactor: 1 });
      // The page is self-contained: anything it would fetch from the
      // network (an image in the comment) is refused, so the render is the
      // same offline and online.
      await p.setRequestInterception(true);
      p.on('request', (q) => (q.url().startsWith('file:') || q.url().startsWith('data:') ? q.continue() : q.abort()));
      await p.goto(pathToFileURL(path.resolve(htmlPath)).href, { waitUntil: 'load' });
      if (md.includes('```mermaid')) await p.addScriptTag({ path: mermaidJS });
      await p.evaluate(() => document.fonts.ready);
      const m = await p.evaluate(inPage);
      const fail = (msg) => failures.push(`${r.name} (${r.md}): ${msg}`);
      const labels = m.mermaid.reduce((n, b) => n + b.texts.length, 0);
      for (const b of m.mermaid) {
        if (b.error) fail(`mermaid block ${b.index} does not parse: ${b.error}`);
        const ov = overlaps(b.texts);
        if (ov.length) {
          const shown = ov.slice(0, 3).map(([a, c, dx]) => `${JSON.stringify(a)} overlaps ${JSON.stringify(c)} by ${dx.toFixed(1)} px`);
          fail(`mermaid block ${b.index}: ${ov.length} pair(s) of chart labels overlap: ${shown.join('; ')}${ov.length > 3 ? '; …' : ''}`);
        }
      }
      for (const e of barErrors(m.bars)) fail(e);
      if (m.beforeDetails > r.budget) {
        fail(`${m.beforeDetails} px above the first collapsed <details>, over the budget of ${r.budget} px at ${contentWidth} px width`);
      }
      if (r.screen && m.screenEnd > r.screen) {
        fail(`the verdict, the list and what decides each undecided metric end at ${m.screenEnd} px, past the first screen of ${r.screen} px`);
      }
      if (m.wideTables.length) {
        const widest = Math.max(...m.wideTables.map((t) => t.width));
        fail(`${m.wideTables.length} open table(s) scroll sideways in the ${contentWidth} px column ` +
          `(tables ${m.wideTables.map((t) => t.index).join(', ')}; the widest ${widest} px)`);
      }
      if (m.wrapped.length) {
        const shown = m.wrapped.slice(0, 3).map((w) => `table ${w.table}: ${JSON.stringify(w.text)}`);
        fail(`${m.wrapped.length} number(s) wrapped onto two lines: ${shown.join('; ')}${m.wrapped.length > 3 ? '; …' : ''}`);
      }
      const charts = (m.mermaid.length ? `${m.mermaid.length} mermaid block(s), ${labels} chart text boxes` : 'no mermaid block (mermaid checks skipped)') +
        `, ${m.bars.length} text bar(s)`;
      console.log(`render-comment: ${r.name}: first screen's content ends at ${m.screenEnd} px${r.screen ? ` (budget ${r.screen})` : ''}, ` +
        `${m.beforeDetails} px above the first collapsed <details> (budget ${r.budget}), ` +
        `${m.beforeTail} px above the collapsed tail, ${m.height} px in all, ${m.collapsed} collapsed <details>, ${charts}; ${r.png}`);
      fs.mkdirSync(path.dirname(r.png), { recursive: true });
      await p.screenshot({ path: r.png, fullPage: true });
      await p.close();
    }
  } finally {
    await browser.close();
  }
  if (failures.length) {
    for (const f of failures) console.error(`render-comment: FAIL ${f}`);
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(`render-comment: ${e.message}`);
  process.exit(2);
});
