/**
 * Breaking changes of the contract against its last release (docs/contract.md, "Releases and
 * breaking changes"): `npm run lint:breaking` compares the bundled contract (generated/openapi.yaml)
 * with the highest `releases/openapi-<version>.yaml` and fails on every breaking change that
 * `releases/breaking-changes.yaml` does not acknowledge with a decision of openapi/DECISIONS.md.
 *
 * api-smart-diff classifies the changes (OpenAPI 3.0 and 3.1, following `$ref`s, with request and
 * response rules: a new required request field, a removed or narrowed request value, a removed
 * response field or a new response enum value break; their opposites do not). Two things it does
 * not judge are added here: webhooks (what the service sends is judged as a response), and the
 * base URL an operation is served on.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiCompare } from 'api-smart-diff';
import { parse } from 'yaml';
import {
  bundledContractPath,
  httpMethods,
  isJsonObject,
  type JsonObject,
  listOperations,
  operationServers,
  resolvePointer,
} from '../../lib/contract/bundled.js';
import { toPointer } from '../../lib/contract/pointer.js';
import { readDecisions } from '../../lib/contract/decisions.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const releasesDir = join(repoRoot, 'releases');
export const decisionsPath = join(repoRoot, 'openapi', 'DECISIONS.md');
export const acknowledgedFile = 'breaking-changes.yaml';

export interface BreakingChange {
  /** JSON Pointer into the contract (the released one for what was removed, the current one otherwise). */
  at: string;
  what: string;
}

export interface Acknowledgement {
  at: string;
  decision: string;
}

/** A webhook, judged as what the service sends: a path whose answer is the webhook's body and headers. */
const webhookPrefix = 'webhook ';

