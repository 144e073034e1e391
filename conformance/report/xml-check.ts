/**
 * Test support: a strict little XML parser, to prove the JUnit report well-formed (used by
 * junit.test.ts and the CLI's end-to-end test).
 */

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const entity = /&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/y;
const invalidChar = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function decode(raw: string, where: string): string {
  if (invalidChar.test(raw)) throw new Error(`character not allowed in XML in ${where}`);
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== '&') {
      out += raw[i];
      continue;
    }
    entity.lastIndex = i;
    const m = entity.exec(raw);
    if (!m) throw new Error(`bare & in ${where}: ${raw.slice(i, i + 20)}`);
    const e = m[0];
    out +=
      e === '&amp;'
        ? '&'
        : e === '&lt;'
          ? '<'
          : e === '&gt;'
            ? '>'
            : e === '&quot;'
              ? '"'
              : e === '&apos;'
                ? "'"
                : String.fromCodePoint(Number(e.startsWith('&#x') ? `0x${e.slice(3, -1)}` : e.slice(2, -1)));
    i += e.length - 1;
  }
  return out;
}

/**
 * A strict little XML parser for what the JUnit writer emits: a prolog, elements, attributes
 * in double quotes, text with the five entities and character references. Throws on anything
 * not well-formed: unbalanced or crossed tags, bare `&` or `<`, duplicate attributes, stray
 * text outside the root, characters XML cannot carry.
 */
export function parseXml(xml: string): XmlElement {
  let rest = xml.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n/, '');
  if (rest === xml) throw new Error('no XML declaration');
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (rest.length > 0) {
    const lt = rest.indexOf('<');
    const text = lt === -1 ? rest : rest.slice(0, lt);
    if (text) {
      if (text.includes('>') && !stack.length) throw new Error('stray > outside the root');
      const top = stack.at(-1);
      if (!top) {
        if (text.trim()) throw new Error(`text outside the root: ${text.slice(0, 20)}`);
      } else top.text += decode(text, `<${top.name}>`);
    }
    if (lt === -1) break;
    rest = rest.slice(lt);
    const close = /^<\/([A-Za-z][\w.-]*)>/.exec(rest);
    if (close) {
      const top = stack.pop();
      if (!top || top.name !== close[1]) throw new Error(`</${close[1]}> closes <${top?.name ?? 'nothing'}>`);
      if (!stack.length) root = top;
      rest = rest.slice(close[0].length);
      continue;
    }
    const open = /^<([A-Za-z][\w.-]*)((?:\s+[A-Za-z][\w.-]*="[^"<]*")*)\s*(\/?)>/.exec(rest);
    if (!open) throw new Error(`malformed tag: ${rest.slice(0, 40)}`);
    if (root) throw new Error('a second root element');
    const element: XmlElement = { name: open[1]!, attrs: {}, children: [], text: '' };
    for (const [, name, value] of open[2]!.matchAll(/([A-Za-z][\w.-]*)="([^"]*)"/g)) {
      if (name! in element.attrs) throw new Error(`duplicate attribute ${name} on <${element.name}>`);
      element.attrs[name!] = decode(value!, `${element.name}@${name}`);
    }
    stack.at(-1)?.children.push(element);
    if (open[3]) {
      if (!stack.length) root = element;
    } else stack.push(element);
    rest = rest.slice(open[0].length);
  }
  if (stack.length) throw new Error(`<${stack.at(-1)!.name}> is never closed`);
  if (!root) throw new Error('no root element');
  return root;
}
