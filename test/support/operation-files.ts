/**
 * The files an operation's addition takes part in, derived from the contract and the code (never
 * listed by hand): what docs/contributing.md's walks must name (test/guides/contributing.test.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { parse } from 'yaml';
import { loadBundledContract } from '../../lib/contract/bundled.js';
import { linkRole, listLinks } from '../../lib/contract/links.js';
import { planOperation, repoRoot } from '../../scripts/test-operation/plan.js';

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const rel = (file: string) => relative(repoRoot, file).split(sep).join('/');
const read = (file: string) => readFileSync(join(repoRoot, file), 'utf8');

function walkFiles(dir: string, keep: (file: string) => boolean): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    return entry.isDirectory() ? walkFiles(path, keep) : keep(path) ? [path] : [];
  });
}

/** Every `$ref` to another file under `node`, as repository paths (from `file`'s folder). */
function fileRefs(node: unknown, file: string, into: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const item of node) fileRefs(item, file, into);
  else if (node && typeof node === 'object')
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) {
        const target = rel(join(repoRoot, dirname(file), value.split('#')[0]!));
        if (!into.has(target)) {
          into.add(target);
          fileRefs(parse(read(target)), target, into);
        }
      } else fileRefs(value, file, into);
    }
  return into;
}

interface SourceOperation {
  operationId: string;
  pathFile: string;
  marked: boolean;
  /** The component files it reaches by `$ref`, transitively (its path's parameters included). */
  reaches: Set<string>;
}

/** Every operation of the contract's sources: its path file and the component files it reaches. */
function sourceOperations(): SourceOperation[] {
  return walkFiles('openapi/paths', (f) => f.endsWith('.yaml')).flatMap((pathFile) => {
    const item = parse(read(pathFile)) as Record<string, unknown>;
    return methods
      .filter((m) => item[m])
      .map((m) => {
        const op = item[m] as Record<string, unknown>;
        return {
          operationId: String(op.operationId),
          pathFile,
          marked: JSON.stringify(op).includes('"x-decision"') || JSON.stringify(op).includes('"x-decided"'),
          reaches: fileRefs([op, item.parameters ?? []], pathFile, new Set()),
        };
      });
  });
}

const wordIn = (text: string, word: string) => new RegExp(`(^|[^\\w$])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w$])`).test(text);

/** The block of `defineOperation('<id>', …)`: up to the next one, or the end of the list. */
function handlerBlock(source: string, operationId: string): string {
  const at = source.indexOf(`defineOperation('${operationId}'`);
  const next = source.indexOf('defineOperation(', at + 1);
  return source.slice(at, next < 0 ? undefined : next);
}

export interface Participants {
  /** Files an addition of this kind must change, by the contract and the code. */
  required: string[];
  /** What a file that takes part names: the operationId, `METHOD /path`, its store methods, the components it uses but those most operations use. */
  terms: string[];
  /** The contract's files it reaches by `$ref`. */
  reaches: string[];
  /** The modules the handler's file imports (its problems, paging or domain module). */
  handlerImports: string[];
}

