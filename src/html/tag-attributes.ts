/**
 * The read attributes of the current start tag, first occurrence of each: a few pairs in arrays
 * reused from tag to tag, since a Map per tag was a measurable share of parsing.
 */
export class Attributes {
  private readonly names: string[] = [];
  private readonly values: string[] = [];
  private count = 0;

  clear(): void {
    this.count = 0;
  }

  get(name: string): string | undefined {
    for (let i = 0; i < this.count; i++) if (this.names[i] === name) return this.values[i];
    return undefined;
  }

  /** A repeated attribute is ignored, as in browsers. */
  add(name: string, value: string): void {
    if (this.get(name) !== undefined) return;
    this.names[this.count] = name;
    this.values[this.count] = value;
    this.count++;
  }
}

/** An attribute's space-separated tokens, lower-cased (rel, role, class). */
export function tokens(value: string): ReadonlySet<string> {
  return new Set(value.toLowerCase().split(/[\t\n\f\r ]+/));
}

export function hasAny(tokens: ReadonlySet<string>, wanted: ReadonlySet<string>): boolean {
  for (const token of tokens) if (wanted.has(token)) return true;
  return false;
}
