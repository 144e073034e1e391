import { deref, listOperations, operationPointer, requestBodySchemaPointer, type JsonObject } from '../../lib/contract/bundled.js';
import { type ContractValidator, toFieldErrors, type FieldError } from '../../lib/contract/ajv.js';
import { boundsGuard, type BoundsReport } from '../../lib/contract/bounds.js';
import { contractNormaliser, type Normaliser } from '../../lib/contract/normalise.js';

interface ParameterRule {
  name: string;
  in: 'path' | 'header' | 'query';
  required: boolean;
  /** Where its schema is in the contract; compiled on first use (`ContractValidator.at` keeps it). */
  schemaPointer: string;
  /** A query parameter whose schema is a number: its text is read as one before it is checked. */
  numeric: boolean;
  /** A path identifier's kind of record, from its schema's name (`WebhookId` → `webhook`), for its 404. */
  record?: string;
}

/** What the server needs to know of one operation, read from the contract at start-up. */
export interface OperationRules {
  operationId: string;
  method: string;
  path: string;
  hasBody: boolean;
  /** Whether the contract requires the body (`requestBody.required`); an optional one may be absent. */
  bodyRequired: boolean;
  /** Whether the contract requires an API key (every alternative of `security` names a scheme). */
  secured: boolean;
  parameters: ParameterRule[];
  /** Whether any parameter is in the query: only then is the query string read. */
  hasQuery: boolean;
  bodySchemaPointer?: string;
}

/**
 * The request rules of every operation of the bundled contract. Handlers name their operation
 * by operationId; the rules come from the contract only. The compiled server's validators are
 * made by its build; from source each is compiled once, on first use or by `warmUp` (which the
 * server runs once it is listening, so that compiling them all does not delay its first answer).
 */
export class OperationCatalog {
  private readonly byId = new Map<string, OperationRules>();
  private readonly normalisers = new Map<string, Normaliser>();
  private readonly guards = new Map<string, (value: unknown) => BoundsReport>();

  constructor(readonly validator: ContractValidator) {
    const doc = validator.contract;
    for (const op of listOperations(doc)) {
      const pointerBase = operationPointer(op);
      const parameters = ((op.operation.parameters ?? []) as unknown[]).map((raw, index): ParameterRule => {
        const parameter = deref<JsonObject>(doc, raw);
        const schemaPointer =
          typeof (raw as JsonObject).$ref === 'string'
            ? `${((raw as JsonObject).$ref as string).slice(1)}/schema`
            : `${pointerBase}/parameters/${index}/schema`;
        const type = deref<JsonObject>(doc, parameter.schema ?? {}).type;
        const idSchema = /^#\/components\/schemas\/(\w+)Id$/.exec(String((parameter.schema as JsonObject | undefined)?.$ref ?? ''))?.[1];
        return {
          ...(idSchema ? { record: idSchema.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase() } : {}),
          name: String(parameter.name),
          in: parameter.in as ParameterRule['in'],
          required: parameter.required === true,
          schemaPointer,
          numeric: parameter.in === 'query' && (type === 'integer' || type === 'number'),
        };
      });
      const body = deref<JsonObject | undefined>(doc, op.operation.requestBody);
      const hasBody = !!body;
      const bodySchemaPointer = requestBodySchemaPointer(doc, op);
      const security = (op.operation.security ?? doc.security ?? []) as JsonObject[];
      const secured = security.length > 0 && security.every((alternative) => Object.keys(alternative).length > 0);
      this.byId.set(op.operationId, {
        operationId: op.operationId,
        method: op.method,
        path: op.path,
        hasBody,
        bodyRequired: body?.required === true,
        secured,
        parameters,
        hasQuery: parameters.some((p) => p.in === 'query'),
        ...(bodySchemaPointer ? { bodySchemaPointer } : {}),
      });
    }
  }

  get(operationId: string): OperationRules {
    const rules = this.byId.get(operationId);
    if (!rules) throw new Error(`The contract has no operation ${operationId}`);
    return rules;
  }

  all(): OperationRules[] {
    return [...this.byId.values()];
  }

  /** Where the schema of every parameter and request body of the contract's operations is (each once). */
  schemaPointers(): string[] {
    const pointers = new Set<string>();
    for (const rules of this.byId.values()) {
      for (const parameter of rules.parameters) pointers.add(parameter.schemaPointer);
      if (rules.bodySchemaPointer) pointers.add(rules.bodySchemaPointer);
    }
    return [...pointers];
  }

