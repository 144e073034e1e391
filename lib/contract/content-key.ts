import { createHash } from 'node:crypto';
import type { JsonObject } from './bundled.js';

/**
 * What names a contract's validators made ahead for a contract other than the bundled one (the
 * conformance suite's seed view of it): a hash of its content and the option. The build and the
 * bundled command compute it alike, so validators made for a view are found only for that view.
 */
export function contentKey(contract: JsonObject, useDefaults: boolean): string {
  return createHash('sha256').update(`${useDefaults}\n`).update(JSON.stringify(contract)).digest('hex').slice(0, 32);
}
