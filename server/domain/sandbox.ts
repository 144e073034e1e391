import type { Config } from '../config.js';
import { keysCommandName } from '../keys-command.js';
import type { DeploymentMode } from '../deployment-mode.js';
import type { CompanyReset, Store } from '../store/types.js';

/** How an operator changes a database's recorded mode on purpose (D51): the one way, said wherever it is refused. */
export function modeChangeHint(mode: DeploymentMode): string {
  return `To change the database's recorded mode on purpose, stop every server on it and run: ${keysCommandName()} mode ${mode} --change`;
}

/**
 * Why a deployment refuses to reset a company (D51), or undefined where it may: only a
 * development deployment on a database not recorded as production's resets. One rule for the
 * request (`POST /sandbox/reset`) and the operator's command (`npm run keys -- reset`), whose
 * NODE_ENV may not be the server's: the mode recorded in the database wins.
 */
export function resetRefusal(mode: Config['mode'], how: 'request' | 'command', recorded?: DeploymentMode): string | undefined {
  if (mode === 'development' && recorded !== 'production') return undefined;
  const what = how === 'request' ? 'POST /sandbox/reset works' : 'resets work';
  if (mode === 'production') {
    return `This deployment runs in production, where a company's records are never reset: ${what} only on a development deployment. Nothing was deleted.`;
  }
  return (
    `This database is recorded as a production deployment's, where a company's records are never reset, whatever NODE_ENV says here: ${what} only on a development database. ` +
    `Nothing was deleted. ${modeChangeHint('development')}`
  );
}

/** D51: deletes every record of the company (the company and its keys stay), when the deployment and its database allow it. */
export async function resetCompany(
  deps: { store: Pick<Store, 'resetCompany' | 'deploymentMode'>; config: Pick<Config, 'mode'> },
  companyId: string,
  how: 'request' | 'command',
): Promise<{ refused: string } | { deleted: CompanyReset } | undefined> {
  const refused = resetRefusal(deps.config.mode, how, deps.config.mode === 'production' ? undefined : await deps.store.deploymentMode());
  if (refused) return { refused };
  const deleted = await deps.store.resetCompany(companyId);
  return deleted && { deleted };
}
