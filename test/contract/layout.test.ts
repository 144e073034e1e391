/**
 * Layout of the source contract (Redocly openapi-starter) and the rules every
 * operation of the bundled contract follows.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { isDeepStrictEqual } from 'node:util';
import { httpMethods, listOperations, operationServers, resolvePointer, type ContractOperation } from '../../lib/contract/bundled.js';
import { follow, isObject, loadContract, openapiDir, rootDocumentPath, type JsonObject } from './support.js';

const componentKinds = ['schemas', 'parameters', 'responses', 'headers', 'examples', 'requestBodies'] as const;
const rootKeys = new Set(['openapi', 'info', 'servers', 'tags', 'security', 'components', 'paths', 'webhooks']);
const serverVariables = new Set(['base_url', 'base_url_alt']);

// ---------------------------------------------------------------------------
// Rules
// ---------------------------------------------------------------------------

/** `/charge/{id}` → `paths/charge_{id}.yaml`. */
function expectedPathFile(path: string): string {
  return `paths/${path.replace(/^\//, '').replace(/\//g, '_')}.yaml`;
}

function normalizeRef(ref: string): string {
  return posix.normalize(ref);
}

/** Names of the security schemes that are an apiKey in the `X-API-KEY` header. */
function apiKeySchemeNames(doc: JsonObject): string[] {
  const components = isObject(doc.components) ? doc.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  return Object.entries(schemes)
    .filter(
      ([, scheme]) =>
        isObject(scheme) && scheme.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string' && scheme.name.toLowerCase() === 'x-api-key',
    )
    .map(([name]) => name);
}

/** Violations of the root document's shape (`openapi/openapi.yaml` as written). */
function rootDocumentViolations(root: JsonObject): string[] {
  const violations: string[] = [];
  for (const key of Object.keys(root)) {
    if (!rootKeys.has(key)) violations.push(`root key "${key}" is not allowed (only ${[...rootKeys].join(', ')})`);
  }
  if (!isObject(root.paths) || Object.keys(root.paths).length === 0) {
    violations.push('paths: missing or empty');
  } else {
    for (const [path, item] of Object.entries(root.paths)) {
      const want = expectedPathFile(path);
      if (!isObject(item) || Object.keys(item).length !== 1 || typeof item.$ref !== 'string') {
        violations.push(`paths["${path}"] must be exactly { $ref: ${want} }, found ${JSON.stringify(item)}`);
      } else if (normalizeRef(item.$ref) !== want) {
        violations.push(`paths["${path}"] refers to ${item.$ref}, want ${want}`);
      }
    }
  }
  // Each base URL is described once, in servers/<variable>.yaml; the root names the one most operations live on.
  if (!Array.isArray(root.servers) || root.servers.length === 0) {
    violations.push('servers: missing or empty (the base URL most operations live on, as { $ref: servers/<variable>.yaml })');
  } else {
    for (const [index, server] of root.servers.entries()) {
      if (!isObject(server) || Object.keys(server).length !== 1 || typeof server.$ref !== 'string' || !/^servers\/\w+\.yaml$/.test(normalizeRef(server.$ref))) {
        violations.push(`servers[${index}] must be exactly { $ref: servers/<variable>.yaml }, found ${JSON.stringify(server)}`);
      }
    }
  }
  // Webhooks (OpenAPI 3.1) are wired like paths: one file per webhook, named after it.
  for (const [name, item] of Object.entries(isObject(root.webhooks) ? root.webhooks : {})) {
    const want = `webhooks/${name}.yaml`;
    if (!isObject(item) || Object.keys(item).length !== 1 || typeof item.$ref !== 'string' || normalizeRef(item.$ref) !== want) {
      violations.push(`webhooks["${name}"] must be exactly { $ref: ${want} }, found ${JSON.stringify(item)}`);
    }
  }
  if (root.components !== undefined) {
    if (!isObject(root.components)) {
      violations.push('components must be a mapping');
    } else {
      for (const [kind, entries] of Object.entries(root.components)) {
        if (kind === 'securitySchemes') continue;
        if (!(componentKinds as readonly string[]).includes(kind)) {
          violations.push(`components.${kind} is not allowed in the root document`);
          continue;
        }
        for (const [name, entry] of Object.entries(isObject(entries) ? entries : {})) {
          const want = `components/${kind}/${name}.yaml`;
          if (!isObject(entry) || Object.keys(entry).length !== 1 || typeof entry.$ref !== 'string' || normalizeRef(entry.$ref) !== want) {
            violations.push(`components.${kind}.${name} is defined inline in the root document (only { $ref: ${want} } is allowed)`);
          }
        }
      }
    }
  }
  return violations;
}

/** Violations of where files may live, given paths relative to openapi/ (posix separators). */
function fileLayoutViolations(files: readonly string[]): string[] {
  const violations: string[] = [];
  const componentFile = new RegExp(`^components/(${componentKinds.join('|')})/[A-Za-z0-9._-]+\\.yaml$`);
  for (const file of files) {
    if (file.startsWith('paths/') && !/^paths\/[^/]+\.yaml$/.test(file)) {
      violations.push(`${file}: path files live directly in paths/ and end in .yaml`);
    }
    if (file.startsWith('webhooks/') && !/^webhooks\/[^/]+\.yaml$/.test(file)) {
      violations.push(`${file}: webhook files live directly in webhooks/ and end in .yaml`);
    }
    if (file.startsWith('servers/') && !/^servers\/\w+\.yaml$/.test(file)) {
      violations.push(`${file}: server files are servers/<variable>.yaml`);
    }
    if (file.startsWith('components/') && !componentFile.test(file)) {
      violations.push(`${file}: component files are components/<${componentKinds.join('|')}>/<Name>.yaml`);
    }
  }
  return violations;
}

