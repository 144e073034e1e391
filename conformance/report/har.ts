import { readFileSync } from 'node:fs';
/**
 * The run's exchanges as a HAR 1.2 file (`--har FILE`; http://www.softwareishard.com/blog/har-12-spec/),
 * which browsers' developer tools, proxies and HAR viewers open: every request the run recorded
 * (`RunContext.exchanges`: a 429 waited out is there once, as sent again; the flood of
 * `auth_flood_limited` and the clean-up at the end are not), in order, with what came back.
 *
 * Keys are masked as in every report (the engine records them so, and the CLI passes the report
 * through `redactReport` first, which also scrubs a key a target echoed). The bodies are whole,
 * not cut as on the terminal: the file is where a reproduction finds a long body. What fetch
 * does not say is written as unknown (-1): sizes of the header blocks, the phases of a request's
 * time (it is all `wait`). A request that got no answer has status 0 and the reason in `_error`
 * (as Chrome writes it) and in the response's comment.
 */
import { STATUS_CODES } from 'node:http';
import type { Exchange, RunReport } from '../engine/types.js';

type NameValue = { name: string; value: string };

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: NameValue[];
    headers: NameValue[];
    queryString: NameValue[];
    postData?: { mimeType: string; text: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: NameValue[];
    headers: NameValue[];
    content: { size: number; mimeType: string; text: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    comment?: string;
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { blocked: number; dns: number; connect: number; ssl: number; send: number; wait: number; receive: number };
  /** The operation the request was sent to. */
  comment: string;
}

export interface Har {
  log: { version: '1.2'; creator: { name: string; version: string }; entries: HarEntry[]; comment: string };
}

function nameValues(headers: Record<string, string>): NameValue[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

function headerOf(headers: Record<string, string>, name: string): string | undefined {
  return Object.entries(headers).find(([n]) => n.toLowerCase() === name)?.[1];
}

function queryOf(url: string): NameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function entry(exchange: Exchange, fallbackStart: string): HarEntry {
  const { request, response } = exchange;
  const time = Math.max(0, Math.round(exchange.ms * 1000) / 1000);
  const body = request.body;
  return {
    startedDateTime: exchange.startedAt ?? fallbackStart,
    time,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: nameValues(request.headers),
      queryString: queryOf(request.url),
      ...(body !== undefined ? { postData: { mimeType: headerOf(request.headers, 'content-type') ?? '', text: body } } : {}),
      headersSize: -1,
      bodySize: body === undefined ? 0 : Buffer.byteLength(body),
    },
    response: response
      ? {
          status: response.status,
          statusText: STATUS_CODES[response.status] ?? '',
          httpVersion: 'HTTP/1.1',
          cookies: [],
          headers: nameValues(response.headers),
          content: { size: Buffer.byteLength(response.body), mimeType: headerOf(response.headers, 'content-type') ?? '', text: response.body },
          redirectURL: headerOf(response.headers, 'location') ?? '',
          headersSize: -1,
          bodySize: Buffer.byteLength(response.body),
        }
      : {
          status: 0,
          statusText: '',
          httpVersion: '',
          cookies: [],
          headers: [],
          content: { size: 0, mimeType: '', text: '' },
          redirectURL: '',
          headersSize: -1,
          bodySize: -1,
          comment: `no answer: ${exchange.error ?? 'unknown error'}`,
          _error: exchange.error ?? 'unknown error',
        },
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: time, receive: 0 },
    comment: exchange.operationId,
  };
}

/**
 * The version of the package the suite ships in (its package.json, two folders up both from this
 * source file and from the bundled command, dist/conformance/cli.mjs), as the HAR's creator.
 */
export function packageVersion(): string {
  try {
    const json: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    return json !== null && typeof json === 'object' && 'version' in json ? String(json.version) : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The HAR document of a run; `version` is the creator's, the package's by default. */
export function renderHar(report: RunReport, version = packageVersion()): string {
  const har: Har = {
    log: {
      version: '1.2',
      creator: { name: 'pix-conformance', version },
      entries: (report.exchanges ?? []).map((e) => entry(e, report.startedAt)),
      comment: `Conformance run ${report.runId}, profile ${report.profile}, target ${report.target.baseUrl}${report.target.baseUrlAlt !== report.target.baseUrl ? ` + ${report.target.baseUrlAlt}` : ''}${report.stopped ? `; the run stopped before its end: ${report.stopped}` : ''}`,
    },
  };
  return `${JSON.stringify(har, null, 2)}\n`;
}
