/**
 * Why a `fetch` got no answer, as a kind of failure: Node's fetch (undici) throws a `TypeError`
 * ("fetch failed") whose `cause` holds the system error code (`ECONNREFUSED`, `ENOTFOUND`, a
 * certificate error …), or an `AggregateError` of one per address tried; a timeout is a
 * `TimeoutError` (AbortSignal.timeout). Each user of it words the kind for its own readers (the
 * webhook deliveries list, the conformance CLI); the codes that make each kind are here only.
 */
export type FetchFailureKind =
  /** The AbortSignal's timeout fired: nothing answered in time. */
  | 'timeout'
  /** Nothing listens on the port. */
  | 'refused'
  /** The name does not resolve. */
  | 'no-such-host'
  /** The resolver did not answer (or failed for now). */
  | 'dns-failed'
  /** The TCP connection was not set up in time. */
  | 'connect-timeout'
  /** No route to the host or its network. */
  | 'unreachable'
  /** The connection was closed (or reset) before an answer. */
  | 'closed'
  /** The TLS handshake failed (a certificate, or TLS spoken to a plain HTTP port). */
  | 'tls'
  /** Something answered that is not HTTP. */
  | 'not-http'
  /** A port fetch never connects to (the Fetch standard's "bad ports": 1, 25, 6000 …). */
  | 'blocked-port'
  | 'other';

export interface FetchFailure {
  kind: FetchFailureKind;
  /** The system or undici error code, when there is one. */
  code?: string;
  /** The innermost message (the cause's), e.g. `self-signed certificate`. */
  message?: string;
}

const byCode: Record<string, FetchFailureKind> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'no-such-host',
  EAI_AGAIN: 'dns-failed',
  EAI_FAIL: 'dns-failed',
  ETIMEDOUT: 'connect-timeout',
  UND_ERR_CONNECT_TIMEOUT: 'connect-timeout',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  ECONNRESET: 'closed',
  EPIPE: 'closed',
  UND_ERR_SOCKET: 'closed',
};

export function fetchFailure(thrown: unknown): FetchFailure {
  if (isNamed(thrown, 'TimeoutError')) return { kind: 'timeout' };
  const code = errorCode(thrown);
  const message = innermostMessage(thrown);
  const kind: FetchFailureKind =
    code === undefined
      ? message === 'bad port'
        ? 'blocked-port'
        : 'other'
      : (byCode[code] ?? (/TLS|SSL|CERT|UNABLE_TO_VERIFY|SELF_SIGNED/.test(code) ? 'tls' : code.startsWith('HPE_') ? 'not-http' : 'other'));
  return { kind, ...(code !== undefined ? { code } : {}), ...(message !== undefined ? { message } : {}) };
}

function isNamed(value: unknown, name: string): boolean {
  return typeof value === 'object' && value !== null && (value as { name?: unknown }).name === name;
}

/** The system error code of a fetch failure: on the error, its cause, or the first of an AggregateError. */
function errorCode(thrown: unknown, depth = 0): string | undefined {
  if (typeof thrown !== 'object' || thrown === null || depth > 4) return undefined;
  const { code, cause, errors } = thrown as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  const fromCause = errorCode(cause, depth + 1);
  if (fromCause !== undefined) return fromCause;
  return Array.isArray(errors) ? errorCode(errors[0], depth + 1) : undefined;
}

/** The message of the deepest cause (or first aggregated error), which says what went wrong. */
function innermostMessage(thrown: unknown, depth = 0): string | undefined {
  if (typeof thrown !== 'object' || thrown === null || depth > 4) return undefined;
  const { message, cause, errors } = thrown as { message?: unknown; cause?: unknown; errors?: unknown };
  const deeper = innermostMessage(cause, depth + 1) ?? (Array.isArray(errors) ? innermostMessage(errors[0], depth + 1) : undefined);
  return deeper ?? (typeof message === 'string' && message !== '' ? message : undefined);
}
