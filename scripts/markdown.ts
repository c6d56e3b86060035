/** Just enough Markdown reading for tests that run or check what the documentation shows. */

export interface CodeBlock {
  /** The info string after the opening fence, e.g. `sh` or `json`. */
  lang: string;
  code: string;
}

/**
 * The text under a heading (matched exactly, after its #s) up to the next heading of the same or a
 * higher level. Throws when the heading is missing, so a renamed section fails the test loudly.
 */
export function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, '') === heading);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const level = lines[start].indexOf(' ');
  let end = start + 1;
  let fenced = false;
  for (; end < lines.length; end++) {
    if (lines[end].startsWith('```')) fenced = !fenced;
    const match = !fenced && /^(#{1,6}) /.exec(lines[end]);
    if (match && match[1].length <= level) break;
  }
  return lines.slice(start + 1, end).join('\n');
}

/** The fenced code blocks of a text, in order. */
export function codeBlocks(text: string): CodeBlock[] {
  // The closing fence sits on its own line: the newline before it is not part of the code.
  return [...text.matchAll(/^```(\S*)[^\n]*\n([\s\S]*?)\n?^```$/gm)].map((m) => ({ lang: m[1], code: m[2] }));
}

/** The headings of one level under a text, with the text below each. */
export function subsections(text: string, level: number): Array<{ heading: string; body: string }> {
  const marker = `${'#'.repeat(level)} `;
  const parts = text.split('\n').reduce<Array<{ heading: string; lines: string[] }>>((all, line) => {
    if (line.startsWith(marker)) all.push({ heading: line.slice(marker.length), lines: [] });
    else all[all.length - 1]?.lines.push(line);
    return all;
  }, []);
  return parts.map(({ heading, lines }) => ({ heading, body: lines.join('\n') }));
}
