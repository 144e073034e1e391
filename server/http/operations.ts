import { deref, listOperations, type JsonObject } from '../../lib/contract/bundled.js';
import { type ContractValidator, toFieldErrors, type FieldError } from '../../lib/contract/ajv.js';
import { contractNormaliser, type Normaliser } from '../../lib/contract/normalise.js';
import { escapeToken } from '../../lib/contract/pointer.js';

interface ParameterRule {
  name: string;
  in: 'path' | 'header' | 'query';
  required: boolean;
  /** Where its schema is in the contract; compiled on first use (`ContractValidator.at` keeps it). */
  schemaPointer: string;
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
  bodySchemaPointer?: string;
}

/**
 * The request rules of every operation of the bundled contract. Handlers name their operation
 * by operationId; the rules come from the contract only. Each validator is compiled once, on
 * first use or by `warmUp` (which the server runs once it is listening, so that compiling them
 * all does not delay its first answer).
 */
export class OperationCatalog {
  private readonly byId = new Map<string, OperationRules>();
  private readonly normalisers = new Map<string, Normaliser>();

  constructor(readonly validator: ContractValidator) {
    const doc = validator.contract;
    for (const op of listOperations(doc)) {
      const pointerBase = `/paths/${escapeToken(op.path)}/${op.method}`;
      const parameters = ((op.operation.parameters ?? []) as unknown[]).map((raw, index): ParameterRule => {
        const parameter = deref<JsonObject>(doc, raw);
        const schemaPointer =
          typeof (raw as JsonObject).$ref === 'string'
            ? `${((raw as JsonObject).$ref as string).slice(1)}/schema`
            : `${pointerBase}/parameters/${index}/schema`;
        return {
          name: String(parameter.name),
          in: parameter.in as ParameterRule['in'],
          required: parameter.required === true,
          schemaPointer,
        };
      });
      const body = deref<JsonObject | undefined>(doc, op.operation.requestBody);
      const hasBody = !!body;
      const bodySchemaPointer = hasBody ? `${pointerBase}/requestBody/content/application~1json/schema` : undefined;
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

  /** Compiles every validator not compiled yet, one at a time between other work. */
  async warmUp(): Promise<void> {
    for (const rules of this.byId.values()) {
      for (const pointer of [...rules.parameters.map((p) => p.schemaPointer), ...(rules.bodySchemaPointer ? [rules.bodySchemaPointer] : [])]) {
        this.validator.at(pointer);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  /** Field errors of a request's parameters and body, empty when it is valid. */
  check(rules: OperationRules, input: { path: Record<string, string>; header: (name: string) => string | undefined; body?: unknown }): FieldError[] {
    const errors: FieldError[] = [];
    for (const parameter of rules.parameters) {
      const value = parameter.in === 'path' ? input.path[parameter.name] : parameter.in === 'header' ? input.header(parameter.name) : undefined;
      const place = parameter.in === 'header' ? { header: parameter.name } : { parameter: parameter.name };
      if (value === undefined) {
        if (parameter.required) errors.push({ ...place, detail: 'is required', keyword: 'required' });
        continue;
      }
      const validate = this.validator.at(parameter.schemaPointer);
      if (!validate(value)) {
        for (const e of toFieldErrors(validate.errors ?? [])) {
          errors.push({ ...place, detail: e.detail, keyword: e.keyword });
        }
      }
    }
    // An optional body that was not sent has nothing to validate.
    const absent = input.body === undefined && !rules.bodyRequired;
    if (rules.bodySchemaPointer && !absent) {
      const validate = this.validator.at(rules.bodySchemaPointer);
      if (!validate(input.body)) errors.push(...toFieldErrors(validate.errors ?? []));
    }
    return errors;
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
