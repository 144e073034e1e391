/**
 * What judges one operation (`npm run test:operation -- <operationId>`), derived from the
 * contract and the code, never listed by hand:
 * - the operation: its method and path, from the bundled contract;
 * - its handler: the `defineOperation('<operationId>', …)` in `server/routes/<resource>.ts`, and
 *   the store methods that handler calls (`store.<method>(`);
 * - its tests: the server test files with a test or group named after it, `<METHOD> <path>`
 *   (`POST /client`, not `POST /client/{id}`), its operationId or one of those store methods,
 *   and only those tests in them (vitest's `-t`);
 * - the conformance checks of the operation and of the creates whose links read or list it (the
 *   engine's `only`): a read's read-back is judged on the create that made the record;
 * - the operation-wide tests: every test file that enumerates the contract's operations, lists
 *   or decisions (tenant isolation, the validators' walks, the decisions' marks, the docs'
 *   samples…), which a new operation can break without any test being named after it. A file is
 *   one when its header says so with the marker `@operation-wide` (found by a walk of the test
 *   folders, never listed here). A file that walks the contract and is too slow for the loop says
 *   `@full-run-only` and why instead; a test fails any file that walks it and says neither.
 *   In them the loop runs the operation's rows: every test but those whose names name other
 *   operations of the contract and none of its scope (`widePattern`), and the tests that walk
 *   every operation inside one test walk its scope (`TEST_OPERATION_SCOPE`, scope.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ContractOperation, isJsonObject, type JsonObject, listOperations, loadBundledContract } from '../../lib/contract/bundled.js';
import { linkRole, listLinks } from '../../lib/contract/links.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface OperationPlan {
  operation: ContractOperation;
  /** The file of its handler, from the repository root. */
  handlerFile: string;
  /** The store methods its handler calls. */
  storeMethods: string[];
  /** The test files with a test named after it, from the repository root, sorted. */
  testFiles: string[];
  /** vitest's `-t`: the tests named after it. */
  namePattern: string;
  /** The operations whose links read or list it (`createClient` for `getClient`): their checks read it back. */
  linkedFrom: string[];
  /** The operation-wide test files (marked `@operation-wide`), from the repository root, sorted. */
  wideTestFiles: string[];
  /** The operations the loop judges: it, and the creates whose links read or list it. */
  scope: string[];
  /**
   * vitest's `-t` for the operation-wide files: a test runs unless its name names an operation
   * of the contract outside the scope and none inside it (its rows for other operations); empty
   * when the contract has no other operation.
   */
  widePattern: string;
}

/** The folders whose `*.test.ts` files vitest runs (vitest.config.ts). */
export const testFolders = ['test', 'server', 'conformance', 'lib', 'scripts', 'client', 'examples'] as const;

/** The marker, in a test file's opening comment, of a test that enumerates operations, lists or decisions. */
export const operationWideMarker = '@operation-wide';

/**
 * The marker, in a test file's opening comment, of a test that enumerates them but is left to
 * `npm test` (it needs a browser, or runs whole deployments or the loop itself), with the reason.
 */
export const fullRunOnlyMarker = '@full-run-only';

/**
 * A call that walks the whole contract (its operations, links, lists, decisions, servers or id
 * kinds), or a conformance check or run over every operation (`ctx.operations`, `<name>Check.run(`,
 * `runInProcess(`): a test file making one can be broken by a new operation with no test named
 * after it.
 */
