import { parseArgs } from 'node:util';
import { isValidCpfOrCnpj } from '../../lib/brazil/tax-id.js';
import { readPixKey, UNPAYABLE_PIX_KEY } from '../../lib/pix/pix-key.js';
import { issueApiKey, keyLabel, keyIdOf } from '../auth/api-keys.js';
import { createCompanyWithKey, openStore } from '../bootstrap.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { resetCompany, resetRefusal } from '../domain/sandbox.js';
import { hardLinkRefusal, takeWriterLock, writerLockPath } from '../store/sqlite/writer-lock.js';
import { keysCommandName } from '../start-up.js';
import type { CompanyRecord, Store } from '../store/types.js';

/** The keys command as its user types it (`npm run keys --`, or the sandbox package's `npx pix-keys`). */
const keys = keysCommandName();

const usage = `Usage: ${keys} <command> [options]

  create --company "Name" [--tax-id CNPJ] [--pix-key KEY] [--city City] [--color '#RRGGBB'] [--json]
      Creates a company and its first API key, and prints the key once.
  list [--json]
      Lists the companies and the ids of their keys (sk_<key id>_…); never a key itself.
  issue --company COMPANY [--json]
      Gives an existing company (its id comp_…, or its exact name) another API key, printed once.
      Its other keys keep working until they are revoked.
  revoke --key KEY
      Revokes a key, named by its id, its sk_<key id>_… form or the whole key: it stops working
      (a running server stops accepting it within a minute).
  reset --company COMPANY
      Deletes every record of a company (clients, products, subscriptions, orders, charges, webhook
      registrations and their events); the company and its keys stay. Development only: NODE_ENV
      and the mode recorded in the database must both say development.
  mode [development|production] [--change]
      Prints the deployment mode recorded in the database (the first server to start on it records
      its own); with a mode, records it where none is; with --change, replaces the recorded one
      (stop every server on the database first: each checks it when it starts).

The commands work on the database of the server (DATABASE_URL, or else the SQLite file at
DATABASE_PATH, default ./data/payments.db), also while it runs. A key is printed only where it
was asked for: on a terminal, or as one JSON line with --json (for a script that keeps it). Keys
are stored hashed; a lost key cannot be shown again: issue another and revoke the lost one.

--pix-key is the company's own Pix key (CPF, CNPJ, e-mail, +55 mobile number or random key), which
its live charges carry. Without it, and on every development charge, the BR Code names a key that no
one can register, so the code cannot be paid.`;

/** Exit codes: 2 for a command line that cannot run, 1 for one that ran and was refused (nothing changed). */
function fail(message: string, code: 1 | 2 = 2): never {
  console.error(message);
  process.exit(code);
}

type Options = ReturnType<typeof parseOptions>['values'];

/** The options each command takes (besides --help); any other is refused before anything is opened. */
const optionsOf: Record<string, ReadonlyArray<keyof Options>> = {
  create: ['company', 'tax-id', 'pix-key', 'city', 'color', 'json'],
  list: ['json'],
  issue: ['company', 'json'],
  revoke: ['key'],
  reset: ['company'],
  mode: ['change'],
};

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
  const command = positionals[0];
  if (command === undefined || !(command in optionsOf) || positionals.length !== (command === 'mode' && positionals.length === 2 ? 2 : 1)) fail(usage);
  const allowed = optionsOf[command]!;
  const stray = (Object.keys(values) as Array<keyof Options>).filter(
    (name) => name !== 'help' && values[name] !== undefined && values[name] !== false && !allowed.includes(name),
  );
  if (stray.length > 0) fail(`${command} takes no --${stray[0]}\n\n${usage}`);

  if (command === 'create') return create(values);
  if (command === 'list') return withStore((store) => list(store, values.json));
  if (command === 'issue') {
    const company = required(values.company, '--company must name the company: its id (comp_…) or its exact name');
    mayPrintKey(values.json, 'Nothing was issued.');
    return withStore((store) => issue(store, company, values.json));
  }
  if (command === 'revoke') {
    const key = required(values.key, '--key must name the key: its id, its sk_<key id>_… form or the whole key');
    const keyId = keyIdOf(key);
    if (!keyId) fail('--key must name a key: its id (24 lower-case letters and digits), its sk_<key id>_… form or the whole key');
    return withStore((store) => revoke(store, keyId));
  }
  if (command === 'mode') return mode(positionals[1], values.change);
  const company = required(values.company, '--company must name the company: its id (comp_…) or its exact name');
  return reset(company);
}

