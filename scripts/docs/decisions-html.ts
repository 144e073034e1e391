import MarkdownIt, { type MarkdownIt as Renderer } from 'markdown-it';

/**
 * openapi/DECISIONS.md as a page of its own (`/docs/decisions.html`), rendered at docs build
 * time with markdown-it: CommonMark, no raw HTML let through from the source. Each decision's
 * section (`## D37 …` to the next heading of its level) becomes a `<section>` with its id as the
 * anchor (`decisions.html#D37`), which the docs' decision marks link to, and the id in its
 * heading links to itself so a reader can copy the address.
 */
const decisionHeading = /^(D\d{2})(\s|$)/;

function markdownRenderer(): Renderer {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
  // Before inline parsing, so that the heading's `[D37](#D37)` is parsed as a link. The section
  // tags are tokens of our own: `html: false` keeps raw HTML of the source out, not these.
  md.core.ruler.before('inline', 'decision-sections', (state) => {
    const tokens = state.tokens;
    const out: typeof tokens = [];
    let open = false;
    const tag = (html: string) => {
      const token = new state.Token('html_block', '', 0);
      token.content = html;
      return token;
    };
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (token.type === 'heading_open' && (token.tag === 'h1' || token.tag === 'h2')) {
        const inline = tokens[i + 1];
        const id = token.tag === 'h2' && inline?.type === 'inline' ? decisionHeading.exec(inline.content)?.[1] : undefined;
        if (open) out.push(tag('</section>\n'));
        open = id !== undefined;
        if (id !== undefined) {
          out.push(tag(`<section id="${id}">\n`));
          inline!.content = `[${id}](#${id})${inline!.content.slice(id.length)}`;
        }
      }
      out.push(token);
    }
    if (open) out.push(tag('</section>\n'));
    state.tokens = out;
    return true;
  });
  return md;
}

const style = `
  :root { color-scheme: light; --accent: #0E7C66; }
  body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; background: #fff; }
  main { max-width: 900px; margin: 0 auto; padding: 1.5rem 1rem 4rem; }
  nav a, a { color: var(--accent); }
  h1 { font-size: 1.8rem; margin: 0.5rem 0 1rem; }
  code { font: 0.9em ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; background: #f3f4f6; padding: 0.1em 0.3em; border-radius: 3px; }
  h2 { font-size: 1.2rem; margin: 0; }
  section { padding: 0.8rem 1rem; margin: 0 -1rem; border-top: 1px solid #d8dee4; scroll-margin-top: 1rem; }
  section:target { background: #fff6d5; outline: 2px solid #e0b400; }
  .table { overflow-x: auto; }
  table { border-collapse: collapse; }
  th { background: #f6f8fa; }
  th, td { text-align: left; vertical-align: top; padding: 0.5rem 0.6rem; border-bottom: 1px solid #d8dee4; }
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
