import { type ContractOperation, deref, isJsonObject, type JsonObject } from '../../lib/contract/bundled.js';
import type { PixClient } from '../../client/index.js';
import type { ServerName } from '../../client/served-paths.js';

/**
 * Request samples of every operation (Redoc's `x-codeSamples`), made at docs time from the
 * contract itself: its servers, API key header, parameters and first request example. Nothing
 * here is written by hand per operation, so a sample cannot drift from the contract.
 *
 * curl: the base URL, the API key and every identifier are shell variables (`$BASE_URL`,
 * `$API_KEY`, `$CHARGE_ID`…), named as the integrator guide's "Try it" names them, so a reader who has
 * exported them pastes the sample as it is. An identifier is recognised by the contract's id
 * schemas (`ChargeId` → `$CHARGE_ID`); the body, when one is sent, is the first request example.
 */
export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** `base_url_alt` → `BASE_URL_ALT`, `ProductId` → `PRODUCT_ID`. */
export function shellName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/\W/g, '_')
    .toUpperCase();
}

/** The contract's identifier schemas (`components/schemas/*Id` with a `prefix_` pattern), as the shell variable each one fills. */
export function idVariables(doc: JsonObject): Array<{ variable: string; pattern: RegExp }> {
  const schemas = ((doc.components as JsonObject | undefined)?.schemas ?? {}) as Record<string, JsonObject>;
  return Object.entries(schemas)
    .filter(([name, schema]) => /Id$/.test(name) && typeof schema.pattern === 'string' && /^\^[a-z]+_/.test(schema.pattern))
    .map(([name, schema]) => ({ variable: shellName(name), pattern: new RegExp(String(schema.pattern)) }));
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  schema?: JsonObject;
}

function parametersOf(doc: JsonObject, op: ContractOperation): Parameter[] {
  return ((op.operation.parameters ?? []) as unknown[]).map((parameter) => deref<Parameter>(doc, parameter));
}

/** The value of the operation's first request example, or undefined when it sends no body. */
export function requestExample(doc: JsonObject, op: ContractOperation): unknown {
  const body = deref<JsonObject | undefined>(doc, op.operation.requestBody);
  const media = isJsonObject(body?.content) ? (body.content['application/json'] as JsonObject | undefined) : undefined;
  if (!media) return undefined;
  if ('example' in media) return media.example;
  const first = Object.values((media.examples ?? {}) as Record<string, unknown>)[0];
  return first === undefined ? undefined : deref<JsonObject>(doc, first).value;
}

/** The 2xx status the operation documents. */
export function successStatus(op: ContractOperation): number {
  const code = Object.keys((op.operation.responses ?? {}) as JsonObject).find((status) => /^2\d\d$/.test(status));
  if (!code) throw new Error(`${op.operationId} documents no 2xx response`);
  return Number(code);
}

function apiKeyHeader(doc: JsonObject, op: ContractOperation): string | undefined {
  const requirements = (op.operation.security ?? doc.security ?? []) as Array<Record<string, unknown>>;
  const schemes = ((doc.components as JsonObject | undefined)?.securitySchemes ?? {}) as Record<string, JsonObject>;
  for (const requirement of requirements)
    for (const name of Object.keys(requirement)) {
      const scheme = schemes[name];
      if (scheme?.type === 'apiKey' && scheme.in === 'header') return String(scheme.name);
    }
  return undefined;
}

/** The shell variable an identifier value stands for, if it is one. */
function variableFor(ids: ReturnType<typeof idVariables>, value: unknown): string | undefined {
  return typeof value === 'string' ? ids.find(({ pattern }) => pattern.test(value))?.variable : undefined;
}

