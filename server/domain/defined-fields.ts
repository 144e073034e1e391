/**
 * The fields `keys` of `source` that are set, as a typed object to spread into a record: the
 * compiler then checks each field's type against the record's, which a loop of assignments
 * through an index signature would not.
 */
export function definedFields<S extends object, K extends keyof S>(source: S, keys: readonly K[]): Partial<Pick<S, K>> {
  const out: Partial<Pick<S, K>> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
