import type { Context } from 'hono';
import { scanJsonShape, type ShapeLimits } from '../../lib/contract/json-shape.js';
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
  const text = declared ? await readWhole(c.req.raw) : await readLimited(c.req.raw, limitBytes);
  // Behind something other than Node's parser (a test's `app.request`), a declared length may lie.
  if (declared && Buffer.byteLength(text) > limitBytes) throw tooLarge(limitBytes);
  if (optional && text === '') return undefined;
  // Bytes without a media type (only an optional body gets this far without one).
  if (!contentType) throw unsupported(contentType);
  if (text.trim() === '') throw new ProblemError('malformedRequest', 'The request body is empty; a JSON object is required.');
  // D49: a body nested deeper or with more fields per object than any request of the contract is
  // refused on its raw text, in linear time, before `JSON.parse` spends time on it.
  const breach = shape && scanJsonShape(text, shape);
  if (breach) throw validationProblem([{ pointer: breach.pointer, detail: breach.detail, keyword: breach.keyword }]);
  try {
    return JSON.parse(text);
  } catch (error) {
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

async function readLimited(request: Request, limitBytes: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch {
      // The client went away (or the stream broke) before the body was whole.
      throw incomplete();
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await reader.cancel();
      throw tooLarge(limitBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