export function participants(operationId: string): Participants {
  const contract = loadBundledContract();
  const ops = sourceOperations();
  const op = ops.find((o) => o.operationId === operationId);
  if (!op) throw new Error(`no path file defines ${operationId}`);
  const own = [...op.reaches].filter((file) => file.startsWith('openapi/components/') && !ops.some((o) => o !== op && o.reaches.has(file)));
  const linkedFrom = listLinks(contract)
    .filter((l) => l.target.operationId === operationId && ['read', 'list'].includes(linkRole(l)))
    .map((l) => ops.find((o) => o.operationId === l.source.operationId)!.pathFile);
  const plan = planOperation(operationId);
  const handler = read(plan.handlerFile);
  const block = handlerBlock(handler, operationId);
  const imports = [...handler.matchAll(/^import [^;]*? from '(\.[^']+)'/gm)].map((m) =>
    rel(join(repoRoot, dirname(plan.handlerFile), m[1]!.replace(/\.js$/, '.ts'))),
  );
  // The store methods the handler calls, itself or through the domain function it calls.
  const domainCalls = [...block.matchAll(/\b(\w+)\(deps\b/g)].map((m) => m[1]!);
  const domainSources = imports.filter((f) => f.startsWith('server/domain/') && existsSync(join(repoRoot, f))).map(read);
  const functionBody = (name: string) =>
    domainSources
      .map((s) => {
        const at = s.search(new RegExp(`export (async )?function ${name}\\b`));
        return at < 0 ? '' : s.slice(at, s.indexOf('\n}\n', at));
      })
      .join('\n');
  const storeMethods = [...new Set([block, ...domainCalls.map(functionBody)].flatMap((text) => [...text.matchAll(/\bstore\.(\w+)\(/g)].map((m) => m[1]!)))];
  const domainFiles = imports.filter(
    (f) => f.startsWith('server/domain/') && domainCalls.some((name) => new RegExp(`export (async )?function ${name}\\b`).test(read(f))),
  );
  const storeSources = walkFiles('server/store', (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  const storeFiles = storeSources.filter((file) => storeMethods.some((m) => new RegExp(`^\\s+(async\\s+)?${m}\\s*[(<]`, 'm').test(read(file))));
  // The statements those methods run (`sql.<name>`, in their bodies and the steps they call) and the files that hold them.
  const statements = statementsRun(storeMethods);
  const statementFiles = storeSources.filter((file) => statements.some((s) => new RegExp(`^\\s+${s}:\\s*q\\b`, 'm').test(read(file))));
  const storeTests = walkFiles('server/store', (f) => f.endsWith('/store.test.ts')).filter((f) => storeMethods.some((m) => wordIn(read(f), m)));
  const required = [
    op.pathFile,
    'openapi/openapi.yaml',
    ...own,
    ...linkedFrom,
    ...(op.marked ? ['openapi/DECISIONS.md'] : []),
    plan.handlerFile,
    ...domainFiles,
    plan.handlerFile.replace(/\.ts$/, '.test.ts'),
    ...storeFiles,
    ...statementFiles,
    ...storeTests,
  ];
  const { method, path } = plan.operation;
  // The components it uses but those most operations use (the shared error answers, the quota
  // headers); by name, its parameters, headers, answers and examples (a schema's name, `Name`, is a word of any file).
  const distinct = [...op.reaches].filter((file) => ops.filter((o) => o.reaches.has(file)).length < ops.length / 2);
  // A header it takes by name (`Idempotency-Key`): the layer that runs it names the header.
  const headers = distinct.flatMap((file) => {
    const parameter = parse(read(file)) as { in?: unknown; name?: unknown };
    return file.startsWith('openapi/components/parameters/') && parameter.in === 'header' && typeof parameter.name === 'string' ? [parameter.name] : [];
  });
  const terms = [
    operationId,
    `${method.toUpperCase()} ${path}`,
    ...storeMethods,
    ...statements,
    ...headers,
    ...distinct.filter((f) => !f.startsWith('openapi/components/schemas/')).map((f) => f.replace(/^.*\//, '').replace(/\.yaml$/, '')),
  ];
  return { required: [...new Set(required)].sort(), terms: [...new Set(terms)], reaches: [...op.reaches], handlerImports: imports };
}

/** The SQL store's statements (`sql.<name>`) that these methods run, in their bodies and in the functions they call there. */
function statementsRun(methods: readonly string[]): string[] {
  const source = read('server/store/sql/sql-store.ts');
  const bodyOf = (name: string) => {
    const at = source.search(new RegExp(`^\\s*(?:async |function\\*? |async function\\*? )?${name}\\s*[(<]`, 'm'));
    if (at < 0) return '';
    const end = source.slice(at).search(/\n\s*}\n/);
    return source.slice(at, end < 0 ? undefined : at + end);
  };
  const seen = new Set<string>();
  const statements = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const body = bodyOf(name);
    for (const m of body.matchAll(/\bsql\.(\w+)/g)) statements.add(m[1]!);
    for (const m of body.matchAll(/\b(\w+)\(/g)) if (m[1] !== name) visit(m[1]!);
  };
  for (const method of methods) visit(method);
  return [...statements];
}

/**
 * How a walk of the guide departs from what its operation takes part in: `missing`, files the
 * operation takes part in that the walk does not name; `strays`, files it names that take no part
 * (none of the operation's own names in them, not a contract file it reaches, not a module its
 * handler imports).
 */
export function walkDrift(named: readonly string[], operation: Participants): { missing: string[]; strays: string[] } {
  return {
    missing: operation.required.filter((file) => !named.includes(file)),
    strays: named.filter(
      (file) =>
        !operation.required.includes(file) &&
        !operation.reaches.includes(file) &&
        !operation.handlerImports.includes(file) &&
        !(existsSync(join(repoRoot, file)) && operation.terms.some((term) => wordIn(read(file), term))),
    ),
  };
}