type SourceTree = ReadonlyMap<string, unknown>;

/**
 * Follows every `$ref` from openapi.yaml through the source files. Returns the
 * files reached and the references that do not resolve.
 */
function referenceGraph(tree: SourceTree, entry = 'openapi.yaml'): { reachable: Set<string>; violations: string[] } {
  const reachable = new Set<string>();
  const violations: string[] = [];
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (reachable.has(file)) continue;
    reachable.add(file);
    const content = tree.get(file);
    const refs: Array<{ ref: string; at: string }> = [];
    collectRefs(content, '', refs);
    for (const { ref, at } of refs) {
      const hash = ref.indexOf('#');
      const filePart = hash === -1 ? ref : ref.slice(0, hash);
      const fragment = hash === -1 ? undefined : decodeURIComponent(ref.slice(hash + 1));
      let target = file;
      if (filePart !== '') {
        if (/^[a-z][a-z0-9+.-]*:/i.test(filePart)) {
          violations.push(`${file}#${at}: $ref ${ref} is not a relative file reference`);
          continue;
        }
        target = posix.normalize(posix.join(posix.dirname(file), filePart));
        if (target.startsWith('../')) {
          violations.push(`${file}#${at}: $ref ${ref} points outside openapi/`);
          continue;
        }
        if (!tree.has(target)) {
          violations.push(`${file}#${at}: $ref ${ref} points to ${target}, which does not exist`);
          continue;
        }
        queue.push(target);
      }
      if (fragment !== undefined && fragment !== '' && resolvePointer(tree.get(target), fragment) === undefined) {
        violations.push(`${file}#${at}: $ref ${ref} does not resolve inside ${target}`);
      }
    }
  }
  return { reachable, violations };
}

function collectRefs(value: unknown, pointer: string, out: Array<{ ref: string; at: string }>): void {
  if (Array.isArray(value))
    value.forEach((v, i) => {
      collectRefs(v, `${pointer}/${i}`, out);
    });
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push({ ref: v, at: pointer });
      else collectRefs(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
    }
  }
}

/** Files under paths/, servers/ and components/ that no `$ref` reaches. */
function unreferencedFiles(files: readonly string[], reachable: ReadonlySet<string>): string[] {
  return files.filter((f) => /^(paths|servers|components)\//.test(f) && !reachable.has(f));
}

/** A file servers/<variable>.yaml describes the server `{<variable>}` and gives the variable a default. */
function serverFileViolations(tree: SourceTree): string[] {
  const violations: string[] = [];
  for (const [file, server] of tree) {
    const variable = /^servers\/(\w+)\.yaml$/.exec(file)?.[1];
    if (variable === undefined) continue;
    if (!isObject(server) || server.url !== `{${variable}}`)
      violations.push(`${file}: url must be "{${variable}}", found ${JSON.stringify(isObject(server) ? server.url : server)}`);
    const declared = isObject(server) && isObject(server.variables) ? server.variables[variable] : undefined;
    if (!isObject(declared) || typeof declared.default !== 'string') violations.push(`${file}: variable ${variable} is not declared with a default`);
  }
  return violations;
}

/**
 * The bundle names each component after its file: the set of
 * `#/components/<kind>/<Name>` equals the set of `components/<kind>/<Name>.yaml`.
 */
function componentNamingViolations(files: readonly string[], bundled: JsonObject): string[] {
  const violations: string[] = [];
  const components = isObject(bundled.components) ? bundled.components : {};
  for (const kind of Object.keys(components)) {
    if (kind !== 'securitySchemes' && !(componentKinds as readonly string[]).includes(kind)) {
      violations.push(`bundled #/components/${kind} is not one of the allowed kinds`);
    }
  }
  for (const kind of componentKinds) {
    const fromFiles = new Set(files.filter((f) => f.startsWith(`components/${kind}/`)).map((f) => posix.basename(f, '.yaml')));
    const bundledNames = new Set(Object.keys(isObject(components[kind]) ? components[kind] : {}));
    for (const name of fromFiles) {
      if (!bundledNames.has(name))
        violations.push(`components/${kind}/${name}.yaml is not bundled as #/components/${kind}/${name} (unreferenced, or referenced as another kind or name)`);
    }
    for (const name of bundledNames) {
      if (!fromFiles.has(name)) violations.push(`bundled #/components/${kind}/${name} has no file components/${kind}/${name}.yaml`);
    }
  }
  return violations;
}

const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
/** The headers every response declares, and the component each is. */
const rateLimitHeaders: Record<string, string> = { RateLimit: 'RateLimit', 'RateLimit-Policy': 'RateLimitPolicy' };

/** Path items that name servers they need not: the contract's own, or ones none of their operations is served on. */
function pathItemViolations(doc: JsonObject): string[] {
  const violations: string[] = [];
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item) || item.servers === undefined) continue;
    const at = `/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/servers`;
    if (isDeepStrictEqual(item.servers, doc.servers)) violations.push(`${at}: repeats the contract's servers; leave them out`);
    const operations = httpMethods.map((method) => item[method]).filter(isObject);
    if (operations.length > 0 && operations.every((operation) => operation.servers !== undefined)) {
      violations.push(`${at}: every operation of the path names its own servers; name them once, on the path`);
    }
  }
  return violations;
}

