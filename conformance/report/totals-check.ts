/**
 * The run's total as each output shows it, read back the way a person or a CI tool reads it,
 * so tests can require the terminal, the HTML page and the JUnit file to agree.
 */
import { parseXml } from './xml-check.js';

/** Checks in all, failed and skipped: what all three outputs can say. */
export interface ShownTotal {
  checks: number;
  failed: number;
  skipped: number;
}

const totalPattern = /Checks: (\d+) passed, (\d+) failed, (\d+) info, (\d+) skipped \((\d+) checks? on \d+ operations?\)/g;

/** The one `Checks: …` total of a terminal output or an HTML page; throws unless there is exactly one. */
export function shownTotal(text: string): ShownTotal {
  const found = [...text.matchAll(totalPattern)];
  if (found.length !== 1) throw new Error(`expected one "Checks: …" total, found ${found.length}`);
  const [, pass, fail, info, skip, checks] = found[0]!.map(Number) as [number, number, number, number, number, number];
  if (pass + fail + info + skip !== checks) throw new Error(`the total does not add up: ${found[0]![0]}`);
  return { checks, failed: fail, skipped: skip };
}

/** The total of a JUnit file: the attributes of its root. */
export function junitTotal(xml: string): ShownTotal {
  const { attrs } = parseXml(xml);
  return { checks: Number(attrs.tests), failed: Number(attrs.failures), skipped: Number(attrs.skipped) };
}