  /**
   * Compiles every validator not compiled yet, one at a time between other work. In the compiled
   * server there is none to compile (its build made them all, scripts/server-validators.ts), and
   * this ends at once.
   */
  async warmUp(): Promise<void> {
    for (const pointer of this.schemaPointers()) {
      const compiled = this.validator.compiledAtRunTime;
      this.validator.at(pointer);
      // After a compile (milliseconds), a request that came meanwhile goes first.
      if (this.validator.compiledAtRunTime > compiled) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private guard(pointer: string): (value: unknown) => BoundsReport {
    let guard = this.guards.get(pointer);
    if (!guard) {
      guard = boundsGuard(this.validator.contract, pointer);
      this.guards.set(pointer, guard);
    }
    return guard;
  }

  /**
   * Field errors of a request's parameters and body, empty when it is valid, and how many more
   * were found than are listed (D49). `query` gives every value a query parameter was sent with:
   * one sent twice is refused, as no schema says which counts. The body's size bounds are checked
   * first, in one walk (`boundsGuard`), so the schema never sees an array, string or object past
   * its bound; a path parameter that breaks its schema is reported apart (`malformedPath`), when
   * nothing else is wrong: it names no record (D27).
   */
  check(
    rules: OperationRules,
    input: { path: Record<string, string>; header: (name: string) => string | undefined; query?: (name: string) => string[]; body?: unknown },
  ): { errors: FieldError[]; omitted: number; malformedPath?: { record: string; id: string } } {
    const errors: FieldError[] = [];
    let omitted = 0;
    let malformedPath: { record: string; id: string } | undefined;
    for (const parameter of rules.parameters) {
      const place = parameter.in === 'header' ? { header: parameter.name } : { parameter: parameter.name };
      let value: unknown;
      if (parameter.in === 'query') {
        const values = input.query?.(parameter.name) ?? [];
        if (values.length > 1) {
          errors.push({ ...place, detail: `is sent ${values.length} times; send it once`, keyword: 'unique' });
          continue;
        }
        value = values[0] === undefined ? undefined : queryValue(parameter, values[0]);
      } else value = parameter.in === 'path' ? input.path[parameter.name] : input.header(parameter.name);
      if (value === undefined) {
        if (parameter.required) errors.push({ ...place, detail: 'is required', keyword: 'required' });
        continue;
      }
      const validate = this.validator.at(parameter.schemaPointer);
      if (!validate(value)) {
        // A path identifier not of its record's form names no record: 404 as for an unknown one (D27),
        // once the rest of the request is valid, as the lookup of an unknown one would come then.
        if (parameter.in === 'path') {
          malformedPath ??= { record: parameter.record ?? 'record', id: String(value) };
          continue;
        }
        for (const e of toFieldErrors(validate.errors ?? [])) {
          errors.push({ ...place, detail: e.detail, keyword: e.keyword });
        }
      }
    }
    // An optional body that was not sent has nothing to validate.
    const absent = input.body === undefined && !rules.bodyRequired;
    if (rules.bodySchemaPointer && !absent) {
      const bounds = this.guard(rules.bodySchemaPointer)(input.body);
      omitted += bounds.omitted;
      const validate = this.validator.at(rules.bodySchemaPointer);
      if (!validate(input.body)) {
        // Where a bound was broken the guard's words (with the real size) replace the schema's.
        const breached = new Set(bounds.errors.map((e) => `${e.pointer}\u0000${e.keyword}`));
        errors.push(...toFieldErrors(validate.errors ?? []).filter((e) => !breached.has(`${e.pointer}\u0000${e.keyword}`)));
      }
      errors.unshift(...bounds.errors);
    }
    return errors.length > 0 || omitted > 0 || malformedPath === undefined ? { errors, omitted } : { errors, omitted, malformedPath };
  }

  /** The query parameters of the operation that were sent, as their schemas read them (after `check` passed). */
  query(rules: OperationRules, query: (name: string) => string[]): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const parameter of rules.parameters) {
      const text = parameter.in === 'query' ? query(parameter.name)[0] : undefined;
      if (text !== undefined) values[parameter.name] = queryValue(parameter, text);
    }
    return values;
  }

  /**
   * A valid body in the form the service stores (D46): tax numbers, phones and CEPs as
   * digits, as the contract's formats say. Changes the body in place and returns it.
   */
  normalise(rules: OperationRules, body: unknown): unknown {
    const pointer = rules.bodySchemaPointer;
    if (!pointer || body === undefined) return body;
    const normaliser = this.normalisers.get(pointer) ?? contractNormaliser(this.validator.contract, pointer);
    this.normalisers.set(pointer, normaliser);
    return normaliser(body);
  }
}

/**
 * A query value as its schema reads it: the text of a number parameter is a number when it is
 * written as one (`10`, not `1e1`, ` 10` or ``), else the text, which its schema then refuses.
 */
function queryValue(parameter: ParameterRule, text: string): unknown {
  return parameter.numeric && /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/.test(text) ? Number(text) : text;
}
