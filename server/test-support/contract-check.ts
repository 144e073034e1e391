import { deref, listOperations, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { ContractValidator } from '../../lib/contract/ajv.js';
import { pathPattern } from '../../lib/contract/paths.js';
import { contentOf, documentedResponses, schemaPointerFor } from '../../lib/contract/responses.js';

/**
 * Checks a response against the bundled contract: its status is documented for the
 * operation, its media type is the documented one, its required headers are there, and
 * its body validates against the documented schema (without filling in defaults, so a
 * missing field cannot pass as its default).
 */
export class ResponseChecker {
  private readonly validator = new ContractValidator(undefined, { useDefaults: false });
  private readonly operations: Array<ContractOperation & { pattern: RegExp }>;

  constructor() {
    this.operations = listOperations(this.validator.contract).map((op) => ({
      ...op,
      pattern: pathPattern(op.path),
    }));
  }

  /** Violations of the contract by this response; empty when it conforms. */
  async check(method: string, path: string, response: Response): Promise<string[]> {
    // HEAD answers as GET without a body (RFC 9110, D37).
    // Fetch upper-cases only these methods; any other is sent (and matched) exactly as written.
    const normalised = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'].includes(method.toUpperCase()) ? method.toUpperCase() : method;
    const head = normalised === 'HEAD';
    const op = this.operations.find((o) => o.method.toUpperCase() === (head ? 'GET' : normalised) && o.pattern.test(path));
    if (!op) return this.checkProblem(`${method} ${path}`, response, head);
    const doc = this.validator.contract;
    const responses = documentedResponses(doc, op);
    const status = String(response.status);
    // The reference server documents every status it answers exactly: no range, no default.
    const documented = responses.find((r) => r.key === status);
    if (!documented) return [`${op.operationId}: status ${status} is not documented (documented: ${responses.map((r) => r.key).join(', ')})`];
    const violations: string[] = [];
    for (const [name, raw] of Object.entries((documented.response.headers ?? {}) as Record<string, unknown>)) {
      const header = deref<JsonObject>(doc, raw);
      if (header.required === true && !response.headers.has(name)) violations.push(`${op.operationId} ${status}: required header ${name} is missing`);
    }
    const mediaTypes = Object.keys(contentOf(documented) ?? {});
    if (mediaTypes.length === 0 || head) return violations;
    const got = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (!mediaTypes.includes(got)) return [...violations, `${op.operationId} ${status}: media type ${got || '(none)'} is not ${mediaTypes.join(' or ')}`];
    const text = await response.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [...violations, `${op.operationId} ${status}: body is not JSON: ${text.slice(0, 200)}`];
    }
    const pointer = schemaPointerFor(documented, got);
    if (!pointer) return violations;
    const validate = this.validator.at(pointer);
    if (!validate(body)) {
      for (const error of validate.errors ?? [])
        violations.push(`${op.operationId} ${status}: ${error.instancePath || '(body)'} ${error.message ?? error.keyword}`);
    }
    return violations;
  }

  /** Paths and methods outside the contract still answer with a Problem (D37), but for the root, which leads a person to the docs. */
  private async checkProblem(what: string, response: Response, head: boolean): Promise<string[]> {
    if (/^(GET|HEAD) \/$/.test(what) && response.status === 302 && response.headers.get('location') === '/docs/') return [];
    if (response.headers.get('content-type') !== 'application/problem+json') return [`${what}: not an operation, and the answer is not a problem`];
    if (head) return [];
    const validate = this.validator.at('/components/schemas/Problem');
    return validate(JSON.parse(await response.clone().text())) ? [] : [`${what}: problem body does not match the Problem schema`];
  }
}
