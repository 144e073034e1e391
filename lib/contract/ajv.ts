import type Ajv2020Module from 'ajv/dist/2020.js';
import type { CodeOptions, ErrorObject } from 'ajv';
import { loadBundledContract, type JsonObject } from './bundled.js';
import { addContractFormats, customFormats } from './formats.js';
import { onFirstUse } from './on-first-use.js';
import { escapeToken } from './pointer.js';
import { contentKey } from './content-key.js';
import { precompiled as built, precompiledViews, type PrecompiledValidators, type Validate } from './precompiled.js';
import { cachedValidators, fromSource, type Maker } from './validator-cache.js';

export type { Validate } from './precompiled.js';

// Loaded when an instance is first made: the compiled server makes none when its build made
// every validator it uses. CommonJS interop: the class is also the module's `default`, which is
// what NodeNext types see.
const ajv2020Module = onFirstUse<typeof Ajv2020Module>(() => require('ajv/dist/2020.js'), 'ajv/dist/2020.js', import.meta.url);
export type Ajv = InstanceType<(typeof Ajv2020Module)['default']>;

const CONTRACT_ID = 'contract';

/**
 * One Ajv 2020 instance holding the whole bundled contract, so any schema of it can be compiled
 * by JSON Pointer (`schemaAt`) with its `$ref`s resolved. `code` is given only to make standalone
 * code (lib/contract/standalone.ts): every other option is the same, so validators made ahead of
 * time answer exactly as ones compiled at run time.
 */
export function contractAjv(contract: JsonObject, options: { useDefaults: boolean }, code?: CodeOptions): Ajv {
  const Ajv2020 = ajv2020Module().default;
  const ajv = new Ajv2020({
    allErrors: true,
    useDefaults: options.useDefaults,
    // Errors carry the failing keyword's schema, which turns anyOf failures into readable text.
    verbose: true,
    // OpenAPI adds keywords (example, discriminator, x-…) that are not JSON Schema.
    strict: false,
    validateSchema: false,
    logger: false,
    ...(code ? { code } : {}),
  });
  addContractFormats(ajv);
  ajv.addSchema(contract as object, CONTRACT_ID);
  return ajv;
}

/** The schema compiled for `pointer`: a reference to it in the contract held by `contractAjv`. */
export function schemaAt(pointer: string): { $ref: string } {
  return { $ref: `${CONTRACT_ID}#${encodePointer(pointer)}` };
}

/** What makes a contract's standalone code (lib/contract/validator-cache.ts, which cannot import this module). */
export const validatorMaker: Maker = { contractAjv, schemaAt };

/**
 * The contract's validators by JSON Pointer, each made once per process. The compiled server's
 * build makes those it uses (`PrecompiledValidators`); any other is compiled here, by an Ajv
 * instance made only then: compiling the contract's schemas was the largest part of the server's
 * start-up.
 */
export class ContractValidator {
  private ajv: Ajv | undefined;
  private readonly cache = new Map<string, Validate>();
  private readonly useDefaults: boolean;
  /** Validators made ahead for this contract and this option: at build time, or from source kept on disk (read when first asked for). */
  private ahead: Readonly<Record<string, Validate>> | undefined;
  private compiles = 0;

  /**
   * `useDefaults` fills in the contract's `default`s while validating (the server does, for
   * requests); checkers of responses must not, or a missing field would pass as its default.
   * `precompiled` replaces the build's validators (tests of them); it must be made with the same
   * `useDefaults`. `onDisk` keeps the validators between processes when running from source
   * (lib/contract/validator-cache.ts): by default for the bundled contract, which is what most
   * processes validate; a view of it (the conformance suite's seed view) asks for it too.
   */
  constructor(
    readonly contract: JsonObject = loadBundledContract(),
    options: { useDefaults?: boolean; precompiled?: PrecompiledValidators; onDisk?: boolean } = {},
  ) {
    this.useDefaults = options.useDefaults ?? false;
    if (options.precompiled !== undefined && options.precompiled.useDefaults !== this.useDefaults) {
      throw new Error(`precompiled validators made with useDefaults ${options.precompiled.useDefaults} given to a validator with ${this.useDefaults}`);
    }
    // The build's validators are of the bundled contract, with the server's option: another
    // contract (the conformance suite's views of it) or option is compiled at run time.
    const bundled = contract === loadBundledContract();
    const ahead =
      options.precompiled ??
      (bundled ? built : Object.keys(precompiledViews).length > 0 ? precompiledViews[contentKey(contract, this.useDefaults)] : undefined);
    if (ahead?.useDefaults === this.useDefaults) this.ahead = ahead.validators;
    else if (!(fromSource && options.precompiled === undefined && (options.onDisk ?? bundled))) this.ahead = {};
  }

  /** A validator for the schema at `pointer` in the contract (e.g. `/components/schemas/Charge`). */
  at(pointer: string): Validate {
    const cached = this.cache.get(pointer);
    if (cached) return cached;
    this.ahead ??= cachedValidators(this.contract, this.useDefaults, validatorMaker);
    const validate = this.ahead[pointer] ?? this.compile(pointer);
    this.cache.set(pointer, validate);
    return validate;
  }

  /** How many validators were compiled at run time: none in the compiled server, when its build made every one it asks for. */
  get compiledAtRunTime(): number {
    return this.compiles;
  }