function asSentAnswers(doc: JsonObject): JsonObject {
  const webhooks = isJsonObject(doc.webhooks) ? doc.webhooks : {};
  const paths: JsonObject = { ...(isJsonObject(doc.paths) ? doc.paths : {}) };
  for (const [name, item] of Object.entries(webhooks)) {
    if (!isJsonObject(item)) continue;
    const answers: JsonObject = {};
    for (const method of httpMethods) {
      const op = item[method];
      if (!isJsonObject(op)) continue;
      const body = isJsonObject(op.requestBody) ? op.requestBody : {};
      const headers: JsonObject = {};
      for (const parameter of Array.isArray(op.parameters) ? op.parameters : []) {
        const resolved = isJsonObject(parameter) && typeof parameter.$ref === 'string' ? resolvePointer(doc, parameter.$ref.replace(/^#/, '')) : parameter;
        if (isJsonObject(resolved) && resolved.in === 'header' && typeof resolved.name === 'string')
          headers[resolved.name] = { schema: resolved.schema, required: resolved.required === true };
      }
      answers[method] = { responses: { '200': { description: 'sent', headers, content: body.content ?? {} } } };
    }
    paths[`${webhookPrefix}${name}`] = answers;
  }
  const { webhooks: _judgedAsPaths, ...rest } = doc;
  return { ...rest, paths };
}

function pointerOf(path: readonly (string | number)[]): string {
  const tokens = path.map(String);
  if (tokens[0] === 'paths' && tokens[1]?.startsWith(webhookPrefix)) {
    // Back to where the webhook is written: …/responses/200/content → …/requestBody/content.
    const [, key, method, , , ...rest] = tokens;
    const where = rest[0] === 'headers' ? ['parameters', ...rest.slice(1)] : ['requestBody', ...rest];
    return toPointer(['webhooks', key!.slice(webhookPrefix.length), method!, ...where]);
  }
  return toPointer(tokens);
}

/** The server URLs each operation is served on: its own, its path's, or the contract's (as lib/contract/bundled.ts reads them). */
function servedUrls(doc: JsonObject): Map<string, string[]> {
  return new Map(
    listOperations(doc).map((op) => [
      toPointer(['paths', op.path, op.method]),
      operationServers(doc, op)
        .map((server) => String(server.url))
        .sort(),
    ]),
  );
}

/** The breaking changes from `released` to `current`, each once, in contract order. */
export function breakingChanges(released: JsonObject, current: JsonObject): BreakingChange[] {
  // As plain trees: api-smart-diff takes an object met twice (a YAML alias) for a cycle.
  const plain = (doc: JsonObject) => JSON.parse(JSON.stringify(asSentAnswers(doc))) as JsonObject;
  const { diffs } = apiCompare(plain(released), plain(current));
  const found = new Map<string, BreakingChange>();
  for (const diff of diffs) {
    // Components are judged where operations use them (a request's schema and a response's differ).
    if (diff.type !== 'breaking' || diff.path[0] !== 'paths') continue;
    const at = pointerOf(diff.path);
    if (!found.has(at)) found.set(at, { at, what: `${diff.action}: ${diff.description ?? 'breaking change'}` });
  }
  const before = servedUrls(released);
  for (const [at, urls] of servedUrls(current)) {
    const was = before.get(at);
    if (was && was.join(' ') !== urls.join(' '))
      found.set(`${at}/servers`, { at: `${at}/servers`, what: `moved from ${was.join(', ')} to ${urls.join(', ')}` });
  }
  return [...found.values()];
}

/** Whether `acknowledged` covers `at`: the same pointer, or one above it. */
function covers(acknowledged: string, at: string): boolean {
  return at === acknowledged || at.startsWith(`${acknowledged}/`);
}

export interface Verdict {
  /** Breaking changes no acknowledgement covers. */
  unacknowledged: BreakingChange[];
  /** What is wrong with the acknowledgements themselves (an unknown decision, one that covers nothing, a stale `since`). */
  problems: string[];
  acknowledgedCount: number;
}

export function judge(changes: readonly BreakingChange[], acknowledgements: readonly Acknowledgement[], decisionIds: ReadonlySet<string>): Verdict {
  const problems: string[] = [];
  for (const { at, decision } of acknowledgements) {
    if (!decisionIds.has(decision)) problems.push(`${at}: acknowledged with ${decision}, which is not a decision of openapi/DECISIONS.md`);
    if (!changes.some((change) => covers(at, change.at))) problems.push(`${at}: acknowledged, but no breaking change is there (remove it)`);
  }
  const unacknowledged = changes.filter((change) => !acknowledgements.some(({ at }) => covers(at, change.at)));
  return { unacknowledged, problems, acknowledgedCount: changes.length - unacknowledged.length };
}

export interface Release {
  version: string;
  path: string;
}

const versionPattern = /^(\d+)\.(\d+)\.(\d+)$/;

export function compareVersions(a: string, b: string): number {
  const [x, y] = [versionPattern.exec(a), versionPattern.exec(b)];
  if (!x || !y) throw new Error(`versions are MAJOR.MINOR.PATCH: "${a}", "${b}"`);
  for (let i = 1; i <= 3; i++) if (Number(x[i]) !== Number(y[i])) return Number(x[i]) - Number(y[i]);
  return 0;
}

/** The contract's releases in `dir` (`openapi-<version>.yaml`), oldest first. */
export function releases(dir = releasesDir): Release[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((file) => ({ file, version: /^openapi-(\d+\.\d+\.\d+)\.yaml$/.exec(file)?.[1] }))
    .filter((r): r is { file: string; version: string } => r.version !== undefined)
    .map(({ file, version }) => ({ version, path: join(dir, file) }))
    .sort((a, b) => compareVersions(a.version, b.version));
}

export interface AcknowledgedFile {
  since: string;
  acknowledged: Acknowledgement[];
}

export function readAcknowledged(dir = releasesDir): AcknowledgedFile {
  const path = join(dir, acknowledgedFile);
  if (!existsSync(path)) return { since: '', acknowledged: [] };
  const parsed = parse(readFileSync(path, 'utf8')) as Partial<AcknowledgedFile> | null;
  const acknowledged = (parsed?.acknowledged ?? []).map((entry, i) => {
    if (!isJsonObject(entry) || typeof entry.at !== 'string' || typeof entry.decision !== 'string')
      throw new Error(`${path}: acknowledged[${i}] needs an "at" (a JSON Pointer) and a "decision" (Dnn)`);
    return { at: entry.at, decision: entry.decision };
  });
  return { since: String(parsed?.since ?? ''), acknowledged };
}

/** `npm run lint:breaking [-- --releases DIR] [--contract FILE]`: exit 1 on an unacknowledged breaking change. */
function main(argv: readonly string[]): number {
  const option = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const dir = option('--releases') ?? releasesDir;
  const contractPath = option('--contract') ?? bundledContractPath;
  const last = releases(dir).at(-1);
  if (!last) {
    console.warn(`NOTICE: no release of the contract in ${dir} yet: nothing to compare with (npm run contract:release makes the first).`);
    return 0;
  }
  const changes = breakingChanges(parse(readFileSync(last.path, 'utf8')), parse(readFileSync(contractPath, 'utf8')));
  const file = readAcknowledged(dir);
  const verdict = judge(changes, file.acknowledged, new Set(readDecisions(readFileSync(decisionsPath, 'utf8')).map((decision) => decision.id)));
  if (file.acknowledged.length > 0 && file.since !== last.version)
    verdict.problems.push(`${acknowledgedFile} acknowledges changes since ${file.since || 'no release'}, but the last release is ${last.version}`);
  for (const problem of verdict.problems) console.error(`releases/${acknowledgedFile}: ${problem}`);
  if (verdict.unacknowledged.length > 0) {
    console.error(`The contract breaks its release ${last.version} (${last.path}) in ${verdict.unacknowledged.length} place(s):`);
    for (const change of verdict.unacknowledged) console.error(`  ${change.at}\n    ${change.what}`);
    console.error(
      `A deliberate break is a decision: record it in openapi/DECISIONS.md and acknowledge each place in releases/${acknowledgedFile} (docs/contract.md, "Releases and breaking changes").`,
    );
  }
  if (verdict.problems.length > 0 || verdict.unacknowledged.length > 0) return 1;
  console.log(`Contract: no unacknowledged breaking change since release ${last.version} (${verdict.acknowledgedCount} acknowledged).`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
