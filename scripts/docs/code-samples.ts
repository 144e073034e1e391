import { type ContractOperation, deref, isJsonObject, type JsonObject, listOperations, serverVariableDefault } from '../../lib/contract/bundled.js';
import { idKinds } from '../../lib/contract/ids.js';
import { linkedIdExpression, listLinks } from '../../lib/contract/links.js';
import type { PixClient } from '../../client/index.js';
import type { ServerName } from '../../client/served-paths.js';

/**
 * Request samples of every operation (Redoc's `x-codeSamples`), made at docs time from the
 * contract itself: its servers, API key header, parameters, links and first request example.
 * Nothing here is written by hand per operation, so a sample cannot drift from the contract.
 *
 * The samples are one story: run in the page's order against a fresh company, each uses the
 * records the ones before it made. The addresses and the key are the shell variables the
 * README and the guides use (`$PIX_BASE_URL`, `$PIX_BASE_URL_ALT`, `$PIX_API_KEY`); an
 * identifier is a variable named after its kind (`ChargeId` → `$CHARGE_ID`), set by the sample
 * of the operation that creates that record (the id its response's links name the record by,
 * captured from the answer) and named by every sample after it. TypeScript samples read the same
 * variables from the environment and print `export CHARGE_ID=…` for the ones after them.
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

/** The variable of the API key, as the README, the guides and the examples name it. */
export const apiKeyVariable = 'PIX_API_KEY';

/** The variable of a server's address: `base_url` → `PIX_BASE_URL`. */
export const addressVariable = (server: string) => `PIX_${shellName(server)}`;

/** The contract's identifier schemas (lib/contract/ids.ts), as the shell variable each one fills. */
export function idVariables(doc: JsonObject): Array<{ variable: string; pattern: RegExp; what: string }> {
  return idKinds(doc).map((kind) => ({ variable: shellName(kind.schema), pattern: kind.pattern, what: kind.schema.replace(/Id$/, '').toLowerCase() }));
}

/** Portable (Linux and macOS, no package) 128 random bits as hex: a new Idempotency-Key. */
export const newKeyCommand = "od -An -N16 -tx1 /dev/urandom | tr -d ' \\n'";

/**
 * What a sample that sends an Idempotency-Key says about it, from the contract's decision (the
 * parameter's `x-decided`): a new key for each new charge; the same one again is a retry.
 */