/** D51: the database's recorded deployment mode, printed, recorded where none is, or changed on purpose (`--change`). */
async function mode(wanted: string | undefined, change: boolean): Promise<void> {
  if (wanted !== undefined && wanted !== 'development' && wanted !== 'production') fail(`The mode is development or production, not ${wanted}.\n\n${usage}`);
  if (wanted === undefined && change) fail(`--change needs the mode to record: ${keys} mode development --change (or production)`);
  const cfg = config();
  const onSqliteFile = cfg.databaseUrl === undefined && cfg.databasePath !== ':memory:';
  // A server on a SQLite file checked the mode when it started: a change under it would not be seen.
  const lock = change && onSqliteFile ? takeWriterLock(cfg.databasePath) : undefined;
  if (change && onSqliteFile && !lock) fail(`A server is running on ${cfg.databasePath}: stop it before changing the database's mode. Nothing was changed.`, 1);
  try {
    await withStore(async (store) => {
      const recorded = await store.deploymentMode();
      if (wanted === undefined) {
        console.log(
          recorded === undefined ? 'No deployment mode is recorded in this database yet: the first server to start on it records its own.' : recorded,
        );
        return;
      }
      if (recorded !== undefined && recorded !== wanted && !change) {
        fail(
          `This database is recorded as a ${recorded} deployment's. Nothing was changed. To change it on purpose, stop every server on it and run: ${keys} mode ${wanted} --change`,
          1,
        );
      }
      await store.recordDeploymentMode(wanted, new Date(), { change });
      console.log(
        recorded === wanted
          ? `This database is already recorded as a ${wanted} deployment's.`
          : recorded === undefined
            ? `Recorded: this database is a ${wanted} deployment's.`
            : `Changed: this database is now a ${wanted} deployment's (it was ${recorded}'s). Start its servers with ${wanted === 'production' ? 'NODE_ENV=production' : 'NODE_ENV unset'}.`,
      );
    }, cfg);
  } finally {
    lock?.release();
  }
}

function required(value: string | undefined, message: string): string {
  const trimmed = value?.trim();
  if (!trimmed) fail(message);
  return trimmed;
}

/**
 * A key is printed only where it was asked for: a person's terminal, or --json for a script that
 * reads it. Plain text into a pipe or file (a log) is refused before anything is made.
 */
function mayPrintKey(json: boolean, nothing: string): void {
  if (!json && !process.stdout.isTTY)
    fail(
      `The output is not a terminal, so the key is not printed there: run this on a terminal, or add --json to print {"companyId","apiKey"} for a script to keep. ${nothing}`,
    );
}

function config(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(`Configuration error: ${error.message}`);
    throw error;
  }
}

async function withStore(use: (store: Store) => Promise<void>, cfg = config()): Promise<void> {
  const store = await openStore(cfg);
  try {
    await use(store);
  } finally {
    await store.close();
  }
}

async function create(values: Options): Promise<void> {
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
  mayPrintKey(values.json, 'Nothing was created.');

  await withStore(async (store) => {
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
  });
}

async function list(store: Store, json: boolean): Promise<void> {
  const companies = await store.listCompanies();
  const listed = [];
  for (const company of companies) {
    const keys = await store.listApiKeys(company.doc.id);
    listed.push({
      companyId: company.doc.id,
      name: company.doc.name,
      createdAt: company.doc.createdAt,
      keys: keys.map((key) => ({ keyId: key.id, key: keyLabel(key.id), createdAt: key.createdAt })),
    });
  }
  if (json) {
    console.log(JSON.stringify(listed));
    return;
  }
  if (listed.length === 0) {
    console.log(`No company yet: ${keys} create --company "Name" makes one and its key.`);
    return;
  }
  for (const company of listed) {
    console.log(`${company.companyId}  ${company.name}  (created ${company.createdAt})`);
    if (company.keys.length === 0) console.log(`  no key: ${keys} issue --company ${company.companyId}`);
    for (const key of company.keys) console.log(`  ${key.key}  created ${key.createdAt}`);
  }
}

/** The company a --company names: its id, or the one company with exactly that name. */
async function findCompany(store: Store, named: string): Promise<CompanyRecord> {
  if (/^comp_[a-z0-9]+$/.test(named)) {
    const company = await store.getCompany(named);
    if (!company) fail(`No company ${named} in this database (${keys} list shows them).`, 1);
    return company;
  }
  const matches = (await store.listCompanies()).filter((company) => company.doc.name === named);
  if (matches.length === 0) fail(`No company is named ${JSON.stringify(named)} in this database (${keys} list shows them).`, 1);
  if (matches.length > 1)
    fail(`${matches.length} companies are named ${JSON.stringify(named)}: name one by its id (${matches.map((c) => c.doc.id).join(', ')}).`, 1);
  return matches[0]!;
}

