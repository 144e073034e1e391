// How a validation problem (422) lists its field errors and says them in words (D02, D49): one
// definition for the reference server (server/http/problems.ts) and the mock's refusals
// (scripts/mock/refusals.mjs), which is plain JavaScript run by node; hence a .mjs module with
// its types beside it (field-errors.d.mts).

/** Field errors an answer lists at most; the rest are counted in `omittedErrors`. */
export const MAX_FIELD_ERRORS = 20;
/** Field errors the `detail` says in words at most. */
const WORDED_ERRORS = 5;
/** Longest echo of the request (a pointer, a parameter or header name) in an answer: a field name may be a megabyte long. */
export const MAX_ECHO = 200;
/** Longest `detail` of one field error. */
const MAX_FIELD_DETAIL = 300;

/** `text`, cut to `max` characters with an ellipsis. */
export function cut(text, max) {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Where a field error is, for a person: `items/0/productId`, `the body`, `parameter limit`, `header Idempotency-Key`. */
export function placeOf(error) {
  if (error.parameter !== undefined) return `parameter ${error.parameter}`;
  if (error.header !== undefined) return `header ${error.header}`;
  const pointer = error.pointer ?? '';
  return pointer === '' ? 'the body' : pointer.slice(1);
}

/**
 * The field errors a validation problem carries: the first `MAX_FIELD_ERRORS`, every echo of the
 * request in them cut short, with how many were left out (`omitted` more were never listed), and
 * its `detail`: the first five in words (`items/0/productId must look like prod_…; total must be
 * at least 500.`), then how many more.
 */
export function validationFields(errors, omitted = 0) {
  const listed = errors.slice(0, MAX_FIELD_ERRORS).map((error) => ({
    ...error,
    ...(error.pointer !== undefined ? { pointer: cut(error.pointer, MAX_ECHO) } : {}),
    ...(error.parameter !== undefined ? { parameter: cut(error.parameter, MAX_ECHO) } : {}),
    ...(error.header !== undefined ? { header: cut(error.header, MAX_ECHO) } : {}),
    detail: cut(error.detail, MAX_FIELD_DETAIL),
  }));
  const omittedErrors = omitted + Math.max(0, errors.length - MAX_FIELD_ERRORS);
  const worded = listed.slice(0, WORDED_ERRORS).map((error) => `${placeOf(error)} ${error.detail}`);
  const rest = listed.length + omittedErrors - worded.length;
  const detail = `${worded.join('; ')}${rest > 0 ? `; and ${rest} more problem${rest === 1 ? '' : 's'} (see errors)` : ''}.`;
  return { errors: listed, omittedErrors, detail };
}