/**
 * Responses written out twice: an operation's response that is the same as another operation's,
 * or as a response of components, is shared through components/responses instead.
 */
function repeatedResponseViolations(doc: JsonObject): string[] {
  const seen = new Map<string, string>();
  const components = isObject(doc.components) && isObject(doc.components.responses) ? doc.components.responses : {};
  for (const [name, response] of Object.entries(components)) seen.set(JSON.stringify(response), `#/components/responses/${name}`);
  const violations: string[] = [];
  for (const op of listOperations(doc)) {
    for (const [code, response] of Object.entries(isObject(op.operation.responses) ? op.operation.responses : {})) {
      if (isObject(response) && typeof response.$ref === 'string') continue;
      const at = `/paths/${op.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${op.method}/responses/${code}`;
      const key = JSON.stringify(response);
      const first = seen.get(key);
      if (first) violations.push(`${at}: the same response as ${first}; share one through components/responses`);
      else seen.set(key, at);
    }
  }
  return violations;
}
const hasExamples = (mediaType: unknown): boolean => isObject(mediaType) && isObject(mediaType.examples) && Object.keys(mediaType.examples).length > 0;

/** Everything one operation of the bundled contract does wrong. */
function operationViolations(doc: JsonObject, { operation, path, method }: Pick<ContractOperation, 'operation' | 'path' | 'method'>): string[] {
  const violations: string[] = [];
  const at = `/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`;

  const declaredTags = new Map<string, unknown>();
  for (const tag of Array.isArray(doc.tags) ? doc.tags : []) if (isObject(tag) && typeof tag.name === 'string') declaredTags.set(tag.name, tag.description);
  if (!Array.isArray(operation.tags) || operation.tags.length === 0) {
    violations.push(`${at}/tags: missing or empty`);
  } else {
    for (const tag of operation.tags) {
      if (!declaredTags.has(String(tag))) violations.push(`${at}/tags: "${String(tag)}" is not declared in the root tags`);
      else if (!nonEmptyString(declaredTags.get(String(tag)))) violations.push(`${at}/tags: "${String(tag)}" has no description in the root tags`);
    }
  }
  for (const field of ['summary', 'description', 'operationId'] as const) {
    if (!nonEmptyString(operation[field])) violations.push(`${at}/${field}: missing or empty`);
  }

  // Served on exactly one base URL: its own servers, else its path's, else the contract's.
  const servers = operationServers(doc, { path, method });
  if (servers.length !== 1 || !isObject(servers[0])) {
    violations.push(`${at}: must be served on exactly one server (its own, its path's or the contract's), found ${servers.length}`);
  } else {
    const server = servers[0] as unknown as JsonObject;
    const variable = /^\{(\w+)\}$/.exec(String(server.url))?.[1];
    if (variable === undefined || !serverVariables.has(variable)) {
      violations.push(`${at}: server url ${JSON.stringify(server.url)} is neither {base_url} nor {base_url_alt}`);
    } else {
      const declared = isObject(server.variables) ? server.variables[variable] : undefined;
      if (!isObject(declared) || typeof declared.default !== 'string') {
        violations.push(`${at}: server variable ${variable} is not declared with a default`);
      }
    }
  }
  // Each fact once: an operation names servers or security only where they differ from what it inherits.
  const item = isObject(doc.paths) && isObject(doc.paths[path]) ? doc.paths[path] : {};
  if (operation.servers !== undefined && isDeepStrictEqual(operation.servers, item.servers ?? doc.servers)) {
    violations.push(`${at}/servers: repeats the servers of its ${item.servers === undefined ? 'contract' : 'path'}; leave them out`);
  }
  if (operation.security !== undefined && isDeepStrictEqual(operation.security, doc.security)) {
    violations.push(`${at}/security: repeats the contract's security; leave it out`);
  }

  const schemes = apiKeySchemeNames(doc);
  const security = operation.security ?? doc.security;
  if (!Array.isArray(security) || security.length === 0) {
    violations.push(`${at}/security: no security requirement (on the operation or the root)`);
  } else if (!security.every((req) => isObject(req) && Object.keys(req).some((name) => schemes.includes(name)))) {
    violations.push(
      `${at}/security: every requirement must name the X-API-KEY apiKey scheme (${schemes.join(', ') || 'none declared'}), found ${JSON.stringify(security)}`,
    );
  }

  const responses = isObject(operation.responses) ? operation.responses : {};
  const codes = Object.keys(responses);
  if (!codes.some((c) => /^2(\d\d|XX)$/.test(c))) violations.push(`${at}/responses: no 2xx response`);
  if (!codes.some((c) => /^4(\d\d|XX)$/.test(c))) violations.push(`${at}/responses: no 4xx response`);
  for (const [code, raw] of Object.entries(responses)) {
    const { node: response } = follow(doc, raw, `${at}/responses/${code}`);
    const content = isObject(response) ? response.content : undefined;
    const mediaTypes = isObject(content) ? Object.keys(content) : [];
    if (content !== undefined && !Object.values(content as JsonObject).some(hasExamples)) {
      violations.push(`${at}/responses/${code}: has a body but no media type with examples`);
    }
    if (/^[45]/.test(code) && (mediaTypes.length === 0 || mediaTypes.some((m) => m !== 'application/problem+json'))) {
      violations.push(`${at}/responses/${code}: an error response's content must be application/problem+json, found ${JSON.stringify(mediaTypes)}`);
    }
    // Every answer carries the quota headers (D11); OpenAPI has no headers common to every response.
    const headers = isObject(response) && isObject(response.headers) ? response.headers : {};
    for (const [name, file] of Object.entries(rateLimitHeaders)) {
      const header = headers[name];
      if (!isObject(header) || header.$ref !== `#/components/headers/${file}`) {
        violations.push(`${at}/responses/${code}: header ${name} must be { $ref: ../components/headers/${file}.yaml }`);
      }
    }
  }

  if (operation.requestBody !== undefined) {
    const { node: body } = follow(doc, operation.requestBody, `${at}/requestBody`);
    const content = isObject(body) && isObject(body.content) ? body.content : {};
    if (!Object.values(content).some(hasExamples)) violations.push(`${at}/requestBody: no media type with examples`);
  }
  return violations;
}

