import pino from 'pino';
import { describe, expect, test } from 'vitest';
import { type RequestLine, requestLogWriter, writeRequestLinesTo } from './access-log.js';

const line: RequestLine = {
  requestId: '0b7c8a0e-4f43-4d7a-9d55-0d9c3c1a8f10',
  method: 'GET',
  path: '/charge/char_a"b\\c\u0001é',
  status: 200,
  ms: 1.3,
  companyId: 'comp_k5x0bq3t8f2m9c7w1z4y6h0n',
};

/** A logger writing into `lines`, as createLogger's writes to its destination. */
function capturing(level: pino.LevelWithSilent = 'info', registered = true) {
  const lines: string[] = [];
  const destination = { write: (text: string) => void lines.push(text) };
  const logger = pino({ level, redact: ['apiKey'] }, destination);
  if (registered) writeRequestLinesTo(logger, destination);
  return { logger, lines };
}

describe('the request line', () => {
  test.for([
    ['with a company', line],
    ['without one', { ...line, companyId: undefined }],
    ['with a path that needs no escaping', { ...line, path: '/charge/char_k5x0bq3t8f2m9c7w1z4y6h0n' }],
    ['with a plain path and a company id that needs escaping', { ...line, path: '/charge/char_k5x0bq3t8f2m9c7w1z4y6h0n', companyId: 'comp_"\\\u0002' }],
    ['with a plain path and a method that needs escaping', { ...line, path: '/charge/char_k5x0bq3t8f2m9c7w1z4y6h0n', method: 'G"ET' }],
  ] as const)('%s, written straight to the destination, is the line pino writes: same fields, same order', ([, given]) => {
    const { logger, lines } = capturing();
    requestLogWriter(() => logger)(given);
    logger.info(given, 'request');
    expect(lines).toHaveLength(2);
    const [fast, pinos] = lines.map((text) => {
      expect(text.endsWith('\n')).toBe(true);
      const { time, ...rest } = JSON.parse(text) as { time: number };
      expect(typeof time).toBe('number');
      return rest;
    });
    expect(Object.entries(fast!)).toEqual(Object.entries(pinos!));
  });

  test('goes through pino for a logger it does not know (a test capturing lines), and is not written below info', () => {
    const other = capturing('info', false);
    requestLogWriter(() => other.logger)(line);
    expect(other.lines.map((text) => (JSON.parse(text) as { msg: string; path: string }).path)).toEqual([line.path]);
    const quiet = capturing('warn');
    requestLogWriter(() => quiet.logger)(line);
    expect(quiet.lines).toEqual([]);
  });

  test('follows the logger when it is replaced', () => {
    const first = capturing();
    const second = capturing();
    let current = first.logger;
    const write = requestLogWriter(() => current);
    write(line);
    current = second.logger;
    write(line);
    expect([first.lines.length, second.lines.length]).toEqual([1, 1]);
  });
});
