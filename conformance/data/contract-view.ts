/**
 * The run's view of the contract: what each operation is, as the data generators and the checks
 * need it, read off the bundled contract once per run and kept for the run. A helper is handed
 * an operation's view (`ctx.view(operationId)`) and reads its request body schema, parameters,
 * success schema, links and the records its body names from there, instead of walking the
 * contract again from `(contract, operationId)`.
 *
 * Everything here is read lazily, the first time it is asked for, then kept: a run that covers
 * one operation (`--only`) reads only what that operation needs. Nothing here depends on what
 * the run learns from the target (fixtures, ids, prices): that is bodies.ts and fixtures.ts.
 */
import { ContractValidator, type Validate } from '../../lib/contract/ajv.js';
import { followRef, listOperations, resolvePointer, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { linkRole, listLinks, type ContractLink, type LinkRole } from '../../lib/contract/links.js';
import { pathParameters } from '../../lib/contract/paths.js';
import { documentedResponseIn, documentedResponses, schemaPointerFor, type DocumentedResponse } from '../../lib/contract/responses.js';
import { bodyReferences, fixtureKeyOf, isFixtureKey, referencesOf, upfrontFixtures, type BodyReference, type FixtureSpec } from './relations.js';
import {
  headerParametersOf,
  pathParameterExamples,
  propertiesOf,
  queryParametersOf,
  requestBodyOf,
  viewOf,
  type HeaderParameter,
  type RequestBodyInfo,
  type SchemaView,
} from './schema.js';
import { bodyTemplates, type BodyTemplate } from './templates.js';

/**
 * What a link's target does with the source's record (lib/contract/links.ts `linkRole`), with
 * a `DELETE` told apart from the other changes: `read`, `list`, `use`, `change`, `delete`.
 */
export type Role = LinkRole | 'delete';

export function roleOf(link: ContractLink): Role {
  return link.target.method === 'delete' ? 'delete' : linkRole(link);
}

/** An operation's JSON request body: where its schema is, its examples, and the schema read as a view. */
export interface RequestBody extends RequestBodyInfo {
  view: SchemaView;
  /** The top-level properties of the body, each as a view of its schema. */
  properties: ReadonlyMap<string, SchemaView>;
  /** The full contract's validator of the body. */
  validate: Validate;
}

/** A header or query parameter, with its schema read as a view. */
export type ParameterView = HeaderParameter & { view: SchemaView };

/** An operation's first documented success (2xx) response, and the schema of its body. */
export interface Success {
  response: DocumentedResponse;
  /** Where the schema of its body is (the JSON one), if it has one. */
  schemaPointer?: string;
  /** That schema, `$ref` followed. */
  schema?: JsonObject;
}

/** Keeps what `make` gives the first time a key is asked for (undefined included). */
class Memo {
  private readonly kept = new Map<string, unknown>();
  get<T>(key: string, make: () => T): T {
    if (!this.kept.has(key)) this.kept.set(key, make());
    return this.kept.get(key) as T;
  }
}

/** One operation of the contract, as the run reads it. */
export class OperationView {
  private readonly memo = new Memo();

  constructor(
    private readonly contract: ContractView,
    readonly op: ContractOperation,
  ) {}

  get operationId(): string {
    return this.op.operationId;
  }

  /** The JSON request body, or undefined when the operation takes none. */
  get requestBody(): RequestBody | undefined {
    return this.memo.get('requestBody', () => {
      const { doc } = this.contract;
      const info = requestBodyOf(doc, this.op);
      if (!info) return undefined;
      const view = viewOf(doc, info.schema);
      return { ...info, view, properties: propertiesOf(doc, view), validate: this.contract.full.at(info.pointer) };
    });
  }

  /**
   * The forms of the request body the contract gives (templates.ts), worked out once: bodies.ts
   * makes each the run's own every time it is asked for bodies. Empty without a body.
   */
  get templates(): readonly BodyTemplate[] {
    return this.memo.get('templates', () => {
      const body = this.requestBody;
      return body ? bodyTemplates(this.contract.doc, body.validate, body, body.view) : [];
    });
  }

  /** The names of the path's parameters, in order (`/charge/{id}` has `id`). */
  get pathParameters(): readonly string[] {
    return this.memo.get('pathParameters', () => pathParameters(this.op.path));
  }

  /** The contract's example values of the path parameters, by name (what a stateless mock answers). */
  get pathExamples(): Readonly<Record<string, string>> {
    return this.memo.get('pathExamples', () => pathParameterExamples(this.contract.doc, this.op));
  }

  get headerParameters(): readonly ParameterView[] {
    return this.memo.get('headerParameters', () => this.withViews(headerParametersOf(this.contract.doc, this.op)));
  }

  get queryParameters(): readonly ParameterView[] {
    return this.memo.get('queryParameters', () => this.withViews(queryParametersOf(this.contract.doc, this.op)));
  }

  private withViews(parameters: HeaderParameter[]): ParameterView[] {
    return parameters.map((parameter) => ({ ...parameter, view: viewOf(this.contract.doc, parameter.schema) }));
  }

  /** Every response the operation documents, in document order. */
  get responses(): readonly DocumentedResponse[] {
    return this.memo.get('responses', () => documentedResponses(this.contract.doc, this.op));
  }

  /** The response documented for `status`: the exact code, else its range (`4XX`), else `default`. */
  response(status: number): DocumentedResponse | undefined {
    return documentedResponseIn(this.responses, status);
  }

  /** The first documented success response and its body's schema; undefined when none is documented. */
  get success(): Success | undefined {
    return this.memo.get('success', () => {
      const response = this.responses.find((r) => /^2/.test(r.key));
      if (!response) return undefined;
      const schemaPointer = schemaPointerFor(response, undefined);
      if (schemaPointer === undefined) return { response };
      const { doc } = this.contract;
      const { node } = followRef(doc, resolvePointer(doc, schemaPointer), schemaPointer);
      return { response, schemaPointer, ...(node && typeof node === 'object' && !Array.isArray(node) ? { schema: node as JsonObject } : {}) };
    });
  }

  /** The links from this operation's success responses, in the contract's order. */
  get linksOut(): readonly ContractLink[] {
    return this.memo.get('linksOut', () => this.contract.links.filter((link) => link.source.operationId === this.operationId));
  }

  /** The links to this operation, in the contract's order. */
  get linksIn(): readonly ContractLink[] {
    return this.memo.get('linksIn', () => this.contract.links.filter((link) => link.target.operationId === this.operationId));
  }

  /** The links from this operation whose target has the role given (`read`: the reads of what it creates). */
  linksOutWith(role: Role): readonly ContractLink[] {
    return this.memo.get(`out ${role}`, () => this.linksOut.filter((link) => roleOf(link) === role));
  }

  /**
   * The link that names every path parameter of this operation from what another operation
   * created (`createWebhook` → `getWebhook` by `id`); undefined when no link does, or the path
   * has no parameter.
   */
  get pathLink(): ContractLink | undefined {
    return this.memo.get('pathLink', () => {
      const names = this.pathParameters;
      return names.length === 0 ? undefined : this.linksIn.find((link) => names.every((name) => name in link.parameters));
    });
  }

  /** The delete the contract links to what this operation creates (`createWebhook` → `deleteWebhook`), if any. */
  get deleteLink(): ContractLink | undefined {
    // The last one, as a map of the links by source keeps it.
    return this.memo.get('deleteLink', () => this.linksOutWith('delete').at(-1));
  }

  /** The fields of the request body that name a record of the run, and the records (fixtures) they need. */
  get bodyReferences(): readonly BodyReference[] {
    return this.memo.get('bodyReferences', () => bodyReferences(this.contract.links, this.operationId));
  }

  /** The key of the fixture that fills the body field named `field` (`productId`); undefined when no link fills it. */
  fixtureKeyOf(field: string): string | undefined {
    return fixtureKeyOf(this.bodyReferences, field);
  }
}

/** The whole contract, as one run reads it: its operations, their views, and its links. */
export class ContractView {
  /** Every operation of the contract, covered by the run or not, in document order. */
  readonly operations: readonly ContractOperation[];
  private readonly byId: Map<string, ContractOperation>;
  private readonly views = new Map<string, OperationView>();
  private readonly memo = new Memo();
  private validator: ContractValidator | undefined;

  /** `full`: the run's validator of the contract (a new one when not given). */
  constructor(
    readonly doc: JsonObject,
    full?: ContractValidator,
  ) {
    this.validator = full;
    this.operations = listOperations(doc);
    this.byId = new Map(this.operations.map((op) => [op.operationId, op]));
  }

  get full(): ContractValidator {
    this.validator ??= new ContractValidator(this.doc);
    return this.validator;
  }

  operation(operationId: string): ContractOperation {
    const op = this.byId.get(operationId);
    if (!op) throw new Error(`The contract has no operation ${operationId}`);
    return op;
  }

  /** The operation, or undefined when the contract has none of that id. */
  find(operationId: string): ContractOperation | undefined {
    return this.byId.get(operationId);
  }

  /** The view of one operation: made the first time it is asked for, then the same for the run. */
  view(operation: ContractOperation | string): OperationView {
    const operationId = typeof operation === 'string' ? operation : operation.operationId;
    let view = this.views.get(operationId);
    if (!view) {
      view = new OperationView(this, this.operation(operationId));
      this.views.set(operationId, view);
    }
    return view;
  }

  /** Every link of the contract, in the order of its operations and their responses. */
  get links(): readonly ContractLink[] {
    return this.memo.get('links', () => listLinks(this.doc));
  }

  /** The links whose target has the role given, in the contract's order. */
  linksWith(role: Role): readonly ContractLink[] {
    return this.memo.get(`links ${role}`, () => this.links.filter((link) => roleOf(link) === role));
  }

  /** The body references of the links whose target has the role given (`use`: a create naming another record). */
  referencesWith(role: Role): readonly BodyReference[] {
    return this.memo.get(`references ${role}`, () => referencesOf(this.linksWith(role)));
  }

  /** The records made before the checks run (relations.ts). */
  get upfrontFixtures(): readonly FixtureSpec[] {
    return this.memo.get('upfrontFixtures', () => upfrontFixtures(this.links));
  }

  /** Whether some request of the contract names records of fixture key `key`. */
  isFixtureKey(key: string): boolean {
    return this.memo.get(`fixture key ${key}`, () => isFixtureKey(this.links, key));
  }
}