export const enumeratesContract =
  /\b(?:listOperations|listLinks|listLists|listPagedLists|readDecisions|parseDecisions|idempotentOperations|takesIdempotencyKey|idKinds|allServers|operationServers|runInProcess)\(|\bctx\.operations\b|\b\w+Check\.run\(/;

/** Each test file under the test folders, from the repository root, with its opening comment (before the first import). */
function testHeaders(root: string): { file: string; source: string; header: string }[] {
  return testFolders
    .flatMap((folder) => (existsSync(join(root, folder)) ? listTests(join(root, folder)) : []))
    .map((file) => {
      const source = readFileSync(file, 'utf8');
      return { file: relative(root, file).split(sep).join('/'), source, header: source.slice(0, Math.max(0, source.search(/^import /m))) };
    })
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** The test files marked `@operation-wide` (in their opening comment, before the first import). */
export function operationWideTests(root = repoRoot): string[] {
  return testHeaders(root)
    .filter(({ header }) => header.includes(operationWideMarker))
    .map(({ file }) => file);
}

/** The test files that walk the whole contract and whose opening comment says neither `@operation-wide` nor `@full-run-only`. */
export function unmarkedContractWalkers(root = repoRoot): string[] {
  return testHeaders(root)
    .filter(({ source, header }) => enumeratesContract.test(source) && !header.includes(operationWideMarker) && !header.includes(fullRunOnlyMarker))
    .map(({ file }) => file);
}

export class UnknownOperationError extends Error {}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The names a test of this operation carries in any test: `POST /client` (not followed by more path) or its operationId. */
function operationNamed(op: Pick<ContractOperation, 'method' | 'path' | 'operationId'>): string[] {
  return [`${op.method.toUpperCase()} ${escapeRegExp(op.path)}(?![\\w/{-])`, `\\b${escapeRegExp(op.operationId)}\\b`];
}

/** The names a test of the operation carries: `POST /client` (not followed by more path), its operationId, its store methods. */
export function namePatternFor(op: Pick<ContractOperation, 'method' | 'path' | 'operationId'>, storeMethods: readonly string[]): string {
  const methods = [...new Set(storeMethods)].filter((word) => word !== op.operationId).map((word) => `\\b${escapeRegExp(word)}\\b`);
  return `(${[...operationNamed(op), ...methods].join('|')})`;
}

/**
 * The `-t` of the operation-wide files for a scope: a test whose name names no operation of the
 * contract, or one of the scope's; not one that names only operations outside it.
 */
export function widePatternFor(operations: readonly Pick<ContractOperation, 'method' | 'path' | 'operationId'>[], scope: readonly string[]): string {
  const others = operations.filter((op) => !scope.includes(op.operationId)).flatMap(operationNamed);
  if (others.length === 0) return '';
  const mine = operations.filter((op) => scope.includes(op.operationId)).flatMap(operationNamed);
  return [`^(?![\\s\\S]*(?:${others.join('|')}))`, ...mine].join('|');
}

/**
 * The titles of a test file's groups and tests: string literals given to describe/test/it, and
 * the names of the rows of a table given inline to `.each` (`test.each([['getClient', …], …])('%s …')`),
 * which `%s` puts in the titles.
 */
export function testTitles(source: string): string[] {
  const call = /\b(?:describe|test|it)(?:\.(?:each|skip|only|concurrent|sequential|todo)(?:<[^>]*>)?(?:\([^)]*\))?)*\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g;
  return [...new Set([...[...source.matchAll(call)].map((m) => m[2]!), ...eachTables(source)])];
}

/** A string literal (sticky: where lastIndex is), and a row's first element: a string literal then a comma. */
const literal = /(['"`])(?:\\.|(?!\1)[^\\])*\1/y;
const rowName = /\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1\s*,/y;
const titleAfter = /\s*\)\s*\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/y;

/**
 * The tables given inline to `describe/test/it.each` (`[['name', …], …]`): the title given after
 * each, then the first string of each of its rows.
 */
function eachTables(source: string): string[] {
  const names: string[] = [];
  for (const m of source.matchAll(/\b(?:describe|test|it)(?:\.\w+)*\.each(?:<[^\n]*?>)?\(\s*\[/g)) {
    // Walk the table to its closing bracket, over strings; a `[` directly inside it opens a row.
    const rows: string[] = [];
    let depth = 1;
    let i = m.index + m[0].length;
    for (; i < source.length && depth > 0; i++) {
      const c = source[i]!;
      if (c === "'" || c === '"' || c === '`') {
        literal.lastIndex = i;
        if (literal.test(source)) i = literal.lastIndex - 1;
      } else if (c === '[' || c === '{' || c === '(') {
        rowName.lastIndex = i + 1;
        const name = depth === 1 && c === '[' ? rowName.exec(source) : null;
        if (name) rows.push(name[2]!);
        depth++;
      } else if (c === ']' || c === '}' || c === ')') depth--;
    }
    titleAfter.lastIndex = i;
    const title = titleAfter.exec(source);
    names.push(...(title ? [title[2]!] : []), ...rows);
  }
  return names;
}

function listTests(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) out.push(...listTests(full));
    } else if (entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

/** The block of `defineOperation('<id>', …)` in a routes file: up to the next defineOperation, or the end. */
function handlerBlock(source: string, operationId: string): string | undefined {
  const start = source.search(new RegExp(`defineOperation\\(\\s*['"\`]${escapeRegExp(operationId)}['"\`]`));
  if (start < 0) return undefined;
  const next = source.indexOf('defineOperation(', start + 1);
  return source.slice(start, next < 0 ? undefined : next);
}

export function planOperation(operationId: string, contract: JsonObject = loadBundledContract(), root = repoRoot): OperationPlan {
  const operations = listOperations(contract);
  const operation = operations.find((op) => op.operationId === operationId);
  if (!operation) {
    const webhooks = Object.values(isJsonObject(contract.webhooks) ? contract.webhooks : {}).flatMap((item) =>
      Object.values(isJsonObject(item) ? item : {}).flatMap((op) => (isJsonObject(op) && typeof op.operationId === 'string' ? [op.operationId] : [])),
    );
    const sent = webhooks.includes(operationId) ? ` ${operationId} is a webhook the service sends, not an operation it serves.` : '';
    throw new UnknownOperationError(
      `"${operationId}" is not an operation of the contract.${sent} The operations (operationId: method path):\n${operations
        .map((op) => `  ${op.operationId}: ${op.method.toUpperCase()} ${op.path}`)
        .join('\n')}`,
    );
  }

  const routes = join(root, 'server', 'routes');
  let handlerFile: string | undefined;
  let storeMethods: string[] = [];
  for (const file of readdirSync(routes).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const block = handlerBlock(readFileSync(join(routes, file), 'utf8'), operationId);
    if (block === undefined) continue;
    handlerFile = join(routes, file);
    // Its own calls, and those of the domain functions it hands its dependencies or the store to
    // (`createCharge(deps, …)`, `readList(deps.store, …)`), and of those they hand them to in turn.
    const bodies = [block];
    const followed = new Set<string>();
    for (let i = 0; i < bodies.length; i++) {
      for (const [, name] of bodies[i]!.matchAll(/\b(\w+)\((?:deps|store)\b/g)) {
        if (followed.has(name!)) continue;
        followed.add(name!);
        const text = domainFunction(root, name!);
        if (text) bodies.push(text);
      }
    }
    storeMethods = [...new Set(bodies.flatMap((text) => [...text.matchAll(/\bstore\.(\w+)\(/g)].map((m) => m[1]!)))].sort();
    break;
  }
  if (!handlerFile)
    throw new UnknownOperationError(
      `${operationId} (${operation.method.toUpperCase()} ${operation.path}) has no handler: add defineOperation('${operationId}', …) to its resource's file in server/routes/.`,
    );

  const namePattern = namePatternFor(operation, storeMethods);
  const named = new RegExp(namePattern);
  const testFiles = listTests(join(root, 'server'))
    .filter((file) => testTitles(readFileSync(file, 'utf8')).some((title) => named.test(title)))
    .map((file) => relative(root, file).split(sep).join('/'))
    .sort();
  const linkedFrom = [
    ...new Set(
      listLinks(contract)
        .filter((link) => link.target.operationId === operationId && link.source.operationId !== operationId)
        .filter((link) => linkRole(link) === 'read' || linkRole(link) === 'list')
        .map((link) => link.source.operationId),
    ),
  ];
  const wideTestFiles = operationWideTests(root);
  const scope = [operationId, ...linkedFrom];
  return {
    operation,
    handlerFile: relative(root, handlerFile).split(sep).join('/'),
    storeMethods,
    // A file run whole is not run again filtered.
    testFiles: testFiles.filter((file) => !wideTestFiles.includes(file)),
    namePattern,
    linkedFrom,
    wideTestFiles,
    scope,
    widePattern: widePatternFor(operations, scope),
  };
}

/** The resource test file beside the handler (`server/routes/clients.ts` → `clients.test.ts`), when it exists. */
export function resourceTestFile(plan: OperationPlan, root = repoRoot): string | undefined {
  const file = plan.handlerFile.replace(/\.ts$/, '.test.ts');
  return existsSync(join(root, file)) ? file : undefined;
}

/** The text of the function `name` of server/domain/ (exported or the module's own), or '' when none has it. */
function domainFunction(root: string, name: string): string {
  const domain = join(root, 'server', 'domain');
  for (const file of readdirSync(domain).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const source = readFileSync(join(domain, file), 'utf8');
    const at = source.search(new RegExp(`^(export )?(async )?function ${name}\\b`, 'm'));
    if (at >= 0) return source.slice(at, source.indexOf('\n}\n', at));
  }
  return '';
}
