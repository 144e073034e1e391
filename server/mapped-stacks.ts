import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Stacks of the compiled server written with the places in the sources (`server/app.ts:61:7`),
 * as `--enable-source-maps` writes them, but with the source map read only when a stack is first
 * written: Node's flag reads and decodes the whole map (900 KB) at every start, before the server
 * can answer, which was about a tenth of its start-up's CPU and 3–4 MB of its memory.
 *
 * Installed by the compiled server (`dist/server/main.cjs`, whose map is `main.cjs.map` beside
 * it, run by `main.mjs`) when Node maps no stacks itself; from source (tsx, which maps them) or in a build without a
 * map (the sandbox package) it does nothing. A frame of the bundle keeps V8's text (the function,
 * `new`, `async`) with its place replaced by the source's; other frames are left as V8 wrote them.
 */
export function mapStacksOnFirstUse(bundleUrl: string): boolean {
  if (process.sourceMapsEnabled || !bundleUrl.startsWith('file:')) return false;
  const bundlePath = fileURLToPath(bundleUrl);
  const mapPath = `${bundlePath}.map`;
  if (!existsSync(mapPath)) return false;
  let map: SourceMap | undefined | null;
  const mapUrl = `${bundleUrl}.map`;
  const sourceMap = (): SourceMap | null => {
    if (map === undefined) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(mapPath, 'utf8')));
      } catch {
        map = null; // An unreadable map leaves the stacks as V8 writes them.
      }
    }
    return map;
  };
  const place = (frame: NodeJS.CallSite): string | undefined => {
    const file = frame.getFileName();
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    if ((file !== bundleUrl && file !== bundlePath) || line === null || column === null) return undefined;
    const entry = sourceMap()?.findEntry(line - 1, column - 1) as Partial<{ originalSource: string; originalLine: number; originalColumn: number }> | undefined;
    if (entry?.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return undefined;
    return `${fileURLToPath(new URL(entry.originalSource, mapUrl))}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  };
  Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]): string => {
    let header: string;
    try {
      header = Error.prototype.toString.call(error);
    } catch {
      header = '<error>';
    }
    const lines = frames.map((frame) => {
      const text = String(frame);
      const mapped = place(frame);
      if (mapped === undefined) return `    at ${text}`;
      const at = `${frame.getFileName()}:${frame.getLineNumber()}:${frame.getColumnNumber()}`;
      return `    at ${text.includes(at) ? text.replace(at, mapped) : `${text} (${mapped})`}`;
    });
    return [header, ...lines].join('\n');
  };
  return true;
}
