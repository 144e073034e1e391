/** The command line of `npm run bench`. */
import { resolve } from 'node:path';
import { repoRoot } from './targets.js';

export interface BenchOptions {
  /** Seconds of each measured load run: it sends its fixed rate × this many requests. */
  duration: number;
  /** Seconds of the full-speed warm-up before each measured run, which finds the target's maximum (1 or more). */
  warmup: number;
  rounds: number;
  connections: number;
  /** Where the results JSON goes. */
  out: string;
  /** The numbers of stored clients the client-list scenarios run at, ascending. */
  clientScales: number[];
  /**
   * A PostgreSQL server (postgres:// URL) to measure the write scenarios on too, in a schema made
   * for the run and dropped after it; undefined: that row is skipped.
   */
  databaseUrl: string | undefined;
}

export const usage = `Usage: npm run bench -- [options]

Benchmarks the reference server against a bare Hono endpoint (the limit) and the Prism mock,
prints the figures, ratios and targets, and writes them as JSON. Each target of a scenario is
warmed up at full speed, then driven at one fixed rate (half the slowest target's maximum) while
its own CPU time is read: the targets are judged on µs of CPU per request. Phase 1 seeds the smallest
client history only and runs every round of the charge, the two writes and that history's lists;
phase 2 then seeds the larger histories and runs every round of their lists.

Options:
  --duration <s>      seconds of each measured run at the fixed rate: it sends rate x this
                      many requests (default 10; decimals allowed, 0.1 or more)
  --warmup <s>        seconds of each full-speed warm-up, which finds the targets' maximum
                      req/s and so the fixed rate (default 1; decimals allowed, 0.1 or more)
  --rounds <n>        rounds of each phase; the report gives the median over rounds and its
                      spread (default 3; GET /charge/{id}'s target needs 3 or more)
  --connections <n>   concurrent connections of each load run (default 16)
  --out <file>        results file (default bench/results.json)
  --client-scales <n,n,...>
                      numbers of stored clients the GET /client scenarios run at, each in a
                      company of its own: the first in phase 1, the others in phase 2
                      (default 1000,10000,100000)
  --database-url <postgres://user@host:port/database>
                      a PostgreSQL server to measure the two writes on as well (a reference
                      server on it, in a schema made for the run and dropped after it; the user
                      must be allowed to CREATE SCHEMA); default: the BENCH_DATABASE_URL
                      environment variable; without either, that row is skipped
  --help              this text

Exit code: 0 every target holds, 1 a target fails, 2 the harness failed.`;

export class UsageError extends Error {}

function positiveInteger(flag: string, raw: string | undefined): number {
  if (raw === undefined || !/^[1-9][0-9]*$/.test(raw))
    throw new UsageError(`${flag} needs a positive whole number, got ${raw === undefined ? 'nothing' : `"${raw}"`}`);
  return Number(raw);
}

/** Seconds, whole or decimal (0.5), at least a tenth: a smoke run of the harness uses fractions. */
function positiveSeconds(flag: string, raw: string | undefined): number {
  if (raw === undefined || !/^[0-9]*\.?[0-9]+$/.test(raw) || Number(raw) < 0.1)
    throw new UsageError(`${flag} needs a number of seconds, 0.1 or more, got ${raw === undefined ? 'nothing' : `"${raw}"`}`);
  return Number(raw);
}

function postgresUrl(flag: string, raw: string | undefined): string {
  let url: URL | undefined;
  try {
    url = new URL(raw ?? '');
  } catch {
    url = undefined;
  }
  // The URL itself is not repeated: it may hold a password.
  if (url?.protocol !== 'postgres:' && url?.protocol !== 'postgresql:') throw new UsageError(`${flag} needs a postgres:// or postgresql:// URL`);
  return url.toString();
}

/** The options, or `'help'` when --help was asked for; `env` gives BENCH_DATABASE_URL. */
export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): BenchOptions | 'help' {
  const fromEnv = env.BENCH_DATABASE_URL || undefined;
  const options: BenchOptions = {
    duration: 10,
    warmup: 1,
    rounds: 3,
    connections: 16,
    out: resolve(repoRoot, 'bench', 'results.json'),
    clientScales: [1_000, 10_000, 100_000],
    databaseUrl: fromEnv === undefined ? undefined : postgresUrl('BENCH_DATABASE_URL', fromEnv),
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const [name, inline] = flag.includes('=') ? [flag.slice(0, flag.indexOf('=')), flag.slice(flag.indexOf('=') + 1)] : [flag, undefined];
    const value = () => inline ?? argv[++i];
    switch (name) {
      case '--help':
      case '-h':
        return 'help';
      case '--duration':
        options.duration = positiveSeconds(name, value());
        break;
      case '--warmup':
        // No 0: the warm-up finds the maximum the fixed rate is half of.
        options.warmup = positiveSeconds(name, value());
        break;
      case '--rounds':
        options.rounds = positiveInteger(name, value());
        break;
      case '--connections':
        options.connections = positiveInteger(name, value());
        break;
      case '--client-scales': {
        const raw = value();
        const scales = (raw ?? '').split(',').map((part) => positiveInteger(name, part.trim()));
        if (scales.length < 2 || scales.some((n, i) => i > 0 && n <= scales[i - 1]!))
          throw new UsageError(`${name} needs two or more ascending numbers, got "${raw ?? ''}"`);
        options.clientScales = scales;
        break;
      }
      case '--database-url':
        options.databaseUrl = postgresUrl(name, value());
        break;
      case '--out': {
        const file = value();
        if (!file) throw new UsageError('--out needs a file name');
        options.out = resolve(file);
        break;
      }
      default:
        throw new UsageError(`unknown option "${flag}"`);
    }
  }
  return options;
}
