// The few DOM members this room uses, typed here: the project compiles without the DOM library, and
// linkedom's documents have these shapes.
export interface DomElement {
  nodeName: string;
  textContent: string | null;
  parentElement: DomElement | null;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  cloneNode(deep: boolean): unknown;
  remove(): void;
  closest(selector: string): DomElement | null;
  matches(selector: string): boolean;
  removeAttribute(name: string): void;
  readonly firstChild: unknown;
  appendChild(node: unknown): unknown;
  replaceWith(node: unknown): void;
  before(node: unknown): void;
}

export interface DomDocument {
  body: DomElement | null;
  createElement(name: string): DomElement;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
}
