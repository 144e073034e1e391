/** The fenced blocks of one language in one README section, in order (a `#` line inside a block is code, not a heading). */
export function fencedBlocks(markdown: string, heading: string, language: string): string[] {
  const blocks: string[] = [];
  let inSection = false;
  let fence: { wanted: boolean; lines: string[] } | undefined;
  for (const line of markdown.split('\n')) {
    if (fence) {
      if (!line.startsWith('```')) fence.lines.push(line);
      else {
        if (inSection && fence.wanted) blocks.push(fence.lines.join('\n'));
        fence = undefined;
      }
    } else if (line.startsWith('```')) fence = { wanted: line === `\`\`\`${language}`, lines: [] };
    else if (/^#{1,3} /.test(line)) inSection = line === heading;
  }
  return blocks;
}
