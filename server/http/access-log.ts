import pino, { type Logger } from 'pino';

/** What the line of every request says (server/app.ts). */
export interface RequestLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  companyId: string | undefined;
}

/** Where a logger's lines go (pino's own destination is one): it takes whole lines, and may hold some back until flushed. */
export interface LineDestination {
  write(line: string): unknown;
  flush?(): void;
  /** Resolves once every line written so far is out (or given up). */
  drained?(): Promise<void>;
  /** Drops what is held and every later line (a shutdown that must not wait on its output). */
  drop?(): void;
}

/** The destination of each logger `createLogger` made (server/bootstrap.ts), which takes request lines as written. */
const destinations = new WeakMap<Logger, LineDestination>();

/** Request lines of `logger` go straight to `destination`, which `logger` writes to. */
export function writeRequestLinesTo(logger: Logger, destination: LineDestination): void {
  destinations.set(logger, destination);
}

/** Writes what `logger` holds back (its destination buffers lines): for lines a person or a supervisor waits for. */
export function flushLog(logger: Logger): void {
  destinations.get(logger)?.flush?.();
}

/** Resolves once what `logger` wrote is out, or after `ms` at most (a log reader that reads nothing is not waited on longer). */
export async function drainLog(logger: Logger, ms: number): Promise<void> {
  const drained = destinations.get(logger)?.drained?.();
  if (drained === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Drops what `logger` holds and every later line: for an exit that must not wait on its output. */
export function dropLog(logger: Logger): void {
  destinations.get(logger)?.drop?.();
}

/**
 * The log line of every request, at `info`, as pino writes `logger.info(line, 'request')`: the
 * same fields in the same order. For a logger made by `createLogger` the line is written as one
 * string straight to its destination: its fixed part (level, the logger's bindings) is made once
 * per logger and the rest is five fields, with no object to walk and no redaction to run (the
 * line holds ids, the method, the path, the status and a time: nothing to redact). Walking the
 * object through pino was about a tenth of the cost of a simple GET. Any other logger (tests
 * capture lines with their own) gets the line through pino. `current` is read on every request,
 * so a logger replaced on the app's dependencies is used from the next request on.
 */
export function requestLogWriter(current: () => Logger): (line: RequestLine) => void {
  let made: { logger: Logger; write: (line: RequestLine) => void } | undefined;
  return (line) => {
    const logger = current();
    if (made?.logger !== logger) made = { logger, write: writerFor(logger) };
    if (logger.isLevelEnabled('info')) made.write(line);
  };
}

function writerFor(logger: Logger): (line: RequestLine) => void {
  const destination = destinations.get(logger);
  // What pino writes after the time of every line of this logger (`,"pid":…,"hostname":…` and its
  // bindings), as pino keeps it, made once.
  const bindings: unknown = Reflect.get(logger, pino.symbols.chindingsSym);
  if (destination === undefined || typeof bindings !== 'string') {
    const child = logger.child({}, { redact: [] });
    return (line) => child.info(line, 'request');
  }
  const head = `{"level":${logger.levels.values.info},"time":`;
  return (line) => {
    const { requestId, method, path, companyId } = line;
    // Each text is tested on its own: joined to be tested once, they were a new string to flatten
    // on every request. A text that needs no escaping (every one of a client that follows the
    // contract) is written as it is.
    const q = quoted;
    destination.write(
      `${head}${Date.now()}${bindings},"requestId":${q(requestId)},"method":${q(method)},"path":${q(path)},"status":${line.status},"ms":${line.ms}${companyId === undefined ? '' : `,"companyId":${q(companyId)}`},"msg":"request"}\n`,
    );
  };
}

/** Characters a JSON string must escape, and any that is not ASCII (left to JSON.stringify too). */
const needsEscape = /["\\\u0000-\u001f\u007f-\uffff]/;

/** A JSON string of `text`: quoted as it is when nothing in it needs escaping (ids, methods, most paths). */
function quoted(text: string): string {
  return needsEscape.test(text) ? JSON.stringify(text) : `"${text}"`;
}
