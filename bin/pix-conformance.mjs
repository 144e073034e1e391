#!/usr/bin/env node
// `npm run conformance` as a command of its own (package.json `bin`), so CI can call it with the
// keys in CONFORMANCE_* variables and nothing secret on its command line. The CLI is TypeScript:
// tsx's loader is registered in this process, then the CLI runs here with this process's argv.
import { fromRepository } from './from-repository.mjs';

const { register } = await fromRepository('pix-conformance', '../conformance/cli.ts');
register();
await import('../conformance/cli.ts');
