/**
 * The command line of `npm run conformance`: flags, their environment variables, defaults and
 * validation. Flags win over the environment; every problem is a one-line `UsageError` (the CLI then exits with code 2).
 */
import { parseArgs } from 'node:util';
import { listOperations, loadBundledContract, type JsonObject } from '../lib/contract/bundled.js';
import { UNROUTABLE_WEBHOOK_HOST } from './data/webhook-url.js';
import { type ConformanceOptions, defaultExamples, type Profile } from './engine/types.js';

/** Bad arguments: the message is one line, fit to print above the usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `--list-checks` was given: print every check and what it proves, exit 0. */
export class ListChecksRequested extends Error {
  override readonly name = 'ListChecksRequested';
}

/** `--help` was given: print the usage, exit 0. */
export class HelpRequested extends Error {
  override readonly name = 'HelpRequested';
}

export const profiles: readonly Profile[] = ['seed', 'reference'];
/**
 * `--profile own`: testing an implementation of your own. The `reference` profile (every decision
 * asserted), `--strict` (a check skipped for a missing flag fails the run), and both flags that
 * the strongest run needs asked for up front.
 */
export const ownProfile = 'own';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const MAX_EXAMPLES = 100;
export const MAX_TIMEOUT_MS = 120_000;
/**
 * The latency budget of `--profile own` when `--max-response-time` is not given: the suite's
 * choice, well above what the reference server takes under load (its slowest answers in a full
 * run are a few hundred milliseconds) and well below what a user would call slow.
 */
export const OWN_DEFAULT_RESPONSE_TIME_MS = 1_000;

/** Each option: its flag, its environment variable, and whether it takes a value. */
const spec = {
  'base-url': { env: 'CONFORMANCE_BASE_URL', type: 'string' },
  'base-url-alt': { env: 'CONFORMANCE_BASE_URL_ALT', type: 'string' },
  'api-key': { env: 'CONFORMANCE_API_KEY', type: 'string' },
  'second-api-key': { env: 'CONFORMANCE_SECOND_API_KEY', type: 'string' },
  profile: { env: 'CONFORMANCE_PROFILE', type: 'string' },
  strict: { env: 'CONFORMANCE_STRICT', type: 'boolean' },
  only: { env: 'CONFORMANCE_ONLY', type: 'string' },
  'read-only': { env: 'CONFORMANCE_READ_ONLY', type: 'boolean' },
  stateless: { env: 'CONFORMANCE_STATELESS', type: 'boolean' },
  production: { env: 'CONFORMANCE_PRODUCTION', type: 'boolean' },
  flood: { env: 'CONFORMANCE_FLOOD', type: 'boolean' },
  junit: { env: 'CONFORMANCE_JUNIT', type: 'string' },
  html: { env: 'CONFORMANCE_HTML', type: 'string' },
  har: { env: 'CONFORMANCE_HAR', type: 'string' },
  'run-id': { env: 'CONFORMANCE_RUN_ID', type: 'string' },
  'timeout-ms': { env: 'CONFORMANCE_TIMEOUT_MS', type: 'string' },
  'webhook-url': { env: 'CONFORMANCE_WEBHOOK_URL', type: 'string' },
  'webhook-receiver': { env: 'CONFORMANCE_WEBHOOK_RECEIVER', type: 'string' },
  seed: { env: 'CONFORMANCE_SEED', type: 'string' },
  examples: { env: 'CONFORMANCE_EXAMPLES', type: 'string' },
  'max-response-time': { env: 'CONFORMANCE_MAX_RESPONSE_TIME', type: 'string' },
} as const;

type Flag = keyof typeof spec;

/**
 * Both ways to give an option, as a message names them for the user to check: `--api-key /
 * CONFORMANCE_API_KEY`. A message cannot tell which one the user wrote (the engine sees the value
 * only), and naming the flag alone sends someone who set the variable looking for a flag they never used.
 */
export function flagAndVariable(flag: Flag): string {
  return `--${flag} / ${spec[flag].env}`;
}

