#!/usr/bin/env node
// `npm run keys` as a command of its own (package.json `bin`); see bin/pix-conformance.mjs.
import { fromRepository } from './from-repository.mjs';

const { register } = await fromRepository('pix-keys', '../server/cli/keys.ts');
register();
await import('../server/cli/keys.ts');