// ---------------------------------------------------------------------------
// Reading the source tree
// ---------------------------------------------------------------------------

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...listFiles(full));
    else out.push(relative(openapiDir, full).split(sep).join('/'));
  }
  return out.sort();
}

function readSourceTree(): { files: string[]; tree: Map<string, unknown>; errors: string[] } {
  const files = listFiles(openapiDir);
  const tree = new Map<string, unknown>();
  const errors: string[] = [];
  for (const file of files.filter((f) => /\.ya?ml$/.test(f))) {
    try {
      tree.set(file, parse(readFileSync(join(openapiDir, file), 'utf8')));
    } catch (error) {
      errors.push(`${file}: ${(error as Error).message}`);
    }
  }
  return { files, tree, errors };
}

// ---------------------------------------------------------------------------
// Self-checks of the rules on small fixtures
// ---------------------------------------------------------------------------

describe('rules (self-check on fixtures)', () => {
  describe('expectedPathFile', () => {
    const cases: Array<[string, { given: string; want: string }]> = [
      ['path parameter keeps braces', { given: '/charge/{id}', want: 'paths/charge_{id}.yaml' }],
      ['hyphen kept, slash to underscore', { given: '/charge/payment-link', want: 'paths/charge_payment-link.yaml' }],
      ['single segment', { given: '/client', want: 'paths/client.yaml' }],
      ['three segments', { given: '/a/b/{c}', want: 'paths/a_b_{c}.yaml' }],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      expect(expectedPathFile(given)).toBe(want);
    });
  });

  describe('rootDocumentViolations', () => {
    const good = (): JsonObject => ({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      servers: [{ $ref: 'servers/base_url.yaml' }],
      tags: [{ name: 'Charges', description: 'd' }],
      security: [{ ApiKeyAuth: [] }],
      components: { securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } } },
      paths: { '/charge/{id}': { $ref: 'paths/charge_{id}.yaml' }, '/client': { $ref: './paths/client.yaml' } },
    });
    const cases: Array<[string, { given: (d: JsonObject) => void; want: RegExp | undefined }]> = [
      ['conforming root', { given: () => {}, want: undefined }],
      [
        'extra root key',
        {
          given: (d) => {
            d['x-tagGroups'] = [];
          },
          want: /root key "x-tagGroups"/,
        },
      ],
      [
        'server inline',
        {
          given: (d) => {
            d.servers = [{ url: '{base_url}', variables: { base_url: { default: 'x' } } }];
          },
          want: /servers\[0\] must be exactly \{ \$ref: servers\/<variable>\.yaml \}/,
        },
      ],
      [
        'no servers',
        {
          given: (d) => {
            delete d.servers;
          },
          want: /servers: missing or empty/,
        },
      ],
      [
        'path item inline',
        {
          given: (d) => {
            (d.paths as JsonObject)['/client'] = { get: {} };
          },
          want: /paths\["\/client"\] must be exactly/,
        },
      ],
      [
        '$ref with a sibling',
        {
          given: (d) => {
            (d.paths as JsonObject)['/client'] = { $ref: 'paths/client.yaml', summary: 's' };
          },
          want: /must be exactly/,
        },
      ],
      [
        'wrong file name',
        {
          given: (d) => {
            (d.paths as JsonObject)['/client'] = { $ref: 'paths/clients.yaml' };
          },
          want: /refers to paths\/clients.yaml, want paths\/client.yaml/,
        },
      ],
      [
        'braces dropped',
        {
          given: (d) => {
            (d.paths as JsonObject)['/charge/{id}'] = { $ref: 'paths/charge_id.yaml' };
          },
          want: /want paths\/charge_\{id\}.yaml/,
        },
      ],
      [
        'inline schema in root components',
        {
          given: (d) => {
            (d.components as JsonObject).schemas = { Charge: { type: 'object' } };
          },
          want: /components.schemas.Charge is defined inline/,
        },
      ],
      [
        'root component ref to a wrongly named file',
        {
          given: (d) => {
            (d.components as JsonObject).schemas = { Charge: { $ref: 'components/schemas/Other.yaml' } };
          },
          want: /components.schemas.Charge is defined inline/,
        },
      ],
      [
        'root component ref to its file',
        {
          given: (d) => {
            (d.components as JsonObject).schemas = { Charge: { $ref: 'components/schemas/Charge.yaml' } };
          },
          want: undefined,
        },
      ],
      [
        'unknown components kind',
        {
          given: (d) => {
            (d.components as JsonObject).pathItems = {};
          },
          want: /components.pathItems is not allowed/,
        },
      ],
      [
        'no paths',
        {
          given: (d) => {
            delete d.paths;
          },
          want: /paths: missing/,
        },
      ],
      [
        'webhook ref to its file',
        {
          given: (d) => {
            d.webhooks = { chargeEvent: { $ref: 'webhooks/chargeEvent.yaml' } };
          },
          want: undefined,
        },
      ],
      [
        'webhook ref to a wrongly named file',
        {
          given: (d) => {
            d.webhooks = { chargeEvent: { $ref: 'webhooks/event.yaml' } };
          },
          want: /webhooks\["chargeEvent"\] must be exactly/,
        },
      ],
      [
        'webhook inline',
        {
          given: (d) => {
            d.webhooks = { chargeEvent: { post: {} } };
          },
          want: /webhooks\["chargeEvent"\] must be exactly/,
        },
      ],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const doc = good();
      given(doc);
      const violations = rootDocumentViolations(doc);
      if (want === undefined) expect(violations).toEqual([]);
      else expect(violations.join('\n')).toMatch(want);
    });
  });

  describe('fileLayoutViolations', () => {
    const cases: Array<[string, { given: string[]; want: RegExp | undefined }]> = [
      [
        'conforming files',
        {
          given: [
            'openapi.yaml',
            'DECISIONS.md',
            'paths/charge_{id}.yaml',
            'servers/base_url_alt.yaml',
            'components/schemas/Charge.yaml',
            'components/requestBodies/CreateClient.yaml',
          ],
          want: undefined,
        },
      ],
      ['nested path file', { given: ['paths/charge/id.yaml'], want: /path files live directly/ }],
      ['.yml extension', { given: ['paths/client.yml'], want: /path files/ }],
      ['unknown component kind', { given: ['components/models/Charge.yaml'], want: /component files are/ }],
      ['nested component', { given: ['components/schemas/charge/Charge.yaml'], want: /component files are/ }],
      ['nested webhook file', { given: ['webhooks/charge/event.yaml'], want: /webhook files live directly/ }],
      ['server file not named after a variable', { given: ['servers/base-url.yaml'], want: /server files are servers\/<variable>\.yaml/ }],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const violations = fileLayoutViolations(given);
      if (want === undefined) expect(violations).toEqual([]);
      else expect(violations.join('\n')).toMatch(want);
    });
  });

  describe('referenceGraph and unreferencedFiles', () => {
    const base = (): Map<string, unknown> =>
      new Map<string, unknown>([
        ['openapi.yaml', { paths: { '/client': { $ref: 'paths/client.yaml' } } }],
        ['paths/client.yaml', { get: { responses: { 200: { $ref: '../components/responses/Clients.yaml' } } } }],
        ['components/responses/Clients.yaml', { content: { 'application/json': { schema: { $ref: '../schemas/Client.yaml' } } } }],
        ['components/schemas/Client.yaml', { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'string' } } }],
      ]);
    const cases: Array<[string, { given: (t: Map<string, unknown>) => void; want: { violations: RegExp | undefined; unreferenced: string[] } }]> = [
      ['all files reached', { given: () => {}, want: { violations: undefined, unreferenced: [] } }],
      [
        'orphan component',
        {
          given: (t) => {
            t.set('components/schemas/Orphan.yaml', { type: 'string' });
          },
          want: { violations: undefined, unreferenced: ['components/schemas/Orphan.yaml'] },
        },
      ],
      [
        'orphan path file',
        {
          given: (t) => {
            t.set('paths/old.yaml', {});
          },
          want: { violations: undefined, unreferenced: ['paths/old.yaml'] },
        },
      ],
      [
        'dangling file ref',
        {
          given: (t) => {
            t.set('paths/client.yaml', { get: { responses: { 200: { $ref: '../components/responses/Missing.yaml' } } } });
          },
          want: { violations: /Missing.yaml, which does not exist/, unreferenced: ['components/responses/Clients.yaml', 'components/schemas/Client.yaml'] },
        },
      ],
      [
        'dangling local fragment',
        {
          given: (t) => {
            t.set('components/schemas/Client.yaml', { properties: { a: { $ref: '#/$defs/B' } } });
          },
          want: { violations: /does not resolve inside components\/schemas\/Client.yaml/, unreferenced: [] },
        },
      ],
      [
        'remote ref',
        {
          given: (t) => {
            t.set('components/schemas/Client.yaml', { $ref: 'https://example.com/s.yaml' });
          },
          want: { violations: /not a relative file reference/, unreferenced: [] },
        },
      ],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const tree = base();
      given(tree);
      const { reachable, violations } = referenceGraph(tree);
      if (want.violations === undefined) expect(violations).toEqual([]);
      else expect(violations.join('\n')).toMatch(want.violations);
      expect(unreferencedFiles([...tree.keys()], reachable)).toEqual(want.unreferenced);
    });
  });

  describe('componentNamingViolations', () => {
    const files = ['components/schemas/Charge.yaml', 'components/responses/Problem.yaml'];
    const cases: Array<[string, { given: JsonObject; want: RegExp | undefined }]> = [
      ['names match files', { given: { components: { schemas: { Charge: {} }, responses: { Problem: {} }, securitySchemes: { K: {} } } }, want: undefined }],
      ['renamed on collision', { given: { components: { schemas: { 'Charge-2': {} }, responses: { Problem: {} } } }, want: /Charge-2 has no file/ }],
      [
        'file bundled under another kind',
        { given: { components: { schemas: { Charge: {}, Problem: {} } } }, want: /components\/responses\/Problem.yaml is not bundled/ },
      ],
      ['extra kind', { given: { components: { schemas: { Charge: {} }, responses: { Problem: {} }, links: {} } }, want: /#\/components\/links/ }],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const violations = componentNamingViolations(files, given);
      if (want === undefined) expect(violations).toEqual([]);
      else expect(violations.join('\n')).toMatch(want);
    });
  });

  describe('serverFileViolations', () => {
    const cases: Array<[string, { given: unknown; want: RegExp | undefined }]> = [
      ['the server of its variable', { given: { url: '{base_url}', variables: { base_url: { default: 'http://localhost:3000' } } }, want: undefined }],
      ['another url', { given: { url: '{base_url_alt}', variables: { base_url: { default: 'x' } } }, want: /url must be "\{base_url\}"/ }],
      ['no default', { given: { url: '{base_url}', variables: { base_url: {} } }, want: /variable base_url is not declared with a default/ }],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const violations = serverFileViolations(new Map([['servers/base_url.yaml', given]]));
      if (want === undefined) expect(violations).toEqual([]);
      else expect(violations.join('\n')).toMatch(want);
    });
  });

  describe('pathItemViolations', () => {
    const root = [{ url: '{base_url}' }];
    const alt = [{ url: '{base_url_alt}' }];
    const cases: Array<[string, { given: JsonObject; want: RegExp | undefined }]> = [
      ['a path on the other server', { given: { servers: alt, get: {}, post: {} }, want: undefined }],
      ['one operation of the path elsewhere', { given: { servers: alt, get: {}, post: { servers: root } }, want: undefined }],
      ["the contract's servers again", { given: { servers: root, get: {} }, want: /~1thing\/servers: repeats the contract's servers/ }],
      [
        'every operation elsewhere',
        { given: { servers: alt, get: { servers: root }, post: { servers: root } }, want: /every operation of the path names its own servers/ },
      ],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const violations = pathItemViolations({ servers: root, paths: { '/thing': given } });
      if (want === undefined) expect(violations).toEqual([]);
      else expect(violations.join('\n')).toMatch(want);
    });
  });

  describe('repeatedResponseViolations', () => {
    const notFound = () => ({ description: 'No thing.', content: { 'application/problem+json': { schema: {} } } });
    const doc = (get: JsonObject, put: JsonObject): JsonObject => ({
      paths: { '/thing': { get: { responses: { '404': get } }, put: { responses: { '404': put } } } },
      components: { responses: { Gone: { description: 'Gone.' } } },
    });
    const cases: Array<[string, { given: JsonObject; want: RegExp | undefined }]> = [
      ['shared by reference', { given: doc({ $ref: '#/components/responses/NotFound' }, { $ref: '#/components/responses/NotFound' }), want: undefined }],
      ['each its own', { given: doc(notFound(), { ...notFound(), description: 'No thing with this id.' }), want: undefined }],
      [
        'written out twice',
        { given: doc(notFound(), notFound()), want: /~1thing\/put\/responses\/404: the same response as \/paths\/~1thing\/get\/responses\/404/ },
      ],
      [
        'a component written out',
        { given: doc({ description: 'Gone.' }, notFound()), want: /get\/responses\/404: the same response as #\/components\/responses\/Gone/ },
      ],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const violations = repeatedResponseViolations(given);
      if (want === undefined) expect(violations).toEqual([]);
      else expect(violations.join('\n')).toMatch(want);
    });
  });

  describe('operationViolations', () => {
    const quota = () => ({ RateLimit: { $ref: '#/components/headers/RateLimit' }, 'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' } });
    const good = (): JsonObject => ({
      openapi: '3.1.0',
      tags: [{ name: 'Charges', description: 'Charges and payment links' }, { name: 'Bare' }],
      security: [{ ApiKeyAuth: [] }],
      paths: {},
      components: {
        securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-KEY' }, Basic: { type: 'http', scheme: 'basic' } },
        responses: {
          NotFound: { description: 'n', headers: quota(), content: { 'application/problem+json': { schema: {}, examples: { e: { value: {} } } } } },
          NoExamples: { description: 'n', headers: quota(), content: { 'application/json': { schema: {} } } },
        },
      },
    });
    const goodOperation = (): JsonObject => ({
      tags: ['Charges'],
      summary: 'Read a charge',
      description: 'Reads a charge.',
      operationId: 'getCharge',
      servers: [{ url: '{base_url}', variables: { base_url: { default: 'https://api.example.com' } } }],
      requestBody: { content: { 'application/json': { schema: {}, examples: { a: { value: {} } } } } },
      responses: {
        200: { description: 'ok', headers: quota(), content: { 'application/json': { schema: {}, examples: { a: { value: {} } } } } },
        204: { description: 'no body', headers: quota() },
        404: { $ref: '#/components/responses/NotFound' },
      },
    });
    const cases: Array<[string, { given: (o: JsonObject, d: JsonObject) => void; want: RegExp | undefined }]> = [
      ['conforming operation', { given: () => {}, want: undefined }],
      [
        'security inherited from root is enough',
        {
          given: (o) => {
            delete o.security;
          },
          want: undefined,
        },
      ],
      [
        "operation security repeating the contract's",
        {
          given: (o) => {
            o.security = [{ ApiKeyAuth: [] }];
          },
          want: /security: repeats the contract's security/,
        },
      ],
      [
        'operation security where the contract has none',
        {
          given: (o, d) => {
            delete d.security;
            o.security = [{ ApiKeyAuth: [] }];
          },
          want: undefined,
        },
      ],
      [
        'no tags',
        {
          given: (o) => {
            o.tags = [];
          },
          want: /tags: missing or empty/,
        },
      ],
      [
        'undeclared tag',
        {
          given: (o) => {
            o.tags = ['Nope'];
          },
          want: /"Nope" is not declared/,
        },
      ],
      [
        'tag without description',
        {
          given: (o) => {
            o.tags = ['Bare'];
          },
          want: /"Bare" has no description/,
        },
      ],
      [
        'no summary',
        {
          given: (o) => {
            delete o.summary;
          },
          want: /summary: missing/,
        },
      ],
      [
        'empty description',
        {
          given: (o) => {
            o.description = ' ';
          },
          want: /description: missing/,
        },
      ],
      [
        'no operationId',
        {
          given: (o) => {
            delete o.operationId;
          },
          want: /operationId: missing/,
        },
      ],
      [
        'no servers anywhere',
        {
          given: (o) => {
            delete o.servers;
          },
          want: /exactly one server/,
        },
      ],
      [
        'servers inherited from the contract',
        {
          given: (o, d) => {
            d.servers = o.servers;
            delete o.servers;
          },
          want: undefined,
        },
      ],
      [
        'servers inherited from the path',
        {
          given: (o, d) => {
            (d.paths as Record<string, JsonObject>)['/charge/{id}']!.servers = o.servers;
            delete o.servers;
          },
          want: undefined,
        },
      ],
      [
        "servers repeating the contract's",
        {
          given: (o, d) => {
            d.servers = structuredClone(o.servers);
          },
          want: /servers: repeats the servers of its contract/,
        },
      ],
      [
        "servers repeating the path's",
        {
          given: (o, d) => {
            d.servers = [{ url: '{base_url_alt}', variables: { base_url_alt: { default: 'x' } } }];
            (d.paths as Record<string, JsonObject>)['/charge/{id}']!.servers = structuredClone(o.servers);
          },
          want: /servers: repeats the servers of its path/,
        },
      ],
      [
        'two servers',
        {
          given: (o) => {
            o.servers = [...(o.servers as unknown[]), { url: '{base_url_alt}' }];
          },
          want: /exactly one server/,
        },
      ],
      [
        'literal server url',
        {
          given: (o) => {
            o.servers = [{ url: 'https://api.example.com' }];
          },
          want: /neither \{base_url\} nor \{base_url_alt\}/,
        },
      ],
      [
        'server variable undeclared',
        {
          given: (o) => {
            o.servers = [{ url: '{base_url_alt}', variables: { base_url: { default: 'x' } } }];
          },
          want: /variable base_url_alt is not declared/,
        },
      ],
      [
        'a response without the quota headers',
        {
          given: (o) => {
            (o.responses as JsonObject)['204'] = { description: 'no body', headers: { RateLimit: { $ref: '#/components/headers/RateLimit' } } };
          },
          want: /responses\/204: header RateLimit-Policy must be/,
        },
      ],
      [
        'a shared response without the quota headers',
        {
          given: (_o, d) => {
            delete ((d.components as JsonObject).responses as Record<string, JsonObject>).NotFound!.headers;
          },
          want: /responses\/404: header RateLimit must be/,
        },
      ],
      [
        'no security anywhere',
        {
          given: (o, d) => {
            delete o.security;
            delete d.security;
          },
          want: /no security requirement/,
        },
      ],
      [
        'security opted out',
        {
          given: (o) => {
            o.security = [];
          },
          want: /no security requirement/,
        },
      ],
      [
        'other scheme',
        {
          given: (o) => {
            o.security = [{ Basic: [] }];
          },
          want: /must name the X-API-KEY/,
        },
      ],
      [
        'optional auth alternative',
        {
          given: (o) => {
            o.security = [{ ApiKeyAuth: [] }, {}];
          },
          want: /must name the X-API-KEY/,
        },
      ],
      [
        'no 2xx',
        {
          given: (o) => {
            const r = o.responses as JsonObject;
            delete r['200'];
            delete r['204'];
          },
          want: /no 2xx response/,
        },
      ],
      [
        'no 4xx',
        {
          given: (o) => {
            delete (o.responses as JsonObject)['404'];
          },
          want: /no 4xx response/,
        },
      ],
      [
        'response body without examples',
        {
          given: (o) => {
            (o.responses as JsonObject)['200'] = { description: 'ok', content: { 'application/json': { schema: {} } } };
          },
          want: /responses\/200: has a body but no media type with examples/,
        },
      ],
      [
        'referenced response without examples',
        {
          given: (o) => {
            (o.responses as JsonObject)['201'] = { $ref: '#/components/responses/NoExamples' };
          },
          want: /responses\/201: has a body but no media type/,
        },
      ],
      [
        'request body without examples',
        {
          given: (o) => {
            o.requestBody = { content: { 'application/json': { schema: {}, example: {} } } };
          },
          want: /requestBody: no media type with examples/,
        },
      ],
      [
        '4xx as application/json',
        {
          given: (o) => {
            (o.responses as JsonObject)['422'] = { description: 'e', content: { 'application/json': { schema: {}, examples: { e: { value: {} } } } } };
          },
          want: /422: an error response's content must be application\/problem\+json/,
        },
      ],
      [
        '5xx without a body',
        {
          given: (o) => {
            (o.responses as JsonObject)['500'] = { description: 'e' };
          },
          want: /500: an error response's content must be application\/problem\+json/,
        },
      ],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const doc = good();
      const operation = goodOperation();
      doc.paths = { '/charge/{id}': { get: operation } };
      given(operation, doc);
      const violations = operationViolations(doc, { operation, path: '/charge/{id}', method: 'get' });
      if (want === undefined) expect(violations).toEqual([]);
      else expect(violations.join('\n')).toMatch(want);
    });
  });
});