export const usage = `Usage: pix-conformance --base-url URL [options]     (in a clone: npm run -s conformance -- …)

  Testing your own implementation (every check, every decision; skipped checks fail):
    CONFORMANCE_API_KEY=… CONFORMANCE_SECOND_API_KEY=… \\
      pix-conformance --profile own --base-url URL --webhook-receiver 127.0.0.1:8099
  Testing a service you do not own (the source document only; decisions are info):
    CONFORMANCE_API_KEY=… pix-conformance --base-url URL
  List what each check proves: pix-conformance --list-checks

Tests a deployment of the Pix payments API against the bundled contract. Give the keys as
CONFORMANCE_API_KEY and CONFORMANCE_SECOND_API_KEY, not as flags: a command line shows up in
CI logs (npm echoes it unless run with -s) and in ps.

  --base-url URL          {base_url} of the target (CONFORMANCE_BASE_URL)
  --base-url-alt URL      {base_url_alt}; default: the --base-url (CONFORMANCE_BASE_URL_ALT)
  --api-key KEY           X-API-KEY of one company (CONFORMANCE_API_KEY)
  --second-api-key KEY    another company's key, for tenant isolation (CONFORMANCE_SECOND_API_KEY)
  --profile seed|reference|own
                          seed (default): hold the target to the source document only, report
                          departures from the contract's decisions as info; reference: assert
                          the decisions too; own: reference with --strict and --flood, a
                          ${OWN_DEFAULT_RESPONSE_TIME_MS} ms --max-response-time unless given, and
                          --second-api-key and --webhook-receiver required (CONFORMANCE_PROFILE)
  --strict                checks that did not run for a missing flag (--second-api-key,
                          --webhook-receiver) fail the run (CONFORMANCE_STRICT=1)
  --only ID[,ID…]         only these operationIds (CONFORMANCE_ONLY)
  --read-only             send GET requests only (CONFORMANCE_READ_ONLY=1)
  --stateless             the target keeps no state, e.g. the mock (CONFORMANCE_STATELESS=1)
  --production            the target is a production deployment: check that webhook
                          registrations at internal addresses are refused (only registrations
                          are sent; one accepted is deleted at once) (CONFORMANCE_PRODUCTION=1)
  --flood                 send up to 300 requests with a wrong key and check they are limited
                          with 429 and a Retry-After (CONFORMANCE_FLOOD=1; on under --profile own)
  --junit FILE            write a JUnit XML report (CONFORMANCE_JUNIT)
  --html FILE             write a self-contained HTML report (CONFORMANCE_HTML)
  --har FILE              write every request of the run and its answer as a HAR 1.2 file,
                          keys masked (CONFORMANCE_HAR)
  --run-id ID             tag of the records the run creates; default random (CONFORMANCE_RUN_ID)
  --timeout-ms N          per-request timeout, 1-${MAX_TIMEOUT_MS}; default ${DEFAULT_TIMEOUT_MS} (CONFORMANCE_TIMEOUT_MS)
  --webhook-url URL       where the webhooks the run registers point; default
                          https://${UNROUTABLE_WEBHOOK_HOST}/RUN_ID, which never resolves
                          (CONFORMANCE_WEBHOOK_URL)
  --webhook-receiver [HOST:]PORT
                          receive the deliveries of a webhook the run registers on this address
                          (HOST default 127.0.0.1; the URL registered is http://HOST:PORT/RUN_ID)
                          and check them; without it the webhook checks are skipped
                          (CONFORMANCE_WEBHOOK_RECEIVER)
  --seed N                seed of the generated values (generated_values_kept); default random,
                          printed with every failure it finds (CONFORMANCE_SEED)
  --examples N            generated bodies per create, 1-${MAX_EXAMPLES}; default ${defaultExamples}
                          (CONFORMANCE_EXAMPLES)
  --max-response-time MS  fail every answer slower than MS milliseconds, naming the operation
                          and the time (response_time); per-operation p50/p95/max are printed
                          and reported either way; default: none, ${OWN_DEFAULT_RESPONSE_TIME_MS} with
                          --profile own (CONFORMANCE_MAX_RESPONSE_TIME)
  --list-checks           print every check and what it proves, then exit
  --help                  this text

Exit codes: 0 nothing failed; 1 a check failed; 2 bad arguments, a wrong target (no answer, a
wrong base path, a refused key, no state kept without --stateless) or a flag's checks not run.`;

/** A command-line value shown in a message: long ones (keys typed in the wrong place) are cut. */
function shown(value: string): string {
  return JSON.stringify(value.length > 16 ? `${value.slice(0, 8)}…` : value);
}

