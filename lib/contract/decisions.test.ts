/**
 * @operation-wide: it enumerates the contract's decisions, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { parseDecisions, readDecisions } from './decisions.js';

const section = (id: string, body = '**Decision.** d\n\n**Why.** w\n\n**Standards.** s') => `## ${id} Subject of ${id}\n\n${body}\n`;

describe('parseDecisions', () => {
  const cases: Array<[string, { given: string; want: { ids: string[]; problems: RegExp | undefined } }]> = [
    [
      'two sections after an introduction',
      { given: `# Contract decisions\n\nWhat this is.\n\n${section('D01')}\n${section('D02')}`, want: { ids: ['D01', 'D02'], problems: undefined } },
    ],
    ['no section', { given: '# Contract decisions\n\n| ID | Item |\n|---|---|\n| D01 | x |\n', want: { ids: [], problems: /no decision/ } }],
    ['a heading that is no id', { given: section('D1'), want: { ids: [], problems: /heading "## D1 Subject of D1" does not start with a decision id/ } }],
    ['no subject', { given: '## D01\n\n**Decision.** d\n\n**Why.** w\n\n**Standards.** s\n', want: { ids: ['D01'], problems: /D01 has no subject/ } }],
    ['no Why', { given: section('D01', '**Decision.** d\n\n**Standards.** s'), want: { ids: ['D01'], problems: /D01 has no \*\*Why\.\*\*/ } }],
    [
      'an empty Standards',
      { given: section('D01', '**Decision.** d\n\n**Why.** w\n\n**Standards.**'), want: { ids: ['D01'], problems: /D01 has no \*\*Standards\.\*\*/ } },
    ],
    [
      'a misspelt part',
      { given: section('D01', '**Decision.** d\n\n**Reason.** w\n\n**Standards.** s'), want: { ids: ['D01'], problems: /unknown part \*\*Reason\.\*\*/ } },
    ],
    [
      'a part twice',
      {
        given: section('D01', '**Decision.** d\n\n**Decision.** e\n\n**Why.** w\n\n**Standards.** s'),
        want: { ids: ['D01'], problems: /second \*\*Decision\.\*\*/ },
      },
    ],
    [
      'text before the first part',
      { given: section('D01', 'loose\n\n**Decision.** d\n\n**Why.** w\n\n**Standards.** s'), want: { ids: ['D01'], problems: /text before its first part/ } },
    ],
    [
      'Not marked without a reason',
      {
        given: section('D01', '**Decision.** d\n\n**Not marked.**\n\n**Why.** w\n\n**Standards.** s'),
        want: { ids: ['D01'], problems: /Not marked\.\*\* without a reason/ },
      },
    ],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const { decisions, problems } = parseDecisions(given);
    expect(decisions.map((d) => d.id)).toEqual(want.ids);
    if (want.problems === undefined) expect(problems).toEqual([]);
    else expect(problems.join('\n')).toMatch(want.problems);
  });

  test('each part is read whole: paragraphs, lists and code after a label continue it, up to the next label', () => {
    const [decision] = readDecisions(
      [
        '## D07 Fields of `Order.shippingAddress`',
        '',
        '**Seed.** §2.7: "not shown".',
        '',
        '**Decision.** An object',
        'over two lines.',
        '',
        '- `postalCode`',
        '- `street`',
        '',
        '```yaml',
        '',
        '## D99 inside code is no heading',
        '```',
        '',
        '**Not marked.** It is prose.',
        '',
        '**Why.** Reuse.',
        '',
        '**Standards.** —',
        '',
      ].join('\n'),
    );
    expect(decision).toEqual({
      id: 'D07',
      title: 'Fields of `Order.shippingAddress`',
      seed: '§2.7: "not shown".',
      decision: 'An object\nover two lines.\n\n- `postalCode`\n- `street`\n\n```yaml\n\n## D99 inside code is no heading\n```',
      notMarked: 'It is prose.',
      why: 'Reuse.',
      standards: '—',
      line: 1,
    });
  });

  test('readDecisions throws on a file it cannot read whole', () => {
    expect(() => readDecisions(section('D01', '**Decision.** d'))).toThrow(/D01 has no \*\*Why\.\*\*/);
  });

  test('openapi/DECISIONS.md reads without a problem', () => {
    const markdown = readFileSync(fileURLToPath(new URL('../../openapi/DECISIONS.md', import.meta.url)), 'utf8');
    const { decisions, problems } = parseDecisions(markdown);
    expect(problems).toEqual([]);
    expect(decisions.length).toBeGreaterThan(40);
  });
});