function idempotencyNote(doc: JsonObject, op: ContractOperation): string[] {
  const parameter = parametersOf(doc, op).find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
  const decision = Object.values((parameter?.['x-decided'] ?? {}) as Record<string, string>)[0];
  return [
    `A new ${parameter?.name ?? 'Idempotency-Key'} for each new request. Sent again with the same key and body (a retry), it answers`,
    `the first response again, with Idempotent-Replayed: true; the same key with another body is 422${decision ? ` (${decision})` : ''}.`,
  ];
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  schema?: JsonObject;
  'x-decided'?: unknown;
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

/** The first example of the operation's first 2xx answer. */
function answerExample(doc: JsonObject, op: ContractOperation): unknown {
  const status = Object.keys((op.operation.responses ?? {}) as JsonObject).find((code) => /^2\d\d$/.test(code));
  const response = status ? deref<JsonObject>(doc, (op.operation.responses as JsonObject)[status]) : undefined;
  const media = isJsonObject(response?.content) ? (response.content['application/json'] as JsonObject | undefined) : undefined;
  const first = Object.values((media?.examples ?? {}) as Record<string, unknown>)[0];
  return media?.example ?? (first === undefined ? undefined : deref<JsonObject>(doc, first).value);
}

/** The 2xx status the operation documents. */
export function successStatus(op: ContractOperation): number {
  const code = Object.keys((op.operation.responses ?? {}) as JsonObject).find((status) => /^2\d\d$/.test(status));
  if (!code) throw new Error(`${op.operationId} documents no 2xx response`);
  return Number(code);
}

/** A record an operation creates: the variable its id goes into and where the answer holds it (a JSON Pointer). */
export interface Capture {
  variable: string;
  /** The kind of record, in words: `charge`. */
  what: string;
  pointer: string;
}

/**
 * The record the operation creates, when it creates one: its response's links name it (the
 * expression `linkedIdExpression` finds), and the answer example holds an id of one of the
 * contract's kinds there.
 */
export function captureOf(doc: JsonObject, op: ContractOperation): Capture | undefined {
  const expression = linkedIdExpression(listLinks(doc).filter((link) => link.source.operationId === op.operationId));
  const pointer = expression?.replace(/^\$response\.body#?/, '');
  if (pointer === undefined || pointer === '') return undefined;
  const example = pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((node, key) => (isJsonObject(node) ? node[key] : undefined), answerExample(doc, op));
  const ids = idVariables(doc);
  const kind = ids.find(({ pattern }) => typeof example === 'string' && pattern.test(example));
  if (!kind) throw new Error(`${op.operationId}: its links name the created record by ${pointer}, where its answer example holds no id`);
  return { variable: kind.variable, what: kind.what, pointer };
}

/** Which operation sets each id variable: the summary of its creating operation. */
export function capturedBy(doc: JsonObject): Map<string, string> {
  const found = new Map<string, string>();
  for (const op of listOperations(doc)) {
    const capture = captureOf(doc, op);
    if (capture && !found.has(capture.variable)) found.set(capture.variable, String(op.operation.summary ?? op.operationId));
  }
  return found;
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

/** The id variables a sample reads: its path's, then its body's, each once. */
function variablesRead(doc: JsonObject, op: ContractOperation): string[] {
  const ids = idVariables(doc);
  const read = new Set<string>();
  for (const parameter of parametersOf(doc, op).filter((p) => p.in === 'path')) {
    const variable = variableFor(ids, parameter.example);
    if (variable) read.add(variable);
  }
  JSON.stringify(requestExample(doc, op) ?? null, (_key, value: unknown) => {
    const variable = variableFor(ids, value);
    if (variable) read.add(variable);
    return value;
  });
  return [...read];
}

const quoted = (names: string[]) => names.map((name) => `"${name}"`);
const andList = (items: string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/** The ids a sample reads and the samples that set them: `$CLIENT_ID and $PRODUCT_ID`, `"Create a client" and "Create a product" samples`. */
function whereIdsComeFrom(doc: JsonObject, op: ContractOperation, prefix: string): { ids: string; samples: string } | undefined {
  const read = variablesRead(doc, op);
  if (read.length === 0) return undefined;
  const setters = capturedBy(doc);
  const by = [...new Set(read.map((variable) => setters.get(variable) ?? 'a create operation'))];
  return { ids: andList(read.map((v) => `${prefix}${v}`)), samples: `${andList(quoted(by))} sample${by.length > 1 ? 's' : ''}` };
}

/** `/data/id` → `.data.id`. */
const jqPath = (pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((key) => `.${key}`)
    .join('');

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
  const capture = captureOf(doc, op);
  const method = op.method.toUpperCase();
  const from = whereIdsComeFrom(doc, op, '$');
  const comments = from ? [`${from.ids} ${from.ids.includes(' and ') ? 'come' : 'comes'} from the ${from.samples} above.`] : [];
  const before: string[] = [];
  const options = [`${method === 'GET' || (method === 'POST' && body !== undefined) ? '' : `-X ${method} `}"$${addressVariable(op.server)}${path}"`];
  const keyHeader = apiKeyHeader(doc, op);
  if (keyHeader) options.push(`-H "${keyHeader}: $${apiKeyVariable}"`);
  const idempotency = parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
  if (idempotency) {
    comments.push(...idempotencyNote(doc, op));
    before.push(`IDEMPOTENCY_KEY=$(${newKeyCommand})`);
    options.push(`-H "${idempotency.name}: $IDEMPOTENCY_KEY"`);
  }
  if (body !== undefined) options.push(`-H 'Content-Type: application/json'`, '--data @-');
  const data = body === undefined ? '' : `\n${bodyWithVariables(ids, body)}\nJSON`;
  const heredoc = body === undefined ? '' : ' <<JSON';
  if (!capture) {
    // curl's -i prints the status line and headers before the body; -w ends the body with a newline,
    // so the next sample's output starts on a line of its own.
    return [...comments.map((line) => `# ${line}`), ...before, `curl -i -w '\\n' ${options.join(' \\\n  ')}${heredoc}${data}`].join('\n');
  }
  // The answer (status line, headers and body) is printed, and the new record's id kept for the
  // samples after this one. All on stdout, through variables: no /dev/stderr, which cannot be
  // opened when stderr is a socket (a Node program running the samples), issue 39.
  comments.push(`${capture.variable}: the id of the new ${capture.what} (${jqPath(capture.pointer)} of the answer), for the samples after this one.`);
  return [
    ...comments.map((line) => `# ${line}`),
    ...before,
    `RESPONSE=$(curl -sS -i ${options.join(' \\\n  ')}${heredoc}${data}`,
    ')',
    `printf '%s\\n' "$RESPONSE"`,
    // The body is what follows the first empty line (curl -i ends header lines with CR LF).
    `${capture.variable}=$(printf '%s\\n' "$RESPONSE" | tr -d '\\r' | sed '1,/^$/d' | jq -r '${jqPath(capture.pointer)}')`,
    `echo "${capture.variable}=$${capture.variable}"`,
  ].join('\n');
}

/** Which of the typed client's properties serves each base URL (client/create.ts). */
const clientOf: Record<ServerName, keyof PixClient> = { base_url: 'base', base_url_alt: 'alt' };

/** A TypeScript literal of `value`, each identifier of the contract's kinds replaced by the constant that holds it. */
function typescriptLiteral(value: unknown, indent: string, ids: ReturnType<typeof idVariables>): string {
  const variable = variableFor(ids, value);
  if (variable) return variable;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${indent}  ${typescriptLiteral(item, `${indent}  `, ids)},`).join('\n')}\n${indent}]`;
  }
  if (isJsonObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`);
    return `{\n${entries.map(([name, item]) => `${indent}  ${key(name)}: ${typescriptLiteral(item, `${indent}  `, ids)},`).join('\n')}\n${indent}}`;
  }
  return typeof value === 'string' ? `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'` : JSON.stringify(value);
}

/** Default of a server variable (`http://localhost:3000`), for the sample's fallback address. */
const serverDefault = (doc: JsonObject, variable: string): string => serverVariableDefault(doc, variable) ?? 'http://localhost:3000';

export function typescriptSample(doc: JsonObject, op: ContractOperation): string {
  const client = clientOf[op.server as ServerName];
  if (!client) throw new Error(`${op.operationId}: no client serves {${op.server}}`);
  const ids = idVariables(doc);
  const read = variablesRead(doc, op);
  const path = parametersOf(doc, op).filter((p) => p.in === 'path');
  const idempotency = parametersOf(doc, op).find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
  const params: string[] = [];
  if (path.length > 0) params.push(`path: { ${path.map((p) => `${p.name}: ${typescriptLiteral(String(p.example ?? p.name), '    ', ids)}`).join(', ')} }`);
  if (idempotency) params.push(`header: { '${idempotency.name}': randomUUID() }`);
  const options: string[] = [];
  if (params.length > 0) options.push(`  params: { ${params.join(', ')} },`);
  const body = requestExample(doc, op);
  if (body !== undefined) options.push(`  body: ${typescriptLiteral(body, '  ', ids)},`);
  const capture = captureOf(doc, op);
  const env = [apiKeyVariable, ...read];
  const from = whereIdsComeFrom(doc, op, '');
  return [
    ...(idempotency ? ["import { randomUUID } from 'node:crypto';"] : []),
    "import { createPixClient } from 'pix-payments-toolkit/client';",
    '',
    `const { ${env.join(', ')} } = process.env;`,
    `if (!${apiKeyVariable}) throw new Error('set ${apiKeyVariable} to your sk_… key');`,
    ...(from ? [`// ${from.ids}: what the ${from.samples} printed (export ${read[0]}=…).`] : []),
    ...(read.length > 0 ? [`if (${read.map((v) => `!${v}`).join(' || ')}) throw new Error('set ${andList(read)} first');`] : []),
    'const pix = createPixClient({',
    `  baseUrl: process.env.${addressVariable('base_url')} ?? '${serverDefault(doc, 'base_url')}',`,
    `  baseUrlAlt: process.env.${addressVariable('base_url_alt')} ?? '${serverDefault(doc, 'base_url_alt')}',`,
    `  apiKey: ${apiKeyVariable},`,
    '});',
    '',
    ...(idempotency ? [...idempotencyNote(doc, op), 'The client retries with it.'].map((line) => `// ${line}`) : []),
    `const { data, error, response } = await pix.${client}.${op.method.toUpperCase()}('${op.path}'${options.length > 0 ? `, {\n${options.join('\n')}\n}` : ''});`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own template literal, written out as text.
    'if (error) throw new Error(`${error.title}: ${error.detail}`);',
    'console.log(response.status, data);',
    ...(capture
      ? [
          `// ${capture.variable}: the id of the new ${capture.what}, for the samples after this one.`,
          `console.log(\`export ${capture.variable}=\${data.${capture.pointer.split('/').slice(1).join('.')}}\`);`,
        ]
      : []),
  ].join('\n');
}

/** The samples Redoc shows beside the operation: curl first, then the typed client. */
export function codeSamples(doc: JsonObject, op: ContractOperation): CodeSample[] {
  return [
    { lang: 'Shell', label: 'curl', source: curlSample(doc, op) },
    { lang: 'TypeScript', label: 'TypeScript', source: typescriptSample(doc, op) },
  ];
}
