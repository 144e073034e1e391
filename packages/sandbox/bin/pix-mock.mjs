#!/usr/bin/env node
// `pix-mock`: the honest mock (Prism on the bundled contract, behind the front that makes its
// refusals the contract's problems), as `npm run mock` runs it in a clone.
import { commandLine, needPrism, portFlag } from './common.mjs';

const name = 'pix-mock';
const usage = `Usage: pix-mock [--port N] [--host ADDRESS]

Serves the contract's examples on both base URLs, on one port, with no state: each request is
checked against the contract and answered with its example, or refused with the contract's
problem naming what was wrong. A request's Prefer header picks the answer, e.g.
Prefer: code=404 or Prefer: example=<name>. Ctrl+C stops it.

  --port N          port to listen on (default: MOCK_PORT, else 4010)
  --host ADDRESS    interface to listen on (default: MOCK_HOST, else 127.0.0.1)

For records that stay and charges that get paid, run the sandbox: pix-sandbox.
`;

const { values } = commandLine(name, process.argv.slice(2), { port: { type: 'string' }, host: { type: 'string' } });
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
if (values.port !== undefined) process.env.MOCK_PORT = portFlag(name, values.port, 1);
if (values.host !== undefined) process.env.MOCK_HOST = values.host;
needPrism(name);
await import('../dist/mock.mjs');
