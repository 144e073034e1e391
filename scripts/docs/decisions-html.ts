import MarkdownIt, { type MarkdownIt as Renderer } from 'markdown-it';

/**
 * openapi/DECISIONS.md as a page of its own (`/docs/decisions.html`), rendered at docs build
 * time with markdown-it: CommonMark tables and code, no raw HTML let through from the source.
 * Each decision's row carries its id as an anchor (`decisions.html#D37`), which the docs'
 * decision marks link to, and its id cell links to itself so a reader can copy the address.
 */
const decisionId = /^D\d{2}$/;

function markdownRenderer(): Renderer {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
  // Before inline parsing, so that the id cell's `[D37](#D37)` is parsed as a link.
  md.core.ruler.before('inline', 'decision-anchors', (state) => {
    const tokens = state.tokens;
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i]!.type !== 'tr_open') continue;
      const cell = tokens.slice(i + 1, i + 4).find((token) => token.type === 'inline');
      if (!cell || !decisionId.test(cell.content)) continue;
      tokens[i]!.attrSet('id', cell.content);
      cell.content = `[${cell.content}](#${cell.content})`;
    }
    return true;
  });
  return md;
}

const style = `
  :root { color-scheme: light; --accent: #0E7C66; }
  body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; background: #fff; }
  main { max-width: 1400px; margin: 0 auto; padding: 1.5rem 1rem 4rem; }
  nav a, a { color: var(--accent); }
  h1 { font-size: 1.8rem; margin: 0.5rem 0 1rem; }
  code { font: 0.9em ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; background: #f3f4f6; padding: 0.1em 0.3em; border-radius: 3px; }
  .table { overflow-x: auto; }
  table { border-collapse: collapse; min-width: 900px; }
  th { background: #f6f8fa; }
  th, td { text-align: left; vertical-align: top; padding: 0.5rem 0.6rem; border-bottom: 1px solid #d8dee4; }
  td:first-child { white-space: nowrap; font-weight: 600; }
  tr { scroll-margin-top: 3rem; }
  tr:target { background: #fff6d5; outline: 2px solid #e0b400; }
`;

/** The decisions page: the Markdown rendered, styled simply, self-contained (no script, nothing loaded from elsewhere). */
export function decisionsHtml(markdown: string, apiTitle: string): string {
  const md = markdownRenderer();
  const heading = /^# (.+)$/m.exec(markdown)?.[1] ?? 'Contract decisions';
  const body = md
    .render(markdown)
    .replace(/<table>/g, '<div class="table"><table>')
    .replace(/<\/table>/g, '</table></div>');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${md.utils.escapeHtml(`${heading} — ${apiTitle}`)}</title>
<link rel="icon" href="data:,">
<style>${style}</style>
</head>
<body>
<main>
<nav><a href="./">← ${md.utils.escapeHtml(apiTitle)} reference</a></nav>
${body}
</main>
</body>
</html>
`;
}
