/**
 * A ready `curl` command for a recorded request, to reproduce a finding by hand: one line, the
 * method, the URL, every header the run sent and the body, quoted for a POSIX shell. The API key
 * is never written: the header reads it from `$PIX_API_KEY` (the run's key) or `$PIX_API_KEY_B`
 * (the second company's), as the exchange records whose key it carried. A key a check made up
 * (unknown, malformed) is no secret and is written as it was sent, so the line reproduces the
 * refusal it tested.
 *
 * What curl adds of its own (User-Agent, Host, Content-Length) is not the run's and does not
 * matter to the checks; its default form Content-Type is turned off where the run sent a body
 * without one.
 */
import type { RecordedRequest } from '../engine/types.js';

/** The shell variables a reproduction reads the keys from. */
export const keyVariables = { first: 'PIX_API_KEY', second: 'PIX_API_KEY_B' } as const;

/**
 * The longest body written on the command line. Longer ones (bounded_input's 512 KiB) could not
 * be pasted, and Linux refuses a single argument over 128 KiB: the line reads the body from a
 * file instead, and says where the body is.
 */
export const CURL_BODY_LIMIT = 16 * 1024;

/** Characters a word can hold unquoted in every POSIX shell. */
const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;
/** Characters single quotes cannot carry on one line, or that a terminal would act on. */
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/;

/**
 * `text` as one shell word: as it is when it is safe, else in single quotes (a quote inside is
 * `'\''`). Text with control characters (a newline, an escape) is written `$'…'` with escapes,
 * which bash, zsh, ksh and POSIX.1-2024 sh read, so the command stays on one line and nothing
 * acts on the terminal that shows it. A NUL cannot pass through a command line at all (bash
 * cuts the word there).
 */
export function shellQuote(text: string): string {
  if (SAFE.test(text)) return text;
  if (!CONTROL.test(text)) return `'${text.replace(/'/g, `'\\''`)}'`;
  const escaped = text.replace(/[\\']|[\u0000-\u001F\u007F-\u009F]/g, (c) => {
    if (c === '\\' || c === "'") return `\\${c}`;
    const code = c.charCodeAt(0);
    return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return `$'${escaped}'`;
}

/** `-H` for a header; an empty value is `Name;` (curl drops a header written `Name:`). */
function headerArgument(name: string, value: string): string {
  return shellQuote(value === '' ? `${name};` : `${name}: ${value}`);
}

/** `-H` for a header whose value is a shell variable: in double quotes, so the shell expands it. */
function variableHeader(name: string, variable: string): string {
  return /^[A-Za-z0-9_-]+$/.test(name) ? `"${name}: $${variable}"` : `${shellQuote(`${name}: `)}"$${variable}"`;
}

/** The one-line curl command that sends `request` again, with a trailing `# …` where something needs saying. */
export function curlCommand(request: RecordedRequest): string {
  const words = ['curl', '-sS', '-i', '-g'];
  words.push(...(request.method.toUpperCase() === 'HEAD' ? ['--head'] : ['-X', shellQuote(request.method)]));
  words.push(shellQuote(request.url));
  const notes: string[] = [];
  const key = request.apiKey;
  let contentType = false;
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (lower === 'content-type') contentType = true;
    if (key && lower === key.header.toLowerCase()) {
      words.push('-H', key.of === 'made-up' ? headerArgument(name, key.value) : variableHeader(name, keyVariables[key.of]));
    } else {
      words.push('-H', headerArgument(name, value));
    }
    // Sent again with the same key, the request is the replay the run made (idempotency_replay):
    // the key stays as the run sent it, so the line reproduces what the run saw.
    if (lower === 'idempotency-key') notes.push('the Idempotency-Key the run sent: a replay of its request (change it for a new one)');
  }
  if (request.body !== undefined) {
    if (!contentType) words.push('-H', shellQuote('Content-Type:'));
    if (request.body.length > CURL_BODY_LIMIT) {
      words.push('--data-binary', '@body.json');
      notes.push(
        `body.json: the request body (${Buffer.byteLength(request.body)} bytes), too long for a command line; the HAR file of the run (--har) holds it`,
      );
    } else {
      words.push('--data-raw', shellQuote(request.body));
    }
  }
  return notes.length > 0 ? `${words.join(' ')}  # ${notes.join('; ')}` : words.join(' ');
}
