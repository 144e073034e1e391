import type { Config } from '../config.js';
import type { CompanyReset, Store } from '../store/types.js';

/**
 * Why a deployment refuses to reset a company (D51), or undefined where it may: only a
 * development deployment resets. One rule for the request (`POST /sandbox/reset`) and the
 * operator's command (`npm run keys -- reset`).
 */
export function resetRefusal(mode: Config['mode'], how: 'request' | 'command'): string | undefined {
  if (mode === 'development') return undefined;
  const what = how === 'request' ? 'POST /sandbox/reset works' : 'resets work';
  return `This deployment runs in production, where a company's records are never reset: ${what} only on a development deployment. Nothing was deleted.`;
}

/** D51: deletes every record of the company (the company and its keys stay), when the deployment allows it. */
export async function resetCompany(
  deps: { store: Pick<Store, 'resetCompany'>; config: Pick<Config, 'mode'> },
  companyId: string,
  how: 'request' | 'command',
): Promise<{ refused: string } | { deleted: CompanyReset } | undefined> {
  const refused = resetRefusal(deps.config.mode, how);
  if (refused) return { refused };
  const deleted = await deps.store.resetCompany(companyId);
  return deleted && { deleted };
}
