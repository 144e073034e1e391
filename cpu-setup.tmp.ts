import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
const ticks = () => { const f = readFileSync('/proc/self/stat', 'utf8').slice(readFileSync('/proc/self/stat', 'utf8').lastIndexOf(')') + 2).split(' '); return [Number(f[11]) + Number(f[12]), Number(f[13]) + Number(f[14])]; };
let start: number[] = [0, 0];
let wall = 0;
beforeAll(() => { start = ticks(); wall = Date.now(); });
afterAll(() => { const end = ticks(); appendFileSync('/work/timing/cpu.log', `${(end[0]! - start[0]!) / 100}\t${(end[1]! - start[1]!) / 100}\t${(Date.now() - wall) / 1000}\t${process.env.TEST_ENGINE ?? 'sqlite'}\t${expect.getState().testPath}\n`); });
