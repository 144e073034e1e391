/**
 * Progress of a run on stderr while the engine works (the suite prints it from the vitest
 * worker). On a terminal: one line, rewritten in place, counting findings. Elsewhere (CI logs):
 * one line when the run starts, one the first time each check reports, one at the end.
 */
import type { CheckName, ProgressEvent } from '../engine/types.js';
import { counted, glyphs, totalLine } from './matrix.js';

export type ProgressMode = 'tty' | 'plain' | 'none';

export class ProgressPrinter {
  private readonly counts = { pass: 0, fail: 0, info: 0, skip: 0 };
  private readonly seen = new Set<CheckName>();
  private lastDraw = 0;
  private pending = '';

  constructor(
    private readonly write: (text: string) => void,
    private readonly mode: ProgressMode,
    private readonly now: () => number = () => Date.now(),
  ) {}

  readonly onProgress = (event: ProgressEvent): void => {
    if (this.mode === 'none') return;
    switch (event.kind) {
      case 'start':
        // Held back until the first finding: a target that does not answer gets one line only.
        this.pending = `Checking ${counted(event.operations, 'operation')}…\n`;
        return;
      case 'check':
        this.flushPending();
        this.counts[event.outcome] += 1;
        if (this.mode === 'plain') {
          if (!this.seen.has(event.check)) this.write(`  ${event.check}\n`);
          this.seen.add(event.check);
        } else if (this.now() - this.lastDraw >= 80) {
          this.lastDraw = this.now();
          this.write(`\r\x1b[2K  ${this.findings()}  ${event.operationId} › ${event.check}`);
        }
        return;
      case 'done':
        this.flushPending();
        this.write(`${this.mode === 'tty' ? '\r\x1b[2K' : ''}Done: ${totalLine(event.report)}.\n`);
        return;
    }
  };

  /** Stops a half-drawn line (the run ended in an error). */
  abort(): void {
    if (this.mode === 'tty') this.write('\r\x1b[2K');
  }

  private flushPending(): void {
    if (this.pending) this.write(this.pending);
    this.pending = '';
  }

  private findings(): string {
    const c = this.counts;
    return `${c.pass + c.fail + c.info} findings: ${c.pass} ${glyphs.pass}  ${c.fail} ${glyphs.fail}  ${c.info} ${glyphs.info}`;
  }
}
