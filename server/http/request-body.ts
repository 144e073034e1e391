import type { Context } from 'hono';
import { scanJsonShape, type ShapeBreach, type ShapeLimits } from '../../lib/contract/json-shape.js';
import { ProblemError, validationProblem } from './problems.js';

/**
 * Reads a JSON request body with the contract's rules for bodies (D34): the media type
 * must be `application/json` (415), the size at most the limit (413, checked while
 * streaming, so an oversized body is never held whole), with `shape`, its depth and fields per
 * object within D49's bounds, scanned on the raw text before it is parsed (422), and the text
 * valid JSON (400).
 *
 * With `optional` (the operation's `requestBody.required` is false), a request without a body
 * answers `undefined`. A request with neither Content-Length nor Transfer-Encoding has no body
 * (RFC 9112 §6.3): that is what `curl -X POST` without `-d` sends, and it carries no Content-Type
 * either. A Content-Length of 0 is no body too, whatever media type it names.
 */
export async function readJsonBody(
  c: Context,
  limitBytes: number,
  { optional = false, shape }: { optional?: boolean; shape?: ShapeLimits } = {},
): Promise<unknown> {
  const contentType = c.req.header('content-type');
  const declared = c.req.header('content-length');
  if (optional && declared !== undefined && Number(declared) === 0) return undefined;
  if (contentType ? !isJsonMediaType(contentType) : !optional) throw unsupported(contentType);
  if (declared && Number(declared) > limitBytes) throw tooLarge(limitBytes);
  // With a declared length within the limit, the body cannot grow past it (the HTTP parser stops
  // there), so it is read whole, the fast way; a chunked body is counted while it streams.
  // With shape bounds, a long body is read as it streams and its first part scanned at once: a
  // body past them in its first 64 KiB (a megabyte of `[`, of fields) is refused without reading,
  // decoding or scanning the rest. A body declared shorter than that is whole before any scan
  // would be made, so it is read whole too (the Node adapter's direct read: no web stream).
  const early = shape && contentType ? shape : undefined;
  const whole = !!declared && (!early || Number(declared) < EARLY_SCAN_BYTES);
  const text = whole ? await readWhole(c.req.raw) : await readLimited(c.req.raw, limitBytes, early);
  // Behind something other than Node's parser (a test's `app.request`), a declared length may lie.
  // (A text of n characters is at most 3n bytes of UTF-8: a short one is not measured.)
  if (declared && text.length * 3 > limitBytes && Buffer.byteLength(text) > limitBytes) throw tooLarge(limitBytes);
  if (optional && text === '') return undefined;
  // Bytes without a media type (only an optional body gets this far without one).
  if (!contentType) throw unsupported(contentType);
  // D49: a body nested deeper or with more fields per object than any request of the contract is
  // refused on its raw text, in linear time, before `JSON.parse` spends time on it. (A body of
  // whitespace alone has no shape to breach.)
  const breach = shape && scanJsonShape(text, shape);
  if (breach) throw shapeProblem(breach);
  try {
    return JSON.parse(text);
  } catch (error) {
    // Told apart only once it failed to parse: a valid body is not copied trimmed first.
    if (text.trim() === '') throw new ProblemError('malformedRequest', 'The request body is empty; a JSON object is required.');
    throw new ProblemError('malformedRequest', `The request body is not valid JSON: ${(error as Error).message}.`);
  }
}

function unsupported(contentType: string | undefined): ProblemError {
  return new ProblemError(
    'unsupportedMediaType',
    `The request body must be application/json; got ${contentType ? contentType.split(';')[0]!.trim() : 'no Content-Type'}.`,
  );
}

function isJsonMediaType(value: string): boolean {
  // What nearly every client sends, without taking it apart.
  if (value === 'application/json') return true;
  const [type, ...params] = value.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

function tooLarge(limitBytes: number): ProblemError {
  return new ProblemError('payloadTooLarge', `The request body is larger than ${limitBytes} bytes.`);
}

async function readWhole(request: Request): Promise<string> {
  try {
    // Decoded as the streamed body is: a byte order mark stays (and makes the text not JSON), where
    // `text()` would drop it.
    return Buffer.from(await request.arrayBuffer()).toString('utf8');
  } catch {
    throw incomplete();
  }
}

function incomplete(): ProblemError {
  return new ProblemError('malformedRequest', 'The request body was not received completely.');
}

/** The 422 of a body past D49's shape bounds: one field error at the place of the breach. */
function shapeProblem(breach: ShapeBreach): ProblemError {
  return validationProblem([{ pointer: breach.pointer, detail: breach.detail, keyword: breach.keyword }]);
}

/** The next part of a body; a client that went away (or a stream that broke) before the body was whole is a 400. */
async function nextChunk(reader: ReadableStreamDefaultReader<Uint8Array>): ReturnType<typeof reader.read> {
  try {
    return await reader.read();
  } catch {
    throw incomplete();
  }
}

/** Reads what is left of a body without keeping it, up to `leftBytes` more (then the body is too large). */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, leftBytes: number): Promise<void> {
  let left = leftBytes;
  for (;;) {
    const chunk = await nextChunk(reader);
    if (chunk.done) return;
    left -= chunk.value.byteLength;
    if (left < 0) {
      await reader.cancel();
      return;
    }
  }
}

/** How much of a streamed body is read before its shape is first scanned (with `shape`). */
const EARLY_SCAN_BYTES = 64 * 1024;

async function readLimited(request: Request, limitBytes: number, shape?: ShapeLimits): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let scanned = shape === undefined;
  for (;;) {
    const { done, value } = await nextChunk(reader);
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await reader.cancel();
      throw tooLarge(limitBytes);
    }
    chunks.push(value);
    if (!scanned && size >= EARLY_SCAN_BYTES) {
      scanned = true;
      // A breach in a prefix is a breach of the whole text: depth and fields only grow as it goes on.
      const breach = scanJsonShape(Buffer.concat(chunks).toString('utf8'), shape!);
      if (breach) {
        // The rest is read and dropped, neither kept nor decoded: cancelling the stream would close
        // the connection under a client still sending, which would then never see the answer.
        await discardRest(reader, limitBytes - size);
        throw shapeProblem(breach);
      }
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
