// Reads the import graph of src/ as written: every static import and re-export, every dynamic
// import(), every import('...') type and require(), parsed with TypeScript's own parser (so an import spelled
// in a comment or a string is not one). Shared by scripts/architecture/import-graph.mjs and the
// architecture test.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import ts from 'typescript';

/** The room of a path relative to src/ ('pipeline/ports.ts' -> 'pipeline'); a file directly in src/ is its own room. */
export function roomOf(file) {
  const slash = file.indexOf('/');
  return slash === -1 ? file : file.slice(0, slash);
}

function sourceFiles(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** True when nothing of the import survives compilation (`import type`, or every name marked `type`). */
function typeOnly(node) {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return false;
    if (clause.isTypeOnly) return true;
    const names = clause.namedBindings;
    return (
      !clause.name &&
      names !== undefined &&
      ts.isNamedImports(names) &&
      names.elements.length > 0 &&
      names.elements.every((e) => e.isTypeOnly)
    );
  }
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const names = node.exportClause;
    return names !== undefined && ts.isNamedExports(names) && names.elements.length > 0 && names.elements.every((e) => e.isTypeOnly);
  }
  return ts.isImportTypeNode(node);
}

/** `require(...)`, or `createRequire(import.meta.url)(...)`. */
function isRequire(callee) {
  if (ts.isIdentifier(callee)) return callee.text === 'require';
  return ts.isCallExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'createRequire';
}

/** Each module specifier of a file: { specifier, kind, typeOnly, line }. */
function specifiersOf(path, text) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = [];
  const add = (node, literal, kind) => {
    if (!literal || !ts.isStringLiteralLike(literal)) return;
    const line = source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1;
    found.push({ specifier: literal.text, kind, typeOnly: typeOnly(node), line });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) add(node, node.moduleSpecifier, 'import');
    else if (ts.isExportDeclaration(node)) add(node, node.moduleSpecifier, 'export');
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node, node.moduleReference.expression, 'import');
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node, node.arguments[0], 'dynamic');
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal, 'type');
    else if (ts.isCallExpression(node) && isRequire(node.expression)) add(node, node.arguments[0], 'require');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** NodeNext spelling: './x.js' names './x.ts'; a folder is not resolved to its index (NodeNext does not either). */
function resolveRelative(srcDir, fromFile, specifier) {
  const target = posix.normalize(posix.join(posix.dirname(fromFile), specifier));
  const candidates = [target.replace(/\.js$/, '.ts'), target.replace(/\.mjs$/, '.mts'), target];
  return candidates.find((file) => existsSync(join(srcDir, file)) && statSync(join(srcDir, file)).isFile());
}

/**
 * The graph of every .ts file under `srcDir`. Paths are relative to srcDir, with '/'.
 * - files: { file, room, lines }
 * - imports: a relative specifier resolved to a file of src/: { from, to, fromRoom, toRoom, specifier, kind, typeOnly, line }
 *   (`to` is undefined when it names no file; `toRoom` is then '?'; a specifier leaving src/ has toRoom '..')
 * - packages: a bare specifier: { from, fromRoom, specifier, name, kind, typeOnly, line } (`name`: 'undici' for 'undici/types/header.js')
 */
export function readImportGraph(srcDir) {
  const files = [];
  const imports = [];
  const packages = [];
  for (const path of sourceFiles(srcDir)) {
    const file = relative(srcDir, path).split(sep).join('/');
    const text = readFileSync(path, 'utf8');
    const fromRoom = roomOf(file);
    files.push({ file, room: fromRoom, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) });
    for (const found of specifiersOf(path, text)) {
      if (found.specifier.startsWith('.')) {
        const target = posix.normalize(posix.join(posix.dirname(file), found.specifier));
        const to = target.startsWith('../') ? undefined : resolveRelative(srcDir, file, found.specifier);
        const toRoom = target.startsWith('../') ? '..' : to === undefined ? '?' : roomOf(to);
        imports.push({ from: file, to, fromRoom, toRoom, ...found });
      } else {
        const parts = found.specifier.split('/');
        const name = found.specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
        packages.push({ from: file, fromRoom, name, ...found });
      }
    }
  }
  return { files, imports, packages };
}