/** JSON with each identifier replaced by its shell variable, escaped for an unquoted here-document. */
function bodyWithVariables(ids: ReturnType<typeof idVariables>, body: unknown): string {
  const variables: string[] = [];
  const withMarks = JSON.stringify(
    body,
    (_key, value: unknown) => {
      const variable = variableFor(ids, value);
      if (!variable) return value;
      variables.push(variable);
      return `@@id${variables.length - 1}@@`;
    },
    2,
  );
  return withMarks.replace(/[\\$`]/g, '\\$&').replace(/@@id(\d+)@@/g, (_mark, index: string) => `$${variables[Number(index)]}`);
}

const shellQuote = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`);

export function curlSample(doc: JsonObject, op: ContractOperation): string {
  const ids = idVariables(doc);
  const parameters = parametersOf(doc, op);
  const path = op.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const parameter = parameters.find((p) => p.in === 'path' && p.name === name);
    const segment =
      op.path
        .slice(0, op.path.indexOf(`{${name}}`))
        .split('/')
        .filter(Boolean)
        .pop() ?? '';
    return `$${variableFor(ids, parameter?.example) ?? shellName(`${segment}_${name}`)}`;
  });
  const body = requestExample(doc, op);
  const method = op.method.toUpperCase();
  const lines = [`curl -i ${method === 'GET' || (method === 'POST' && body !== undefined) ? '' : `-X ${method} `}"$${shellName(op.server)}${path}"`];
  const keyHeader = apiKeyHeader(doc, op);
  if (keyHeader) lines.push(`-H "${keyHeader}: $API_KEY"`);
  const idempotency = parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
  if (idempotency) lines.push(`-H ${shellQuote(`${idempotency.name}: ${String(idempotency.example ?? idempotency.schema?.example ?? 'a-unique-key')}`)}`);
  if (body === undefined) return lines.join(' \\\n  ');
  lines.push(`-H 'Content-Type: application/json'`, '--data @- <<JSON');
  return `${lines.join(' \\\n  ')}\n${bodyWithVariables(ids, body)}\nJSON`;
}

/** Which of the typed client's properties serves each base URL (client/create.ts). */
const clientOf: Record<ServerName, keyof PixClient> = { base_url: 'base', base_url_alt: 'alt' };

function typescriptLiteral(value: unknown, indent: string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${indent}  ${typescriptLiteral(item, `${indent}  `)},`).join('\n')}\n${indent}]`;
  }
  if (isJsonObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`);
    return `{\n${entries.map(([name, item]) => `${indent}  ${key(name)}: ${typescriptLiteral(item, `${indent}  `)},`).join('\n')}\n${indent}}`;
  }
  return typeof value === 'string' ? `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'` : JSON.stringify(value);
}

/** Default of a server variable (`http://localhost:3000`), for the sample's fallback address. */
function serverDefault(doc: JsonObject, variable: string): string {
  for (const server of (doc.servers ?? []) as Array<{ variables?: Record<string, { default?: string }> }>) {
    const value = server.variables?.[variable]?.default;
    if (value) return value;
  }
  return 'http://localhost:3000';
}

export function typescriptSample(doc: JsonObject, op: ContractOperation): string {
  const client = clientOf[op.server as ServerName];
  if (!client) throw new Error(`${op.operationId}: no client serves {${op.server}}`);
  const parameters = parametersOf(doc, op).filter((p) => p.in === 'path');
  const options: string[] = [];
  if (parameters.length > 0)
    options.push(`  params: { path: { ${parameters.map((p) => `${p.name}: ${typescriptLiteral(String(p.example ?? p.name), '  ')}`).join(', ')} } },`);
  const body = requestExample(doc, op);
  if (body !== undefined) options.push(`  body: ${typescriptLiteral(body, '  ')},`);
  const takesKey = parametersOf(doc, op).some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
  return [
    "import { createPixClient } from 'pix-payments-toolkit/client';",
    '',
    'const apiKey = process.env.API_KEY;',
    "if (!apiKey) throw new Error('set API_KEY to your sk_… key');",
    'const pix = createPixClient({',
    `  baseUrl: process.env.BASE_URL ?? '${serverDefault(doc, 'base_url')}',`,
    `  baseUrlAlt: process.env.BASE_URL_ALT ?? '${serverDefault(doc, 'base_url_alt')}',`,
    '  apiKey,',
    '});',
    '',
    ...(takesKey ? ['// The client sends an Idempotency-Key (pass one in params.header to choose it) and retries with it.'] : []),
    `const { data, error, response } = await pix.${client}.${op.method.toUpperCase()}('${op.path}'${options.length > 0 ? `, {\n${options.join('\n')}\n}` : ''});`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own template literal, written out as text.
    'if (error) throw new Error(`${error.title}: ${error.detail}`);',
    'console.log(response.status, data);',
  ].join('\n');
}

/** The samples Redoc shows beside the operation: curl first, then the typed client. */
export function codeSamples(doc: JsonObject, op: ContractOperation): CodeSample[] {
  return [
    { lang: 'Shell', label: 'curl', source: curlSample(doc, op) },
    { lang: 'TypeScript', label: 'TypeScript', source: typescriptSample(doc, op) },
  ];
}