// ---------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------

const source = readSourceTree();
const bundled = loadContract();
const operations: ContractOperation[] = bundled.value ? listOperations(bundled.value) : [];

describe('source layout (openapi/)', () => {
  test('openapi/openapi.yaml exists and every YAML file parses', () => {
    expect(existsSync(rootDocumentPath), `${rootDocumentPath} is missing`).toBe(true);
    expect(source.errors).toEqual([]);
  });

  test('openapi.yaml holds only openapi/info/servers/tags/security/components.securitySchemes and one-line $refs under servers and paths', () => {
    const root = source.tree.get('openapi.yaml');
    expect(isObject(root), 'openapi.yaml is not a mapping').toBe(true);
    expect(rootDocumentViolations(root as JsonObject)).toEqual([]);
  });

  test('files live at paths/<file>.yaml and components/<kind>/<Name>.yaml', () => {
    expect(source.files.filter((f) => f.startsWith('paths/')).length).toBeGreaterThan(0);
    expect(fileLayoutViolations(source.files)).toEqual([]);
  });

  test('every $ref resolves', () => {
    expect(referenceGraph(source.tree).violations).toEqual([]);
  });

  test('servers/<variable>.yaml describes the server {<variable>} with a default', () => {
    expect([...source.tree.keys()].filter((f) => f.startsWith('servers/')).length).toBeGreaterThan(0);
    expect(serverFileViolations(source.tree)).toEqual([]);
  });

  test('no unreferenced file in openapi/paths, openapi/servers or openapi/components', () => {
    expect(unreferencedFiles(source.files, referenceGraph(source.tree).reachable)).toEqual([]);
  });

  test('every component file is bundled under its kind and file name', () => {
    expect(bundled.error).toBeUndefined();
    expect(componentNamingViolations(source.files, bundled.value ?? {})).toEqual([]);
  });
});