async function issue(store: Store, named: string, json: boolean): Promise<void> {
  const company = await findCompany(store, named);
  const companyId = company.doc.id;
  const issued = issueApiKey(companyId, new Date());
  if (!(await store.addApiKey(issued.record))) fail(`No company ${companyId} in this database any more.`, 1);
  const others = (await store.listApiKeys(companyId)).filter((key) => key.id !== issued.record.id);
  if (json) {
    console.log(JSON.stringify({ companyId, apiKey: issued.apiKey }));
    return;
  }
  const rest =
    others.length === 0
      ? 'It has no other key.'
      : `Its other keys keep working until revoked (${keys} revoke --key …): ${others.map((key) => keyLabel(key.id)).join(', ')}.`;
  console.log(`New API key of company ${companyId} (${company.doc.name}), shown only now:\n\n  ${issued.apiKey}\n\n${rest}`);
}

async function revoke(store: Store, keyId: string): Promise<void> {
  const revoked = await store.revokeApiKey(keyId);
  if (!revoked) fail(`No key ${keyLabel(keyId)} in this database (${keys} list shows them).`, 1);
  const left = await store.listApiKeys(revoked.companyId);
  const after =
    left.length === 0
      ? `The company has no key left: ${keys} issue --company ${revoked.companyId} makes one.`
      : `The company has ${left.length} key${left.length === 1 ? '' : 's'} left: ${left.map((key) => keyLabel(key.id)).join(', ')}.`;
  console.log(`Revoked ${keyLabel(keyId)} of company ${revoked.companyId}: a running server stops accepting it within a minute.\n${after}`);
}

async function reset(named: string): Promise<void> {
  const cfg = config();
  const refused = resetRefusal(cfg.mode, 'command');
  if (refused) fail(refused, 1);
  // A server on a SQLite file keeps what it read in memory: a reset made behind its back would not
  // be seen by it. While one runs, the reset goes through it; the lock is held during the reset.
  const onSqliteFile = cfg.databaseUrl === undefined && cfg.databasePath !== ':memory:';
  const hardLinked = onSqliteFile ? hardLinkRefusal(cfg.databasePath) : undefined;
  if (hardLinked !== undefined) fail(`${hardLinked} Nothing was deleted.`, 1);
  const lock = onSqliteFile ? takeWriterLock(cfg.databasePath) : undefined;
  // This command knows only its own NODE_ENV, not the running server's: the hint gives both cases.
  if (onSqliteFile && !lock)
    fail(
      `A server is running on ${cfg.databasePath} (it holds ${writerLockPath(cfg.databasePath)}) and keeps what it read in memory, so a reset made here ` +
        "would not be seen by it. Nothing was deleted. If that server runs in development, reset through it with the company's key: " +
        `curl -X POST -H "X-API-KEY: $PIX_API_KEY" "$PIX_BASE_URL/sandbox/reset" (${keys} issue --company … gives the company a key), or stop it first; ` +
        "if it runs in production (NODE_ENV=production), its companies' records are never reset: it refuses that request (403), and this command is not for its database.",
      1,
    );
  try {
    await withStore(async (store) => {
      // D51: the database must say it is a development one; this command's NODE_ENV is not enough.
      if ((await store.deploymentMode()) === undefined) {
        fail(
          'This database has no deployment mode recorded yet (a server records its own at its first start on it), so nothing says it is not a production one. ' +
            `Nothing was deleted. If it is a development database, start the server on it once, or record it: ${keys} mode development`,
          1,
        );
      }
      const company = await findCompany(store, named);
      const outcome = await resetCompany({ store, config: cfg }, company.doc.id, 'command');
      if (!outcome || 'refused' in outcome) fail(outcome?.refused ?? `No company ${company.doc.id} in this database any more.`, 1);
      const counts = Object.entries(outcome.deleted)
        .map(([kind, n]) => `${n} ${kind}`)
        .join(', ');
      console.log(`Reset company ${company.doc.id} (${company.doc.name}): deleted ${counts}, and their webhook events. Its keys still work.`);
    }, cfg);
  } finally {
    lock?.release();
  }
}

main().catch((error: unknown) => fail(`keys: ${(error as Error).message}`));

/** The command line's options, as `parseArgs` reads them (it throws on an unknown or malformed one). */
function parseOptions() {
  return parseArgs({
    allowPositionals: true,
    options: {
      company: { type: 'string' },
      key: { type: 'string' },
      'tax-id': { type: 'string' },
      'pix-key': { type: 'string' },
      city: { type: 'string' },
      color: { type: 'string' },
      json: { type: 'boolean', default: false },
      change: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}