/** The flags as parsed, without interpretation; parseArgs' multi-line errors become one line. */
function parseFlags(argv: string[]): Partial<Record<Flag | 'help' | 'list-checks', string | boolean | string[]>> {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = { help: { type: 'boolean' }, 'list-checks': { type: 'boolean' } };
  for (const [flag, { type }] of Object.entries(spec)) options[flag] = flag === 'only' ? { type, multiple: true } : { type };
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as Partial<
      Record<Flag | 'help' | 'list-checks', string | boolean | string[]>
    >;
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const flag = /'(-{1,2}[^' <]+)/.exec(message)?.[1] ?? 'an option';
    switch (code) {
      case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
        throw new UsageError(`unknown option ${flag}`);
      case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
        throw new UsageError(`unexpected argument ${shown(/'([^']*)'/.exec(message)?.[1] ?? '')}`);
      case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
        throw new UsageError(
          message.includes('does not take an argument') ? `${flag} takes no value` : `${flag} needs a value (write ${flag}=VALUE for one starting with "-")`,
        );
      default:
        throw new UsageError(message.split('\n')[0] ?? message);
    }
  }
}

/** A value and where it came from, so that messages name the flag or the variable the user wrote. */
interface Source<T> {
  value: T;
  from: string;
}

/**
 * The run's options from the command line and the environment (flags win). Throws
 * `HelpRequested` for `--help` and `UsageError` for every problem.
 */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv, contract: JsonObject = loadBundledContract()): ConformanceOptions {
  const flags = parseFlags(argv);
  if (flags.help) throw new HelpRequested('help');
  if (flags['list-checks']) throw new ListChecksRequested('list-checks');

  const text = (flag: Flag): Source<string> | undefined => {
    const value = flags[flag];
    if (Array.isArray(value)) return { value: value.join(','), from: `--${flag}` };
    if (typeof value === 'string') return { value, from: `--${flag}` };
    const fromEnv = env[spec[flag].env];
    return fromEnv === undefined ? undefined : { value: fromEnv, from: spec[flag].env };
  };
  const bool = (flag: Flag): boolean => {
    if (flags[flag] === true) return true;
    const name = spec[flag].env;
    const value = env[name]?.trim().toLowerCase();
    if (value === undefined || ['', '0', 'false', 'no'].includes(value)) return false;
    if (['1', 'true', 'yes'].includes(value)) return true;
    throw new UsageError(`${name} must be 1 or 0, got ${shown(env[name]!)}`);
  };

  const baseUrl = baseUrlOf(text('base-url'), '--base-url URL or CONFORMANCE_BASE_URL');
  const baseUrlAlt = text('base-url-alt') ? baseUrlOf(text('base-url-alt'), '') : baseUrl;

  const apiKey = text('api-key');
  if (!apiKey) throw new UsageError('an API key is required: --api-key KEY or CONFORMANCE_API_KEY');
  if (apiKey.value.trim() === '') throw new UsageError(`${apiKey.from} is empty`);
  const secondApiKey = text('second-api-key');
  if (secondApiKey && secondApiKey.value.trim() === '') throw new UsageError(`${secondApiKey.from} is empty`);
  if (secondApiKey && secondApiKey.value === apiKey.value)
    throw new UsageError(`${secondApiKey.from} must be another company's key, not the same as ${apiKey.from}`);

  const given = text('profile') ?? { value: 'seed', from: '' };
  const own = given.value === ownProfile;
  const profile = own ? { value: 'reference', from: given.from } : given;
  if (!(profiles as readonly string[]).includes(profile.value))
    throw new UsageError(`${profile.from} must be ${profiles.join(', ')} or ${ownProfile}, got ${shown(profile.value)}`);
  if (own && !secondApiKey)
    throw new UsageError(`${given.from} ${ownProfile} needs another company's key for tenant isolation: --second-api-key KEY or CONFORMANCE_SECOND_API_KEY`);
  if (own && !text('webhook-receiver'))
    throw new UsageError(
      `${given.from} ${ownProfile} needs an address where the suite receives the webhooks it registers: --webhook-receiver [HOST:]PORT or CONFORMANCE_WEBHOOK_RECEIVER (e.g. 127.0.0.1:8099, reachable from the service)`,
    );

  const options: ConformanceOptions = {
    baseUrl,
    baseUrlAlt,
    apiKey: apiKey.value,
    profile: profile.value as Profile,
    readOnly: bool('read-only'),
    stateless: bool('stateless'),
    timeoutMs: timeoutOf(text('timeout-ms')),
  };
  if (secondApiKey) options.secondApiKey = secondApiKey.value;
  if (bool('production')) options.production = true;
  if (own || bool('strict')) options.strict = true;
  // Your own service's limits are yours to flood: the own profile runs every check.
  if (own || bool('flood')) options.flood = true;
  const only = text('only');
  if (only) options.only = onlyOf(only, contract);
  for (const flag of ['junit', 'html', 'har'] as const) {
    const file = text(flag);
    if (!file) continue;
    if (file.value.trim() === '') throw new UsageError(`${file.from} needs a file name`);
    options[flag] = file.value;
  }
  const webhookUrl = text('webhook-url');
  if (webhookUrl) options.webhookUrl = webhookUrlOf(webhookUrl);
  const runId = text('run-id');
  if (runId) {
    // It goes into names, external ids and idempotency keys of the records the run creates:
    // a short, URL- and header-safe tag.
    if (!/^[A-Za-z0-9_-]{1,40}$/.test(runId.value)) throw new UsageError(`${runId.from} must be 1-40 letters, digits, "-" or "_", got ${shown(runId.value)}`);
    options.runId = runId.value;
  }
  const receiver = text('webhook-receiver');
  if (receiver) options.webhookReceiver = receiverOf(receiver);
  const seed = text('seed');
  if (seed) options.seed = wholeNumberOf(seed, 0, 2 ** 31 - 1, 'a whole number');
  const examples = text('examples');
  if (examples) options.examples = wholeNumberOf(examples, 1, MAX_EXAMPLES, 'a whole number of bodies');
  const budget = text('max-response-time');
  if (budget) options.maxResponseTimeMs = wholeNumberOf(budget, 1, MAX_TIMEOUT_MS, 'a whole number of milliseconds');
  else if (own) {
    options.maxResponseTimeMs = OWN_DEFAULT_RESPONSE_TIME_MS;
    options.maxResponseTimeDefault = true;
  }
  return options;
}

