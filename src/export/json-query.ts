import { urlencode } from './form-encoding.js';

// A JSON body as pywb keys it (MethodQueryCanonicalizer.json_parse): every scalar under the name of the
// member holding it, however deep, arrays repeating their member's name; a name met again becomes
// `name.2_`, `name.3_`; then urlencoded. Read as Python reads JSON: members in document order (a
// repeated member keeps its first place, its last value), integers exact, floats as Python prints them.

type Json = string | boolean | null | { number: string } | Json[] | Map<string, Json>;

/** The body's query, or undefined when it is no JSON (or holds a number Python cannot spell: Infinity). */
export function jsonQuery(body: Buffer): string | undefined {
  let value: Json;
  try {
    value = new JsonReader(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(body)).document();
  } catch {
    return undefined;
  }
  const data = new Map<string, string>();
  const dupes = new Map<string, number>();
  const keyFor = (name: string): string => {
    if (!data.has(name)) return name;
    const count = (dupes.get(name) ?? 1) + 1;
    dupes.set(name, count);
    return `${name}.${count}_`;
  };
  const walk = (node: Json, name: string): void => {
    if (node instanceof Map) for (const [member, child] of node) walk(child, member);
    else if (Array.isArray(node)) for (const child of node) walk(child, name);
    else if (name) data.set(keyFor(name), scalarText(node));
  };
  try {
    walk(value, '');
  } catch {
    return undefined;
  }
  return urlencode(data);
}

/** pywb's spelling of a scalar: true, false, null, a whole float as an integer, other floats as Python's repr. */
function scalarText(node: string | boolean | null | { number: string }): string {
  if (node === null) return 'null';
  if (typeof node === 'boolean') return String(node);
  if (typeof node === 'string') return node;
  const text = node.number;
  if (!/[.eE]/.test(text)) return BigInt(text).toString();
  const value = Number(text);
  if (!Number.isFinite(value)) throw new RangeError('not a finite number');
  if (Number.isInteger(value)) return BigInt(value).toString();
  // Python's repr: scientific below 1e-4, with a two-digit exponent at least (every non-whole double is below 1e16).
  if (Math.abs(value) >= 1e-4) return String(value);
  return value.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
}

/** A strict JSON reader that keeps members in document order and numbers as written. */
class JsonReader {
  private at = 0;
  constructor(private readonly text: string) {}

  document(): Json {
    if (this.text.charCodeAt(0) === 0xfeff) this.at = 1;
    const value = this.value();
    this.space();
    if (this.at !== this.text.length) throw new SyntaxError('extra data');
    return value;
  }

  private space(): void {
    while (/[ \t\n\r]/.test(this.text[this.at] ?? '')) this.at++;
  }

  private value(): Json {
    this.space();
    const char = this.text[this.at];
    if (char === '{') return this.object();
    if (char === '[') return this.array();
    if (char === '"') return this.string();
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    const number = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
    number.lastIndex = this.at;
    const match = number.exec(this.text);
    if (!match || match[0] === '' || match[0] === '-') throw new SyntaxError(`unexpected ${char ?? 'end'}`);
    this.at += match[0].length;
    return { number: match[0] };
  }

  private object(): Map<string, Json> {
    const members = new Map<string, Json>();
    this.at++;
    this.space();
    if (this.text[this.at] === '}') {
      this.at++;
      return members;
    }
    for (;;) {
      this.space();
      if (this.text[this.at] !== '"') throw new SyntaxError('expected a name');
      const name = this.string();
      this.space();
      if (this.text[this.at++] !== ':') throw new SyntaxError('expected :');
      members.set(name, this.value());
      this.space();
      const next = this.text[this.at++];
      if (next === '}') return members;
      if (next !== ',') throw new SyntaxError('expected , or }');
    }
  }

  private array(): Json[] {
    const items: Json[] = [];
    this.at++;
    this.space();
    if (this.text[this.at] === ']') {
      this.at++;
      return items;
    }
    for (;;) {
      items.push(this.value());
      this.space();
      const next = this.text[this.at++];
      if (next === ']') return items;
      if (next !== ',') throw new SyntaxError('expected , or ]');
    }
  }

  private string(): string {
    const token = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
    token.lastIndex = this.at;
    const match = token.exec(this.text);
    if (!match) throw new SyntaxError('bad string');
    this.at += match[0].length;
    return JSON.parse(match[0]) as string;
  }
}
