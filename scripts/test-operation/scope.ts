/**
 * The operations `npm run test:operation` judges, for the operation-wide tests that walk every
 * operation inside one test (a fuzz across all of them, a whole conformance run): the command sets
 * `TEST_OPERATION_SCOPE` to the operation and the creates whose links read it back, and those
 * tests walk only them. `npm test` leaves it unset, and they walk every operation.
 */
export const scopeVariable = 'TEST_OPERATION_SCOPE';

/** The operationIds in scope, or undefined when every operation is (the variable unset or empty). */
export function operationScope(env: NodeJS.ProcessEnv = process.env): readonly string[] | undefined {
  const ids = (env[scopeVariable] ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  return ids.length > 0 ? ids : undefined;
}

/** The operations in scope, in their order: all of them outside the loop. */
export function inScope<T extends { operationId: string }>(operations: readonly T[], env: NodeJS.ProcessEnv = process.env): T[] {
  const scope = operationScope(env);
  return scope ? operations.filter((op) => scope.includes(op.operationId)) : [...operations];
}