/** `[HOST:]PORT`; an IPv6 host is written in brackets (`[::1]:8080`), as in a URL. */
function receiverOf(source: Source<string>): { host: string; port: number } {
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(source.value.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65_535) throw new UsageError(`${source.from} must be [HOST:]PORT with a port from 0 to 65535, got ${shown(source.value)}`);
  return { host: match[1] ?? '127.0.0.1', port };
}

/** The value as an absolute http(s) URL, or a usage error naming where it came from. */
function httpUrlOf(source: Source<string>): URL {
  let url: URL | undefined;
  try {
    url = new URL(source.value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
    throw new UsageError(`${source.from} must be an absolute http(s) URL, got ${shown(source.value)}`);
  return url;
}

function baseUrlOf(source: Source<string> | undefined, whereToGiveIt: string): string {
  if (!source) throw new UsageError(`a base URL is required: ${whereToGiveIt}`);
  const url = httpUrlOf(source);
  if (url.search || url.hash) throw new UsageError(`${source.from} must have no query or fragment, got ${shown(source.value)}`);
  if (url.username || url.password) throw new UsageError(`${source.from} must carry no credentials`);
  return source.value.replace(/\/+$/, '');
}

function webhookUrlOf(source: Source<string>): string {
  httpUrlOf(source);
  return source.value;
}

function timeoutOf(source: Source<string> | undefined): number {
  if (!source) return DEFAULT_TIMEOUT_MS;
  const value = source.value.trim();
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_TIMEOUT_MS)
    throw new UsageError(`${source.from} must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${shown(source.value)}`);
  return n;
}

function wholeNumberOf(source: Source<string>, min: number, max: number, what: string): number {
  const value = source.value.trim();
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`${source.from} must be ${what} from ${min} to ${max}, got ${shown(source.value)}`);
  return n;
}

function onlyOf(source: Source<string>, contract: JsonObject): string[] {
  const valid = listOperations(contract).map((op) => op.operationId);
  const ids = [
    ...new Set(
      source.value
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
  ];
  if (ids.length === 0) throw new UsageError(`${source.from} names no operation; valid: ${valid.join(', ')}`);
  const unknown = ids.filter((id) => !valid.includes(id));
  if (unknown.length > 0) throw new UsageError(`${source.from}: unknown operationId ${unknown.map(shown).join(', ')}; valid: ${valid.join(', ')}`);
  return ids;
}
