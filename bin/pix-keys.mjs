#!/usr/bin/env node
// `npm run keys` as a command of its own (package.json `bin`); see bin/pix-conformance.mjs.
import { register } from 'tsx/esm/api';

register();
await import('../server/cli/keys.ts');
