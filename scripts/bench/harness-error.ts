/**
 * A failure of the benchmark itself (a target that does not start, a non-2xx answer under load,
 * seed data refused), as opposed to a target that is too slow. It ends the run with exit code 2:
 * figures measured on a broken setup mean nothing.
 */
export class HarnessError extends Error {
  override readonly name = 'HarnessError';
}