  private compile(pointer: string): Validate {
    this.ajv ??= contractAjv(this.contract, { useDefaults: this.useDefaults });
    this.compiles += 1;
    return this.ajv.compile(schemaAt(pointer));
  }
}

function encodePointer(pointer: string): string {
  return pointer
    .split('/')
    .map((token) => encodeURIComponent(token).replace(/%7E/gi, '~'))
    .join('/');
}

export interface FieldError {
  detail: string;
  pointer?: string;
  parameter?: string;
  header?: string;
  keyword: string;
}

/**
 * Turns Ajv errors into the contract's field errors (ProblemFieldError): one entry per
 * failing member, pointing at the member itself (also for a missing or unknown one), with
 * the branch noise of `anyOf` and `dependentSchemas` folded into one readable entry.
 */
export function toFieldErrors(errors: readonly ErrorObject[]): FieldError[] {
  const result: FieldError[] = [];
  const seen = new Set<string>();
  const anyOfPaths = errors.filter((e) => e.keyword === 'anyOf').map((e) => e.schemaPath);
  const formatFailed = new Set(errors.filter((e) => e.keyword === 'format').map((e) => e.instancePath));
  for (const error of errors) {
    // Errors inside a failed anyOf branch are summarised by the anyOf entry itself.
    if (error.keyword !== 'anyOf' && anyOfPaths.some((p) => error.schemaPath.startsWith(`${p}/`))) continue;
    // A value that fails its pattern and its format is one mistake: the format's message (what the
    // field must hold: "a CPF of 11 digits…") says more than the pattern's regular expression.
    if (error.keyword === 'pattern' && formatFailed.has(error.instancePath)) continue;
    const entry = describe(error);
    const key = `${entry.pointer}\u0000${entry.detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(entry);
  }
  return result;
}

function describe(error: ErrorObject): FieldError {
  const at = error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { pointer: `${at}/${escapeToken(String(params.missingProperty))}`, detail: 'is required', keyword: 'required' };
    case 'additionalProperties':
      return { pointer: `${at}/${escapeToken(String(params.additionalProperty))}`, detail: 'is not a field of this request', keyword: 'additionalProperties' };
    case 'format': {
      const format = customFormats[params.format as keyof typeof customFormats];
      return { pointer: at, detail: format?.message ?? `must be a valid ${String(params.format)}`, keyword: 'format' };
    }
    case 'anyOf': {
      const branches: unknown = error.schema;
      const names = Array.isArray(branches)
        ? branches.flatMap((b) => (b && typeof b === 'object' && Array.isArray((b as JsonObject).required) ? ((b as JsonObject).required as string[]) : []))
        : [];
      return names.length
        ? { pointer: at, detail: `must have at least one of: ${names.join(', ')}`, keyword: 'anyOf' }
        : { pointer: at, detail: 'must match one of the allowed forms', keyword: 'anyOf' };
    }
    case 'false schema': {
      const dependent = /\/dependentSchemas\/([^/]+)\//.exec(error.schemaPath)?.[1];
      return { pointer: at, detail: dependent ? `must not be sent together with ${dependent}` : 'is not allowed here', keyword: 'not' };
    }
    default:
      return { pointer: at, detail: inWords(error), keyword: error.keyword };
  }
}

const typeWords: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** What a field must be, said for a person (Ajv's messages say `must be >= 500`, `must match pattern "^…$"`). */
function inWords(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const schema = error.parentSchema as JsonObject | undefined;
  switch (error.keyword) {
    case 'minimum':
      return `must be at least ${String(params.limit)}`;
    case 'maximum':
      return `must be at most ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `must be more than ${String(params.limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(params.limit)}`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must have at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `must have at most ${String(params.limit)} characters`;
    case 'minItems':
      return params.limit === 1 ? 'must have at least one item' : `must have at least ${String(params.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(params.limit)} items`;
    case 'minProperties':
      return params.limit === 1 ? 'must not be empty' : `must have at least ${String(params.limit)} fields`;
    case 'maxProperties':
      return `must have at most ${String(params.limit)} fields`;
    case 'multipleOf':
      return `must be a multiple of ${String(params.multipleOf)}`;
    case 'uniqueItems':
      return `must not repeat an item (items ${String(params.j)} and ${String(params.i)} are the same)`;
    case 'type': {
      const types = String(params.type).split(',');
      return `must be ${types.map((type) => typeWords[type] ?? type).join(' or ')}`;
    }
    case 'enum': {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues.map((v) => String(v)) : [];
      return allowed.length > 0 && allowed.length <= 12 ? `must be one of ${allowed.join(', ')}` : 'must be one of the allowed values';
    }
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'pattern': {
      const example = Array.isArray(schema?.examples) ? schema.examples.find((e): e is string => typeof e === 'string') : undefined;
      return example ? `must look like ${likeExample(example)}` : `must match the pattern ${String(params.pattern)}`;
    }
    default:
      return error.message ?? 'is invalid';
  }
}

/** An example a value must look like: an identifier by its prefix (`prod_…`), anything else as it is. */
function likeExample(example: string): string {
  if (/^https?:\/\//.test(example)) return `an absolute http or https URL (${example})`;
  const prefixed = /^([a-z]{2,8}_)[0-9a-z]{8,}$/.exec(example);
  return prefixed ? `${prefixed[1]}…` : example;
}
