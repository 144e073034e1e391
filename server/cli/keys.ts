import { parseArgs } from 'node:util';
import { isValidCpfOrCnpj } from '../../lib/brazil/tax-id.js';
import { readPixKey, UNPAYABLE_PIX_KEY } from '../../lib/pix/pix-key.js';
import { createCompanyWithKey, openStore } from '../bootstrap.js';
import { ConfigError, loadConfig } from '../config.js';

const usage = `Usage: npm run keys -- create --company "Name" [--tax-id CNPJ] [--pix-key KEY] [--city City] [--color '#RRGGBB'] [--json]

Creates a company and its API key in the database of the server (DATABASE_URL, or else the SQLite
file at DATABASE_PATH, default ./data/payments.db) and prints the key once: on a terminal, or as one JSON
line with --json (for a script that keeps it). Keys are stored hashed; a lost key cannot be shown again.

--pix-key is the company's own Pix key (CPF, CNPJ, e-mail, +55 mobile number or random key), which
its live charges carry. Without it, and on every development charge, the BR Code names a key that no
one can register, so the code cannot be paid.`;

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions();
  } catch (error) {
    fail(`${(error as Error).message}\n\n${usage}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(usage);
    return;
  }
  if (positionals[0] !== 'create' || positionals.length !== 1) fail(usage);
  const name = values.company?.trim();
  if (!name || name.length > 255) fail('--company must be a name of 1 to 255 characters');
  const taxId = values['tax-id'];
  if (taxId !== undefined && !isValidCpfOrCnpj(taxId)) fail('--tax-id must be a CNPJ (14 digits) or CPF (11 digits) with valid check digits');
  let pixKey: string | undefined;
  if (values['pix-key'] !== undefined) {
    const reading = readPixKey(values['pix-key']);
    if ('problem' in reading) fail(`--pix-key must be a Pix key: ${reading.problem}`);
    pixKey = reading.key;
  }
  const color = values.color;
  if (color !== undefined && !/^#(?:[0-9A-Fa-f]{3}){1,2}$/.test(color)) fail('--color must be a hex colour such as #0E7C66');
  // A key is printed only where it was asked for: a person's terminal, or --json for a script
  // that reads it. Plain text into a pipe or file (a log) is refused before anything is made.
  if (!values.json && !process.stdout.isTTY)
    fail(
      'The output is not a terminal, so the key is not printed there: run this on a terminal, or add --json to print {"companyId","apiKey"} for a script to keep. Nothing was created.',
    );

  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(`Configuration error: ${error.message}`);
    throw error;
  }
  const store = await openStore(config);
  try {
    const { companyId, apiKey } = await createCompanyWithKey(store, {
      name,
      ...(taxId ? { taxId } : {}),
      ...(pixKey ? { pixKey } : {}),
      ...(values.city ? { city: values.city } : {}),
      ...(color ? { color } : {}),
    });
    if (values.json) console.log(JSON.stringify({ companyId, apiKey }));
    else {
      const pix = pixKey
        ? `Its live charges carry the Pix key ${pixKey}.`
        : `It has no Pix key: its charges carry ${UNPAYABLE_PIX_KEY} and cannot be paid (--pix-key sets one).`;
      console.log(`Created company ${companyId} (${name}).\n${pix}\nAPI key (shown only now):\n\n  ${apiKey}\n`);
    }
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => fail(`keys: ${(error as Error).message}`));

/** The command line's options, as `parseArgs` reads them (it throws on an unknown or malformed one). */
function parseOptions() {
  return parseArgs({
    allowPositionals: true,
    options: {
      company: { type: 'string' },
      'tax-id': { type: 'string' },
      'pix-key': { type: 'string' },
      city: { type: 'string' },
      color: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}
