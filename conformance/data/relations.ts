/**
 * Which records the run creates so that other requests can name them, and where those
 * requests name them: read off the contract's links (lib/contract/links.ts), never off a list
 * of operationIds. A link with a request body says "this field of the target is filled from
 * the source's answer" (`createProduct` → `createPaymentLink` fills `items[].productId`); the
 * link's `x-created-with` says what the source's record must be created with (a subscription
 * bills a product created with `isSubscription: true`).
 */
import type { ContractOperation, JsonObject } from '../../lib/contract/bundled.js';
import { linkedFields, linkRole, type ContractLink, type LinkedField } from '../../lib/contract/links.js';

/** A record the run creates for other requests to name: made by `source` with the values `createdWith`. */
export interface FixtureSpec {
  /** The source's operationId, followed by the values it is created with when a link asks for some. */
  key: string;
  source: ContractOperation;
  createdWith: JsonObject;
}

/** A field of an operation's request body that names a record of the run, and the link that says so. */
export interface BodyReference {
  link: ContractLink;
  field: LinkedField;
  fixture: FixtureSpec;
}

export function fixtureOf(link: ContractLink): FixtureSpec {
  const createdWith = link.createdWith ?? {};
  const values = Object.keys(createdWith)
    .sort()
    .map((name) => `${name}=${JSON.stringify(createdWith[name])}`);
  return { key: values.length > 0 ? `${link.source.operationId}(${values.join(', ')})` : link.source.operationId, source: link.source, createdWith };
}

/** Whether a fixture key names records made by `source`. */
export function isKeyOf(key: string, source: ContractOperation): boolean {
  return key === source.operationId || key.startsWith(`${source.operationId}(`);
}

/**
 * The functions below read a list of the contract's links (`listLinks`); the run lists them
 * once and keeps what they give per operation (contract-view.ts).
 */
type Links = readonly ContractLink[];

/** The fields of `operationId`'s request body that name a record of the run, in the contract's order. */
export function bodyReferences(links: Links, operationId: string): BodyReference[] {
  return referencesOf(links.filter((link) => link.target.operationId === operationId));
}

/** Every body reference of the links given. */
export function referencesOf(links: Links): BodyReference[] {
  return links.flatMap((link) => linkedFields(link).map((field) => ({ link, field, fixture: fixtureOf(link) })));
}

/**
 * The records made before the checks run: those a create names in its body (`use` links), one
 * per source and values asked for. Records only a change names (the subscription an update
 * changes) are made when an operation first needs them.
 */
export function upfrontFixtures(links: Links): FixtureSpec[] {
  const byKey = new Map<string, FixtureSpec>();
  for (const { fixture } of referencesOf(links.filter((link) => linkRole(link) === 'use'))) if (!byKey.has(fixture.key)) byKey.set(fixture.key, fixture);
  return [...byKey.values()];
}

/** Whether some request of the contract names records made by `key` (a fixture the run may keep). */
export function isFixtureKey(links: Links, key: string): boolean {
  return links.some((link) => linkedFields(link).length > 0 && fixtureOf(link).key === key);
}

/**
 * The key of the fixture that fills the field named `field` (the last step of its path) of
 * the body whose references are given; undefined when no link fills it.
 */
export function fixtureKeyOf(references: readonly BodyReference[], field: string): string | undefined {
  return references.find((ref) => ref.field.path.at(-1) === field)?.fixture.key;
}

/** A field path as people write it: `items[].productId`. */
export function pathText(path: ReadonlyArray<string | number>): string {
  return path.map((step, i) => (typeof step === 'number' ? '[]' : i === 0 ? step : `.${step}`)).join('');
}

/**
 * Calls `visit(holder, key)` for every place of `body` the path reaches (a number step is every
 * item of an array), where `holder[key]` may be read, replaced or deleted.
 */
export function forEachAt(body: unknown, path: ReadonlyArray<string | number>, visit: (holder: Record<string, unknown>, key: string) => void): void {
  const [step, ...rest] = path;
  if (step === undefined) return;
  if (typeof step === 'number') {
    if (Array.isArray(body)) for (const item of body) forEachAt(item, rest, visit);
    return;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const holder = body as Record<string, unknown>;
  if (!(step in holder)) return;
  if (rest.length === 0) visit(holder, step);
  else forEachAt(holder[step], rest, visit);
}

/** What the records of an operation are called in messages: the last fixed segment of its path before any parameter (`/charge/{id}` → charge). */
export function recordNoun(op: ContractOperation): string {
  const fixed = op.path.split('/{')[0]!.split('/').filter(Boolean);
  return fixed.at(-1) ?? op.operationId;
}
