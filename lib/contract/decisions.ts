/**
 * openapi/DECISIONS.md read once, for every reader: the docs (the index and the decisions page),
 * the breaking-change check (which decisions exist) and the tests of the marks. Each decision is
 * a section:
 *
 *     ## D48 A company's client list at scale
 *
 *     **Seed.** What the seed says of it (optional).
 *
 *     **Decision.** What this contract decides; further paragraphs and lists continue it.
 *
 *     **Not marked.** Why no `x-decision` / `x-decided` names it (optional).
 *
 *     **Why.** …
 *
 *     **Standards.** … (— where none applies)
 */

export interface Decision {
  /** `D48`. */
  id: string;
  /** What it decides, as its heading names it. */
  title: string;
  /** What the seed says of it; empty when the section has no **Seed.** */
  seed: string;
  decision: string;
  why: string;
  standards: string;
  /** Why no mark in the contract names it, when it says so. */
  notMarked?: string;
  /** 1-based line of its heading. */
  line: number;
}

/** The labels a section's paragraphs start with, and the field each fills. */
const fields = {
  Seed: 'seed',
  Decision: 'decision',
  'Not marked': 'notMarked',
  Why: 'why',
  Standards: 'standards',
} as const satisfies Record<string, keyof Decision>;
type Field = (typeof fields)[keyof typeof fields];
const required: readonly Field[] = ['decision', 'why', 'standards'];

const heading = /^## (\S+)(?:\s+(.*))?$/;
const label = /^\*\*([^*]+?)\.\*\*\s*(.*)$/s;

export interface ParsedDecisions {
  decisions: Decision[];
  /** What is wrong with the file's shape, each with its line. */
  problems: string[];
}

/** The decisions of DECISIONS.md, in file order, and what keeps a section from being read. */
export function parseDecisions(markdown: string): ParsedDecisions {
  const decisions: Decision[] = [];
  const problems: string[] = [];
  const lines = markdown.split(/\r?\n/);
  let current: { decision: Decision; filled: Set<Field>; field?: Field } | undefined;
  let paragraph: { text: string[]; line: number } | undefined;
  let fenced = false;

  const endParagraph = () => {
    if (!paragraph || !current) {
      paragraph = undefined;
      return;
    }
    const text = paragraph.text.join('\n').trim();
    const labelled = label.exec(text);
    const field = labelled ? fields[labelled[1] as keyof typeof fields] : undefined;
    if (labelled && field === undefined) {
      problems.push(`line ${paragraph.line}: ${current.decision.id} has an unknown part **${labelled[1]}.** (known: ${Object.keys(fields).join(', ')})`);
    } else if (field !== undefined) {
      if (current.filled.has(field)) problems.push(`line ${paragraph.line}: ${current.decision.id} has a second **${labelled![1]}.**`);
      current.filled.add(field);
      current.field = field;
      current.decision[field] = labelled![2]!.trim();
    } else if (current.field === undefined) {
      problems.push(`line ${paragraph.line}: ${current.decision.id} has text before its first part (**Seed.** or **Decision.**)`);
    } else {
      current.decision[current.field] = `${current.decision[current.field] ?? ''}\n\n${text}`;
    }
    paragraph = undefined;
  };
  const endSection = () => {
    endParagraph();
    if (!current) return;
    const { decision, filled } = current;
    for (const field of required) {
      if (!filled.has(field) || decision[field] === '') problems.push(`line ${decision.line}: ${decision.id} has no **${partName(field)}.**`);
    }
    if (filled.has('notMarked') && decision.notMarked === '') problems.push(`line ${decision.line}: ${decision.id} says **Not marked.** without a reason`);
    decisions.push(decision);
    current = undefined;
  };

  lines.forEach((text, index) => {
    const line = index + 1;
    if (text.startsWith('```')) fenced = !fenced;
    const section = fenced ? null : heading.exec(text);
    if (section) {
      endSection();
      const [, id, title] = section;
      if (!/^D\d{2}$/.test(id!)) {
        problems.push(`line ${line}: heading "${text}" does not start with a decision id (D01, D02, …)`);
        return;
      }
      if (!title?.trim()) problems.push(`line ${line}: ${id} has no subject after its id`);
      current = { decision: { id: id!, title: title?.trim() ?? '', seed: '', decision: '', why: '', standards: '', line }, filled: new Set() };
      return;
    }
    if (!fenced && text.trim() === '') {
      endParagraph();
      return;
    }
    paragraph ??= { text: [], line };
    paragraph.text.push(text);
  });
  endSection();
  if (decisions.length === 0) problems.push('no decision: each is a section "## Dnn Subject"');
  return { decisions, problems };
}

function partName(field: Field): string {
  return Object.entries(fields).find(([, value]) => value === field)![0];
}

/** The decisions of DECISIONS.md; throws on a file whose sections cannot be read. */
export function readDecisions(markdown: string): Decision[] {
  const { decisions, problems } = parseDecisions(markdown);
  if (problems.length > 0) throw new Error(`DECISIONS.md: ${problems.join('; ')}`);
  return decisions;
}
