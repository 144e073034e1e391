import { createId } from '../../lib/ids/cuid2.js';

/** Identifier prefixes of the contract (seed: `clnt_`, `comp_`; the rest D13). */
export const idPrefixes = {
  client: 'clnt',
  company: 'comp',
  charge: 'char',
  product: 'prod',
  subscription: 'subs',
  order: 'ordr',
  orderItem: 'oitm',
  sales: 'sale',
  checkoutPreferences: 'ckpf',
  webhook: 'wbhk',
} as const;

export function newId(kind: keyof typeof idPrefixes): string {
  return `${idPrefixes[kind]}_${createId()}`;
}
