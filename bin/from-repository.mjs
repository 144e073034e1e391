// The commands run the repository's TypeScript (the conformance suite through vitest, the keys
// CLI on the server's store), which the packed package does not carry: it carries the client
// only, so that installing it pulls two small dependencies. npm puts `bin` files in every
// tarball all the same; run from one, a command says where it works instead of failing on a
// missing module.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** tsx's loader API, once `entry` (relative to bin/) is known to be here; else a message and exit 2. */
export async function fromRepository(command, entry) {
  if (!existsSync(fileURLToPath(new URL(entry, import.meta.url)))) {
    console.error(
      `${command} runs from a clone of the repository (git clone …, npm ci, then npx ${command} …): this installed package holds the TypeScript client only.`,
    );
    process.exit(2);
  }
  return import('tsx/esm/api');
}