describe('operations (generated/openapi.yaml)', () => {
  test('the bundled contract loads and has operations', () => {
    expect(bundled.error).toBeUndefined();
    expect(operations.length).toBeGreaterThan(0);
  });

  test('components.securitySchemes declares an apiKey scheme in the X-API-KEY header', () => {
    expect(apiKeySchemeNames(bundled.value ?? {}).length).toBeGreaterThan(0);
  });

  test('operationIds are unique', () => {
    const ids = operations.map((o) => o.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  // The operations the seed documents and the base address it hosts each under.
  const seedOperations: Array<[string, { given: { method: string; path: string }; want: string }]> = [
    ['POST /charge/payment-link', { given: { method: 'post', path: '/charge/payment-link' }, want: 'base_url' }],
    ['GET /charge/{id}', { given: { method: 'get', path: '/charge/{id}' }, want: 'base_url' }],
    ['GET /client', { given: { method: 'get', path: '/client' }, want: 'base_url' }],
    ['GET /webhook/{id}', { given: { method: 'get', path: '/webhook/{id}' }, want: 'base_url' }],
    ['POST /subscription', { given: { method: 'post', path: '/subscription' }, want: 'base_url_alt' }],
    ['PUT /subscription', { given: { method: 'put', path: '/subscription' }, want: 'base_url_alt' }],
    ['POST /product', { given: { method: 'post', path: '/product' }, want: 'base_url_alt' }],
    ['POST /order', { given: { method: 'post', path: '/order' }, want: 'base_url_alt' }],
    ['POST /client', { given: { method: 'post', path: '/client' }, want: 'base_url_alt' }],
  ];
  test.each(seedOperations)('seed operation %s exists and is served under its documented base', (_name, { given, want }) => {
    const found = operations.find((o) => o.method === given.method && o.path === given.path);
    expect(found, `${given.method.toUpperCase()} ${given.path} is missing`).toBeDefined();
    expect(found?.server).toBe(want);
  });

  test("each path names servers only where they differ from the contract's, and for some of its operations", () => {
    expect(pathItemViolations(bundled.value ?? {})).toEqual([]);
  });

  test('no response is written out twice: what repeats is shared through components/responses', () => {
    expect(repeatedResponseViolations(bundled.value ?? {})).toEqual([]);
  });

  const operationCases = operations.map((o): [string, ContractOperation] => [`${o.method.toUpperCase()} ${o.path}`, o]);
  test.each(operationCases)('%s follows the operation rules', (_name, op) => {
    expect(operationViolations(bundled.value as JsonObject, op)).toEqual([]);
  });
});
